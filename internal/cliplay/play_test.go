package cliplay_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/cliplay"
	"github.com/conform-kit/conform/internal/standin"
)

func TestDerive(t *testing.T) {
	t.Parallel()
	mcpPolicy := `{"mcp":{"notes":{"initialize":{"protocolVersion":"2024-11-05"},"tools/list":{"tools":[{"name":"append"}]}}},"can_use_tool":{"mcp__notes__append":{"behavior":"allow"}}}`
	tests := []struct {
		name, policy string
		send         []string
		want         []standin.Turn // when producible
		unproducible string         // a fragment of the reason
	}{
		{name: "a command the CLI asks about",
			send: []string{`{"type":"control_request","request_id":"req-1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"touch x && ls"},"tool_use_id":"toolu_01"}}`},
			want: []standin.Turn{{ToolUses: []standin.ToolUse{{ID: "toolu_01", Name: "Bash", Input: map[string]any{"command": "touch x && ls"}}}}}},
		{name: "a path under the vectors' working directory becomes relative",
			send: []string{`{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool","tool_name":"Write","input":{"file_path":"/work/a.txt","content":"x"}}}`},
			want: []standin.Turn{{ToolUses: []standin.ToolUse{{ID: "toolu_conform_01", Name: "Write", Input: map[string]any{"file_path": "a.txt", "content": "x"}}}}}},
		{name: "a PreToolUse hook the policy registers",
			policy: `{"hooks":{"hook_1":{}}}`,
			send:   []string{`{"type":"control_request","request_id":"r","request":{"subtype":"hook_callback","callback_id":"hook_1","input":{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}},"tool_use_id":"toolu_07"}}`},
			want:   []standin.Turn{{ToolUses: []standin.ToolUse{{ID: "toolu_07", Name: "Bash", Input: map[string]any{"command": "ls"}}}}}},
		{name: "MCP handshake and a tool call", policy: mcpPolicy,
			send: []string{
				`{"type":"control_request","request_id":"a","request":{"subtype":"mcp_message","server_name":"notes","message":{"jsonrpc":"2.0","id":0,"method":"initialize"}}}`,
				`{"type":"control_request","request_id":"b","request":{"subtype":"mcp_message","server_name":"notes","message":{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"append","arguments":{"text":"hi"}}}}}`,
			},
			want: []standin.Turn{{ToolUses: []standin.ToolUse{{ID: "toolu_conform_01", Name: "mcp__notes__append", Input: map[string]any{"text": "hi"}}}}}},
		{name: "read-only command", send: []string{`{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls -la"}}}`},
			unproducible: "without asking"},
		{name: "shell syntax", send: []string{`{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"rm -rf /"}}}`},
			unproducible: "without paths or shell syntax"},
		{name: "a write outside the working directory", send: []string{`{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool","tool_name":"Write","input":{"file_path":"/etc/hosts"}}}`},
			unproducible: "only inside its temporary working directory"},
		{name: "the network", send: []string{`{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool","tool_name":"WebFetch","input":{"url":"https://example.com/"}}}`},
			unproducible: "network"},
		{name: "an unregistered hook", policy: `{"hooks":{"hook_0":{}}}`,
			send:         []string{`{"type":"control_request","request_id":"r","request":{"subtype":"hook_callback","callback_id":"hook_9","input":{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"touch x"}}}}`},
			unproducible: "not in the policy's hooks"},
		{name: "another hook event", policy: `{"hooks":{"hook_3":{}}}`,
			send:         []string{`{"type":"control_request","request_id":"r","request":{"subtype":"hook_callback","callback_id":"hook_3","input":{"hook_event_name":"UserPromptSubmit"}}}`},
			unproducible: "PreToolUse"},
		{name: "an MCP server that does not answer initialize", policy: `{"mcp":{"notes":{}}}`,
			send:         []string{`{"type":"control_request","request_id":"r","request":{"subtype":"mcp_message","server_name":"notes","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}}`},
			unproducible: "does not answer initialize"},
		{name: "an MCP tool the policy does not allow", policy: `{"mcp":{"notes":{"initialize":{"protocolVersion":"1"},"tools/list":{"tools":[{"name":"append"}]}}}}`,
			send:         []string{`{"type":"control_request","request_id":"r","request":{"subtype":"mcp_message","server_name":"notes","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"append"}}}}`},
			unproducible: "does not allow"},
		{name: "a dialog", send: []string{`{"type":"control_request","request_id":"r","request":{"subtype":"request_user_dialog"}}`},
			unproducible: "no scripted model reply"},
		{name: "a cancel", send: []string{`{"type":"control_cancel_request","request_id":"r"}`},
			unproducible: "control_cancel_request"},
		{name: "not JSON", send: []string{`{"type":`}, unproducible: "not JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			send := make([][]byte, len(tc.send))
			for i, s := range tc.send {
				send[i] = []byte(s + "\n")
			}
			p, err := cliplay.Derive(send, []byte(tc.policy))
			if tc.unproducible != "" {
				var u *cliplay.Unproducible
				if !errors.As(err, &u) || !strings.Contains(u.Reason, tc.unproducible) {
					t.Fatalf("Derive = %v, want unproducible with %q", err, tc.unproducible)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, p.Script.Turns); diff != "" {
				t.Errorf("turns (-want +got):\n%s", diff)
			}
			if len(p.Items) != len(tc.send) {
				t.Errorf("%d items, want %d", len(p.Items), len(tc.send))
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	frame := map[string]any{"type": "control_request", "request_id": "x", "request": map[string]any{
		"subtype": "hook_callback", "input": map[string]any{"session_id": "s", "prompt_id": "p", "cwd": "/tmp/w", "transcript_path": "/tmp/t",
			"tool_input": map[string]any{"file_path": "/tmp/w/a.txt", "other": "/tmp/wx"}}}}
	got := cliplay.Normalize(frame, "/tmp/w")
	want := map[string]any{"type": "control_request", "request_id": "<request_id>", "request": map[string]any{
		"subtype": "hook_callback", "input": map[string]any{"session_id": "<uuid>", "prompt_id": "<uuid>", "cwd": "<path>", "transcript_path": "<path>",
			"tool_input": map[string]any{"file_path": "<cwd>/a.txt", "other": "/tmp/wx"}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if frame["request_id"] != "x" {
		t.Errorf("Normalize changed its argument")
	}
}

func TestDecisions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := dir + "/d.txt"
	write(t, path, "# comment\n\nhost-* PROPERTY_ADDED_OPEN /frames/0/request/display_name  # the CLI adds it\nhost-x * /frames/*/x_trace # kept\n")
	ds, err := cliplay.ReadDecisions(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].Reason != "the CLI adds it" || ds[1].Line != 4 {
		t.Fatalf("decisions %+v", ds)
	}
	cases := []struct {
		vector, rule, ptr string
		want              string
	}{
		{"host-a", "PROPERTY_ADDED_OPEN", "/frames/0/request/display_name", "the CLI adds it"},
		{"host-a", "REQUIRED_REMOVED", "/frames/0/request/display_name", ""},
		{"host-x", "ENVELOPE_RESTRUCTURED", "/frames/3/x_trace", "kept"},
		{"other", "PROPERTY_ADDED_OPEN", "/frames/0/request/display_name", ""},
	}
	for _, c := range cases {
		got := ""
		if d := cliplay.Decide(ds, findingOf(c.vector, c.rule, c.ptr)); d != nil {
			got = d.Reason
		}
		if got != c.want {
			t.Errorf("Decide(%s %s %s) = %q, want %q", c.vector, c.rule, c.ptr, got, c.want)
		}
	}
	for _, bad := range []string{"host-* RULE /p\n", "host-* /p # too few fields\n", "host-[ RULE /p # bad glob\n"} {
		write(t, path, bad)
		if _, err := cliplay.ReadDecisions(path); err == nil {
			t.Errorf("ReadDecisions(%q) = nil error", bad)
		}
	}
}
