package browser

import (
	"os"
	"syscall"
)

// sysProcAttr starts the browser in its own process group, killed by the
// kernel if the test process dies (parent-death signal, Linux only).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills the browser's process group (its helpers too).
func killGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
