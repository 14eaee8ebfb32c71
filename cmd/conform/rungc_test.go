package main

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestHeadroomPercent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		live uint64
		want int
	}{
		{0, 100},
		{1 << 20, 100},  // Go's own minimum heap decides
		{3 << 20, 100},  // headroom 3 MiB = GOGC=100
		{5 << 20, 60},   // 3 MiB over 5
		{6 << 20, 50},   // 3 MiB = 50%
		{100 << 20, 50}, // 50% from there on
		{1 << 40, 50},
	}
	for _, tc := range tests {
		if got := headroomPercent(tc.live); got != tc.want {
			t.Errorf("headroomPercent(%d) = %d, want %d", tc.live, got, tc.want)
		}
	}
}

// TestSoftLimit: the soft memory limit is the heap's goal (live plus
// GOGC percent of it) plus the runtime's own memory, so it never holds a
// run below the heap it keeps, and it grows with the live heap.
func TestSoftLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		live uint64
		want int64
	}{
		{0, 8 << 20},
		{2 << 20, (4 + 8) << 20},     // GOGC=100: goal 4 MiB
		{6 << 20, (9 + 8) << 20},     // GOGC=50: goal 9 MiB
		{100 << 20, (150 + 8) << 20}, // a run that keeps 100 MiB may use 158
	}
	for _, tc := range tests {
		if got := softLimit(tc.live, headroomPercent(tc.live)); got != tc.want {
			t.Errorf("softLimit(%d MiB) = %d MiB, want %d MiB", tc.live>>20, got>>20, tc.want>>20)
		}
	}
}

// onEachGC's function runs after every collection, not just the first,
// until it returns false.
func TestOnEachGC(t *testing.T) {
	var n atomic.Int32
	onEachGC(func() bool { return n.Add(1) < 5 })
	for i := int32(1); i <= 5; i++ {
		runtime.GC()
		deadline := time.Now().Add(30 * time.Second) // a hang guard: the loop ends when the function has run
		for n.Load() < i && time.Now().Before(deadline) {
			runtime.Gosched()
			time.Sleep(time.Millisecond)
		}
		if n.Load() < i {
			t.Fatalf("after %d collections the function ran %d times", i, n.Load())
		}
	}
	for range 3 {
		runtime.GC()
	}
	time.Sleep(50 * time.Millisecond)
	if got := n.Load(); got != 5 {
		t.Errorf("the function ran %d times, want 5 (it returned false the fifth time)", got)
	}
}
