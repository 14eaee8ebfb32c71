package cliplay_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/cliplay"
	"github.com/conform-kit/conform/internal/drift"
	"github.com/conform-kit/conform/internal/testtool"
	"github.com/conform-kit/conform/reference"
)

// The test binary re-executes itself as a fake CLI when CONFORM_FAKE_CLI is
// set (protobuf-go's conformance pattern): it speaks stream-json like the
// CLI, asks the stand-in at ANTHROPIC_BASE_URL for the model's turns, asks
// its host about each tool call with its own request ids (cli-1, ...) and
// reports the outcome back as a tool_result.
func TestMain(m *testing.M) {
	if os.Getenv("CONFORM_FAKE_CLI") == "1" {
		os.Exit(fakeCLI())
	}
	os.Exit(m.Run())
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func findingOf(vector, rule, ptr string) drift.Finding {
	return drift.Finding{Vector: vector, Rule: rule, Pointer: ptr}
}

func fakeCLI() int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	base := os.Getenv("ANTHROPIC_BASE_URL")
	ask := func(msgs []any) (map[string]any, error) {
		b, _ := json.Marshal(map[string]any{"model": "m", "tools": []any{map[string]any{"name": "Bash"}}, "messages": msgs})
		resp, err := http.Post(base+"/v1/messages", "application/json", bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		var m map[string]any
		return m, json.NewDecoder(resp.Body).Decode(&m)
	}
	msgs := []any{}
	n := 0
	for in.Scan() {
		var f map[string]any
		if json.Unmarshal(in.Bytes(), &f) != nil {
			return 1
		}
		switch f["type"] {
		case "control_request":
			_ = out.Encode(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": f["request_id"], "response": map[string]any{}}})
			continue
		case "user":
		default:
			continue
		}
		msgs = append(msgs, map[string]any{"role": "user", "content": "go"})
		for {
			reply, err := ask(msgs)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			content, _ := reply["content"].([]any)
			msgs = append(msgs, map[string]any{"role": "assistant", "content": content})
			if reply["stop_reason"] != "tool_use" {
				break
			}
			var results []any
			for _, c := range content {
				use := c.(map[string]any)
				n++
				id := fmt.Sprintf("cli-%d", n)
				_ = out.Encode(map[string]any{"type": "control_request", "request_id": id, "request": map[string]any{
					"subtype": "can_use_tool", "tool_name": use["name"], "input": use["input"], "tool_use_id": use["id"], "display_name": use["name"]}})
				// Wait for the host's reply to our own id.
				var body map[string]any
				for in.Scan() {
					var r map[string]any
					if json.Unmarshal(in.Bytes(), &r) != nil || r["type"] != "control_response" {
						continue
					}
					resp := r["response"].(map[string]any)
					if resp["request_id"] != id {
						fmt.Fprintf(os.Stderr, "reply to %v, want %s\n", resp["request_id"], id)
						return 1
					}
					body, _ = resp["response"].(map[string]any)
					break
				}
				res := map[string]any{"type": "tool_result", "tool_use_id": use["id"]}
				if body["behavior"] == "allow" {
					upd, _ := body["updatedInput"].(map[string]any)
					res["content"] = fmt.Sprint("ran:", upd["command"])
				} else {
					res["content"], res["is_error"] = body["message"], true
				}
				results = append(results, res)
			}
			msgs = append(msgs, map[string]any{"role": "user", "content": results})
		}
		_ = out.Encode(map[string]any{"type": "result", "subtype": "success"})
	}
	return 0
}

// play runs the vector frames through the fake CLI with the reference host
// answering, as conform fidelity does.
func play(t *testing.T, policy string, frames ...string) (*cliplay.Play, *cliplay.Observation, string) {
	t.Helper()
	testtool.NeedLoopback(t) // the fake CLI asks Tap's stand-in on 127.0.0.1
	send := make([][]byte, len(frames))
	for i, f := range frames {
		send[i] = []byte(f)
	}
	p, err := cliplay.Derive(send, []byte(policy))
	if err != nil {
		t.Fatal(err)
	}
	host, err := reference.NewHost([]byte(policy))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	agentInR, agentInW := io.Pipe()
	agentOutR, agentOutW := io.Pipe()
	hostInR, hostInW := io.Pipe()
	hostOutR, hostOutW := io.Pipe()
	go func() {
		_ = host.Serve(ctx, hostInR, hostOutW)
		_ = hostOutW.Close()
	}()
	done := make(chan error, 1)
	go func() {
		done <- cliplay.Adapter(ctx, cliplay.AdapterConfig{Policy: []byte(policy), FromAgent: agentOutR, ToAgent: agentInW, FromHost: hostOutR, ToHost: hostInW})
	}()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var transcript, observed bytes.Buffer
	obs, err := cliplay.Tap(ctx, cliplay.TapConfig{Play: p, CLI: []string{exe}, Env: append(os.Environ(), "CONFORM_FAKE_CLI=1"),
		HostIn: agentInR, HostOut: agentOutW, Transcript: &transcript, Observed: &observed, Stderr: os.Stderr})
	_ = agentOutW.Close()
	_ = agentInR.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(observed.String(), `"subtype":"initialize"`) || !strings.Contains(observed.String(), `"type":"user"`) {
		t.Errorf("observed lacks the adapter's initialize and user turn:\n%s", observed.String())
	}
	return p, obs, transcript.String()
}

func TestTapMapsIDsBothWays(t *testing.T) {
	t.Parallel()
	p, obs, transcript := play(t, `{"can_use_tool":{"Bash":{"behavior":"allow"},"Write":{"behavior":"deny","message":"no writes"}}}`,
		`{"type":"control_request","request_id":"req-1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"touch a && ls"},"tool_use_id":"toolu_01"}}`,
		`{"type":"control_request","request_id":"req-2","request":{"subtype":"can_use_tool","tool_name":"Write","input":{"file_path":"a.txt","content":"x"},"tool_use_id":"toolu_02"}}`,
	)
	if obs.Exit != 0 || obs.TimedOut {
		t.Fatalf("fake CLI exit %d (timed out %v)", obs.Exit, obs.TimedOut)
	}
	// The CLI's own ids went to the host as the vector's, and back.
	for i, want := range []string{`"request_id":"cli-1"`, `"request_id":"cli-2"`} {
		if !strings.Contains(string(obs.Sent[i]), want) {
			t.Errorf("sent[%d] = %s, want %s", i, obs.Sent[i], want)
		}
	}
	for _, want := range []string{`"request_id":"req-1"`, `"request_id":"req-2"`} {
		if !strings.Contains(transcript, want) {
			t.Errorf("transcript lacks %s:\n%s", want, transcript)
		}
	}
	var effects []string
	for _, o := range cliplay.Outcomes(p, obs) {
		effects = append(effects, o.Decision+" -> "+o.Effect+" ("+o.Result+")")
	}
	want := []string{
		"allow with the request's input -> ran the original input (ran:touch a && ls)",
		"deny -> refused, with the host's message (no writes)",
	}
	if diff := cmp.Diff(want, effects); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	// The fake CLI adds display_name, which the vector frames lack.
	diffs, err := cliplay.Differences("v", p, obs, "", drift.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diffs {
		got = append(got, d.Rule+" "+d.Pointer)
	}
	wantDiffs := []string{"PROPERTY_ADDED_OPEN /frames/0/request/display_name", "PROPERTY_ADDED_OPEN /frames/1/request/display_name"}
	if diff := cmp.Diff(wantDiffs, got); diff != "" {
		t.Errorf("differences (-want +got):\n%s", diff)
	}
}

func TestInitialize(t *testing.T) {
	t.Parallel()
	b, err := cliplay.Initialize([]byte(`{"hooks":{"hook_1":{},"hook_0":{}},"mcp":{"notes":{},"cal":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"request":{"hooks":{"PreToolUse":[{"hookCallbackIds":["hook_0","hook_1"]}]},"sdkMcpServers":["cal","notes"],"subtype":"initialize"},"request_id":"conform-adapter-init","type":"control_request"}`
	if string(b) != want {
		t.Errorf("Initialize = %s\nwant %s", b, want)
	}
}
