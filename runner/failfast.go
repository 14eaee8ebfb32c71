package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/conform-kit/conform/internal/envelope"
	"github.com/conform-kit/conform/internal/suite"
)

// Finding codes of fail fast: the cause of a run that stopped after its
// probe vectors (see [plan.failFast]). Public API, like those in result.go.
const (
	// FindingIUTExitedAtStart: the IUT ended (exit status, signal, or
	// stdout closed) before writing a single line, on every probe vector.
	FindingIUTExitedAtStart = "IUT_EXITED_AT_START"
	// FindingIUTSilent: the IUT wrote nothing and answered no request
	// within the timeout, on every probe vector.
	FindingIUTSilent = "IUT_SILENT"
	// FindingHostSilent (spawned mode): the host started the agent but
	// answered none of the vector's requests, on every probe vector.
	FindingHostSilent = "HOST_SILENT"
	// FindingIUTRepliesAfterStdinClosed: the IUT wrote nothing while stdin
	// was open and its replies came only once stdin closed, on every probe
	// vector: its stdout is buffered, and every vector would wait the
	// whole timeout.
	FindingIUTRepliesAfterStdinClosed = "IUT_REPLIES_AFTER_STDIN_CLOSED"
	// FindingIUTSlowStart: the IUT wrote nothing while stdin was open and
	// its first line came well after stdin closed (more than a second), on
	// every probe vector: it starts slower than the timeout, and every
	// vector would wait the whole timeout.
	FindingIUTSlowStart = "IUT_SLOW_START"
	// FindingIUTLinesRejected: the IUT wrote lines, and not one of them
	// could be read as a frame of a known type (not JSON, a duplicate
	// member, an inexact number, not an object, an unknown type, too
	// long), on every probe vector: it does not speak the framing.
	FindingIUTLinesRejected = "IUT_LINES_REJECTED"
	// FindingIUTRepliesUnmatched: the IUT replied, and not one reply named
	// a request_id that was sent (a string id echoed as a number, an id of
	// its own), on every probe vector: every vector would wait out the
	// timeout for replies that never match.
	FindingIUTRepliesUnmatched = "IUT_REPLIES_UNMATCHED"
)

// probeCount is how many vectors fail fast runs first.
const probeCount = 2

// probeScan bounds how many vectors are loaded to choose the probes.
const probeScan = 50

// failFast runs the probe vectors first: up to two required or
// recommended vectors that wait for replies with stdin open, the second
// with another first request method when one is found among the first
// vectors, so that an IUT that only lacks one feature is not taken for a
// dead one. When the IUT is dead or silent on every probe (it wrote no
// line, answered nothing, and crashed, hung or closed stdout), stop is the
// first probe's result with one more finding naming the cause, and the
// run ends there. probed holds the probes' results by vector index, kept
// as those vectors' results either way. Its error is IUT_START.
func (p *plan) failFast(ctx context.Context) (stop *Result, probed map[int]Result, err error) {
	idx := p.probes()
	if len(idx) == 0 {
		return nil, nil, nil
	}
	type probe struct {
		res Result
		out *outcome
		err error
	}
	got := make([]probe, len(idx))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, p.cfg.Jobs))
	for n, i := range idx {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			got[n].res, got[n].out, got[n].err = p.vectorOutcome(ctx, p.vectors[i])
		}()
	}
	wg.Wait()
	probed = map[int]Result{}
	for n, i := range idx {
		if got[n].err != nil {
			return nil, nil, got[n].err
		}
		if got[n].res.Status != NotRun {
			probed[i] = got[n].res
			if p.cfg.Progress != nil {
				p.cfg.Progress(got[n].res)
			}
		}
	}
	if ctx.Err() != nil {
		return nil, probed, nil
	}
	var code string
	var why []string
	for n := range got {
		c, msg := p.deadOrSilent(got[n].res, got[n].out)
		if c == "" {
			return nil, probed, nil
		}
		if code == "" {
			code = c
		}
		why = append(why, fmt.Sprintf("%s: %s", got[n].res.ID, msg))
	}
	first := got[0].res
	ids := make([]string, len(got))
	for n := range got {
		ids[n] = got[n].res.ID
	}
	msg := fmt.Sprintf("%s (%s) on the first vector(s) run (%s), so the other %d vector(s) were not run (--no-fail-fast runs them anyway). %s",
		causeText[code], code, strings.Join(ids, ", "), len(p.vectors)-len(got), strings.Join(why, "; "))
	if line := stderrLine(first.Stderr); line != "" {
		msg += ". Its stderr says " + line
	}
	stop = &first
	stop.Findings = append(slices.Clone(first.Findings), Finding{Code: code, Status: first.Status, Message: msg})
	return stop, probed, nil
}

var causeText = map[string]string{
	FindingIUTExitedAtStart: "the IUT cannot start: it ended before writing a line",
	FindingIUTSilent:        "the IUT never answers: it wrote nothing and answered no request within the timeout",
	FindingAgentNotStarted:  "the IUT never starts the peer it was given (spawned mode) for a session",
	FindingHostSilent:       "the IUT starts the peer it was given (spawned mode) but answers none of its requests",
	FindingIUTRepliesAfterStdinClosed: "the IUT answers only once stdin closes: nothing came while it was open, so every vector would wait the whole timeout; " +
		"flush stdout after each line",
	FindingIUTSlowStart: "the IUT starts slower than the timeout: nothing came while stdin was open and its first line came well after conform closed stdin, so every vector would wait the whole timeout; " +
		"give it a longer --timeout (or timeout in its profile)",
	FindingIUTLinesRejected:    "the IUT's lines are all rejected: not one could be read as a frame, so no vector can pass",
	FindingIUTRepliesUnmatched: "the IUT's replies never match the requests: not one names the correlation id of a request that was sent (compared as canonical JSON: \"1\" and 1 differ), so every vector would wait the whole timeout",
}

// probes returns the indexes in p.vectors of the probe vectors.
func (p *plan) probes() []int {
	var out []int
	first, fallback := "", -1
	for i, v := range p.vectors {
		if i >= probeScan && (len(out) > 0 || i >= 2*probeScan) {
			break
		}
		if v.Level == suite.LevelInformational {
			continue
		}
		l, err := p.load(v)
		if err != nil || len(l.v.Expect.Replies) == 0 || l.v.Expect.Exit != "" {
			continue
		}
		sub := p.firstMethod(l.lines)
		switch {
		case len(out) == 0:
			out, first = append(out, i), sub
		case sub != first:
			return append(out, i)
		case fallback < 0:
			fallback = i
		}
	}
	if len(out) == 1 && fallback >= 0 && probeCount > 1 {
		out = append(out, fallback)
	}
	return out
}

// firstMethod is the method of the first request among the send lines,
// or "". A generated line is scanned as a stream, never built.
func (p *plan) firstMethod(lines []sendLine) string {
	for _, ln := range lines {
		v, ok := sentValue(ln, p.env.Locations())
		if !ok {
			continue
		}
		if c := p.env.Classify(v); c != nil && c.Kind == envelope.Request {
			return c.Method(v)
		}
	}
	return ""
}

// deadOrSilent returns the fail-fast cause a probe's result shows, with
// the finding that shows it, or "" when the IUT took part (it wrote a
// line, answered a request, or the vector awaited no reply). An IUT whose
// replies all came only after stdin closed, nothing before, is taken for a
// buffered one (IUT_REPLIES_AFTER_STDIN_CLOSED).
func (p *plan) deadOrSilent(r Result, o *outcome) (code, msg string) {
	if o != nil && p.cfg.Spawn == nil && o.awaited > 0 && o.early == 0 && len(o.late) > 0 {
		for _, f := range r.Findings {
			if f.Code == FindingReplyAfterStdinClosed && o.slowStart {
				return FindingIUTSlowStart, fmt.Sprintf("the reply to %s came only after stdin closed, %s after the IUT's start (%s)", strings.Join(o.late, ", "), o.firstLine.Round(100*time.Millisecond), f.Code)
			}
			if f.Code == FindingReplyAfterStdinClosed {
				return FindingIUTRepliesAfterStdinClosed, fmt.Sprintf("the reply to %s came only after stdin closed (%s)", strings.Join(o.late, ", "), f.Code)
			}
		}
	}
	if code, msg := protocolBroken(r, o); code != "" {
		return code, msg
	}
	if o == nil || o.awaited == 0 || o.lines > 0 {
		return "", ""
	}
	if r.Status != Crash && r.Status != Timeout && r.Status != ProtocolError {
		return "", ""
	}
	find := func(codes ...string) (Finding, bool) {
		for _, f := range r.Findings {
			if slices.Contains(codes, f.Code) && f.Status != "" {
				return f, true
			}
		}
		return Finding{}, false
	}
	if p.cfg.Spawn != nil {
		if f, ok := find(FindingAgentNotStarted); ok {
			return FindingAgentNotStarted, f.Message
		}
		if f, ok := find(FindingReplyMissing, FindingExitEarly, FindingKilledBySignal, FindingExitNonzero); ok {
			return FindingHostSilent, f.Message
		}
		return "", ""
	}
	if f, ok := find(FindingExitEarly, FindingKilledBySignal, FindingStdoutClosed); ok {
		return FindingIUTExitedAtStart, f.Message
	}
	if f, ok := find(FindingReplyMissing); ok && f.Status == Timeout {
		return FindingIUTSilent, f.Message
	}
	return "", ""
}

// protocolBroken returns the fail-fast cause of a probe that failed on
// which the IUT took part but broke the protocol throughout: it wrote
// lines and not one was read as a frame (IUT_LINES_REJECTED), or it
// replied and not one reply named a request that was sent
// (IUT_REPLIES_UNMATCHED); "" otherwise.
func protocolBroken(r Result, o *outcome) (code, msg string) {
	if o == nil || o.awaited == 0 || Severity(r.Status) == 0 {
		return "", ""
	}
	switch {
	case o.lines > 0 && o.accepted == 0:
		return FindingIUTLinesRejected, fmt.Sprintf("none of its %d line(s) was read as a frame (%s)", o.lines, firstFinding(r))
	case o.unsolicited > 0 && o.matched == 0:
		var sent []string
		if o.vector != nil {
			for _, id := range o.vector.Expect.Replies {
				sent = append(sent, envelope.Key(id))
			}
		}
		return FindingIUTRepliesUnmatched, fmt.Sprintf("its %d repl(ies) named ids no request sent carries (the first: %s), none an id it was sent (%s)",
			o.unsolicited, o.unsolicitedID, strings.Join(sent, ", "))
	}
	return "", ""
}

// firstFinding is "CODE: message" of r's first finding that has a status,
// or "".
func firstFinding(r Result) string {
	for _, f := range r.Findings {
		if f.Status != "" {
			return clip(f.Code + ": " + f.Message)
		}
	}
	return ""
}
