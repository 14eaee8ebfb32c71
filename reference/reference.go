// Package reference is conform's Go reference implementation of the control
// protocol. Its output generates the golden files (conform golden --update);
// `conform run` with no IUT command certifies it by re-executing the conform
// binary as `conform reference`.
//
// Version 1 is descriptive: the agent role answers exactly as the Claude Code
// CLI 2.1.332 was observed to answer offline (impl/claude-code/OBSERVED.md),
// with its dynamic values (version, build time, model ids) fixed so the
// output is deterministic. Every behaviour below names its observation.
package reference

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// Fixed values the reference reports where the CLI reports its own build;
// vectors normalize them by format (semver, rfc3339).
const (
	Version          = "0.1.0"
	BuildTime        = "2026-11-30T00:00:00Z"
	OldestDesktopSDK = "0.0.0"
	// DefaultModel is the model a fresh session uses (observed 2.1.332:
	// claude-opus-5-5 offline with no settings).
	DefaultModel = "claude-opus-5-5"
)

// permissionModes are the modes set_permission_mode accepts, in the order
// the CLI's error message lists them (observed 2.1.332).
var permissionModes = []string{"acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan"}

// ExitError is returned by [Agent.Serve] when the agent must end with a
// nonzero status (the CLI exits 1 on a line it cannot parse).
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

// Agent is the agent role of protocol version 1. The zero value is not
// ready; use [NewAgent].
type Agent struct {
	model string
	mode  string
}

// NewAgent returns an agent in its initial state: DefaultModel, mode "default".
func NewAgent() *Agent { return &Agent{model: DefaultModel, mode: "default"} }

// Serve reads JSON lines from r until EOF and writes one reply line per
// control_request to w. It returns nil at EOF, an [*ExitError] for input the
// CLI treats as fatal (a line that is not JSON, JSON null, a control_request
// without its request object; observed 2.1.332: exit status 1 and a message
// on stderr), or the write error. Lines may be of any length.
func (a *Agent) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	return serveLines(ctx, r, w, a.Handle)
}

// serveLines reads lines from r until EOF, hands each to handle and writes
// each non-nil reply as one line to w. It flushes whenever no more input is
// buffered, so pipelined requests are answered in one write and a lone
// request is never held. It returns nil at EOF, ctx's error, handle's
// error, or the read or write error.
func serveLines(ctx context.Context, r io.Reader, w io.Writer, handle func([]byte) ([]byte, error)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriter(w)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, rerr := br.ReadBytes('\n')
		if len(line) > 0 {
			out, err := handle(line)
			if err != nil {
				bw.Flush()
				return err
			}
			if out != nil {
				bw.Write(out)
				bw.WriteByte('\n')
			}
			if br.Buffered() == 0 {
				if err := bw.Flush(); err != nil {
					return err
				}
			}
		}
		if rerr == io.EOF {
			return bw.Flush()
		}
		if rerr != nil {
			bw.Flush()
			return rerr
		}
	}
}

// Handle answers one input line (with or without its LF) and returns the
// reply line without LF, nil for a line that gets no reply, or an
// [*ExitError] for a fatal line.
func (a *Agent) Handle(line []byte) ([]byte, error) {
	line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // a leading BOM is accepted (observed 2.1.332)
	line = wellFormed(line)
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return nil, nil // blank lines are skipped (observed 2.1.332)
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	err := dec.Decode(&v)
	if err == nil && dec.More() {
		err = fmt.Errorf("trailing data")
	}
	if err == nil {
		var extra any
		if dec.Decode(&extra) != io.EOF {
			err = fmt.Errorf("trailing data")
		}
	}
	if err != nil {
		return nil, &ExitError{Code: 1, Msg: fmt.Sprintf("Error parsing streaming input line (type=%s, %d chars): SyntaxError", peekType(trimmed), len([]rune(string(trimmed))))}
	}
	if v == nil {
		return nil, &ExitError{Code: 1, Msg: "Error parsing streaming input line (type=unknown, 4 chars): TypeError"}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, nil // arrays, numbers, strings, booleans are ignored (observed 2.1.332)
	}
	if obj["type"] != "control_request" {
		// control_response for an unknown id, control_cancel_request for an
		// unknown id, unknown or missing type: ignored (observed 2.1.332).
		return nil, nil
	}
	req, present := obj["request"]
	if !present || req == nil {
		return nil, &ExitError{Code: 1, Msg: "Error: Missing request on control_request"}
	}
	id, hasID := obj["request_id"]
	body, _ := req.(map[string]any)
	subtype := jsString(body, "subtype")
	payload, errReply := a.dispatch(subtype, body)
	resp := map[string]any{}
	if hasID {
		resp["request_id"] = echoID(id)
	}
	if errReply != nil {
		resp["subtype"] = "error"
		for k, v := range errReply {
			resp[k] = v
		}
	} else {
		resp["subtype"] = "success"
		if payload != nil {
			resp["response"] = payload
		}
		if subtype == "initialize" {
			// Beside the inner response, not in it (observed 2.1.332).
			resp["pending_permission_requests"] = []any{}
			resp["pending_user_dialog_requests"] = []any{}
		}
	}
	return marshal(map[string]any{"type": "control_response", "response": resp})
}

// dispatch returns the success payload (nil for none) or the error members.
func (a *Agent) dispatch(subtype string, body map[string]any) (map[string]any, map[string]any) {
	switch subtype {
	case "initialize":
		return a.initialize(), nil
	case "interrupt":
		return map[string]any{"still_queued": []any{}}, nil
	case "set_model":
		return a.setModel(body)
	case "set_permission_mode":
		return a.setPermissionMode(body)
	case "set_max_thinking_tokens":
		// An integer is a JSON number with an integral value (2.0 is 2);
		// thinking_display, when present, is one of three names or null
		// (observed 2.1.332).
		okTokens := false
		switch t := body["max_thinking_tokens"].(type) {
		case nil:
			okTokens = true
		case json.Number:
			f, err := t.Float64()
			okTokens = err == nil && f == math.Trunc(f) && !math.IsInf(f, 0)
		}
		okDisplay := false
		switch body["thinking_display"] {
		case nil, "summarized", "omitted", "highlights":
			okDisplay = true
		}
		if okTokens && okDisplay {
			return nil, nil
		}
		return nil, errorMembers(`set_max_thinking_tokens: max_thinking_tokens must be an integer or null and thinking_display must be "summarized", "omitted", "highlights", or null`, "")
	case "get_binary_version":
		return map[string]any{"version": Version, "buildTime": BuildTime, "oldestDesktopSdk": OldestDesktopSDK}, nil
	case "mcp_status":
		return map[string]any{"mcpServers": []any{}}, nil
	case "get_context_usage":
		return a.contextUsage(), nil
	case "rewind_files":
		const msg = "File rewinding is not enabled."
		if body["dry_run"] == true {
			return map[string]any{"canRewind": false, "error": msg}, nil
		}
		return nil, errorMembers(msg, "")
	case "mcp_reconnect", "mcp_toggle":
		return nil, errorMembers("Server not found: "+jsString(body, "serverName"), "")
	case "stop_task":
		return map[string]any{}, nil
	}
	return nil, errorMembers("Unsupported control request subtype: "+subtype, "unsupported_request")
}

// setModel mirrors 2.1.332 offline: family aliases resolve to a full id,
// "default", null or a missing model select the default, "" is not in the
// catalog, a non-string is invalid, and any other name cannot be checked
// offline. Errors carry the current model.
func (a *Agent) setModel(body map[string]any) (map[string]any, map[string]any) {
	raw, present := body["model"]
	if !present || raw == nil {
		a.model = DefaultModel
		return map[string]any{"model": a.model}, nil
	}
	name, ok := raw.(string)
	if !ok {
		e := errorMembers("set_model: model must be a string", "invalid_request")
		e["model"] = a.model
		return nil, e
	}
	base, _, _ := strings.Cut(name, "[")
	switch base {
	case "default":
		a.model = DefaultModel
	case "sonnet", "opus", "haiku":
		a.model = "claude-" + base + "-5-5"
	case "":
		e := errorMembers(`Model "(unrecognized model name)" is not a recognized model id. Run /model to see available models.`, "catalog_unknown")
		e["model"] = a.model
		return nil, e
	default:
		e := errorMembers("Network error. Please check your internet connection · model not changed", "check_unreachable")
		e["model"] = a.model
		return nil, e
	}
	return map[string]any{"model": a.model}, nil
}

func (a *Agent) setPermissionMode(body map[string]any) (map[string]any, map[string]any) {
	mode, _ := body["mode"].(string)
	switch mode {
	case "bypassPermissions":
		return nil, errorMembers("Cannot set permission mode to bypassPermissions because the session was not launched with --dangerously-skip-permissions", "bypass_not_launched")
	case "acceptEdits", "auto", "default", "dontAsk", "plan":
		a.mode = mode
		return map[string]any{"mode": mode}, nil
	}
	return nil, errorMembers("Cannot set permission mode: must be one of "+strings.Join(permissionModes, ", "), "invalid_mode")
}

// initialize returns a small session description; the CLI's is large and
// build-specific, and vectors normalize it as any-object.
func (a *Agent) initialize() map[string]any { return sessionDescription(a.mode) }

// sessionDescription is the reference's small, fixed session description
// in permission mode mode.
func sessionDescription(mode string) map[string]any {
	return map[string]any{
		"commands":                []any{},
		"agents":                  []any{},
		"output_style":            "default",
		"available_output_styles": []any{"default"},
		"models":                  []any{map[string]any{"value": "default", "resolvedModel": DefaultModel}},
		"account":                 map[string]any{},
		"current_permission_mode": mode,
	}
}

func (a *Agent) contextUsage() map[string]any {
	return map[string]any{
		"categories":  []any{},
		"model":       a.model,
		"totalTokens": json.Number("0"),
		"maxTokens":   json.Number("200000"),
	}
}

func errorMembers(msg, code string) map[string]any {
	m := map[string]any{"error": cleanText(msg)}
	if code != "" {
		m["error_code"] = code
	}
	return m
}

// jsString renders body[key] as JavaScript's String() would for the values
// the CLI interpolates into messages ("undefined" when absent).
func jsString(body map[string]any, key string) string {
	if body == nil {
		return "undefined"
	}
	v, ok := body[key]
	if !ok {
		return "undefined"
	}
	return jsText(v, false)
}

// jsText renders v as JavaScript's String(v) does (observed 2.1.332 through
// "Unsupported control request subtype: <subtype>"): numbers in ECMAScript
// form (1e21 -> "1e+21", 1e-7 -> "1e-7"), arrays joined with "," with null
// elements empty, objects as "[object Object]". inArray renders null as ""
// as Array.prototype.join does.
func jsText(v any, inArray bool) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		if inArray {
			return ""
		}
		return "null"
	case bool:
		if t {
			return "true"
		}
		return "false"
	case json.Number:
		f, err := t.Float64()
		if err != nil || math.IsInf(f, 0) {
			return string(t)
		}
		out, err := jcs.NumberToJSON(f)
		if err != nil {
			return string(t)
		}
		return out
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = jsText(e, true)
		}
		return strings.Join(parts, ",")
	default:
		return "[object Object]"
	}
}

// echoID returns a request_id as JavaScript's JSON round trip would: numbers
// become binary64 values (1e3 -> 1000, -0 -> 0, 1e400 -> null; observed
// 2.1.332), everything else unchanged.
func echoID(id any) any {
	n, ok := id.(json.Number)
	if !ok {
		return id
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) {
		return nil
	}
	if f == 0 {
		return json.Number("0")
	}
	b, _ := json.Marshal(f)
	return json.Number(b)
}

func peekType(line []byte) string {
	var probe struct {
		Type string `json:"type"`
	}
	// The CLI names the type when it can read one before the syntax error.
	i := bytes.Index(line, []byte(`"type":"`))
	if i >= 0 {
		rest := line[i+8:]
		if j := bytes.IndexByte(rest, '"'); j >= 0 {
			probe.Type = string(rest[:j])
		}
	}
	if probe.Type == "" {
		return "unknown"
	}
	return probe.Type
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// cleanText removes from error text what the CLI 2.1.332 removes (observed
// 2026-11-30 by echoing every kind of character through "Server not found:
// <name>"): control characters (Cc), format characters (Cf), surrogates
// (Cs), the line and paragraph separators (Zl, Zp) and every space
// separator (Zs) but U+0020. Private-use, unassigned and noncharacter code
// points, combining marks and emoji stay.
func cleanText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ':
			return r
		case unicode.In(r, unicode.Cc, unicode.Cf, unicode.Cs, unicode.Zl, unicode.Zp, unicode.Zs):
			return -1
		}
		return r
	}, s)
}

// wellFormed replaces ill-formed UTF-8 the way the WHATWG decoder (and so
// the CLI) does: one U+FFFD per maximal subpart of an ill-formed sequence
// (Unicode §3.9 "U+FFFD Substitution of Maximal Subparts"); observed
// 2.1.332: E2 82 -> one U+FFFD, ED A0 80 -> three. Well-formed input is
// returned as is.
func wellFormed(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || size > 1 {
			out = append(out, b[i:i+size]...)
			i += size
			continue
		}
		out = append(out, "\uFFFD"...)
		i += maximalSubpart(b[i:])
	}
	return out
}

// maximalSubpart returns the length (>= 1) of the longest prefix of b that
// starts a well-formed UTF-8 sequence but does not complete one.
func maximalSubpart(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		x := b[n]
		if k == 0 && (x < lo || x > hi) || k > 0 && (x < 0x80 || x > 0xBF) {
			break
		}
		n++
	}
	return n
}
