package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Heap headroom of `conform run` (see tuneRunGC).
const (
	// runHeadroomMin is the least the heap may grow above its live part
	// between two collections, in bytes (Go's own minimum heap is 4 MiB,
	// live part included).
	runHeadroomMin = 3 << 20
	// runHeadroomPercent is the headroom, in percent of the live heap,
	// once that is larger than runHeadroomMin.
	runHeadroomPercent = 50
	// runStartHeap is the memory (runtime/debug.SetMemoryLimit: the heap
	// and the runtime's own, about 8 MiB of it at start) a run may reach
	// before its first collection, in bytes: loading and compiling (the
	// suite, its schemas, the index) make garbage of several MiB and keep
	// little, and collecting it from Go's 4 MiB minimum heap on was part
	// of the 15% of a one-vector run's CPU spent collecting
	// (bench/README.md). A run that gets there collects then, and from
	// then on as below; a short run never does.
	runStartHeap = 16 << 20
	// runRuntimeMemory is what the Go runtime keeps beside the heap (its
	// metadata, stacks and buffers; 5-7 MiB in a run of 10,000 vectors,
	// runtime/metrics /memory/classes), in bytes: the soft memory limit
	// of a run is the heap's goal plus this.
	runRuntimeMemory = 8 << 20
)

// tuneRunGC bounds how far the heap of a run may grow above its live part,
// unless the caller set GOGC or GOMEMLIMIT. Go's default (GOGC=100) lets
// the heap reach twice its live size, so a run's memory grew twice as fast
// as what it keeps per vector (the digest table, the vector index, the
// results: about 300 bytes a vector), and each collection that happened to
// find a vector's frames in flight let it grow further. After each
// collection the headroom is set to the larger of runHeadroomMin and
// runHeadroomPercent of the live heap, never more than GOGC=100 gives: a
// run whose live heap is under 3 MiB (the compiled schemas and a suite of
// a few thousand vectors) collects as by default; one of 10,000 vectors
// (5-6 MiB live) after 3 MiB instead of 5-6, with no CPU cost measurable
// here (bench/README.md), and a larger one at 1.5 times its live heap
// instead of twice.
//
// Before its first collection the heap may grow to runStartHeap; after
// each, a soft memory limit (softLimit) follows the heap's goal, so that
// garbage the runtime has collected is returned to the system rather than
// kept resident.
//
// The returned function ends the tuning and restores GOGC=100.
func tuneRunGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	percent := -1
	var mu sync.Mutex
	stopped := false
	// Until the first collection: none before runStartHeap.
	debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(runStartHeap)
	onEachGC(func() bool {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return false
		}
		if percent < 0 {
			debug.SetMemoryLimit(limit)
			percent = 100
			debug.SetGCPercent(percent)
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			live := sample[0].Value.Uint64()
			if p := headroomPercent(live); p != percent {
				percent = p
				debug.SetGCPercent(p)
			}
			debug.SetMemoryLimit(softLimit(live, percent))
		}
		return true
	})
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(100)
	}
}

// softLimit is the soft memory limit (runtime/debug.SetMemoryLimit) of a
// run whose live heap is live bytes and whose GOGC is percent: the heap's
// goal plus runRuntimeMemory. The collector already keeps the heap near
// its goal; the limit makes the runtime return the pages a burst of
// garbage left (the report built at the end, a large frame) instead of
// keeping them resident: a run of 10,000 vectors peaked at 40-57 MiB
// without it and at 34-37 MiB with it, with 11 MiB live (bench/README.md).
// It moves up with the live heap after every collection, so it never
// holds the run below what it keeps.
func softLimit(live uint64, percent int) int64 {
	return int64(live + live*uint64(percent)/100 + runRuntimeMemory)
}

// headroomPercent is the GOGC that lets a heap of live bytes grow by
// max(runHeadroomMin, runHeadroomPercent% of live), at most 100.
func headroomPercent(live uint64) int {
	if live == 0 {
		return 100
	}
	p := int(runHeadroomMin * 100 / live)
	return min(100, max(runHeadroomPercent, p))
}

// onEachGC calls f once after each garbage collection, on the finalizer
// goroutine, until f returns false: a finalizer that arms another like
// itself runs once per collection (the object it is set on is unreachable
// at the next one).
func onEachGC(f func() bool) {
	// Larger than the 16-byte tiny allocator's blocks, whose objects may
	// never be finalized.
	type sentinel struct{ _ [32]byte }
	var arm func(*sentinel)
	arm = func(*sentinel) {
		if f() {
			runtime.SetFinalizer(new(sentinel), arm)
		}
	}
	runtime.SetFinalizer(new(sentinel), arm)
}
