package runner

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestDefaultJobs(t *testing.T) {
	memCap := 1 << 30
	if avail := availableMemory(); avail > 0 {
		memCap = int(avail / jobMemory)
	}
	tests := []struct {
		starts, maxProcs, room, want int
	}{
		{2, 0, 0, max(min(8, memCap), 2)},
		{1, 0, 0, max(min(4, memCap), 1)},
		// Under a pids limit of 1000 tasks, at -j 2 each IUT had 500: a
		// wider default would give each less.
		{2, 0, 1000, 2},
		// An IUT bounded to 100 tasks keeps them at -j 8 too.
		{2, 100, 10000, max(min(8, memCap), 2)},
		{2, 100, 400, max(min(4, memCap), 2)},
	}
	for _, tt := range tests {
		if got := defaultJobs(tt.starts, tt.maxProcs, tt.room); got != tt.want {
			t.Errorf("defaultJobs(%d, %d, %d) = %d, want %d", tt.starts, tt.maxProcs, tt.room, got, tt.want)
		}
	}
}

func TestStartGate(t *testing.T) {
	g := newStartGate(1)
	if !g.enter(context.Background()) {
		t.Fatal("an empty gate refused")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if g.enter(ctx) {
		t.Fatal("a full gate admitted a second start")
	}
	g.leave()
	if !g.enter(context.Background()) {
		t.Fatal("a slot given back was not taken")
	}
}

// TestWidenWhileIdle: at most extra workers are added, none after stop
// returns.
func TestWidenWhileIdle(t *testing.T) {
	t.Parallel() // it bounds what is added from above only: busy neighbours change nothing
	if _, ok := ownCPU(); !ok {
		t.Skip("no rusage here: the run is as wide as Jobs from the start")
	}
	p := &plan{}
	var added atomic.Int32
	stop := p.widenWhileIdle(context.Background(), 2, func() { added.Add(1) })
	time.Sleep(3 * widenEvery)
	stop()
	n := added.Load()
	time.Sleep(2 * widenEvery)
	if added.Load() != n || n > 2 {
		t.Errorf("added %d, then %d after stop; want at most 2, none after stop", n, added.Load())
	}
}
