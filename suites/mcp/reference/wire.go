package main

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// JSON-RPC 2.0 error codes (JSON-RPC 2.0 §5.1) and the one MCP adds for
// resources (MCP 2025-11-25 Server, "Resources" / "Error Handling").
const (
	codeParseError       = -32700
	codeInvalidRequest   = -32600
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeInternalError    = -32603
	codeResourceNotFound = -32002
)

// nullID is the id of an error response whose request id could not be read
// (JSON-RPC 2.0 §5: "If there was an error in detecting the id in the
// Request object (e.g. Parse error/Invalid Request), it MUST be Null").
var nullID = json.RawMessage("null")

// rpcError is the error member of an error response (JSON-RPC 2.0 §5.1).
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// envelope is one line as read: every member kept raw so that ids are echoed
// byte for byte (never through float64) and absence is told from null.
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// kind of a line after classification.
type kind int

const (
	kindRequest kind = iota
	kindNotification
	kindResponse
	kindInvalid
)

// message is a classified line.
type message struct {
	kind   kind
	id     json.RawMessage // request or response id, compact raw bytes; nullID for an invalid line whose id is unreadable
	method string
	params json.RawMessage // nil when absent
	result json.RawMessage
	err    json.RawMessage
	// problem says why an invalid line is invalid (kindInvalid only).
	problem string
}

// classify reads one line. A line that is not JSON is a parse error
// (reported by ok=false); anything else is classified by the JSON-RPC 2.0
// rules (§4 Request, §4.1 Notification, §5 Response) as MCP narrows them
// (MCP 2025-11-25 Basic, "Messages": ids are strings or integers, never
// null; params are objects; no batches since 2025-06-18).
func classify(line []byte) (m message, ok bool) {
	if !json.Valid(line) {
		return message{}, false
	}
	trimmed := bytes.TrimLeft(line, " \t\r")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		problem := "a message must be a JSON object"
		if len(trimmed) > 0 && trimmed[0] == '[' {
			problem = "JSON-RPC batches are not part of MCP since 2025-06-18"
		}
		return message{kind: kindInvalid, id: nullID, problem: problem}, true
	}
	var e envelope
	if err := json.Unmarshal(trimmed, &e); err != nil {
		return message{kind: kindInvalid, id: nullID, problem: "a message must be a JSON object"}, true
	}
	id, idOK := readID(e.ID)
	bad := func(problem string) (message, bool) {
		if !idOK {
			id = nullID
		}
		return message{kind: kindInvalid, id: id, problem: problem}, true
	}
	if string(e.JSONRPC) != `"2.0"` {
		return bad(`jsonrpc must be "2.0"`)
	}
	if e.Method == nil {
		// A response: id plus exactly one of result and error.
		if e.ID == nil || (e.Result == nil) == (e.Error == nil) || e.Params != nil {
			return bad("a message without method must be a response: id and exactly one of result or error")
		}
		return message{kind: kindResponse, id: compact(e.ID), result: e.Result, err: e.Error}, true
	}
	var method string
	if err := json.Unmarshal(e.Method, &method); err != nil {
		return bad("method must be a string")
	}
	if e.Result != nil || e.Error != nil {
		return bad("a request or notification carries no result or error")
	}
	if e.Params != nil && !isObject(e.Params) {
		return bad("params must be an object")
	}
	if e.ID == nil {
		return message{kind: kindNotification, method: method, params: e.Params}, true
	}
	if !idOK {
		return bad("id must be a string or an integer")
	}
	return message{kind: kindRequest, id: id, method: method, params: e.Params}, true
}

// readID reports whether raw is an MCP request id (a string or an integer
// written without fraction or exponent) and returns it compacted.
func readID(raw json.RawMessage) (json.RawMessage, bool) {
	if raw == nil {
		return nil, false
	}
	raw = compact(raw)
	switch c := raw[0]; {
	case c == '"':
		return raw, true
	case c == '-' || (c >= '0' && c <= '9'):
		if bytes.ContainsAny(raw, ".eE") {
			return raw, false
		}
		return raw, true
	}
	return raw, false
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// writer writes one message per line; safe for concurrent use, so that a
// line is never interleaved with another.
type writer struct {
	mu sync.Mutex
	w  io.Writer
}

// write encodes v as one line without HTML escaping (a raw id such as
// "<a>" is written as received).
func (w *writer) write(v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Every value written is built by this program; an encoding
		// failure is a bug.
		panic(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = w.w.Write(b.Bytes())
}

type resultResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcError        `json:"error"`
}

type outRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int    `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type outNotification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

func (w *writer) result(id json.RawMessage, result any) {
	w.write(resultResponse{JSONRPC: "2.0", ID: id, Result: result})
}

func (w *writer) error(id json.RawMessage, code int, msg string, data any) {
	w.write(errorResponse{JSONRPC: "2.0", ID: id, Error: rpcError{Code: code, Message: msg, Data: data}})
}

func (w *writer) notify(method string, params any) {
	w.write(outNotification{JSONRPC: "2.0", Method: method, Params: params})
}
