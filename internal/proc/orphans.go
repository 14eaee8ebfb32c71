package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

// BecomeSubreaper makes the calling process the reaper of its orphaned
// descendants (Linux PR_SET_CHILD_SUBREAPER): a process an IUT started that
// left the IUT's process group (setsid) and outlived its parent is then
// re-parented to this process instead of to init, where [KillOrphans] can
// find it. Call it once, early, from main. Errors: the kernel refused.
func BecomeSubreaper() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return errno
	}
	return nil
}

// TokenVar is the environment variable through which [KillOrphans] tells
// one vector's processes from another's: the runner gives every IUT a
// unique value and descendants inherit it.
const TokenVar = "CONFORM_IUT_TOKEN"

// KillOrphans sends SIGKILL to every child of the calling process whose
// environment holds TokenVar=token, then reaps it, and returns how many it
// killed. Call it after the IUT that was given token has been stopped: its
// leader is reaped by then, so every such child is an orphan re-parented
// here (see [BecomeSubreaper]; without it nothing is found). Processes of
// other IUTs carry other tokens and are left alone; a process that cleared
// its environment cannot be attributed and is left alone too.
func KillOrphans(token string) int {
	if token == "" {
		return 0
	}
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	killed := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, ok := statOf(pid)
		if !ok || st.ppid != self {
			continue
		}
		if st.state == 'Z' && st.pgid != pid {
			// A dead descendant re-parented here (say, a grandchild killed
			// with its group after its parent exited): reap it. Leaders
			// (pgid == pid) are left to their own exec.Cmd.Wait.
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			continue
		}
		if !hasToken(pid, token) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
		}
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
	}
	return killed
}

type procStat struct {
	state      byte
	ppid, pgid int
}

// statOf reads state, parent pid and process group of pid from
// /proc/<pid>/stat.
func statOf(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return procStat{}, false
	}
	f := strings.Fields(s[i+2:]) // state ppid pgrp ...
	if len(f) < 3 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], ppid: ppid, pgid: pgid}, true
}

// hasToken reports whether pid's environment carries TokenVar=token.
func hasToken(pid int, token string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	return bytes.Contains(append([]byte{0}, b...), []byte("\x00"+TokenVar+"="+token+"\x00"))
}
