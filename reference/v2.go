package reference

// Version 2 is normative (docs/v2.md, schemas/control.v2.json): where v1
// records what the Claude Code CLI 2.1.332 happens to do, AgentV2 does what
// v2 says, and its output generates golden/v2. It speaks protocol version 2
// only; version 1 is served by [Agent].

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/conform-kit/conform/internal/canon"
)

// Bounds and fixed values of protocol version 2 (docs/v2.md).
const (
	// SchemaVersionV2 is the schemaVersion every v2 control frame carries.
	SchemaVersionV2 = 2
	// MaxFrameV2 is the longest input line, in bytes without its LF, a v2
	// agent reads; a longer line gets a frame_too_large diagnostic (seed 002
	// §Durable wire rules: frames are bounded at 1 MiB).
	MaxFrameV2 = 1 << 20
	// ExcerptMaxV2 is the most bytes of an input line a control_diagnostic
	// quotes in its excerpt.
	ExcerptMaxV2 = 256
)

// Error and diagnostic codes AgentV2 writes (an open set: readers accept
// codes they do not know).
const (
	CodeNotInitialized           = "not_initialized"
	CodeAlreadyInitialized       = "already_initialized"
	CodeVersionMismatch          = "version_mismatch"
	CodeUnsupportedSchemaVersion = "unsupported_schema_version"
	CodeUnsupportedFrameType     = "unsupported_frame_type"
	CodeUnsupportedRequest       = "unsupported_request"
	CodeInvalidRequest           = "invalid_request"
	CodeInvalidMode              = "invalid_mode"
	CodeBypassNotLaunched        = "bypass_not_launched"
	CodeUnknownModel             = "unknown_model"
	CodeUnknownServer            = "unknown_server"
	CodeRewindUnavailable        = "rewind_unavailable"
	CodeDuplicateRequestID       = "duplicate_request_id"
	CodeRequestReplayed          = "request_replayed"
	CodeFrameTooLarge            = "frame_too_large"
	CodeMalformedFrame           = "malformed_frame"
	CodeCancelled                = "cancelled"
)

// streamTypes are the stream-json frame types outside the control channel
// (suite.json passOver); a v2 agent handles them outside this protocol, and
// the reference, which runs no turns, reads and ignores them.
func streamType(t string) bool {
	switch t {
	case "system", "assistant", "user", "result", "stream_event", "control_request_progress",
		"keep_alive", "rate_limit_event", "tool_progress", "auth_status":
		return true
	}
	return false
}

// AgentV2 is the agent role of protocol version 2. It is deterministic: the
// same input lines always produce the same output bytes. The zero value is
// not ready; use [NewAgentV2]. An AgentV2 is not safe for concurrent use.
type AgentV2 struct {
	initialized bool
	proto       int
	model       string
	mode        string
	// seen maps every request_id that got (or will get) its one terminal
	// reply to its request's canonical bytes and stored reply.
	seen map[string]*entryV2
	// pending lists the ids of hold requests not yet finished, oldest first.
	pending []string
}

type entryV2 struct {
	canonical []byte
	reply     []byte // nil while the request is pending
}

// NewAgentV2 returns a v2 agent before initialize: DefaultModel, mode
// "default", no request ids used.
func NewAgentV2() *AgentV2 {
	return &AgentV2{model: DefaultModel, mode: "default", seen: map[string]*entryV2{}}
}

// Versions returns the protocol versions AgentV2 speaks, ascending: [2].
func (a *AgentV2) Versions() []int { return []int{2} }

// Serve reads lines from r until EOF and writes the v2 frames they call for
// to w, one per line. Lines longer than [MaxFrameV2] bytes are never held in
// memory beyond that bound. At EOF every pending request gets its terminal
// error reply (code cancelled) and Serve returns nil. It returns an
// [*ExitError] (status 1) after answering an initialize with
// version_mismatch, ctx's error when ctx ends, or a read or write error.
func (a *AgentV2) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	return serveFramesV2(ctx, r, w, a.handle, a.End)
}

// serveFramesV2 is the v2 line loop of both roles: it reads lines of at
// most MaxFrameV2 bytes (longer ones are measured, not held), hands each to
// handle with its full size, writes the frames handle returns one per line,
// flushes whenever no more input is buffered (pipelined requests are
// answered in one write, a lone request is never held), and at EOF writes
// end's frames. It returns nil at EOF, handle's error (after writing its
// frames), ctx's error, or a read or write error.
func serveFramesV2(ctx context.Context, r io.Reader, w io.Writer, handle func([]byte, int) ([][]byte, error), end func() [][]byte) error {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriter(w)
	write := func(frames [][]byte) {
		for _, f := range frames {
			bw.Write(f)
			bw.WriteByte('\n')
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			bw.Flush()
			return err
		}
		line, size, rerr := readBounded(br, MaxFrameV2)
		if size > 0 || rerr == nil {
			out, err := handle(line, size)
			write(out)
			if err != nil {
				bw.Flush()
				return err
			}
			if br.Buffered() == 0 {
				if err := bw.Flush(); err != nil {
					return err
				}
			}
		}
		if rerr == io.EOF {
			write(end())
			return bw.Flush()
		}
		if rerr != nil {
			bw.Flush()
			return rerr
		}
	}
}

// readBounded reads one line and returns at most max+1 of its bytes (without
// the LF), and its full size in bytes without the LF. err is io.EOF when the
// input ended (line may then hold a last line without LF).
func readBounded(br *bufio.Reader, max int) (line []byte, size int, err error) {
	line = []byte{}
	for {
		chunk, e := br.ReadSlice('\n')
		content := chunk
		if e == nil {
			content = chunk[:len(chunk)-1]
		}
		size += len(content)
		if room := max + 1 - len(line); room > 0 {
			line = append(line, content[:min(room, len(content))]...)
		}
		switch e {
		case bufio.ErrBufferFull:
			continue
		case nil:
			return line, size, nil
		default:
			return line, size, e
		}
	}
}

// Handle answers one input line (with or without its LF) and returns the
// frames to write, in order, each without LF: none, one, or two (a release
// finishes its hold first). The error is an [*ExitError] after a
// version_mismatch reply: the agent must stop reading and exit.
func (a *AgentV2) Handle(line []byte) ([][]byte, error) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return a.handle(line, len(line))
}

// End finishes the session at end of input: every pending request gets its
// one terminal reply, an error with code cancelled, oldest first.
func (a *AgentV2) End() [][]byte {
	var out [][]byte
	for _, id := range a.pending {
		out = append(out, a.finish(id, nil, errObj(CodeCancelled, "input ended before the request finished")))
	}
	a.pending = nil
	return out
}

// handle judges one line of size bytes (line holds at most MaxFrameV2+1 of
// them), in the order docs/v2.md §7 gives.
func (a *AgentV2) handle(line []byte, size int) ([][]byte, error) {
	if size > MaxFrameV2 {
		return one(diagnostic(CodeFrameTooLarge, fmt.Sprintf("line of %d bytes exceeds the %d-byte frame limit; it was not read", size, MaxFrameV2), "", line, size, nil)), nil
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, nil // blank lines carry nothing
	}
	v, err := canon.Parse(line)
	if err != nil {
		return one(diagnostic(CodeMalformedFrame, "line is not strict JSON: "+err.Error(), "", line, size, nil)), nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return one(diagnostic(CodeMalformedFrame, "line is not a JSON object", "", line, size, nil)), nil
	}
	typ, _ := obj["type"].(string)
	if streamType(typ) {
		return nil, nil
	}
	id, _ := obj["request_id"].(string)
	if typ == "control_response" {
		resp, _ := obj["response"].(map[string]any)
		id, _ = resp["request_id"].(string) // a reply names its request inside response
	}
	isRequest := typ == "control_request"

	// A used request_id never gets a second control_response.
	if isRequest && id != "" {
		if e := a.seen[id]; e != nil {
			c, _ := canon.Canonical(v)
			if !bytes.Equal(c, e.canonical) {
				return one(diagnostic(CodeDuplicateRequestID, fmt.Sprintf("request_id %q is already used by a different request; this one was not run", id), id, line, size, nil)), nil
			}
			msg := "retransmission of an answered request: stored reply attached, not run again"
			if e.reply == nil {
				msg = "retransmission of a pending request: not run again; its reply follows when it finishes"
			}
			return one(diagnostic(CodeRequestReplayed, msg, id, line, size, e.reply)), nil
		}
	}

	if !isSchemaV2(obj) {
		msg := fmt.Sprintf("schemaVersion must be the integer %d", SchemaVersionV2)
		if _, present := obj["schemaVersion"]; !present {
			msg = fmt.Sprintf("schemaVersion is required (this agent reads schemaVersion %d)", SchemaVersionV2)
		}
		if isRequest && id != "" {
			a.seen[id] = &entryV2{canonical: mustCanonical(v)}
			return one(a.finish(id, nil, errObj(CodeUnsupportedSchemaVersion, msg))), nil
		}
		return one(diagnostic(CodeUnsupportedSchemaVersion, msg, id, line, size, nil)), nil
	}

	switch typ {
	case "control_request":
	case "control_response", "control_cancel_request":
		if id == "" {
			return one(diagnostic(CodeInvalidRequest, "request_id must be a non-empty string", "", line, size, nil)), nil
		}
		if typ == "control_cancel_request" {
			if i := slices.Index(a.pending, id); i >= 0 {
				a.pending = slices.Delete(a.pending, i, i+1)
				return one(a.finish(id, nil, errObj(CodeCancelled, "cancelled by control_cancel_request"))), nil
			}
		}
		// A reply to a request this agent never sent, or a cancel for an
		// unknown or finished request: nothing to do, nothing written.
		return nil, nil
	case "control_diagnostic":
		return nil, nil // about our output; never answered
	default:
		msg := fmt.Sprintf("unknown frame type %q", typ)
		if _, present := obj["type"]; !present || typ == "" {
			msg = "type must be a non-empty string"
		}
		return one(diagnostic(CodeUnsupportedFrameType, msg, "", line, size, nil)), nil
	}

	if id == "" {
		return one(diagnostic(CodeInvalidRequest, "request_id must be a non-empty string", "", line, size, nil)), nil
	}
	a.seen[id] = &entryV2{canonical: mustCanonical(v)}
	body, ok := obj["request"].(map[string]any)
	if !ok {
		return one(a.finish(id, nil, errObj(CodeInvalidRequest, "request must be an object"))), nil
	}
	subtype, _ := body["subtype"].(string)
	if subtype == "" {
		return one(a.finish(id, nil, errObj(CodeInvalidRequest, "request.subtype must be a non-empty string"))), nil
	}
	if !a.initialized && subtype != "initialize" {
		return one(a.finish(id, nil, errObj(CodeNotInitialized, "initialize must come first"))), nil
	}
	switch subtype {
	case "hold":
		a.pending = append(a.pending, id)
		return nil, nil
	case "release":
		target, _ := body["target"].(string)
		if target == "" {
			return one(a.finish(id, nil, errObj(CodeInvalidRequest, "release: target must be a non-empty string"))), nil
		}
		i := slices.Index(a.pending, target)
		if i < 0 {
			return one(a.finish(id, map[string]any{"released": false}, nil)), nil
		}
		a.pending = slices.Delete(a.pending, i, i+1)
		return [][]byte{
			a.finish(target, map[string]any{"releasedBy": id}, nil),
			a.finish(id, map[string]any{"released": true}, nil),
		}, nil
	case "initialize":
		payload, e, exit := a.initializeV2(body)
		out := one(a.finish(id, payload, e))
		if exit {
			return out, &ExitError{Code: 1, Msg: "conform reference: " + e["message"].(string)}
		}
		return out, nil
	}
	payload, e := a.dispatchV2(subtype, body)
	return one(a.finish(id, payload, e)), nil
}

// initializeV2 negotiates the protocol version (docs/v2.md §1). exit reports
// a version_mismatch: the agent must stop reading.
func (a *AgentV2) initializeV2(body map[string]any) (payload, e map[string]any, exit bool) {
	if a.initialized {
		return nil, errObj(CodeAlreadyInitialized, fmt.Sprintf("the session is already initialized (protocolVersion %d)", a.proto)), false
	}
	raw, _ := body["protocolVersions"].([]any)
	if len(raw) == 0 {
		return nil, errObj(CodeInvalidRequest, "initialize: protocolVersions must be a non-empty array of distinct positive integers"), false
	}
	offered := make([]int, 0, len(raw))
	for _, x := range raw {
		n, ok := positiveInt(x)
		if !ok || slices.Contains(offered, n) {
			return nil, errObj(CodeInvalidRequest, "initialize: protocolVersions must be a non-empty array of distinct positive integers"), false
		}
		offered = append(offered, n)
	}
	best := 0
	for _, n := range a.Versions() {
		if slices.Contains(offered, n) && n > best {
			best = n
		}
	}
	if best == 0 {
		slices.Sort(offered)
		return nil, errObj(CodeVersionMismatch, fmt.Sprintf("no shared protocol version: the host speaks %v, this agent speaks %v", offered, a.Versions())), true
	}
	a.initialized, a.proto = true, best
	return map[string]any{"protocolVersion": best, "session": a.session()}, nil, false
}

// session is the build-specific part of the initialize payload (suites
// normalize it as any-object): the same small description v1 reports.
func (a *AgentV2) session() map[string]any { return sessionDescription(a.mode) }

// dispatchV2 answers a request of a subtype other than initialize, hold and
// release after initialize: the success payload, or an error object.
func (a *AgentV2) dispatchV2(subtype string, body map[string]any) (map[string]any, map[string]any) {
	switch subtype {
	case "interrupt":
		if !optional(body, "cancel_queued", isBool) {
			return nil, errObj(CodeInvalidRequest, "interrupt: cancel_queued must be a boolean")
		}
		return map[string]any{"still_queued": []any{}}, nil
	case "set_model":
		return a.setModelV2(body)
	case "set_permission_mode":
		mode, ok := body["mode"].(string)
		switch {
		case !ok:
			return nil, errObj(CodeInvalidRequest, "set_permission_mode: mode must be a string")
		case mode == "bypassPermissions":
			return nil, errObj(CodeBypassNotLaunched, "Cannot set permission mode to bypassPermissions because the session was not launched with --dangerously-skip-permissions")
		case slices.Contains(permissionModes, mode):
			a.mode = mode
			return map[string]any{"mode": mode}, nil
		}
		return nil, errObj(CodeInvalidMode, "Cannot set permission mode: must be one of "+strings.Join(permissionModes, ", "))
	case "set_max_thinking_tokens":
		okTokens := optional(body, "max_thinking_tokens", func(x any) bool { _, ok := nonNegativeInt(x); return ok || x == nil })
		okDisplay := optional(body, "thinking_display", func(x any) bool {
			return x == nil || x == "summarized" || x == "omitted" || x == "highlights"
		})
		if !okTokens || !okDisplay {
			return nil, errObj(CodeInvalidRequest, `set_max_thinking_tokens: max_thinking_tokens must be a non-negative integer or null and thinking_display must be "summarized", "omitted", "highlights", or null`)
		}
		return map[string]any{}, nil
	case "get_binary_version":
		return map[string]any{"version": Version, "buildTime": BuildTime, "oldestDesktopSdk": OldestDesktopSDK}, nil
	case "mcp_status":
		if !optional(body, "liveReply", isBool) {
			return nil, errObj(CodeInvalidRequest, "mcp_status: liveReply must be a boolean")
		}
		return map[string]any{"mcpServers": []any{}}, nil
	case "get_context_usage":
		if !optional(body, "detail", func(x any) bool { return x == "summary" || x == "full" }) {
			return nil, errObj(CodeInvalidRequest, `get_context_usage: detail must be "summary" or "full"`)
		}
		return map[string]any{"categories": []any{}, "model": a.model, "totalTokens": 0, "maxTokens": 200000}, nil
	case "rewind_files":
		if _, ok := body["user_message_id"].(string); !ok || !optional(body, "dry_run", isBool) {
			return nil, errObj(CodeInvalidRequest, "rewind_files: user_message_id must be a string and dry_run a boolean")
		}
		const msg = "File rewinding is not enabled."
		if body["dry_run"] == true {
			return map[string]any{"canRewind": false, "reason": msg}, nil
		}
		return nil, errObj(CodeRewindUnavailable, msg)
	case "mcp_reconnect", "mcp_toggle":
		name, ok := body["serverName"].(string)
		if !ok || (subtype == "mcp_toggle" && !isBool(body["enabled"])) {
			return nil, errObj(CodeInvalidRequest, subtype+": serverName must be a string"+map[bool]string{true: " and enabled a boolean"}[subtype == "mcp_toggle"])
		}
		return nil, errObj(CodeUnknownServer, "Server not found: "+name)
	case "stop_task":
		if _, ok := body["task_id"].(string); !ok {
			return nil, errObj(CodeInvalidRequest, "stop_task: task_id must be a string")
		}
		return map[string]any{}, nil // stopping a task that is not running is a no-op
	}
	return nil, errObj(CodeUnsupportedRequest, "Unsupported control request subtype: "+subtype)
}

// modelCatalogV2 maps every name set_model accepts (aliases and full ids) to
// the full id it selects.
func modelCatalogV2(name string) (string, bool) {
	switch name {
	case "default":
		return DefaultModel, true
	case "sonnet", "opus", "haiku":
		return "claude-" + name + "-5-5", true
	case "claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-5-5":
		return name, true
	}
	return "", false
}

// setModelV2: omitted or null selects the default; "" and non-strings are
// invalid; an alias or catalog id (with an optional [..] suffix such as
// [1m]) is selected; any other name is unknown_model (never a network check).
func (a *AgentV2) setModelV2(body map[string]any) (map[string]any, map[string]any) {
	raw, present := body["model"]
	if !present || raw == nil {
		a.model = DefaultModel
		return map[string]any{"model": a.model}, nil
	}
	name, ok := raw.(string)
	if !ok || name == "" {
		return nil, errObj(CodeInvalidRequest, "set_model: model must be a non-empty string or null")
	}
	base, _, _ := strings.Cut(name, "[")
	full, ok := modelCatalogV2(base)
	if !ok {
		return nil, errObj(CodeUnknownModel, fmt.Sprintf("set_model: %q is not in this agent's model catalog; model not changed", truncate(name, 64)))
	}
	a.model = full
	return map[string]any{"model": a.model}, nil
}

// finish writes the one terminal reply of request id: success with payload
// when e is nil, else an error reply. It stores the reply for
// retransmissions.
func (a *AgentV2) finish(id string, payload, e map[string]any) []byte {
	return finishV2(a.seen, id, payload, e)
}

// finishV2 builds the one terminal reply of request id (success with
// payload when e is nil, else an error reply with the error object e) and
// stores it in seen for retransmissions; both v2 roles use it.
func finishV2(seen map[string]*entryV2, id string, payload, e map[string]any) []byte {
	resp := map[string]any{"request_id": id}
	if e != nil {
		resp["subtype"] = "error"
		resp["error"] = e
	} else {
		resp["subtype"] = "success"
		resp["response"] = payload
	}
	b, _ := marshal(map[string]any{"type": "control_response", "schemaVersion": SchemaVersionV2, "response": resp})
	if ent := seen[id]; ent != nil {
		ent.reply = b
	}
	return b
}

// diagnostic builds a control_diagnostic frame about one input line.
func diagnostic(code, msg, id string, line []byte, size int, reply []byte) []byte {
	d := map[string]any{
		"type": "control_diagnostic", "schemaVersion": SchemaVersionV2,
		"code": code, "message": msg,
		"excerpt": Excerpt(line), "size": size,
	}
	if id != "" {
		d["request_id"] = id
	}
	if reply != nil {
		d["reply"] = json.RawMessage(reply)
	}
	b, _ := marshal(d)
	return b
}

// Excerpt returns the text a control_diagnostic quotes from a line: its
// first [ExcerptMaxV2] bytes, less a multi-byte UTF-8 sequence that the cut
// splits, with every byte that is not part of a valid UTF-8 sequence
// replaced by U+FFFD. The result has at most ExcerptMaxV2 code points.
func Excerpt(line []byte) string {
	cut := min(len(line), ExcerptMaxV2)
	if cut < len(line) {
		// Drop a valid multi-byte sequence that starts before the cut and
		// ends after it.
		c := cut
		for c > 0 && cut-c < utf8.UTFMax-1 && !utf8.RuneStart(line[c]) {
			c--
		}
		if c < cut && utf8.RuneStart(line[c]) {
			if r, n := utf8.DecodeRune(line[c:]); (r != utf8.RuneError || n > 1) && c+n > cut {
				cut = c
			}
		}
	}
	var sb strings.Builder
	for b := line[:cut]; len(b) > 0; {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			sb.WriteRune(utf8.RuneError)
			b = b[1:]
			continue
		}
		sb.WriteRune(r)
		b = b[n:]
	}
	return sb.String()
}

func isSchemaV2(obj map[string]any) bool {
	n, ok := obj["schemaVersion"].(json.Number)
	if !ok {
		return false
	}
	f, err := n.Float64()
	return err == nil && f == SchemaVersionV2
}

func positiveInt(x any) (int, bool) {
	n, ok := nonNegativeInt(x)
	return n, ok && n >= 1
}

func nonNegativeInt(x any) (int, bool) {
	num, ok := x.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := num.Float64()
	if err != nil || f < 0 || f != math.Trunc(f) || f > 1<<53 {
		return 0, false
	}
	return int(f), true
}

func isBool(x any) bool { _, ok := x.(bool); return ok }

// optional reports whether body[key] is absent or satisfies ok.
func optional(body map[string]any, key string, ok func(any) bool) bool {
	x, present := body[key]
	return !present || ok(x)
}

func errObj(code, msg string) map[string]any { return map[string]any{"code": code, "message": msg} }

func one(b []byte) [][]byte { return [][]byte{b} }

func mustCanonical(v any) []byte {
	b, err := canon.Canonical(v)
	if err != nil {
		panic(fmt.Sprintf("canonicalize a parsed frame: %v", err)) // Parse output always canonicalizes
	}
	return b
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
