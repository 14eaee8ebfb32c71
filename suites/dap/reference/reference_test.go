package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/frame"
)

// frames frames each content part as a client would.
func frames(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		b.Write(encode([]byte(p)))
	}
	return b.String()
}

// contents reads back every message the adapter wrote.
func contents(t *testing.T, out []byte) []string {
	t.Helper()
	r := newReader(bytes.NewReader(out))
	var got []string
	for {
		c, err := r.Body()
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatalf("the adapter's output does not read back: %v (after %q)", err, got)
		}
		got = append(got, string(c))
	}
}

const initialize = `{"seq":1,"type":"request","command":"initialize","arguments":{"adapterID":"conform"}}`

func TestSession(t *testing.T) {
	t.Parallel()
	program := filepath.Join(t.TempDir(), "prog.txt")
	if err := os.WriteFile(program, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	initialized := []string{
		`{"seq":1,"type":"response","request_seq":1,"success":true,"command":"initialize","body":{"supportsCancelRequest":true,"supportsConfigurationDoneRequest":true}}`,
		`{"seq":2,"type":"event","event":"initialized"}`,
	}
	for _, tc := range []struct {
		name   string
		in     []string
		want   []string
		status int
	}{
		{"initialize", []string{initialize}, initialized, 0},
		{"request before initialize", []string{`{"seq":1,"type":"request","command":"threads"}`, strings.Replace(initialize, `"seq":1`, `"seq":2`, 1)}, []string{
			`{"seq":1,"type":"response","request_seq":1,"success":false,"command":"threads","message":"the initialize request must come first","body":{"error":{"id":1,"format":"the initialize request must come first"}}}`,
			`{"seq":2,"type":"response","request_seq":2,"success":true,"command":"initialize","body":{"supportsCancelRequest":true,"supportsConfigurationDoneRequest":true}}`,
			`{"seq":3,"type":"event","event":"initialized"}`,
		}, 0},
		{"initialize twice", []string{initialize, `{"seq":2,"type":"request","command":"initialize","arguments":{"adapterID":"conform"}}`}, append(initialized,
			`{"seq":3,"type":"response","request_seq":2,"success":false,"command":"initialize","message":"initialize may only be sent once","body":{"error":{"id":5,"format":"initialize may only be sent once"}}}`), 0},
		{"unknown command", []string{initialize, `{"seq":2,"type":"request","command":"conformNoSuchCommand"}`}, append(initialized,
			`{"seq":3,"type":"response","request_seq":2,"success":false,"command":"conformNoSuchCommand","message":"unknown command","body":{"error":{"id":2,"format":"unknown command {command}","variables":{"command":"conformNoSuchCommand"}}}}`), 0},
		{"launch without program", []string{initialize, `{"seq":2,"type":"request","command":"launch","arguments":{}}`}, append(initialized,
			`{"seq":3,"type":"event","event":"output","body":{"category":"stderr","output":"launch: no program given\n"}}`,
			`{"seq":4,"type":"response","request_seq":2,"success":false,"command":"launch","message":"launch needs a program","body":{"error":{"id":3,"format":"launch needs a program"}}}`), 0},
		{"launch of a program", []string{initialize, `{"seq":2,"type":"request","command":"launch","arguments":{"program":` + quote(program) + `}}`}, append(initialized,
			`{"seq":3,"type":"response","request_seq":2,"success":true,"command":"launch"}`,
			`{"seq":4,"type":"event","event":"terminated"}`), 0},
		{"attach without pid", []string{initialize, `{"seq":2,"type":"request","command":"attach","arguments":{}}`}, append(initialized,
			`{"seq":3,"type":"response","request_seq":2,"success":false,"command":"attach","message":"attach needs a pid","body":{"error":{"id":4,"format":"attach needs a pid"}}}`), 0},
		{"attach with pid", []string{initialize, `{"seq":2,"type":"request","command":"attach","arguments":{"pid":7}}`}, append(initialized,
			`{"seq":3,"type":"response","request_seq":2,"success":false,"command":"attach","message":"no process to attach to","body":{"error":{"id":4,"format":"no process to attach to {pid}","variables":{"pid":"7"}}}}`), 0},
		{"disconnect ends the session", []string{initialize, `{"seq":2,"type":"request","command":"disconnect"}`, `{"seq":3,"type":"request","command":"threads"}`}, append(initialized,
			`{"seq":3,"type":"response","request_seq":2,"success":true,"command":"disconnect"}`), 0},
		{"seq echoed byte for byte", []string{`{"seq":1.0e0,"type":"request","command":"initialize"}`}, []string{
			`{"seq":1,"type":"response","request_seq":1.0e0,"success":true,"command":"initialize","body":{"supportsCancelRequest":true,"supportsConfigurationDoneRequest":true}}`,
			`{"seq":2,"type":"event","event":"initialized"}`,
		}, 0},
		{"what is no request is ignored", []string{`not json`, `{"seq":1,"type":"event","event":"x"}`, `{"type":"request","command":"threads"}`, initialize}, initialized, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			status := run(context.Background(), strings.NewReader(frames(tc.in...)), &out, &errOut)
			if status != tc.status {
				t.Errorf("status %d, want %d (stderr %q)", status, tc.status, errOut.String())
			}
			if diff := cmp.Diff(tc.want, contents(t, out.Bytes())); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
		})
	}
}

func quote(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`))
	b.WriteByte('"')
	return b.String()
}

// errHeader stands in TestReadMessage's cases for a header the adapter
// cannot read: a [*frame.Error] that is not a cut stream.
var errHeader = errors.New("invalid header part")

// TestReadMessage: the adapter's reader (internal/frame through
// newReader) gives the content, io.EOF, io.ErrUnexpectedEOF or a header
// error for each input.
func TestReadMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     string
		err      error
	}{
		{"plain", "Content-Length: 2\r\n\r\n{}", "{}", nil},
		{"content type too", "Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}", "{}", nil},
		{"lower case name", "content-length: 2\r\n\r\n{}", "{}", nil},
		{"end of input", "", "", io.EOF},
		{"no content length", "Content-Type: x\r\n\r\n{}", "", errHeader},
		{"negative length", "Content-Length: -1\r\n\r\n", "", errHeader},
		{"not a number", "Content-Length: two\r\n\r\n{}", "", errHeader},
		{"field without colon", "Content-Length 2\r\n\r\n{}", "", errHeader},
		{"a bare JSON line", "{\"seq\":1}\n", "", errHeader},
		{"header over bound", "X: " + strings.Repeat("a", frame.MaxHeader) + "\r\n\r\n", "", errHeader},
		{"truncated header", "Content-Length: 2\r\n", "", io.ErrUnexpectedEOF},
		{"truncated content", "Content-Length: 5\r\n\r\n{}", "", io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := newReader(strings.NewReader(tc.in)).Body()
			var fe *frame.Error
			if tc.err == errHeader && errors.As(err, &fe) && !errors.Is(err, io.ErrUnexpectedEOF) {
				err = errHeader // a header the adapter cannot read, as internal/frame reports it
			}
			if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if string(got) != tc.want {
				t.Errorf("content %q, want %q", got, tc.want)
			}
		})
	}
}

// TestBrokenInputExitsOne: a header the adapter cannot read ends it with
// status 1 and the reason on stderr, after what it already answered.
func TestBrokenInputExitsOne(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	status := run(context.Background(), strings.NewReader(frames(initialize)+"Content-Length: x\r\n\r\n"), &out, &errOut)
	if status != 1 || !strings.Contains(errOut.String(), "Content-Length") {
		t.Errorf("status %d stderr %q, want 1 and the reason", status, errOut.String())
	}
	if got := contents(t, out.Bytes()); len(got) != 2 {
		t.Errorf("answered %q before the broken header, want the initialize response and event", got)
	}
}
