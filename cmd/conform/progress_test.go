package main

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/runner"
)

// chanWriter hands each write to the test, so a tick's line is known to be
// written before the test goes on.
type chanWriter chan string

func (c chanWriter) Write(p []byte) (int, error) {
	c <- string(p)
	return len(p), nil
}

// TestProgress drives the progress lines with a fake clock and fake ticks:
// a line per tick, counting finished and failing vectors over several runs
// (parity), with informational failures, expected failures and NOT_RUN
// not counted as failing.
func TestProgress(t *testing.T) {
	t.Parallel()
	out := make(chanWriter)
	clock := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }

	p := newProgress(out, now)
	tick := make(chan time.Time)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go p.loop(ctx, tick)
	var got []string
	step := func() {
		tick <- time.Time{}
		got = append(got, <-out)
	}

	p.planned(3)
	p.planned(2) // a second implementation of a parity run
	advance(10 * time.Second)
	step()
	p.finished(runner.Result{ID: "a", Level: "required", Status: runner.Pass})
	p.finished(runner.Result{ID: "b", Level: "required", Status: runner.Crash})
	p.finished(runner.Result{ID: "c", Level: "informational", Status: runner.Fail})
	p.finished(runner.Result{ID: "d", Level: "required", Status: runner.XFail})
	advance(32500 * time.Millisecond)
	step()
	p.finished(runner.Result{ID: "e", Level: "required", Status: runner.NotRun})
	advance(time.Second)
	step()

	want := []string{
		"conform: 0/5 vectors, 0 failing, 10 s\n",
		"conform: 4/5 vectors, 1 failing, 42 s\n",
		"conform: 5/5 vectors, 1 failing, 43 s\n",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress lines mismatch (-want +got):\n%s", diff)
	}
}

// TestWatchTerminalOrLog checks the choice watch makes: stderr that is not
// a terminal gets counters hooked into every config; an interval of 0
// hooks nothing.
func TestWatchTerminalOrLog(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	a, b := &runner.Config{}, &runner.Config{}
	stop := watch(context.Background(), &out, time.Hour, a, b)
	if a.Planned == nil || a.Progress == nil || b.Planned == nil || b.Progress == nil {
		t.Errorf("log output: progress hooks not set")
	}
	stop()
	c := &runner.Config{}
	watch(context.Background(), &out, 0, c)()
	if c.Planned != nil || c.Progress != nil {
		t.Errorf("--progress 0: progress hooks set")
	}
}
