package double

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// syncBuf is a bytes.Buffer safe for the double's writes and the test's reads.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := strings.Split(strings.TrimSuffix(s.b.String(), "\n"), "\n")
	if len(out) == 1 && out[0] == "" {
		return nil
	}
	return out
}

func plan(timeoutMS int64, replies []string, send ...string) *Plan {
	p := &Plan{TimeoutMS: timeoutMS}
	for _, s := range send {
		p.Send = append(p.Send, base64.StdEncoding.EncodeToString([]byte(s)))
	}
	for _, r := range replies {
		p.Replies = append(p.Replies, json.RawMessage(r))
	}
	return p
}

// host is the test's side of the double's pipes: it writes what a host
// writes and reads what the double writes, one line at a time.
type host struct {
	t   *testing.T
	w   *io.PipeWriter
	out *bufio.Scanner
}

func (h *host) send(line string) {
	h.t.Helper()
	if _, err := io.WriteString(h.w, line+"\n"); err != nil {
		h.t.Fatalf("host write: %v", err)
	}
}

func (h *host) next() map[string]any {
	h.t.Helper()
	if !h.out.Scan() {
		h.t.Fatalf("double closed its output early: %v", h.out.Err())
	}
	var m map[string]any
	if err := json.Unmarshal(h.out.Bytes(), &m); err != nil {
		h.t.Fatalf("double wrote %q: %v", h.out.Bytes(), err)
	}
	return m
}

type run struct {
	st   *Stats
	err  error
	tr   *syncBuf
	obs  *syncBuf
	done chan struct{}
}

func start(t *testing.T, o Options) (*host, *run) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &run{tr: &syncBuf{}, obs: &syncBuf{}, done: make(chan struct{})}
	o.Transcript, o.Observed = r.tr, r.obs
	go func() {
		defer close(r.done)
		r.st, r.err = Run(context.Background(), o, inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			t.Error("double did not end")
		}
	})
	return &host{t: t, w: inW, out: bufio.NewScanner(outR)}, r
}

func (r *run) wait(t *testing.T) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(time.Minute): // a hang guard, not a speed bound
		t.Fatal("double did not end within a minute: a hang")
	}
	if r.err != nil {
		t.Fatalf("Run: %v", r.err)
	}
}

func TestSessionLikeTheSDKs(t *testing.T) {
	t.Parallel()
	req := `{"type":"control_request","request_id":"req-1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}`
	h, r := start(t, Options{Plan: plan(5000, []string{`"req-1"`}, req, `{"type":"system","subtype":"status"}`),
		HostArgs: []string{"--output-format", "stream-json", "--permission-prompt-tool", "stdio"}})

	initLine := `{"type":"control_request","request_id":"init-1","request":{"subtype":"initialize","hooks":null}}`
	h.send(initLine)
	resp := h.next()
	body := resp["response"].(map[string]any)
	if body["request_id"] != "init-1" || body["subtype"] != "success" {
		t.Fatalf("initialize answered %v", resp)
	}
	for _, k := range []string{"commands", "agents", "output_style", "available_output_styles", "models", "account"} {
		if _, ok := body["response"].(map[string]any)[k]; !ok {
			t.Errorf("initialize response lacks %q", k)
		}
	}
	user := `{"type":"user","message":{"role":"user","content":"conform"},"parent_tool_use_id":null}`
	h.send(user)
	if got := h.next(); got["request_id"] != "req-1" {
		t.Fatalf("first played line = %v", got)
	}
	if got := h.next(); got["type"] != "system" {
		t.Fatalf("second played line = %v", got)
	}
	reply := `{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"behavior":"allow","updatedInput":{}}}}`
	h.send(reply)
	if got := h.next(); got["type"] != "result" || got["subtype"] != "success" {
		t.Fatalf("after the replies = %v, want the result frame", got)
	}
	h.send(`{"type":"keep_alive"}`) // still recorded after the result
	h.w.Close()
	r.wait(t)
	if diff := cmp.Diff([]string{reply, `{"type":"keep_alive"}`}, r.tr.lines()); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{initLine, user}, r.obs.lines()); diff != "" {
		t.Errorf("observed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&Stats{Played: true, UserTurn: true, HostEOF: true, End: EndReplies}, r.st); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}

func TestNoUserTurnPlaysAfterWait(t *testing.T) {
	t.Parallel()
	h, r := start(t, Options{Plan: plan(5000, nil, `{"type":"system"}`), UserTurnWait: 50 * time.Millisecond})
	h.send(`{"type":"control_request","request_id":1,"request":{"subtype":"initialize"}}`)
	if got := h.next(); got["response"].(map[string]any)["request_id"] != float64(1) {
		t.Fatalf("numeric request_id not echoed: %v", got)
	}
	if got := h.next(); got["type"] != "system" {
		t.Fatalf("played = %v", got)
	}
	if got := h.next(); got["type"] != "result" {
		t.Fatalf("want result, got %v", got)
	}
	h.w.Close()
	r.wait(t)
	if r.st.UserTurn || !r.st.Played {
		t.Errorf("stats = %+v", r.st)
	}
}

func TestOtherHostRequestsGetEmptySuccess(t *testing.T) {
	t.Parallel()
	h, r := start(t, Options{Plan: plan(5000, nil), UserTurnWait: 50 * time.Millisecond})
	h.send(`{"type":"control_request","request_id":"x","request":{"subtype":"set_permission_mode","mode":"plan"}}`)
	got := h.next()["response"].(map[string]any)
	if diff := cmp.Diff(map[string]any{"subtype": "success", "request_id": "x", "response": map[string]any{}}, got); diff != "" {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
	h.next() // result
	h.w.Close()
	r.wait(t)
}

func TestMissingReplyTimesOut(t *testing.T) {
	t.Parallel()
	h, r := start(t, Options{Plan: plan(300, []string{`"a"`, `7`}, `{"type":"system"}`), UserTurnWait: 20 * time.Millisecond})
	h.next() // played line
	h.send(`{"type":"control_response","response":{"subtype":"success","request_id":7,"response":{}}}`)
	if got := h.next(); got["type"] != "result" {
		t.Fatalf("want result, got %v", got)
	}
	h.w.Close()
	r.wait(t)
	if diff := cmp.Diff([]string{`"a"`}, r.st.Pending); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
}

func TestEndWaitBoundsASilentHost(t *testing.T) {
	t.Parallel()
	h, r := start(t, Options{Plan: plan(1000, nil), UserTurnWait: 10 * time.Millisecond, EndWait: 50 * time.Millisecond})
	h.next()  // result
	r.wait(t) // the host never closes stdin
	if r.st.HostEOF {
		t.Error("HostEOF set without EOF")
	}
}

// TestDeadlineCountsFromTheRunner: with the plan's deadline (the runner's
// timer), a double that a slow host started late still ends its session
// and its end phase by that time, not by its own start plus TimeoutMS
// (counting from the double's start, a JVM host that took long to start it
// got AGENT_NOT_STARTED or EXIT_MISSING from the runner's timer in place of
// REPLY_MISSING). Here the deadline is 1.5 s away and TimeoutMS says ten
// minutes: a double that counted from its own start would run into the
// hang guard of wait (a minute); nothing here asserts a speed, so a
// loaded machine that wakes the double late does not fail the test.
func TestDeadlineCountsFromTheRunner(t *testing.T) {
	t.Parallel()
	deadline := time.Now().Add(1500 * time.Millisecond)
	p := plan(600000, []string{`"a"`}, `{"type":"system"}`)
	p.DeadlineUnixMS = deadline.UnixMilli()
	h, r := start(t, Options{Plan: p, UserTurnWait: 20 * time.Millisecond})
	h.next() // played line
	if got := h.next(); got["type"] != "result" {
		t.Fatalf("want result, got %v", got)
	}
	// The host never replies and never closes stdin.
	r.wait(t)
	t.Logf("the double ended %v after the runner's deadline (negative: before)", time.Since(deadline))
	if r.st.End != EndTimeout {
		t.Errorf("end %q, want %q", r.st.End, EndTimeout)
	}
	if diff := cmp.Diff([]string{`"a"`}, r.st.Pending); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
}

func TestReadLinesBounds(t *testing.T) {
	t.Parallel()
	in := strings.Repeat("x", 100) + "\n" + "ok\n" + "tail"
	ch := make(chan hostLine, 10)
	readLines(strings.NewReader(in), 10, ch)
	var got []string
	for ln := range len(ch) {
		_ = ln
		l := <-ch
		if l.eof {
			got = append(got, "EOF")
			continue
		}
		got = append(got, string(l.data))
	}
	want := []string{strings.Repeat("x", 11), "ok", "tail", "EOF"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

func TestReadPlan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{"send":["e30="],"replies":["r",12345678901234567890],"timeout_ms":10}`), 0o600)
	p, err := ReadPlan(good)
	if err != nil {
		t.Fatal(err)
	}
	if string(p.Replies[1]) != "12345678901234567890" {
		t.Errorf("big request_id not kept exactly: %s", p.Replies[1])
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"send":["not base64!"]}`), 0o600)
	if _, err := ReadPlan(bad); err == nil {
		t.Error("bad base64 accepted")
	}
}

func TestCanUseToolNeedsPermissionPromptStdio(t *testing.T) {
	t.Parallel()
	req := `{"type":"control_request","request_id":"req-1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}`
	hook := `{"type":"control_request","request_id":"req-2","request":{"subtype":"hook_callback","callback_id":"hook_0","input":{}}}`
	h, r := start(t, Options{Plan: plan(5000, []string{`"req-1"`, `"req-2"`}, req, hook), UserTurnWait: 20 * time.Millisecond,
		HostArgs: []string{"--output-format", "stream-json", "--permission-prompt-tool", "mcp__perm__ask"}})
	if got := h.next(); got["request_id"] != "req-2" {
		t.Fatalf("first played line = %v, want the hook request (can_use_tool withheld)", got)
	}
	h.send(`{"type":"control_response","response":{"subtype":"success","request_id":"req-2","response":{}}}`)
	if got := h.next(); got["type"] != "result" {
		t.Fatalf("want result, got %v", got)
	}
	h.w.Close()
	r.wait(t)
	want := &Stats{Played: true, HostEOF: true, End: EndReplies, Withheld: []string{`"req-1"`}, WithheldWhy: withheldWhy}
	if diff := cmp.Diff(want, r.st); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}

func TestPermissionPromptStdio(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--permission-prompt-tool", "stdio"}, true},
		{[]string{"--verbose", "--permission-prompt-tool=stdio"}, true},
		{[]string{"--permission-prompt-tool"}, false},
		{[]string{"--permission-prompt-tool", "mcp__x__y"}, false},
		{[]string{"stdio"}, false},
		{nil, false},
	} {
		if got := PermissionPromptStdio(tc.args); got != tc.want {
			t.Errorf("PermissionPromptStdio(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

func TestIsVersionProbe(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--version"}, true},
		{[]string{"-v"}, true},
		{[]string{"-V"}, true},
		{[]string{"-p", "--output-format", "stream-json", "-v"}, true},
		{[]string{"--verbose"}, false},
		{[]string{"--vers"}, false},
		{nil, false},
	} {
		if got := IsVersionProbe(tc.args); got != tc.want {
			t.Errorf("IsVersionProbe(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
	if VersionLine != "2.1.332 (Claude Code)\n" {
		t.Errorf("VersionLine = %q", VersionLine)
	}
}

// A line the runner would reject ends the session at once: no result
// frame, the pending replies stay pending, and the end record says why.
func TestMalformedHostLineEndsTheSession(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, line, why string
	}{
		{"not JSON", `{"type":"control_response",`, "host line 1: "},
		{"duplicate key", `{"type":"control_response","type":"control_response","response":{"subtype":"success","request_id":"a","response":{}}}`, "host line 1: "},
		{"not an object", `["a"]`, "host line 1: not a JSON object"},
		{"no response", `{"type":"control_response","request_id":"a"}`, "host line 1: a control_response without a response object"},
		{"no request_id", `{"type":"control_response","response":{"subtype":"success","response":{}}}`, "host line 1: a control_response without response.request_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, r := start(t, Options{Plan: plan(60000, []string{`"a"`}, `{"type":"system"}`), UserTurnWait: 10 * time.Millisecond})
			h.next() // played line
			h.send(tc.line)
			r.wait(t)
			if r.st.End != EndMalformed || !strings.HasPrefix(r.st.Detail, tc.why) {
				t.Errorf("end %q detail %q, want %q and a detail starting %q", r.st.End, r.st.Detail, EndMalformed, tc.why)
			}
			if diff := cmp.Diff([]string{`"a"`}, r.st.Pending); diff != "" {
				t.Errorf("pending (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{tc.line}, r.tr.lines()); diff != "" {
				t.Errorf("transcript (-want +got):\n%s", diff)
			}
			if h.out.Scan() {
				t.Errorf("double wrote %q after the malformed line, want nothing (no result frame)", h.out.Text())
			}
		})
	}
}

// A reply with another subtype still answers its request: the runner
// judges its shape, and the session does not wait for a timeout.
func TestAnyReplySubtypeAnswers(t *testing.T) {
	t.Parallel()
	h, r := start(t, Options{Plan: plan(60000, []string{`"a"`}, `{"type":"system"}`), UserTurnWait: 10 * time.Millisecond})
	h.next()
	h.send(`{"type":"control_response","response":{"subtype":"succes","request_id":"a"}}`)
	if got := h.next(); got["type"] != "result" {
		t.Fatalf("want result, got %v", got)
	}
	h.w.Close()
	r.wait(t)
	if r.st.End != EndReplies || len(r.st.Pending) != 0 {
		t.Errorf("stats = %+v", r.st)
	}
}

func TestHostClosedBeforeReplying(t *testing.T) {
	t.Parallel()
	h, r := start(t, Options{Plan: plan(60000, []string{`"a"`}, `{"type":"system"}`), UserTurnWait: 10 * time.Millisecond})
	h.next()
	h.w.Close()
	r.wait(t)
	if r.st.End != EndHostClosed || !r.st.HostEOF {
		t.Errorf("stats = %+v, want end %q", r.st, EndHostClosed)
	}
}

// TestAwaitHoldsLinesBack: a line the plan holds back is written only once
// the host replied to the awaited request; when that reply never comes, the
// rest is not written and its requests are not pending.
func TestAwaitHoldsLinesBack(t *testing.T) {
	t.Parallel()
	req := `{"type":"control_request","request_id":"a","request":{"subtype":"hook_callback","callback_id":"hook_0","input":{}}}`
	cancel := `{"type":"control_cancel_request","request_id":"a"}`
	sync := `{"type":"control_request","request_id":"b","request":{"subtype":"hook_callback","callback_id":"hook_0","input":{}}}`
	withAwait := func(timeoutMS int64) *Plan {
		p := plan(timeoutMS, []string{`"b"`}, req, cancel, sync)
		p.Await = []PlanAwait{{Before: 1, RequestID: json.RawMessage(`"a"`)}}
		return p
	}

	t.Run("reply releases the rest", func(t *testing.T) {
		t.Parallel()
		h, r := start(t, Options{Plan: withAwait(5000), UserTurnWait: 20 * time.Millisecond})
		if got := h.next(); got["request_id"] != "a" {
			t.Fatalf("first line = %v, want request a", got)
		}
		h.send(`{"type":"control_response","response":{"subtype":"success","request_id":"a","response":{}}}`)
		if got := h.next(); got["type"] != "control_cancel_request" {
			t.Fatalf("after the reply: %v, want the cancel", got)
		}
		if got := h.next(); got["request_id"] != "b" {
			t.Fatalf("then %v, want request b", got)
		}
		h.send(`{"type":"control_response","response":{"subtype":"success","request_id":"b","response":{}}}`)
		if got := h.next(); got["type"] != "result" {
			t.Fatalf("want result, got %v", got)
		}
		h.w.Close()
		r.wait(t)
		if r.st.End != EndReplies || r.st.AwaitUnmet != "" {
			t.Errorf("stats %+v, want every reply and no unmet await", r.st)
		}
	})

	t.Run("no reply, rest unsent", func(t *testing.T) {
		t.Parallel()
		h, r := start(t, Options{Plan: withAwait(300), UserTurnWait: 20 * time.Millisecond})
		h.next() // request a, never answered
		if got := h.next(); got["type"] != "result" {
			t.Fatalf("want result (the cancel and b held back), got %v", got)
		}
		h.w.Close()
		r.wait(t)
		want := &Stats{Played: true, HostEOF: true, End: EndReplies, AwaitUnmet: `"a"`, Unsent: []string{`"b"`}}
		if diff := cmp.Diff(want, r.st); diff != "" {
			t.Errorf("stats (-want +got):\n%s", diff)
		}
	})
}
