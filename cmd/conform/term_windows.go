//go:build windows

package main

import (
	"io"
	"os"

	"golang.org/x/sys/windows"
)

// termWidth returns the width in columns of the console window w writes
// to, and false when w is not a console (a file, a pipe, NUL). Windows:
// GetConsoleScreenBufferInfo, which only a console answers.
func termWidth(w io.Writer) (int, bool) {
	f, ok := w.(*os.File)
	if !ok {
		return 0, false
	}
	var info windows.ConsoleScreenBufferInfo
	if err := windows.GetConsoleScreenBufferInfo(windows.Handle(f.Fd()), &info); err != nil {
		return 0, false
	}
	cols := int(info.Window.Right-info.Window.Left) + 1
	if cols <= 0 {
		return 0, false
	}
	return cols, true
}
