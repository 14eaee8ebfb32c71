package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/normalize"
	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/suite"
)

// Summary is the golden summary of one session vector: what the IUT wrote on
// the control channel, normalized, in canonical order. Its RFC 8785 bytes are
// golden/v<N>/<id>.json.
//
//	{"exit":"nonzero","frames":[...],"vector":"<id>"}
//
// Frames holds every control frame (suite.json controlTypes) the IUT wrote,
// each normalized, sorted by its canonical bytes, so reply order never
// matters. Exit ("zero", "nonzero" or "signal") is present only when the
// vector expects the IUT to end by itself.
type Summary struct {
	Exit   string `json:"exit,omitempty"`
	Frames []any  `json:"frames"`
	Vector string `json:"vector"`
}

// outcome is what one session observed, before comparison with the golden.
type outcome struct {
	findings []Finding
	summary  []byte
	exit     proc.Exit
	stderr   []byte
	elapsed  time.Duration
	// unmatched lists vector-level normalizers that matched nothing.
	unmatched []string
	// dropped counts findings over MaxFindings; droppedStatus is the most
	// severe status among them.
	dropped       int
	droppedStatus Status
	notRun        bool
	// responses counts the control responses read so far (reply order).
	responses int
	// declared tells the conformance comparison which members the schema
	// declares on an actual frame (see compare.Declared).
	declared compare.Declared
	// overBudget is set once the vector kept as much as its byte budget
	// allows (VECTOR_BUDGET_EXCEEDED).
	overBudget bool
	// lines counts the lines the IUT wrote (in spawned mode: to the agent,
	// its own requests and user turns aside); awaited is how many replies
	// the vector waits for with stdin open (0 when it expects an exit).
	// Fail fast reads them (failfast.go).
	lines, awaited int
	// vector is the vector as loaded for the session (with its
	// description and source).
	vector *suite.Vector
	// early counts the lines the IUT wrote while stdin was open; late
	// lists the awaited replies that came only after stdin closed.
	early int
	late  []string
	// Fail fast for protocol-broken IUTs (failfast.go): accepted counts
	// the lines read as frames of a known type (control or passed over);
	// matched and unsolicited count the replies whose request_id names a
	// request sent, and those naming none (unsolicitedID: the first such
	// id, canonical).
	accepted, matched, unsolicited int
	unsolicitedID                  string
}

// Bounds on what one vector reports, so a misbehaving IUT cannot flood a
// report: at most MaxFindings findings (then one FINDINGS_TRUNCATED note
// with the count) of at most MaxFindingBytes bytes each.
const (
	MaxFindings     = 50
	MaxFindingBytes = 1024
)

func (o *outcome) add(code string, st Status, format string, args ...any) {
	if len(o.findings) >= MaxFindings {
		o.drop(1, st)
		return
	}
	msg := clip(fmt.Sprintf(format, args...))
	o.findings = append(o.findings, Finding{Code: code, Status: st, Message: msg})
}

// drop counts n findings of status st that are not reported.
func (o *outcome) drop(n int, st Status) {
	o.dropped += n
	// The verdict still counts: keep the most severe status seen.
	if Severity(st) > Severity(o.droppedStatus) {
		o.droppedStatus = st
	}
}

// close adds the truncation note, if findings were dropped.
func (o *outcome) close() {
	if o.dropped > 0 {
		o.findings = append(o.findings, Finding{Code: FindingFindingsTruncated, Status: o.droppedStatus,
			Message: fmt.Sprintf("%d more findings were not reported (at most %d per vector)", o.dropped, MaxFindings)})
		o.dropped = 0
	}
}

// result turns an outcome into a Result by comparing it with golden: exact
// parity (canonical bytes equal) and conformance (compare.Differences with
// the vector's rules). With exact set, any byte difference fails the vector
// (GOLDEN_MISMATCH); otherwise only normative differences do, each a finding
// coded by its kind, and the allowed ones are one PARITY_DIFFERS note.
func (o *outcome) result(v suite.Ref, golden []byte, goldenPath string, rules *compare.Rules, exact bool) Result {
	r := Result{ID: v.ID, Level: v.Level, Path: v.Path, DurationMS: o.elapsed.Milliseconds(), Canonical: o.summary,
		GoldenPath: goldenPath}
	if full := o.vector; full != nil {
		// The run's vector list holds ids and levels; the text is in the
		// file as loaded for this session.
		r.Description, r.Source = full.Description, full.Source
	}
	if o.notRun {
		r.Status = NotRun
		return r
	}
	r.Findings = o.findings
	if v.Level == suite.LevelInformational {
		// An informational vector records an implementation-defined corner:
		// what the IUT wrote there (a non-string request_id, a second reply)
		// is the observation, not a violation. Its verdict says whether the
		// IUT behaves as the golden records (or crashed or hung).
		r.Findings = slices.Clone(r.Findings)
		for i, f := range r.Findings {
			if f.Status == ProtocolError || f.Status == SchemaViolation {
				r.Findings[i].Status = ""
			}
		}
	}
	r.Parity = ParityExact
	if !compare.Equal(golden, o.summary) {
		r.Parity = ParityDiffers
		if exact {
			rules = nil
		}
		ds, err := compare.Differences(golden, o.summary, rules, o.declared)
		if err != nil {
			r.Findings = append(r.Findings, Finding{Code: FindingGoldenMismatch, Status: Fail,
				Message: fmt.Sprintf("normalized canonical output differs from %s and cannot be compared: %v", goldenPath, err)})
		}
		r.Findings = append(r.Findings, differenceFindings(ds, goldenPath, exact)...)
		if len(ds) > MaxDifferences {
			r.Findings = append(r.Findings, Finding{Code: FindingDifferencesTruncated, Message: fmt.Sprintf(
				"%d more differences from %s were not listed (at most %d per vector)", len(ds)-MaxDifferences, goldenPath, MaxDifferences)})
			ds = ds[:MaxDifferences]
		}
		r.Differences = boundValues(ds)
	}
	r.Status = Pass
	for _, f := range r.Findings {
		if Severity(f.Status) > Severity(r.Status) {
			r.Status = f.Status
		}
	}
	exit := o.exit
	r.Exit = &exit
	if r.Status != Pass || r.Parity == ParityDiffers {
		r.Expected = excerpt(golden, MaxExcerptBytes)
		r.Actual = excerpt(o.summary, MaxExcerptBytes)
	}
	if r.Status != Pass {
		r.Stderr = string(o.stderr)
	}
	return r
}

// excerpt returns b as a string, cut at max bytes (at a rune boundary)
// and ended with "... (N bytes)" when longer.
func excerpt[T ~string | ~[]byte](b T, max int) string {
	if len(b) <= max {
		return string(b)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", b[:cut], len(b))
}

// boundValues replaces each value of ds longer than MaxValueBytes of
// canonical JSON by a JSON string: the value's first bytes, then "... (N
// bytes)".
func boundValues(ds []compare.Difference) []compare.Difference {
	cut := func(v json.RawMessage) json.RawMessage {
		if len(v) <= MaxValueBytes {
			return v
		}
		b, err := canon.Canonical(excerpt(v, MaxValueBytes))
		if err != nil {
			return json.RawMessage(`"..."`)
		}
		return b
	}
	out := make([]compare.Difference, len(ds))
	for i, d := range ds {
		d.Golden, d.Actual = cut(d.Golden), cut(d.Actual)
		out[i] = d
	}
	return out
}

// differenceFindings turns differences into findings: with exact, one
// GOLDEN_MISMATCH for them all; otherwise one finding per normative
// difference (its kind is the code; at most MaxFindings) and one
// PARITY_DIFFERS note for the allowed ones.
func differenceFindings(ds []compare.Difference, goldenPath string, exact bool) []Finding {
	var out []Finding
	if exact {
		if len(ds) > 0 {
			out = append(out, Finding{Code: FindingGoldenMismatch, Status: Fail,
				Message: clip(fmt.Sprintf("canonical bytes differ from %s in %d place(s), and exact parity is required: %s", goldenPath, len(ds), pointers(ds)))})
		}
		return out
	}
	var allowed []compare.Difference
	for _, d := range ds {
		if !d.Normative {
			allowed = append(allowed, d)
			continue
		}
		if len(out) < MaxFindings {
			msg := compare.Render(d)
			if first, _, two := strings.Cut(msg, "\n"); two && len(msg) > MaxFindingBytes {
				// Keep the values whole rather than cut the look-alike
				// line where the strings differ; Differences has both.
				msg = first + " (spelled as code points in differences)"
			}
			out = append(out, Finding{Code: d.Kind, Status: Fail, Message: clip(msg)})
		}
	}
	if n := len(compare.Normative(ds)); n > MaxFindings {
		out = append(out, Finding{Code: FindingFindingsTruncated, Status: Fail,
			Message: fmt.Sprintf("%d more differences from %s were not listed as findings (see differences)", n-MaxFindings, goldenPath)})
	}
	if len(allowed) > 0 {
		out = append(out, Finding{Code: FindingParityDiffers, Message: clip(fmt.Sprintf(
			"canonical bytes differ from %s in %d place(s) the protocol allows (conformance passes there; exact parity does not): %s",
			goldenPath, len(allowed), pointers(allowed)))})
	}
	return out
}

// pointers lists where differences are: "frame pointer (KIND)", comma-joined.
func pointers(ds []compare.Difference) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		where := strings.TrimSpace(d.Frame + " " + d.Pointer)
		parts[i] = where + " (" + d.Kind + ")"
	}
	return strings.Join(parts, ", ")
}

// clip cuts a finding message to MaxFindingBytes at a rune boundary.
func clip(msg string) string { return excerpt(msg, MaxFindingBytes) }

// frameErrorCode is the finding code of a line canon.Parse refused:
// FRAME_DUPLICATE_KEY, FRAME_INEXACT or FRAME_NOT_JSON.
func frameErrorCode(err error) string {
	switch kiterr.CodeOf(err) {
	case kiterr.JSONDuplicateKey:
		return FindingFrameDuplicateKey
	case kiterr.JSONNumberInexact:
		return FindingFrameInexact
	}
	return FindingFrameNotJSON
}

// awaitUnmet is the AWAIT_UNMET note, given the awaited request_id.
const awaitUnmet = "the vector waits for the reply to %s before writing the rest of its input, and that reply never came; the rest was not written"

// request is one control_request the runner sent.
type request struct {
	subtype string
	replies int
	// first is the position (from 1) of its first reply among the control
	// responses the IUT wrote; 0 while it has none.
	first int
}

// session runs one vector against a fresh IUT process. Its error is
// IUT_START only; everything the IUT does is in the outcome.
func (p *plan) session(ctx context.Context, l *loaded) (*outcome, error) {
	v, rules := l.v, l.rules
	o := &outcome{vector: v}
	if ctx.Err() != nil {
		o.notRun = true
		return o, nil
	}
	// sent tracks the requests written, as they are written; the agent
	// double of spawned mode writes them all (what it could not write comes
	// back as Unsent).
	sent := map[string]*request{}
	expected := map[string]bool{}
	for _, id := range v.Expect.Replies {
		expected[key(id)] = true
	}
	// A reply the vector waits for (an await item) is required too.
	for _, g := range l.gates {
		expected[g.key] = true
	}
	// mustExit: the IUT must end by itself. mayExit: it must either answer
	// every expected reply or end by itself; the summary records which.
	mustExit := v.Expect.Exit != "" && len(v.Expect.Replies) == 0
	mayExit := v.Expect.Exit != "" && !mustExit

	// HOME (and TMPDIR) is a fresh directory, or one a previous vector
	// left exactly as made (see iutDirs); the working directory is its
	// empty subdirectory work, so what the IUT writes under HOME (the CLI
	// writes ~/.claude.json) is not in its working directory.
	dir, work, token, err := p.dirs.get()
	if err != nil {
		return nil, err
	}
	home := dir
	// Deferred, so it runs after the IUT was stopped and its orphans
	// killed; reuse turns false when the sweep finds a process it cannot
	// attribute (see iutDirs).
	reuse := true
	defer func() {
		if err := p.dirs.put(dir, reuse); err != nil {
			o.add(FindingIUTDirLeft, "", "%v", err)
		}
	}()

	env := p.env(home)
	// The suite version under test: an IUT that speaks several versions
	// may use it to choose how to read frames that carry no version (v1
	// frames have none). See README "The IUT contract".
	env = append(env, fmt.Sprintf("CONFORM_PROTOCOL_VERSION=%d", p.ver.Version), "CONFORM_ROLE="+v.Role)
	if v.Policy != nil {
		pol, err := canon.Canonical(v.Policy)
		if err != nil {
			return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "%s: policy", v.Path)
		}
		env = append(env, "CONFORM_POLICY="+string(pol))
	}
	// Spawned mode: the IUT starts "the agent" itself (as the Agent SDKs
	// do); it is given an agent double that plays the vector's frames and
	// records what the IUT answers in a transcript file.
	spawned := p.cfg.Spawn != nil
	var sp *spawnFiles
	var input [][]byte
	if spawned {
		for _, ln := range l.lines {
			trackLine(sent, ln)
		}
		if sp, err = p.writeSpawn(dir, v, l); err != nil {
			return nil, err
		}
		env = sp.environ(env)
	} else {
		input = l.segment(sent, 0)
	}
	// next is the first gate (await item) not yet opened: the lines after
	// it are written once its reply was read.
	next := 0
	if spawned {
		next = len(l.gates) // the double opens them
	}

	start := time.Now()
	pr, err := proc.Start(ctx, proc.Config{
		Argv: p.cfg.Command, Env: env, Dir: work,
		MaxLine: p.cfg.MaxLine, StderrMax: p.cfg.StderrMax,
		// A token unique to this IUT, inherited by its descendants, so
		// that a process that left its group can be attributed.
		Token: token, Isolate: p.cfg.Isolate, Pool: p.procs,
		Limits: p.limits(), Home: home,
	}, input)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.IUTStart, err, "start %q", strings.Join(p.cfg.Command, " "))
	}

	// Each control frame is normalized and canonicalized as it comes;
	// only its canonical bytes are kept, within the vector's budget.
	sum := &summarizer{rules: rules, matched: make([]bool, len(rules)),
		scope: normalize.Scope{UserData: l.conf.UserDataPatterns(), General: len(p.ver.Normalize)},
		room:  p.cfg.frameBudget()}
	nlines, overLimit := 0, false
	handle := func(ln proc.Line) {
		nlines++
		if nlines > p.cfg.MaxFrames {
			if !overLimit {
				overLimit = true
				o.add(FindingFrameLimit, ProtocolError, "the IUT wrote more than %d lines for one vector", p.cfg.MaxFrames)
			}
			return
		}
		if o.overBudget || !sum.admit(o, ln.Data, p.cfg.MaxVectorBytes) {
			return
		}
		if f := p.frame(o, ln, sent); f != nil {
			sum.add(o, f, p.cfg.MaxVectorBytes)
		}
	}
	// openGates sends each segment whose awaited reply has been read.
	openGates := func() {
		for ; next < len(l.gates); next++ {
			if r := sent[l.gates[next].key]; r == nil || r.replies == 0 {
				return
			}
			pr.Send(l.segment(sent, next+1))
		}
	}
	done := func() bool {
		if mustExit || spawned || next < len(l.gates) {
			return false
		}
		for k := range expected {
			if r := sent[k]; r == nil || r.replies == 0 {
				return false
			}
		}
		return true
	}

	timer := time.NewTimer(p.cfg.Timeout)
	defer timer.Stop()
	var agentDone <-chan struct{} // closed when the agent double's session is over
	if spawned {
		watchCtx, stopWatch := context.WithCancel(ctx)
		defer stopWatch()
		agentDone = sp.watch(watchCtx)
	}
	lines := pr.Lines()
	exited, timedOut, eof := false, false, false
wait:
	for !done() {
		select {
		case ln, ok := <-lines:
			if !ok {
				lines, eof = nil, true
				// End of output. An IUT whose main process is exiting
				// (a crash, an early exit) is waited for, stdin still
				// open, so its exit is judged. One that closed stdout and
				// lives on can no longer answer: the vector ends now,
				// unless the IUT may still end it by exiting by itself.
				if !spawned && !mustExit && !mayExit && !pr.Ending() {
					break wait
				}
				continue
			}
			if !spawned {
				handle(ln)
				if overLimit || o.overBudget {
					break wait
				}
				openGates()
			}
		case <-pr.Exited():
			exited = true
			break wait
		case <-agentDone:
			break wait
		case <-timer.C:
			timedOut = true
			break wait
		case <-ctx.Done():
			break wait
		}
	}
	if next < len(l.gates) {
		// The lines after the gate were never written: their replies are
		// not missing, the awaited one is.
		unsent := map[string]*request{}
		for _, ln := range l.lines[l.gates[next].before:] {
			trackLine(unsent, ln)
		}
		for k := range unsent {
			if sent[k] == nil {
				delete(expected, k)
			}
		}
		o.add(FindingAwaitUnmet, "", awaitUnmet, l.gates[next].key)
	}
	pendingAtBreak := pendingReplies(expected, sent)
	earlyLines := nlines

	stopped := make(chan proc.Exit, 1)
	go func() { stopped <- pr.Stop(p.cfg.Grace, p.cfg.KillAfter) }()
	if lines != nil {
		for ln := range lines {
			if !spawned {
				handle(ln)
			}
		}
	}
	o.exit = <-stopped
	exhausted(o, pr.Exhaustion())
	if left := pr.Leftovers(); left.Count > 0 {
		// Every process of the IUT must end with it, in every mode.
		o.add(FindingProcessSurvived, Fail, "%d process(es) of the IUT outlived its main process and were killed%s",
			left.Count, unattributed(left))
		reuse = false
	}
	if spawned {
		sp.replay(o, handle, p.cfg.MaxLine)
	}
	o.elapsed = time.Since(start)
	o.stderr, _ = pr.Stderr()
	if ctx.Err() != nil {
		o.notRun = true
		return o, nil
	}
	pending := pendingReplies(expected, sent)
	o.lines, o.early = nlines, earlyLines
	if !mustExit && !mayExit {
		o.awaited = len(expected)
	}

	ex := o.exit
	// exited is only set when the IUT ended while stdin was still open.
	endedByItself := exited && ex.Stopped == ""
	switch {
	case spawned:
		sp.judge(o, ex, timedOut, pending, p.cfg.Timeout)
	case ex.Signal != "" && ex.Stopped == "" && v.Expect.Exit != "any":
		o.add(FindingKilledBySignal, Crash, "the IUT was killed by %s", ex.Signal)
	case mustExit && timedOut:
		o.add(FindingExitMissing, Timeout, "the IUT did not exit within %s with stdin open (the vector expects exit %s)", p.cfg.Timeout, v.Expect.Exit)
	case mustExit:
	case mayExit && endedByItself:
	case endedByItself && len(pending) > 0:
		o.add(FindingExitEarly, Crash, "the IUT exited with status %d before replying to %s", ex.Code, strings.Join(pending, ", "))
	case eof && len(pending) > 0:
		o.add(FindingStdoutClosed, ProtocolError, "the IUT closed stdout before replying to %s", strings.Join(pending, ", "))
	case timedOut:
		// A reply that is missing while stdin is open and arrives once it
		// closes was held back by the IUT: almost always stdout buffered
		// by its language's runtime on a pipe (Python's print without
		// flush=True, C stdio), written only at exit.
		o.late = arrived(pendingAtBreak, pending)
		if len(o.late) > 0 {
			o.add(FindingReplyAfterStdinClosed, Timeout, "no reply to %s within %s while stdin was open; it came only after conform closed stdin: "+
				"is stdout flushed after each line? (a buffered stdout, such as Python's print without flush=True or C stdio on a pipe, is written only at exit)",
				strings.Join(o.late, ", "), p.cfg.Timeout)
		}
		if len(pending) > 0 {
			o.add(FindingReplyMissing, Timeout, "no reply within %s to %s", p.cfg.Timeout, strings.Join(pending, ", "))
		}
	case ex.Stopped == "" && ex.Code != 0:
		o.add(FindingExitNonzero, Crash, "the IUT exited with status %d after stdin closed", ex.Code)
	}
	if ex.Stopped != "" && !timedOut && !spawned {
		o.add(FindingLingered, "", "the IUT did not exit within %s of stdin closing; conform sent %s", p.cfg.Grace, ex.Stopped)
	}

	checkOrder(o, v.Expect.Order, sent)

	exitCls := ""
	if (mustExit || mayExit) && endedByItself {
		exitCls = exitClass(ex)
	}
	for _, m := range sum.mismatches {
		o.add(FindingNormalizeFormat, Fail, "%s", m)
	}
	if sum.moreMismatches > 0 {
		o.drop(sum.moreMismatches, Fail)
	}
	for i := len(p.ver.Normalize); i < len(rules); i++ {
		if !sum.matched[i] {
			o.unmatched = append(o.unmatched, rules[i].Path)
		}
	}
	if sum.inexact != nil {
		o.add(FindingFrameInexact, ProtocolError, "%v", sum.inexact)
		o.add(FindingFrameInexact, ProtocolError, "canonicalize summary: %v", sum.inexact)
		o.summary = []byte(`{}`)
	} else {
		o.summary = summaryBytes(v.ID, exitCls, sum.frames)
	}
	sum.frames = nil
	o.declared = p.declared(sent)
	o.close()
	return o, nil
}

// checkOrder adds a REPLY_ORDER finding for each expect.order sequence whose
// replies were written in another order. Ids without a reply are left to
// REPLY_MISSING.
func checkOrder(o *outcome, orders [][]any, sent map[string]*request) {
	for _, seq := range orders {
		prev, prevKey := 0, ""
		for _, id := range seq {
			k := key(id)
			r := sent[k]
			if r == nil || r.first == 0 {
				continue
			}
			if r.first < prev {
				o.add(FindingReplyOrder, Fail, "the reply to %s was written before the reply to %s; the vector requires the order %s", k, prevKey, keys(seq))
				break
			}
			prev, prevKey = r.first, k
		}
	}
}

func keys(ids []any) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = key(id)
	}
	return strings.Join(out, ", ")
}

// declared answers compare.Declared for the frames of one session: a member
// is declared when the version's root schema or, for a success reply, the
// ReplyBySubtype entry of the request it answers declares it there.
func (p *plan) declared(sent map[string]*request) compare.Declared {
	return func(frame any, at, name string) bool {
		toks := pointerTokens(at)
		if p.root.Declares(toks, name) {
			return true
		}
		obj, _ := frame.(map[string]any)
		resp, _ := obj["response"].(map[string]any)
		if obj["type"] != "control_response" || resp == nil {
			return false
		}
		id, ok := resp["request_id"]
		if !ok {
			return false
		}
		if req := sent[key(id)]; req != nil {
			if sch := p.bySubtype[req.subtype]; sch != nil {
				return sch.Declares(toks, name)
			}
		}
		return false
	}
}

// pointerTokens splits an RFC 6901 pointer ("/a/b~1c") into its unescaped
// reference tokens; "" gives none.
func pointerTokens(ptr string) []string {
	if ptr == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, t := range toks {
		toks[i] = canon.UnescapePointer(t)
	}
	return toks
}

// frame judges one stdout line and returns the decoded control frame to
// summarize, or nil.
func (p *plan) frame(o *outcome, ln proc.Line, sent map[string]*request) any {
	switch {
	case errors.Is(ln.Err, proc.ErrLineTooLong):
		o.add(FindingFrameTooLarge, ProtocolError, "a stdout line of %d bytes exceeds the %d-byte limit", ln.Size, p.cfg.MaxLine)
		return nil
	case ln.Partial:
		o.add(FindingFramePartial, ProtocolError, "the last stdout line (%d bytes) has no LF: %s", ln.Size, quote(ln.Data))
		return nil
	case len(bytes.TrimSpace(ln.Data)) == 0:
		return nil // blank lines carry nothing; JSON-lines readers skip them
	}
	v, err := canon.Parse(ln.Data)
	if err != nil {
		o.add(frameErrorCode(err), ProtocolError, "%v in line %s", err, quoteAt(ln.Data, errorOffset(err)))
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		o.add(FindingFrameNotObject, ProtocolError, "line is not a JSON object: %s", quote(ln.Data))
		return nil
	}
	typ, _ := obj["type"].(string)
	if p.passOver[typ] {
		o.accepted++
		return nil
	}
	if !p.control[typ] {
		o.add(FindingFrameTypeUnknown, ProtocolError, "frame type %q is neither a control frame nor passed over by the suite: %s", typ, quote(ln.Data))
		return nil
	}
	o.accepted++
	for _, vi := range p.root.Validate(v) {
		o.add(FindingFrameSchema, SchemaViolation, "%s: %s", p.ver.Schema, vi)
	}
	if typ != "control_response" {
		return v
	}
	resp, _ := obj["response"].(map[string]any)
	id, hasID := resp["request_id"]
	if !hasID {
		return v // the schema violation says it
	}
	k := key(id)
	req := sent[k]
	switch {
	case req == nil:
		o.add(FindingReplyUnsolicited, ProtocolError, "reply to request_id %s, which was never sent", k)
		if o.unsolicited++; o.unsolicitedID == "" {
			o.unsolicitedID = k
		}
		return v
	case req.replies > 0:
		o.add(FindingReplyDuplicate, ProtocolError, "second reply to request_id %s", k)
	}
	req.replies++
	o.responses++
	o.matched++
	if req.first == 0 {
		req.first = o.responses
	}
	if sub, _ := resp["subtype"].(string); sub == "success" {
		if sch := p.bySubtype[req.subtype]; sch != nil {
			for _, vi := range sch.Validate(v) {
				o.add(FindingReplyBodySchema, SchemaViolation, "reply to %s: %s", req.subtype, vi)
			}
		}
	}
	return v
}

// trackRequest records a sent control_request by its request_id's canonical
// form; lines that are not requests are ignored. Sent lines are read the
// way a typical JSON reader would (the last of duplicate members wins,
// invalid UTF-8 becomes U+FFFD), since that is what the IUT sees; the
// strict reader is for what the IUT writes.
//
// A line the strict reader accepts reads the same both ways, so it takes
// the strict reader's one pass (about 6x faster, which matters for the
// 2 MiB vectors); only the rest go through encoding/json.
func trackRequest(sent map[string]*request, line []byte) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	v, err := canon.Parse(line)
	if err != nil {
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return
		}
	}
	obj, ok := v.(map[string]any)
	if !ok || obj["type"] != "control_request" {
		return
	}
	id, ok := obj["request_id"]
	if !ok {
		return
	}
	k := key(id)
	if sent[k] != nil {
		return
	}
	r := &request{}
	if body, ok := obj["request"].(map[string]any); ok {
		r.subtype, _ = body["subtype"].(string)
	}
	sent[k] = r
}

// key is the canonical JSON text of a request_id, so "1" and 1 differ.
func key(id any) string {
	b, err := canon.Canonical(id)
	if err != nil {
		return fmt.Sprint(id)
	}
	return string(b)
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

// arrived returns the ids of before that are not in after (both sorted).
func arrived(before, after []string) []string {
	var out []string
	for _, k := range before {
		if _, found := slices.BinarySearch(after, k); !found {
			out = append(out, k)
		}
	}
	return out
}

// unattributed explains survivors that could not be tied to this IUT.
func unattributed(l proc.Leftovers) string {
	if l.Unattributed == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d had left the IUT's process group and cleared its environment, and no cgroup held it: with -j above 1 it may be another vector's IUT's)", l.Unattributed)
}

func exitClass(e proc.Exit) string {
	switch {
	case e.Signal != "":
		return "signal"
	case e.Code == 0:
		return "zero"
	}
	return "nonzero"
}

// summarizer keeps the summary of one session as its control frames come:
// each frame is normalized and canonicalized at once and only its
// canonical bytes are kept (never the decoded frame), within room bytes.
type summarizer struct {
	rules   []normalize.Rule
	scope   normalize.Scope
	matched []bool
	// frames are the canonical bytes of the normalized frames kept.
	frames []string
	// kept is the sum of their lengths and of their work (see admit);
	// room is the most it may reach. work is that of the line admitted
	// last.
	kept, room, work int
	// mismatches holds the first MaxFindings NORMALIZE_FORMAT messages,
	// moreMismatches counts the rest; both become findings at the end, in
	// the place they always had.
	mismatches     []string
	moreMismatches int
	// inexact is the first frame without an RFC 8785 form.
	inexact error
}

// add normalizes the control frame f and keeps its canonical bytes. A
// frame that does not fit in the room left ends the keeping: o gets one
// VECTOR_BUDGET_EXCEEDED finding (PROTOCOL_ERROR) and o.overBudget is set,
// so the session stops the IUT.
func (s *summarizer) add(o *outcome, f any, budget int) {
	nr := normalize.ApplyScoped(f, s.rules, s.scope)
	for i, m := range nr.Matched {
		s.matched[i] = s.matched[i] || m
	}
	for _, m := range nr.Mismatches {
		if len(s.mismatches) < MaxFindings {
			s.mismatches = append(s.mismatches, m.String())
		} else {
			s.moreMismatches++
		}
	}
	c, err := canon.Canonical(nr.Value)
	if err != nil {
		if s.inexact == nil {
			s.inexact = err
		}
		return
	}
	// A kept frame costs its bytes and the work its values take when the
	// summary is compared (admit, work.go).
	if s.kept+len(c)+s.work > s.room {
		o.overBudget = true
		o.add(FindingBudgetExceeded, ProtocolError, "the IUT wrote more control frames than one vector may keep: with this frame (%d bytes normalized) they would take %d bytes, over the %d the budget of %d bytes (--max-vector-bytes) leaves after the stderr tail and the findings; the IUT was stopped and the frames after it were not judged",
			len(c), s.kept+len(c)+s.work, s.room, budget)
		return
	}
	s.kept += len(c) + s.work
	s.frames = append(s.frames, string(c))
}

// summaryBytes returns the RFC 8785 bytes of the [Summary] of vector id
// with exit class exit ("" for none) and frames (the canonical bytes of
// each normalized frame), which it sorts: the same bytes canon.Canonical
// gives for the Summary, built without decoding the frames again. RFC 8785
// orders the members exit, frames, vector (by UTF-16 code units) and a
// sorted list of canonical texts is the list sorted by canonical bytes.
func summaryBytes(id, exit string, frames []string) []byte {
	slices.Sort(frames)
	str := func(s string) []byte {
		b, err := canon.Canonical(s)
		if err != nil {
			panic(err) // a Go string always has an RFC 8785 form
		}
		return b
	}
	n := 64 + len(id)
	for _, f := range frames {
		n += len(f) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	if exit != "" {
		b = append(b, `"exit":`...)
		b = append(b, str(exit)...)
		b = append(b, ',')
	}
	b = append(b, `"frames":[`...)
	for i, f := range frames {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, f...)
	}
	b = append(b, `],"vector":`...)
	b = append(b, str(id)...)
	return append(b, '}')
}

// maxQuoted is how many bytes of an IUT line a finding quotes.
const maxQuoted = 200

// quote renders at most maxQuoted bytes of b as a Go-quoted string, so IUT
// output never reaches a terminal or report unescaped.
func quote(b []byte) string { return quoteAt(b, 0) }

// quoteAt is quote for a line with a fault at byte offset at: a longer
// line is quoted around that offset, so the fault is always in view.
func quoteAt(b []byte, at int) string {
	if len(b) <= maxQuoted {
		return fmt.Sprintf("%q", b)
	}
	from := max(0, min(at-maxQuoted/4, len(b)-maxQuoted))
	for from > 0 && !utf8.RuneStart(b[from]) {
		from--
	}
	to := min(len(b), from+maxQuoted)
	s := fmt.Sprintf("%q", b[from:to])
	if from > 0 {
		s = fmt.Sprintf("(%d bytes)...", from) + s
	}
	if to < len(b) {
		s += fmt.Sprintf("... (%d bytes)", len(b))
	}
	return s
}

// errorPosition finds the byte offset a strict-reader error names ("at
// 1:COL", or "at byte offset N"); a stdout line has no LF, so its column
// is the offset plus one.
var errorPosition = regexp.MustCompile(`\bat (?:1:(\d+)|byte offset (\d+))\b`)

// errorOffset returns the byte offset err names, or 0.
func errorOffset(err error) int {
	m := errorPosition.FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	if m[1] != "" {
		n, _ := strconv.Atoi(m[1])
		return max(0, n-1)
	}
	n, _ := strconv.Atoi(m[2])
	return n
}

// env builds the IUT's environment: the caller's PATH (or the whole caller
// environment with InheritEnv), HOME, TMPDIR, then Config.Env.
func (p *plan) env(home string) []string {
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
