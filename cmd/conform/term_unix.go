//go:build unix

package main

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// termWidth returns the width in columns of the terminal w writes to, and
// false when w is not a terminal (a file, a pipe, /dev/null). Unix: the
// TIOCGWINSZ ioctl, which only a terminal answers.
func termWidth(w io.Writer) (int, bool) {
	f, ok := w.(*os.File)
	if !ok {
		return 0, false
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 {
		return 0, false
	}
	return int(ws.Col), true
}
