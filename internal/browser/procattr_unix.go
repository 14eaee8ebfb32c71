//go:build unix && !linux

package browser

import (
	"os"
	"syscall"
)

// sysProcAttr starts the browser in its own process group; there is no
// parent-death signal outside Linux, so a killed test can leave it running.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the browser's process group (its helpers too).
func killGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
