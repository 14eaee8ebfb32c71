//go:build unix

package proc_test

import (
	"syscall"
	"testing"
)

// cpuMeter reports, as benchmark metrics, the CPU time this process
// (cpu-ns/op: every goroutine and thread of the benchmark) and the
// children it reaped (child-ns/op: the IUTs, before and after execve)
// spent per operation; ns/op is wall time, which on a loaded machine
// measures the load as much as the work.
type cpuMeter struct{ self, child int64 }

func startCPU() cpuMeter {
	return cpuMeter{self: rusage(syscall.RUSAGE_SELF), child: rusage(syscall.RUSAGE_CHILDREN)}
}

func (m cpuMeter) report(b *testing.B) {
	n := float64(b.N)
	b.ReportMetric(float64(rusage(syscall.RUSAGE_SELF)-m.self)/n, "cpu-ns/op")
	b.ReportMetric(float64(rusage(syscall.RUSAGE_CHILDREN)-m.child)/n, "child-ns/op")
}

func rusage(who int) int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
