package reference_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/reference"
)

// v2req builds a v2 control_request line.
func v2req(id, body string) string {
	return `{"type":"control_request","schemaVersion":2,"request_id":` + quoteJSON(id) + `,"request":` + body + `}`
}

func v2ok(id, body string) string {
	return `{"type":"control_response","schemaVersion":2,"response":{"subtype":"success","request_id":` + quoteJSON(id) + `,"response":` + body + `}}`
}

// v2err is an error reply; its message is not compared (see v2frames).
func v2err(id, code string) string {
	return `{"type":"control_response","schemaVersion":2,"response":{"subtype":"error","request_id":` + quoteJSON(id) + `,"error":{"code":"` + code + `"}}}`
}

// v2frames decodes frames, dropping the human-readable texts (top-level
// message, error.message, and the same inside a replayed reply) and
// diagnostic excerpts, which tests do not pin.
func v2frames(t *testing.T, frames [][]byte) []any {
	t.Helper()
	out := []any{}
	for _, f := range frames {
		var v map[string]any
		if err := json.Unmarshal(f, &v); err != nil {
			t.Fatalf("frame is not a JSON object: %v: %s", err, f)
		}
		strip(v)
		out = append(out, v)
	}
	return out
}

func strip(v map[string]any) {
	delete(v, "message")
	delete(v, "excerpt")
	if resp, ok := v["response"].(map[string]any); ok {
		if e, ok := resp["error"].(map[string]any); ok {
			delete(e, "message")
		}
	}
	if r, ok := v["reply"].(map[string]any); ok {
		strip(r)
	}
}

func parse(t *testing.T, lines ...string) []any {
	t.Helper()
	var fs [][]byte
	for _, l := range lines {
		fs = append(fs, []byte(l))
	}
	return v2frames(t, fs)
}

// hostRun feeds lines to a fresh HostV2 and returns every frame it writes,
// including those written at end of input.
func hostRun(t *testing.T, policy string, lines ...string) [][]byte {
	t.Helper()
	h, err := reference.NewHostV2([]byte(policy))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, l := range lines {
		out = append(out, h.Handle([]byte(l))...)
	}
	return append(out, h.End()...)
}

func TestHostV2Handle(t *testing.T) {
	t.Parallel()
	const lang = `{"question":"Which DB?","header":"DB","multiSelect":false,"options":[{"label":"Postgres","description":"p"},{"label":"SQLite","description":"s"}]}`
	const feat = `{"question":"Features?","header":"F","multiSelect":true,"options":[{"label":"Auth, SSO","description":"a"},{"label":"Audit","description":"b"}]}`
	ask := v2req("q", `{"subtype":"can_use_tool","tool_name":"AskUserQuestion","input":{"questions":[`+lang+`,`+feat+`]}}`)
	bash := v2req("r1", `{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"}}`)
	hook := func(id string) string {
		return v2req("h", `{"subtype":"hook_callback","callback_id":"`+id+`","input":{"hook_event_name":"PreToolUse"}}`)
	}
	mcp := func(server, msg string) string {
		return v2req("m", `{"subtype":"mcp_message","server_name":"`+server+`","message":`+msg+`}`)
	}
	emptyID := v2req("", `{"subtype":"side_question","message":"?"}`)
	numberID := `{"type":"control_request","schemaVersion":2,"request_id":7,"request":{"subtype":"x"}}`
	unknownType := `{"type":"nope","schemaVersion":2}`
	diag := func(code string, size int) string {
		return `{"type":"control_diagnostic","schemaVersion":2,"code":"` + code + `","size":` + itoa(size) + `}`
	}
	tests := []struct {
		name, policy string
		in           []string
		want         []string
	}{
		{"allow echoes input", `{"can_use_tool":{"Bash":{"behavior":"allow"}}}`, []string{bash},
			[]string{v2ok("r1", `{"behavior":"allow","updatedInput":{"command":"ls"}}`)}},
		{"default deny", ``, []string{bash},
			[]string{v2ok("r1", `{"behavior":"deny","message":"Denied by policy"}`)}},
		{"deny with interrupt", `{"can_use_tool":{"*":{"behavior":"deny","message":"no","interrupt":true}}}`, []string{bash},
			[]string{v2ok("r1", `{"behavior":"deny","message":"no","interrupt":true}`)}},
		{"answers are arrays", `{"answers":{"Which DB?":"SQLite","Features?":["Audit","Auth, SSO"]}}`, []string{ask},
			[]string{v2ok("q", `{"behavior":"allow","updatedInput":{"questions":[`+lang+`,`+feat+`],"answers":{"Which DB?":["SQLite"],"Features?":["Audit","Auth, SSO"]}}}`)}},
		{"unanswered question denies", `{"answers":{"Which DB?":"SQLite"},"can_use_tool":{"*":{"behavior":"allow"}}}`, []string{ask},
			[]string{v2ok("q", `{"behavior":"deny","message":"Denied by policy"}`)}},
		{"input missing", `{"can_use_tool":{"*":{"behavior":"allow"}}}`,
			[]string{v2req("r", `{"subtype":"can_use_tool","tool_name":"Bash"}`)}, []string{v2err("r", "invalid_request")}},
		{"hook verbatim", `{"hooks":{"hook_1":{"decision":"block","reason":"x"}}}`, []string{hook("hook_1")},
			[]string{v2ok("h", `{"decision":"block","reason":"x"}`)}},
		{"hook unregistered", `{"hooks":{"hook_1":{}}}`, []string{hook("hook_2")}, []string{v2err("h", "unknown_callback")}},
		{"mcp request", `{"mcp":{"notes":{"tools/list":{"tools":[]}}}}`, []string{mcp("notes", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)},
			[]string{v2ok("m", `{"mcp_response":{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}}`)}},
		{"mcp notification", `{"mcp":{"notes":{}}}`, []string{mcp("notes", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)},
			[]string{v2ok("m", `{"mcp_response":{"jsonrpc":"2.0","result":{}}}`)}},
		{"mcp unknown server", `{"mcp":{"notes":{}}}`, []string{mcp("gh", `{"jsonrpc":"2.0","id":1,"method":"x"}`)},
			[]string{v2err("m", "unknown_server")}},
		{"dialog default", ``, []string{v2req("d", `{"subtype":"request_user_dialog","dialogKind":"confirm"}`)},
			[]string{v2ok("d", `{"behavior":"cancelled"}`)}},
		{"elicitation alt spelling", `{"elicitation":{"action":"accept","content":{"a":"b"}}}`,
			[]string{v2req("e", `{"subtype":"elicitation","server":"gh","prompt":"?"}`)}, []string{v2ok("e", `{"action":"accept","content":{"a":"b"}}`)}},
		{"side question default", ``, []string{v2req("s", `{"subtype":"side_question","message":"?"}`)},
			[]string{v2ok("s", `{"action":"decline"}`)}},
		{"unknown and host-to-agent subtypes", ``,
			[]string{v2req("u", `{"subtype":"teleport"}`), v2req("i", `{"subtype":"initialize","protocolVersions":[2]}`)},
			[]string{v2err("u", "unsupported_request"), v2err("i", "unsupported_request")}},
		{"schemaVersion missing", `{"can_use_tool":{"*":{"behavior":"allow"}}}`,
			[]string{`{"type":"control_request","request_id":"o","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}`},
			[]string{v2err("o", "unsupported_schema_version")}},
		{"unusable ids", ``,
			[]string{emptyID, numberID},
			[]string{diag("invalid_request", len(emptyID)), diag("invalid_request", len(numberID))}},
		{"malformed and blank lines", ``, []string{"not json", "   ", "[]"},
			[]string{diag("malformed_frame", 8), diag("malformed_frame", 2)}},
		{"other frames get nothing", ``, []string{`{"type":"system","subtype":"x"}`,
			`{"type":"control_response","schemaVersion":2,"response":{"subtype":"success","request_id":"z","response":{}}}`,
			`{"type":"control_diagnostic","schemaVersion":2,"code":"x","message":"y"}`,
			`{"type":"control_cancel_request","schemaVersion":2,"request_id":"never"}`}, []string{}},
		{"unknown frame type", ``, []string{unknownType}, []string{diag("unsupported_frame_type", len(unknownType))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := v2frames(t, hostRun(t, tt.policy, tt.in...))
			if diff := cmp.Diff(parse(t, tt.want...), got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestHostV2IdempotencyAndCancel(t *testing.T) {
	t.Parallel()
	const policy = `{"can_use_tool":{"Bash":{"behavior":"allow"},"Ask":{"defer":true}}}`
	bash := v2req("b", `{"subtype":"can_use_tool","tool_name":"Bash","input":{"n":1000}}`)
	bashAgain := `{"request":{"input":{"n":1e3},"tool_name":"Bash","subtype":"can_use_tool"},"request_id":"b","schemaVersion":2.0,"type":"control_request"}`
	bashOther := v2req("b", `{"subtype":"can_use_tool","tool_name":"Bash","input":{"n":1}}`)
	ask := v2req("a", `{"subtype":"can_use_tool","tool_name":"Ask","input":{}}`)
	cancel := `{"type":"control_cancel_request","schemaVersion":2,"request_id":"a"}`
	okB := v2ok("b", `{"behavior":"allow","updatedInput":{"n":1000}}`)
	diag := func(code, id, reply string, size int) string {
		s := `{"type":"control_diagnostic","schemaVersion":2,"code":"` + code + `","request_id":"` + id + `","size":` + itoa(size)
		if reply != "" {
			s += `,"reply":` + reply
		}
		return s + `}`
	}
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"replay carries the stored reply", []string{bash, bashAgain}, []string{okB, diag("request_replayed", "b", okB, len(bashAgain))}},
		{"different content is rejected", []string{bash, bashOther}, []string{okB, diag("duplicate_request_id", "b", "", len(bashOther))}},
		{"cancel ends a deferred request once", []string{ask, cancel, cancel}, []string{v2err("a", "cancelled")}},
		{"replay of pending has no reply", []string{ask, ask, cancel}, []string{diag("request_replayed", "a", "", len(ask)), v2err("a", "cancelled")}},
		{"pending at end of input", []string{ask, bash}, []string{okB, v2err("a", "cancelled")}},
		{"replay after cancel", []string{ask, cancel, ask}, []string{v2err("a", "cancelled"), diag("request_replayed", "a", v2err("a", "cancelled"), len(ask))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := v2frames(t, hostRun(t, policy, tt.in...))
			if diff := cmp.Diff(parse(t, tt.want...), got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestNewHostV2Rejects(t *testing.T) {
	t.Parallel()
	for _, p := range []string{
		`{"can_use_tool":{"Bash":{"behavior":"ask"}}}`,
		`{"can_use_tool":{"Bash":{"defer":true,"behavior":"allow"}}}`,
		`{"can_use_tool":{"Bash":{"behavior":"allow","message":"x"}}}`,
		`{"can_use_tool":{"Bash":{"behavior":"deny","updatedInput":{}}}}`,
		`{"answers":{"Q":[]}}`,
		`{"answers":{"Q":["A","A"]}}`,
		`{"answers":{"Q":""}}`,
		`{"answers":{"Q":null}}`,
		`{"dialog":{}}`,
		`{"side_question":{"action":1}}`,
		`{"typo":{}}`,
		`{} {}`,
	} {
		if _, err := reference.NewHostV2([]byte(p)); err == nil {
			t.Errorf("NewHostV2(%s) accepted", p)
		}
	}
	for _, p := range []string{``, ` `, `{}`, `{"can_use_tool":{"*":{"defer":true}}}`} {
		if _, err := reference.NewHostV2([]byte(p)); err != nil {
			t.Errorf("NewHostV2(%q): %v", p, err)
		}
	}
}

func TestHostV2Serve(t *testing.T) {
	t.Parallel()
	h, err := reference.NewHostV2([]byte(`{"can_use_tool":{"Bash":{"behavior":"allow"},"Ask":{"defer":true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		v2req("a", `{"subtype":"can_use_tool","tool_name":"Ask","input":{}}`),
		strings.Repeat("x", reference.MaxFrameV2+1),
		v2req("b", `{"subtype":"can_use_tool","tool_name":"Bash","input":{}}`),
	}, "\n") // the last line has no LF
	var out bytes.Buffer
	if err := h.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
	want := parse(t,
		`{"type":"control_diagnostic","schemaVersion":2,"code":"frame_too_large","size":1048577}`,
		v2ok("b", `{"behavior":"allow","updatedInput":{}}`),
		v2err("a", "cancelled"),
	)
	if diff := cmp.Diff(want, v2frames(t, lines)); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}
