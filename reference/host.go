package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// DefaultDenyMessage is the message of the deny a [Host] sends when its
// policy has no rule for a tool (and for an AskUserQuestion it cannot answer
// in full). Part of the host-role IUT contract (docs/host-role.md).
const DefaultDenyMessage = "Denied by policy"

// Host is the host role of protocol version 1: it answers the agent→host
// control requests (can_use_tool, hook_callback, mcp_message,
// request_user_dialog, elicitation, side_question) as its [Policy]
// dictates, the way an Agent SDK answers them for its callbacks. It is
// deterministic: the same policy and input give the same bytes. It keeps no
// state between requests and answers each one before reading the next. The
// zero value is a host with the empty policy (every default).
type Host struct {
	policy Policy
}

// Policy is a host's decisions, handed to a host-role IUT out of band as the
// environment variable CONFORM_POLICY (a vector's policy member, RFC 8785
// JSON). Every member is optional; an absent one means its default. See
// docs/host-role.md for the contract.
type Policy struct {
	// CanUseTool maps a tool_name (or "*", any tool without its own rule)
	// to the permission decision. Default: deny with [DefaultDenyMessage].
	CanUseTool map[string]ToolRule `json:"can_use_tool,omitempty"`
	// Answers maps an AskUserQuestion question text to its answer: a label
	// string, or a list of labels sent as one ", "-joined string.
	Answers map[string]Answer `json:"answers,omitempty"`
	// Hooks maps a callback_id to the hook output sent verbatim. An id
	// absent here was never registered: error reply.
	Hooks map[string]map[string]any `json:"hooks,omitempty"`
	// MCP maps server_name, then JSON-RPC method, to the result. A method
	// absent under a listed server answers the result {}.
	MCP map[string]map[string]any `json:"mcp,omitempty"`
	// Dialog is the request_user_dialog reply body, sent verbatim.
	// Default: {"behavior":"cancelled"}.
	Dialog map[string]any `json:"dialog,omitempty"`
	// Elicitation is the elicitation reply body, sent verbatim.
	// Default: {"action":"decline"}.
	Elicitation map[string]any `json:"elicitation,omitempty"`
	// SideQuestion is the side_question reply body, sent verbatim.
	// Default: {"action":"decline"}.
	SideQuestion map[string]any `json:"side_question,omitempty"`
}

// ToolRule is one can_use_tool decision: {"behavior":"allow",
// "updatedInput"?, "updatedPermissions"?}, {"behavior":"deny",
// "message"?, "interrupt"?}, or {"defer":true}: the host does not decide
// yet (a user who has not answered), so the request stays pending. In v1 a
// pending request gets no reply at all, whether the agent cancels it or
// input ends (seed 003 §How It Works; the SDKs drop a cancelled request);
// in v2 it gets the error cancelled (docs/v2.md §11). A defer rule has no
// other member.
type ToolRule struct {
	Behavior           string         `json:"behavior,omitempty"`
	UpdatedInput       map[string]any `json:"updatedInput,omitempty"`
	UpdatedPermissions []any          `json:"updatedPermissions,omitempty"`
	Message            *string        `json:"message,omitempty"`
	Interrupt          bool           `json:"interrupt,omitempty"`
	Defer              bool           `json:"defer,omitempty"`
}

// Answer is one AskUserQuestion answer: a single label, or several labels
// (multiSelect) that go on the wire as one string joined by ", ", in the
// order given.
type Answer struct {
	Labels []string
	List   bool
}

// UnmarshalJSON accepts a string or an array of strings.
func (a *Answer) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return errors.New("an answer must be a string or an array of strings")
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*a = Answer{Labels: []string{s}}
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil || l == nil {
		return errors.New("an answer must be a string or an array of strings")
	}
	*a = Answer{Labels: l, List: true}
	return nil
}

// Wire returns the answer as it goes on the v1 wire: the labels joined by
// ", " (seed 000 §Scope item 5: "Auth, Audit").
func (a Answer) Wire() string { return strings.Join(a.Labels, ", ") }

// NewHost returns a host that decides by policy, the JSON text of a
// [Policy] (CONFORM_POLICY). An empty or blank policy is the empty policy.
// Unknown members, wrong types, a behavior other than allow or deny, and
// members that do not fit the behavior are errors, so a typo in a vector
// never silently changes a decision.
func NewHost(policy []byte) (*Host, error) {
	h := &Host{}
	empty, err := decodePolicy(policy, &h.policy)
	if err != nil {
		return nil, err
	}
	if empty {
		return h, nil
	}
	for name, r := range h.policy.CanUseTool {
		if err := r.check(name); err != nil {
			return nil, err
		}
	}
	if err := checkReplyBodies(h.policy.Dialog, h.policy.Elicitation); err != nil {
		return nil, err
	}
	return h, nil
}

// decodePolicy decodes CONFORM_POLICY into dst (a *Policy or *PolicyV2)
// strictly: unknown members and trailing data are errors. empty reports a
// blank policy, which leaves dst at its defaults.
func decodePolicy(policy []byte, dst any) (empty bool, err error) {
	if len(bytes.TrimSpace(policy)) == 0 {
		return true, nil
	}
	dec := json.NewDecoder(bytes.NewReader(policy))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return false, fmt.Errorf("policy: %w", err)
	}
	if dec.More() {
		return false, errors.New("policy: trailing data")
	}
	return false, nil
}

// check reports a can_use_tool rule named name whose members do not fit
// its behavior; behaviors lists the valid ones for the error message.
func (r ToolRule) check(name string) error {
	if r.Defer {
		if r.Behavior != "" || r.UpdatedInput != nil || r.UpdatedPermissions != nil || r.Message != nil || r.Interrupt {
			return fmt.Errorf("policy: can_use_tool %q: a defer rule has no other member", name)
		}
		return nil
	}
	switch r.Behavior {
	case "allow":
		if r.Message != nil || r.Interrupt {
			return fmt.Errorf("policy: can_use_tool %q: message and interrupt belong to a deny", name)
		}
	case "deny":
		if r.UpdatedInput != nil || r.UpdatedPermissions != nil {
			return fmt.Errorf("policy: can_use_tool %q: updatedInput and updatedPermissions belong to an allow", name)
		}
	default:
		return fmt.Errorf("policy: can_use_tool %q: behavior must be \"allow\" or \"deny\" (or the rule {\"defer\":true}), not %q", name, r.Behavior)
	}
	return nil
}

// checkReplyBodies reports a dialog body without a string behavior or an
// elicitation body without a string action (nil bodies mean the defaults).
func checkReplyBodies(dialog, elicitation map[string]any) error {
	if _, ok := dialog["behavior"].(string); dialog != nil && !ok {
		return errors.New("policy: dialog needs a string behavior")
	}
	if _, ok := elicitation["action"].(string); elicitation != nil && !ok {
		return errors.New("policy: elicitation needs a string action")
	}
	return nil
}

// Serve reads agent frames, one JSON line each, from r until EOF and writes
// one reply line per control_request to w, in input order. Lines that are
// not JSON objects, frames of other types, control_responses and
// control_cancel_requests get no reply. It returns nil at EOF, ctx's error,
// or the read or write error. Lines may be of any length.
func (h *Host) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	return serveLines(ctx, r, w, h.Handle)
}

// Handle answers one input line (with or without its LF) and returns the
// reply line without LF, or nil for a line that gets no reply. Its error is
// only an encoding failure of the kit.
//
// A control_request gets the nested success envelope
// {"type":"control_response","response":{"subtype":"success","request_id",
// "response":<body>}} (seed 000 §Scope item 4), or for a subtype a host does
// not serve (including the host→agent ones) and an unregistered hook the
// fail-closed error envelope with a string error and no error_code (Agent
// SDK 0.3.332 and Python SDK 0.2.189: "Unsupported control request subtype:
// <name>"). The request_id is echoed exactly as received, and left out when
// the request had none.
func (h *Host) Handle(line []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")))
	if len(trimmed) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, nil // not a JSON object: nothing to answer
	}
	if obj["type"] != "control_request" {
		// control_cancel_request: the reference answers every request
		// before it reads the next line, so a cancel names a request that
		// is already answered or was never sent; either way no reply.
		return nil, nil
	}
	body, _ := obj["request"].(map[string]any)
	subtype, ok := body["subtype"].(string)
	if !ok {
		subtype = jsString(body, "subtype")
	}
	if subtype == "can_use_tool" && h.deferred(body) {
		return nil, nil // pending: v1 never answers it (see ToolRule)
	}
	payload, errMsg := h.dispatch(subtype, body)
	resp := map[string]any{}
	if id, has := obj["request_id"]; has {
		resp["request_id"] = id
	}
	if errMsg != "" {
		resp["subtype"] = "error"
		resp["error"] = errMsg
	} else {
		resp["subtype"] = "success"
		resp["response"] = payload
	}
	return marshal(map[string]any{"type": "control_response", "response": resp})
}

// dispatch returns the success payload, or a non-empty error message.
func (h *Host) dispatch(subtype string, body map[string]any) (map[string]any, string) {
	p := &h.policy
	switch subtype {
	case "can_use_tool":
		return h.canUseTool(body), ""
	case "hook_callback":
		id, _ := body["callback_id"].(string)
		out, ok := p.Hooks[id]
		if !ok {
			// Python SDK 0.2.189 query.py: the host registered no such id.
			return nil, "No hook callback found for ID: " + id
		}
		return clone(out), ""
	case "mcp_message":
		return h.mcpMessage(body), ""
	case "request_user_dialog":
		return orDefault(p.Dialog, map[string]any{"behavior": "cancelled"}), ""
	case "elicitation":
		return orDefault(p.Elicitation, map[string]any{"action": "decline"}), ""
	case "side_question":
		return orDefault(p.SideQuestion, map[string]any{"action": "decline"}), ""
	}
	return nil, "Unsupported control request subtype: " + subtype
}

// deferred reports whether the policy defers this permission request.
func (h *Host) deferred(body map[string]any) bool {
	tool, _ := body["tool_name"].(string)
	rule, ok := h.policy.CanUseTool[tool]
	if !ok {
		rule = h.policy.CanUseTool["*"]
	}
	return rule.Defer
}

// canUseTool decides a permission request. The rule is the tool's own or
// "*"'s. A deny rule denies. For AskUserQuestion an allow rule with
// updatedInput is sent as is; otherwise the questions are answered from
// Answers, and a question without an answer denies the whole request (an
// allow must carry a string answer for every question). For any other
// tool, an allow echoes the request's input unless the rule gives
// updatedInput, and no rule denies with DefaultDenyMessage.
func (h *Host) canUseTool(body map[string]any) map[string]any {
	tool, _ := body["tool_name"].(string)
	input, _ := body["input"].(map[string]any)
	if input == nil {
		input = map[string]any{}
	}
	rule, ok := h.policy.CanUseTool[tool]
	if !ok {
		rule, ok = h.policy.CanUseTool["*"]
	}
	if ok && rule.Behavior == "deny" {
		return deny(rule)
	}
	questions, isQuestion := input["questions"].([]any)
	isQuestion = isQuestion && tool == "AskUserQuestion"
	switch {
	case ok && rule.UpdatedInput != nil:
		return allow(rule, clone(rule.UpdatedInput))
	case isQuestion:
		answers := map[string]any{}
		for _, q := range questions {
			qm, _ := q.(map[string]any)
			text, _ := qm["question"].(string)
			a, found := h.policy.Answers[text]
			if !found {
				return deny(ToolRule{})
			}
			answers[text] = a.Wire()
		}
		in := clone(input)
		in["answers"] = answers
		return allow(rule, in)
	case ok:
		return allow(rule, clone(input))
	}
	return deny(ToolRule{})
}

func allow(rule ToolRule, input map[string]any) map[string]any {
	out := map[string]any{"behavior": "allow", "updatedInput": input}
	if rule.UpdatedPermissions != nil {
		out["updatedPermissions"] = rule.UpdatedPermissions
	}
	return out
}

// deny writes interrupt only when true (Python SDK 0.2.189 query.py).
func deny(rule ToolRule) map[string]any {
	msg := DefaultDenyMessage
	if rule.Message != nil {
		msg = *rule.Message
	}
	out := map[string]any{"behavior": "deny", "message": msg}
	if rule.Interrupt {
		out["interrupt"] = true
	}
	return out
}

// mcpMessage answers a JSON-RPC request (a method and a non-null id) with
// {"mcp_response":{"jsonrpc":"2.0","id":<id>,"result":<policy result or
// {}>}}, or, when the policy lists no such server, a JSON-RPC error -32601
// "Server '<name>' not found" (Python SDK 0.2.189). Anything else
// (a notification, a response) is acknowledged with
// {"mcp_response":{"jsonrpc":"2.0","result":{}}}: no id, since a
// notification has none (Python SDK 0.2.189; the TypeScript SDK writes id 0).
func (h *Host) mcpMessage(body map[string]any) map[string]any {
	server, _ := body["server_name"].(string)
	msg, _ := body["message"].(map[string]any)
	method, hasMethod := msg["method"].(string)
	id, hasID := msg["id"]
	if !hasMethod || !hasID || id == nil {
		return map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "result": map[string]any{}}}
	}
	methods, known := h.policy.MCP[server]
	if !known {
		return map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "id": id,
			"error": map[string]any{"code": json.Number("-32601"), "message": "Server '" + server + "' not found"}}}
	}
	result, ok := methods[method]
	if !ok {
		result = map[string]any{}
	}
	return map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "id": id, "result": result}}
}

func orDefault(body, def map[string]any) map[string]any {
	if body == nil {
		return def
	}
	return clone(body)
}

// clone copies m one level deep, so a reply never aliases the policy.
func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
