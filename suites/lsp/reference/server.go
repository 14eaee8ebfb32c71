package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// JSON-RPC 2.0 §5.1 and LSP 3.17 "Base Protocol" / "Response Message"
// error codes the server writes.
const (
	codeParseError           = -32700
	codeInvalidRequest       = -32600
	codeMethodNotFound       = -32601
	codeInvalidParams        = -32602
	codeServerNotInitialized = -32002
)

// state is where the server is in the lifecycle (LSP 3.17 "Lifecycle
// Messages").
type state int

const (
	stateNew      state = iota // before initialize
	stateRunning               // initialize answered
	stateShutdown              // shutdown answered: only exit is honoured
)

// document is an open text document ("Text Document Synchronization").
type document struct {
	uri     string
	version int
	text    string
}

// server is one session. Not safe for concurrent use: messages are
// handled one at a time, in order.
type server struct {
	out    io.Writer
	state  state
	enc    string
	caps   clientCaps
	docs   map[string]*document
	nextID int
	// progress holds the tokens of window/workDoneProgress/create requests
	// sent, by their request id, until the client answers.
	progress map[string]string
}

// clientCaps is what the server reads of ClientCapabilities.
type clientCaps struct {
	Workspace struct {
		Configuration          bool `json:"configuration"`
		DidChangeConfiguration struct {
			DynamicRegistration bool `json:"dynamicRegistration"`
		} `json:"didChangeConfiguration"`
	} `json:"workspace"`
	TextDocument struct {
		DocumentSymbol struct {
			Hierarchical bool `json:"hierarchicalDocumentSymbolSupport"`
		} `json:"documentSymbol"`
	} `json:"textDocument"`
	Window struct {
		WorkDoneProgress bool `json:"workDoneProgress"`
	} `json:"window"`
	General struct {
		PositionEncodings []string `json:"positionEncodings"`
	} `json:"general"`
}

// exitNow ends the session with an exit code.
type exitNow struct{ code int }

func (e exitNow) Error() string { return fmt.Sprintf("exit %d", e.code) }

// run serves one session on in and out and returns the exit code.
func run(in io.Reader, out io.Writer, stderr io.Writer) int {
	s := &server{out: out, enc: encUTF16, docs: map[string]*document{}, progress: map[string]string{}}
	r := newReader(in)
	for {
		body, err := r.Body()
		if err != nil {
			if errors.Is(err, io.EOF) {
				// End of input is no exit notification: 0 only when the
				// client asked for shutdown first, as "exit" says.
				if s.state == stateShutdown {
					return 0
				}
				return 1
			}
			fmt.Fprintf(stderr, "conform-lsp-reference: %v\n", err)
			return 1
		}
		var e exitNow
		if err := s.handle(body); errors.As(err, &e) {
			return e.code
		}
	}
}

// message is one JSON-RPC message as read: members kept raw so that an id
// is echoed byte for byte.
type message struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// handle reads one body and answers it. The only error is exitNow.
func (s *server) handle(body []byte) error {
	if !json.Valid(body) {
		s.replyError(nil, codeParseError, "the body is not JSON")
		return nil
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		s.replyError(nil, codeInvalidRequest, "a message is a JSON object")
		return nil
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		s.replyError(nil, codeInvalidRequest, "the message cannot be read")
		return nil
	}
	hasID := m.ID != nil
	id := m.ID
	if hasID && !validID(id) {
		id, hasID = nil, true
	}
	if string(m.JSONRPC) != `"2.0"` {
		s.replyError(id, codeInvalidRequest, `jsonrpc must be "2.0"`)
		return nil
	}
	if m.Method == nil {
		if hasID && (m.Result != nil || m.Error != nil) {
			s.response(m.ID, m.Result)
			return nil
		}
		s.replyError(id, codeInvalidRequest, "a request needs a method")
		return nil
	}
	var method string
	if err := json.Unmarshal(m.Method, &method); err != nil {
		s.replyError(id, codeInvalidRequest, "method must be a string")
		return nil
	}
	if hasID && id == nil {
		s.replyError(nil, codeInvalidRequest, "id must be an integer or a string")
		return nil
	}
	if hasID {
		s.request(id, method, m.Params)
		return nil
	}
	return s.notification(method, m.Params)
}

// validID reports whether raw is an id LSP allows: an integer or a string
// ("Request Message": id: integer | string).
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		return true
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return false
	}
	_, err := n.Int64()
	return err == nil
}

// request answers one request.
func (s *server) request(id json.RawMessage, method string, params json.RawMessage) {
	switch s.state {
	case stateNew:
		if method != "initialize" {
			s.replyError(id, codeServerNotInitialized, "the server is not initialized")
			return
		}
		s.initialize(id, params)
		return
	case stateShutdown:
		s.replyError(id, codeInvalidRequest, "the server is shut down")
		return
	}
	switch method {
	case "initialize":
		s.replyError(id, codeInvalidRequest, "initialize may only be sent once")
	case "shutdown":
		s.state = stateShutdown
		s.reply(id, nil)
	case "textDocument/hover":
		s.hover(id, params)
	case "textDocument/documentSymbol":
		s.documentSymbol(id, params)
	default:
		s.replyError(id, codeMethodNotFound, "unknown method "+method)
	}
}

// notification handles one notification; it never answers one.
func (s *server) notification(method string, params json.RawMessage) error {
	if method == "exit" {
		if s.state == stateShutdown {
			return exitNow{0}
		}
		return exitNow{1}
	}
	if s.state != stateRunning {
		return nil // dropped ("initialize"; "shutdown")
	}
	switch method {
	case "initialized":
		s.initialized()
	case "textDocument/didOpen":
		s.didOpen(params)
	case "textDocument/didChange":
		s.didChange(params)
	case "textDocument/didClose":
		s.didClose(params)
	}
	// $/cancelRequest: every request has been answered by the time the
	// next message is read, so there is nothing left to cancel. Other $/
	// and unknown notifications are ignored.
	return nil
}

// response takes the client's response to a request of the server.
func (s *server) response(id, result json.RawMessage) {
	token, ok := s.progress[string(id)]
	if !ok {
		return
	}
	delete(s.progress, string(id))
	if result == nil || s.state != stateRunning {
		return // the client refused the token, or asked for shutdown since
	}
	s.notify("$/progress", map[string]any{"token": token, "value": map[string]any{"kind": "begin", "title": "conform reference"}})
	s.notify("$/progress", map[string]any{"token": token, "value": map[string]any{"kind": "end"}})
}

func (s *server) initialize(id, params json.RawMessage) {
	var p struct {
		Capabilities clientCaps `json:"capabilities"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		s.replyError(id, codeInvalidParams, "initialize params: "+err.Error())
		return
	}
	s.caps = p.Capabilities
	s.enc = negotiate(p.Capabilities.General.PositionEncodings)
	s.state = stateRunning
	s.reply(id, map[string]any{
		"capabilities": map[string]any{
			"positionEncoding":       s.enc,
			"textDocumentSync":       map[string]any{"openClose": true, "change": 2},
			"hoverProvider":          true,
			"documentSymbolProvider": true,
		},
		"serverInfo": map[string]any{"name": "conform-lsp-reference", "version": "1.0.0"},
	})
}

// initialized sends the requests the client's capabilities allow: a
// progress token to create, the configuration of section "conform", and
// the dynamic registration of workspace/didChangeConfiguration.
func (s *server) initialized() {
	if s.caps.Window.WorkDoneProgress {
		id := s.nextRequestID()
		token := fmt.Sprintf("conform-reference-%d", s.nextID)
		s.progress[id] = token
		s.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "window/workDoneProgress/create", "params": map[string]any{"token": token}})
	}
	if s.caps.Workspace.Configuration {
		id := s.nextRequestID()
		s.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "workspace/configuration",
			"params": map[string]any{"items": []any{map[string]any{"section": "conform"}}}})
	}
	if s.caps.Workspace.DidChangeConfiguration.DynamicRegistration {
		id := s.nextRequestID()
		s.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "client/registerCapability",
			"params": map[string]any{"registrations": []any{map[string]any{"id": "conform-reference-configuration", "method": "workspace/didChangeConfiguration"}}}})
	}
}

func (s *server) nextRequestID() string {
	s.nextID++
	return fmt.Sprint(s.nextID)
}

type textDocumentItem struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
	Text    string `json:"text"`
}

type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type rangeJSON struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

func (s *server) didOpen(params json.RawMessage) {
	var p struct {
		TextDocument textDocumentItem `json:"textDocument"`
	}
	if json.Unmarshal(params, &p) != nil || p.TextDocument.URI == "" {
		return
	}
	d := &document{uri: p.TextDocument.URI, version: p.TextDocument.Version, text: p.TextDocument.Text}
	s.docs[d.uri] = d
	s.publish(d)
}

func (s *server) didChange(params json.RawMessage) {
	var p struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Version int    `json:"version"`
		} `json:"textDocument"`
		ContentChanges []struct {
			Range *rangeJSON `json:"range"`
			Text  string     `json:"text"`
		} `json:"contentChanges"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	d := s.docs[p.TextDocument.URI]
	if d == nil {
		return
	}
	// "didChange": the changes apply in order, each to the document as
	// the previous one left it.
	for _, c := range p.ContentChanges {
		if c.Range == nil {
			d.text = c.Text
			continue
		}
		from := offset(d.text, c.Range.Start.Line, c.Range.Start.Character, s.enc)
		to := offset(d.text, c.Range.End.Line, c.Range.End.Character, s.enc)
		if to < from {
			from, to = to, from
		}
		d.text = d.text[:from] + c.Text + d.text[to:]
	}
	d.version = p.TextDocument.Version
	s.publish(d)
}

func (s *server) didClose(params json.RawMessage) {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	if _, ok := s.docs[p.TextDocument.URI]; !ok {
		return
	}
	delete(s.docs, p.TextDocument.URI)
	// "publishDiagnostics": a closed document's diagnostics are cleared
	// by the server that published them.
	s.notify("textDocument/publishDiagnostics", map[string]any{"uri": p.TextDocument.URI, "diagnostics": []any{}})
}

// publish sends the document's diagnostics: one per "TODO" in it.
func (s *server) publish(d *document) {
	diags := []any{}
	starts := lineStarts(d.text)
	for n := range starts {
		line, _, _ := lineAt(d.text, starts, n)
		for from := 0; ; {
			i := strings.Index(line[from:], "TODO")
			if i < 0 {
				break
			}
			b := from + i
			diags = append(diags, map[string]any{
				"range":    s.rangeOf(line, n, b, b+len("TODO")),
				"severity": 3,
				"source":   "conform-lsp-reference",
				"message":  "TODO",
			})
			from = b + len("TODO")
		}
	}
	s.notify("textDocument/publishDiagnostics", map[string]any{"uri": d.uri, "version": d.version, "diagnostics": diags})
}

// rangeOf is the Range of bytes [from, to) of line n, in the negotiated
// encoding.
func (s *server) rangeOf(line string, n, from, to int) map[string]any {
	return map[string]any{
		"start": map[string]any{"line": n, "character": unitCol(line, from, s.enc)},
		"end":   map[string]any{"line": n, "character": unitCol(line, to, s.enc)},
	}
}

type textDocumentPosition struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Position *position `json:"position"`
}

// hover answers the word under the position, or null where there is none.
func (s *server) hover(id, params json.RawMessage) {
	var p textDocumentPosition
	if err := json.Unmarshal(params, &p); err != nil || p.Position == nil {
		s.replyError(id, codeInvalidParams, "hover needs textDocument and position")
		return
	}
	d := s.docs[p.TextDocument.URI]
	if d == nil {
		s.replyError(id, codeInvalidParams, "the document is not open")
		return
	}
	starts := lineStarts(d.text)
	line, _, ok := lineAt(d.text, starts, p.Position.Line)
	if !ok {
		s.reply(id, nil)
		return
	}
	word, from, to, ok := wordAt(line, byteCol(line, p.Position.Character, s.enc))
	if !ok {
		s.reply(id, nil)
		return
	}
	s.reply(id, map[string]any{
		"contents": map[string]any{"kind": "plaintext", "value": word},
		"range":    s.rangeOf(line, p.Position.Line, from, to),
	})
}

// documentSymbol answers the '#' lines: DocumentSymbol[] when the client
// supports the hierarchy, SymbolInformation[] otherwise ("Document
// Symbols Request").
func (s *server) documentSymbol(id, params json.RawMessage) {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		s.replyError(id, codeInvalidParams, "documentSymbol needs textDocument")
		return
	}
	d := s.docs[p.TextDocument.URI]
	if d == nil {
		s.replyError(id, codeInvalidParams, "the document is not open")
		return
	}
	symbols := []any{}
	starts := lineStarts(d.text)
	for n := range starts {
		line, _, _ := lineAt(d.text, starts, n)
		if !strings.HasPrefix(line, "#") {
			continue
		}
		name := strings.TrimSpace(line[1:])
		if name == "" {
			continue
		}
		from := strings.Index(line, name)
		whole := s.rangeOf(line, n, 0, len(line))
		if s.caps.TextDocument.DocumentSymbol.Hierarchical {
			symbols = append(symbols, map[string]any{"name": name, "kind": 15, "range": whole,
				"selectionRange": s.rangeOf(line, n, from, from+len(name))})
			continue
		}
		symbols = append(symbols, map[string]any{"name": name, "kind": 15,
			"location": map[string]any{"uri": d.uri, "range": whole}})
	}
	s.reply(id, symbols)
}

func (s *server) reply(id json.RawMessage, result any) {
	s.send(map[string]any{"jsonrpc": "2.0", "id": rawOrNull(id), "result": result})
}

func (s *server) replyError(id json.RawMessage, code int, message string) {
	s.send(map[string]any{"jsonrpc": "2.0", "id": rawOrNull(id), "error": map[string]any{"code": code, "message": message}})
}

func (s *server) notify(method string, params any) {
	s.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func rawOrNull(id json.RawMessage) json.RawMessage {
	if id == nil {
		return json.RawMessage("null")
	}
	return id
}

// send writes one message. Members are written in sorted order
// (encoding/json sorts map keys), so the bytes are deterministic.
func (s *server) send(msg map[string]any) {
	body, err := json.Marshal(msg)
	if err != nil {
		panic(err) // every message is built from JSON-safe values
	}
	_, _ = s.out.Write(encode(body))
}
