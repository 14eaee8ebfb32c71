// Package proc runs one implementation under test (IUT) as a child process
// and carries JSON lines over its stdin and stdout.
//
// The child runs in its own process group with an explicit environment and
// working directory. Exactly one goroutine writes its stdin; stdout is read
// line by line with an explicit maximum line size; stderr goes into a bounded
// tail buffer. Stop closes stdin, waits a grace period, then sends SIGTERM and
// SIGKILL to the whole group, so no process of the IUT's group survives.
package proc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Config says how to start the IUT.
type Config struct {
	// Argv is the command and its arguments; never run through a shell.
	Argv []string
	// Env is the child's whole environment ("K=V"); nil means empty.
	Env []string
	// Dir is the working directory; "" means the caller's.
	Dir string
	// MaxLine is the largest stdout line delivered, in bytes, without its LF.
	// A longer line is reported with Err [ErrLineTooLong] and discarded.
	// Zero means 1 MiB.
	MaxLine int
	// StderrMax is how many bytes of stderr are kept (the last ones). Zero
	// means 64 KiB.
	StderrMax int
}

// ErrLineTooLong marks a stdout line longer than Config.MaxLine.
var ErrLineTooLong = errors.New("line too long")

// Line is one line of the IUT's stdout.
type Line struct {
	// Data is the line without its LF (nil when Err is ErrLineTooLong).
	Data []byte
	// Size is the line's full length in bytes.
	Size int
	// Partial is true for a last line that ended without LF.
	Partial bool
	// Err is ErrLineTooLong or nil.
	Err error
	// At is the time since start.
	At time.Duration
}

// Exit describes how the IUT ended.
type Exit struct {
	// Code is the exit status (0-255), or -1 when killed by a signal.
	Code int `json:"code"`
	// Signal names the signal that killed it ("SIGKILL"), or "".
	Signal string `json:"signal,omitempty"`
	// Stopped is the signal conform sent to end it ("SIGTERM", "SIGKILL"),
	// or "" when it ended by itself.
	Stopped string `json:"stopped,omitempty"`
}

// Proc is a running IUT.
type Proc struct {
	cmd      *exec.Cmd
	start    time.Time
	lines    chan Line
	stderr   *tail
	closeIn  chan struct{}
	closeOne sync.Once
	exited   chan struct{}
	exit     Exit
	waitErr  error
	stdoutR  *os.File
	readDone chan struct{}
	// stderrDone is closed once stderr reached EOF and is fully copied.
	stderrDone chan struct{}
	mu         sync.Mutex
	stopped    string
}

// Start starts cfg.Argv and writes input to its stdin, each element followed
// by nothing (callers include the LF). Stdin stays open until [Proc.CloseStdin]
// or [Proc.Stop]. Cancelling ctx kills the process group. Errors: the command
// could not be started (not found, not executable).
func Start(ctx context.Context, cfg Config, input [][]byte) (*Proc, error) {
	if len(cfg.Argv) == 0 {
		return nil, errors.New("empty command")
	}
	if cfg.MaxLine <= 0 {
		cfg.MaxLine = 1 << 20
	}
	if cfg.StderrMax <= 0 {
		cfg.StderrMax = 64 << 10
	}
	cmd := exec.CommandContext(ctx, cfg.Argv[0], cfg.Argv[1:]...)
	cmd.Env = cfg.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Dir = cfg.Dir
	// Own process group (killed as a whole); SIGKILL to the leader if
	// conform itself dies without cleaning up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return killGroup(cmd, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	p := &Proc{
		cmd:        cmd,
		lines:      make(chan Line, 64),
		stderr:     &tail{max: cfg.StderrMax},
		closeIn:    make(chan struct{}),
		exited:     make(chan struct{}),
		stdoutR:    outR,
		readDone:   make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	p.start = time.Now()
	err = cmd.Start()
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
	go p.write(inW, input)
	go p.readStdout(outR, cfg.MaxLine)
	go func() {
		_, _ = io.Copy(p.stderr, errR)
		errR.Close()
		close(p.stderrDone)
	}()
	go p.wait()
	return p, nil
}

// write is the one goroutine that writes stdin.
func (p *Proc) write(w *os.File, input [][]byte) {
	defer w.Close()
	for _, b := range input {
		if _, err := w.Write(b); err != nil {
			// The IUT closed stdin or died: the rest cannot be delivered.
			return
		}
	}
	select {
	case <-p.closeIn:
	case <-p.exited:
	}
}

func (p *Proc) readStdout(r *os.File, maxLine int) {
	defer close(p.lines)
	defer close(p.readDone)
	br := bufio.NewReaderSize(r, 64<<10)
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

func (p *Proc) wait() {
	err := p.cmd.Wait()
	st, _ := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	e := Exit{Code: p.cmd.ProcessState.ExitCode()}
	if st.Signaled() {
		e.Code = -1
		e.Signal = signalName(st.Signal())
	}
	p.mu.Lock()
	e.Stopped = p.stopped
	p.exit = e
	p.waitErr = err
	p.mu.Unlock()
	close(p.exited)
}

// Lines delivers stdout lines in order; it is closed at end of output (EOF
// from every process holding the pipe, or after [Proc.Stop]).
func (p *Proc) Lines() <-chan Line { return p.lines }

// Exited is closed once the IUT's main process has ended.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// Pid returns the IUT's process id (its process group id too).
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Exit returns how the main process ended; valid after Exited is closed.
func (p *Proc) Exit() Exit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit
}

// Stderr returns the last Config.StderrMax bytes of stderr and the total
// number of bytes the IUT wrote there.
func (p *Proc) Stderr() (last []byte, total int64) { return p.stderr.snapshot() }

// CloseStdin closes the IUT's stdin once every input line was written (or
// could not be). Safe to call more than once.
func (p *Proc) CloseStdin() { p.closeOne.Do(func() { close(p.closeIn) }) }

// Stop ends the IUT: it closes stdin, waits up to grace for the main process
// to exit and stdout to reach EOF, then sends SIGTERM to the process group,
// waits up to killAfter, and sends SIGKILL to the group. The group is always
// sent SIGKILL at the end so that no grandchild survives. Stop returns once
// the main process is reaped and stdout is closed; lines not yet read stay
// readable from Lines.
func (p *Proc) Stop(grace, killAfter time.Duration) Exit {
	p.CloseStdin()
	if !p.waitBoth(grace) {
		p.signal("SIGTERM", syscall.SIGTERM)
		if !p.waitBoth(killAfter) {
			p.signal("SIGKILL", syscall.SIGKILL)
		}
	}
	_ = killGroup(p.cmd, syscall.SIGKILL)
	<-p.exited
	select {
	case <-p.readDone:
	case <-time.After(killAfter):
		// A process outside the group (it called setsid) still holds
		// stdout: stop reading it.
		p.stdoutR.Close()
		<-p.readDone
	}
	select {
	case <-p.stderrDone:
	case <-time.After(killAfter):
		// stderr is held open outside the group; keep what arrived.
	}
	return p.Exit()
}

func (p *Proc) waitBoth(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for _, ch := range []<-chan struct{}{p.exited, p.readDone} {
		select {
		case <-ch:
		case <-t.C:
			return false
		}
	}
	return true
}

func (p *Proc) signal(name string, sig syscall.Signal) {
	p.mu.Lock()
	select {
	case <-p.exited:
	default:
		p.stopped = name
	}
	p.mu.Unlock()
	_ = killGroup(p.cmd, sig)
}

func killGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
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
