//go:build unix

package input

import "syscall"

// nonBlocking makes opening a FIFO return at once on Unix.
const nonBlocking = syscall.O_NONBLOCK
