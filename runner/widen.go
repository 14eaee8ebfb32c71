package runner

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Widening the default -j: a run whose Jobs is the default starts one
// worker per start slot (Config.Starts) and adds one, up to Jobs, after
// each widenEvery in which the machine's CPUs were at least widenIdle
// idle (/proc/stat: idle and iowait time over all time, every CPU). A
// vector that waits for a reply uses no CPU, so an IUT that is cheap to
// run (a Node server, the Go reference) widens to the ceiling and its
// silent waits overlap; one whose processes keep the CPUs busy (a JVM
// compiling as it answers) stays near Starts, where more at once would
// only share the same CPUs. The start gate (startgate.go) keeps a wide run
// from starving starts either way. Where the idle time cannot be read the
// run is as wide as Jobs from the start.

const (
	widenEvery = 500 * time.Millisecond
	widenIdle  = 0.25
)

// widenWhileIdle calls add up to extra times, one per idle widenEvery,
// until ctx ends or the returned stop is called; stop returns once no
// more add calls can happen.
func (p *plan) widenWhileIdle(ctx context.Context, extra int, add func()) (stop func()) {
	if extra <= 0 {
		return func() {}
	}
	idle0, total0, ok := cpuTimes()
	if !ok {
		for range extra {
			add()
		}
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(widenEvery)
		defer t.Stop()
		for extra > 0 {
			select {
			case <-ctx.Done():
				return
			case <-quit:
				return
			case <-t.C:
			}
			idle, total, ok := cpuTimes()
			if !ok || total <= total0 {
				continue
			}
			if float64(idle-idle0)/float64(total-total0) >= widenIdle {
				add()
				extra--
			}
			idle0, total0 = idle, total
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		wg.Wait()
	}
}

// cpuTimes returns the idle (idle + iowait) and total time of every CPU
// from the first line of /proc/stat, in clock ticks.
func cpuTimes() (idle, total uint64, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return 0, 0, false
	}
	for i, s := range f[1:] {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		if i < 8 { // user nice system idle iowait irq softirq steal (guest is in user)
			total += n
		}
		if i == 3 || i == 4 {
			idle += n
		}
	}
	return idle, total, true
}
