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
	killed := 0
	for _, pid := range candidates() {
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

// candidates returns the pids that may be orphans re-parented to the
// calling process: those in /proc/self/task/<pid>/children, the children of
// its main thread. Linux re-parents an orphan to the first live thread of
// the subreaper's thread group, which is its leader while the leader lives
// (kernel/exit.c, find_new_reaper and find_alive_thread), and a Go
// program's main thread lives as long as the program. One small read per
// vector, where scanning /proc cost 0.8 ms per vector on a machine with 100
// processes (39% of the runner's CPU, bench/README.md). Where the kernel
// has no children file (before Linux 3.5, or CONFIG_PROC_CHILDREN off) it
// returns every pid under /proc. [KillOrphans] checks the parent of each in
// /proc/<pid>/stat either way, so a pid that is not an orphan, or that
// exited meanwhile, does no harm.
func candidates() []int {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/children")
	if err == nil {
		var pids []int
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	pids := make([]int, 0, len(entries))
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
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
