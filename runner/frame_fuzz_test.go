package runner

import (
	"bytes"
	"errors"
	"testing"

	"github.com/conform-kit/conform/internal/envelope"
	"github.com/conform-kit/conform/internal/frame"
	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/suite"
)

// FuzzFrame feeds arbitrary stdout lines to the frame judge of a v1 agent
// run: it must never panic, and a line it keeps must be a JSON object of
// one of the envelope's frame classes.
func FuzzFrame(f *testing.F) {
	for _, seed := range []string{
		`{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"still_queued":[]}}}`,
		`{"type":"control_response","response":{"subtype":"error","request_id":"req-1","error":"x","error_code":"y"}}`,
		`{"type":"control_response","response":{"subtype":"success","request_id":7}}`,
		`{"type":"control_request","request_id":"a","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}`,
		`{"type":"system","subtype":"status"}`, `{"type":"frobnicate"}`, `[]`, `null`, `not json`,
		"{\"a\":1,\"a\":2}", "{\"x\":\"\xff\"}", `{"n":12345678901234567890}`, ``, `   `,
	} {
		f.Add([]byte(seed))
	}
	p := controlPlan(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		s := p.begin(&loaded{v: &suite.Vector{}})
		s.sent[envelope.Key("req-1")] = &request{method: "interrupt"}
		v := s.frame(proc.Line{Data: line, Size: len(line)})
		if v == nil {
			return
		}
		if _, ok := v.(map[string]any); !ok {
			t.Fatalf("kept a non-object frame %q", line)
		}
		if p.env.Classify(v) == nil {
			t.Fatalf("kept a frame of no class: %q", line)
		}
	})
}

// FuzzFramedStream feeds arbitrary stdout bytes of a content-length suite
// through the framed reader (internal/frame, as proc reads them) to the
// frame judge: it must never panic or stall, every message the reader
// gives is judged, a break of the framing is a PROTOCOL_ERROR finding of
// one of the framing codes with at most 200 bytes quoted, and a kept
// frame is a JSON object of one of the envelope's classes.
func FuzzFramedStream(f *testing.F) {
	for _, seed := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 60\r\n\r\n{\"type\":\"control_response\",\"response\":{\"subtype\":\"success\"}}",
		"{\"type\":\"system\",\"subtype\":\"status\"}\n", "Content-Length: x\r\n\r\n{}", "Content-Length: 5\r\n\r\n{}",
		"content-length:2\n\n[]", "\r\n", "X: y\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	p := controlPlan(f)
	p.framing = frame.ContentLength
	f.Fuzz(func(t *testing.T, in []byte) {
		s := p.begin(&loaded{v: &suite.Vector{}})
		r := frame.NewReader(bytes.NewReader(in), p.cfg.MaxLine)
		for i := 0; ; i++ {
			if i > len(in)+1 {
				t.Fatalf("the reader made no progress on %q", in)
			}
			m, ok := r.Next()
			if !ok {
				break
			}
			ln := proc.Line{Data: m.Body, Size: m.Size, Partial: m.Partial, Err: m.Err}
			if errors.Is(m.Err, frame.ErrTooLarge) {
				ln.Err = proc.ErrLineTooLong
			}
			before := len(s.o.findings)
			v := s.frame(ln)
			var fe *frame.Error
			if errors.As(m.Err, &fe) && before < MaxFindings {
				if len(s.o.findings) == before {
					t.Fatalf("a break of the framing (%s) left no finding", fe.Code)
				}
				got := s.o.findings[before]
				if got.Code != fe.Code || got.Status != ProtocolError {
					t.Fatalf("break %s gave finding %s %s", fe.Code, got.Code, got.Status)
				}
			}
			if v == nil {
				continue
			}
			if _, ok := v.(map[string]any); !ok {
				t.Fatalf("kept a non-object frame from %q", in)
			}
			if p.env.Classify(v) == nil {
				t.Fatalf("kept a frame of no class from %q", in)
			}
		}
	})
}
