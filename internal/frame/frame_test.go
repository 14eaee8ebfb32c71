package frame_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/frame"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want frame.Framing
		ok   bool
	}{
		{"", frame.Lines, true},
		{"lines", frame.Lines, true},
		{"content-length", frame.ContentLength, true},
		{"Content-Length", "", false},
		{"http", "", false},
	} {
		got, err := frame.Parse(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("Parse(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestEncode(t *testing.T) {
	t.Parallel()
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)
	if got, want := string(frame.Encode(frame.Lines, body)), string(body)+"\n"; got != want {
		t.Errorf("lines: %q, want %q", got, want)
	}
	if got, want := string(frame.Encode(frame.ContentLength, body)), "Content-Length: 46\r\n\r\n"+string(body); got != want {
		t.Errorf("content-length: %q, want %q", got, want)
	}
	if got, want := string(frame.Encode(frame.ContentLength, nil)), "Content-Length: 0\r\n\r\n"; got != want {
		t.Errorf("empty: %q, want %q", got, want)
	}
	if got, want := string(frame.Header(1234)), "Content-Length: 1234\r\n\r\n"; got != want {
		t.Errorf("Header: %q, want %q", got, want)
	}
}

// got is one message as the tests compare it.
type got struct {
	Body    string
	Code    string
	Size    int
	Partial bool
}

func readAll(t *testing.T, in string, max int) []got {
	t.Helper()
	r := frame.NewReader(strings.NewReader(in), max)
	var out []got
	for i := 0; ; i++ {
		if i > len(in)+1 {
			t.Fatalf("reader made no progress on %q", in)
		}
		m, ok := r.Next()
		if !ok {
			return out
		}
		g := got{Body: string(m.Body), Size: m.Size, Partial: m.Partial}
		var fe *frame.Error
		switch {
		case errors.As(m.Err, &fe):
			g.Code = fe.Code
			if len(fe.Bytes) > frame.MaxShown {
				t.Errorf("error shows %d bytes", len(fe.Bytes))
			}
		case errors.Is(m.Err, frame.ErrTooLarge):
			g.Code = "TOO_LARGE"
		case m.Err != nil:
			t.Fatalf("unexpected error %v", m.Err)
		}
		out = append(out, g)
	}
}

func TestReader(t *testing.T) {
	t.Parallel()
	msg := func(b string) string { return string(frame.Encode(frame.ContentLength, []byte(b))) }
	big := strings.Repeat("x", frame.MaxHeader+10)
	for _, tc := range []struct {
		name string
		in   string
		want []got
	}{
		{"empty stream", "", nil},
		{"two messages", msg(`{"a":1}`) + msg(`{"b":2}`), []got{{Body: `{"a":1}`, Size: 7}, {Body: `{"b":2}`, Size: 7}}},
		{"content-type and others tolerated, any case",
			"content-length:  2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\nX-Other: y\r\n\r\n{}",
			[]got{{Body: `{}`, Size: 2}}},
		{"empty body", msg(""), []got{{Body: "", Size: 0}}},
		{"body with newlines", msg("{\n\"a\":\r\n1}\n"), []got{{Body: "{\n\"a\":\r\n1}\n", Size: 11}}},
		{"no content-length", "Content-Type: x\r\n\r\n{}" + msg("{}"),
			// The body, of unknown length, and what follows up to the next
			// line are unframed.
			[]got{{Code: frame.HeaderInvalid, Size: 19}, {Code: frame.Unframed, Size: 21}, {Code: frame.Unframed, Size: 2}, {Code: frame.Unframed, Size: 2, Partial: true}}},
		{"negative length", "Content-Length: -1\r\n\r\n" + msg("{}"),
			[]got{{Code: frame.HeaderInvalid, Size: 22}, {Body: "{}", Size: 2}}},
		{"non-numeric length", "Content-Length: abc\r\n\r\n" + msg("{}"),
			[]got{{Code: frame.HeaderInvalid, Size: 23}, {Body: "{}", Size: 2}}},
		{"length beyond 2^53", "Content-Length: 99999999999999999\r\n\r\n",
			[]got{{Code: frame.HeaderInvalid, Size: 37}}},
		{"two different lengths", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n" + msg("{}"),
			[]got{{Code: frame.HeaderInvalid, Size: 40}, {Body: "{}", Size: 2}}},
		{"line without colon", "Content-Length: 2\r\nbogus\r\n\r\n{}",
			[]got{{Code: frame.HeaderInvalid, Size: 26}, {Code: frame.Unframed, Size: 2}, {Code: frame.Unframed, Size: 2, Partial: true}}},
		{"LF without CR still reads the body", "Content-Length: 2\n\n{}" + msg("[]"),
			[]got{{Body: "{}", Code: frame.HeaderInvalid, Size: 2}, {Body: "[]", Size: 2}}},
		{"header over the bound", "X-Junk: " + big + "\r\n" + msg("{}"),
			[]got{{Code: frame.HeaderInvalid, Size: frame.MaxHeader}, {Body: "{}", Size: 2}}},
		{"unframed bytes over the bound", big + "\n" + msg("{}"),
			[]got{{Code: frame.Unframed, Size: frame.MaxHeader}, {Body: "{}", Size: 2}}},
		{"bare JSON line", `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + msg("{}"),
			[]got{{Code: frame.Unframed, Size: 37}, {Body: "{}", Size: 2}}},
		{"bare JSON line at the end without LF", `{"id":1}`,
			[]got{{Code: frame.Unframed, Size: 8, Partial: true}}},
		{"bytes between messages", msg("{}") + "\r\n" + msg("[]"),
			[]got{{Body: "{}", Size: 2}, {Code: frame.Unframed, Size: 2}, {Body: "[]", Size: 2}}},
		{"length too short", "Content-Length: 3\r\n\r\n{\"a\":1}\n" + msg("{}"),
			[]got{{Body: `{"a`, Size: 3}, {Code: frame.Unframed, Size: 5}, {Body: "{}", Size: 2}}},
		{"length too long truncates", "Content-Length: 10\r\n\r\n{}",
			[]got{{Code: frame.Truncated, Size: 24, Partial: true}}},
		{"truncated header", "Content-Length: 10\r\n",
			[]got{{Code: frame.Truncated, Size: 20, Partial: true}}},
		{"truncated header line", "Content-Len",
			[]got{{Code: frame.Truncated, Size: 11, Partial: true}}},
		{"body over the maximum is skipped", msg(strings.Repeat("y", 65)) + msg("{}"),
			[]got{{Code: "TOO_LARGE", Size: 65}, {Body: "{}", Size: 2}}},
		{"body over the maximum truncated", "Content-Length: 100\r\n\r\nabc",
			[]got{{Code: "TOO_LARGE", Size: 100}, {Code: frame.Truncated, Size: 97, Partial: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, readAll(t, tc.in, 64)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestReaderShowsBytes: a break's error quotes the bytes concerned, at
// most MaxShown of them.
func TestReaderShowsBytes(t *testing.T) {
	t.Parallel()
	line := `{"jsonrpc":"2.0","id":1}` + "\n"
	m, _ := frame.NewReader(strings.NewReader(line), 64).Next()
	var fe *frame.Error
	if !errors.As(m.Err, &fe) || string(fe.Bytes) != line || !strings.Contains(fe.Reason, "bare JSON") {
		t.Fatalf("got %#v", m.Err)
	}
	long := strings.Repeat("z", 1000) + "\n"
	m, _ = frame.NewReader(strings.NewReader(long), 64).Next()
	if !errors.As(m.Err, &fe) || len(fe.Bytes) != frame.MaxShown || fe.Size != len(long) {
		t.Fatalf("got %#v", m.Err)
	}
}

// TestReaderDeliversBeforeMore: a complete message is delivered while the
// writer is still open, and a break is reported as soon as its line
// ended: nothing waits for bytes that have not come.
func TestReaderDeliversBeforeMore(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	r := frame.NewReader(pr, 1<<20)
	type res struct {
		m  frame.Message
		ok bool
	}
	next := func() res {
		c := make(chan res, 1)
		go func() { m, ok := r.Next(); c <- res{m, ok} }()
		select {
		case x := <-c:
			return x
		case <-time.After(10 * time.Second):
			t.Fatal("Next waited for more input")
			return res{}
		}
	}
	go pw.Write(frame.Encode(frame.ContentLength, []byte(`{"a":1}`)))
	if x := next(); string(x.m.Body) != `{"a":1}` {
		t.Fatalf("got %+v", x)
	}
	go pw.Write([]byte("{\"bare\":true}\n"))
	var fe *frame.Error
	if x := next(); !errors.As(x.m.Err, &fe) || fe.Code != frame.Unframed {
		t.Fatalf("got %+v", x)
	}
}

// TestRoundTrip: what Encode writes, the reader gives back, body for body.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	bodies := []string{"", "{}", "{\r\n}\r\n\r\n", strings.Repeat("é", 3000), "Content-Length: 3\r\n\r\nabc"}
	var in bytes.Buffer
	for _, b := range bodies {
		in.Write(frame.Encode(frame.ContentLength, []byte(b)))
	}
	var want []got
	for _, b := range bodies {
		want = append(want, got{Body: b, Size: len(b)})
	}
	if diff := cmp.Diff(want, readAll(t, in.String(), 1<<20)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
