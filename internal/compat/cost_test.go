package compat_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/compat"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/testtool"
)

// The cost cases of issue 23, built in memory. Each must stay within its
// work and memory bounds; their time is measured by the benchmarks below
// and bench/README.md, never asserted here.

// manyDefs is n definitions referring to each other through oneOf of an
// object, null and an array (a large schema with no change when compared
// with itself).
func manyDefs(n int) any {
	defs := map[string]any{}
	for i := range n {
		defs[fmt.Sprintf("D%d", i)] = map[string]any{"oneOf": []any{
			map[string]any{"type": "object", "properties": map[string]any{
				"k": map[string]any{"const": fmt.Sprintf("d%d", i)},
				"n": map[string]any{"$ref": fmt.Sprintf("#/$defs/D%d", (i+1)%n)}}, "required": []any{"k"}},
			map[string]any{"type": "null"},
			map[string]any{"type": "array", "items": map[string]any{"$ref": fmt.Sprintf("#/$defs/D%d", (i+3)%n)}},
		}}
	}
	var roots []any
	for i := 0; i < n; i += 5 {
		roots = append(roots, map[string]any{"$ref": fmt.Sprintf("#/$defs/D%d", i)})
	}
	return map[string]any{"$defs": defs, "anyOf": roots}
}

// nestedOneOf is a oneOf of n oneOf of n objects told apart by a const.
func nestedOneOf(n int) any {
	var outer []any
	for i := range n {
		var inner []any
		for j := range n {
			inner = append(inner, map[string]any{"type": "object", "required": []any{"k"},
				"properties": map[string]any{"k": map[string]any{"const": fmt.Sprintf("k%d_%d", i, j)}}})
		}
		outer = append(outer, map[string]any{"oneOf": inner})
	}
	return map[string]any{"oneOf": outer}
}

// nestedAnyOf is depth anyOf nested in one another, each with an integer
// branch whose minimum is shift above its level.
func nestedAnyOf(depth, shift int) any {
	var s any = map[string]any{"type": "string"}
	for i := range depth {
		s = map[string]any{"anyOf": []any{s, map[string]any{"type": "integer", "minimum": i + shift}}}
	}
	return s
}

// fanOut is depth levels of definitions, each a oneOf of three uses of the
// next level (itself, its array, its map); the last level changes.
func fanOut(depth int, changed bool) any {
	defs := map[string]any{}
	for l := range depth {
		next := map[string]any{"$ref": fmt.Sprintf("#/$defs/L%d", l+1)}
		defs[fmt.Sprintf("L%d", l)] = map[string]any{"oneOf": []any{next,
			map[string]any{"type": "array", "items": next},
			map[string]any{"type": "object", "additionalProperties": next}}}
	}
	var leaf any = map[string]any{"type": "string"}
	if changed {
		leaf = map[string]any{"type": []any{"string", "null"}}
	}
	defs[fmt.Sprintf("L%d", depth)] = leaf
	return map[string]any{"$defs": defs, "$ref": "#/$defs/L0"}
}

// wideObject is an object of n properties, each an object of n/4
// properties (the shape of renovate's configuration schema); changed
// retypes every tenth inner property and adds required members.
func wideObject(n int, changed bool) any {
	props := map[string]any{}
	for i := range n {
		inner := map[string]any{}
		for j := range n / 4 {
			typ := "string"
			if changed && j%10 == 0 {
				typ = "integer"
			}
			inner[fmt.Sprintf("q%d", j)] = map[string]any{"type": typ, "description": "x"}
		}
		o := map[string]any{"type": "object", "properties": inner}
		if changed && i%7 == 0 {
			o["required"] = []any{"q1"}
		}
		props[fmt.Sprintf("p%d", i)] = o
	}
	return map[string]any{"type": "object", "properties": props, "additionalProperties": false}
}

type costCase struct {
	name     string
	old, new any
	findings bool // some finding expected
	// allocMiB bounds the bytes Compare allocates (runtime.MemStats
	// TotalAlloc), in MiB: about four times what it allocated when the
	// bound was set (39, 93, 105, 244 and 373 MiB on go1.26), far below
	// what an exponential search takes (the fan-out doubled per level
	// before issue 23).
	allocMiB uint64
	// long marks a case of seconds of CPU: a long scenario (testtool.Long),
	// run by CI stages 62 and 80.
	long bool
}

func costCases() []costCase {
	return []costCase{
		{"self-500-defs", manyDefs(500), manyDefs(500), false, 160, false},
		{"self-64x64-oneOf", nestedOneOf(64), nestedOneOf(64), false, 400, false},
		{"anyOf-nested-50", nestedAnyOf(50, 0), nestedAnyOf(50, 1), true, 420, false},
		{"fan-out-16", fanOut(16, false), fanOut(16, true), true, 1000, true},
		{"wide-object-200", wideObject(200, false), wideObject(200, true), true, 1500, true},
	}
}

// costHangGuard ends a Compare that does not answer: a hang, not a speed
// bound (the cases take seconds of CPU; a loaded 2-core machine stretches
// that to tens of seconds of wall time).
const costHangGuard = 5 * time.Minute

// TestCostBounded: every cost case answers within its work bound (bytes
// allocated, allocMiB) and its memory bound (no COMPAT_MEMORY within 512
// MiB of heap), a schema against itself finds nothing, a changed one
// finds its change. Time is not asserted: the benchmarks below and
// bench/README.md measure it. The subtests run one at a time (and this
// test is not parallel), so the allocation counts are Compare's own.
func TestCostBounded(t *testing.T) {
	for _, c := range costCases() {
		t.Run(c.name, func(t *testing.T) {
			if c.long {
				testtool.Long(t, "a cost case of 1-5 s of CPU and 250-400 MiB allocated")
			}
			ctx, cancel := context.WithTimeout(context.Background(), costHangGuard)
			defer cancel()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			rep, err := compat.Compare(ctx, c.old, c.new, compat.Options{MemoryLimit: 512 << 20})
			runtime.ReadMemStats(&after)
			if kiterr.CodeOf(err) == kiterr.CompatTimeout {
				t.Fatalf("Compare did not answer within the hang guard of %s: %v", costHangGuard, err)
			}
			if err != nil {
				t.Fatalf("Compare: %v", err)
			}
			if got := len(rep.Findings) > 0; got != c.findings {
				t.Errorf("findings: %d, want some: %v", len(rep.Findings), c.findings)
			}
			alloc := (after.TotalAlloc - before.TotalAlloc) >> 20
			t.Logf("allocated %d MiB (bound %d MiB)", alloc, c.allocMiB)
			if alloc > c.allocMiB {
				t.Errorf("Compare allocated %d MiB, bound %d MiB: more work than this case needed when the bound was set", alloc, c.allocMiB)
			}
		})
	}
}

// TestCompareMemoryBound: a bound below the heap already in use is
// COMPAT_MEMORY, a stable code, not a crash or a silent pass.
func TestCompareMemoryBound(t *testing.T) {
	_, err := compat.Compare(context.Background(), wideObject(200, false), wideObject(200, true), compat.Options{MemoryLimit: 1})
	if got := kiterr.CodeOf(err); got != kiterr.CompatMemory {
		t.Fatalf("Compare with a 1-byte bound: %v, want COMPAT_MEMORY", err)
	}
}

func BenchmarkCost(b *testing.B) {
	cat := compat.NewCatalog() // as a batch (compat --pairs) builds it once
	for _, c := range costCases() {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := compat.Compare(context.Background(), c.old, c.new, compat.Options{Catalog: cat}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFanOut measures how the cost of a $ref fan-out grows with its
// depth (issue 23: it doubled per level before).
func BenchmarkFanOut(b *testing.B) {
	cat := compat.NewCatalog() // as a batch (compat --pairs) builds it once
	for _, depth := range []int{4, 8, 12, 16} {
		old, nw := fanOut(depth, false), fanOut(depth, true)
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			for b.Loop() {
				if _, err := compat.Compare(context.Background(), old, nw, compat.Options{Catalog: cat}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
