//go:build unix

package proc

import (
	"errors"
	"os"
	"syscall"
)

// writeNow writes as much of input to w (a non-blocking pipe) as the pipe
// takes at once, without waiting, and returns what is left. Input the IUT
// can no longer read (it closed stdin or died: EPIPE) is dropped, as the
// writer goroutine drops it.
func writeNow(w *os.File, input [][]byte) [][]byte {
	if len(input) == 0 {
		return nil
	}
	rc, err := w.SyscallConn()
	if err != nil {
		return input
	}
	rest := input
	if rc.Write(func(fd uintptr) bool {
		for len(rest) > 0 {
			b := rest[0]
			n, err := syscall.Write(int(fd), b)
			switch {
			case errors.Is(err, syscall.EINTR):
				continue
			case errors.Is(err, syscall.EAGAIN):
				return true // the pipe is full: the writer goroutine waits
			case err != nil:
				rest = nil
				return true
			case n < len(b):
				rest = append([][]byte{b[n:]}, rest[1:]...)
			default:
				rest = rest[1:]
			}
		}
		return true
	}) != nil {
		return input
	}
	return rest
}
