// Package standin is a scripted stand-in for the Anthropic Messages API on
// 127.0.0.1, so that the real Claude Code CLI, started with
// ANTHROPIC_BASE_URL pointing at it, runs offline and asks its host what a
// scripted model asks for: tool calls (and so can_use_tool, hook_callback
// and MCP requests over stdio), one turn at a time.
//
// Conversations. The first POST /v1/messages that offers tools opens the
// main conversation, named by its first message. Each request of the main
// conversation gets the first scripted [Turn] whose tool calls it does not
// hold yet (as tool_use or tool_result blocks: the CLI may merge or drop
// messages, so they are not counted), and, once the turns are used up, a
// text reply that ends the turn. Every other request (a title, a summary, a
// sub-agent) gets a text reply, so the script is played once whatever the
// CLI asks on the side. POST /v1/messages/count_tokens gets a token count;
// every other path is 404 with an API error body.
//
// Replies are server-sent events when the request asks for "stream": true
// (message_start, content_block_start/delta/stop per block, message_delta
// with the stop reason, message_stop), else one JSON message: the shapes of
// the Messages API that the CLI 2.1.200–2.1.332 reads (observed here).
//
// What the CLI reports back is kept: the tool_result blocks of the main
// conversation ([Server.Results]), which say what became of each tool
// call (it ran, the tool failed, or the host refused it, with the text the
// model would see).
package standin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// MaxBody bounds a request body, in bytes (a long conversation with tool
// output stays far below it).
const MaxBody = 32 << 20

// DefaultFinalText ends the main conversation once the turns are used up.
const DefaultFinalText = "done"

// ToolUse is one tool call the scripted model makes.
type ToolUse struct {
	// ID is the tool_use id (the CLI echoes it as tool_use_id in
	// can_use_tool and hook_callback requests).
	ID string `json:"id"`
	// Name is the tool's name (Bash, AskUserQuestion, mcp__notes__append).
	Name string `json:"name"`
	// Input is the tool's input object.
	Input map[string]any `json:"input"`
}

// Turn is one scripted model reply: its tool calls (stop reason
// "tool_use"), or, with none, Text (stop reason "end_turn").
type Turn struct {
	ToolUses []ToolUse `json:"tool_uses,omitempty"`
	Text     string    `json:"text,omitempty"`
}

// Script is what the model of the main conversation says, turn by turn.
type Script struct {
	Turns []Turn `json:"turns"`
	// FinalText is the text reply after the last turn (default
	// [DefaultFinalText]).
	FinalText string `json:"final_text,omitempty"`
}

// ToolResult is one tool_result block the CLI sent back in the main
// conversation.
type ToolResult struct {
	ToolUseID string `json:"tool_use_id"`
	IsError   bool   `json:"is_error,omitempty"`
	// Content is the result's text (text blocks joined by LF).
	Content string `json:"content"`
}

// Server is a running stand-in. Its methods are safe for concurrent use.
type Server struct {
	script Script
	ln     net.Listener
	srv    *http.Server
	done   chan struct{}

	mu      sync.Mutex
	main    string // canonical first message of the main conversation
	calls   int
	results []ToolResult
	seen    map[string]bool
	tools   []string
	errs    []string
}

// Start listens on 127.0.0.1 (a free port) and serves script until
// [Server.Close]. Errors: the listener's.
func Start(script Script) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("stand-in listen: %w", err)
	}
	if script.FinalText == "" {
		script.FinalText = DefaultFinalText
	}
	s := &Server{script: script, ln: ln, done: make(chan struct{}), seen: map[string]bool{}}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// URL is the base URL to give the CLI as ANTHROPIC_BASE_URL
// ("http://127.0.0.1:<port>").
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server and waits for it (at most 2 s for open
// connections).
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	<-s.done
	return err
}

// Results returns the tool results of the main conversation, each once, in
// the order the CLI first sent them.
func (s *Server) Results() []ToolResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ToolResult(nil), s.results...)
}

// Calls is the number of POST /v1/messages requests served.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Tools is the names of the tools the CLI offered in the main
// conversation's first request (what the model may call).
func (s *Server) Tools() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.tools...)
}

// Errors lists requests the stand-in could not read (bad JSON, too large).
func (s *Server) Errors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.errs...)
}

// request is what the stand-in reads of a Messages API request.
type request struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// ServeHTTP answers one request (see the package comment).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && p == "/v1/messages/count_tokens":
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, MaxBody))
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": 1})
		return
	case r.Method == http.MethodPost && p == "/v1/messages":
	default:
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, MaxBody))
		writeJSON(w, http.StatusNotFound, map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": "conform stand-in: no " + r.Method + " " + p}})
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	var req request
	if err == nil && len(body) > MaxBody {
		err = fmt.Errorf("body over %d bytes", MaxBody)
	}
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		s.mu.Lock()
		s.errs = append(s.errs, err.Error())
		s.mu.Unlock()
		writeJSON(w, http.StatusBadRequest, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": "conform stand-in: " + err.Error()}})
		return
	}
	turn := s.turn(&req)
	model := req.Model
	if model == "" {
		model = "claude-conform-standin"
	}
	if req.Stream {
		writeStream(w, model, turn)
		return
	}
	blocks, stop := content(turn)
	writeJSON(w, http.StatusOK, map[string]any{
		"id": "msg_conform", "type": "message", "role": "assistant", "model": model,
		"content": blocks, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1},
	})
}

// turn picks the reply to req and records its tool results.
func (s *Server) turn(req *request) Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	first := ""
	if len(req.Messages) > 0 {
		first = string(req.Messages[0].Content)
	}
	if s.main == "" && len(req.Tools) > 0 && first != "" {
		s.main = first
		for _, t := range req.Tools {
			var tool struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(t, &tool) == nil {
				s.tools = append(s.tools, tool.Name)
			}
		}
	}
	if s.main == "" || first != s.main {
		return Turn{Text: "ok"}
	}
	assistant := 0
	seen := map[string]bool{}
	for _, m := range req.Messages {
		switch m.Role {
		case "assistant":
			assistant++
		case "user":
			s.collect(m.Content)
		}
		for _, id := range toolIDs(m.Content) {
			seen[id] = true
		}
	}
	// The next turn is the first whose tool calls the conversation does not
	// hold yet (the CLI may merge or drop messages, so they are not
	// counted); a text-only turn is done once that many assistant messages
	// were sent.
	for i, t := range s.script.Turns {
		done := len(t.ToolUses) > 0
		for _, u := range t.ToolUses {
			done = done && seen[u.ID]
		}
		if len(t.ToolUses) == 0 {
			done = i < assistant
		}
		if !done {
			return t
		}
	}
	return Turn{Text: s.script.FinalText}
}

// toolIDs returns the ids of the tool_use and tool_result blocks of one
// message's content.
func toolIDs(content json.RawMessage) []string {
	var blocks []struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		ToolUseID string `json:"tool_use_id"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return nil
	}
	var ids []string
	for _, b := range blocks {
		switch b.Type {
		case "tool_use":
			ids = append(ids, b.ID)
		case "tool_result":
			ids = append(ids, b.ToolUseID)
		}
	}
	return ids
}

// collect records the tool_result blocks of one user message (content is
// a string or an array of blocks).
func (s *Server) collect(content json.RawMessage) {
	var blocks []struct {
		Type      string          `json:"type"`
		ToolUseID string          `json:"tool_use_id"`
		IsError   bool            `json:"is_error"`
		Content   json.RawMessage `json:"content"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return
	}
	for _, b := range blocks {
		if b.Type != "tool_result" || s.seen[b.ToolUseID] {
			continue
		}
		s.seen[b.ToolUseID] = true
		s.results = append(s.results, ToolResult{ToolUseID: b.ToolUseID, IsError: b.IsError, Content: text(b.Content)})
	}
}

// text is a tool_result's content as text: a string, or its text blocks
// joined by LF.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	parts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// content is a turn's content blocks and stop reason.
func content(t Turn) ([]map[string]any, string) {
	if len(t.ToolUses) == 0 {
		return []map[string]any{{"type": "text", "text": t.Text}}, "end_turn"
	}
	blocks := make([]map[string]any, len(t.ToolUses))
	for i, u := range t.ToolUses {
		in := u.Input
		if in == nil {
			in = map[string]any{}
		}
		blocks[i] = map[string]any{"type": "tool_use", "id": u.ID, "name": u.Name, "input": in}
	}
	return blocks, "tool_use"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeStream writes t as the Messages API's server-sent events.
func writeStream(w http.ResponseWriter, model string, t Turn) {
	blocks, stop := content(t)
	var b strings.Builder
	ev := func(name string, data any) {
		d, _ := json.Marshal(data)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, d)
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_conform", "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}})
	for i, bl := range blocks {
		if bl["type"] == "tool_use" {
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": bl["id"], "name": bl["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(bl["input"])
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		} else {
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": bl["text"]}})
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 1}})
	ev("message_stop", map[string]any{"type": "message_stop"})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Length", fmt.Sprint(b.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, b.String())
}
