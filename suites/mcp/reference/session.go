package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

// Protocol revisions this server negotiates through initialize, newest
// first (MCP 2025-11-25 Basic, "Lifecycle" / "Version Negotiation").
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// maxLine bounds one input line (bytes, LF excluded); a longer line is
// answered with -32700 and skipped.
const maxLine = 64 << 20

// phase of the lifecycle (MCP 2025-11-25 Basic, "Lifecycle").
type phase int

const (
	phaseNew         phase = iota // before an initialize request was answered
	phaseInitialized              // initialize answered; notifications/initialized not yet seen
	phaseOperating                // notifications/initialized seen
)

// session is one stdio connection: the client's requests are answered in
// arrival order by the reader goroutine, except tools whose work waits
// (slow, progress, the tools that ask the client), which run on their own
// goroutine so that notifications/cancelled and the client's answers can
// still be read.
type session struct {
	out *writer

	mu          sync.Mutex
	phase       phase
	version     string
	clientCaps  map[string]json.RawMessage
	logLevel    int // index into logLevels: messages below it are not sent
	inFlight    map[string]context.CancelFunc
	nextOutID   int
	outPending  map[int]chan clientReply
	inputClosed bool

	work sync.WaitGroup
}

// clientReply is the client's answer to a request this server sent.
type clientReply struct {
	result json.RawMessage
	err    json.RawMessage
}

var errInputClosed = errors.New("the client closed its end before answering")

// run serves one session on r and w until end of input, then waits for the
// work still in flight and returns 0. Errors reading r other than EOF end
// the session the same way.
func run(ctx context.Context, r io.Reader, w io.Writer) int {
	s := &session{
		out:        &writer{w: w},
		inFlight:   map[string]context.CancelFunc{},
		outPending: map[int]chan clientReply{},
		logLevel:   levelIndex("info"),
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if tooLong {
			s.out.error(nullID, codeParseError, "Parse error: line longer than 64 MiB", nil)
		} else if len(line) > 0 {
			s.handleLine(ctx, line)
		}
		if err != nil {
			break
		}
	}
	s.mu.Lock()
	s.inputClosed = true
	for id, ch := range s.outPending {
		close(ch)
		delete(s.outPending, id)
	}
	s.mu.Unlock()
	s.work.Wait()
	return 0
}

// readLine returns the next line without its LF (and a CR before it).
// tooLong reports a line over maxLine, which is consumed and dropped.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if len(buf)+len(chunk) > maxLine {
			tooLong = true
			buf = nil
		} else if !tooLong {
			buf = append(buf, chunk...)
		}
		if err != nil {
			return buf, tooLong, err
		}
		if !isPrefix {
			return buf, tooLong, nil
		}
	}
}

func (s *session) handleLine(ctx context.Context, line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return // blank lines carry no message
	}
	m, ok := classify(line)
	if !ok {
		s.out.error(nullID, codeParseError, "Parse error", nil)
		return
	}
	switch m.kind {
	case kindInvalid:
		s.out.error(m.id, codeInvalidRequest, "Invalid Request: "+m.problem, nil)
	case kindResponse:
		s.handleResponse(m)
	case kindNotification:
		s.handleNotification(m)
	case kindRequest:
		s.handleRequest(ctx, m)
	}
}

// handleResponse hands the client's answer to the tool waiting for it; an
// answer to no pending request is dropped (JSON-RPC 2.0 §5: a response
// answers a request).
func (s *session) handleResponse(m message) {
	var id int
	if err := json.Unmarshal(m.id, &id); err != nil {
		return
	}
	s.mu.Lock()
	ch, ok := s.outPending[id]
	delete(s.outPending, id)
	s.mu.Unlock()
	if ok {
		ch <- clientReply{result: m.result, err: m.err}
	}
}

// handleNotification: notifications get no response (JSON-RPC 2.0 §4.1);
// unknown ones are ignored.
func (s *session) handleNotification(m message) {
	switch m.method {
	case "notifications/initialized":
		s.mu.Lock()
		if s.phase == phaseInitialized {
			s.phase = phaseOperating
		}
		s.mu.Unlock()
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.params, &p) != nil || p.RequestID == nil {
			return // malformed cancellations SHOULD be ignored (Cancellation, "Error Handling")
		}
		s.mu.Lock()
		cancel, ok := s.inFlight[string(compact(p.RequestID))]
		s.mu.Unlock()
		if ok {
			cancel() // unknown or finished requests MAY be ignored (Cancellation, "Behavior Requirements" 5)
		}
	}
}

// handler answers one request: it returns a result, or an *rpcError.
type handler func(ctx context.Context, s *session, params json.RawMessage, meta requestMeta) (any, *rpcError)

// requestMeta is what a handler may need of the request besides params.
type requestMeta struct {
	progressToken json.RawMessage // nil when the request asked for no progress
}

// slow methods run on their own goroutine (see session).
type route struct {
	h    handler
	slow func(params json.RawMessage) bool
}

func (s *session) routes() map[string]route {
	return map[string]route{
		"initialize":               {h: handleInitialize},
		"ping":                     {h: handlePing},
		"tools/list":               {h: handleToolsList},
		"tools/call":               {h: handleToolsCall, slow: toolRunsLong},
		"resources/list":           {h: handleResourcesList},
		"resources/templates/list": {h: handleResourceTemplatesList},
		"resources/read":           {h: handleResourcesRead},
		"prompts/list":             {h: handlePromptsList},
		"prompts/get":              {h: handlePromptsGet},
		"logging/setLevel":         {h: handleSetLevel},
		"completion/complete":      {h: handleComplete},
	}
}

func (s *session) handleRequest(ctx context.Context, m message) {
	rt, ok := s.routes()[m.method]
	if !ok {
		s.out.error(m.id, codeMethodNotFound, "Method not found: "+m.method, nil)
		return
	}
	s.mu.Lock()
	ph := s.phase
	s.mu.Unlock()
	// Lifecycle, "Initialization": initialize MUST be the first interaction;
	// the client SHOULD NOT send requests other than pings before the server
	// has answered initialize. Such a request is refused, not served.
	if ph == phaseNew && m.method != "initialize" && m.method != "ping" {
		s.out.error(m.id, codeInvalidRequest, "Invalid Request: the session is not initialized (send initialize first)", nil)
		return
	}
	var meta requestMeta
	if m.params != nil {
		var p struct {
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		}
		if json.Unmarshal(m.params, &p) == nil && p.Meta.ProgressToken != nil {
			meta.progressToken = compact(p.Meta.ProgressToken)
		}
	}
	if rt.slow == nil || !rt.slow(m.params) {
		s.answer(ctx, m.id, rt.h, m.params, meta)
		return
	}
	key := string(m.id)
	rctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.inFlight[key] = cancel
	s.mu.Unlock()
	s.work.Add(1)
	go func() {
		defer s.work.Done()
		defer func() {
			s.mu.Lock()
			delete(s.inFlight, key)
			s.mu.Unlock()
			cancel()
		}()
		s.answer(rctx, m.id, rt.h, m.params, meta)
	}()
}

// answer runs h and writes its response, unless the request was cancelled:
// a cancelled request gets no response (Cancellation, "Behavior
// Requirements" 4).
func (s *session) answer(ctx context.Context, id json.RawMessage, h handler, params json.RawMessage, meta requestMeta) {
	res, rerr := h(ctx, s, params, meta)
	if ctx.Err() != nil {
		return
	}
	if rerr != nil {
		s.out.error(id, rerr.Code, rerr.Message, rerr.Data)
		return
	}
	s.out.result(id, res)
}

// ask sends a request to the client and waits for its answer, for
// cancellation, or for end of input.
func (s *session) ask(ctx context.Context, method string, params any) (clientReply, error) {
	s.mu.Lock()
	if s.inputClosed {
		s.mu.Unlock()
		return clientReply{}, errInputClosed
	}
	s.nextOutID++
	id := s.nextOutID
	ch := make(chan clientReply, 1)
	s.outPending[id] = ch
	s.mu.Unlock()
	s.out.write(outRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	select {
	case r, ok := <-ch:
		if !ok {
			return clientReply{}, errInputClosed
		}
		return r, nil
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.outPending, id)
		s.mu.Unlock()
		// Cancellation, "Cancellation Flow": either side may cancel its own
		// request; this one is no longer wanted.
		s.out.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": "the request that needed it was cancelled"})
		return clientReply{}, ctx.Err()
	}
}

// clientHas reports whether the client declared capability name in
// initialize (Lifecycle, "Capability Negotiation": both parties MUST only
// use capabilities that were successfully negotiated).
func (s *session) clientHas(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.clientCaps[name]
	return ok
}

func handleInitialize(_ context.Context, s *session, params json.RawMessage, _ requestMeta) (any, *rpcError) {
	var p struct {
		ProtocolVersion *string                    `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
		ClientInfo      *struct {
			Name    *string `json:"name"`
			Version *string `json:"version"`
		} `json:"clientInfo"`
	}
	if params == nil || json.Unmarshal(params, &p) != nil || p.ProtocolVersion == nil || p.Capabilities == nil ||
		p.ClientInfo == nil || p.ClientInfo.Name == nil || p.ClientInfo.Version == nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "Invalid params: initialize needs protocolVersion, capabilities and clientInfo {name, version}"}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.phase != phaseNew {
		return nil, &rpcError{Code: codeInvalidRequest, Message: "Invalid Request: the session is already initialized"}
	}
	// Version Negotiation: the same version if supported, else the latest
	// this server supports.
	version := supportedVersions[0]
	for _, v := range supportedVersions {
		if v == *p.ProtocolVersion {
			version = v
		}
	}
	s.phase = phaseInitialized
	s.version = version
	s.clientCaps = p.Capabilities
	return map[string]any{
		"protocolVersion": version,
		"capabilities": map[string]any{
			"tools":       map[string]any{},
			"resources":   map[string]any{},
			"prompts":     map[string]any{},
			"logging":     map[string]any{},
			"completions": map[string]any{},
		},
		"serverInfo": map[string]any{
			"name":    "conform-mcp-reference",
			"version": "0.1.0",
		},
		"instructions": "The conform MCP reference server: deterministic tools (echo, add, fail, progress, slow, roots, sample, elicit, log), two resources, one resource template and one prompt, for conformance vectors.",
	}, nil
}

func handlePing(context.Context, *session, json.RawMessage, requestMeta) (any, *rpcError) {
	return map[string]any{}, nil // Ping, "Behavior Requirements" 1: an empty response
}
