//go:build unix

package main

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPU returns the CPU time (user and system) the process has used
// so far, and true. Unix: getrusage(RUSAGE_SELF), which counts every
// thread (the collector's too).
func processCPU() (time.Duration, bool) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
