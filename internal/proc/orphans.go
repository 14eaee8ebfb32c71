package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
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

// Sweep is what [KillOrphans] found among this process's children.
type Sweep struct {
	// Killed counts the orphans that carried the token, killed and reaped.
	Killed int
	// Strays counts live children that carry no TokenVar at all (or whose
	// environment cannot be read), other than running IUT leaders: a
	// process that left its group and cleared its environment, which no
	// sweep can attribute to a vector. It may still write where its IUT
	// ran; the runner never hands such a directory on (runner/iutdir.go).
	Strays int
}

// KillOrphans sends SIGKILL to every child of the calling process whose
// environment holds TokenVar=token, reaps it and the dead re-parented
// descendants it finds, and repeats until a pass finds nothing to kill or
// reap (a child reaped in one pass re-parents its own children here for the
// next), at most 16 passes. Call it after the IUT that was given token has
// been stopped: its leader is reaped by then, so every such child is an
// orphan re-parented here (see [BecomeSubreaper]; without it nothing is
// found). Processes of other IUTs carry other tokens and are left alone; a
// process that cleared its environment cannot be attributed, is left alone,
// and is counted in Sweep.Strays.
func KillOrphans(token string) Sweep {
	var sw Sweep
	if token == "" {
		return sw
	}
	self := os.Getpid()
	for range 16 {
		progress := false
		sw.Strays = 0
		for _, pid := range candidates() {
			st, ok := statOf(pid)
			if !ok || st.ppid != self {
				continue
			}
			if st.state == 'Z' {
				if st.pgid != pid {
					// A dead descendant re-parented here (say, a grandchild
					// killed with its group after its parent exited): reap
					// it. Leaders (pgid == pid) are left to their own
					// exec.Cmd.Wait.
					var ws syscall.WaitStatus
					if n, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); n == pid {
						progress = true
					}
				}
				continue
			}
			this, some := tokenOf(pid, token)
			if !this {
				if !some {
					sw.Strays++
				}
				continue
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				sw.Killed++
			}
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, 0, nil)
			progress = true
		}
		if !progress {
			break
		}
	}
	return sw
}

// IsSubreaper reports whether the calling process is a child subreaper
// (PR_GET_CHILD_SUBREAPER): only then do orphans of IUTs come back to it,
// where [KillOrphans] can find and count them.
func IsSubreaper() bool {
	var v int32
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prGetChildSubreaper, uintptr(unsafe.Pointer(&v)), 0)
	return errno == 0 && v != 0
}

// prGetChildSubreaper is PR_GET_CHILD_SUBREAPER (linux/prctl.h).
const prGetChildSubreaper = 37

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

// tokenOf reports whether pid's environment carries TokenVar=token (this)
// and whether it carries TokenVar at all (some). An unreadable environment
// (a process that exited meanwhile, or one of another user) carries none.
func tokenOf(pid int, token string) (this, some bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false, false
	}
	env := append([]byte{0}, b...)
	return bytes.Contains(env, []byte("\x00"+TokenVar+"="+token+"\x00")), bytes.Contains(env, []byte("\x00"+TokenVar+"="))
}
