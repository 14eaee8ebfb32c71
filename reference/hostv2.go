package reference

// The host role of protocol version 2 (docs/v2.md "Host role",
// docs/host-role.md "Version 2"): the v1 host decisions (reference.Host)
// inside v2's wire rules.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/conform-kit/conform/internal/canon"
)

// CodeUnknownCallback is the error code of a hook_callback whose
// callback_id the host never registered (v2 host role; v1 sent the text
// "No hook callback found for ID: <id>" without a code).
const CodeUnknownCallback = "unknown_callback"

// HostV2 is the host role of protocol version 2. It answers the agent→host
// control requests (can_use_tool, hook_callback, mcp_message,
// request_user_dialog, elicitation, side_question) as its [PolicyV2]
// dictates, with v2's wire rules: schemaVersion 2 on every frame written,
// structured errors {code, message}, non-empty string request ids used
// once (a byte-equal retransmission gets a request_replayed diagnostic
// carrying the stored reply, different content a duplicate_request_id
// diagnostic), 1 MiB frames, diagnostics for malformed lines, and exactly
// one terminal reply per request_id.
//
// It answers every request before reading the next line, except a
// can_use_tool whose rule is {"defer":true}: that request stays pending
// until a control_cancel_request names it or input ends, and then gets the
// error reply cancelled. So it is deterministic: the same policy and input
// give the same bytes. A host does not wait for initialize (it is the side
// that sends it); see docs/v2.md "Host role".
//
// The zero value is not ready; use [NewHostV2]. A HostV2 is not safe for
// concurrent use.
type HostV2 struct {
	policy PolicyV2
	// seen maps every used request_id to its request's canonical bytes and
	// its stored terminal reply (nil while pending).
	seen map[string]*entryV2
	// pending lists the ids of deferred requests, oldest first.
	pending []string
}

// PolicyV2 is a v2 host's decisions, read from CONFORM_POLICY: the v1
// [Policy] format, with one addition, the can_use_tool rule
// {"defer":true}. Answers go on the wire as arrays of labels (docs/v2.md
// §10), so a policy answer must be a non-empty string or a non-empty list of
// distinct non-empty strings.
type PolicyV2 struct {
	// CanUseTool maps a tool_name (or "*") to the decision; see [ToolRule].
	CanUseTool map[string]ToolRule `json:"can_use_tool,omitempty"`
	// Answers maps an AskUserQuestion question text to its answer: a label
	// (sent as a one-element array) or a list of labels (sent as the array,
	// in the order given).
	Answers map[string]Answer `json:"answers,omitempty"`
	// Hooks maps a callback_id to the hook output sent verbatim; an id
	// absent here gets the error reply unknown_callback.
	Hooks map[string]map[string]any `json:"hooks,omitempty"`
	// MCP maps server_name, then JSON-RPC method, to the result; a server
	// absent here gets the error reply unknown_server.
	MCP map[string]map[string]any `json:"mcp,omitempty"`
	// Dialog, Elicitation and SideQuestion are reply bodies sent verbatim.
	// Defaults: {"behavior":"cancelled"}, {"action":"decline"},
	// {"action":"decline"}.
	Dialog       map[string]any `json:"dialog,omitempty"`
	Elicitation  map[string]any `json:"elicitation,omitempty"`
	SideQuestion map[string]any `json:"side_question,omitempty"`
}

// NewHostV2 returns a v2 host that decides by policy, the JSON text of a
// [PolicyV2] (CONFORM_POLICY); an empty or blank policy is the empty
// policy. Unknown members, wrong types, a rule that is neither allow, deny
// nor defer, members that do not fit the behavior, and answers that cannot
// be a v2 answer array (empty, an empty label, a repeated label) are
// errors, so a typo in a vector never silently changes a decision.
func NewHostV2(policy []byte) (*HostV2, error) {
	h := &HostV2{seen: map[string]*entryV2{}}
	empty, err := decodePolicy(policy, &h.policy)
	if err != nil {
		return nil, err
	}
	if empty {
		return h, nil
	}
	p := &h.policy
	for name, r := range p.CanUseTool {
		if err := r.check(name); err != nil {
			return nil, err
		}
	}
	for q, a := range p.Answers {
		if len(a.Labels) == 0 {
			return nil, fmt.Errorf("policy: answers %q: at least one label", q)
		}
		for i, l := range a.Labels {
			if l == "" || slices.Contains(a.Labels[:i], l) {
				return nil, fmt.Errorf("policy: answers %q: labels must be non-empty and distinct", q)
			}
		}
	}
	if err := checkReplyBodies(p.Dialog, p.Elicitation); err != nil {
		return nil, err
	}
	if _, ok := p.SideQuestion["action"].(string); p.SideQuestion != nil && !ok {
		return nil, errors.New("policy: side_question needs a string action")
	}
	return h, nil
}

// Serve reads agent frames from r until EOF and writes the v2 frames they
// call for to w, one per line. Lines longer than [MaxFrameV2] bytes are
// never held in memory beyond that bound. At EOF every pending (deferred)
// request gets its terminal error reply cancelled, oldest first, and Serve
// returns nil. It returns ctx's error when ctx ends, or a read or write
// error.
func (h *HostV2) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	return serveFramesV2(ctx, r, w, func(line []byte, size int) ([][]byte, error) {
		return h.handle(line, size), nil
	}, h.End)
}

// Handle answers one input line (with or without its LF) and returns the
// frames to write, in order, each without LF: none or one.
func (h *HostV2) Handle(line []byte) [][]byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return h.handle(line, len(line))
}

// End finishes the session at end of input: every pending request gets its
// one terminal reply, an error with code cancelled, oldest first.
func (h *HostV2) End() [][]byte {
	var out [][]byte
	for _, id := range h.pending {
		out = append(out, h.finish(id, nil, errObj(CodeCancelled, "input ended before the host decided")))
	}
	h.pending = nil
	return out
}

// handle judges one line of size bytes (line holds at most MaxFrameV2+1 of
// them) in the order of docs/v2.md §7, without step 10: a host has no
// initialize state (it sends initialize; it never receives it).
func (h *HostV2) handle(line []byte, size int) [][]byte {
	if size > MaxFrameV2 {
		return one(diagnostic(CodeFrameTooLarge, fmt.Sprintf("line of %d bytes exceeds the %d-byte frame limit; it was not read", size, MaxFrameV2), "", line, size, nil))
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	v, err := canon.Parse(line)
	if err != nil {
		return one(diagnostic(CodeMalformedFrame, "line is not strict JSON: "+err.Error(), "", line, size, nil))
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return one(diagnostic(CodeMalformedFrame, "line is not a JSON object", "", line, size, nil))
	}
	typ, _ := obj["type"].(string)
	if streamType(typ) {
		return nil
	}
	id, _ := obj["request_id"].(string)
	if typ == "control_response" {
		resp, _ := obj["response"].(map[string]any)
		id, _ = resp["request_id"].(string)
	}
	isRequest := typ == "control_request"

	if isRequest && id != "" {
		if e := h.seen[id]; e != nil {
			if !bytes.Equal(mustCanonical(v), e.canonical) {
				return one(diagnostic(CodeDuplicateRequestID, fmt.Sprintf("request_id %q is already used by a different request; this one was not run", id), id, line, size, nil))
			}
			msg := "retransmission of an answered request: stored reply attached, not decided again"
			if e.reply == nil {
				msg = "retransmission of a pending request: not decided again; its reply follows when it finishes"
			}
			return one(diagnostic(CodeRequestReplayed, msg, id, line, size, e.reply))
		}
	}

	if !isSchemaV2(obj) {
		msg := fmt.Sprintf("schemaVersion must be the integer %d", SchemaVersionV2)
		if _, present := obj["schemaVersion"]; !present {
			msg = fmt.Sprintf("schemaVersion is required (this host reads schemaVersion %d)", SchemaVersionV2)
		}
		if isRequest && id != "" {
			h.seen[id] = &entryV2{canonical: mustCanonical(v)}
			return one(h.finish(id, nil, errObj(CodeUnsupportedSchemaVersion, msg)))
		}
		return one(diagnostic(CodeUnsupportedSchemaVersion, msg, id, line, size, nil))
	}

	switch typ {
	case "control_request":
	case "control_response", "control_cancel_request":
		if id == "" {
			return one(diagnostic(CodeInvalidRequest, "request_id must be a non-empty string", "", line, size, nil))
		}
		if typ == "control_cancel_request" {
			if i := slices.Index(h.pending, id); i >= 0 {
				h.pending = slices.Delete(h.pending, i, i+1)
				return one(h.finish(id, nil, errObj(CodeCancelled, "cancelled by control_cancel_request")))
			}
		}
		// A reply to a request this host never sent, or a cancel for an
		// unknown or answered request: nothing to do, nothing written.
		return nil
	case "control_diagnostic":
		return nil
	default:
		msg := fmt.Sprintf("unknown frame type %q", typ)
		if _, present := obj["type"]; !present || typ == "" {
			msg = "type must be a non-empty string"
		}
		return one(diagnostic(CodeUnsupportedFrameType, msg, "", line, size, nil))
	}

	if id == "" {
		return one(diagnostic(CodeInvalidRequest, "request_id must be a non-empty string", "", line, size, nil))
	}
	h.seen[id] = &entryV2{canonical: mustCanonical(v)}
	body, ok := obj["request"].(map[string]any)
	if !ok {
		return one(h.finish(id, nil, errObj(CodeInvalidRequest, "request must be an object")))
	}
	subtype, _ := body["subtype"].(string)
	if subtype == "" {
		return one(h.finish(id, nil, errObj(CodeInvalidRequest, "request.subtype must be a non-empty string")))
	}
	payload, e, deferred := h.dispatch(subtype, body)
	if deferred {
		h.pending = append(h.pending, id)
		return nil
	}
	return one(h.finish(id, payload, e))
}

// dispatch returns the success payload or an error object, or deferred for
// a request that stays pending.
func (h *HostV2) dispatch(subtype string, body map[string]any) (payload, e map[string]any, deferred bool) {
	p := &h.policy
	switch subtype {
	case "can_use_tool":
		tool, okName := body["tool_name"].(string)
		input, okInput := body["input"].(map[string]any)
		if !okName || !okInput {
			return nil, errObj(CodeInvalidRequest, "can_use_tool: tool_name must be a string and input an object"), false
		}
		rule, found := h.rule(tool)
		if found && rule.Defer {
			return nil, nil, true
		}
		return h.canUseTool(tool, input, rule, found), nil, false
	case "hook_callback":
		id, okID := body["callback_id"].(string)
		if _, okInput := body["input"].(map[string]any); !okID || !okInput {
			return nil, errObj(CodeInvalidRequest, "hook_callback: callback_id must be a string and input an object"), false
		}
		out, ok := p.Hooks[id]
		if !ok {
			return nil, errObj(CodeUnknownCallback, "No hook callback found for ID: "+id), false
		}
		return clone(out), nil, false
	case "mcp_message":
		server, okServer := body["server_name"].(string)
		msg, okMsg := body["message"].(map[string]any)
		if !okServer || !okMsg {
			return nil, errObj(CodeInvalidRequest, "mcp_message: server_name must be a string and message an object"), false
		}
		methods, known := p.MCP[server]
		if !known {
			return nil, errObj(CodeUnknownServer, "Server '"+server+"' not found"), false
		}
		return mcpReplyV2(methods, msg), nil, false
	case "request_user_dialog":
		if !anyString(body, "dialog_kind", "dialogKind") {
			return nil, errObj(CodeInvalidRequest, "request_user_dialog: dialog_kind must be a string"), false
		}
		return orDefault(p.Dialog, map[string]any{"behavior": "cancelled"}), nil, false
	case "elicitation":
		if !anyString(body, "mcp_server_name", "server") || !anyString(body, "message", "prompt") {
			return nil, errObj(CodeInvalidRequest, "elicitation: mcp_server_name (or server) and message (or prompt) must be strings"), false
		}
		return orDefault(p.Elicitation, map[string]any{"action": "decline"}), nil, false
	case "side_question":
		if !anyString(body, "question", "message", "prompt") {
			return nil, errObj(CodeInvalidRequest, "side_question: question, message or prompt must be a string"), false
		}
		return orDefault(p.SideQuestion, map[string]any{"action": "decline"}), nil, false
	}
	// Unknown subtypes and the host→agent ones (initialize, interrupt,
	// hold, ...): a host does not serve them.
	return nil, errObj(CodeUnsupportedRequest, "Unsupported control request subtype: "+subtype), false
}

// rule returns the tool's own rule, else the "*" rule.
func (h *HostV2) rule(tool string) (ToolRule, bool) {
	if r, ok := h.policy.CanUseTool[tool]; ok {
		return r, true
	}
	r, ok := h.policy.CanUseTool["*"]
	return r, ok
}

// canUseTool decides a permission request as the v1 host does, except that
// AskUserQuestion answers are arrays of labels.
func (h *HostV2) canUseTool(tool string, input map[string]any, rule ToolRule, found bool) map[string]any {
	if found && rule.Behavior == "deny" {
		return deny(rule)
	}
	questions, isQuestion := input["questions"].([]any)
	isQuestion = isQuestion && tool == "AskUserQuestion"
	switch {
	case found && rule.UpdatedInput != nil:
		return allow(rule, clone(rule.UpdatedInput))
	case isQuestion:
		answers := map[string]any{}
		for _, q := range questions {
			qm, _ := q.(map[string]any)
			text, _ := qm["question"].(string)
			a, ok := h.policy.Answers[text]
			if !ok {
				return deny(ToolRule{})
			}
			labels := make([]any, len(a.Labels))
			for i, l := range a.Labels {
				labels[i] = l
			}
			answers[text] = labels
		}
		in := clone(input)
		in["answers"] = answers
		return allow(rule, in)
	case found:
		return allow(rule, clone(input))
	}
	return deny(ToolRule{})
}

// mcpReplyV2 answers a JSON-RPC message for a listed server: a request (a
// method and a non-null id) gets the method's result ({} when the method is
// not listed) under the request's id; a notification or a response is
// acknowledged with {"jsonrpc":"2.0","result":{}} and no id, as in v1.
func mcpReplyV2(methods map[string]any, msg map[string]any) map[string]any {
	method, hasMethod := msg["method"].(string)
	id, hasID := msg["id"]
	if !hasMethod || !hasID || id == nil {
		return map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "result": map[string]any{}}}
	}
	result, ok := methods[method]
	if !ok {
		result = map[string]any{}
	}
	return map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "id": id, "result": result}}
}

// finish builds the one terminal reply of request id (success with payload
// when e is nil) and stores it for retransmissions.
func (h *HostV2) finish(id string, payload, e map[string]any) []byte {
	return finishV2(h.seen, id, payload, e)
}

// anyString reports whether body has a string under at least one of keys.
func anyString(body map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := body[k].(string); ok {
			return true
		}
	}
	return false
}
