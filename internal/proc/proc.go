// Package proc runs one implementation under test (IUT) as a child process,
// carries JSON lines over its stdin and stdout, and makes sure that nothing
// the IUT started outlives it.
//
// The child runs with an explicit environment and working directory.
// One goroutine at a time writes its stdin (Start writes what the pipe takes
// at once, a writer goroutine the rest, in order); stdout is read line by
// line with an explicit maximum line size; stderr goes into a bounded tail
// buffer.
//
// Containment (what keeps an IUT's processes together so they can all be
// ended) differs per system and lives in one file per platform behind this
// API; each file's comment says what it guarantees there and what it cannot:
//
//   - Linux (proc_linux.go): a cgroup v2 per IUT where one can be created
//     (root or a delegated subtree), killed whole with cgroup.kill; the IUT's
//     own process group; a parent-death signal; and, as a child subreaper
//     ([BecomeSubreaper]), a sweep of re-parented processes. Optional
//     isolation as another user ([Isolation]).
//   - Other Unix systems (proc_unix.go): the IUT's own process group.
//   - Windows (proc_windows.go): a Job Object that holds the whole process
//     tree and is terminated as one.
//
// On Linux each IUT also has limits ([Limits], limits_linux.go): a number
// of processes and threads (a pids cgroup v2 or v1, else a watch) and,
// opt-in, of memory; and an isolated IUT gets temporary directories of
// its own (tmp_linux.go).
//
// [Proc.Stop] ends the IUT in one sequence on every system: close stdin,
// wait a grace period for the main process and every other process of the
// IUT to end, then ask them to end (SIGTERM where the system has it), then
// kill them all. A process of the IUT other than its main process that is
// still alive once the main process has ended and Stop must end it is a
// survivor, counted in [Proc.Leftovers].
package proc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/conform-kit/conform/internal/frame"
)

// Config says how to start the IUT.
type Config struct {
	// Argv is the command and its arguments; never run through a shell.
	Argv []string
	// Env is the child's whole environment ("K=V"); nil means empty.
	Env []string
	// Dir is the working directory; "" means the caller's.
	Dir string
	// Framing is how stdout is cut into messages: "" or [frame.Lines],
	// lines ended by LF; [frame.ContentLength], content-length framed
	// bodies (see [Line]). What is written to stdin is the caller's: it
	// frames its input itself ([frame.Encode]).
	Framing frame.Framing
	// MaxLine is the largest stdout line delivered, in bytes, without its LF
	// (with Framing content-length: the largest body).
	// A longer line is reported with Err [ErrLineTooLong] and discarded.
	// Zero means 1 MiB. Lines are read ahead of [Proc.Lines]'s reader up
	// to 16 MiB of lines this long (at least one line, at most 64), so the
	// lines held at once are at most max(16 MiB, MaxLine) queued, the line
	// being read and the line the reader holds.
	MaxLine int
	// StderrMax is how many bytes of stderr are kept (the last ones). Zero
	// means 64 KiB.
	StderrMax int
	// Token, when not empty, is added to the environment as
	// TokenVar=Token. Descendants inherit it, which lets the Linux orphan
	// sweep tell this IUT's re-parented processes from those of IUTs
	// running at the same time when no cgroup holds them. Give each IUT
	// that runs at the same time a different token.
	Token string
	// NoCgroup keeps the IUT out of cgroups of its own on Linux, v2 and v1
	// alike (the process group, parent-death signal and orphan sweep
	// remain, and the process watch holds Limits.Procs; a Limits.Memory
	// cannot be held); other systems ignore it. For tests of that
	// fallback.
	NoCgroup bool
	// Isolate, when not nil, runs the IUT as another user (Linux only, and
	// only when the caller may switch users, i.e. root). Start fails on
	// other systems.
	Isolate *Isolation
	// Pool, when not nil, is shared by the IUTs a caller starts one after
	// another (see [Pool]); nil shares nothing.
	Pool *Pool
	// Limits bounds the processes and the memory of the IUT where the
	// system can hold them (see [Limits]).
	Limits Limits
	// Home is the IUT's HOME directory (its working directory is usually
	// inside it). With [Isolation.Namespaces] the IUT gets temporary
	// directories of its own; Home stays what it is, the directory on
	// disk, whatever path it has.
	Home string
}

// DefaultProcs is Limits.Procs when it is zero: processes and threads one
// IUT may have at once. The real CLI (Node.js) runs about 15, a JVM a few
// dozen on a large machine; a fork bomb reaches it within milliseconds.
const DefaultProcs = 1024

// Limits bounds what one IUT may use at once (Linux only; other systems
// ignore them). [Proc.Exhaustion] says which it reached.
//
// Procs is held, in this order of preference, by the pids controller of
// the IUT's cgroup v2 when conform's own cgroup already delegates it to
// its children (cgroup.subtree_control; conform never enables a
// controller itself), by a pids cgroup v1 of the IUT's below conform's own
// where a v1 pids hierarchy is mounted and writable (the IUT is forked
// from a thread that joined it, so it is inside from its first
// instruction), and otherwise by a watch that counts the IUT's processes
// every 50 ms (its cgroup's members, or its process group's from /proc).
// When a controller holds it and conform's own cgroup (or an ancestor)
// has a pids limit of its own, each IUT gets at most an even share of
// what that limit leaves, less a reserve for conform, so a fork bomb
// cannot starve conform of threads. An IUT that reaches its limit is
// killed at once (within 50 ms).
//
// Memory (opt-in) is held by the memory controller of the IUT's cgroup
// v2 where conform's cgroup delegates it, or by a memory cgroup v1;
// where neither exists, Start fails (see [Pool.Supports]). The kernel
// kills a process of the IUT that exceeds it (counted in
// Exhaustion.OOMKills).
type Limits struct {
	// Procs is the most processes and threads (tasks) of the IUT at once
	// (the watch counts processes); zero means [DefaultProcs].
	Procs int
	// Memory is the most bytes of memory (anonymous, page cache, tmpfs)
	// the IUT may use at once; zero means no bound.
	Memory int64
	// Concurrent is how many IUTs run at once, among which the share of a
	// shared pids limit is split; zero means one.
	Concurrent int
	// WatchOnly holds Procs by the watch alone, for tests of that
	// fallback.
	WatchOnly bool
}

// Exhaustion says which of its limits an IUT reached; valid after
// [Proc.Stop].
type Exhaustion struct {
	// Procs is the process limit the IUT reached, at which conform killed
	// it, or 0.
	Procs int
	// By says what held it: "cgroup v2 pids", "cgroup v1 pids" or
	// "process watch".
	By string
	// OOMKills counts the processes of the IUT the kernel killed at its
	// memory limit (Memory bytes).
	OOMKills int
	Memory   int64
}

// LimitSupport says what holds [Limits] on this system, as found for a
// pool: "cgroup v2", "cgroup v1", "process watch" (Procs only), or ""
// for nothing.
type LimitSupport struct {
	Procs, Memory string
	// Room is how many processes and threads the most constraining pids
	// limit over conform leaves its IUTs (what Limits.Concurrent IUTs
	// share), or 0 when no such limit is known.
	Room int
}

// Supports finds what holds Limits here (once per pool; a nil pool looks
// each time).
func (p *Pool) Supports() LimitSupport { return supports(p.impl()) }

// Pool is what IUTs started by one caller, one after another or a few at
// once, may share without anything of one reaching another. On Linux: where
// their cgroups are made, found once, and the cgroups of IUTs that ended
// with nothing left in them and nothing changed in them (the checks are in
// proc_linux.go), each handed to a later IUT instead of being removed and
// made again. Elsewhere it holds nothing. [NewPool] makes one; [Pool.Close]
// removes what it holds. Safe for concurrent use.
type Pool struct{ p *pool }

// NewPool returns an empty pool.
func NewPool() *Pool { return &Pool{p: newPool()} }

// Close removes what the pool holds (on Linux, its cgroups). IUTs stopped
// after Close give nothing back to it. A nil pool has nothing to close.
func (p *Pool) Close() {
	if p != nil {
		p.p.close()
	}
}

// impl returns the platform's pool, or nil.
func (p *Pool) impl() *pool {
	if p == nil {
		return nil
	}
	return p.p
}

// Isolation runs an IUT as a separate user, so that it cannot read the
// caller's /proc/<pid>/environ or memory, signal it, or write files only the
// caller may write (such as a report). Supplementary groups are dropped.
type Isolation struct {
	// UID and GID are the user and group the IUT runs as; neither may be 0.
	UID, GID uint32
	// Namespaces also puts the IUT in a user namespace (which maps only
	// UID and GID, so a set-user-ID program owned by another user, such as
	// root's su or sudo, does not raise its privileges) and a mount
	// namespace of its own (mounts it makes stay private to it), when the
	// kernel allows; where it refuses, the IUT runs without them.
	Namespaces bool
}

// ErrLineTooLong marks a stdout line longer than Config.MaxLine.
var ErrLineTooLong = errors.New("line too long")

// Line is one line of the IUT's stdout, or with Config.Framing
// content-length one message body (Data is the body).
type Line struct {
	// Data is the line without its LF (nil when Err is ErrLineTooLong).
	// With content-length framing: the body, or nil when Err is
	// ErrLineTooLong or a [*frame.Error] that lost the body.
	Data []byte
	// Size is the line's full length in bytes (the body's length; for a
	// [*frame.Error], the bytes it concerns).
	Size int
	// Partial is true for a last line that ended without LF (a message
	// the end of stdout cut short).
	Partial bool
	// Err is ErrLineTooLong or nil; with content-length framing also a
	// [*frame.Error] (FRAME_HEADER_INVALID, FRAME_UNFRAMED,
	// FRAME_TRUNCATED) with the bytes concerned. An *frame.Error with
	// Data is a header defect that left the body readable.
	Err error
	// At is the time since start.
	At time.Duration
}

// Exit describes how the IUT ended.
type Exit struct {
	// Code is the exit status (0-255; on Windows any 32-bit value), or -1
	// when killed by a signal.
	Code int `json:"code"`
	// Signal names the signal that killed it ("SIGKILL"), or "". Always ""
	// on Windows, which has no signals.
	Signal string `json:"signal,omitempty"`
	// Stopped is the signal conform sent to end it ("SIGTERM", "SIGKILL"),
	// or "" when it ended by itself. On Windows, where a process can only
	// be terminated, "SIGKILL" means that conform terminated it.
	Stopped string `json:"stopped,omitempty"`
}

// Leftovers is what outlived an IUT's main process: its other processes
// that were still alive once the main process had ended and [Proc.Stop]
// had to end them (after its grace period, or at once for a process
// outside every group and cgroup).
type Leftovers struct {
	// Count is how many such processes Stop found (and killed: all of
	// them, unless one had taken another user's identity, which only a
	// process the caller may not signal can). On Unix systems other than
	// Linux, which cannot list a process group without /proc, a process
	// group with members left counts as one.
	Count int
	// Unattributed counts those among Count that Stop could not tie to
	// this IUT for certain: on Linux without a cgroup, a re-parented
	// process that had cleared its environment (no Config.Token) and left
	// the IUT's process group. With several IUTs at once it may belong to
	// another one, always of the same run.
	Unattributed int
}

// readAheadBytes bounds the stdout lines read ahead of the caller: the
// line queue holds at most this many bytes of lines of MaxLine bytes (at
// least one line, at most 64). Before issue 22 it held at least 4 lines:
// 256 MiB with --max-line 64 MiB.
const readAheadBytes = 16 << 20

// readAhead is how many lines of at most maxLine bytes the queue holds.
func readAhead(maxLine int) int {
	return min(64, max(1, readAheadBytes/max(maxLine, 1)))
}

// Proc is a running IUT.
type Proc struct {
	cmd     *exec.Cmd
	ctl     *control
	pid     int
	start   time.Time
	lines   chan Line
	stderr  *tail
	closeIn chan struct{}
	// stdin is written by Start (what the pipe takes at once) and then by
	// one writer goroutine, started when there is more to write (see
	// write). more wakes the writer for input queued by Send (in queued);
	// under qmu, writing says that the writer runs and inDone that stdin
	// is closed or can take nothing more.
	inW      *os.File
	more     chan struct{}
	qmu      sync.Mutex
	queued   [][]byte
	writing  bool
	inDone   bool
	closeOne sync.Once
	stopOne  sync.Once
	// stopCtx ends the watch of Start's context (which kills the IUT) and
	// returns once it cannot run any more.
	stopCtx  func()
	exited   chan struct{}
	exit     Exit
	stdoutR  *os.File
	readDone chan struct{}
	// stderrDone is closed once stderr reached EOF and is fully copied.
	stderrDone chan struct{}
	mu         sync.Mutex
	stopped    string
	// survivors holds the processes counted as outliving the main process
	// (keys are pids, or a negative process group id where the group
	// cannot be listed); unattributed is the subset of unknown origin.
	survivors    map[int]bool
	unattributed int
}

// Start starts cfg.Argv and writes input to its stdin, each element followed
// by nothing (callers include the LF). Stdin stays open until [Proc.CloseStdin]
// or [Proc.Stop]. Cancelling ctx kills every process of the IUT. Errors: the
// command could not be started (not found, not executable, the working
// directory is missing), or containment or isolation could not be set up.
func Start(ctx context.Context, cfg Config, input [][]byte) (*Proc, error) {
	if len(cfg.Argv) == 0 {
		return nil, errors.New("empty command")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if cfg.MaxLine <= 0 {
		cfg.MaxLine = 1 << 20
	}
	if cfg.StderrMax <= 0 {
		cfg.StderrMax = 64 << 10
	}
	env := cfg.Env
	if env == nil {
		env = []string{}
	}
	if cfg.Token != "" {
		env = append(slices.Clip(env), TokenVar+"="+cfg.Token)
	}

	inR, inW, err := newPipe(false)
	if err != nil {
		return nil, err
	}
	outR, outW, err := newPipe(true)
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := newPipe(true)
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	p := &Proc{
		lines:      make(chan Line, readAhead(cfg.MaxLine)),
		stderr:     &tail{max: cfg.StderrMax},
		closeIn:    make(chan struct{}),
		inW:        inW,
		more:       make(chan struct{}, 1),
		exited:     make(chan struct{}),
		stdoutR:    outR,
		readDone:   make(chan struct{}),
		stderrDone: make(chan struct{}),
		survivors:  map[int]bool{},
	}
	// newCmd builds the command; the platform may build it more than once
	// when a containment feature the kernel lacks must be dropped. Its
	// standard streams are *os.File, so os/exec starts no goroutine for
	// them; ctx is watched below, not by os/exec (whose watch is one more
	// goroutine per IUT).
	newCmd := func() *exec.Cmd {
		cmd := exec.Command(cfg.Argv[0], cfg.Argv[1:]...)
		cmd.Env = env
		cmd.Dir = cfg.Dir
		cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
		return cmd
	}
	p.start = time.Now()
	p.cmd, p.ctl, err = startContained(cfg, newCmd)
	// The child holds its own copies; ours must go so EOF can arrive.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	p.pid = p.cmd.Process.Pid
	// Cancelling ctx kills every process of the IUT (a callback, not a
	// goroutine, until it is cancelled).
	killed := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(killed)
		_ = p.ctl.signal(sigKill)
	})
	p.stopCtx = func() {
		if !stop() {
			<-killed // it ran: let it finish before containment is undone
		}
	}
	if rest := writeNow(inW, input); len(rest) > 0 {
		p.writing = true
		go p.write(rest)
	}
	if cfg.Framing == frame.ContentLength {
		go p.readFramed(outR, cfg.MaxLine)
	} else {
		go p.readStdout(outR, cfg.MaxLine)
	}
	go func() {
		copySmall(p.stderr, errR)
		errR.Close()
		close(p.stderrDone)
	}()
	go p.wait()
	return p, nil
}

// write is the writer goroutine: it writes input, then what [Proc.Send]
// queues, until stdin is to be closed (what is queued by then is written
// first) or the IUT has exited, and then closes stdin. It is started only
// when there is something Start could not write at once, so most IUTs,
// whose input fits in the pipe, never need it.
func (p *Proc) write(input [][]byte) {
	defer p.closeIn0()
	if !writeAll(p.inW, input) {
		return
	}
	for {
		select {
		case <-p.more:
			if !writeAll(p.inW, p.takeQueued()) {
				return
			}
		case <-p.closeIn:
			writeAll(p.inW, p.takeQueued())
			return
		case <-p.exited:
			return
		}
	}
}

// closeIn0 closes stdin once; nothing is written after it.
func (p *Proc) closeIn0() {
	p.qmu.Lock()
	defer p.qmu.Unlock()
	if !p.inDone {
		p.inDone = true
		p.inW.Close()
	}
}

// writeAll writes every piece; false when the IUT closed stdin or died, so
// that the rest cannot be delivered.
func writeAll(w *os.File, pieces [][]byte) bool {
	for _, b := range pieces {
		if _, err := w.Write(b); err != nil {
			return false
		}
	}
	return true
}

// Send queues more input, written after everything given before (to Start
// or an earlier Send), each element followed by nothing (callers include
// the LF). It never blocks: the writer goroutine (started by the first Send
// that needs it) writes it as the pipe allows. Input sent after
// [Proc.CloseStdin] or [Proc.Stop] may be dropped.
func (p *Proc) Send(input [][]byte) {
	p.qmu.Lock()
	if p.inDone {
		p.qmu.Unlock()
		return
	}
	p.queued = append(p.queued, input...)
	start := !p.writing
	p.writing = true
	p.qmu.Unlock()
	if start {
		go p.write(p.takeQueued())
		return
	}
	select {
	case p.more <- struct{}{}:
	default: // a wake-up is already pending; it takes this input too
	}
}

func (p *Proc) takeQueued() [][]byte {
	p.qmu.Lock()
	defer p.qmu.Unlock()
	q := p.queued
	p.queued = nil
	return q
}

// Read buffers of the transport. Most IUTs write a few lines of under a
// KiB and nothing on stderr, so each IUT starts with small buffers; a
// stdout line longer than readSmall bytes moves its reader to a buffer of
// readLarge (64 KiB reads, the pipe's capacity). Allocating 96 KiB per IUT
// up front was 60% of the bytes a run allocated, and of its collections
// (bench/README.md).
const (
	readSmall = 4 << 10
	readLarge = 64 << 10
)

func (p *Proc) readStdout(r *os.File, maxLine int) {
	defer close(p.lines)
	defer close(p.readDone)
	br := bufio.NewReaderSize(r, readSmall)
	large := false
	var buf []byte
	size := 0
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		size += len(chunk)
		if !tooLong {
			if len(buf)+len(chunk) > maxLine+1 {
				tooLong = true
				buf = nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			if !large {
				// ReadSlice returned the whole buffer: nothing is
				// buffered, so the reader can be replaced.
				br, large = bufio.NewReaderSize(r, readLarge), true
			}
			continue
		}
		if err != nil && size == 0 {
			return
		}
		ln := Line{Size: size, At: time.Since(p.start)}
		if err != nil && len(buf) > maxLine {
			tooLong = true // a last line without LF has no LF to allow for
		}
		switch {
		case tooLong:
			ln.Partial = err != nil
			ln.Err = ErrLineTooLong
			if err == nil {
				ln.Size--
			}
		case err == nil:
			ln.Data = buf[:len(buf)-1]
			ln.Size--
		default:
			ln.Data = buf
			ln.Partial = true
		}
		p.lines <- ln
		if err != nil {
			return
		}
		buf, size, tooLong = nil, 0, false
	}
}

// readFramed is readStdout for content-length framing: each body, or each
// break of the framing, is one Line.
func (p *Proc) readFramed(r *os.File, maxLine int) {
	defer close(p.lines)
	defer close(p.readDone)
	fr := frame.NewReader(r, maxLine)
	for {
		m, ok := fr.Next()
		if !ok {
			return
		}
		ln := Line{Data: m.Body, Size: m.Size, Partial: m.Partial, Err: m.Err, At: time.Since(p.start)}
		if errors.Is(m.Err, frame.ErrTooLarge) {
			ln.Err = ErrLineTooLong
		}
		p.lines <- ln
	}
}

func (p *Proc) wait() {
	e := p.ctl.wait()
	p.stopCtx()
	p.ctl.reaped()
	p.mu.Lock()
	e.Stopped = p.stopped
	p.exit = e
	p.mu.Unlock()
	close(p.exited)
}

// Lines delivers stdout lines in order; it is closed at end of output (EOF
// from every process holding the pipe, or after [Proc.Stop]).
func (p *Proc) Lines() <-chan Line { return p.lines }

// Exited is closed once the IUT's main process has ended.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// Pid returns the IUT's process id (on Unix its process group id too).
func (p *Proc) Pid() int { return p.pid }

// Exit returns how the main process ended; valid after Exited is closed.
func (p *Proc) Exit() Exit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit
}

// Ending reports whether the main process has ended or is in the middle of
// ending. Call it when Lines has closed, to tell an IUT whose stdout closed
// because it is exiting (a crash or an early exit) from one that closed
// stdout and lives on. On Linux the answer is exact: the kernel marks a
// process as exiting (PF_EXITING) before it closes its files, so a process
// whose exit closed stdout is marked by the time end of file is read. On
// other systems Ending waits up to 100 ms for the main process to end.
func (p *Proc) Ending() bool {
	select {
	case <-p.exited:
		return true
	default:
	}
	if known, ending := exitingNow(p.pid); known {
		return ending
	}
	select {
	case <-p.exited:
		return true
	case <-time.After(100 * time.Millisecond):
		return false
	}
}

// Stderr returns the last Config.StderrMax bytes of stderr and the total
// number of bytes the IUT wrote there.
func (p *Proc) Stderr() (last []byte, total int64) { return p.stderr.snapshot() }

// CloseStdin closes the IUT's stdin once every input line was written (or
// could not be). Safe to call more than once.
func (p *Proc) CloseStdin() {
	p.closeOne.Do(func() {
		close(p.closeIn)
		p.qmu.Lock()
		defer p.qmu.Unlock()
		if !p.writing && !p.inDone {
			// No writer: everything was written; the writer, when there
			// is one, closes stdin once it has written the rest.
			p.inDone = true
			p.inW.Close()
		}
	})
}

// Stop ends the IUT: it closes stdin and waits up to grace for the main
// process to exit, stdout to reach EOF and every other process of the IUT
// to end; then (where the system has signals) sends SIGTERM to every
// process of the IUT and waits up to killAfter for the same; then kills
// them all. Whatever happened, every process of the IUT is killed at the
// end, and on Linux the orphan sweep runs. Stop returns once the main
// process is reaped and stdout is closed; lines not yet read stay readable
// from Lines. Processes that outlived the main process are counted in
// [Proc.Leftovers]. Calls after the first only return the same Exit.
func (p *Proc) Stop(grace, killAfter time.Duration) Exit {
	p.stopOne.Do(func() { p.stop(grace, killAfter) })
	return p.Exit()
}

func (p *Proc) stop(grace, killAfter time.Duration) {
	p.CloseStdin()
	if !p.settled(grace) {
		if canTerm {
			p.signal("SIGTERM", sigTerm)
			if !p.settled(killAfter) {
				p.signal("SIGKILL", sigKill)
			}
		} else {
			p.signal("SIGKILL", sigKill)
		}
	}
	// The last word: nothing of the IUT survives Stop. Survivors were
	// counted as they were signalled; here nothing is left but processes
	// that ended meanwhile or that were killed with the main process.
	_ = p.ctl.signal(sigKill)
	<-p.exited
	p.ctl.drain(killAfter)
	for _, o := range p.ctl.sweep() {
		p.mu.Lock()
		if !p.survivors[o.pid] {
			p.survivors[o.pid] = true
			if !o.attributed {
				p.unattributed++
			}
		}
		p.mu.Unlock()
	}
	p.mu.Lock()
	// Containment is handed on only when nothing outlived the IUT and its
	// main process was not killed by a signal (an IUT running as root
	// may kill its own cgroup, which some kernels then hold against
	// every later process started into it).
	clean := len(p.survivors) == 0 && p.exit.Signal == ""
	p.mu.Unlock()
	p.ctl.release(clean)
	select {
	case <-p.readDone:
	case <-time.After(killAfter):
		// A process that no containment reaches still holds stdout: stop
		// reading it.
		p.stdoutR.Close()
		<-p.readDone
	}
	select {
	case <-p.stderrDone:
	case <-time.After(killAfter):
		// stderr is held open outside the IUT's containment; keep what
		// arrived.
	}
}

// Exhaustion returns which of its limits the IUT reached; valid after
// Stop.
func (p *Proc) Exhaustion() Exhaustion { return p.ctl.exhaustion() }

// Leftovers returns what outlived the main process; valid after Stop.
func (p *Proc) Leftovers() Leftovers {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Leftovers{Count: len(p.survivors), Unattributed: p.unattributed}
}

// settled waits up to d for the main process to be reaped, stdout to reach
// EOF and every other process of the IUT to end.
func (p *Proc) settled(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for _, ch := range []<-chan struct{}{p.exited, p.readDone} {
		select {
		case <-ch:
		case <-t.C:
			return false
		}
	}
	for pause := time.Millisecond; !p.ctl.empty(); pause = min(2*pause, 25*time.Millisecond) {
		select {
		case <-time.After(pause):
		case <-t.C:
			return false
		}
	}
	return true
}

// signal sends sig to every process of the IUT. name is recorded as how
// the main process was stopped if it still runs; if it has ended, the
// processes about to be signalled are survivors.
func (p *Proc) signal(name string, sig stopSignal) {
	p.mu.Lock()
	select {
	case <-p.exited:
	default:
		p.stopped = name
	}
	p.mu.Unlock()
	p.countSurvivors()
	_ = p.ctl.signal(sig)
}

// countSurvivors records the IUT's live processes as survivors when its
// main process has ended.
func (p *Proc) countSurvivors() {
	select {
	case <-p.exited:
	default:
		return
	}
	members := p.ctl.members()
	p.mu.Lock()
	for _, pid := range members {
		p.survivors[pid] = true
	}
	p.mu.Unlock()
}

// stopSignal is a request to end processes: politely or at once.
type stopSignal int

const (
	sigTerm stopSignal = iota
	sigKill
)

// orphan is a process the sweep killed.
type orphan struct {
	pid int
	// attributed: it certainly belonged to this IUT.
	attributed bool
}

// TokenVar is the environment variable that carries Config.Token.
const TokenVar = "CONFORM_IUT_TOKEN"

// copySmall copies r to w until EOF or an error, through a buffer of 512
// bytes that grows to readSmall once a read fills it (io.Copy from an
// *os.File allocates 32 KiB each time; most IUTs write nothing on stderr).
func copySmall(w io.Writer, r io.Reader) {
	buf := make([]byte, 512)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if n == len(buf) && len(buf) < readSmall {
				buf = make([]byte, readSmall)
			}
		}
		if err != nil {
			return
		}
	}
}

// tail keeps the last max bytes written to it and counts all of them.
type tail struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int64
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(b))
	if len(b) >= t.max {
		t.buf = append(t.buf[:0], b[len(b)-t.max:]...)
		return len(b), nil
	}
	if over := len(t.buf) + len(b) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, b...)
	return len(b), nil
}

func (t *tail) snapshot() ([]byte, int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf...), t.total
}
