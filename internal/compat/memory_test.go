package compat_test

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"

	"github.com/conform-kit/conform/internal/compat"
	"github.com/conform-kit/conform/internal/kiterr"
)

// mutualDefs is issue 33's memory case: n definitions, each an object
// whose members refer to the next, the previous and the one after next
// (every definition reaches every other), with a oneOf of two shapes;
// changed widens a member of every definition.
func mutualDefs(n int, changed bool) any {
	defs := map[string]any{}
	ref := func(i int) any { return map[string]any{"$ref": fmt.Sprintf("#/$defs/M%d", (i+n)%n)} }
	for i := range n {
		typ := any("string")
		if changed {
			typ = []any{"string", "integer"}
		}
		defs[fmt.Sprintf("M%d", i)] = map[string]any{"oneOf": []any{
			map[string]any{"type": "object", "required": []any{"k"}, "properties": map[string]any{
				"k": map[string]any{"const": fmt.Sprintf("m%d", i)}, "v": map[string]any{"type": typ},
				"next": ref(i + 1), "prev": ref(i - 1), "skip": ref(i + 2)}},
			map[string]any{"type": "array", "items": ref(i + 3)},
		}}
	}
	return map[string]any{"$defs": defs, "$ref": "#/$defs/M0"}
}

// residentMiB is the process's resident set in MiB (/proc/self/statm).
func residentMiB(t *testing.T) int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := strings.Fields(string(data))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatalf("statm %q: %v", data, err)
	}
	return pages * int64(os.Getpagesize()) >> 20
}

// TestMemoryBoundIsResident: MemoryLimit bounds the process's resident
// set, not only the Go heap's live objects: a bound a few MiB above what
// the process holds now ends the comparison of 500 mutually cyclic
// definitions in COMPAT_MEMORY (it needs more), and the resident set when
// it returns is within the bound plus the poll interval's growth.
func TestMemoryBoundIsResident(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), costHangGuard)
	defer cancel()
	old, nw := mutualDefs(500, false), mutualDefs(500, true)
	// The heap earlier tests freed but the runtime kept (TestCostBounded's
	// deep cases leave 80 MiB and more resident) would serve Compare's
	// allocations without the resident set growing: give it back first,
	// so that what grows is this Compare's.
	debug.FreeOSMemory()
	before := residentMiB(t)
	limit := before + 8
	_, err := compat.Compare(ctx, old, nw, compat.Options{MemoryLimit: limit << 20})
	after := residentMiB(t)
	t.Logf("resident %d MiB before, %d MiB after, bound %d MiB: %v", before, after, limit, err)
	if got := kiterr.CodeOf(err); got != kiterr.CompatMemory {
		t.Fatalf("Compare with a bound of %d MiB (resident %d MiB before): %v, want COMPAT_MEMORY", limit, before, err)
	}
	if after > limit+64 {
		t.Errorf("resident %d MiB after COMPAT_MEMORY, bound %d MiB: the bound did not hold the process", after, limit)
	}
}

// TestMemoryBoundCountsOutsideHeap: a bound below what the process holds
// resident, but above its live heap objects (what the bound read before
// issue 33), is COMPAT_MEMORY even on a small pair: the memory outside
// the live heap (stacks, free spans not returned, runtime metadata)
// counts.
func TestMemoryBoundCountsOutsideHeap(t *testing.T) {
	rss := residentMiB(t)
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	heap := int64(sample[0].Value.Uint64()) >> 20
	limit := rss - 2
	if heap+4 >= limit {
		t.Skipf("live heap %d MiB too close to the resident %d MiB to tell them apart", heap, rss)
	}
	// a pair large enough for the bound to be read while it runs (a pair
	// of 20 is now proved before the first reading); it stays within the
	// bound's margin: 120 MiB
	// of allocation would be needed before the live heap reached it
	_, err := compat.Compare(context.Background(), mutualDefs(500, false), mutualDefs(500, true), compat.Options{MemoryLimit: limit << 20})
	t.Logf("resident %d MiB, live heap %d MiB, bound %d MiB: %v", rss, heap, limit, err)
	if got := kiterr.CodeOf(err); got != kiterr.CompatMemory {
		t.Fatalf("Compare with a bound of %d MiB below the resident %d MiB: %v, want COMPAT_MEMORY", limit, rss, err)
	}
}
