//go:build unix

package runner

import (
	"syscall"
	"time"
)

// ownCPU returns the CPU time (user and system) this process and the
// children it waited for have used.
func ownCPU() (time.Duration, bool) {
	var self, kids syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids) != nil {
		return 0, false
	}
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime), true
}
