//go:build !unix

package runner

import "time"

// ownCPU is not measured here: a default run is as wide as its ceiling.
func ownCPU() (time.Duration, bool) { return 0, false }
