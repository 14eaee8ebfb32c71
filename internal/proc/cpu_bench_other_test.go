//go:build !unix

package proc_test

import "testing"

// cpuMeter reports nothing where getrusage is missing.
type cpuMeter struct{}

func startCPU() cpuMeter           { return cpuMeter{} }
func (cpuMeter) report(*testing.B) {}
