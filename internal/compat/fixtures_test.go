package compat_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compat"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/schema"
)

// fixture is one file of testdata/compat: a schema change with the
// verdict it must get in each direction (decided by meaning), and where
// given the exact BREAKING-or-not findings ("RULE pointer") of direction
// both, or the error code Compare must return.
type fixture struct {
	About    string   `json:"about"`
	Old      any      `json:"old"`
	New      any      `json:"new"`
	Reader   string   `json:"reader"`
	Writer   string   `json:"writer"`
	Findings []string `json:"findings"`
	Error    string   `json:"error"`
}

func loadFixtures(t *testing.T) map[string]fixture {
	t.Helper()
	files, err := filepath.Glob("testdata/compat/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in testdata/compat (%v)", err)
	}
	out := map[string]fixture{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := canon.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		m := v.(map[string]any)
		fx := fixture{Old: m["old"], New: m["new"]}
		fx.About, _ = m["about"].(string)
		fx.Reader, _ = m["reader"].(string)
		fx.Writer, _ = m["writer"].(string)
		fx.Error, _ = m["error"].(string)
		if l, ok := m["findings"].([]any); ok {
			for _, s := range l {
				fx.Findings = append(fx.Findings, s.(string))
			}
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = fx
	}
	return out
}

// TestFixtures checks each kind of change of issue 12 (fixture names start
// with its number): the verdict per direction, a witness for every break
// that the validator confirms independently, a proof for every direction
// that holds.
func TestFixtures(t *testing.T) {
	t.Parallel()
	fixtures := loadFixtures(t)
	names := make([]string, 0, len(fixtures))
	for n := range fixtures {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		fx := fixtures[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if fx.Error != "" {
				_, err := compat.Compare(context.Background(), fx.Old, fx.New, compat.Options{})
				if got := string(kiterr.CodeOf(err)); got != fx.Error {
					t.Fatalf("%s: error %v, want code %s", fx.About, err, fx.Error)
				}
				return
			}
			for _, d := range []struct{ dir, want string }{{"reader", fx.Reader}, {"writer", fx.Writer}} {
				rep, err := compat.Compare(context.Background(), fx.Old, fx.New, compat.Options{Direction: d.dir, StrictOpen: true})
				if err != nil {
					t.Fatalf("%s: Compare: %v", d.dir, err)
				}
				ch := rep.Checks[0]
				got := "breaking"
				if ch.Holds {
					got = "compatible"
				}
				if got != d.want {
					t.Errorf("%s (%s): %s, want %s; findings %+v", fx.About, d.dir, got, d.want, rep.Findings)
					continue
				}
				if ch.Holds && ch.Evidence != compat.EvidenceProof {
					t.Errorf("%s (%s): compatible without a proof: %+v", fx.About, d.dir, ch)
				}
				if !ch.Holds {
					witnessed := false
					for _, f := range rep.Findings {
						if f.Verdict == compat.VerdictBreaking && f.Evidence == compat.EvidenceWitness {
							confirm(t, fx, f.Witness)
							witnessed = true
						}
					}
					if !witnessed {
						t.Errorf("%s (%s): breaking without a witness: %+v", fx.About, d.dir, rep.Findings)
					}
				}
			}
			if fx.Findings != nil {
				rep, err := compat.Compare(context.Background(), fx.Old, fx.New, compat.Options{StrictOpen: true})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, f := range rep.Findings {
					got = append(got, f.Rule+" "+f.Pointer)
				}
				if diff := cmp.Diff(fx.Findings, got); diff != "" {
					t.Errorf("%s: findings (-want +got):\n%s", fx.About, diff)
				}
			}
		})
	}
}

// confirm validates a witness with the validator directly: the old schema
// at its pointer and the new one at its pointer must give the verdicts the
// witness states.
func confirm(t *testing.T, fx fixture, w *compat.Witness) {
	t.Helper()
	for _, side := range []struct {
		name string
		doc  any
		ptr  string
		want bool
	}{{"old", fx.Old, w.OldPointer, w.OldAccepts}, {"new", fx.New, w.NewPointer, w.NewAccepts}} {
		s, err := schema.NewStandalone(side.name, side.doc, true, "")
		if err != nil {
			t.Fatal(err)
		}
		ok, err := s.Valid(side.ptr, w.Instance)
		if err != nil {
			t.Fatal(err)
		}
		if ok != side.want {
			t.Errorf("%s: witness %v: %s schema at %q accepts = %v, the witness says %v", fx.About, w.Instance, side.name, side.ptr, ok, side.want)
		}
	}
}

// unions builds n object types that refer to each other through oneOf
// unions (each type has a field holding a union of the next three types),
// as in the cost case of issue 12; changed alters one field of every type.
func unions(n int, changed bool) any {
	defs := map[string]any{}
	for i := range n {
		var branches []any
		for k := 1; k <= 3; k++ {
			branches = append(branches, map[string]any{"$ref": fmt.Sprintf("#/$defs/T%d", (i+k)%n)})
		}
		typ := "string"
		if changed {
			typ = "integer"
		}
		defs[fmt.Sprintf("T%d", i)] = map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"kind": map[string]any{"const": fmt.Sprintf("t%d", i)}, "next": map[string]any{"oneOf": branches}, "v": map[string]any{"type": typ}},
			"required":             []any{"kind"},
			"additionalProperties": false,
		}
	}
	var all []any
	for i := range n {
		all = append(all, map[string]any{"$ref": fmt.Sprintf("#/$defs/T%d", i)})
	}
	return map[string]any{"$defs": defs, "oneOf": all}
}

// TestCompareMutualUnions runs the 48-type case of issue 12 (it took about
// 7 minutes before memoization): it must finish (go test's own timeout
// guards it) and report every changed field.
func TestCompareMutualUnions(t *testing.T) {
	t.Parallel()
	rep, err := compat.Compare(context.Background(), unions(48, false), unions(48, true), compat.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range rep.Findings {
		if f.Rule == "TYPE_CHANGED" && f.Verdict == compat.VerdictBreaking {
			n++
		}
	}
	if n != 48 {
		t.Errorf("TYPE_CHANGED findings = %d, want 48", n)
	}
}

// TestCompareTimeout: an expired deadline is COMPAT_TIMEOUT, a stable code.
func TestCompareTimeout(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	_, err := compat.Compare(ctx, unions(8, false), unions(8, true), compat.Options{})
	if got := kiterr.CodeOf(err); got != kiterr.CompatTimeout {
		t.Fatalf("Compare after the deadline: %v, want COMPAT_TIMEOUT", err)
	}
}

// bigOneOf is a oneOf of n object branches told apart by a const.
func bigOneOf(n int, changed bool) any {
	var branches []any
	for i := range n {
		typ := "string"
		if changed {
			typ = "integer"
		}
		branches = append(branches, map[string]any{"type": "object", "properties": map[string]any{
			"kind": map[string]any{"const": fmt.Sprintf("k%d", i)}, "v": map[string]any{"type": typ}}, "required": []any{"kind"}})
	}
	return map[string]any{"oneOf": branches}
}

func BenchmarkCompareMutualUnions48(b *testing.B) {
	cat := compat.NewCatalog() // as a batch (compat --pairs) builds it once
	old, nw := unions(48, false), unions(48, true)
	for b.Loop() {
		if _, err := compat.Compare(context.Background(), old, nw, compat.Options{Catalog: cat}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompareOneOf2000(b *testing.B) {
	cat := compat.NewCatalog() // as a batch (compat --pairs) builds it once
	old, nw := bigOneOf(oneOfN, false), bigOneOf(oneOfN, true)
	for b.Loop() {
		if _, err := compat.Compare(context.Background(), old, nw, compat.Options{Catalog: cat}); err != nil {
			b.Fatal(err)
		}
	}
}

// oneOfN is the branch count of BenchmarkCompareOneOf2000 (issue 12's cost case).
const oneOfN = 2000
