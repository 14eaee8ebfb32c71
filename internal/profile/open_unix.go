//go:build unix

package profile

import "syscall"

// nonBlocking is added to the flags a profile file is opened with, so a
// FIFO (which is then refused: not a regular file) does not block the open
// until a writer comes.
const nonBlocking = syscall.O_NONBLOCK
