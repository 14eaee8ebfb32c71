package runner

import (
	"testing"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/suite"
)

// FuzzFrame feeds arbitrary stdout lines to the frame judge of a v1 agent
// run: it must never panic, and a line it keeps as a control frame must be
// a JSON object whose type is a control type.
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
	s, err := suite.Load(conform.Suite(), suite.Options{})
	if err != nil {
		f.Fatal(err)
	}
	cfg := Config{Suite: s, Command: []string{"unused"}}
	cfg.defaults()
	p, err := prepare(cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		o := &outcome{}
		sent := map[string]*request{key("req-1"): {subtype: "interrupt"}}
		v := p.frame(o, proc.Line{Data: line, Size: len(line)}, sent)
		if v == nil {
			return
		}
		obj, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("kept a non-object frame %q", line)
		}
		if typ, _ := obj["type"].(string); !p.control[typ] {
			t.Fatalf("kept a frame of type %q", typ)
		}
	})
}
