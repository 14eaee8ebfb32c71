package runner

import (
	"testing"

	"github.com/conform-kit/conform/internal/envelope"
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
