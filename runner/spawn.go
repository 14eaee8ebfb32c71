package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/conform-kit/conform/internal/double"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/suite"
)

// Finding codes of spawned mode (public API, like those in result.go).
const (
	// FindingHostArgv (note) records each argv the host started the agent
	// with, the version probe included.
	FindingHostArgv = "HOST_ARGV"
	// FindingAgentPrecondition (FAIL): the vector sends a request the CLI
	// sends only when the host started it a certain way, and this host did
	// not (the double's end record says which: for the control protocol,
	// can_use_tool needs --permission-prompt-tool stdio); the double
	// withheld the request, and the message names the precondition.
	FindingAgentPrecondition = "AGENT_PRECONDITION"
	// FindingAgentNotStarted (CRASH, or TIMEOUT when the host hung): the
	// host never started the agent for a session (perhaps only for its
	// version probe).
	FindingAgentNotStarted = "AGENT_NOT_STARTED"
	// FindingSessionEnded (PROTOCOL_ERROR): the agent double ended the
	// session at a host line the runner rejects too (the line's own
	// findings say what is wrong with it), with replies still awaited.
	FindingSessionEnded = "SESSION_ENDED"
)

// Spawn configures spawned mode (Config.Spawn): the IUT is started as
// usual, and it starts the peer the vectors play (the control protocol's
// agent, run by a host) as a child of its own. The runner writes, per
// vector, an executable wrapper named Name that runs Argv with the
// vector's plan, puts the wrapper's directory first on the IUT's PATH and,
// when Env is set, names the wrapper's path in that variable too.
type Spawn struct {
	// Argv is the argv prefix of the peer double, e.g. {"/path/conform",
	// "agent-double"}; the runner appends the plan's flags (see [Plan]),
	// "--" and the IUT's arguments to the peer.
	Argv []string
	// Name is the command the IUT looks for on its PATH, e.g. "claude".
	Name string
	// Env, when not empty, is the variable that also names the wrapper's
	// path, e.g. "CONFORM_AGENT".
	Env string
}

// where says, for messages, how the IUT finds the double.
func (s *Spawn) where() string {
	if s.Env == "" {
		return fmt.Sprintf("it finds the agent as %s on its PATH", s.Name)
	}
	return fmt.Sprintf("it finds the agent as %s on its PATH or in %s", s.Name, s.Env)
}

// Plan is what the agent double plays in spawned mode, written as JSON to a
// file whose path the double gets with --plan:
//
//	{"send":["<base64 line without LF>",...],"await":[{"before":1,"id":<id>}],
//	 "replies":[<correlation id>,...],"timeout_ms":10000,"deadline_unix_ms":1796000000000}
//
// The double answers the host's own requests (for the control protocol,
// initialize, then the user turn), writes each send line to the host
// (Send[Before] only once the host has replied to Await's id), waits for a
// reply to every correlation id in Replies until a margin before
// DeadlineUnixMS (the wall-clock time, Unix milliseconds, at which the
// runner gives up on the host: TimeoutMS after the plan is written, just
// before the host starts), then ends the session, its end record written
// before that time however late the host started the double. A plan without
// DeadlineUnixMS counts TimeoutMS from the double's own start.
// It appends every line the host wrote, except the host's own control
// requests and user turns, to the --transcript file (one line each, as
// received), and those to the --observed file; each argv it was started
// with to the --argv file (JSON array per line), and how the session ended
// to the --end file (internal/double.Stats as JSON). See docs/double.md.
type Plan struct {
	Send      []string           `json:"send"`
	Await     []double.PlanAwait `json:"await,omitempty"`
	Replies   []any              `json:"replies"`
	TimeoutMS int64              `json:"timeout_ms"`
	// DeadlineUnixMS is when the runner's timer for the vector fires, in
	// Unix milliseconds (0: none given).
	DeadlineUnixMS int64 `json:"deadline_unix_ms,omitempty"`
}

// spawnFiles are the paths of one spawned vector, all in the IUT's
// directory: the wrapper (bin/<Spawn.Name>, also in Spawn.Env), the plan and
// the double's records.
type spawnFiles struct {
	bin, agent, plan, transcript, observed, argv, end string
}

// writeSpawn writes the plan and an executable wrapper bin/<Spawn.Name>
// that starts the peer double (Spawn.Argv) with the plan's paths, then "--"
// and the host's arguments. Only paths go through the wrapper's shell
// line, each single-quoted; vector content stays in the plan file. The
// plan is written as it is encoded, a line at a time (a generated line
// piece by piece), so it is never held whole.
func (p *plan) writeSpawn(dir string, v *suite.Vector, l *loaded) (*spawnFiles, error) {
	sf := &spawnFiles{
		bin:        filepath.Join(dir, "bin"),
		plan:       filepath.Join(dir, "plan.json"),
		transcript: filepath.Join(dir, "transcript.jsonl"),
		observed:   filepath.Join(dir, "observed.jsonl"),
		argv:       filepath.Join(dir, "argv.jsonl"),
		end:        filepath.Join(dir, "end.json"),
	}
	sf.agent = filepath.Join(sf.bin, p.cfg.Spawn.Name)
	for _, g := range l.gates {
		if g.match != nil {
			// The double opens gates by the replies it reads; it has no
			// predicates.
			return nil, kiterr.New(kiterr.VectorInvalid, "%s: spawned mode cannot play an await of a frame match (%s)", v.Path, g.key)
		}
	}
	// The runner's timer starts once the host has started, after this:
	// the double's deadline comes first.
	deadline := time.Now().Add(p.cfg.Timeout).UnixMilli()
	if err := writePlan(sf.plan, v.Expect.Replies, p.cfg.Timeout.Milliseconds(), deadline, l.lines, l.gates); err != nil {
		return nil, kiterr.Wrap(kiterr.IO, err, "write plan")
	}
	if err := os.Mkdir(sf.bin, 0o700); err != nil {
		return nil, kiterr.Wrap(kiterr.IO, err, "make agent directory")
	}
	argv := append(append([]string{}, p.cfg.Spawn.Argv...), "--plan", sf.plan, "--transcript", sf.transcript,
		"--observed", sf.observed, "--argv", sf.argv, "--end", sf.end, "--max-line", fmt.Sprint(p.cfg.MaxLine), "--")
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	script := "#!/bin/sh\nexec " + strings.Join(quoted, " ") + ` "$@"` + "\n"
	if err := writeExecutable(sf.agent, []byte(script)); err != nil {
		return nil, kiterr.Wrap(kiterr.IO, err, "write agent wrapper")
	}
	if o := p.cfg.Isolate; o != nil {
		// The isolated host runs the wrapper, and the double reads the plan.
		for _, f := range []string{sf.plan, sf.agent} {
			if err := os.Chown(f, int(o.UID), int(o.GID)); err != nil {
				return nil, kiterr.Wrap(kiterr.IO, err, "give the agent double's files to the isolated user")
			}
		}
	}
	return sf, nil
}

// writeExecutable writes the executable file name (mode 0700) with
// syscall.ForkLock held for reading, so that no process started meanwhile
// inherits its open descriptor: os/exec forks under that lock, and a child
// of another vector (-j above 1) that held the descriptor until its own
// execve made this file's execution fail with ETXTBSY, "text file busy"
// (golang/go#22315), which a host reports as an agent it could not start
// (TestWriteExecutableRaceFree).
func writeExecutable(name string, data []byte) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return os.WriteFile(name, data, 0o700)
}

// writePlan writes the [Plan] of lines to the file name: the JSON that
// json.Marshal gives for it, encoded as it is written. Each gate becomes
// an await entry, and its correlation id one of the replies the double waits
// for.
func writePlan(name string, replies []any, timeoutMS, deadlineUnixMS int64, lines []sendLine, gates []gate) error {
	replies = slices.Clip(replies)
	if replies == nil {
		replies = []any{}
	}
	for _, g := range gates {
		replies = append(replies, json.RawMessage(g.key))
	}
	rep, err := json.Marshal(replies)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	w.WriteString(`{"send":`)
	if len(lines) == 0 {
		w.WriteString("null")
	}
	for i, ln := range lines {
		if i == 0 {
			w.WriteByte('[')
		} else {
			w.WriteByte(',')
		}
		w.WriteByte('"')
		enc := base64.NewEncoder(base64.StdEncoding, w)
		for j, c := range ln {
			if j == len(ln)-1 {
				c = bytes.TrimSuffix(c, []byte("\n"))
			}
			enc.Write(c)
		}
		enc.Close()
		w.WriteByte('"')
	}
	if len(lines) > 0 {
		w.WriteByte(']')
	}
	for i, g := range gates {
		if i == 0 {
			w.WriteString(`,"await":[`)
		} else {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `{"before":%d,"id":%s}`, g.before, g.key)
	}
	if len(gates) > 0 {
		w.WriteByte(']')
	}
	fmt.Fprintf(w, `,"replies":%s,"timeout_ms":%d`, rep, timeoutMS)
	if deadlineUnixMS != 0 {
		fmt.Fprintf(w, `,"deadline_unix_ms":%d`, deadlineUnixMS)
	}
	w.WriteByte('}')
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// environ returns env with the wrapper's directory first on PATH, so an
// IUT that looks for sp.Name on its PATH finds the double, and sp.Env (when
// set) naming the wrapper.
func (sf *spawnFiles) environ(env []string, sp *Spawn) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + sf.bin + string(os.PathListSeparator) + path
		}
		out = append(out, kv)
	}
	if sp.Env == "" {
		return out
	}
	return append(out, sp.Env+"="+sf.agent)
}

// watch returns a channel closed once the double has written its end
// record (polled every 10 ms, until ctx ends), so the runner stops waiting
// for the host as soon as the session is over.
func (sf *spawnFiles) watch(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			if _, err := os.Stat(sf.end); err == nil {
				close(done)
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return done
}

// replay feeds the transcript to handle as if the host had written it on
// stdout, and records the host's argv and its own requests as notes.
func (sf *spawnFiles) replay(o *outcome, handle func(proc.Line), maxLine int) {
	eachLine(sf.argv, recordLineMax, func(line []byte, _ int) {
		o.add(FindingHostArgv, "", "the host started the agent with %s", quote(line))
	})
	eachLine(sf.transcript, maxLine, func(line []byte, size int) {
		if size > maxLine {
			handle(proc.Line{Size: size, Err: proc.ErrLineTooLong})
			return
		}
		handle(proc.Line{Data: line, Size: size})
	})
	eachLine(sf.observed, recordLineMax, func(line []byte, _ int) {
		o.add(FindingHostSent, "", "the host sent the agent %s", quote(line))
	})
}

// readEnd returns the double's end record, or the record it wrote when
// the session's outcome was decided (double.DecidedSuffix) when the host
// killed it before it could write the end record, or nil when the double
// never ran a session (the host did not start it, or only for --version).
func (sf *spawnFiles) readEnd() *double.Stats {
	if st := readStats(sf.end); st != nil {
		return st
	}
	return readStats(sf.end + double.DecidedSuffix)
}

// readStats reads a record of the double (internal/double.Stats as JSON),
// or returns nil when there is none or it is no such record.
func readStats(path string) *double.Stats {
	f, err := openRecord(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	// The record is small; the IUT could write a large one where it is.
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil
	}
	var st double.Stats
	if json.Unmarshal(b, &st) != nil {
		return nil
	}
	return &st
}

// judge adds the findings of a spawned session: what the double's end
// record says about the session, and how the host ended. pending are the
// expected replies the runner did not see; timedOut is set when the host
// neither ended nor let the double finish within the timeout.
func (sf *spawnFiles) judge(o *outcome, sp *Spawn, ex proc.Exit, timedOut bool, pending []string, timeout time.Duration) {
	end := sf.readEnd()
	if end == nil {
		starts, sessions := 0, 0
		eachLine(sf.argv, recordLineMax, func(line []byte, _ int) {
			starts++
			var args []string
			if json.Unmarshal(line, &args) != nil || !double.IsVersionProbe(args) {
				sessions++
			}
		})
		how := "never started the agent"
		switch {
		case sessions > 0:
			// The double writes its end record before the runner's timer
			// fires (Plan.DeadlineUnixMS) unless it was stopped or stuck.
			how = "started the agent for a session that never ended (the agent double wrote no end record)"
		case starts > 0:
			how = fmt.Sprintf("started the agent %d time(s), each for --version only, never for a session", starts)
		}
		if timedOut {
			o.add(FindingAgentNotStarted, Timeout, "the host %s within %s (%s)", how, timeout, sp.where())
			return
		}
		o.add(FindingAgentNotStarted, Crash, "the host %s and exited (%s) (%s)", how, exitText(ex), sp.where())
		return
	}
	if len(end.Withheld) > 0 {
		why := end.WithheldWhy
		if why == "" {
			why = "the double withheld them"
		}
		o.add(FindingAgentPrecondition, Fail, "%s (requests %s; see HOST_ARGV)", why, strings.Join(end.Withheld, ", "))
	}
	if end.AwaitUnmet != "" {
		o.add(FindingAwaitUnmet, "", awaitUnmet, end.AwaitUnmet)
	}
	// Requests the double did not write get no reply to miss.
	notWritten := slices.Concat(end.Withheld, end.Unsent)
	pending = slices.DeleteFunc(slices.Clone(pending), func(k string) bool { return slices.Contains(notWritten, k) })
	missing := strings.Join(pending, ", ")
	switch {
	case end.End == double.EndMalformed:
		// The line's own findings (FRAME_NOT_JSON, FRAME_SCHEMA, ...) came
		// from the transcript; the host's exit is a consequence.
		if len(pending) > 0 {
			o.add(FindingSessionEnded, ProtocolError, "the agent ended the session at %s, as the CLI ends it on a line it cannot parse; no reply to %s", end.Detail, missing)
		} else {
			o.add(FindingSessionEnded, ProtocolError, "the agent ended the session at %s, as the CLI ends it on a line it cannot parse", end.Detail)
		}
		if ex.Code != 0 && ex.Stopped == "" {
			o.add(FindingExitNonzero, "", "the host then exited with status %d", ex.Code)
		}
		return
	case end.End == double.EndHostClosed && len(pending) > 0:
		o.add(FindingExitEarly, Crash, "the host ended the session (closed the agent's stdin; %s) before replying to %s", exitText(ex), missing)
		return
	case end.End == double.EndTimeout && len(pending) > 0:
		o.add(FindingReplyMissing, Timeout, "the host never answered %s within %s", missing, timeout)
		return
	case len(pending) > 0:
		// The double saw a reply the runner did not count (it names a
		// request by another spelling of its id): the findings of the
		// reply's line say why.
		o.add(FindingReplyMissing, ProtocolError, "no valid reply to %s", missing)
	}
	switch {
	case timedOut:
		o.add(FindingExitMissing, Timeout, "the host did not end within %s after the agent double finished", timeout)
	case ex.Signal != "" && ex.Stopped == "":
		o.add(FindingKilledBySignal, Crash, "the host was killed by %s", ex.Signal)
	case ex.Code != 0 && ex.Stopped == "":
		o.add(FindingExitNonzero, Crash, "the host exited with status %d", ex.Code)
	case ex.Stopped != "":
		o.add(FindingLingered, "", "the host did not exit after the agent ended; conform sent %s", ex.Stopped)
	}
}

// exitText says how a process ended, for messages.
func exitText(ex proc.Exit) string {
	switch {
	case ex.Stopped != "":
		return "stopped by conform with " + ex.Stopped
	case ex.Signal != "":
		return "killed by " + ex.Signal
	}
	return fmt.Sprintf("exit status %d", ex.Code)
}

// openRecord opens a record file of the double in the IUT's directory, if
// it is a regular file: the IUT may have put anything at its path (a FIFO
// would block the open). It is called once every process of the IUT has
// ended, so what it checks does not change before it opens.
func openRecord(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return os.Open(path)
}

// recordLineMax bounds each line read back from the double's records
// (argv, observed), in bytes: they are quoted in notes at 200 bytes.
const recordLineMax = 64 << 10

// eachLine calls fn with each line of the file at path, without its LF,
// and the line's whole length. A line longer than max bytes is given as
// its first max+1 bytes (so a caller can tell it was longer) and the rest
// is skipped: the files are in the IUT's directory, where the IUT may
// write anything, so nothing read from them is unbounded.
func eachLine(path string, max int, fn func(line []byte, size int)) {
	f, err := openRecord(path)
	if err != nil {
		return // no file: the double never started or saw nothing
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var line []byte
	size := 0
	for {
		chunk, err := br.ReadSlice('\n')
		size += len(chunk)
		if room := max + 1 - len(line); room > 0 {
			line = append(line, chunk[:min(len(chunk), room)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if size > 0 {
			if err == nil {
				size-- // the LF, which line holds when the line fits
				if size <= max {
					line = line[:len(line)-1]
				}
			}
			fn(line, size)
		}
		if err != nil {
			return
		}
		line, size = nil, 0
	}
}
