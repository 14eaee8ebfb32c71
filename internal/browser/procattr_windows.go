package browser

import (
	"os"
	"syscall"
)

// sysProcAttr has nothing to add on Windows. The DevTools pipe needs file
// descriptors 3 and 4 (exec.Cmd.ExtraFiles), which Windows does not
// support, so Launch fails there with Start's error; the tests skip or,
// with CONFORM_BROWSER=require, fail.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// killGroup kills the browser's main process (Windows has no process group
// to signal here).
func killGroup(p *os.Process) { _ = p.Kill() }
