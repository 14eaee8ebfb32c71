package proc

// Linux containment. What it guarantees:
//
//   - cgroup (when one can be created: root, or a delegated cgroup v2
//     subtree; the v2 hierarchy is found in /proc/self/mountinfo): the IUT
//     starts inside a cgroup of its own (clone3 CLONE_INTO_CGROUP, Linux
//     5.7+, so not even its first fork happens outside), which every
//     descendant inherits whatever it does with sessions, process groups or
//     its environment. Stop lists the cgroup to count survivors and ends it
//     with cgroup.kill (Linux 5.14+; before that each member gets SIGKILL
//     until it is empty), then removes it. It cannot hold a process that
//     moves itself to another cgroup, which takes write access to that
//     cgroup's cgroup.procs and to a common ancestor's: an IUT running as
//     root can; one isolated as another user ([Isolation]) cannot.
//   - process group: the IUT leads a group of its own; SIGTERM and SIGKILL
//     go to the whole group (and to the cgroup's members).
//   - parent-death signal: if conform dies, even by SIGKILL, the kernel
//     sends SIGKILL to each IUT main process. Its descendants are not
//     covered by this (they are by the cgroup, which stays behind, named
//     conform-iut-*, with whatever escaped in it).
//   - orphan sweep: conform is a child subreaper ([BecomeSubreaper]), so a
//     process that left the IUT's process group and outlived its parent is
//     re-parented to conform instead of to init. After each IUT, the sweep
//     kills (and reaps) every re-parented live process that conform did not
//     start as an IUT main process, except those that provably belong to an
//     IUT still running: in its live cgroup, in its process group, or
//     carrying its token. A process with none of those marks (it cleared
//     its environment and no cgroup holds it) is killed too and counted as
//     unattributed. The sweep cannot see a process that joined conform's
//     own process group; a cgroup holds it anyway.
//
// Without a cgroup v2 but with a cgroup v1 made for the IUT's process
// limit (limits_linux.go), that cgroup holds its processes instead: Stop
// waits for them, counts and kills them, and the sweep ties them to their
// IUT, whatever they did with sessions or their environment. Without
// either (not root and no delegation, NoCgroup, or a kernel without
// cgroups) a process that calls setsid and clears its environment is still
// killed by the sweep once its parent is gone, but cannot be attributed
// for certain when several IUTs run at once.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const canTerm = true

// iuts is the set of IUTs this process has started and not yet stopped,
// with what identifies their processes. It is process-wide because what it
// guards is: a child subreaper receives the orphans of every IUT of every
// run in the process, and the sweep after one IUT must neither kill another
// IUT's main process, which it cannot tell from an orphan by anything the
// kernel shows, nor a process that provably belongs to an IUT still
// running.
var iuts = &registry{m: map[*control]leader{}}

type registry struct {
	// forking is held for reading while an IUT is forked and registered,
	// and for writing by a sweep, so that no sweep sees a fresh main
	// process before it is registered.
	forking sync.RWMutex
	mu      sync.Mutex
	m       map[*control]leader
}

// leader identifies one running IUT's processes.
type leader struct {
	pid    int    // main process, also its process group
	token  string // Config.Token, or ""
	cgroup string // path relative to the cgroup v2 root, or ""
	// v1 are the IUT's cgroups v1 (directories) where no cgroup v2 holds
	// it: they hold every process it forks (see [control.v1]).
	v1 []string
}

func (r *registry) add(c *control, l leader) {
	r.mu.Lock()
	r.m[c] = l
	r.mu.Unlock()
}

func (r *registry) remove(c *control) {
	r.mu.Lock()
	delete(r.m, c)
	r.mu.Unlock()
}

// others returns the IUTs other than c.
func (r *registry) others(c *control) []leader {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]leader, 0, len(r.m))
	for k, v := range r.m {
		if k != c {
			out = append(out, v)
		}
	}
	return out
}

// control is one IUT's containment on Linux.
type control struct {
	cmd   *exec.Cmd
	pid   int
	token string
	cg    *cgroup // nil without a cgroup
	pool  *pool   // where cg came from and may go back to; nil: made for this IUT alone
	// lim holds the IUT's limits (limits_linux.go); hold, when the IUT
	// was forked from a thread of its own (startOnThread), keeps that
	// thread parked until release.
	lim  *limiter
	hold chan struct{}
	// released: Stop has finished; the main process's id may name
	// another process group by now, so nothing is signalled any more.
	released atomic.Bool
}

func startContained(cfg Config, newCmd func() *exec.Cmd) (*exec.Cmd, *control, error) {
	c := &control{token: cfg.Token, pool: cfg.Pool.impl()}
	if !cfg.NoCgroup {
		c.cg, _ = c.pool.get() // none: the fallback below still holds
	}
	if cfg.Isolate != nil && (cfg.Isolate.UID == 0 || cfg.Isolate.GID == 0) {
		c.release(false)
		return nil, nil, errors.New("isolation needs a user and group other than 0")
	}
	lim, err := newLimiter(c, cfg.Limits, cfg.NoCgroup)
	if err != nil {
		c.release(false)
		return nil, nil, err
	}
	c.lim = lim
	namespaces := cfg.Isolate != nil && cfg.Isolate.Namespaces
	// An isolated IUT gets temporary directories of its own
	// (tmp_linux.go), made on the thread that forks it.
	privTmp := namespaces
	intoCgroup := c.cg != nil
	for {
		cmd := newCmd()
		attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if intoCgroup {
			attr.UseCgroupFD, attr.CgroupFD = true, c.cg.fd
		}
		if iso := cfg.Isolate; iso != nil {
			attr.Credential = &syscall.Credential{Uid: iso.UID, Gid: iso.GID, Groups: []uint32{}}
			if namespaces {
				attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
				attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: int(iso.UID), HostID: int(iso.UID), Size: 1}}
				attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: int(iso.GID), HostID: int(iso.GID), Size: 1}}
				// setgroups must be allowed to drop the caller's groups.
				attr.GidMappingsEnableSetgroups = true
			}
		}
		cmd.SysProcAttr = attr
		c.cmd = cmd
		iuts.forking.RLock()
		var err error
		switch {
		case lim.res != nil && !privTmp:
			// Forked by the thread that lives in the IUT's pooled pids
			// cgroup v1, which joins its other v1 cgroups (memory) for
			// the fork.
			var prep, after func() error
			if others := lim.v1[1:]; len(others) > 0 {
				prep, after = func() error { return joinV1(others) }, func() error { leaveV1(others); return nil }
			}
			err = lim.res.start(cmd, prep, after)
		case len(lim.v1) > 0 || privTmp:
			c.hold = make(chan struct{})
			err = startOnThread(cmd, func() error {
				if err := lim.join(); err != nil {
					return err
				}
				if privTmp {
					return privateTmp([]string{cfg.Home, cfg.Dir}, tmpSize(cfg.Limits))
				}
				return nil
			}, lim.leave, c.hold)
		default:
			err = cmd.Start()
		}
		if err == nil {
			c.pid = cmd.Process.Pid
			l := leader{pid: c.pid, token: c.token, v1: c.v1()}
			if c.cg != nil {
				l.cgroup = c.cg.rel
			}
			iuts.add(c, l)
		}
		iuts.forking.RUnlock()
		if err == nil {
			if c.cg != nil && !intoCgroup {
				// The kernel cannot start a process in a cgroup: move it
				// now (what it forked meanwhile stays in its group).
				if err := c.cg.add(c.pid); err != nil {
					c.cg.remove()
					c.cg = nil
					iuts.add(c, leader{pid: c.pid, token: c.token, v1: c.v1()})
				}
			}
			lim.startWatch(c)
			return cmd, c, nil
		}
		if c.hold != nil {
			close(c.hold)
			c.hold = nil
		}
		var pe *prepError
		if errors.As(err, &pe) {
			// The thread could not be prepared: the kernel refused the
			// private temporary directories (drop them), or a v1 cgroup
			// would not take the thread (fail: the limit could not be
			// held as found).
			if privTmp {
				privTmp = false
				continue
			}
			c.release(false)
			return nil, nil, err
		}
		// A kernel feature may be missing or refused (no user namespaces,
		// no clone3, a cgroup that takes no processes): drop it and try
		// again. An error of the command itself comes back the same each
		// time and is returned once nothing is left to drop.
		var errno syscall.Errno
		missing := errors.As(err, &errno) && (errno == syscall.ENOSYS || errno == syscall.EINVAL ||
			errno == syscall.EPERM || errno == syscall.ENOSPC || errno == syscall.EUSERS ||
			errno == syscall.E2BIG || errno == syscall.EOPNOTSUPP || errno == syscall.EBUSY || errno == syscall.EACCES)
		switch {
		case missing && namespaces:
			namespaces = false
		case missing && intoCgroup:
			intoCgroup = false
		default:
			c.release(false)
			return nil, nil, err
		}
	}
}

// reaped is called once the main process has been reaped; the IUT stays
// registered until release.
func (c *control) reaped() {}

// wait waits for the main process and reaps it. (A pidfd watched by the
// runtime's poller, instead of the thread os/exec blocks in waitid, was
// measured: it cost about 140 µs more CPU per IUT, most of it in the
// scheduler's monitor thread; bench/README.md.)
func (c *control) wait() Exit {
	_ = c.cmd.Wait()
	return exitOf(c.cmd.ProcessState)
}

// newPipe makes a pipe for one of the IUT's standard streams: the end the
// child gets (the write end when childWrites) is a plain blocking
// descriptor, and only this process's end is registered with the
// runtime's poller; os.Pipe registers both and os/exec then makes the
// child's blocking again, a few system calls more per stream.
func newPipe(childWrites bool) (r, w *os.File, err error) {
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	ours := fds[1]
	if childWrites {
		ours = fds[0]
	}
	if err := unix.SetNonblock(ours, true); err != nil {
		_ = unix.Close(fds[0])
		_ = unix.Close(fds[1])
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}

// v1 returns the IUT's cgroups v1 when no cgroup v2 holds it, else nil.
// A cgroup v1 holds every process forked inside it whatever it does with
// sessions, process groups or its environment, as a cgroup v2 does, so
// where the IUT has no cgroup v2 its v1 cgroups (made for its limits,
// limits_linux.go) list its processes: Stop waits for them, counts them
// as survivors and kills them, and the sweep ties them to their IUT.
func (c *control) v1() []string {
	if c.cg != nil || c.lim == nil {
		return nil
	}
	return c.lim.v1
}

// v1Members lists the live processes in the IUT's cgroups v1 ([control.v1]).
func (c *control) v1Members() []int {
	var out []int
	for _, dir := range c.v1() {
		for _, pid := range v1Procs(dir) {
			if !slices.Contains(out, pid) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// signal sends sig to the IUT's process group and every member of its
// cgroup.
func (c *control) signal(sig stopSignal) error {
	if c.pid <= 0 || c.released.Load() {
		return nil
	}
	s := syscall.SIGTERM
	if sig == sigKill {
		s = syscall.SIGKILL
	}
	// c.pid, set before anything that may signal (the context watch, the
	// limit watch) starts; never the os.Process's Pid, which its Release
	// sets to -1 once the main process is reaped.
	err := syscall.Kill(-c.pid, s)
	if errors.Is(err, syscall.ESRCH) {
		err = nil
	}
	if c.cg != nil {
		if sig == sigKill {
			// An empty cgroup has nothing to kill; killing it anyway
			// would keep it from being handed on (see cgroup.killed).
			if c.cg.populated() {
				if kerr := c.cg.kill(); kerr != nil {
					err = kerr
				}
			}
		} else {
			for _, pid := range c.cg.procs() {
				_ = syscall.Kill(pid, s)
			}
		}
	}
	// Without a cgroup v2, the IUT's v1 cgroups list its processes.
	for _, pid := range c.v1Members() {
		_ = syscall.Kill(pid, s)
	}
	return err
}

// empty reports whether no process of the IUT other than the (reaped) main
// process is alive: its cgroup is unpopulated, or (without one) its cgroups
// v1 hold no process and no process is left in its process group once
// conform has reaped the dead ones re-parented to it.
func (c *control) empty() bool {
	if c.cg != nil {
		return !c.cg.populated()
	}
	if len(c.v1Members()) > 0 {
		return false
	}
	reapDead(c.pool, c.pid)
	return errors.Is(syscall.Kill(-c.pid, 0), syscall.ESRCH)
}

// members lists the live processes of the IUT other than its main process:
// the cgroup's, or (without one) those of its cgroups v1 and its process
// group's, from /proc.
func (c *control) members() []int {
	var out []int
	if c.cg != nil {
		for _, pid := range c.cg.procs() {
			if pid != c.pid {
				out = append(out, pid)
			}
		}
		return out
	}
	for _, pid := range c.v1Members() {
		if pid != c.pid {
			out = append(out, pid)
		}
	}
	reapDead(c.pool, c.pid)
	if errors.Is(syscall.Kill(-c.pid, 0), syscall.ESRCH) {
		return out
	}
	for _, pid := range allPids() {
		if st, ok := statOf(pid); ok && st.pgid == c.pid && pid != c.pid && st.state != 'Z' && st.state != 'X' && !slices.Contains(out, pid) {
			out = append(out, pid)
		}
	}
	return out
}

// drain waits up to d for the IUT's killed processes to be gone, so that
// the sweep meets only processes outside its containment.
func (c *control) drain(d time.Duration) {
	deadline := time.Now().Add(d)
	for pause := time.Millisecond; !c.empty() && time.Now().Before(deadline); pause = min(2*pause, 25*time.Millisecond) {
		_ = c.signal(sigKill)
		time.Sleep(pause)
	}
}

// release forgets the IUT and gives its cgroup back to the pool when
// handOn is set (nothing of the IUT outlived it) and the cgroup is as
// made (see [cgroup.reusable]); otherwise it removes the cgroup.
func (c *control) release(handOn bool) {
	c.released.Store(true)
	iuts.remove(c)
	if c.hold != nil {
		close(c.hold) // the main process is reaped: its forking thread may end
		c.hold = nil
	}
	if c.lim != nil {
		c.lim.release(c)
	}
	if c.cg != nil {
		if handOn && c.pool != nil && c.cg.reusable() {
			c.pool.put(c.cg)
		} else {
			c.cg.remove()
		}
		c.cg = nil
	}
}

// sweep kills and reaps every live process re-parented to this process
// that it did not start as an IUT main process and that does not
// provably belong to an IUT still running, and reaps the dead ones; it
// repeats until a pass finds nothing (a child reaped in one pass
// re-parents its own children here for the next), at most 64 passes. It
// returns the live processes it killed other than members of this IUT's
// own group or cgroups (already counted or ended by Stop). Without the
// subreaper nothing is re-parented here and nothing is found.
//
// A process the kernel already marks as exiting is not live: it was
// killed (by Stop, with its IUT's group or cgroup) or is ending by itself,
// and by then the kernel may have taken its environment and cgroups from
// it, so nothing would tie it to its IUT any more. The sweep waits for it
// to end (at most exitWait) and reaps it, and never counts it. Before
// this, a process Stop had just killed in its IUT's cgroup v1 was often
// met mid-exit and counted as an unattributed survivor.
func (c *control) sweep() []orphan {
	iuts.forking.Lock()
	defer iuts.forking.Unlock()
	others := iuts.others(c)
	mains := map[int]bool{}
	tokens := map[string]bool{}
	cgroups := map[string]bool{}
	var othersV1 []string
	for _, l := range others {
		mains[l.pid] = true
		if l.token != "" {
			tokens[l.token] = true
		}
		if l.cgroup != "" {
			cgroups[l.cgroup] = true
		}
		othersV1 = append(othersV1, l.v1...)
	}
	self, ownGroup := os.Getpid(), syscall.Getpgrp()
	var found []orphan
	for range 64 {
		progress := false
		// Members of cgroups v1, listed afresh each pass: what this IUT's
		// hold is its own; what another running IUT's hold is left alone.
		var ownV1, otherV1 []int
		cands := c.pool.candidates()
		if len(cands) > 0 {
			ownV1 = c.v1Members()
			for _, dir := range othersV1 {
				otherV1 = append(otherV1, v1Procs(dir)...)
			}
		}
		for _, pid := range cands {
			st, ok := statOf(pid)
			if !ok || st.ppid != self || st.pgid == ownGroup {
				// Not ours, or a child this process started in its own
				// group (not an IUT): left to whoever started it.
				continue
			}
			if mains[pid] {
				continue // another IUT's main process
			}
			if st.state == 'Z' || st.state == 'X' {
				if reap(pid) {
					progress = true
				}
				continue
			}
			if st.exiting {
				if reapExiting(pid) {
					progress = true
				}
				continue
			}
			mine := st.pgid == c.pid || slices.Contains(ownV1, pid)
			cg := cgroupOf(pid)
			if c.cg != nil && cg == c.cg.rel {
				mine = true
			}
			if !mine {
				if mains[st.pgid] {
					continue // in a running IUT's process group
				}
				if cg != "" && cgroups[cg] {
					continue // in a running IUT's cgroup
				}
				if slices.Contains(otherV1, pid) {
					continue // in a running IUT's cgroup v1
				}
			}
			this, other := tokenOf(pid, c.token)
			if !mine && !this && other != "" && tokens[other] {
				continue // carries a running IUT's token
			}
			if !mine {
				found = append(found, orphan{pid: pid, attributed: this})
			}
			if syscall.Kill(pid, syscall.SIGKILL) != nil {
				continue // not ours to kill (it gained another user's identity)
			}
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, 0, nil)
			progress = true
		}
		if !progress {
			break
		}
	}
	return found
}

// exitWait bounds how long the sweep waits for a process that is exiting
// to become a zombie (microseconds, usually; a process blocked in its
// exit, on a file system that does not answer, takes longer and is
// reaped by a later sweep).
const exitWait = 100 * time.Millisecond

// reapExiting waits up to exitWait for pid, which is exiting, to end, and
// reaps it; false if it had not ended by then.
func reapExiting(pid int) bool {
	deadline := time.Now().Add(exitWait)
	for pause := 20 * time.Microsecond; ; pause = min(2*pause, 5*time.Millisecond) {
		if reap(pid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
	}
}

// reapDead reaps the dead processes re-parented here from the process
// group pgid (a zombie keeps its group alive for kill(2)).
func reapDead(pl *pool, pgid int) {
	self := os.Getpid()
	for _, pid := range pl.candidates() {
		if st, ok := statOf(pid); ok && st.ppid == self && st.pgid == pgid && pid != pgid && (st.state == 'Z' || st.state == 'X') {
			reap(pid)
		}
	}
}

func reap(pid int) bool {
	var ws syscall.WaitStatus
	n, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	return n == pid
}

// exitingNow reads the main process's state: it is ending when it is a
// zombie or the kernel has marked it exiting (PF_EXITING, set before the
// process's files are closed).
func exitingNow(pid int) (known, ending bool) {
	b, err := readFast("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true, true // reaped meanwhile
	}
	f := statFields(b)
	if len(f) < 7 {
		return false, false
	}
	if f[0] == "Z" || f[0] == "X" {
		return true, true
	}
	flags, err := strconv.ParseUint(f[6], 10, 64)
	if err != nil {
		return false, false
	}
	return true, flags&pfExiting != 0
}

// BecomeSubreaper makes the calling process the reaper of its orphaned
// descendants (Linux PR_SET_CHILD_SUBREAPER): a process an IUT started that
// left the IUT's process group and outlived its parent is then re-parented
// to this process instead of to init, where the orphan sweep of
// [Proc.Stop] finds it. Call it once, early, from main; a program that does
// must start its other children in its own process group (the default), or
// the sweep may take them for an IUT's. Errors: the kernel refused; on
// other systems, [errors.ErrUnsupported].
func BecomeSubreaper() error { return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }

// IsSubreaper reports whether the calling process is a child subreaper
// (PR_GET_CHILD_SUBREAPER): only then do orphans of IUTs come back to it.
func IsSubreaper() bool {
	// PR_GET_CHILD_SUBREAPER writes through its pointer argument.
	var flag int32
	if unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&flag)), 0, 0, 0) != nil {
		return false
	}
	return flag != 0
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
// returns every pid under /proc. Callers check the parent of each in
// /proc/<pid>/stat either way, so a pid that is not an orphan, or that
// exited meanwhile, does no harm.
func candidates() []int {
	b, err := readFast(childrenFile())
	if err != nil {
		return allPids()
	}
	return parseChildren(b)
}

func childrenFile() string { return "/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/children" }

// candidates is [candidates] through the file the pool holds open (read
// again from offset 0 each time: an open of /proc/self/task/<pid>/children
// less per sweep); a nil pool opens it each time.
func (pl *pool) candidates() []int {
	if pl == nil {
		return candidates()
	}
	pl.childOnce.Do(func() { pl.children = holdFile(childrenFile(), false) })
	b, err := pl.children.read()
	if err != nil {
		return allPids()
	}
	return parseChildren(b)
}

// parseChildren reads the pids of a children file.
func parseChildren(b []byte) []int {
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// allPids lists every pid under /proc.
func allPids() []int {
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
	// exiting: the kernel has marked the process as exiting (PF_EXITING,
	// set at the start of do_exit, before its memory, and so its
	// environment, and its cgroups are given up).
	exiting bool
}

// pfExiting is PF_EXITING (include/linux/sched.h), in the flags field of
// /proc/<pid>/stat.
const pfExiting = 0x4

// statFields returns the fields of /proc/<pid>/stat after the command
// name: state, ppid, pgrp, session, tty_nr, tpgid, flags, ...
func statFields(b []byte) []string {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return nil
	}
	return strings.Fields(string(b[i+2:]))
}

// statOf reads state, parent pid, process group and whether it is exiting
// of pid from /proc/<pid>/stat.
func statOf(pid int) (procStat, bool) {
	b, err := readFast("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	f := statFields(b)
	if len(f) < 3 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	st := procStat{state: f[0][0], ppid: ppid, pgid: pgid}
	if len(f) > 6 {
		flags, err := strconv.ParseUint(f[6], 10, 64)
		st.exiting = err == nil && flags&pfExiting != 0
	}
	return st, true
}

// tokenOf reports whether pid's environment carries TokenVar=token (this),
// and the token it carries ("" for none). An unreadable environment (a
// process that exited meanwhile) carries none.
func tokenOf(pid int, token string) (this bool, carried string) {
	b, err := readFast("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false, ""
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte(TokenVar+"=")); ok {
			carried = string(v)
			return token != "" && carried == token, carried
		}
	}
	return false, ""
}

// cgroupOf returns pid's cgroup v2 path ("0::<path>" in /proc/<pid>/cgroup),
// or "".
func cgroupOf(pid int) string {
	b, err := readFast("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return p
		}
	}
	return ""
}

// cgroup is one IUT's cgroup v2.
type cgroup struct {
	dir string // absolute path in the mounted hierarchy
	rel string // path relative to the hierarchy's root, as /proc/<pid>/cgroup shows it
	fd  int    // open directory, for CLONE_INTO_CGROUP
	// files are the cgroup's files read a few times a vector (see
	// cgroupFile), held open and read again with pread(2); -1 where one
	// could not be opened (it is then opened for each read).
	files [numCgroupFiles]int
	// killed is set once cgroup.kill was written: such a cgroup is never
	// handed on, because some kernels (6.18 here) then SIGKILL every
	// process started into it with CLONE_INTO_CGROUP (the kill sequence
	// of the target cgroup is compared with that of the parent's).
	killed atomic.Bool
}

// newCgroup makes a cgroup named conform-iut-* below this process's own
// cgroup v2. Errors: no cgroup v2 mounted, or no permission to create one
// there.
func newCgroup() (*cgroup, error) {
	at, err := findCgroupParent()
	if err != nil {
		return nil, err
	}
	return at.make()
}

// cgroupParent is where IUT cgroups are made: this process's own cgroup
// v2, as a directory of the mounted hierarchy (dir) and as
// /proc/self/cgroup names it (rel).
type cgroupParent struct{ dir, rel string }

// findCgroupParent finds this process's cgroup v2 in the mounted
// hierarchy (/proc/self/mountinfo and /proc/self/cgroup). Errors: no
// cgroup v2 mounted, or this process's cgroup is not in the mounted part.
func findCgroupParent() (cgroupParent, error) {
	mnt, root, err := cgroup2Mount()
	if err != nil {
		return cgroupParent{}, err
	}
	own := cgroupOf(os.Getpid())
	if own == "" {
		return cgroupParent{}, errors.New("no cgroup v2 membership in /proc/self/cgroup")
	}
	rest, ok := strings.CutPrefix(own, root)
	if !ok {
		return cgroupParent{}, fmt.Errorf("own cgroup %s is outside the mounted root %s", own, root)
	}
	return cgroupParent{dir: filepath.Join(mnt, rest), rel: own}, nil
}

// make creates a cgroup conform-iut-* in the parent. Errors: no
// permission to create one there.
func (at cgroupParent) make() (*cgroup, error) {
	dir, err := os.MkdirTemp(at.dir, "conform-iut-")
	if err != nil {
		return nil, err
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		_ = syscall.Rmdir(dir)
		return nil, err
	}
	g := &cgroup{dir: dir, rel: filepath.Join(at.rel, filepath.Base(dir)), fd: fd}
	for i := range g.files {
		g.files[i], err = unix.Openat(fd, cgroupFileName(i), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			g.files[i] = -1
		}
	}
	return g, nil
}

// The cgroup files a cgroup holds open (cgroup.files).
const (
	eventsFile = iota
	statFile
	typeFile
	controllersFile
	numCgroupFiles
)

func cgroupFileName(i int) string {
	switch i {
	case eventsFile:
		return "cgroup.events"
	case statFile:
		return "cgroup.stat"
	case typeFile:
		return "cgroup.type"
	}
	return "cgroup.controllers"
}

// read returns the content of one of the files the cgroup holds open:
// pread(2) from offset 0 reads a cgroup file afresh each time, an open(2)
// less per read (cgroup.events is read four to six times a vector).
func (g *cgroup) read(i int) ([]byte, error) {
	if g.files[i] >= 0 {
		var small [512]byte
		n, err := ignoringEINTR(func() (int, error) { return unix.Pread(g.files[i], small[:], 0) })
		if err == nil && n < len(small) {
			return bytes.Clone(small[:n]), nil
		}
	}
	return readFast(g.dir + "/" + cgroupFileName(i))
}

// cgroup2Mount finds the cgroup v2 hierarchy in /proc/self/mountinfo: its
// mount point and the root of the hierarchy it shows.
func cgroup2Mount() (mountPoint, root string, err error) {
	b, err := readFast("/proc/self/mountinfo")
	if err != nil {
		return "", "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		pre, post, ok := strings.Cut(line, " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		f := strings.Fields(pre)
		if len(f) < 5 {
			continue
		}
		return unescapeMount(f[4]), unescapeMount(f[3]), nil
	}
	return "", "", errors.New("no cgroup2 file system in /proc/self/mountinfo")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func (g *cgroup) add(pid int) error {
	return writeFast(g.dir+"/cgroup.procs", strconv.Itoa(pid))
}

// procs lists the live processes of the cgroup and of the cgroups below it
// (an IUT running as root may make some).
func (g *cgroup) procs() []int {
	var out []int
	_ = filepath.WalkDir(g.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		b, err := readFast(filepath.Join(path, "cgroup.procs"))
		if err != nil {
			return nil
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
		return nil
	})
	return out
}

// populated reads cgroup.events: whether a live process is in the cgroup.
func (g *cgroup) populated() bool {
	b, err := g.read(eventsFile)
	if err != nil {
		return len(g.procs()) > 0
	}
	return bytes.Contains(b, []byte("populated 1"))
}

// kill ends every process in the cgroup: cgroup.kill, or SIGKILL to each
// member where the kernel has no cgroup.kill (before Linux 5.14).
func (g *cgroup) kill() error {
	g.killed.Store(true)
	err := writeFast(g.dir+"/cgroup.kill", "1")
	if err == nil {
		return nil
	}
	for _, pid := range g.procs() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return nil
}

// remove kills what is left and removes the cgroup and any cgroup made
// below it, deepest first; a cgroup whose last process is still exiting
// cannot be removed yet, so it retries briefly.
func (g *cgroup) remove() {
	_ = syscall.Close(g.fd)
	for _, f := range g.files {
		if f >= 0 {
			_ = unix.Close(f)
		}
	}
	if syscall.Rmdir(g.dir) == nil {
		return // no cgroup below it and nothing left in it: the usual case
	}
	for pause := time.Millisecond; ; pause *= 2 {
		var dirs []string
		_ = filepath.WalkDir(g.dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		var err error
		for i := len(dirs) - 1; i >= 0; i-- {
			if rerr := syscall.Rmdir(dirs[i]); rerr != nil && !errors.Is(rerr, syscall.ENOENT) {
				err = rerr
			}
		}
		if err == nil || pause > 200*time.Millisecond {
			return
		}
		_ = g.kill()
		time.Sleep(pause)
	}
}

// reusable reports whether the cgroup may be handed to another IUT: it is
// exactly as a new one would be in everything that can change what runs
// in it. It was never killed (see cgroup.killed), nothing is in it (populated 0), it is not frozen (an IUT running
// as root may write cgroup.freeze), it is still a domain cgroup (not
// turned threaded), no controller is enabled in it (so it has no limits
// an IUT could have set), and no cgroup was made below it. Any error
// while checking, and it is not.
func (g *cgroup) reusable() bool {
	if g.killed.Load() {
		return false
	}
	ev, err := g.read(eventsFile)
	if err != nil || !hasLine(ev, "populated 0") || hasLine(ev, "frozen 1") {
		return false
	}
	st, err := g.read(statFile)
	if err != nil || !hasLine(st, "nr_descendants 0") {
		return false
	}
	ty, err := g.read(typeFile)
	if err != nil || string(bytes.TrimSpace(ty)) != "domain" {
		return false
	}
	ctl, err := g.read(controllersFile)
	return err == nil && len(bytes.TrimSpace(ctl)) == 0
}

// hasLine reports whether b has the line line.
func hasLine(b []byte, line string) bool {
	for l := range bytes.Lines(b) {
		if string(bytes.TrimSuffix(l, []byte("\n"))) == line {
			return true
		}
	}
	return false
}

// pool (Linux) keeps where IUT cgroups are made, found once, and the
// cgroups of IUTs that ended with nothing left in them ([cgroup.reusable]),
// each handed to the next IUT instead of being removed and made again: a
// cgroup mkdir plus rmdir, and the mount lookup, cost about 0.2 ms a
// vector (bench/README.md).
type pool struct {
	once   sync.Once
	parent cgroupParent
	err    error
	// lim is what holds limits here (limits_linux.go), found once.
	limOnce sync.Once
	lim     limitCtl

	mu     sync.Mutex
	free   []*cgroup
	freeV1 []*resident // empty v1 pids cgroups of ended IUTs
	closed bool

	// children is this process's /proc/self/task/<pid>/children, held
	// open for the sweeps (see candidates).
	childOnce sync.Once
	children  heldFile
}

func newPool() *pool { return &pool{} }

// get returns a pooled cgroup or makes one. A nil pool makes one.
func (pl *pool) get() (*cgroup, error) {
	if pl == nil {
		return newCgroup()
	}
	pl.mu.Lock()
	if n := len(pl.free); n > 0 {
		g := pl.free[n-1]
		pl.free = pl.free[:n-1]
		pl.mu.Unlock()
		return g, nil
	}
	pl.mu.Unlock()
	pl.once.Do(func() { pl.parent, pl.err = findCgroupParent() })
	if pl.err != nil {
		return nil, pl.err
	}
	return pl.parent.make()
}

// put keeps g for a later IUT (removes it once the pool is closed).
func (pl *pool) put(g *cgroup) {
	pl.mu.Lock()
	if !pl.closed {
		pl.free = append(pl.free, g)
		g = nil
	}
	pl.mu.Unlock()
	if g != nil {
		g.remove()
	}
}

// close removes every pooled cgroup.
func (pl *pool) close() {
	pl.mu.Lock()
	free, freeV1 := pl.free, pl.freeV1
	pl.free, pl.freeV1, pl.closed = nil, nil, true
	pl.mu.Unlock()
	for _, g := range free {
		g.remove()
	}
	for _, r := range freeV1 {
		r.stop()
		removeV1(r.dir)
	}
	pl.childOnce.Do(func() { pl.children.fd = -1 })
	pl.children.close()
	pl.children.fd = -1
}

// readFast reads a small file of /proc or of the cgroup file system whole,
// with plain system calls: an *os.File would register each such file with
// the runtime's poller (cgroup files are pollable) and set a finalizer,
// and these files are read several times a vector. Errors: those of
// open(2) and read(2), as *fs.PathError.
func readFast(name string) ([]byte, error) {
	fd, err := ignoringEINTR(func() (int, error) { return unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0) })
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	// Most of these files are a few dozen bytes: read into the stack and
	// keep a copy of just what was read.
	var small [256]byte
	n := 0
	for n < len(small) {
		m, err := ignoringEINTR(func() (int, error) { return unix.Read(fd, small[n:]) })
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if m == 0 {
			return bytes.Clone(small[:n]), nil
		}
		n += m
	}
	b := append(make([]byte, 0, 4*len(small)), small[:n]...)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		m, err := ignoringEINTR(func() (int, error) { return unix.Read(fd, b[len(b):cap(b)]) })
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if m == 0 {
			return b, nil
		}
		b = b[:len(b)+m]
	}
}

// writeFast writes data to an existing file of the cgroup file system in
// one write(2), as readFast reads. Errors: as *fs.PathError.
func writeFast(name, data string) error {
	fd, err := ignoringEINTR(func() (int, error) { return unix.Open(name, unix.O_WRONLY|unix.O_CLOEXEC, 0) })
	if err != nil {
		return &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	if _, err := ignoringEINTR(func() (int, error) { return unix.Write(fd, []byte(data)) }); err != nil {
		return &fs.PathError{Op: "write", Path: name, Err: err}
	}
	return nil
}

// ignoringEINTR retries f while it fails with EINTR.
func ignoringEINTR(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if err != unix.EINTR {
			return n, err
		}
	}
}
