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

// decode parses a reply line for comparison (numbers as float64).
func decode(t *testing.T, b []byte) any {
	t.Helper()
	if b == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("reply is not JSON: %v: %s", err, b)
	}
	return v
}

func success(id string, body string) string {
	return `{"type":"control_response","response":{"subtype":"success","request_id":` + quoteJSON(id) + `,"response":` + body + `}}`
}

func failure(id, msg string) string {
	return `{"type":"control_response","response":{"subtype":"error","request_id":` + quoteJSON(id) + `,"error":` + quoteJSON(msg) + `}}`
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestHostHandle(t *testing.T) {
	t.Parallel()
	const ask = `{"type":"control_request","request_id":"q","request":{"subtype":"can_use_tool","tool_name":"AskUserQuestion","input":{"questions":[` +
		`{"question":"Which DB?","header":"DB","multiSelect":false,"options":[{"label":"Postgres","description":"p"},{"label":"SQLite","description":"s"}]},` +
		`{"question":"Features?","header":"F","multiSelect":true,"options":[{"label":"Auth","description":"a"},{"label":"Audit","description":"b"}]}]}}}`
	const askQuestions = `[{"question":"Which DB?","header":"DB","multiSelect":false,"options":[{"label":"Postgres","description":"p"},{"label":"SQLite","description":"s"}]},` +
		`{"question":"Features?","header":"F","multiSelect":true,"options":[{"label":"Auth","description":"a"},{"label":"Audit","description":"b"}]}]`
	tests := []struct {
		name, policy, in, want string
	}{
		{"allow echoes input", `{"can_use_tool":{"Bash":{"behavior":"allow"}}}`,
			`{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls","n":1.5}}}`,
			success("r1", `{"behavior":"allow","updatedInput":{"command":"ls","n":1.5}}`)},
		{"allow without input echoes {}", `{"can_use_tool":{"Bash":{"behavior":"allow"}}}`,
			`{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash"}}`,
			success("r1", `{"behavior":"allow","updatedInput":{}}`)},
		{"allow with updatedInput and permissions", `{"can_use_tool":{"Bash":{"behavior":"allow","updatedInput":{"command":"pwd"},"updatedPermissions":[{"type":"setMode","mode":"plan","destination":"session"}]}}}`,
			`{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"}}}`,
			success("r1", `{"behavior":"allow","updatedInput":{"command":"pwd"},"updatedPermissions":[{"type":"setMode","mode":"plan","destination":"session"}]}`)},
		{"deny with interrupt", `{"can_use_tool":{"Bash":{"behavior":"deny","message":"no","interrupt":true}}}`,
			`{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}`,
			success("r1", `{"behavior":"deny","message":"no","interrupt":true}`)},
		{"deny interrupt false is left out", `{"can_use_tool":{"Bash":{"behavior":"deny","message":"no","interrupt":false}}}`,
			`{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}`,
			success("r1", `{"behavior":"deny","message":"no"}`)},
		{"deny without message", `{"can_use_tool":{"Bash":{"behavior":"deny"}}}`,
			`{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}`,
			success("r1", `{"behavior":"deny","message":"Denied by policy"}`)},
		{"no rule denies", ``,
			`{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}`,
			success("r1", `{"behavior":"deny","message":"Denied by policy"}`)},
		{"wildcard", `{"can_use_tool":{"*":{"behavior":"allow"},"Bash":{"behavior":"deny","message":"x"}}}`,
			`{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Grep","input":{"pattern":"a"}}}`,
			success("r1", `{"behavior":"allow","updatedInput":{"pattern":"a"}}`)},
		{"questions answered, multi-select joined", `{"answers":{"Which DB?":"SQLite","Features?":["Audit","Auth"]}}`, ask,
			success("q", `{"behavior":"allow","updatedInput":{"questions":`+askQuestions+`,"answers":{"Which DB?":"SQLite","Features?":"Audit, Auth"}}}`)},
		{"question unanswered denies", `{"answers":{"Which DB?":"SQLite"},"can_use_tool":{"*":{"behavior":"allow"}}}`, ask,
			success("q", `{"behavior":"deny","message":"Denied by policy"}`)},
		{"question deny rule", `{"answers":{"Which DB?":"SQLite","Features?":"Auth"},"can_use_tool":{"AskUserQuestion":{"behavior":"deny","message":"no"}}}`, ask,
			success("q", `{"behavior":"deny","message":"no"}`)},
		{"hook continue", `{"hooks":{"h0":{}}}`,
			`{"type":"control_request","request_id":"h","request":{"subtype":"hook_callback","callback_id":"h0","input":{"hook_event_name":"PreToolUse"},"tool_use_id":null}}`,
			success("h", `{}`)},
		{"hook block", `{"hooks":{"h0":{"decision":"block","reason":"nope"}}}`,
			`{"type":"control_request","request_id":"h","request":{"subtype":"hook_callback","callback_id":"h0","input":{}}}`,
			success("h", `{"decision":"block","reason":"nope"}`)},
		{"hook unregistered", `{}`,
			`{"type":"control_request","request_id":"h","request":{"subtype":"hook_callback","callback_id":"h9","input":{}}}`,
			failure("h", "No hook callback found for ID: h9")},
		{"mcp request", `{"mcp":{"s":{"tools/list":{"tools":[]}}}}`,
			`{"type":"control_request","request_id":"m","request":{"subtype":"mcp_message","server_name":"s","message":{"jsonrpc":"2.0","id":"x","method":"tools/list"}}}`,
			success("m", `{"mcp_response":{"jsonrpc":"2.0","id":"x","result":{"tools":[]}}}`)},
		{"mcp request default result", `{"mcp":{"s":{}}}`,
			`{"type":"control_request","request_id":"m","request":{"subtype":"mcp_message","server_name":"s","message":{"jsonrpc":"2.0","id":4,"method":"ping"}}}`,
			success("m", `{"mcp_response":{"jsonrpc":"2.0","id":4,"result":{}}}`)},
		{"mcp notification", ``,
			`{"type":"control_request","request_id":"m","request":{"subtype":"mcp_message","server_name":"s","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}}`,
			success("m", `{"mcp_response":{"jsonrpc":"2.0","result":{}}}`)},
		{"mcp unknown server", `{"mcp":{"s":{}}}`,
			`{"type":"control_request","request_id":"m","request":{"subtype":"mcp_message","server_name":"t","message":{"jsonrpc":"2.0","id":1,"method":"ping"}}}`,
			success("m", `{"mcp_response":{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Server 't' not found"}}}`)},
		{"dialog", `{"dialog":{"behavior":"ok","choice":"yes"}}`,
			`{"type":"control_request","request_id":"d","request":{"subtype":"request_user_dialog","dialogKind":"confirm"}}`,
			success("d", `{"behavior":"ok","choice":"yes"}`)},
		{"dialog default", ``,
			`{"type":"control_request","request_id":"d","request":{"subtype":"request_user_dialog","dialog_kind":"confirm"}}`,
			success("d", `{"behavior":"cancelled"}`)},
		{"elicitation", `{"elicitation":{"action":"accept","content":{"a":1}}}`,
			`{"type":"control_request","request_id":"e","request":{"subtype":"elicitation","server":"s","prompt":"p"}}`,
			success("e", `{"action":"accept","content":{"a":1}}`)},
		{"elicitation default", ``,
			`{"type":"control_request","request_id":"e","request":{"subtype":"elicitation","mcp_server_name":"s","message":"p"}}`,
			success("e", `{"action":"decline"}`)},
		{"side question default", ``,
			`{"type":"control_request","request_id":"s","request":{"subtype":"side_question","message":"?"}}`,
			success("s", `{"action":"decline"}`)},
		{"unknown subtype", ``,
			`{"type":"control_request","request_id":"u","request":{"subtype":"frobnicate"}}`,
			failure("u", "Unsupported control request subtype: frobnicate")},
		{"host-to-agent subtype", ``,
			`{"type":"control_request","request_id":"u","request":{"subtype":"initialize"}}`,
			failure("u", "Unsupported control request subtype: initialize")},
		{"non-ASCII request_id", `{"can_use_tool":{"*":{"behavior":"allow"}}}`,
			`{"type":"control_request","request_id":"réq-😀","request":{"subtype":"can_use_tool","tool_name":"X","input":{}}}`,
			success("réq-😀", `{"behavior":"allow","updatedInput":{}}`)},
		{"cancel", ``, `{"type":"control_cancel_request","request_id":"r1"}`, ``},
		{"control_response", ``, `{"type":"control_response","response":{"subtype":"success","request_id":"x"}}`, ``},
		{"system frame", ``, `{"type":"system","subtype":"status"}`, ``},
		{"not JSON", ``, `hello`, ``},
		{"blank", ``, `   `, ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, err := reference.NewHost([]byte(tc.policy))
			if err != nil {
				t.Fatal(err)
			}
			got, err := h.Handle([]byte(tc.in + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			var want any
			if tc.want != "" {
				want = decode(t, []byte(tc.want))
			}
			if diff := cmp.Diff(want, decode(t, got)); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewHostRejects(t *testing.T) {
	t.Parallel()
	for _, p := range []string{
		`[]`,
		`{"can_use_tol":{}}`,
		`{"can_use_tool":{"Bash":{"behavior":"ask"}}}`,
		`{"can_use_tool":{"Bash":{"behavior":"allow","message":"x"}}}`,
		`{"can_use_tool":{"Bash":{"behavior":"deny","updatedInput":{}}}}`,
		`{"can_use_tool":{"Bash":{"behavior":"deny","extra":1}}}`,
		`{"answers":{"q":1}}`,
		`{"answers":{"q":[1]}}`,
		`{"answers":{"q":null}}`,
		`{"hooks":{"h":"block"}}`,
		`{"dialog":{"choice":"x"}}`,
		`{"elicitation":{"content":{}}}`,
		`{} {}`,
		`{`,
	} {
		if _, err := reference.NewHost([]byte(p)); err == nil {
			t.Errorf("NewHost(%s) accepted it", p)
		}
	}
}

// TestHostServe answers pipelined requests in input order, skips what gets
// no reply, and is deterministic.
func TestHostServe(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"type":"control_request","request_id":"a","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"}}}`,
		`{"type":"control_cancel_request","request_id":"a"}`,
		`not json`,
		`{"type":"control_request","request_id":"b","request":{"subtype":"frobnicate"}}`,
	}, "\n") // no final LF: the last line is still answered
	run := func() string {
		h, err := reference.NewHost([]byte(`{"can_use_tool":{"Bash":{"behavior":"allow"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := h.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	got := run()
	want := `{"response":{"request_id":"a","response":{"behavior":"allow","updatedInput":{"command":"ls"}},"subtype":"success"},"type":"control_response"}` + "\n" +
		`{"response":{"error":"Unsupported control request subtype: frobnicate","request_id":"b","subtype":"error"},"type":"control_response"}` + "\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if again := run(); again != got {
		t.Errorf("not deterministic:\n%s\n%s", got, again)
	}
}

func TestAnswerWire(t *testing.T) {
	t.Parallel()
	var a reference.Answer
	if err := json.Unmarshal([]byte(`["Auth","Audit"]`), &a); err != nil {
		t.Fatal(err)
	}
	if got := a.Wire(); got != "Auth, Audit" {
		t.Errorf("Wire() = %q, want %q", got, "Auth, Audit")
	}
}
