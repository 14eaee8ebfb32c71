//go:build unix

package proc

import (
	"os"
	"syscall"
)

// exitOf describes how a Unix process ended.
func exitOf(ps *os.ProcessState) Exit {
	e := Exit{Code: ps.ExitCode()}
	if st, ok := ps.Sys().(syscall.WaitStatus); ok && st.Signaled() {
		e.Code = -1
		e.Signal = signalName(st.Signal())
	}
	return e
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGBUS:
		return "SIGBUS"
	}
	return "signal " + s.String()
}
