//go:build windows

package main

import "time"

// processCPU is not measured on Windows: it returns false, and batch
// results leave cpu_ms out.
func processCPU() (time.Duration, bool) { return 0, false }
