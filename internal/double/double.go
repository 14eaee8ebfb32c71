// Package double is the agent double of spawned mode: a stand-in for the
// Claude Code CLI 2.1.332 that a host-role IUT (an Agent SDK driver) starts
// itself, by the name claude on its PATH or the path in CONFORM_AGENT (both
// are the wrapper the runner writes; see runner.Config.Spawn).
//
// What it imitates, and what it does not, is in docs/double.md. In short,
// one session plays one vector's [Plan] over the double's own stdin (what
// the host writes) and stdout (what the host reads):
//
//  1. Startup. It answers every control_request the host sends, as the CLI
//     would: initialize gets a small success payload that satisfies
//     InitializeResponseBody in schemas/control.v1.json and the checks of
//     @anthropic-ai/claude-agent-sdk 0.3.332 and claude-agent-sdk (Python)
//     0.2.189 (hooks_applied, hook_on_failure_supported, ...); every other
//     subtype gets success with an empty body, so that no SDK aborts before
//     the vector is played. Each such request and each user turn is appended,
//     verbatim, to the observed file.
//  2. Play. On the host's first user turn (or [Options.UserTurnWait] after
//     the host's last request, if no user turn comes) it writes the plan's
//     send lines, then appends every other line the host writes to the
//     transcript file, verbatim, until each request_id of Plan.Replies has a
//     control_response or the session's deadline passes: a margin (a fifth
//     of Plan.TimeoutMS, at most 2 s) before Plan.DeadlineUnixMS, the time
//     the runner gives up on the host, or, in a plan without it, before
//     Plan.TimeoutMS after the double's start. A can_use_tool request
//     is withheld (never written, its reply not awaited) unless the host
//     started the double with --permission-prompt-tool stdio, since the CLI
//     sends can_use_tool only then ([Stats.Withheld]).
//  3. End. It writes a result frame (subtype success, as the CLI ends a
//     turn), on which the SDKs close its stdin; it keeps recording until
//     that EOF or [Options.EndWait], then returns (with a DeadlineUnixMS,
//     by half the margin before it at the latest, so that the runner reads
//     the end record before its own timer fires, however late the host
//     started the double).
//
// Every host line before the result frame is read as strictly as the runner
// reads an IUT's stdout (canon.Parse: one JSON object, no duplicate member,
// valid UTF-8, exact numbers). A line that fails, or a control_response
// without a response object or response.request_id, ends the session at
// once ([EndMalformed]), as the CLI exits on a line it cannot parse; a host
// that closes the double's stdin ends it too ([EndHostClosed]). So the
// runner learns at once why a reply is missing, instead of waiting for a
// timeout. [Stats] (the end record) says how the session ended.
//
// Every line is bounded by [Options.MaxLine] and every phase by a timeout.
package double

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/conform-kit/conform/internal/canon"
)

// Command is the name a host looks for the CLI by on its PATH, and EnvVar
// the variable that names the double's wrapper too (runner.Spawn.Name and
// Env: the Agent SDKs look for claude on PATH; CONFORM_AGENT is ours).
const (
	Command = "claude"
	EnvVar  = "CONFORM_AGENT"
)

// CLIVersion is the CLI release the double stands in for, and VersionLine
// what that release prints for --version, -v and -V (observed: exit status
// 0, nothing on stderr, stdin not read).
const (
	CLIVersion  = "2.1.332"
	VersionLine = CLIVersion + " (Claude Code)\n"
)

// IsVersionProbe reports whether args (the host's argv after the program
// name) ask for the version: the CLI answers --version, -v and -V wherever
// they stand among its flags and does nothing else.
func IsVersionProbe(args []string) bool {
	for _, a := range args {
		switch a {
		case "--version", "-v", "-V":
			return true
		}
	}
	return false
}

// PermissionPromptStdio reports whether args route permission prompts over
// the control channel: --permission-prompt-tool stdio or
// --permission-prompt-tool=stdio. Only then does CLI 2.1.332 send
// can_use_tool requests to its host (observed; see docs/double.md).
func PermissionPromptStdio(args []string) bool {
	for i, a := range args {
		if a == "--permission-prompt-tool=stdio" || (a == "--permission-prompt-tool" && i+1 < len(args) && args[i+1] == "stdio") {
			return true
		}
	}
	return false
}

// Defaults of [Options].
const (
	DefaultMaxLine      = 1 << 20
	DefaultUserTurnWait = 2 * time.Second
	DefaultEndWait      = 3 * time.Second
	DefaultTimeout      = 10 * time.Second
)

// Plan is runner.Plan as the double reads it: request_ids stay raw JSON so
// that a big integer or an escaped string is compared exactly (by its RFC
// 8785 form, as the runner does).
//
//	{"send":["<base64 line without LF>",...],"await":[{"before":1,"id":<id>}],
//	 "replies":[<request_id>,...],"timeout_ms":10000,"deadline_unix_ms":1796000000000}
//
// An await entry holds back Send[before] and the lines after it until the
// host has replied to request_id (the vector's await send item).
type Plan struct {
	Send      []string          `json:"send"`
	Await     []PlanAwait       `json:"await,omitempty"`
	Replies   []json.RawMessage `json:"replies"`
	TimeoutMS int64             `json:"timeout_ms"`
	// DeadlineUnixMS is when the runner gives up on the host, in Unix
	// milliseconds (runner.Plan); 0 counts TimeoutMS from the double's
	// start.
	DeadlineUnixMS int64 `json:"deadline_unix_ms,omitempty"`
}

// PlanAwait is one wait of a [Plan]: Send[Before] is written once the host
// has replied to RequestID.
type PlanAwait struct {
	Before    int             `json:"before"`
	RequestID json.RawMessage `json:"id"`
}

// ReadPlan reads and checks a plan file: every send item must be valid
// base64 and every reply a JSON value.
func ReadPlan(path string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read plan: %w", err)
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("parse plan %s: %w", path, err)
	}
	for i, s := range p.Send {
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			return nil, fmt.Errorf("plan %s: send[%d]: %w", path, i, err)
		}
	}
	for i, a := range p.Await {
		if a.Before < 0 || a.Before >= len(p.Send) {
			return nil, fmt.Errorf("plan %s: await[%d]: before %d is not a send index", path, i, a.Before)
		}
		if _, err := canon.CanonicalBytes(a.RequestID); err != nil {
			return nil, fmt.Errorf("plan %s: await[%d]: request_id: %w", path, i, err)
		}
	}
	return &p, nil
}

// Options configure [Run]. Zero durations and sizes take the defaults above;
// a zero Plan.TimeoutMS means [DefaultTimeout].
type Options struct {
	Plan *Plan
	// Transcript receives every line the host writes except its own
	// control requests and user turns, one per line, as received.
	Transcript io.Writer
	// Observed receives the host's own control requests and user turns.
	Observed io.Writer
	// MaxLine bounds a host line, in bytes. A longer line is recorded as its
	// first MaxLine+1 bytes, so the runner (with the same bound) reports it
	// as too large; the rest is discarded.
	MaxLine int
	// UserTurnWait is how long the double waits for a user turn after the
	// host's last request (or after start, if the host sends nothing) before
	// it plays the vector anyway.
	UserTurnWait time.Duration
	// EndWait bounds the wait for the host to close the double's stdin after
	// the result frame, and for the double's own writes to drain.
	EndWait time.Duration
	// SessionID is put in the frames the double writes (default: a fixed
	// UUID, so runs are reproducible).
	SessionID string
	// HostArgs are the flags the host started the double with (its argv
	// after the program name); they decide the CLI's preconditions
	// ([PermissionPromptStdio]).
	HostArgs []string
	// Decided, if set, is called once with the session's [Stats] as soon
	// as End is decided: before the result frame is written (or at the
	// malformed line), so before the host can end the session. A host may
	// kill the agent right after closing its stdin (PyPI claude-code-sdk
	// 0.0.25 does), before Run returns; what Decided records survives that.
	// An error from it ends Run with that error.
	Decided func(*Stats) error
}

// How a session ended ([Stats.End]).
const (
	// EndReplies: every awaited reply came (or none was awaited).
	EndReplies = "replies"
	// EndTimeout: the plan's timeout passed with replies still awaited.
	EndTimeout = "timeout"
	// EndHostClosed: the host closed the double's stdin (ended the session,
	// or exited) with replies still awaited.
	EndHostClosed = "host_closed"
	// EndMalformed: the host wrote a line the strict reader rejects, or a
	// control_response that names no request; the session ended there.
	EndMalformed = "malformed"
)

// Stats says what happened in one [Run]; its JSON form is the end record
// the runner reads (runner.Config.Spawn).
type Stats struct {
	// Played is true once the send lines were written.
	Played bool `json:"played"`
	// UserTurn is true if the play was started by a user turn.
	UserTurn bool `json:"user_turn"`
	// Pending lists the canonical request_ids of Plan.Replies that got no
	// control_response (withheld requests excluded), sorted.
	Pending []string `json:"pending,omitempty"`
	// HostEOF is true if the host closed the double's stdin.
	HostEOF bool `json:"host_eof"`
	// End is how the session ended: [EndReplies], [EndTimeout],
	// [EndHostClosed] or [EndMalformed].
	End string `json:"end"`
	// Detail says more for EndMalformed: the host line's number (1-based,
	// counting every line the host wrote) and what is wrong with it.
	Detail string `json:"detail,omitempty"`
	// Withheld lists the canonical request_ids of can_use_tool requests the
	// double did not send because the host did not start it with
	// --permission-prompt-tool stdio, in plan order.
	Withheld []string `json:"withheld,omitempty"`
	// WithheldWhy says, for the runner's AGENT_PRECONDITION finding, why
	// the Withheld requests were not sent (empty when none were).
	WithheldWhy string `json:"withheld_why,omitempty"`
	// AwaitUnmet is the canonical request_id whose reply the plan waited
	// for and never got (Plan.Await), so the lines after it were not
	// written; Unsent lists the request_ids of those lines, which are not
	// counted in Pending.
	AwaitUnmet string   `json:"await_unmet,omitempty"`
	Unsent     []string `json:"unsent,omitempty"`
}

// withheldWhy is Stats.WithheldWhy: the precondition the CLI puts on
// can_use_tool (observed on 2.1.321 to 2.1.332; docs/double.md).
const withheldWhy = "the agent did not send can_use_tool: CLI " + CLIVersion +
	" sends can_use_tool only to a host that started it with --permission-prompt-tool stdio, and this host did not"

const defaultSessionID = "00000000-0000-4000-8000-000000000000"

// hostLine is one line the host wrote, or the end of its output.
type hostLine struct {
	data []byte
	eof  bool
	err  error
}

// Run plays o.Plan with the host on in (host → agent) and out (agent →
// host). It returns when the session is over; its error is for failures of
// the double itself (a write to a file failing, ctx cancelled).
func Run(ctx context.Context, o Options, in io.Reader, out io.Writer) (*Stats, error) {
	if o.Plan == nil {
		return nil, errors.New("no plan")
	}
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.UserTurnWait <= 0 {
		o.UserTurnWait = DefaultUserTurnWait
	}
	if o.EndWait <= 0 {
		o.EndWait = DefaultEndWait
	}
	if o.SessionID == "" {
		o.SessionID = defaultSessionID
	}
	if o.Transcript == nil {
		o.Transcript = io.Discard
	}
	if o.Observed == nil {
		o.Observed = io.Discard
	}
	timeout := time.Duration(o.Plan.TimeoutMS) * time.Millisecond
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	// The runner's own timer (the same timeout) started with the host, before
	// the double: keep a margin so that a missing reply ends the session
	// (REPLY_MISSING) before the runner gives up on the host. The plan says
	// when that is; a host that took long to start the double (a JVM) has
	// that much less time.
	margin := min(timeout/5, 2*time.Second)
	giveUp := time.Now().Add(timeout)
	var endBy time.Time // the end phase's limit, with a deadline
	if o.Plan.DeadlineUnixMS > 0 {
		giveUp = time.UnixMilli(o.Plan.DeadlineUnixMS)
		endBy = giveUp.Add(-margin / 2)
	}
	sessionEnd := giveUp.Add(-margin)
	pending := map[string]bool{}
	for _, id := range o.Plan.Replies {
		k, err := canon.CanonicalBytes(id)
		if err != nil {
			return nil, fmt.Errorf("plan reply %s: %w", id, err)
		}
		pending[string(k)] = true
	}

	lines := make(chan hostLine, 64)
	go readLines(in, o.MaxLine, lines)
	w := newWriter(out)
	defer w.close()

	d := &session{o: o, w: w, pending: pending, answered: map[string]bool{}, st: &Stats{}, endBy: endBy}
	st := d.st
	stdio := PermissionPromptStdio(o.HostArgs)

	// 1. Startup: answer the host's requests until a user turn or a quiet
	// UserTurnWait. The whole startup is bounded by the plan's timeout too.
	quiet := time.NewTimer(o.UserTurnWait)
	defer quiet.Stop()
	startup := time.NewTimer(max(time.Until(sessionEnd), 0))
	defer startup.Stop()
startupLoop:
	for {
		select {
		case ln := <-lines:
			if ln.eof {
				st.HostEOF = true
				break startupLoop
			}
			kind, err := d.handle(ln.data)
			if err != nil {
				return st, err
			}
			switch kind {
			case kindMalformed:
				return d.malformed()
			case kindUser:
				st.UserTurn = true
				break startupLoop
			case kindRequest:
				quiet.Reset(o.UserTurnWait)
			}
		case <-quiet.C:
			break startupLoop
		case <-startup.C:
			break startupLoop
		case <-ctx.Done():
			return st, ctx.Err()
		}
	}

	// 2. Play the vector and collect the host's answers. A line the plan
	// holds back waits for its reply; when that never comes (the deadline,
	// the host's end, a request withheld), the rest is not written.
	deadline := time.NewTimer(max(time.Until(sessionEnd), 0))
	defer deadline.Stop()
	awaits := map[int]string{}
	for _, a := range o.Plan.Await {
		k, _ := canon.CanonicalBytes(a.RequestID) // checked by ReadPlan
		awaits[a.Before] = string(k)
	}
	expired := false // the deadline has fired
play:
	for i, s := range o.Plan.Send {
		if k, ok := awaits[i]; ok {
			for !d.answered[k] {
				if st.HostEOF || slices.Contains(st.Withheld, k) {
					d.unsent(k, o.Plan.Send[i:])
					break play
				}
				switch r, err := d.step(ctx, lines, deadline.C); r {
				case stepFailed:
					return st, err
				case stepMalformed:
					return d.malformed()
				case stepDeadline:
					expired = true
					d.unsent(k, o.Plan.Send[i:])
					break play
				}
			}
		}
		b, _ := base64.StdEncoding.DecodeString(s) // checked by ReadPlan
		if id, ok := canUseTool(b); ok && !stdio {
			st.Withheld = append(st.Withheld, id)
			st.WithheldWhy = withheldWhy
			delete(d.pending, id)
			continue
		}
		w.write(append(b, '\n'))
	}
	st.Played = true
collect:
	for !expired && len(d.pending) > 0 && !st.HostEOF {
		switch r, err := d.step(ctx, lines, deadline.C); r {
		case stepFailed:
			return st, err
		case stepMalformed:
			return d.malformed()
		case stepDeadline:
			break collect
		}
	}
	for k := range d.pending {
		st.Pending = append(st.Pending, k)
	}
	sort.Strings(st.Pending)
	switch {
	case len(st.Pending) == 0:
		st.End = EndReplies
	case st.HostEOF:
		st.End = EndHostClosed
	default:
		st.End = EndTimeout
	}
	if err := d.decided(); err != nil {
		return st, err
	}

	// 3. End the turn like the CLI and record what the host still writes
	// until it closes stdin.
	w.write(d.result())
	end := time.NewTimer(d.endWait())
	defer end.Stop()
	for !st.HostEOF {
		select {
		case ln := <-lines:
			if ln.eof {
				st.HostEOF = true
				break
			}
			if _, err := d.handle(ln.data); err != nil {
				return st, err
			}
		case <-end.C:
			return st, w.drain(d.endWait())
		case <-ctx.Done():
			return st, ctx.Err()
		}
	}
	return st, w.drain(d.endWait())
}

// endWait is how long the end phase may still wait: [Options.EndWait], or
// less where the plan's deadline comes first.
func (d *session) endWait() time.Duration {
	if d.endBy.IsZero() {
		return d.o.EndWait
	}
	return min(d.o.EndWait, max(time.Until(d.endBy), 0))
}

// stepResult is what [session.step] saw.
type stepResult int

const (
	stepLine      stepResult = iota // a host line, handled (or the end of its output: HostEOF is set)
	stepMalformed                   // a malformed host line: the session ends at it
	stepDeadline                    // the deadline passed first
	stepFailed                      // recording failed or ctx ended: the error says which
)

// step waits for the next host line and handles it, or for the deadline.
func (d *session) step(ctx context.Context, lines <-chan hostLine, deadline <-chan time.Time) (stepResult, error) {
	select {
	case ln := <-lines:
		if ln.eof {
			d.st.HostEOF = true
			return stepLine, nil
		}
		kind, err := d.handle(ln.data)
		switch {
		case err != nil:
			return stepFailed, err
		case kind == kindMalformed:
			return stepMalformed, nil
		}
		return stepLine, nil
	case <-deadline:
		return stepDeadline, nil
	case <-ctx.Done():
		return stepFailed, ctx.Err()
	}
}

type lineKind int

const (
	kindOther     lineKind = iota // recorded in the transcript
	kindRequest                   // the host's own control_request, answered
	kindUser                      // a user turn
	kindMalformed                 // recorded in the transcript; ends the session
)

type session struct {
	o       Options
	w       *writer
	pending map[string]bool
	// answered holds every request_id (RFC 8785 form) the host replied to.
	answered map[string]bool
	st       *Stats
	// n counts the host's lines; why says what is wrong with the last
	// kindMalformed line.
	n   int
	why string
	// endBy is when the end phase must be over (zero: EndWait alone).
	endBy time.Time
}

// malformed ends the session at the host's malformed line: no result
// frame, as the CLI exits on a line it cannot parse.
func (d *session) malformed() (*Stats, error) {
	d.st.End = EndMalformed
	d.st.Detail = fmt.Sprintf("host line %d: %s", d.n, d.why)
	for k := range d.pending {
		d.st.Pending = append(d.st.Pending, k)
	}
	sort.Strings(d.st.Pending)
	if err := d.decided(); err != nil {
		return d.st, err
	}
	return d.st, d.w.drain(d.endWait())
}

// decided hands the session's outcome to Options.Decided, if set.
func (d *session) decided() error {
	if d.o.Decided == nil {
		return nil
	}
	if err := d.o.Decided(d.st); err != nil {
		return fmt.Errorf("record the session's outcome: %w", err)
	}
	return nil
}

// unsent records that the plan's lines rest were not written because the
// reply to awaited never came: their requests leave pending.
func (d *session) unsent(awaited string, rest []string) {
	d.st.AwaitUnmet = awaited
	for _, s := range rest {
		b, _ := base64.StdEncoding.DecodeString(s) // checked by ReadPlan
		if id, _, ok := controlRequest(b); ok {
			d.st.Unsent = append(d.st.Unsent, id)
			delete(d.pending, id)
		}
	}
}

// canUseTool returns the canonical request_id of line if it is a
// can_use_tool control_request (read leniently, as the runner reads what
// it sends).
func canUseTool(line []byte) (string, bool) {
	id, subtype, ok := controlRequest(line)
	return id, ok && subtype == "can_use_tool"
}

// controlRequest returns the canonical request_id and the subtype of line
// if it is a control_request (read leniently, as the runner reads what it
// sends).
func controlRequest(line []byte) (id, subtype string, ok bool) {
	var env struct {
		Type      string          `json:"type"`
		RequestID json.RawMessage `json:"request_id"`
		Request   struct {
			Subtype string `json:"subtype"`
		} `json:"request"`
	}
	if json.Unmarshal(line, &env) != nil || env.Type != "control_request" || env.RequestID == nil {
		return "", "", false
	}
	k, err := canon.CanonicalBytes(env.RequestID)
	if err != nil {
		return "", "", false
	}
	return string(k), env.Request.Subtype, true
}

// handle classifies one host line, records it and answers it if it is the
// host's own request. The line is read strictly (canon.Parse), as the
// runner reads it; kindMalformed sets d.why.
func (d *session) handle(line []byte) (lineKind, error) {
	d.n++
	if len(bytes.TrimSpace(line)) == 0 {
		return kindOther, d.record(d.o.Transcript, line) // the runner skips blank lines too
	}
	v, err := canon.Parse(line)
	if err != nil {
		d.why = err.Error()
		return kindMalformed, d.record(d.o.Transcript, line)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		d.why = "not a JSON object"
		return kindMalformed, d.record(d.o.Transcript, line)
	}
	switch obj["type"] {
	case "control_request":
		if err := d.record(d.o.Observed, line); err != nil {
			return kindRequest, err
		}
		sub := ""
		if req, ok := obj["request"].(map[string]any); ok {
			sub, _ = req["subtype"].(string)
		}
		var id json.RawMessage
		if rid, ok := obj["request_id"]; ok {
			id, _ = canon.Canonical(rid)
		}
		d.w.write(d.answer(id, sub))
		return kindRequest, nil
	case "user":
		return kindUser, d.record(d.o.Observed, line)
	case "control_response":
		resp, ok := obj["response"].(map[string]any)
		if !ok {
			d.why = "a control_response without a response object"
			return kindMalformed, d.record(d.o.Transcript, line)
		}
		rid, ok := resp["request_id"]
		if !ok {
			d.why = "a control_response without response.request_id"
			return kindMalformed, d.record(d.o.Transcript, line)
		}
		// Any subtype answers the request: the runner judges the reply
		// (schema, body) from the transcript.
		if k, err := canon.Canonical(rid); err == nil {
			delete(d.pending, string(k))
			d.answered[string(k)] = true
		}
	}
	return kindOther, d.record(d.o.Transcript, line)
}

func (d *session) record(w io.Writer, line []byte) error {
	if _, err := w.Write(append(append([]byte{}, line...), '\n')); err != nil {
		return fmt.Errorf("record host line: %w", err)
	}
	return nil
}

// answer is the double's reply to a host request: initialize gets
// [InitializeResponse], anything else success with an empty body.
func (d *session) answer(id json.RawMessage, subtype string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	var body any = map[string]any{}
	if subtype == "initialize" {
		body = InitializeResponse(os.Getpid())
	}
	b, _ := json.Marshal(map[string]any{
		"type": "control_response",
		"response": map[string]any{
			"subtype":    "success",
			"request_id": id,
			"response":   body,
		},
	})
	return append(b, '\n')
}

// InitializeResponse is the double's initialize success body: the members
// InitializeResponseBody requires (schemas/control.v1.json) and the flags the
// Agent SDKs check before they go on (hooks_applied,
// hook_on_failure_supported, mcp_servers_applied, settings_applied,
// disallowed_tools_applied, plugins_applied, managed_settings_applied).
func InitializeResponse(pid int) map[string]any {
	return map[string]any{
		"commands":                  []any{},
		"agents":                    []any{},
		"output_style":              "default",
		"available_output_styles":   []any{"default"},
		"models":                    []any{map[string]any{"value": "default", "displayName": "Default", "description": "conform agent double"}},
		"account":                   map[string]any{},
		"claude_code_version":       "2.1.332",
		"pid":                       pid,
		"current_permission_mode":   "default",
		"hooks_applied":             true,
		"hook_on_failure_supported": true,
		"mcp_servers_applied":       true,
		"settings_applied":          true,
		"disallowed_tools_applied":  true,
		"plugins_applied":           true,
		"managed_settings_applied":  true,
	}
}

// result is the frame that ends the turn, shaped like the CLI's (the Python
// SDK requires subtype, duration_ms, duration_api_ms, is_error, num_turns
// and session_id).
func (d *session) result() []byte {
	b, _ := json.Marshal(map[string]any{
		"type":            "result",
		"subtype":         "success",
		"is_error":        false,
		"duration_ms":     0,
		"duration_api_ms": 0,
		"num_turns":       1,
		"result":          "",
		"stop_reason":     "end_turn",
		"session_id":      d.o.SessionID,
		"total_cost_usd":  0,
		"usage": map[string]any{
			"input_tokens": 0, "output_tokens": 0,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
		},
		"modelUsage":         map[string]any{},
		"permission_denials": []any{},
		"uuid":               "00000000-0000-4000-8000-000000000001",
	})
	return append(b, '\n')
}

// readLines sends each line of r (without its LF) to out, then an EOF
// item. A line longer than max is cut to max+1 bytes and the rest skipped; a
// last line without LF is sent as is.
func readLines(r io.Reader, max int, out chan<- hostLine) {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 && !over {
			room := max + 1 - len(buf)
			if len(chunk) > room {
				buf = append(buf, chunk[:room]...)
				over = true
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil:
			line := bytes.TrimSuffix(buf, []byte("\n"))
			out <- hostLine{data: append([]byte{}, line...)}
			buf, over = buf[:0], false
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			if len(buf) > 0 {
				out <- hostLine{data: append([]byte{}, buf...)}
			}
			if errors.Is(err, io.EOF) {
				err = nil
			}
			out <- hostLine{eof: true, err: err}
			return
		}
	}
}

// writer is the one goroutine that writes to the host, so a host that does
// not read never blocks the double's own loop.
type writer struct {
	ch     chan []byte
	done   chan struct{}
	closer sync.Once
	err    error
}

func newWriter(out io.Writer) *writer {
	w := &writer{ch: make(chan []byte, 256), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for b := range w.ch {
			if w.err != nil {
				continue
			}
			if _, err := out.Write(b); err != nil {
				w.err = err // the host closed its end: keep draining
			}
		}
	}()
	return w
}

func (w *writer) write(b []byte) { w.ch <- b }

// drain closes the queue and waits up to d for it to be written. A host
// that stopped reading is not the double's failure.
func (w *writer) drain(d time.Duration) error {
	w.close()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
	}
	return nil
}

func (w *writer) close() { w.closer.Do(func() { close(w.ch) }) }
