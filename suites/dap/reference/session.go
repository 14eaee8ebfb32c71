package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
)

// Error ids of the reference's error responses (body.error.id, the
// Message type of the DAP specification): its own, stable for the goldens.
const (
	errNotInitialized  = 1
	errUnknownCommand  = 2
	errLaunch          = 3
	errAttach          = 4
	errInitializeAgain = 5
)

// capabilities is the body of the reference's initialize response (DAP
// specification, "Types" / "Capabilities"): configurationDone and cancel
// are all it supports.
var capabilities = map[string]any{
	"supportsConfigurationDoneRequest": true,
	"supportsCancelRequest":            true,
}

// request is one request as read; seq is kept raw so that request_seq
// echoes it byte for byte.
type request struct {
	Seq       json.RawMessage `json:"seq"`
	Type      string          `json:"type"`
	Command   string          `json:"command"`
	Arguments json.RawMessage `json:"arguments"`
}

// response is a Response of the DAP specification ("Base Protocol" /
// "Response"); Body nil is no body member.
type response struct {
	Seq        int             `json:"seq"`
	Type       string          `json:"type"`
	RequestSeq json.RawMessage `json:"request_seq"`
	Success    bool            `json:"success"`
	Command    string          `json:"command"`
	Message    string          `json:"message,omitempty"`
	Body       any             `json:"body,omitempty"`
}

// event is an Event ("Base Protocol" / "Event").
type event struct {
	Seq   int    `json:"seq"`
	Type  string `json:"type"`
	Event string `json:"event"`
	Body  any    `json:"body,omitempty"`
}

// message is the Message type an error response's body.error holds
// ("Base Protocol" / "ErrorResponse"; "Types" / "Message").
type message struct {
	ID        int               `json:"id"`
	Format    string            `json:"format"`
	Variables map[string]string `json:"variables,omitempty"`
}

// session is the state of the one debug session the adapter serves.
type session struct {
	out io.Writer
	// seq is the seq of the last message written (the first is 1:
	// "Base Protocol" / "ProtocolMessage").
	seq         int
	initialized bool
	// err is the first write error; nothing is written after it.
	err error
}

// handle answers one content part and reports whether the session is over
// (a disconnect was answered). A content part that is not a request with a
// seq and a command (an event, a response, text that is not JSON) is
// ignored: the adapter sends no requests, and the specification does not
// say how an adapter answers what it cannot read.
func (s *session) handle(content []byte) (end bool) {
	var req request
	dec := json.NewDecoder(bytes.NewReader(content))
	if err := dec.Decode(&req); err != nil || req.Type != "request" || len(req.Seq) == 0 || req.Command == "" {
		return false
	}
	if req.Command != "initialize" && !s.initialized {
		s.fail(req, errNotInitialized, "the initialize request must come first", nil)
		return false
	}
	switch req.Command {
	case "initialize":
		if s.initialized {
			s.fail(req, errInitializeAgain, "initialize may only be sent once", nil)
			return false
		}
		s.initialized = true
		s.succeed(req, capabilities)
		s.event("initialized", nil)
	case "configurationDone", "cancel":
		s.succeed(req, nil)
	case "threads":
		s.succeed(req, map[string]any{"threads": []any{map[string]any{"id": 1, "name": "main"}}})
	case "launch":
		s.launch(req)
	case "attach":
		s.attach(req)
	case "disconnect":
		s.succeed(req, nil)
		return true
	default:
		s.fail(req, errUnknownCommand, "unknown command", map[string]string{"command": req.Command})
	}
	return false
}

// launch starts nothing: a program that names a regular file is "run" and
// ends at once (a success response, then a terminated event); no program,
// or one that is no file, is an error response after an output event on
// the stderr category saying why.
func (s *session) launch(req request) {
	var args struct {
		Program *string `json:"program"`
	}
	_ = json.Unmarshal(req.Arguments, &args)
	if args.Program == nil || *args.Program == "" {
		s.event("output", map[string]any{"category": "stderr", "output": "launch: no program given\n"})
		s.fail(req, errLaunch, "launch needs a program", nil)
		return
	}
	if st, err := os.Stat(*args.Program); err != nil || !st.Mode().IsRegular() {
		s.event("output", map[string]any{"category": "stderr", "output": "launch: no such program file\n"})
		s.fail(req, errLaunch, "program not found", map[string]string{"program": *args.Program})
		return
	}
	s.succeed(req, nil)
	s.event("terminated", nil)
}

// attach attaches to nothing: without a numeric pid it says so, with one it
// says there is no such process to attach to; both are error responses.
func (s *session) attach(req request) {
	var args struct {
		PID *json.Number `json:"pid"`
	}
	_ = json.Unmarshal(req.Arguments, &args)
	if args.PID == nil {
		s.fail(req, errAttach, "attach needs a pid", nil)
		return
	}
	s.fail(req, errAttach, "no process to attach to", map[string]string{"pid": args.PID.String()})
}

func (s *session) succeed(req request, body any) {
	s.write(&response{Type: "response", RequestSeq: req.Seq, Success: true, Command: req.Command, Body: body})
}

// fail writes an error response: message in short form, body.error with
// the reference's id and a format whose {names} are vars.
func (s *session) fail(req request, id int, text string, vars map[string]string) {
	format := text
	for name := range vars {
		format += " {" + name + "}"
	}
	if len(vars) > 1 {
		panic("fail: at most one variable keeps the format deterministic")
	}
	s.write(&response{Type: "response", RequestSeq: req.Seq, Success: false, Command: req.Command, Message: text,
		Body: map[string]any{"error": message{ID: id, Format: format, Variables: vars}}})
}

func (s *session) event(name string, body any) {
	s.write(&event{Type: "event", Event: name, Body: body})
}

// write numbers a message with the next seq and writes it framed.
func (s *session) write(m any) {
	if s.err != nil {
		return
	}
	s.seq++
	switch x := m.(type) {
	case *response:
		x.Seq = s.seq
	case *event:
		x.Seq = s.seq
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // only the types above, all of which marshal
	}
	_, s.err = s.out.Write(encode(b))
}
