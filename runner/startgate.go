package runner

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/internal/proc"
)

// The start gate (Config.Starts): at most Starts IUTs are between their
// exec and their first stdout line at once.
//
// Why a gate, and not a reply bound counted from some later moment: the
// timeout is the start-up bound too, and most IUTs write nothing before
// they are asked (a server answers its first request), so no moment after
// exec tells "started" from "slow to answer" for them; a pipe write to the
// IUT succeeds before the IUT reads it. What made wide runs fail (issue 33
// item 5: -j 64 on a busy 2-core machine, 78 TIMEOUTs of 80 for a
// conforming IUT) was 64 interpreters starting at once, each getting a
// sixty-fourth of the CPU for its start while its timeout ran. With the
// gate, a vector waits for a start slot before its IUT is executed (that
// wait is not counted: the vector's clock starts at exec), so however wide
// -j is, no more IUTs compete for the CPU while they start than at
// -j Starts; vectors that have started and wait for replies (which use no
// CPU) are not held by it. The slot is given back at the IUT's first stdout
// line, or when the vector ends (an IUT that writes nothing, a spawned-mode
// IUT whose lines go to the double), whichever is first.
type startGate chan struct{}

// newStartGate returns a gate of n slots (at least 1).
func newStartGate(n int) startGate {
	return make(startGate, max(n, 1))
}

// enter takes a slot, waiting for one; false when ctx ended first.
func (g startGate) enter(ctx context.Context) bool {
	select {
	case g <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// leave gives a slot back.
func (g startGate) leave() { <-g }

// defaultJobs is the ceiling of -j's default (a run starts at starts
// vectors at once and widens while its IUTs leave the CPUs idle, widen.go):
// one IUT starting per CPU (see [startGate]) widened to wideJobs per start slot, since a
// vector that waits for a reply uses no CPU, and capped so that each IUT
// can have jobMemory of the memory available now (MemAvailable of
// /proc/meminfo; no cap where it cannot be read) and, under a pids limit
// that leaves room tasks (proc.LimitSupport.Room; 0: none), so that no IUT
// gets a smaller share of it than at -j starts (min(maxProcs, room /
// starts); maxProcs 0 is proc.DefaultProcs). Never below starts. See
// docs/running.md "Parallelism and starts".
func defaultJobs(starts, maxProcs, room int) int {
	jobs := wideJobs * starts
	if avail := availableMemory(); avail > 0 {
		jobs = min(jobs, int(avail/jobMemory))
	}
	if room > 0 {
		if maxProcs <= 0 {
			maxProcs = proc.DefaultProcs
		}
		each := max(min(maxProcs, room/starts), 1)
		jobs = min(jobs, room/each)
	}
	return max(jobs, starts)
}

// wideJobs is how many vectors run at once per start slot by default
// (measured on the TypeScript and Java MCP servers: bench/README.md
// "Parallelism").
const wideJobs = 4

// jobMemory is the memory set aside for each vector run at once by
// default, in bytes (a Node or JVM server's resident set is 50-150 MiB).
const jobMemory = 256 << 20

// availableMemory returns MemAvailable of /proc/meminfo in bytes, or 0.
func availableMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, "MemAvailable:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 2 && f[1] == "kB" {
			if n, err := strconv.ParseInt(f[0], 10, 64); err == nil && n > 0 {
				return n << 10
			}
		}
	}
	return 0
}

// defaultStarts is Config.Starts' default: one per CPU.
func defaultStarts() int { return runtime.NumCPU() }
