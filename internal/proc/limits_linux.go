package proc

// Limits on Linux: what holds an IUT's processes and memory (see [Limits]
// for the order of preference). What it guarantees:
//
//   - a pids controller (cgroup v2 delegated to conform's cgroup, or a
//     cgroup v1 pids hierarchy): the kernel refuses the IUT's fork or
//     clone beyond its limit (EAGAIN), so a fork bomb stops there; conform
//     sees the refusal in pids.events and kills the IUT within 50 ms. A
//     pids limit above conform (its own cgroup's or an ancestor's, as in a
//     container) is shared out: each IUT gets at most an even share of
//     what it leaves, less a reserve, so conform can always start its
//     threads. A v1 cgroup cannot be entered at clone time, so the IUT is
//     forked from a fresh thread that joined the IUT's v1 cgroups first
//     and is then ended (a v1 cgroup holds threads, not only processes).
//   - the process watch, where no pids controller is usable: every 50 ms
//     (200 ms when no cgroup lists the IUT and /proc must be scanned) the
//     IUT's processes are counted and the IUT is killed above the limit.
//     It cannot stop a fork bomb that fills a limit conform shares within
//     one interval.
//   - a memory controller (v2 delegated, or v1): the kernel reclaims and
//     then kills a process of the IUT above the limit; swap is not
//     allowed beyond it. Where neither exists, Start fails.
//
// Nothing outside conform's own cgroups is changed: a controller is used
// only where conform's cgroup already delegates it (conform never writes
// cgroup.subtree_control), and every cgroup conform makes is below its own
// and removed.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Names of what holds a limit (Exhaustion.By, LimitSupport).
const (
	byV2    = "cgroup v2 pids"
	byV1    = "cgroup v1 pids"
	byWatch = "process watch"
)

// Bounds of the sharing of a pids limit conform shares.
const (
	// procsReserve is kept back from a shared limit for conform itself:
	// its Go runtime's threads, a thread per IUT blocked in wait, the
	// processes it starts besides IUTs.
	procsReserve = 64
	// minProcs is the least an IUT is given, however little is left.
	minProcs = 8
)

// v1Hierarchy is conform's own cgroup in a mounted cgroup v1 hierarchy of
// one controller: IUT cgroups are made in dir.
type v1Hierarchy struct {
	dir, mount string
}

// limitCtl is what holds limits on this system, found once per pool.
type limitCtl struct {
	// pidsV2 and memV2: conform's cgroup v2 delegates the controller to
	// the cgroups made below it (they have pids.max, memory.max).
	pidsV2, memV2 bool
	// pidsV1 and memV1: a writable v1 hierarchy of the controller.
	pidsV1, memV1 *v1Hierarchy
	// headroom is how many more tasks the most constraining pids limit
	// at or above conform's cgroup allows, or -1 when none is set.
	headroom int
}

// findLimits finds what holds limits, given where IUT cgroups v2 are made
// (nil: none).
func findLimits(parent *cgroupParent) limitCtl {
	l := limitCtl{headroom: -1}
	if parent != nil {
		if b, err := readFast(parent.dir + "/cgroup.subtree_control"); err == nil {
			for _, f := range strings.Fields(string(b)) {
				l.pidsV2 = l.pidsV2 || f == "pids"
				l.memV2 = l.memV2 || f == "memory"
			}
		}
	}
	l.pidsV1 = findV1("pids")
	l.memV1 = findV1("memory")
	switch {
	case l.pidsV2:
		l.headroom = headroom(parent.dir, mountOf(parent.dir))
	case l.pidsV1 != nil:
		l.headroom = headroom(l.pidsV1.dir, l.pidsV1.mount)
	}
	return l
}

// mountOf returns the cgroup2 mount point above dir, or dir.
func mountOf(dir string) string {
	if mnt, _, err := cgroup2Mount(); err == nil {
		return mnt
	}
	return dir
}

// findV1 finds conform's own cgroup in a mounted, writable cgroup v1
// hierarchy of controller, or nil: /proc/self/mountinfo gives the mount
// (file system type cgroup, the controller among its super options) and
// /proc/self/cgroup the path ("N:<controllers>:<path>"). Writable means
// a cgroup can be made there (made and removed at once).
func findV1(controller string) *v1Hierarchy {
	info, err := readFast("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var mnt, root string
	for _, line := range strings.Split(string(info), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f := strings.Fields(pre)
		p := strings.Fields(post)
		if !ok || len(f) < 5 || len(p) < 3 || p[0] != "cgroup" {
			continue
		}
		for _, o := range strings.Split(p[2], ",") {
			if o == controller {
				mnt, root = unescapeMount(f[4]), unescapeMount(f[3])
			}
		}
	}
	if mnt == "" {
		return nil
	}
	own, err := readFast("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(own), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c != controller {
				continue
			}
			rest, ok := strings.CutPrefix(parts[2], root)
			if !ok {
				return nil
			}
			dir := filepath.Join(mnt, rest)
			probe, err := os.MkdirTemp(dir, "conform-iut-")
			if err != nil {
				return nil
			}
			_ = syscall.Rmdir(probe)
			return &v1Hierarchy{dir: dir, mount: mnt}
		}
	}
	return nil
}

// headroom returns the least pids.max - pids.current of dir and its
// ancestors up to mount, or -1 when none has a limit.
func headroom(dir, mount string) int {
	least := -1
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		max, err1 := readFast(d + "/pids.max")
		cur, err2 := readFast(d + "/pids.current")
		if err1 == nil && err2 == nil {
			m, errM := strconv.Atoi(strings.TrimSpace(string(max)))
			c, errC := strconv.Atoi(strings.TrimSpace(string(cur)))
			if errM == nil && errC == nil && (least < 0 || m-c < least) {
				least = max0(m - c)
			}
		}
		if d == filepath.Clean(mount) || d == "/" || d == "." {
			return least
		}
	}
}

func max0(n int) int { return max(n, 0) }

// limitCtl returns what holds limits for the pool's IUTs (found once); a
// nil pool finds it each time.
func (pl *pool) limitCtl() limitCtl {
	if pl == nil {
		at, err := findCgroupParent()
		if err != nil {
			return findLimits(nil)
		}
		return findLimits(&at)
	}
	pl.limOnce.Do(func() {
		pl.once.Do(func() { pl.parent, pl.err = findCgroupParent() })
		if pl.err != nil {
			pl.lim = findLimits(nil)
			return
		}
		pl.lim = findLimits(&pl.parent)
	})
	return pl.lim
}

func supports(pl *pool) LimitSupport {
	l := pl.limitCtl()
	s := LimitSupport{Procs: "process watch"}
	if l.headroom >= 0 {
		s.Room = max(l.headroom-procsReserve, minProcs)
	}
	switch {
	case l.pidsV2:
		s.Procs = "cgroup v2"
	case l.pidsV1 != nil:
		s.Procs = "cgroup v1"
	}
	switch {
	case l.memV2:
		s.Memory = "cgroup v2"
	case l.memV1 != nil:
		s.Memory = "cgroup v1"
	}
	return s
}

// limiter holds one IUT's limits.
type limiter struct {
	procs  int
	by     string
	memory int64
	// v1 are the IUT's cgroups v1 (pids, memory), each joined by the
	// thread that forks the IUT; pooled tells which came from the pool.
	v1     []string
	pooled []bool
	// res is the pooled pids cgroup v1 (v1[0]) with the thread that
	// lives in it and forks its IUTs (see [resident]); nil otherwise.
	res *resident
	// events is the pids.events file that counts refused forks ("max
	// N"), path "" for the watch; events0 its count when the IUT started.
	events  heldFile
	events0 int64
	// oomFile counts the kernel's kills at the memory limit ("oom_kill
	// N" in memory.events or memory.oom_control); oom0 at the start.
	oomFile string
	oom0    int64
	reached atomic.Bool
	oomKill int64
	// The watch (startWatch): wmu is held while it looks, and by
	// stopWatch, which release calls before the IUT's containment is
	// taken apart (the watch reads it).
	wmu        sync.Mutex
	timer      *time.Timer
	watchEnded bool
	stop       sync.Once
}

// newLimiter sets up the limits of an IUT contained by c (its cgroup v2
// already chosen, not yet started). noCgroup (Config.NoCgroup) keeps it out
// of cgroups v1 too: its processes are then held by the watch. Errors: a
// memory bound where no memory controller exists, or a limit that cannot
// be written.
func newLimiter(c *control, l Limits, noCgroup bool) (*limiter, error) {
	ctl := c.pool.limitCtl()
	if noCgroup {
		ctl.pidsV1, ctl.memV1 = nil, nil
	}
	lim := &limiter{procs: l.Procs, memory: l.Memory}
	if lim.procs <= 0 {
		lim.procs = DefaultProcs
	}
	if ctl.headroom >= 0 && !l.WatchOnly {
		share := (ctl.headroom - procsReserve) / max(1, l.Concurrent)
		lim.procs = min(lim.procs, max(share, minProcs))
	}
	fail := func(err error) (*limiter, error) {
		lim.release(c)
		return nil, err
	}
	switch {
	case l.WatchOnly:
		lim.by = byWatch
	case ctl.pidsV2 && c.cg != nil:
		if err := writeFast(c.cg.dir+"/pids.max", strconv.Itoa(lim.procs)); err != nil {
			return fail(err)
		}
		lim.by, lim.events = byV2, heldFile{path: c.cg.dir + "/pids.events", fd: -1}
	case ctl.pidsV1 != nil:
		res, err := c.pool.v1Cgroup(ctl.pidsV1.dir)
		if err != nil {
			return fail(err)
		}
		max := lim.procs
		lim.v1, lim.pooled = append(lim.v1, res.dir), append(lim.pooled, res.pooled)
		if res.pooled {
			// Its resident thread is one of its tasks.
			lim.res, max = res, max+1
		}
		if err := res.max.write(strconv.Itoa(max)); err != nil {
			return fail(err)
		}
		lim.by, lim.events = byV1, res.events
	default:
		lim.by = byWatch
	}
	if lim.events.path != "" {
		lim.events0 = lim.events.counter("max")
	}
	if l.Memory > 0 {
		mem := strconv.FormatInt(l.Memory, 10)
		switch {
		case ctl.memV2 && c.cg != nil:
			if err := writeFast(c.cg.dir+"/memory.max", mem); err != nil {
				return fail(err)
			}
			_ = writeFast(c.cg.dir+"/memory.swap.max", "0")
			lim.oomFile = c.cg.dir + "/memory.events"
		case ctl.memV1 != nil:
			dir, err := os.MkdirTemp(ctl.memV1.dir, "conform-iut-")
			if err != nil {
				return fail(err)
			}
			lim.v1, lim.pooled = append(lim.v1, dir), append(lim.pooled, false)
			if err := writeFast(dir+"/memory.limit_in_bytes", mem); err != nil {
				return fail(err)
			}
			_ = writeFast(dir+"/memory.memsw.limit_in_bytes", mem)
			lim.oomFile = dir + "/memory.oom_control"
		default:
			return fail(errors.New("a memory bound needs a memory controller (a cgroup v2 that delegates memory to conform's cgroup, or a cgroup v1 memory hierarchy), and this system offers neither to conform"))
		}
		lim.oom0 = heldFile{path: lim.oomFile, fd: -1}.counter("oom_kill")
	}
	return lim, nil
}

// counter reads the value of key in the flat-keyed cgroup file ("key N"
// lines), or 0.
func (h heldFile) counter(key string) int64 {
	b, err := h.read()
	if err != nil {
		return 0
	}
	for l := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(bytes.TrimSpace(l), []byte(key+" ")); ok {
			n, _ := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			return n
		}
	}
	return 0
}

// join moves the calling thread into the limiter's v1 cgroups, so that
// what it forks starts inside them. Where the pids cgroup has a resident
// thread, this second thread of conform's is counted in its pids.max until
// leave.
func (lim *limiter) join() error {
	if lim.res != nil {
		if err := lim.res.max.write(strconv.Itoa(lim.procs + 2)); err != nil {
			return err
		}
	}
	return joinV1(lim.v1)
}

// leave moves the calling thread back to conform's own v1 cgroups (the
// parents of the limiter's), once the IUT is forked.
func (lim *limiter) leave() {
	leaveV1(lim.v1)
	if lim.res != nil {
		_ = lim.res.max.write(strconv.Itoa(lim.procs + 1))
	}
}

// joinV1 moves the calling thread into the cgroups v1 dirs.
func joinV1(dirs []string) error {
	tid := strconv.Itoa(unix.Gettid())
	for _, dir := range dirs {
		if err := writeFast(dir+"/tasks", tid); err != nil {
			return err
		}
	}
	return nil
}

// leaveV1 moves the calling thread back from the cgroups v1 dirs to their
// parents (conform's own).
func leaveV1(dirs []string) {
	tid := strconv.Itoa(unix.Gettid())
	for _, dir := range dirs {
		_ = writeFast(filepath.Dir(dir)+"/tasks", tid)
	}
}

// startWatch starts the watch: a timer, not a goroutine, whose function
// looks every interval (on a goroutine of the runtime's while it runs) and
// sets the next timer. Most IUTs end within the first interval, so most
// never need a goroutine for it (a goroutine and a ticker per IUT were
// measurable in a run's scheduler time).
func (lim *limiter) startWatch(c *control) {
	every := 50 * time.Millisecond
	if lim.events.path == "" && c.cg == nil {
		every = 200 * time.Millisecond // each count scans /proc
	}
	lim.wmu.Lock()
	defer lim.wmu.Unlock()
	var look func()
	look = func() {
		lim.wmu.Lock()
		defer lim.wmu.Unlock()
		if lim.watchEnded {
			return
		}
		if lim.over(c) {
			lim.reached.Store(true)
			lim.kill(c)
			lim.watchEnded = true
			return
		}
		lim.timer = time.AfterFunc(every, look)
	}
	lim.timer = time.AfterFunc(every, look)
}

// over reports whether the IUT reached its process limit: a fork the pids
// controller refused, or more processes than the limit by the count.
func (lim *limiter) over(c *control) bool {
	if lim.events.path != "" {
		return lim.events.counter("max") > lim.events0
	}
	return len(c.members())+1 > lim.procs
}

// stopWatch ends the watch; once it returns, the watch neither runs nor
// will.
func (lim *limiter) stopWatch() {
	lim.wmu.Lock()
	defer lim.wmu.Unlock()
	lim.watchEnded = true
	if lim.timer != nil {
		lim.timer.Stop()
	}
}

// kill ends every process of the IUT: its containment and the members of
// its v1 cgroups.
func (lim *limiter) kill(c *control) {
	_ = c.signal(sigKill)
	for _, dir := range lim.v1 {
		for _, pid := range v1Procs(dir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// v1Procs lists the processes of a v1 cgroup.
func v1Procs(dir string) []int {
	b, err := readFast(dir + "/cgroup.procs")
	if err != nil {
		return nil
	}
	return parseV1Procs(b)
}

// parseV1Procs reads a cgroup.procs file's pids, leaving conform itself
// out: the thread that forked the IUT is in the cgroup for a moment, or for
// good (a resident thread), and one that could not leave stays.
func parseV1Procs(b []byte) []int {
	self := os.Getpid()
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil && pid != self {
			out = append(out, pid)
		}
	}
	return out
}

// release stops the watch, counts the kernel's kills at the memory limit
// and removes (or pools) the IUT's v1 cgroups, killing what is left in
// them. Safe to call more than once.
func (lim *limiter) release(c *control) {
	lim.stop.Do(func() {
		lim.stopWatch()
		if lim.events.path != "" && lim.events.counter("max") > lim.events0 {
			// A fork refused after the watch's last look (the IUT may
			// have given up and exited at once).
			lim.reached.Store(true)
		}
		if lim.oomFile != "" {
			lim.oomKill = heldFile{path: lim.oomFile, fd: -1}.counter("oom_kill") - lim.oom0
		}
		for i, dir := range lim.v1 {
			if lim.pooled[i] && lim.res != nil && lim.res.dir == dir {
				if len(lim.res.members()) == 0 && c.pool != nil && c.pool.putV1(lim.res) {
					continue
				}
				lim.res.stop()
			}
			removeV1(dir)
		}
	})
}

// heldFile is a file of a cgroup file system read or written a few times
// an IUT: held open (fd >= 0) and read and written with pread(2) and
// pwrite(2) at offset 0, which read it afresh, where opening it each time
// (a path walk in the cgroup file system) cost a few percent of an IUT's
// CPU; by path where fd is -1.
type heldFile struct {
	path string
	fd   int
}

// holdFile opens path for reading (write: for writing), or returns it
// with fd -1 when it cannot be opened.
func holdFile(path string, write bool) heldFile {
	flag := unix.O_RDONLY
	if write {
		flag = unix.O_WRONLY
	}
	fd, err := ignoringEINTR(func() (int, error) { return unix.Open(path, flag|unix.O_CLOEXEC, 0) })
	if err != nil {
		fd = -1
	}
	return heldFile{path: path, fd: fd}
}

// read returns the file's content.
func (h heldFile) read() ([]byte, error) {
	if h.fd < 0 {
		return readFast(h.path)
	}
	b := make([]byte, 512)
	n := 0
	for {
		m, err := ignoringEINTR(func() (int, error) { return unix.Pread(h.fd, b[n:], int64(n)) })
		if err != nil {
			return readFast(h.path)
		}
		if m == 0 {
			return b[:n], nil
		}
		if n += m; n == len(b) {
			b = append(b, make([]byte, len(b))...)
		}
	}
}

// write writes data in one write.
func (h heldFile) write(data string) error {
	if h.fd < 0 {
		return writeFast(h.path, data)
	}
	if _, err := ignoringEINTR(func() (int, error) { return unix.Pwrite(h.fd, []byte(data), 0) }); err != nil {
		return &fs.PathError{Op: "write", Path: h.path, Err: err}
	}
	return nil
}

func (h heldFile) close() {
	if h.fd >= 0 {
		_ = unix.Close(h.fd)
	}
}

// removeV1 kills what is left in the v1 cgroup dir and removes it,
// retrying briefly while its last tasks exit.
func removeV1(dir string) {
	for pause := time.Millisecond; ; pause *= 2 {
		if syscall.Rmdir(dir) == nil || pause > 200*time.Millisecond {
			return
		}
		for _, pid := range v1Procs(dir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(pause)
	}
}

// exhaustion says which limit the IUT reached.
func (lim *limiter) exhaustion() Exhaustion {
	var e Exhaustion
	if lim == nil {
		return e
	}
	if lim.reached.Load() {
		e.Procs, e.By = lim.procs, lim.by
	}
	if lim.oomKill > 0 {
		e.OOMKills, e.Memory = int(lim.oomKill), lim.memory
	}
	return e
}

func (c *control) exhaustion() Exhaustion { return c.lim.exhaustion() }

// v1Cgroup returns a pooled pids cgroup v1 made in dir, or a new one
// (pooled: it goes back to the pool and has a resident thread). A nil pool
// makes one that is not pooled.
func (pl *pool) v1Cgroup(dir string) (*resident, error) {
	if pl != nil {
		pl.mu.Lock()
		var r *resident
		if n := len(pl.freeV1); n > 0 {
			r = pl.freeV1[n-1]
			pl.freeV1 = pl.freeV1[:n-1]
		}
		pl.mu.Unlock()
		if r != nil {
			return r, nil
		}
	}
	cg, err := os.MkdirTemp(dir, "conform-iut-")
	if err != nil {
		return nil, err
	}
	r := &resident{dir: cg, pooled: pl != nil,
		events: heldFile{path: cg + "/pids.events", fd: -1}, procs: heldFile{path: cg + "/cgroup.procs", fd: -1}, max: heldFile{path: cg + "/pids.max", fd: -1}}
	if r.pooled {
		r.events, r.procs, r.max = holdFile(r.events.path, false), holdFile(r.procs.path, false), holdFile(r.max.path, true)
	}
	return r, nil
}

// members lists the live processes in the cgroup (never conform itself).
func (r *resident) members() []int {
	b, err := r.procs.read()
	if err != nil {
		return nil
	}
	return parseV1Procs(b)
}

// putV1 keeps an empty pooled v1 cgroup, with its resident thread, for a
// later IUT; false once the pool is closed (the caller stops the thread
// and removes the cgroup).
func (pl *pool) putV1(r *resident) bool {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.closed {
		return false
	}
	pl.freeV1 = append(pl.freeV1, r)
	return true
}

// resident is a pids cgroup v1 of the pool and the thread that lives in
// it: a locked OS thread that joined the cgroup once and forks every IUT
// the cgroup holds, one after another, so that each IUT is inside from its
// first instruction (a v1 cgroup cannot be entered at clone time). Before
// it, each IUT was forked from a new thread that joined the IUT's cgroup,
// forked, left it and ended: a thread created and ended and two writes to
// a tasks file (a cgroup v1 migration) per IUT, about 15% of proc's CPU
// per IUT (bench/README.md). The thread is one of the cgroup's tasks, so
// its pids.max is the IUT's limit plus one; it never forks anything but
// IUTs, and the Go runtime never clones a thread from a locked one (it asks
// its template thread), so nothing else of conform ever lands in the
// cgroup. It outlives every IUT it forked (their parent-death signal is
// tied to it) and ends when the cgroup is removed: it moves itself back to
// conform's own cgroup first, so the cgroup can be removed at once.
type resident struct {
	dir    string
	pooled bool
	// Its files read or written for each IUT.
	events, procs, max heldFile

	once sync.Once
	reqs chan forkReq
	err  error // joining failed: no thread
	left chan struct{}
}

type forkReq struct {
	cmd         *exec.Cmd
	prep, after func() error
	done        chan error
}

// start forks cmd from the resident thread, running prep before and after
// after the fork (to join and leave other v1 cgroups). An error of joining
// or of prep is a prepError.
func (r *resident) start(cmd *exec.Cmd, prep, after func() error) error {
	r.once.Do(func() {
		r.reqs, r.left = make(chan forkReq), make(chan struct{})
		ready := make(chan error, 1)
		go r.run(ready)
		if r.err = <-ready; r.err != nil {
			r.reqs = nil
		}
	})
	if r.err != nil {
		return &prepError{r.err}
	}
	done := make(chan error, 1)
	r.reqs <- forkReq{cmd: cmd, prep: prep, after: after, done: done}
	return <-done
}

// run is the resident thread.
func (r *resident) run(ready chan<- error) {
	runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
	defer close(r.left)
	tid := strconv.Itoa(unix.Gettid())
	if err := writeFast(r.dir+"/tasks", tid); err != nil {
		ready <- err
		return
	}
	ready <- nil
	for req := range r.reqs {
		var err error
		if req.prep != nil {
			err = req.prep()
		}
		if err != nil {
			err = &prepError{err}
		} else {
			err = req.cmd.Start()
		}
		if req.after != nil {
			_ = req.after()
		}
		req.done <- err
	}
	_ = writeFast(filepath.Dir(r.dir)+"/tasks", tid)
}

// stop ends the resident thread, once it has left the cgroup, and closes
// the cgroup's files. Safe to call more than once, and on a resident whose
// thread never started.
func (r *resident) stop() {
	r.events.close()
	r.procs.close()
	r.max.close()
	r.events.fd, r.procs.fd, r.max.fd = -1, -1, -1
	r.once.Do(func() { r.err = errors.New("stopped") })
	if r.reqs != nil {
		close(r.reqs)
		r.reqs = nil
		<-r.left
	}
}

// startOnThread starts cmd from a new OS thread that runs prep first
// (joins the IUT's v1 cgroups, makes the IUT's mounts) and after once the
// fork is done (leaves the v1 cgroups again): the IUT inherits the
// thread's cgroups and mount namespace. The thread then waits, parked,
// until hold is closed: the IUT's parent-death signal (Pdeathsig) is tied
// to the thread that forked it, so the thread must outlive the IUT's main
// process. Then its goroutine ends with the thread still locked, so the Go
// runtime ends the thread too and nothing else ever runs in what prep
// changed. An error of prep is returned wrapped in prepError.
func startOnThread(cmd *exec.Cmd, prep func() error, after func(), hold <-chan struct{}) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := prep(); err != nil {
			after()
			errc <- &prepError{err}
			return
		}
		err := cmd.Start()
		after()
		errc <- err
		if err == nil {
			<-hold
		}
	}()
	return <-errc
}

// prepError is a failure of the preparation of the thread that forks an
// IUT (startOnThread), not of the IUT's command.
type prepError struct{ err error }

func (e *prepError) Error() string { return fmt.Sprintf("prepare the IUT's thread: %v", e.err) }
func (e *prepError) Unwrap() error { return e.err }
