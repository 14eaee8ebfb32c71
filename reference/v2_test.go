package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const initV2 = `{"type":"control_request","schemaVersion":2,"request_id":"init","request":{"subtype":"initialize","protocolVersions":[1,2]}}`

// decode parses each output frame into a generic value for comparison.
func decode(t *testing.T, frames [][]byte) []any {
	t.Helper()
	out := []any{}
	for _, f := range frames {
		var v any
		if err := json.Unmarshal(f, &v); err != nil {
			t.Fatalf("output frame is not JSON: %v: %s", err, f)
		}
		out = append(out, v)
	}
	return out
}

// field walks a decoded frame along keys.
func field(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// run feeds lines to a fresh initialized agent and returns the frames of
// the last line.
func run(t *testing.T, lines ...string) []any {
	t.Helper()
	a := NewAgentV2()
	var last [][]byte
	for i, l := range append([]string{initV2}, lines...) {
		out, err := a.Handle([]byte(l))
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		last = out
	}
	return decode(t, last)
}

func TestAgentV2Negotiation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		versions string
		wantCode string // "" for success
		wantExit bool
	}{
		{"only 2", `[2]`, "", false},
		{"1 and 2", `[1,2]`, "", false},
		{"unknown higher", `[2,99]`, "", false},
		{"none shared", `[99]`, CodeVersionMismatch, true},
		{"only 1", `[1]`, CodeVersionMismatch, true},
		{"empty", `[]`, CodeInvalidRequest, false},
		{"string", `["2"]`, CodeInvalidRequest, false},
		{"duplicate", `[2,2]`, CodeInvalidRequest, false},
		{"zero", `[0]`, CodeInvalidRequest, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := NewAgentV2()
			out, err := a.Handle([]byte(`{"type":"control_request","schemaVersion":2,"request_id":"i","request":{"subtype":"initialize","protocolVersions":` + tc.versions + `}}`))
			var ee *ExitError
			if got := errors.As(err, &ee); got != tc.wantExit {
				t.Fatalf("exit = %v (%v), want %v", got, err, tc.wantExit)
			}
			f := decode(t, out)[0]
			if tc.wantCode == "" {
				if got := field(f, "response", "response", "protocolVersion"); got != float64(2) {
					t.Errorf("protocolVersion = %v, want 2", got)
				}
				return
			}
			if got := field(f, "response", "error", "code"); got != tc.wantCode {
				t.Errorf("code = %v, want %s", got, tc.wantCode)
			}
		})
	}
}

func TestAgentV2Codes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		line string
		want string // error code of the reply, or "diag:<code>", or "" for no output
	}{
		{"no schemaVersion", `{"type":"control_request","request_id":"a","request":{"subtype":"interrupt"}}`, CodeUnsupportedSchemaVersion},
		{"schemaVersion 3", `{"type":"control_request","schemaVersion":3,"request_id":"a","request":{"subtype":"interrupt"}}`, CodeUnsupportedSchemaVersion},
		{"schemaVersion 2.0", `{"type":"control_request","schemaVersion":2.0,"request_id":"a","request":{"subtype":"interrupt"}}`, ""},
		{"cancel schemaVersion 1", `{"type":"control_cancel_request","schemaVersion":1,"request_id":"a"}`, "diag:" + CodeUnsupportedSchemaVersion},
		{"unknown subtype", `{"type":"control_request","schemaVersion":2,"request_id":"a","request":{"subtype":"x"}}`, CodeUnsupportedRequest},
		{"missing request", `{"type":"control_request","schemaVersion":2,"request_id":"a"}`, CodeInvalidRequest},
		{"empty id", `{"type":"control_request","schemaVersion":2,"request_id":"","request":{"subtype":"interrupt"}}`, "diag:" + CodeInvalidRequest},
		{"number id", `{"type":"control_request","schemaVersion":2,"request_id":1,"request":{"subtype":"interrupt"}}`, "diag:" + CodeInvalidRequest},
		{"unknown type", `{"type":"x","schemaVersion":2}`, "diag:" + CodeUnsupportedFrameType},
		{"not json", `not json`, "diag:" + CodeMalformedFrame},
		{"null", `null`, "diag:" + CodeMalformedFrame},
		{"duplicate keys", `{"type":"control_request","type":"control_request"}`, "diag:" + CodeMalformedFrame},
		{"blank", `   `, ""},
		{"stream frame", `{"type":"keep_alive"}`, ""},
		{"cancel unknown", `{"type":"control_cancel_request","schemaVersion":2,"request_id":"nope"}`, ""},
		{"unsolicited reply", `{"type":"control_response","schemaVersion":2,"response":{"subtype":"success","request_id":"z","response":{}}}`, ""},
		{"bad mode", `{"type":"control_request","schemaVersion":2,"request_id":"a","request":{"subtype":"set_permission_mode","mode":"x"}}`, CodeInvalidMode},
		{"unknown model", `{"type":"control_request","schemaVersion":2,"request_id":"a","request":{"subtype":"set_model","model":"gpt"}}`, CodeUnknownModel},
		{"second initialize", `{"type":"control_request","schemaVersion":2,"request_id":"a","request":{"subtype":"initialize","protocolVersions":[2]}}`, CodeAlreadyInitialized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			frames := run(t, tc.line)
			switch {
			case tc.want == "":
				for _, f := range frames {
					if field(f, "response", "subtype") != "success" {
						t.Errorf("want no output or a success reply, got %v", f)
					}
				}
			case strings.HasPrefix(tc.want, "diag:"):
				if len(frames) != 1 || field(frames[0], "type") != "control_diagnostic" || field(frames[0], "code") != strings.TrimPrefix(tc.want, "diag:") {
					t.Errorf("got %v, want a %s diagnostic", frames, tc.want)
				}
			default:
				if len(frames) != 1 || field(frames[0], "response", "error", "code") != tc.want {
					t.Errorf("got %v, want an error reply %s", frames, tc.want)
				}
			}
			for _, f := range frames {
				if field(f, "schemaVersion") != float64(2) {
					t.Errorf("frame without schemaVersion 2: %v", f)
				}
			}
		})
	}
}

func TestAgentV2NotInitialized(t *testing.T) {
	t.Parallel()
	a := NewAgentV2()
	out, err := a.Handle([]byte(`{"type":"control_request","schemaVersion":2,"request_id":"a","request":{"subtype":"interrupt"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := field(decode(t, out)[0], "response", "error", "code"); got != CodeNotInitialized {
		t.Errorf("code = %v, want %s", got, CodeNotInitialized)
	}
}

func TestAgentV2Idempotency(t *testing.T) {
	t.Parallel()
	a := NewAgentV2()
	a.Handle([]byte(initV2))
	first, _ := a.Handle([]byte(`{"type":"control_request","schemaVersion":2,"request_id":"m","request":{"subtype":"set_model","model":"sonnet"}}`))
	// Same frame, other spelling: replayed with the stored reply.
	again, _ := a.Handle([]byte(`{"request":{"model":"sonnet","subtype":"set_model"},"request_id":"\u006d","schemaVersion":2.0,"type":"control_request"}`))
	d := decode(t, again)[0]
	if field(d, "code") != CodeRequestReplayed {
		t.Fatalf("retransmission: got %v, want %s", d, CodeRequestReplayed)
	}
	if diff := cmp.Diff(decode(t, first)[0], field(d, "reply")); diff != "" {
		t.Errorf("replayed reply (-stored +replayed):\n%s", diff)
	}
	// Different content under the same id: rejected, not run.
	other, _ := a.Handle([]byte(`{"type":"control_request","schemaVersion":2,"request_id":"m","request":{"subtype":"set_model","model":"haiku"}}`))
	if d := decode(t, other)[0]; field(d, "code") != CodeDuplicateRequestID || field(d, "request_id") != "m" {
		t.Errorf("reuse: got %v, want %s naming m", d, CodeDuplicateRequestID)
	}
	if a.model != "claude-sonnet-5-5" {
		t.Errorf("model = %s after a rejected reuse, want claude-sonnet-5-5", a.model)
	}
}

func TestAgentV2HoldCancelRelease(t *testing.T) {
	t.Parallel()
	a := NewAgentV2()
	a.Handle([]byte(initV2))
	hold := func(id string) {
		if out, _ := a.Handle([]byte(`{"type":"control_request","schemaVersion":2,"request_id":"` + id + `","request":{"subtype":"hold"}}`)); len(out) != 0 {
			t.Fatalf("hold %s answered at once: %s", id, out)
		}
	}
	hold("h1")
	hold("h2")
	hold("h3")
	cancel := `{"type":"control_cancel_request","schemaVersion":2,"request_id":"h1"}`
	out, _ := a.Handle([]byte(cancel))
	if f := decode(t, out); len(f) != 1 || field(f[0], "response", "error", "code") != CodeCancelled {
		t.Fatalf("cancel: got %v", f)
	}
	if out, _ := a.Handle([]byte(cancel)); len(out) != 0 {
		t.Errorf("second cancel wrote %s, want nothing", out)
	}
	out, _ = a.Handle([]byte(`{"type":"control_request","schemaVersion":2,"request_id":"r","request":{"subtype":"release","target":"h2"}}`))
	f := decode(t, out)
	if len(f) != 2 || field(f[0], "response", "request_id") != "h2" || field(f[0], "response", "response", "releasedBy") != "r" || field(f[1], "response", "response", "released") != true {
		t.Errorf("release: got %v", f)
	}
	end := decode(t, a.End())
	if len(end) != 1 || field(end[0], "response", "request_id") != "h3" || field(end[0], "response", "error", "code") != CodeCancelled {
		t.Errorf("End: got %v, want h3 cancelled", end)
	}
}

func TestAgentV2Serve(t *testing.T) {
	t.Parallel()
	big := `{"pad":"` + strings.Repeat("a", MaxFrameV2) + `","type":"control_request","schemaVersion":2,"request_id":"big","request":{"subtype":"interrupt"}}`
	in := strings.Join([]string{
		initV2,
		big,
		`{"type":"control_request","schemaVersion":2,"request_id":"h","request":{"subtype":"hold"}}`,
		`{"type":"control_request","schemaVersion":2,"request_id":"v","request":{"subtype":"get_binary_version"}}`,
	}, "\n") // the last line has no LF
	var out bytes.Buffer
	if err := NewAgentV2().Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	var codes []string
	for _, l := range lines {
		var v any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("bad output line %q: %v", l, err)
		}
		c, _ := field(v, "code").(string)
		if c == "" {
			c, _ = field(v, "response", "error", "code").(string)
		}
		if c == "" {
			c = field(v, "response", "request_id").(string)
		}
		codes = append(codes, c)
		if c == CodeFrameTooLarge {
			if got := field(v, "size"); got != float64(len(big)) {
				t.Errorf("size = %v, want %d", got, len(big))
			}
			if got := len(field(v, "excerpt").(string)); got != ExcerptMaxV2 {
				t.Errorf("excerpt length = %d, want %d", got, ExcerptMaxV2)
			}
		}
	}
	want := []string{"init", CodeFrameTooLarge, "v", CodeCancelled}
	if diff := cmp.Diff(want, codes); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestAgentV2ServeVersionMismatchStops(t *testing.T) {
	t.Parallel()
	in := `{"type":"control_request","schemaVersion":2,"request_id":"i","request":{"subtype":"initialize","protocolVersions":[7]}}` + "\n" +
		`{"type":"control_request","schemaVersion":2,"request_id":"after","request":{"subtype":"interrupt"}}` + "\n"
	var out bytes.Buffer
	err := NewAgentV2().Serve(context.Background(), strings.NewReader(in), &out)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 1 {
		t.Fatalf("err = %v, want ExitError 1", err)
	}
	if n := strings.Count(out.String(), "\n"); n != 1 || !strings.Contains(out.String(), CodeVersionMismatch) {
		t.Errorf("output = %q, want only the version_mismatch reply", out.String())
	}
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"short", "abc", "abc"},
		{"exact", strings.Repeat("x", 256), strings.Repeat("x", 256)},
		{"cut", strings.Repeat("x", 300), strings.Repeat("x", 256)},
		{"split 2-byte", strings.Repeat("x", 255) + "é", strings.Repeat("x", 255)},
		{"split 4-byte", strings.Repeat("x", 254) + "😀", strings.Repeat("x", 254)},
		{"whole rune at end", strings.Repeat("x", 254) + "é" + "y", strings.Repeat("x", 254) + "é"},
		{"invalid bytes", "a\xff\xfeb", "a\uFFFD\uFFFDb"},
		{"invalid at cut", strings.Repeat("x", 255) + "\x80\x80", strings.Repeat("x", 255) + "\uFFFD"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Excerpt([]byte(tc.in)); got != tc.want {
				t.Errorf("Excerpt = %q, want %q", got, tc.want)
			}
		})
	}
}
