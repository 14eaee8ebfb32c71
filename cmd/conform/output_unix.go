//go:build unix

package main

import (
	"errors"
	"syscall"
)

// nonBlockingOpen is added to the flags a FIFO is opened with for a report
// (writeDirect): without a reader the open fails at once (ENXIO) instead
// of blocking the end of the run forever.
const nonBlockingOpen = syscall.O_NONBLOCK

// noReader reports whether opening a FIFO failed because no process has
// it open for reading.
func noReader(err error) bool { return errors.Is(err, syscall.ENXIO) }
