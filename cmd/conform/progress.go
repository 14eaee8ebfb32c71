package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/conform-kit/conform/runner"
)

// DefaultProgress is how often a run whose stderr is not a terminal (a CI
// log) prints a progress line.
const DefaultProgress = 10 * time.Second

// progress counts finished vectors across one or more runs (a parity run
// has one per implementation) and prints
//
//	conform: 120/340 vectors, 3 failing, 42 s
//
// on each tick. failing counts the vectors that fail the run so far
// ([runner.Result.Failed], not NOT_RUN).
type progress struct {
	mu                   sync.Mutex
	w                    io.Writer
	now                  func() time.Time
	start                time.Time
	total, done, failing int
}

func newProgress(w io.Writer, now func() time.Time) *progress {
	return &progress{w: w, now: now, start: now()}
}

// planned adds n vectors to the total (runner.Config.Planned).
func (p *progress) planned(n int) {
	p.mu.Lock()
	p.total += n
	p.mu.Unlock()
}

// finished counts one finished vector (runner.Config.Progress).
func (p *progress) finished(r runner.Result) {
	p.mu.Lock()
	p.done++
	if r.Status != runner.NotRun && r.Failed() {
		p.failing++
	}
	p.mu.Unlock()
}

// line prints the progress line.
func (p *progress) line() {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "conform: %d/%d vectors, %d failing, %d s\n", p.done, p.total, p.failing, int(p.now().Sub(p.start).Seconds()))
}

// loop prints a line on each tick until ctx is done.
func (p *progress) loop(ctx context.Context, tick <-chan time.Time) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			p.line()
		}
	}
}

// watch sets up how cfgs report progress on stderr when it is not a
// terminal (a CI log): a progress line every interval (none when interval
// is 0), so a long run is not silent until its report. On a terminal it
// does nothing (run shows terminalProgress there). It returns the function
// that stops the periodic lines.
func watch(ctx context.Context, stderr io.Writer, interval time.Duration, cfgs ...*runner.Config) (stop func()) {
	if isTerminal(stderr) || interval <= 0 {
		return func() {}
	}
	p := newProgress(stderr, time.Now)
	for _, cfg := range cfgs {
		cfg.Planned, cfg.Progress = p.planned, p.finished
	}
	ctx, cancel := context.WithCancel(ctx)
	t := time.NewTicker(interval)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.loop(ctx, t.C)
	}()
	return func() {
		t.Stop()
		cancel()
		<-done
	}
}
