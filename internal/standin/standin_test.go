package standin_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/standin"
	"github.com/conform-kit/conform/internal/testtool"
)

func start(t *testing.T) *standin.Server {
	t.Helper()
	testtool.NeedLoopback(t)
	s, err := standin.Start(standin.Script{Turns: []standin.Turn{
		{ToolUses: []standin.ToolUse{{ID: "toolu_1", Name: "Bash", Input: map[string]any{"command": "touch x"}}}},
		{ToolUses: []standin.ToolUse{{ID: "toolu_2", Name: "Write", Input: map[string]any{"file_path": "a", "content": "b"}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL %s is not on 127.0.0.1", s.URL())
	}
	return s
}

func post(t *testing.T, url string, body any) (int, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

type msg struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

func conv(n int) []msg {
	ms := []msg{{Role: "user", Content: "hello"}}
	for i := range n {
		ms = append(ms, msg{Role: "assistant", Content: []any{}},
			msg{Role: "user", Content: []any{map[string]any{"type": "tool_result", "tool_use_id": []string{"toolu_1", "toolu_2"}[i], "is_error": i == 1, "content": []any{map[string]any{"type": "text", "text": "out"}}}}})
	}
	return ms
}

func TestTurns(t *testing.T) {
	t.Parallel()
	s := start(t)
	tools := []any{map[string]any{"name": "Bash"}, map[string]any{"name": "Write"}}
	// JSON replies: turn 0, a side request, turn 1, then the final text.
	code, body := post(t, s.URL()+"/v1/messages", map[string]any{"model": "m", "tools": tools, "messages": conv(0)})
	if code != 200 || !strings.Contains(body, `"name":"Bash"`) || !strings.Contains(body, `"stop_reason":"tool_use"`) {
		t.Fatalf("turn 0: %d %s", code, body)
	}
	_, body = post(t, s.URL()+"/v1/messages", map[string]any{"model": "m", "tools": tools, "messages": []msg{{Role: "user", Content: "write a title"}}})
	if !strings.Contains(body, `"text":"ok"`) {
		t.Fatalf("side request: %s", body)
	}
	_, body = post(t, s.URL()+"/v1/messages", map[string]any{"model": "m", "tools": tools, "messages": conv(1)})
	if !strings.Contains(body, `"name":"Write"`) {
		t.Fatalf("turn 1: %s", body)
	}
	// Streamed: the final text, as server-sent events.
	_, body = post(t, s.URL()+"/v1/messages", map[string]any{"model": "m", "stream": true, "tools": tools, "messages": conv(2)})
	for _, want := range []string{"event: message_start\n", "event: content_block_delta\n", `{"text":"done","type":"text_delta"}`, `"stop_reason":"end_turn"`, "event: message_stop\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("stream lacks %q:\n%s", want, body)
		}
	}
	want := []standin.ToolResult{{ToolUseID: "toolu_1", Content: "out"}, {ToolUseID: "toolu_2", IsError: true, Content: "out"}}
	if diff := cmp.Diff(want, s.Results()); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Bash", "Write"}, s.Tools()); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if s.Calls() != 4 {
		t.Errorf("calls = %d, want 4", s.Calls())
	}
}

func TestStreamedToolUse(t *testing.T) {
	t.Parallel()
	s := start(t)
	_, body := post(t, s.URL()+"/v1/messages?beta=true", map[string]any{"stream": true, "tools": []any{map[string]any{"name": "Bash"}}, "messages": conv(0)})
	for _, want := range []string{`"content_block":{"id":"toolu_1","input":{},"name":"Bash","type":"tool_use"}`, `"partial_json":"{\"command\":\"touch x\"}"`, `"stop_reason":"tool_use"`} {
		if !strings.Contains(body, want) {
			t.Errorf("stream lacks %q:\n%s", want, body)
		}
	}
}

func TestOtherPaths(t *testing.T) {
	t.Parallel()
	s := start(t)
	code, body := post(t, s.URL()+"/v1/messages/count_tokens", map[string]any{})
	if code != 200 || !strings.Contains(body, "input_tokens") {
		t.Errorf("count_tokens: %d %s", code, body)
	}
	code, body = post(t, s.URL()+"/api/oauth/profile", map[string]any{})
	if code != 404 || !strings.Contains(body, "not_found_error") {
		t.Errorf("other path: %d %s", code, body)
	}
	resp, err := http.Post(s.URL()+"/v1/messages", "application/json", strings.NewReader("{"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 || len(s.Errors()) != 1 {
		t.Errorf("bad body: %d, errors %v", resp.StatusCode, s.Errors())
	}
}
