// Package cliplay plays host-role vectors through the real Claude Code CLI
// instead of the agent double: [Derive] turns a vector's agent→host
// requests into a script for the Messages-API stand-in (internal/standin),
// so that the CLI itself sends the requests; [Tap] runs the CLI between a
// host and the stand-in, maps the CLI's requests to the vector's (its
// request_id, and an MCP message's JSON-RPC id, which the CLI chooses
// itself), records what the host answers, and what the CLI then did with
// each answer; [Adapter] makes a direct-mode host (one that reads agent
// frames on stdin, such as the reference) drive an agent as the Agent SDKs
// do (initialize, a user turn, then answers).
//
// What the CLI can be made to send (observed with CLI 2.1.332, impl/claude-code/OBSERVED.md):
//
//   - can_use_tool, when the model calls a tool the CLI asks about: Bash
//     with a command that is not read-only, Read of a path outside the
//     working directory, Write and Edit, AskUserQuestion, WebFetch, an SDK
//     MCP server's tool;
//   - hook_callback for PreToolUse, for every callback the host registered
//     in initialize (a policy's hooks carry no event, so hosts register
//     them all for PreToolUse, as the conform drivers do);
//   - mcp_message to an SDK MCP server the host registered: initialize,
//     then (when the server answers initialize) notifications/initialized
//     and tools/list, and tools/call when the model calls its tool.
//
// Everything else a vector may send (request_user_dialog, elicitation,
// side_question, unknown subtypes, cancels, other frames) has no scripted
// model reply that makes the CLI send it: such a vector is [Unproducible].
// A tool call conform will not let the real CLI run (a write outside the
// working directory, a shell command with paths or shell syntax, the
// network, a sub-agent) is unproducible too: the vector's host might allow
// it.
package cliplay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/conform-kit/conform/internal/standin"
)

// VectorCwd is the working directory the vectors assume for the agent (the
// cwd of their hook inputs). A tool input path under it is given to the
// real CLI relative to the CLI's own (temporary) working directory, and
// [Normalize] writes both as "<cwd>".
const VectorCwd = "/work"

// relPaths returns input with the path members under VectorCwd made
// relative (a copy; input is not changed).
func relPaths(input map[string]any) map[string]any {
	out := make(map[string]any, len(input))
	for k, v := range input {
		if s, ok := v.(string); ok && (k == "file_path" || k == "notebook_path" || k == "path") && strings.HasPrefix(s, VectorCwd+"/") {
			v = strings.TrimPrefix(s, VectorCwd+"/")
		}
		out[k] = v
	}
	return out
}

// Unproducible says why the real CLI cannot be made to send a vector's
// frames. It is an error value for callers that select vectors, not a
// failure of the kit.
type Unproducible struct {
	// Item is the index of the send item that cannot be produced.
	Item int
	// Reason is a sentence.
	Reason string
}

func (u *Unproducible) Error() string { return fmt.Sprintf("send[%d]: %s", u.Item, u.Reason) }

// Item is one agent→host request of a vector and how to recognise the
// CLI's request that stands for it.
type Item struct {
	// Frame is the vector's frame, decoded with json.Number.
	Frame map[string]any
	// RequestID is the vector's request_id, as its JSON text.
	RequestID json.RawMessage
	// Subtype is the request's subtype.
	Subtype string
	// ToolName and ToolUseID identify a can_use_tool request; ToolUseID
	// (and CallbackID) a hook_callback.
	ToolName, ToolUseID, CallbackID string
	// Server and Method identify an mcp_message; Call is the tool name of a
	// tools/call; RPCID is the vector's JSON-RPC id as JSON text (nil for a
	// notification).
	Server, Method, Call string
	RPCID                json.RawMessage
}

// Play is what it takes to make the CLI send a vector's requests.
type Play struct {
	// Script is the stand-in's model: one tool call per turn, in the order
	// of the vector's items.
	Script standin.Script
	// Items are the vector's requests, in order.
	Items []Item
}

// policy is what Derive reads of CONFORM_POLICY (docs/host-role.md).
type policy struct {
	CanUseTool map[string]struct {
		Behavior string `json:"behavior"`
	} `json:"can_use_tool"`
	Hooks map[string]json.RawMessage            `json:"hooks"`
	MCP   map[string]map[string]json.RawMessage `json:"mcp"`
}

// Derive reads a host-role vector's send lines (each a frame's JSON, as the
// runner writes them) and its policy (CONFORM_POLICY's JSON; empty means
// {}) and returns the play, or an [*Unproducible] when the CLI cannot be
// made to send them. Other errors: a send line that is not JSON.
func Derive(send [][]byte, policyJSON []byte) (*Play, error) {
	var pol policy
	if len(bytes.TrimSpace(policyJSON)) > 0 {
		if err := json.Unmarshal(policyJSON, &pol); err != nil {
			return nil, fmt.Errorf("policy: %w", err)
		}
	}
	p := &Play{}
	for i, line := range send {
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, &Unproducible{Item: i, Reason: "the line is not JSON (the CLI writes only JSON frames)"}
		}
		frame, ok := v.(map[string]any)
		if !ok || frame["type"] != "control_request" {
			t, _ := frame["type"].(string)
			return nil, &Unproducible{Item: i, Reason: fmt.Sprintf("a %q frame: the CLI sends a host only control requests (and frames the runner passes over) in a scripted turn", t)}
		}
		rawID, hasID := rawMember(line, "request_id")
		if !hasID {
			return nil, &Unproducible{Item: i, Reason: "a request without request_id: the CLI always sends one"}
		}
		req, _ := frame["request"].(map[string]any)
		it := Item{Frame: frame, RequestID: rawID}
		it.Subtype, _ = req["subtype"].(string)
		var use *standin.ToolUse
		var err *Unproducible
		switch it.Subtype {
		case "can_use_tool":
			use, err = canUseTool(&it, req, len(p.Script.Turns), pol)
		case "hook_callback":
			use, err = hookCallback(&it, req, len(p.Script.Turns), pol)
		case "mcp_message":
			use, err = mcpMessage(&it, req, len(p.Script.Turns), pol)
		default:
			err = &Unproducible{Reason: fmt.Sprintf("no scripted model reply makes the CLI send %q to its host", it.Subtype)}
		}
		if err != nil {
			err.Item = i
			return nil, err
		}
		if use != nil {
			p.Script.Turns = append(p.Script.Turns, standin.Turn{ToolUses: []standin.ToolUse{*use}})
		}
		p.Items = append(p.Items, it)
	}
	if len(p.Items) == 0 {
		return nil, &Unproducible{Reason: "the vector sends nothing"}
	}
	return p, nil
}

// rawMember returns the JSON text of a top-level member of the object in
// line.
func rawMember(line []byte, name string) (json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return nil, false
	}
	v, ok := m[name]
	return v, ok
}

func toolUseID(req map[string]any, turn int) string {
	if id, ok := req["tool_use_id"].(string); ok && id != "" {
		return id
	}
	return fmt.Sprintf("toolu_conform_%02d", turn+1)
}

func canUseTool(it *Item, req map[string]any, turn int, pol policy) (*standin.ToolUse, *Unproducible) {
	name, _ := req["tool_name"].(string)
	input, ok := req["input"].(map[string]any)
	if name == "" || !ok {
		return nil, &Unproducible{Reason: "can_use_tool without a tool_name and an input object: the CLI always sends both"}
	}
	input = relPaths(input)
	if why := asks(name, input, pol); why != "" {
		return nil, &Unproducible{Reason: why}
	}
	it.ToolName, it.ToolUseID = name, toolUseID(req, turn)
	return &standin.ToolUse{ID: it.ToolUseID, Name: name, Input: input}, nil
}

func hookCallback(it *Item, req map[string]any, turn int, pol policy) (*standin.ToolUse, *Unproducible) {
	it.CallbackID, _ = req["callback_id"].(string)
	if _, ok := pol.Hooks[it.CallbackID]; !ok {
		return nil, &Unproducible{Reason: fmt.Sprintf("callback %q is not in the policy's hooks, so no host registers it and the CLI never calls it", it.CallbackID)}
	}
	in, _ := req["input"].(map[string]any)
	if ev, _ := in["hook_event_name"].(string); ev != "PreToolUse" {
		return nil, &Unproducible{Reason: fmt.Sprintf("a %q hook: a policy gives no event, so hosts register every callback for PreToolUse", ev)}
	}
	name, _ := in["tool_name"].(string)
	input, ok := in["tool_input"].(map[string]any)
	if name == "" || !ok {
		return nil, &Unproducible{Reason: "a PreToolUse hook input without tool_name and tool_input"}
	}
	input = relPaths(input)
	if why := safe(name, input, pol); why != "" {
		return nil, &Unproducible{Reason: why}
	}
	it.ToolName, it.ToolUseID = name, toolUseID(req, turn)
	return &standin.ToolUse{ID: it.ToolUseID, Name: name, Input: input}, nil
}

func mcpMessage(it *Item, req map[string]any, turn int, pol policy) (*standin.ToolUse, *Unproducible) {
	it.Server, _ = req["server_name"].(string)
	msg, _ := req["message"].(map[string]any)
	it.Method, _ = msg["method"].(string)
	methods, ok := pol.MCP[it.Server]
	if !ok {
		return nil, &Unproducible{Reason: fmt.Sprintf("server %q is not in the policy's mcp, so no host registers it and the CLI never writes to it", it.Server)}
	}
	if raw, err := json.Marshal(req["message"]); err == nil {
		if id, has := rawMember(raw, "id"); has {
			it.RPCID = id
		}
	}
	initialized := serves(methods["initialize"])
	switch it.Method {
	case "initialize":
		return nil, nil
	case "notifications/initialized", "tools/list":
		if !initialized {
			return nil, &Unproducible{Reason: fmt.Sprintf("the policy's server %q does not answer initialize with a protocolVersion, so the CLI stops after initialize", it.Server)}
		}
		return nil, nil
	case "tools/call":
		params, _ := msg["params"].(map[string]any)
		it.Call, _ = params["name"].(string)
		args, _ := params["arguments"].(map[string]any)
		if args == nil {
			args = map[string]any{}
		}
		tool := "mcp__" + it.Server + "__" + it.Call
		switch {
		case !initialized:
			return nil, &Unproducible{Reason: fmt.Sprintf("the policy's server %q does not answer initialize, so its tools never reach the model", it.Server)}
		case !lists(methods["tools/list"], it.Call):
			return nil, &Unproducible{Reason: fmt.Sprintf("the policy's server %q does not list the tool %q in tools/list", it.Server, it.Call)}
		case !allows(pol, tool):
			return nil, &Unproducible{Reason: fmt.Sprintf("the policy does not allow %q, so the CLI asks and never calls it", tool)}
		}
		return &standin.ToolUse{ID: fmt.Sprintf("toolu_conform_%02d", turn+1), Name: tool, Input: args}, nil
	}
	return nil, &Unproducible{Reason: fmt.Sprintf("the CLI 2.1.332 does not send %q to an SDK MCP server", it.Method)}
}

// serves reports whether an initialize result has a protocolVersion.
func serves(raw json.RawMessage) bool {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	return json.Unmarshal(raw, &r) == nil && r.ProtocolVersion != ""
}

func lists(raw json.RawMessage, tool string) bool {
	var r struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return false
	}
	for _, t := range r.Tools {
		if t.Name == tool {
			return true
		}
	}
	return false
}

func allows(pol policy, tool string) bool {
	if r, ok := pol.CanUseTool[tool]; ok {
		return r.Behavior == "allow"
	}
	return pol.CanUseTool["*"].Behavior == "allow"
}

// readOnly are the commands the CLI 2.1.332 runs without asking (observed:
// "ls -la" and "echo" ran at once, "touch" and "npm test" were asked about).
var readOnly = map[string]bool{"ls": true, "echo": true, "cat": true, "pwd": true, "true": true, "head": true, "tail": true, "wc": true, "grep": true, "find": true}

// asks returns why the CLI would not ask its host about this call, or why
// conform will not let it run, or "".
func asks(name string, input map[string]any, pol policy) string {
	if why := safe(name, input, pol); why != "" {
		return why
	}
	switch name {
	case "Bash":
		cmd, _ := input["command"].(string)
		ro := true
		for _, part := range strings.Split(cmd, "&&") {
			if f := strings.Fields(part); len(f) > 0 && !readOnly[f[0]] {
				ro = false
			}
		}
		if ro {
			return fmt.Sprintf("the CLI runs the read-only command %q without asking its host", cmd)
		}
	case "Read":
		if p, _ := input["file_path"].(string); !strings.HasPrefix(p, "/") {
			return fmt.Sprintf("the CLI reads %q (in its working directory) without asking its host", p)
		}
	case "Glob", "Grep", "LS":
		return fmt.Sprintf("the CLI 2.1.332 offers no %s tool in a stream-json session (\"No such tool available\")", name)
	case "ExitPlanMode":
		return "the CLI refuses ExitPlanMode outside plan mode without asking its host"
	}
	return ""
}

var (
	shellWord = regexp.MustCompile(`^[A-Za-z0-9._=:,+-]+$`)
	refused   = map[string]bool{"sudo": true, "su": true, "curl": true, "wget": true, "nc": true, "ssh": true, "scp": true, "dd": true,
		"mkfs": true, "mount": true, "kill": true, "pkill": true, "killall": true, "shutdown": true, "reboot": true, "chmod": true, "chown": true,
		"python": true, "python3": true, "node": true, "bash": true, "sh": true, "eval": true, "exec": true, "env": true, "git": true}
)

// safe returns why conform will not let the real CLI make this tool call
// (a host under test might allow it), or "". The CLI runs in a fresh
// temporary working directory, so relative paths stay in it.
func safe(name string, input map[string]any, pol policy) string {
	switch name {
	case "Bash":
		cmd, _ := input["command"].(string)
		if cmd == "" {
			return "a Bash call without a command"
		}
		for _, part := range strings.Split(cmd, "&&") {
			f := strings.Fields(part)
			if len(f) == 0 || refused[f[0]] {
				return fmt.Sprintf("conform does not let the real CLI run %q (network, processes, interpreters and privileges are off limits)", cmd)
			}
			for _, w := range f {
				if !shellWord.MatchString(w) || strings.Contains(w, "..") {
					return fmt.Sprintf("conform lets the real CLI run only plain words joined by &&, without paths or shell syntax: %q", cmd)
				}
			}
		}
		return ""
	case "Read", "AskUserQuestion", "TodoWrite", "ExitPlanMode", "Glob", "Grep", "LS":
		return ""
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		for _, k := range []string{"file_path", "notebook_path"} {
			if p, ok := input[k].(string); ok && (strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.Contains(p, "..")) {
				return fmt.Sprintf("%s of %q: conform lets the real CLI write only inside its temporary working directory (a relative path)", name, p)
			}
		}
		return ""
	case "WebFetch", "WebSearch":
		return fmt.Sprintf("%s reaches the network: conform runs the CLI offline", name)
	case "Task", "Agent":
		return fmt.Sprintf("%s starts a sub-agent, whose requests the stand-in does not script", name)
	}
	if strings.HasPrefix(name, "mcp__") {
		parts := strings.SplitN(strings.TrimPrefix(name, "mcp__"), "__", 2)
		if len(parts) == 2 {
			methods, ok := pol.MCP[parts[0]]
			switch {
			case !ok:
				return fmt.Sprintf("server %q is not in the policy's mcp, so the CLI has no tool %q", parts[0], name)
			case !serves(methods["initialize"]):
				return fmt.Sprintf("the policy's server %q does not answer initialize, so the CLI has no tool %q", parts[0], name)
			case !lists(methods["tools/list"], parts[1]):
				return fmt.Sprintf("the policy's server %q does not list %q in tools/list", parts[0], parts[1])
			}
			return ""
		}
	}
	return fmt.Sprintf("conform does not let the real CLI run the tool %q", name)
}
