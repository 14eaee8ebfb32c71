package cliplay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/drift"
	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
)

// Normalize returns a copy of a control_request frame with what differs
// between any two sessions replaced by placeholders, so that the vector's
// frame and the CLI's can be compared: the request_id ("<request_id>"), an
// MCP message's JSON-RPC id ("<json-rpc id>"), and in a hook's input the
// session_id and prompt_id ("<uuid>") and transcript_path and cwd
// ("<path>"). The working directory cwd (the CLI's, or [VectorCwd] for a
// vector's frame) becomes "<cwd>" in every string that is it or starts with
// it and a slash.
func Normalize(frame map[string]any, cwd string) map[string]any {
	v := deepCopy(frame, cwd).(map[string]any)
	if _, ok := v["request_id"]; ok {
		v["request_id"] = "<request_id>"
	}
	req, _ := v["request"].(map[string]any)
	if msg, ok := req["message"].(map[string]any); ok {
		if _, has := msg["id"]; has {
			msg["id"] = "<json-rpc id>"
		}
	}
	if req["subtype"] == "hook_callback" {
		if in, ok := req["input"].(map[string]any); ok {
			for k, ph := range map[string]string{"session_id": "<uuid>", "prompt_id": "<uuid>", "transcript_path": "<path>", "cwd": "<path>"} {
				if _, has := in[k]; has {
					in[k] = ph
				}
			}
		}
	}
	return v
}

func deepCopy(v any, cwd string) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, y := range x {
			m[k] = deepCopy(y, cwd)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, y := range x {
			a[i] = deepCopy(y, cwd)
		}
		return a
	case string:
		if cwd != "" && (x == cwd || strings.HasPrefix(x, cwd+"/")) {
			return "<cwd>" + strings.TrimPrefix(x, cwd)
		}
	}
	return v
}

// Adoptable returns the CLI's request as a vector would hold it: the
// vector's request_id and JSON-RPC id, the CLI's working directory written
// as [VectorCwd], and the hook input's session_id, prompt_id and
// transcript_path taken from the vector's frame (or fixed placeholders).
func Adoptable(it Item, sent json.RawMessage, cwd string) (map[string]any, error) {
	cli, ok := decodeObject(sent)
	if !ok {
		return nil, fmt.Errorf("the CLI's request is not a JSON object")
	}
	var rewrite func(v any) any
	rewrite = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				x[k] = rewrite(y)
			}
		case []any:
			for i, y := range x {
				x[i] = rewrite(y)
			}
		case string:
			if cwd != "" && (x == cwd || strings.HasPrefix(x, cwd+"/")) {
				return VectorCwd + strings.TrimPrefix(x, cwd)
			}
		}
		return v
	}
	out := rewrite(cli).(map[string]any)
	out["request_id"] = it.RequestID
	req, _ := out["request"].(map[string]any)
	if msg, ok := req["message"].(map[string]any); ok && it.RPCID != nil {
		if _, has := msg["id"]; has {
			msg["id"] = it.RPCID
		}
	}
	if in, ok := req["input"].(map[string]any); ok && req["subtype"] == "hook_callback" {
		vreq, _ := it.Frame["request"].(map[string]any)
		vin, _ := vreq["input"].(map[string]any)
		for k, def := range map[string]string{"session_id": "11111111-2222-4333-8444-555555555555", "prompt_id": "22222222-3333-4444-8555-666666666666", "transcript_path": "/tmp/t.jsonl", "cwd": VectorCwd} {
			if _, has := in[k]; !has {
				continue
			}
			if vv, ok := vin[k]; ok {
				in[k] = vv
			} else {
				in[k] = def
			}
		}
	}
	return out, nil
}

// Differences compares, item by item, the vector's frame with the CLI's
// request that stood for it (both normalized, [Normalize]) and returns
// drift's findings (internal/drift: PROPERTY_ADDED_OPEN is a member only the
// CLI sends, REQUIRED_REMOVED one only the vector has, TEXT_CHANGED a
// different string, ...), each with Vector set to id and a pointer of the
// form /frames/<item>/...; items the CLI never sent are left out (see
// Observation.Sent). opt gives the enum values (drift.EnumValues) and the envelope frames are paired by.
func Differences(id string, p *Play, obs *Observation, cwd string, opt drift.Options) ([]drift.Finding, error) {
	var out []drift.Finding
	for i, it := range p.Items {
		if obs.Sent[i] == nil {
			continue
		}
		cli, ok := decodeObject(obs.Sent[i])
		if !ok {
			return nil, fmt.Errorf("item %d: the CLI's request is not a JSON object", i)
		}
		vb, err := summary(id, Normalize(it.Frame, VectorCwd))
		if err != nil {
			return nil, err
		}
		cb, err := summary(id, Normalize(cli, cwd))
		if err != nil {
			return nil, err
		}
		rep := drift.Compare(&drift.Recording{Summaries: map[string][]byte{id: vb}}, &drift.Recording{Summaries: map[string][]byte{id: cb}}, opt)
		for _, f := range rep.Findings {
			f.Pointer = fmt.Sprintf("/frames/%d", i) + strings.TrimPrefix(f.Pointer, "/frames/0")
			out = append(out, f)
		}
	}
	return out, nil
}

func summary(id string, frame map[string]any) ([]byte, error) {
	return canon.Canonical(map[string]any{"frames": []any{frame}, "vector": id})
}

// Decision is one line of a fidelity decisions file: differences between
// the vectors and the CLI that were looked at and accepted.
//
//	<vector glob> <rule id or *> <pointer glob>  # decision, with its reason
type Decision struct {
	Vector, Rule, Pointer, Reason string
	Line                          int
}

// ReadDecisions reads a decisions file. Blank lines and lines starting
// with # are comments; every entry needs three fields and a "# reason".
// Errors: EXPECT_FILE_INVALID (a malformed line, a bad glob), IO.
func ReadDecisions(path string) ([]Decision, error) {
	data, err := input.ReadFile(path, input.MaxText, "decisions file")
	if err != nil {
		return nil, err
	}
	var out []Decision
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		spec, reason, ok := strings.Cut(line, "#")
		f := strings.Fields(spec)
		if !ok || strings.TrimSpace(reason) == "" || len(f) != 3 {
			return nil, kiterr.New(kiterr.ExpectFileInvalid, "%s:%d: want \"<vector glob> <rule> <pointer glob>  # reason\"", path, n)
		}
		for _, g := range []string{f[0], f[2]} {
			if !doublestar.ValidatePattern(g) {
				return nil, kiterr.New(kiterr.ExpectFileInvalid, "%s:%d: bad glob %q", path, n, g)
			}
		}
		out = append(out, Decision{Vector: f[0], Rule: f[1], Pointer: f[2], Reason: strings.TrimSpace(reason), Line: n})
	}
	return out, nil
}

// Decide returns the first decision that covers f, or nil.
func Decide(ds []Decision, f drift.Finding) *Decision {
	for i, d := range ds {
		if d.Rule != "*" && d.Rule != f.Rule {
			continue
		}
		if ok, _ := doublestar.Match(d.Vector, f.Vector); !ok {
			continue
		}
		if ok, _ := doublestar.Match(d.Pointer, f.Pointer); ok {
			return &ds[i]
		}
	}
	return nil
}

// Outcome is what the CLI did with the host's reply to one item: evidence
// for the vector.
type Outcome struct {
	Item    int    `json:"item"`
	Subtype string `json:"subtype"`
	// Tool is the tool the item is about ("" for MCP handshakes).
	Tool string `json:"tool,omitempty"`
	// Reply is the host's reply body (or error) as JSON, cut to 300 bytes;
	// "" when the host did not answer.
	Reply string `json:"reply"`
	// Decision is the host's decision in words.
	Decision string `json:"decision"`
	// Result is the tool result the CLI sent the model, cut to 300 bytes,
	// and ResultError its is_error.
	Result      string `json:"result,omitempty"`
	ResultError bool   `json:"result_error,omitempty"`
	// Effect says what the CLI did: "ran the original input", "ran the
	// updated input", "refused", "the tool failed", "blocked by the hook",
	// "ran", "offered the server's tools", "not sent", "no tool call".
	Effect string `json:"effect"`
}

// Outcomes reads what the CLI did with each reply from obs.
func Outcomes(p *Play, obs *Observation) []Outcome {
	results := map[string]int{}
	for i, r := range obs.Results {
		results[r.ToolUseID] = i
	}
	var out []Outcome
	for i, it := range p.Items {
		o := Outcome{Item: i, Subtype: it.Subtype, Tool: it.ToolName}
		if it.Subtype == "mcp_message" {
			o.Tool = "mcp " + it.Server + " " + it.Method
		}
		if obs.Sent[i] == nil {
			o.Effect = "not sent"
			out = append(out, o)
			continue
		}
		var reply struct {
			Response struct {
				Subtype  string          `json:"subtype"`
				Error    string          `json:"error"`
				Response json.RawMessage `json:"response"`
			} `json:"response"`
		}
		if obs.Replies[i] != nil && json.Unmarshal(obs.Replies[i], &reply) == nil {
			if reply.Response.Subtype == "error" {
				o.Reply = "error: " + reply.Response.Error
			} else {
				o.Reply = cut(string(reply.Response.Response), 300)
			}
		}
		cliInput := sentInput(obs.Sent[i])
		o.Decision = decision(it.Subtype, reply.Response.Subtype, reply.Response.Response, cliInput)
		useID := it.ToolUseID
		if it.Subtype == "mcp_message" && it.Method == "tools/call" {
			useID = toolUseOf(obs.Sent[i])
		}
		r, has := results[useID]
		switch {
		case it.Subtype == "mcp_message" && it.Method != "tools/call":
			o.Effect = nextTo(obs, it.Server, obs.Sent[i])
		case !has && o.Decision == "deny with interrupt":
			o.Effect = "refused and ended the turn: no tool result, no further model request"
		case !has:
			o.Effect = "no tool result reached the model"
		default:
			res := obs.Results[r]
			o.Result, o.ResultError = cut(res.Content, 300), res.IsError
			o.Effect = effect(it, o.Decision, res.IsError, res.Content, reply.Response.Response)
		}
		out = append(out, o)
	}
	return out
}

func toolUseOf(sent json.RawMessage) string {
	var f struct {
		Request struct {
			Message struct {
				Params struct {
					Meta map[string]any `json:"_meta"`
				} `json:"params"`
			} `json:"message"`
		} `json:"request"`
	}
	if json.Unmarshal(sent, &f) != nil {
		return ""
	}
	s, _ := f.Request.Message.Params.Meta["claudecode/toolUseId"].(string)
	return s
}

func sentInput(sent json.RawMessage) json.RawMessage {
	var f struct {
		Request struct {
			Input json.RawMessage `json:"input"`
		} `json:"request"`
	}
	_ = json.Unmarshal(sent, &f)
	return f.Request.Input
}

// decision describes the host's reply body in words.
func decision(subtype, replySubtype string, body, cliInput json.RawMessage) string {
	if replySubtype == "" {
		return "no reply"
	}
	if replySubtype == "error" {
		return "error reply"
	}
	switch subtype {
	case "can_use_tool":
		var b struct {
			Behavior     string          `json:"behavior"`
			UpdatedInput json.RawMessage `json:"updatedInput"`
			Interrupt    bool            `json:"interrupt"`
		}
		_ = json.Unmarshal(body, &b)
		switch {
		case b.Behavior == "deny" && b.Interrupt:
			return "deny with interrupt"
		case b.Behavior == "deny":
			return "deny"
		case b.Behavior != "allow":
			return "behavior " + b.Behavior
		case b.UpdatedInput == nil:
			return "allow without updatedInput"
		case key(b.UpdatedInput) == "{}":
			return "allow with an empty updatedInput"
		case key(b.UpdatedInput) == key(cliInput):
			return "allow with the request's input"
		}
		return "allow with another input"
	case "hook_callback":
		var b map[string]any
		_ = json.Unmarshal(body, &b)
		if b["decision"] == "block" {
			return "hook output: block"
		}
		if len(b) == 0 {
			return "hook output: {} (proceed)"
		}
		return "hook output: " + cut(string(body), 120)
	}
	return "success"
}

// nextTo says what the CLI sent to server after the MCP request sent.
func nextTo(obs *Observation, server string, sent json.RawMessage) string {
	var f map[string]any
	if json.Unmarshal(sent, &f) != nil {
		return "went on"
	}
	mine := describeRequest(f)
	var next []string
	seen := false
	for _, r := range obs.Requests {
		if !seen {
			seen = r == mine
			continue
		}
		if strings.HasPrefix(r, "mcp_message "+server+" ") {
			next = append(next, strings.TrimPrefix(r, "mcp_message "+server+" "))
		}
	}
	if len(next) == 0 {
		return "sent the server nothing more"
	}
	return "went on with the server: " + strings.Join(next, ", ")
}

func effect(it Item, decision string, isError bool, content string, body json.RawMessage) string {
	subtype := it.Subtype
	switch {
	case subtype == "hook_callback" && decision == "hook output: block" && isError:
		return "blocked by the hook"
	case subtype == "hook_callback":
		if isError {
			return "the tool did not run: " + cut(content, 80)
		}
		return "the tool ran"
	case subtype == "mcp_message":
		if isError {
			return "the MCP tool call failed"
		}
		return "ran the MCP tool; the model got the server's result"
	}
	var b struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(body, &b)
	switch {
	case strings.HasPrefix(decision, "deny") && isError && b.Message != "" && strings.Contains(content, b.Message):
		return "refused, with the host's message"
	case strings.HasPrefix(decision, "deny"):
		return "refused"
	case isError && strings.Contains(content, "InputValidationError"):
		return "the tool failed: the updated input did not validate"
	case it.ToolName == "AskUserQuestion" && !isError:
		return "took the host's answers: the model got them"
	case isError && decision == "allow with another input":
		return "ran the updated input; the tool reported an error"
	case isError:
		return "ran the original input; the tool reported an error"
	case decision == "allow with another input":
		return "ran the updated input"
	case decision == "allow with the request's input", decision == "allow with an empty updatedInput", decision == "allow without updatedInput":
		return "ran the original input"
	}
	return "ran"
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
