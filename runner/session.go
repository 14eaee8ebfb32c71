package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/envelope"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/normalize"
	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/suite"
)

// session is one vector run against one fresh IUT process: what the runner
// sent and expects, what came back, and the steps that drive it (see
// [plan.session]).
type session struct {
	p *plan
	l *loaded
	v *suite.Vector
	o *outcome

	// sent tracks the requests written (and the ids the vector expects a
	// reply with that no request carries), by the RFC 8785 text of their
	// correlation id; expected holds the ids that must get a reply.
	sent     map[string]*request
	expected map[string]bool
	// mustExit: the IUT must end by itself. mayExit: it must either
	// answer every expected reply or end by itself; the summary records
	// which.
	mustExit, mayExit bool
	// afterInput is what the IUT does once stdin closes
	// (suite.AfterInput*).
	afterInput string

	home, work, token string
	// reuse turns false when the IUT's directories must not be handed on.
	reuse bool

	spawned bool
	sp      *spawnFiles
	pr      *proc.Proc
	// next is the first gate (await item) not yet opened: the lines after
	// it are written once its reply was read.
	next int
	// open is true while stdin is open (peer replies can be written).
	open bool

	sum       *summarizer
	nlines    int
	overLimit bool
	// seen counts the frames judged (kept or tolerated), so that order
	// constraints compare positions.
	seen int
	// tolerated counts the frames each tolerate rule allowed (version
	// rules first, then the vector's).
	tolerated []int
	// orderAt is, per match element of expect.order, the position (from
	// 1) of the first frame that matched it; 0 while none did.
	orderAt []int
	// framed is, per gate, whether the IUT has written a frame its match
	// holds for (gates that await a reply are never set).
	framed []bool

	timedOut, exited, eof bool
	start                 time.Time
	// starting: the session holds a slot of the start gate (plan.starts)
	// until the IUT's first stdout line or the vector's end.
	starting bool
	// quiet watches the IUT's silence while stdin is open; quietEnded is
	// set when the quiet bound, not the timeout, ended the wait (timedOut
	// is set too: the findings are a timeout's). firstLine is when the IUT
	// wrote its first line and closedAt when stdin closed, both counted
	// from its start (firstLine 0: none yet).
	quiet               quietWait
	quietEnded          bool
	firstLine, closedAt time.Duration
	// bindReplies holds the replies (as read) whose values later frames
	// bind (loaded.bindIDs), by the RFC 8785 text of their id.
	bindReplies map[string]any
	// bindFrames holds, per loaded.bindMatches, the first frame the IUT
	// wrote that it holds for (nil while none).
	bindFrames []any
	// written is how many send lines have been written (or left out);
	// held are the scripted replies waiting for send line i (peer rules'
	// after), by i.
	written int
	held    map[int][][]byte
	// consistent is, per loaded.consistent rule, the value of its first
	// frame (set: seen), and whether it was reported broken.
	consistent []consistentState
	// pendingAtBreak are the expected replies missing when stdin closed;
	// earlyLines the lines read by then.
	pendingAtBreak []string
	earlyLines     int
}

// request is one request the runner sent, or an id the vector expects a
// reply with although no request carries it.
type request struct {
	method  string
	replies int
	// first is the position (from 1) of its first reply among the frames
	// judged; 0 while it has none.
	first int
}

// session runs one vector against a fresh IUT process. Its error is
// IUT_START or IO only; everything the IUT does is in the outcome. The
// steps: begin (what is expected), prepare (directories, input files,
// environment, argv), start, converse (write, read, answer, open gates
// until every expected reply came or the IUT ended or the time is up),
// finish (close stdin, read the rest, stop), judge (how it ended) and
// summarize.
func (p *plan) session(ctx context.Context, l *loaded) (*outcome, error) {
	s := p.begin(l)
	if ctx.Err() != nil {
		s.o.notRun = true
		return s.o, nil
	}
	home, work, token, err := p.dirs.get()
	if err != nil {
		return nil, err
	}
	s.home, s.work, s.token, s.reuse = home, work, token, true
	// Deferred, so it runs after the IUT was stopped and its orphans
	// killed.
	defer func() {
		if err := p.dirs.put(s.home, s.reuse); err != nil {
			s.o.add(FindingIUTDirLeft, "", "%v", err)
		}
	}()
	argv, env, err := s.prepare()
	if err != nil {
		return nil, err
	}
	// The vector's clock starts at exec, once a start slot is free.
	if !p.starts.enter(ctx) {
		s.o.notRun = true
		return s.o, nil
	}
	s.starting = true
	defer s.started()
	if err := s.startIUT(ctx, argv, env); err != nil {
		if ctx.Err() != nil {
			// Interrupted while it was started: not a start failure.
			s.o.notRun = true
			return s.o, nil
		}
		return nil, err
	}
	s.converse(ctx)
	s.finish()
	s.o.elapsed = time.Since(s.start)
	s.o.stderr, _ = s.pr.Stderr()
	if ctx.Err() != nil {
		s.o.notRun = true
		return s.o, nil
	}
	s.judge()
	s.summarize()
	return s.o, nil
}

// started gives the session's start slot back, once.
func (s *session) started() {
	if s.starting {
		s.starting = false
		s.p.starts.leave()
	}
}

// begin sets up what the session expects of the IUT.
func (p *plan) begin(l *loaded) *session {
	v := l.v
	s := &session{p: p, l: l, v: v, o: &outcome{vector: v, framing: p.env},
		sent: map[string]*request{}, expected: map[string]bool{},
		spawned: p.cfg.Spawn != nil, afterInput: p.ver.AfterInput,
		tolerated: make([]int, len(p.tolerate)+len(l.tolerate)), orderAt: make([]int, len(l.orderMatches)),
		framed: make([]bool, len(l.gates)), bindFrames: make([]any, len(l.bindMatches)),
		consistent: make([]consistentState, len(l.consistent))}
	if v.Expect.AfterInput != "" {
		s.afterInput = v.Expect.AfterInput
	}
	for _, id := range v.Expect.Replies {
		s.expected[envelope.Key(id)] = true
	}
	// A reply the vector waits for (an await item) is required too.
	for _, g := range l.gates {
		if g.match == nil {
			s.expected[g.key] = true
		}
	}
	for _, k := range l.orphans {
		s.sent[k] = &request{}
	}
	s.mustExit = v.Expect.Exit != "" && len(v.Expect.Replies) == 0
	s.mayExit = v.Expect.Exit != "" && !s.mustExit
	if s.spawned {
		s.next = len(l.gates) // the double opens them
	}
	return s
}

// prepare writes the vector's input files into the IUT's working
// directory and returns its argv and environment: HOME (and TMPDIR) is a
// fresh directory, or one a previous vector left exactly as made (see
// iutDirs); the working directory is its empty subdirectory work, so what
// the IUT writes under HOME is not in its working directory. In spawned
// mode it writes the agent double's plan too.
func (s *session) prepare() (argv, env []string, err error) {
	p, v := s.p, s.v
	if err := s.writeFiles(); err != nil {
		return nil, nil, err
	}
	env = p.iutEnv(s.home)
	// The suite version and role under test: an IUT that speaks several
	// versions may use them to choose how to read frames that carry no
	// version. See docs/running.md "The steps of a run".
	env = append(env, fmt.Sprintf("CONFORM_PROTOCOL_VERSION=%d", p.ver.Version), "CONFORM_ROLE="+v.Role)
	if v.Policy != nil {
		pol, err := canon.Canonical(v.Policy)
		if err != nil {
			return nil, nil, kiterr.Wrap(kiterr.VectorInvalid, err, "%s: policy", v.Path)
		}
		env = append(env, "CONFORM_POLICY="+string(pol))
	}
	for _, k := range sortedKeys(v.Env) {
		val, err := s.expand(v.Env[k])
		if err != nil {
			return nil, nil, err
		}
		env = setEnv(env, k, val)
	}
	argv = p.cfg.Command
	if len(v.Args) > 0 {
		argv = append([]string(nil), argv...)
		for _, a := range v.Args {
			x, err := s.expand(a)
			if err != nil {
				return nil, nil, err
			}
			argv = append(argv, x)
		}
	}
	// Spawned mode: the IUT starts its peer itself (as the Agent SDKs
	// start the agent); it is given a double that plays the vector's
	// frames and records what the IUT answers in a transcript file.
	if s.spawned {
		for _, r := range s.l.reqs {
			track(s.sent, r)
		}
		// Frames that name ${work} are built now: the double plays
		// lines as they are.
		if len(s.l.binds) > 0 {
			l := *s.l
			l.lines = slices.Clone(l.lines)
			for i, b := range l.binds {
				if len(b.binds) == 0 {
					l.lines[i], _ = s.bound(b)
				}
			}
			s.l = &l
		}
		if s.sp, err = p.writeSpawn(s.home, v, s.l); err != nil {
			return nil, nil, err
		}
		env = s.sp.environ(env, p.cfg.Spawn)
	}
	return argv, env, nil
}

// writeFiles writes the vector's files, and a copy of every suite file its
// args and env name with ${suite:PATH} (at PATH), into the working
// directory. Errors: IO, VECTOR_INVALID (a suite file that cannot be read
// or whose digest does not match).
func (s *session) writeFiles() error {
	v := s.v
	if len(v.Files) == 0 && !s.l.suiteRefs {
		return nil
	}
	write := func(rel string, data []byte) error {
		dst := filepath.Join(s.work, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return kiterr.Wrap(kiterr.IO, err, "%s: make the directory of %s", v.Path, rel)
		}
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			return kiterr.Wrap(kiterr.IO, err, "%s: write %s", v.Path, rel)
		}
		if o := s.p.cfg.Isolate; o != nil {
			for d := dst; d != s.work; d = filepath.Dir(d) {
				if err := os.Chown(d, int(o.UID), int(o.GID)); err != nil {
					return kiterr.Wrap(kiterr.IO, err, "give %s to the isolated user", rel)
				}
			}
		}
		return nil
	}
	for _, f := range v.Files {
		data := []byte(nil)
		if f.Text != nil {
			data = []byte(*f.Text)
		} else {
			var err error
			if data, err = s.p.cfg.Suite.ReadFile(f.From); err != nil {
				return kiterr.Wrap(kiterr.VectorInvalid, err, "%s: files", v.Path)
			}
		}
		if err := write(f.Path, data); err != nil {
			return err
		}
	}
	for _, ref := range s.l.refs {
		data, err := s.p.cfg.Suite.ReadFile(ref)
		if err != nil {
			return kiterr.Wrap(kiterr.VectorInvalid, err, "%s: ${suite:%s}", v.Path, ref)
		}
		if err := write(ref, data); err != nil {
			return err
		}
	}
	return nil
}

// expand replaces ${var:NAME}, ${work} and ${suite:PATH} in an argument
// or environment value: the var's text (suite.ExpandString), the working
// directory, and the copy of suite file PATH in it. Errors:
// VECTOR_VAR_UNKNOWN.
func (s *session) expand(x string) (string, error) {
	x, err := suite.ExpandString(x, s.p.vars, s.work)
	if err != nil {
		return "", kiterr.Wrap(kiterr.CodeOf(err), err, "%s", s.v.Path)
	}
	for _, ref := range suite.SuiteRefs(x) {
		x = strings.ReplaceAll(x, "${suite:"+ref+"}", filepath.Join(s.work, filepath.FromSlash(ref)))
	}
	return x, nil
}

// setEnv sets k=v in env (sorted KEY=VALUE entries), replacing an entry
// of the same key.
func setEnv(env []string, k, v string) []string {
	for i, kv := range env {
		if strings.HasPrefix(kv, k+"=") {
			env[i] = k + "=" + v
			return env
		}
	}
	env = append(env, k+"="+v)
	sort.Strings(env)
	return env
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// startIUT starts the IUT with the lines up to the first gate as its
// input. Errors: IUT_START.
func (s *session) startIUT(ctx context.Context, argv, env []string) error {
	p := s.p
	var input [][]byte
	if !s.spawned {
		input = s.segment(0)
	}
	s.start = time.Now()
	pr, err := proc.Start(ctx, proc.Config{
		Argv: argv, Env: env, Dir: s.work, Framing: p.framing,
		MaxLine: p.cfg.MaxLine, StderrMax: p.cfg.StderrMax,
		// A token unique to this IUT, inherited by its descendants, so
		// that a process that left its group can be attributed.
		Token: s.token, Isolate: p.cfg.Isolate, Pool: p.procs,
		Limits: p.limits(), Home: s.home,
	}, input)
	if err != nil {
		return kiterr.Wrap(kiterr.IUTStart, err, "start %q", strings.Join(argv, " "))
	}
	s.pr, s.open = pr, true
	// Each kept frame is normalized and canonicalized as it comes; only
	// its canonical bytes are kept, within the vector's budget.
	s.sum = &summarizer{rules: s.l.rules, matched: make([]bool, len(s.l.rules)),
		scope: normalize.Scope{UserData: s.l.conf.UserDataPatterns(), General: len(p.ver.Normalize), Shapes: p.cfg.Shapes},
		room:  p.cfg.frameBudget()}
	if s.l.work {
		s.sum.workDir = s.work
	}
	return nil
}

// handle judges one stdout line of the IUT (or of the transcript, in
// spawned mode) and keeps what the summary needs.
func (s *session) handle(ln proc.Line) {
	s.nlines++
	if s.nlines == 1 {
		s.firstLine = max(time.Since(s.start), time.Nanosecond)
		s.started()
	}
	if s.nlines > s.p.cfg.MaxFrames {
		if !s.overLimit {
			s.overLimit = true
			s.o.add(FindingFrameLimit, ProtocolError, "the IUT wrote more than %d lines for one vector", s.p.cfg.MaxFrames)
		}
		return
	}
	if s.o.overBudget || !s.sum.admit(s.o, ln.Data, s.p.cfg.MaxVectorBytes) {
		return
	}
	if f := s.frame(ln); f != nil {
		s.sum.add(s.o, f, s.p.cfg.MaxVectorBytes)
	}
}

// openGates sends each segment whose awaited reply or frame has been read.
func (s *session) openGates() {
	for ; s.next < len(s.l.gates); s.next++ {
		if g := s.l.gates[s.next]; g.match != nil {
			if !s.framed[s.next] {
				return
			}
		} else if r := s.sent[g.key]; r == nil || r.replies == 0 {
			return
		}
		s.send(s.segment(s.next + 1))
	}
}

// send writes lines to the IUT's stdin (after those already queued); a line
// sent is activity for the quiet bound, as the IUT has new input to answer.
func (s *session) send(lines [][]byte) {
	s.quiet.active(time.Now(), false, nil)
	s.pr.Send(lines)
}

// stderrBytes is how many bytes the IUT has written to stderr.
func (s *session) stderrBytes() int64 {
	_, n := s.pr.Stderr()
	return n
}

// done reports whether every expected reply came (and every gate is open),
// so stdin can be closed.
func (s *session) done() bool {
	if s.mustExit || s.spawned || s.next < len(s.l.gates) {
		return false
	}
	for k := range s.expected {
		if r := s.sent[k]; r == nil || r.replies == 0 {
			return false
		}
	}
	return true
}

// converse reads the IUT's lines while stdin is open, answering its
// requests and opening gates, until every expected reply came, the IUT
// ended, the vector's limits were met, the time is up or ctx ends.
func (s *session) converse(ctx context.Context) {
	timer := time.NewTimer(s.p.cfg.Timeout)
	defer timer.Stop()
	// Once the IUT wrote its first line, a wait in which it writes nothing
	// for the quiet bound ends as the timeout would (quiet.go).
	s.quiet.bound = s.quietBound()
	defer s.quiet.stop()
	var agentDone <-chan struct{} // closed when the agent double's session is over
	if s.spawned {
		watchCtx, stopWatch := context.WithCancel(ctx)
		defer stopWatch()
		agentDone = s.sp.watch(watchCtx)
	}
	lines := s.pr.Lines()
wait:
	for !s.done() {
		select {
		case ln, ok := <-lines:
			if !ok {
				lines, s.eof = nil, true
				// End of output. An IUT whose main process is exiting
				// (a crash, an early exit) is waited for, stdin still
				// open, so its exit is judged. One that closed stdout and
				// lives on can no longer answer: the vector ends now,
				// unless the IUT may still end it by exiting by itself.
				if !s.spawned && !s.mustExit && !s.mayExit && !s.pr.Ending() {
					break wait
				}
				continue
			}
			if !s.spawned {
				s.quiet.active(time.Now(), true, s.stderrBytes)
				s.handle(ln)
				if s.overLimit || s.o.overBudget {
					break wait
				}
				s.openGates()
			}
		case <-s.pr.Exited():
			s.exited = true
			break wait
		case <-agentDone:
			break wait
		case <-timer.C:
			s.timedOut = true
			break wait
		case now := <-s.quiet.c():
			// A line read but not yet taken is activity too.
			if s.quiet.expired(now, s.stderrBytes(), len(lines) > 0) {
				if s.exitWait() {
					s.quiet.active(now, false, nil)
					s.quiet.timer.Reset(s.quiet.bound)
					continue
				}
				s.timedOut, s.quietEnded = true, true
				break wait
			}
		case <-ctx.Done():
			break wait
		}
	}
	if lines == nil {
		s.eof = true
	}
}

// finish closes stdin, reads the rest of the IUT's output within the grace
// period and stops it; the replies still missing when stdin closed are
// remembered, to tell a late reply from a missing one.
func (s *session) finish() {
	p, o := s.p, s.o
	if s.next < len(s.l.gates) {
		// The lines after the gate were never written: their replies are
		// not missing, the awaited one is.
		unsent := map[string]*request{}
		for _, r := range s.l.reqs[s.l.gates[s.next].before:] {
			track(unsent, r)
		}
		for k := range unsent {
			if s.sent[k] == nil {
				delete(s.expected, k)
			}
		}
		if g := s.l.gates[s.next]; g.match != nil && s.quietEnded {
			o.add(FindingAwaitUnmet, "", awaitFrameUnmet+" (%s)", g.key, s.waitEnd())
		} else if g.match != nil {
			o.add(FindingAwaitUnmet, "", awaitFrameUnmet, g.key)
		} else {
			o.add(FindingAwaitUnmet, "", awaitUnmet, g.key)
		}
	}
	s.pendingAtBreak = pendingReplies(s.expected, s.sent)
	s.earlyLines = s.nlines
	s.open = false
	o.exit = s.stop()
	exhausted(o, s.pr.Exhaustion())
	if left := s.pr.Leftovers(); left.Count > 0 {
		// Every process of the IUT must end with it, in every mode.
		o.add(FindingProcessSurvived, Fail, "%d process(es) of the IUT outlived its main process and were killed%s",
			left.Count, unattributed(left))
		s.reuse = false
	}
	if s.spawned {
		s.sp.replay(o, s.handle, p.cfg.MaxLine)
	}
}

// stop closes stdin, reads (and judges) the rest of the IUT's output, and
// stops the IUT within the grace period (proc.Stop). Most IUTs end their
// output within it once stdin closes: then Stop is called from this
// goroutine once output has ended, with what is left of the grace period,
// and returns at once for an IUT that exited. Otherwise Stop runs beside
// the reading, as it always did, so that an IUT that keeps writing is
// still read while it is stopped. Either way the IUT gets the whole grace
// period from the moment stdin closed.
func (s *session) stop() proc.Exit {
	p := s.p
	closed := time.Now()
	s.closedAt = closed.Sub(s.start)
	s.pr.CloseStdin()
	ended := s.eof
	if !ended {
		grace := time.NewTimer(p.cfg.Grace)
	read:
		for {
			select {
			case ln, ok := <-s.pr.Lines():
				if !ok {
					ended = true
					break read
				}
				if !s.spawned {
					s.handle(ln)
				}
			case <-grace.C:
				break read
			}
		}
		grace.Stop()
	}
	left := max(0, p.cfg.Grace-time.Since(closed))
	if ended {
		return s.pr.Stop(left, p.cfg.KillAfter)
	}
	stopped := make(chan proc.Exit, 1)
	go func() { stopped <- s.pr.Stop(left, p.cfg.KillAfter) }()
	for ln := range s.pr.Lines() {
		if !s.spawned {
			s.handle(ln)
		}
	}
	return <-stopped
}

// judge adds the findings of how the session ended: a crash, an early
// exit, missing or late replies, an IUT that did not exit when it should,
// the order of replies, and the counts of tolerated frames.
func (s *session) judge() {
	p, v, o := s.p, s.v, s.o
	pending := pendingReplies(s.expected, s.sent)
	o.lines, o.early = s.nlines, s.earlyLines
	if !s.mustExit && !s.mayExit {
		o.awaited = len(s.expected)
	}
	ex := o.exit
	// exited is only set when the IUT ended while stdin was still open.
	endedByItself := s.exited && ex.Stopped == ""
	switch {
	case s.spawned:
		s.sp.judge(o, p.cfg.Spawn, ex, s.timedOut, pending, p.cfg.Timeout)
	case ex.Signal != "" && ex.Stopped == "" && v.Expect.Exit != "any":
		o.add(FindingKilledBySignal, s.afterInputStatus(), "the IUT was killed by %s%s", ex.Signal, s.afterInputNote())
	case s.mustExit && s.timedOut && s.quietEnded:
		o.add(FindingExitMissing, Timeout, "the IUT did not exit with stdin open (the vector expects exit %s; an await was unmet, so the rest of the input was not written): %s", v.Expect.Exit, s.waitEnd())
	case s.mustExit && s.timedOut:
		o.add(FindingExitMissing, Timeout, "the IUT did not exit within %s with stdin open (the vector expects exit %s)", p.cfg.Timeout, v.Expect.Exit)
	case s.mustExit:
	case s.mayExit && endedByItself:
	case endedByItself && len(pending) > 0:
		o.add(FindingExitEarly, Crash, "the IUT exited with status %d before replying to %s", ex.Code, strings.Join(pending, ", "))
	case s.eof && len(pending) > 0:
		o.add(FindingStdoutClosed, ProtocolError, "the IUT closed stdout before replying to %s", strings.Join(pending, ", "))
	case s.timedOut:
		// A reply that is missing while stdin is open and arrives once it
		// closes was held back by the IUT: almost always stdout buffered
		// by its language's runtime on a pipe (Python's print without
		// flush=True, C stdio), written only at exit.
		// A slow start looks the same from here, except that the first
		// line comes well after stdin closed (startNote).
		o.late = arrived(s.pendingAtBreak, pending)
		note, slow := s.startNote()
		o.firstLine, o.slowStart = s.firstLine, slow && len(o.late) > 0
		if len(o.late) > 0 {
			hint := "is stdout flushed after each line? (a buffered stdout, such as Python's print without flush=True or C stdio on a pipe, is written only at exit)"
			if slow {
				hint = note
			}
			wait := fmt.Sprintf("within %s while stdin was open", p.cfg.Timeout)
			if s.quietEnded {
				wait = "while stdin was open (" + s.waitEnd() + ")"
			}
			o.add(FindingReplyAfterStdinClosed, Timeout, "no reply to %s %s; it came only after conform closed stdin: %s",
				strings.Join(o.late, ", "), wait, hint)
		}
		if len(pending) > 0 {
			msg := fmt.Sprintf("no reply within %s to %s", p.cfg.Timeout, strings.Join(pending, ", "))
			if s.quietEnded {
				msg = fmt.Sprintf("no reply to %s: %s", strings.Join(pending, ", "), s.waitEnd())
			}
			if note != "" && len(o.late) == 0 {
				msg += ": " + note
			}
			o.add(FindingReplyMissing, Timeout, "%s", msg)
		}
	case ex.Stopped == "" && ex.Code != 0:
		o.add(FindingExitNonzero, s.afterInputStatus(), "the IUT exited with status %d after stdin closed%s", ex.Code, s.afterInputNote())
	}
	if ex.Stopped != "" && !s.timedOut && !s.spawned {
		switch s.afterInput {
		case suite.AfterInputExit:
			o.add(FindingExitAfterInputMissing, Fail, "the IUT did not exit within %s of stdin closing, and the vector requires it to (afterInput exit); conform sent %s", p.cfg.Grace, ex.Stopped)
		case suite.AfterInputKeepRunning:
		default:
			o.add(FindingLingered, "", "the IUT did not exit within %s of stdin closing; conform sent %s", p.cfg.Grace, ex.Stopped)
		}
	}
	s.checkOrder()
	s.checkTolerated()
}

// afterInputStatus is the status of a crash finding (an exit status other
// than 0, a signal): Crash, or "" (a note) when the IUT ended so once
// stdin had closed and its afterInput is AfterInputAny.
func (s *session) afterInputStatus() Status {
	if s.afterInput == suite.AfterInputAny && !s.exited {
		return ""
	}
	return Crash
}

// afterInputNote is what a crash finding's message adds when
// [session.afterInputStatus] made it a note.
func (s *session) afterInputNote() string {
	if s.afterInputStatus() == "" {
		return " once stdin had closed (a note: afterInput any, the protocol says nothing of how its peer ends then)"
	}
	return ""
}

// summarize builds the summary bytes from the kept frames and adds the
// findings of the normalizers.
func (s *session) summarize() {
	p, v, o, sum := s.p, s.v, s.o, s.sum
	exitCls := ""
	if (s.mustExit || s.mayExit) && s.exited && o.exit.Stopped == "" {
		exitCls = exitClass(o.exit)
	}
	for _, m := range sum.mismatches {
		o.add(FindingNormalizeFormat, Fail, "%s", m)
	}
	if sum.moreMismatches > 0 {
		o.drop(sum.moreMismatches, Fail)
	}
	for i := len(p.ver.Normalize); i < len(s.l.rules); i++ {
		if !sum.matched[i] {
			o.unmatched = append(o.unmatched, s.l.rules[i].Path)
		}
	}
	if sum.inexact != nil {
		o.add(FindingFrameInexact, ProtocolError, "%v", sum.inexact)
		o.add(FindingFrameInexact, ProtocolError, "canonicalize summary: %v", sum.inexact)
		o.summary = []byte(`{}`)
	} else {
		if sum.scope.Shapes {
			o.shapes = sum.shapesBytes()
		}
		o.summary = summaryBytes(v.ID, exitCls, sum.frames)
		o.kept, o.exitClass = len(sum.frames), exitCls
	}
	sum.frames = nil
	o.declared = p.declared(s.sent)
	o.close()
}

func pendingReplies(expected map[string]bool, sent map[string]*request) []string {
	var out []string
	for k := range expected {
		if r := sent[k]; r == nil || r.replies == 0 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// iutEnv builds the IUT's environment: the caller's PATH (or the whole caller
// environment with InheritEnv), HOME, TMPDIR, then Config.Env.
func (p *plan) iutEnv(home string) []string {
	m := map[string]string{}
	if p.cfg.InheritEnv {
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
	} else {
		m["PATH"] = os.Getenv("PATH")
		if m["PATH"] == "" {
			m["PATH"] = "/usr/local/bin:/usr/bin:/bin"
		}
		m["LANG"] = "C.UTF-8"
	}
	m["HOME"] = home
	m["TMPDIR"] = home
	for k, v := range p.cfg.Env {
		m[k] = strings.ReplaceAll(v, "${HOME}", home)
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
