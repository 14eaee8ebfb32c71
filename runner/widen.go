package runner

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// Widening the default -j: a run whose Jobs is the default starts one
// worker per start slot (Config.Starts) and adds one, up to Jobs, after
// each widenEvery in which the run's own processes (conform and the IUTs
// it waited for: getrusage of itself and its children) used less than
// widenOwn of the CPUs' time. A vector that waits for a reply uses no CPU,
// so an IUT that is cheap to run (a Node server, the Go reference) widens
// to the ceiling and its silent waits overlap; one whose processes keep
// the CPUs busy (a JVM compiling as it answers) stays near Starts, where
// more at once would only share the same CPUs. The IUTs' own load is
// measured, not the machine's: another program's load does not keep a
// run narrow (its waits overlap all the same), and the start gate
// (startgate.go) keeps a wide run from starving starts either way. Where
// the run's CPU time cannot be read the run is as wide as Jobs from the
// start.

const (
	widenEvery = 500 * time.Millisecond
	widenOwn   = 0.5
)

// widenWhileIdle calls add up to extra times, one per idle widenEvery,
// until ctx ends or the returned stop is called; stop returns once no
// more add calls can happen.
func (p *plan) widenWhileIdle(ctx context.Context, extra int, add func()) (stop func()) {
	if extra <= 0 {
		return func() {}
	}
	used0, ok := ownCPU()
	if !ok {
		for range extra {
			add()
		}
		return func() {}
	}
	cpus := float64(runtime.NumCPU())
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(widenEvery)
		defer t.Stop()
		last := time.Now()
		for extra > 0 {
			select {
			case <-ctx.Done():
				return
			case <-quit:
				return
			case <-t.C:
			}
			used, ok := ownCPU()
			now := time.Now()
			if !ok {
				continue
			}
			if float64(used-used0) < widenOwn*cpus*float64(now.Sub(last)) {
				add()
				extra--
			}
			used0, last = used, now
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		wg.Wait()
	}
}
