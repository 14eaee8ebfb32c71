package compat_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/conform-kit/conform/internal/compat"
)

// refFanOut is issue 33's $ref fan-out family: depth definitions, each an
// anyOf whose branches refer to the next definition twice in place
// (directly and through allOf) and once through a property; the last
// level changes (string to string-or-null) when changed.
func refFanOut(depth int, changed bool) any {
	defs := map[string]any{}
	for l := range depth {
		next := map[string]any{"$ref": fmt.Sprintf("#/$defs/D%d", l+1)}
		defs[fmt.Sprintf("D%d", l)] = map[string]any{"anyOf": []any{
			next,
			map[string]any{"allOf": []any{next}},
			map[string]any{"type": "object", "properties": map[string]any{"p": next}},
		}}
	}
	var leaf any = map[string]any{"type": "string"}
	if changed {
		leaf = map[string]any{"type": []any{"string", "null"}}
	}
	defs[fmt.Sprintf("D%d", depth)] = leaf
	return map[string]any{"$defs": defs, "$ref": "#/$defs/D0"}
}

// TestRefFanOutPolynomial: the work Compare does on issue 33's $ref
// fan-out grows polynomially with its depth. Before issue 33 every
// validation at a level tried both branches of every level below it
// (2^depth evaluations a call: depth 20 took 67 s, depth 40 1 GB). Work
// is counted (validator calls, prove calls, expansions), never timed:
// bench/run.sh and BenchmarkRefFanOut time it.
func TestRefFanOutPolynomial(t *testing.T) {
	t.Parallel() // it counts its own calls' work (compat.Work), not the process's
	counts := map[int]compat.Work{}
	for _, depth := range []int{10, 20, 40} {
		ctx, cancel := context.WithTimeout(context.Background(), costHangGuard)
		rep, w, err := compat.CompareWork(ctx, refFanOut(depth, false), refFanOut(depth, true), compat.Options{})
		cancel()
		if err != nil {
			t.Fatalf("depth %d: %v", depth, err)
		}
		if len(rep.Findings) == 0 || rep.Breaking == 0 {
			t.Errorf("depth %d: %d findings, %d breaking; want the widened leaf reported BREAKING", depth, len(rep.Findings), rep.Breaking)
		}
		t.Logf("depth %d: %+v", depth, w)
		counts[depth] = w
	}
	// doubling the depth may multiply the work by at most 2^3 (cubic);
	// exponential growth multiplies it by 2^20 or more
	const bound = 8
	for _, pair := range [][2]int{{10, 20}, {20, 40}} {
		a, b := counts[pair[0]], counts[pair[1]]
		for _, c := range []struct {
			name string
			a, b int
		}{{"validator calls", a.Validations, b.Validations}, {"prove calls", a.Proofs, b.Proofs}, {"expansions", a.Expansions, b.Expansions}, {"validator evaluations", int(a.Evaluations), int(b.Evaluations)}} {
			if c.b > bound*max(c.a, 1) {
				t.Errorf("%s: %d at depth %d, %d at depth %d: grew more than %d× when the depth doubled", c.name, c.a, pair[0], c.b, pair[1], bound)
			}
		}
	}
}

// TestValidatorCostBounded: one validator call at the root of a deep
// fan-out costs 2^depth evaluations, so the root is not validated (its
// unfolding is past the bound); a location near the leaf still is.
func TestValidatorCostBounded(t *testing.T) {
	t.Parallel()
	_, w, err := compat.CompareWork(context.Background(), refFanOut(30, false), refFanOut(30, true), compat.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Validations == 0 {
		t.Errorf("no validator call: the locations with a small unfolding must still be validated")
	}
}

// BenchmarkRefFanOut times issue 33's fan-out at depths 10, 20 and 40
// (issue 33: depth 20 ≤ 1 s, depth 40 ≤ 5 s).
func BenchmarkRefFanOut(b *testing.B) {
	cat := compat.NewCatalog()
	for _, depth := range []int{10, 20, 40} {
		old, nw := refFanOut(depth, false), refFanOut(depth, true)
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			for b.Loop() {
				if _, err := compat.Compare(context.Background(), old, nw, compat.Options{Catalog: cat}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
