package runner_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/runner"
)

// got is a finding as the tests compare it: where, what code, fails or not.
type got struct {
	Line int
	EOF  bool
	Code string
	Fail bool
}

func validateRec(t *testing.T, version int, rec string, opt runner.RecordingOptions) ([]got, []string, runner.RecordingStats) {
	t.Helper()
	s, err := runner.Open(conform.Suite())
	if err != nil {
		t.Fatal(err)
	}
	var out []got
	var msgs []string
	st, err := runner.ValidateRecording(context.Background(), s, version, strings.NewReader(rec), opt, func(f runner.LineFinding) {
		// The library reports a violation per failing oneOf branch and
		// keyword: the tests compare distinct consecutive findings.
		g := got{f.Line, f.EOF, f.Code, f.Status != ""}
		if len(out) == 0 || out[len(out)-1] != g {
			out = append(out, g)
		}
		msgs = append(msgs, f.Message)
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, msgs, st
}

const (
	setModelReq   = `{"type":"control_request","request_id":"m","request":{"subtype":"set_model","model":"sonnet"}}`
	setModelReply = `{"type":"control_response","response":{"subtype":"success","request_id":"m","response":{"model":"claude-sonnet-5-5"}}}`
	canUseReq     = `{"type":"control_request","request_id":"c","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"},"tool_use_id":"t1"}}`
	allowBare     = `{"type":"control_response","response":{"subtype":"success","request_id":"c","response":{"behavior":"allow"}}}`
	allowEcho     = `{"type":"control_response","response":{"subtype":"success","request_id":"c","response":{"behavior":"allow","updatedInput":{"command":"ls"}}}}`
	initReq       = `{"type":"control_request","request_id":"i","request":{"subtype":"initialize"}}`
	initEmpty     = `{"type":"control_response","response":{"subtype":"success","request_id":"i","response":{}}}`
	errReply      = `{"type":"control_response","response":{"subtype":"error","request_id":"%s","error":"no"}}`
	cancel        = `{"type":"control_cancel_request","request_id":"%s"}`
)

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func TestValidateRecording(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rec   string
		opt   runner.RecordingOptions
		want  []got
		stats *runner.RecordingStats
	}{
		{name: "a matched pair", rec: lines(setModelReq, setModelReply),
			stats: &runner.RecordingStats{Lines: 2, Frames: 2, Control: 2, Requests: 1, Replies: 1, Matched: 1, BodiesChecked: 1}},
		{name: "allow without updatedInput fails its can_use_tool body", rec: lines(canUseReq, allowBare),
			want: []got{{Line: 2, Code: "REPLY_BODY_SCHEMA", Fail: true}}},
		{name: "allow with updatedInput passes", rec: lines(canUseReq, allowEcho)},
		{name: "initialize answered with {} fails", rec: lines(initReq, initEmpty),
			want: []got{{Line: 2, Code: "REPLY_BODY_SCHEMA", Fail: true}}},
		{name: "the same bodies are only envelopes without their request", rec: lines(allowBare, initEmpty),
			want: []got{{Line: 1, Code: "REPLY_UNSOLICITED"}, {Line: 2, Code: "REPLY_UNSOLICITED"}}},
		{name: "unsolicited and missing fail a complete recording", rec: lines(allowEcho, setModelReq), opt: runner.RecordingOptions{Complete: true},
			want: []got{{Line: 1, Code: "REPLY_UNSOLICITED", Fail: true}, {Line: 2, EOF: true, Code: "REPLY_MISSING", Fail: true}}},
		{name: "an unanswered request is a note at the end", rec: lines(setModelReq, canUseReq, allowEcho),
			want: []got{{Line: 1, EOF: true, Code: "REPLY_MISSING"}}},
		{name: "a cancelled request needs no reply", rec: lines(setModelReq, fmt.Sprintf(cancel, "m"))},
		{name: "a cancelled request may still be answered, and is checked", rec: lines(initReq, fmt.Sprintf(cancel, "i"), initEmpty),
			want: []got{{Line: 3, Code: "REPLY_BODY_SCHEMA", Fail: true}}},
		{name: "a second reply has no pending request", rec: lines(setModelReq, setModelReply, setModelReply),
			want: []got{{Line: 3, Code: "REPLY_UNSOLICITED"}}},
		{name: "an error reply is matched, not checked against the subtype", rec: lines(initReq, fmt.Sprintf(errReply, "i")),
			stats: &runner.RecordingStats{Lines: 2, Frames: 2, Control: 2, Requests: 1, Replies: 1, Matched: 1}},
		{name: "replies to a reused id answer the oldest request first",
			rec: lines(
				`{"type":"control_request","request_id":"x","request":{"subtype":"set_model","model":"sonnet"}}`,
				`{"type":"control_request","request_id":"x","request":{"subtype":"initialize"}}`,
				`{"type":"control_response","response":{"subtype":"success","request_id":"x","response":{"model":"claude-sonnet-5-5"}}}`,
				`{"type":"control_response","response":{"subtype":"success","request_id":"x","response":{"model":"claude-sonnet-5-5"}}}`),
			want: []got{{Line: 4, Code: "REPLY_BODY_SCHEMA", Fail: true}}},
		{name: "request_id \"1\" and 1 differ",
			rec: lines(`{"type":"control_request","request_id":"1","request":{"subtype":"interrupt"}}`,
				`{"type":"control_response","response":{"subtype":"success","request_id":1,"response":{"still_queued":[]}}}`),
			want: []got{{Line: 2, Code: "FRAME_SCHEMA", Fail: true}, {Line: 2, Code: "REPLY_UNSOLICITED"}, {Line: 1, EOF: true, Code: "REPLY_MISSING"}}},
		{name: "an escaped request_id matches its reply",
			rec: lines(`{"type":"control_request","request_id":"a\"b\u00e9","request":{"subtype":"interrupt"}}`,
				`{"type":"control_response","response":{"subtype":"success","request_id":"a\u0022b\u00e9","response":{"still_queued":[]}}}`)},
		{name: "frames that are not JSON objects, and unknown types",
			rec: lines(`{"type":"control_request"`, `{"type":"x","type":"y"}`, `[1]`, `{"type":"nope"}`, `{"a":12345678901234567890}`),
			want: []got{{Line: 1, Code: "FRAME_NOT_JSON", Fail: true}, {Line: 2, Code: "FRAME_DUPLICATE_KEY", Fail: true},
				{Line: 3, Code: "FRAME_NOT_OBJECT", Fail: true}, {Line: 4, Code: "FRAME_TYPE_UNKNOWN", Fail: true}, {Line: 5, Code: "FRAME_NUMBER_INEXACT", Fail: true}}},
		{name: "an envelope violation", rec: lines(`{"type":"control_response","response":{"subtype":"success","response":{}}}`),
			want: []got{{Line: 1, Code: "FRAME_SCHEMA", Fail: true}}},
		{name: "pass-over frames, blank lines, CRLF and a last line without LF",
			rec:   `{"type":"system","subtype":"init"}` + "\r\n\n   \r\n" + setModelReq + "\r\n" + setModelReply,
			stats: &runner.RecordingStats{Lines: 5, Frames: 3, Control: 2, Requests: 1, Replies: 1, Matched: 1, BodiesChecked: 1}},
		{name: "an over-long line is reported and skipped, later lines keep their numbers",
			rec:  lines(setModelReq, `{"type":"system","text":"`+strings.Repeat("x", 300)+`"}`, `{"type":"nope"}`, setModelReply),
			opt:  runner.RecordingOptions{MaxLine: 200},
			want: []got{{Line: 2, Code: "FRAME_TOO_LARGE", Fail: true}, {Line: 3, Code: "FRAME_TYPE_UNKNOWN", Fail: true}}},
		{name: "an over-long first and last line", rec: strings.Repeat("y", 500) + "\n" + setModelReq + "\n" + strings.Repeat("z", 500),
			opt:  runner.RecordingOptions{MaxLine: 200},
			want: []got{{Line: 1, Code: "FRAME_TOO_LARGE", Fail: true}, {Line: 3, Code: "FRAME_TOO_LARGE", Fail: true}, {Line: 2, EOF: true, Code: "REPLY_MISSING"}}},
		{name: "empty", rec: "", want: []got{{Line: 1, Code: "RECORDING_EMPTY", Fail: true}}},
		{name: "blank", rec: "\n \n", want: []got{{Line: 2, Code: "RECORDING_EMPTY", Fail: true}}},
		{name: "beyond MaxPending the oldest request is dropped",
			rec: lines(
				`{"type":"control_request","request_id":"1","request":{"subtype":"interrupt"}}`,
				`{"type":"control_request","request_id":"2","request":{"subtype":"interrupt"}}`,
				`{"type":"control_request","request_id":"3","request":{"subtype":"interrupt"}}`,
				`{"type":"control_response","response":{"subtype":"success","request_id":"1","response":{"still_queued":[]}}}`,
				`{"type":"control_response","response":{"subtype":"success","request_id":"3","response":{"still_queued":[]}}}`),
			opt:  runner.RecordingOptions{MaxPending: 2},
			want: []got{{Line: 3, Code: "REPLY_MISSING"}, {Line: 4, Code: "REPLY_UNSOLICITED"}, {Line: 2, EOF: true, Code: "REPLY_MISSING"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			findings, msgs, st := validateRec(t, 1, tt.rec, tt.opt)
			if diff := cmp.Diff(tt.want, findings); diff != "" {
				t.Errorf("findings (-want +got):\n%s\nmessages: %q", diff, msgs)
			}
			if tt.stats != nil {
				if diff := cmp.Diff(*tt.stats, st); diff != "" {
					t.Errorf("stats (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// Messages name the request a reply answers and where.
func TestValidateRecordingMessages(t *testing.T) {
	t.Parallel()
	_, msgs, _ := validateRec(t, 1, lines(initReq, initEmpty, allowEcho, setModelReq), runner.RecordingOptions{})
	want := []string{
		"reply to initialize (line 1): at /response/response: missing properties",
		`reply to id "c", which no earlier line of the recording left pending`,
		`id "m" (set_model, line 4) was never answered before the end of the recording`,
	}
	if len(msgs) != len(want) {
		t.Fatalf("messages %q, want %d", msgs, len(want))
	}
	for i, w := range want {
		if !strings.Contains(msgs[i], w) {
			t.Errorf("message %d = %q, want it to contain %q", i, msgs[i], w)
		}
	}
}

// A v2 recording is checked against the v2 schema and its ReplyBySubtype:
// the reference's replies pass, a v1-shaped reply fails its envelope.
func TestValidateRecordingV2(t *testing.T) {
	t.Parallel()
	rec := lines(
		`{"type":"control_request","request_id":"init","request":{"subtype":"initialize","protocolVersions":[2]},"schemaVersion":2}`,
		`{"response":{"request_id":"init","response":{"protocolVersion":2,"session":{"account":{},"agents":[],"available_output_styles":["default"],"commands":[],"current_permission_mode":"default","models":[{"resolvedModel":"claude-opus-5-5","value":"default"}],"output_style":"default"}},"subtype":"success"},"schemaVersion":2,"type":"control_response"}`,
		`{"type":"control_request","request_id":"h","request":{"subtype":"hold"},"schemaVersion":2}`,
		`{"type":"control_cancel_request","schemaVersion":2,"request_id":"h"}`,
		`{"response":{"error":{"code":"cancelled","message":"cancelled by control_cancel_request"},"request_id":"h","subtype":"error"},"schemaVersion":2,"type":"control_response"}`,
		`{"type":"control_request","request_id":"m","request":{"subtype":"set_model","model":"sonnet"},"schemaVersion":2}`,
		`{"response":{"request_id":"m","response":{"model":"claude-sonnet-5-5"},"subtype":"success"},"schemaVersion":2,"type":"control_response"}`,
		`{"type":"control_request","request_id":"m2","request":{"subtype":"set_model","model":"sonnet"},"schemaVersion":2}`,
		`{"response":{"request_id":"m2","response":{"model":5},"subtype":"success"},"schemaVersion":2,"type":"control_response"}`,
		setModelReq, setModelReply,
	)
	findings, msgs, st := validateRec(t, 2, rec, runner.RecordingOptions{})
	// Line 9: a model that is a number; lines 10 and 11: v1 frames without
	// schemaVersion.
	want := []got{{Line: 9, Code: "REPLY_BODY_SCHEMA", Fail: true},
		{Line: 10, Code: "FRAME_SCHEMA", Fail: true}, {Line: 11, Code: "FRAME_SCHEMA", Fail: true}, {Line: 11, Code: "REPLY_BODY_SCHEMA", Fail: true}}
	if diff := cmp.Diff(want, findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s\n%q", diff, msgs)
	}
	if st.Matched != 5 || st.BodiesChecked != 4 {
		t.Errorf("stats %+v, want 5 matched and 4 bodies checked", st)
	}
}

// bigRecording returns n lines (n odd) of request/reply pairs with a
// faulty frame every 97 lines and a bad reply body every 89 pairs, and the
// findings it must give, in order.
func bigRecording(n int) (string, []got) {
	var b strings.Builder
	var want, eof []got
	for line := 1; line <= n; line++ {
		switch {
		case line%97 == 0:
			b.WriteString(`{"type":"nope"}`)
			want = append(want, got{Line: line, Code: "FRAME_TYPE_UNKNOWN", Fail: true})
			if line%2 == 0 { // a reply replaced: its request is never answered
				eof = append(eof, got{Line: line - 1, EOF: true, Code: "REPLY_MISSING"})
			}
		case line == n:
			b.WriteString(`{"type":"system"}`)
		case line%2 == 1:
			fmt.Fprintf(&b, `{"type":"control_request","request_id":"r%d","request":{"subtype":"set_model","model":"sonnet"}}`, line)
		default:
			model := `"claude-sonnet-5-5"`
			switch {
			case (line-1)%97 == 0: // its request was replaced
				want = append(want, got{Line: line, Code: "REPLY_UNSOLICITED"})
			case (line/2)%89 == 0:
				model = `5`
				want = append(want, got{Line: line, Code: "REPLY_BODY_SCHEMA", Fail: true})
			}
			fmt.Fprintf(&b, `{"type":"control_response","response":{"subtype":"success","request_id":"r%d","response":{"model":%s}}}`, line-1, model)
		}
		b.WriteByte('\n')
	}
	return b.String(), append(want, eof...)
}

// Findings come in line order whatever the number of workers and however
// the input arrives; chunk boundaries fall between a request and its reply.
func TestValidateRecordingOrder(t *testing.T) {
	t.Parallel()
	rec, want := bigRecording(30001)
	if len(rec) < 3*256<<10 {
		t.Fatalf("recording of %d bytes spans too few chunks", len(rec))
	}
	s, err := runner.Open(conform.Suite())
	if err != nil {
		t.Fatal(err)
	}
	readers := map[string]func() io.Reader{
		"whole":    func() io.Reader { return strings.NewReader(rec) },
		"half":     func() io.Reader { return iotest.HalfReader(strings.NewReader(rec)) },
		"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(rec[:20000])) },
		"data+EOF": func() io.Reader { return iotest.DataErrReader(strings.NewReader(rec)) },
	}
	for name, r := range readers {
		for _, jobs := range []int{1, 2, 7} {
			t.Run(fmt.Sprintf("%s/j%d", name, jobs), func(t *testing.T) {
				t.Parallel()
				var out []got
				st, err := runner.ValidateRecording(context.Background(), s, 1, r(), runner.RecordingOptions{Jobs: jobs}, func(f runner.LineFinding) {
					out = append(out, got{f.Line, f.EOF, f.Code, f.Status != ""})
				})
				if err != nil {
					t.Fatal(err)
				}
				w := want
				if name == "one byte" {
					// The first 20,000 bytes: whole lines, then part of one.
					whole := strings.Count(rec[:20000], "\n")
					var cut, eof []got
					for _, g := range want {
						switch {
						case g.EOF && g.Line <= whole:
							eof = append(eof, g)
						case !g.EOF && g.Line <= whole:
							cut = append(cut, g)
						}
					}
					cut = append(cut, got{Line: whole + 1, Code: "FRAME_NOT_JSON", Fail: true})
					if whole%2 == 1 && (whole)%97 != 0 { // the request on the last whole line is unanswered
						eof = append(eof, got{Line: whole, EOF: true, Code: "REPLY_MISSING"})
					}
					w = append(cut, eof...)
				}
				if diff := cmp.Diff(w, out); diff != "" {
					t.Errorf("findings (-want +got):\n%s", diff)
				}
				if name != "one byte" && st.Lines != 30001 {
					t.Errorf("Lines = %d, want 30001", st.Lines)
				}
			})
		}
	}
}

// A read error is an IO error; a cancelled context is INTERRUPTED.
func TestValidateRecordingErrors(t *testing.T) {
	t.Parallel()
	s, err := runner.Open(conform.Suite())
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := bigRecording(20000)
	r := io.MultiReader(strings.NewReader(rec), iotest.ErrReader(errors.New("disk gone")))
	_, err = runner.ValidateRecording(context.Background(), s, 1, r, runner.RecordingOptions{}, func(runner.LineFinding) {})
	if runner.CodeOf(err) != "IO" || !strings.Contains(err.Error(), "disk gone") {
		t.Errorf("read error: %v, want IO", err)
	}
	// A recording cut by a read error reports no request as unanswered:
	// the rest of it was never read.
	r = io.MultiReader(strings.NewReader(setModelReq+"\n"), iotest.ErrReader(errors.New("disk gone")))
	var codes []string
	_, err = runner.ValidateRecording(context.Background(), s, 1, r, runner.RecordingOptions{}, func(f runner.LineFinding) { codes = append(codes, f.Code) })
	if runner.CodeOf(err) != "IO" || len(codes) != 0 {
		t.Errorf("read error after a request: %v, findings %v; want IO and none", err, codes)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = runner.ValidateRecording(ctx, s, 1, strings.NewReader(rec), runner.RecordingOptions{}, func(runner.LineFinding) {})
	if runner.CodeOf(err) != "INTERRUPTED" {
		t.Errorf("cancelled: %v, want INTERRUPTED", err)
	}
	if _, err := runner.ValidateRecording(context.Background(), s, 9, strings.NewReader(rec), runner.RecordingOptions{}, func(runner.LineFinding) {}); runner.CodeOf(err) != "VERSION_UNKNOWN" {
		t.Errorf("version 9: %v, want VERSION_UNKNOWN", err)
	}
}

// Lines longer than a chunk are read on their own: sized ahead from a
// reader that can read at an offset, grown from one that cannot (a pipe),
// with the same findings either way and with reads of any size; their
// tapes are folded, and what a check reads of them is unfolded (a reply
// body checked against its method's schema, one that fails it).
func TestValidateRecordingLongLines(t *testing.T) {
	t.Parallel()
	s, err := runner.Open(conform.Suite())
	if err != nil {
		t.Fatal(err)
	}
	members := func(n int, extra string) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			fmt.Fprintf(&b, `"k%d":[%d,{"a":"\u00e9"}],`, i, i)
		}
		b.WriteString(extra + `"end":0}`)
		return b.String()
	}
	obj := members(30000, "") // about 720 KB
	passOver := `{"type":"user","message":{"content":[` + obj + `,` + obj + `]}}`
	bigReq := `{"type":"control_request","request_id":"b","request":{"subtype":"can_use_tool","tool_name":"Bash","input":` + obj + `}}`
	allowBig := `{"type":"control_response","response":{"subtype":"success","request_id":"b","response":{"behavior":"allow","updatedInput":` + obj + `}}}`
	badBig := `{"type":"control_response","response":{"subtype":"success","request_id":"c","response":{"behavior":"perhaps","updatedInput":` + obj + `}}}`
	lines := []string{
		setModelReq, passOver, bigReq, canUseReq, allowBig, setModelReply, badBig,
		`{"type":"user","message":{"content":` + members(30000, `"k7":1,`) + `}}`, // duplicate name
		`{"type":"user","message":{"content":` + members(30000, `"k\u0037":1,`) + `}}`,
		strings.Repeat(" ", 300<<10) + initReq, initEmpty,
		`{"type":"user","message":{"content":"` + strings.Repeat("x", 2<<20) + `"}}`, // over MaxLine below
		`[` + obj + `]`, passOver,
	}
	rec := strings.Join(lines, "\n") // no LF after the last line
	opt := runner.RecordingOptions{MaxLine: 1 << 21, Complete: true}
	run := func(r io.Reader) (string, runner.RecordingStats) {
		var b strings.Builder
		st, err := runner.ValidateRecording(context.Background(), s, 1, r, opt, func(f runner.LineFinding) {
			fmt.Fprintf(&b, "%d %v %s %q: %s\n", f.Line, f.EOF, f.Code, f.Status, f.Message)
		})
		if err != nil {
			t.Fatal(err)
		}
		return b.String(), st
	}
	want, st := run(strings.NewReader(rec))
	var codes []string
	for _, l := range strings.Split(strings.TrimSpace(want), "\n") {
		f := strings.Fields(l)
		codes = append(codes, f[0]+" "+f[2])
	}
	wantCodes := []string{"7 REPLY_BODY_SCHEMA", "8 FRAME_DUPLICATE_KEY", "9 FRAME_DUPLICATE_KEY", "11 REPLY_BODY_SCHEMA", "12 FRAME_TOO_LARGE", "13 FRAME_NOT_OBJECT"}
	if diff := cmp.Diff(wantCodes, slices.Compact(codes)); diff != "" {
		t.Errorf("findings (-want +got):\n%s\nall:\n%.2000s", diff, want)
	}
	if st.Lines != len(lines) || st.Matched != 4 || st.BodiesChecked != 4 {
		t.Errorf("stats %+v: want %d lines, 4 replies matched and checked", st, len(lines))
	}
	for name, r := range map[string]io.Reader{
		"pipe":         struct{ io.Reader }{strings.NewReader(rec)},
		"half reads":   iotest.HalfReader(strings.NewReader(rec)),
		"split in two": io.MultiReader(strings.NewReader(rec[:len(rec)/3]), strings.NewReader(rec[len(rec)/3:])),
	} {
		if got, _ := run(r); got != want {
			t.Errorf("%s: findings differ from a reader read at an offset (-want +got):\n%.3000s", name, cmp.Diff(want, got))
		}
	}
}

// BenchmarkValidateRecording streams the bench corpus's mix (request/reply
// pairs, every reply body checked) through ValidateRecording on all CPUs;
// one op is 20,000 lines.
func BenchmarkValidateRecording(b *testing.B) {
	s, err := runner.Open(conform.Suite())
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	pairs := []string{setModelReq, setModelReply, canUseReq, allowEcho,
		`{"type":"control_request","request_id":"g","request":{"subtype":"get_binary_version"}}`,
		`{"type":"control_response","response":{"subtype":"success","request_id":"g","response":{"version":"2.1.332","buildTime":"2026-01-02T03:04:05Z","oldestDesktopSdk":"0.3.0"}}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hello there"}]},"session_id":"6f1d0b2e-1c1a-4c7e-9d3b-0f5a2b7c9e11","uuid":"0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"}`,
		`{"type":"control_request","request_id":"e","request":{"subtype":"set_permission_mode","mode":"nonsense"}}`,
		fmt.Sprintf(errReply, "e"),
	}
	for buf.Len() < 0 || strings.Count(buf.String(), "\n") < 20000 {
		for _, l := range pairs {
			buf.WriteString(l)
			buf.WriteByte('\n')
		}
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		failed := 0
		_, err := runner.ValidateRecording(context.Background(), s, 1, bytes.NewReader(data), runner.RecordingOptions{}, func(f runner.LineFinding) {
			if f.Status != "" {
				failed++
			}
		})
		if err != nil || failed > 0 {
			b.Fatal(err, failed)
		}
	}
}
