package frame_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/conform-kit/conform/internal/frame"
)

// FuzzReader feeds arbitrary bytes to the content-length reader: it must
// never panic, always make progress (every message consumes input), never
// deliver a body over its maximum or show more than MaxShown bytes; and
// bodies that Encode framed must come back whole, whatever came before
// them on the stream once the reader is back in step.
func FuzzReader(f *testing.F) {
	for _, seed := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
		"content-length:5\n\nabcde", "Content-Length: -1\r\n\r\n", "Content-Length: 99999999999999999999\r\n\r\n",
		"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "{\"jsonrpc\":\"2.0\"}\n", "\r\n\r\n", ":\r\n\r\n",
		"Content-Length: 70\r\n\r\n", "Content-Length: 3\r\n\r\n{}", "X: y\r\n", "\x00\xff\r\n",
	} {
		f.Add([]byte(seed))
	}
	const max = 64
	f.Fuzz(func(t *testing.T, in []byte) {
		r := frame.NewReader(bytes.NewReader(in), max)
		for i := 0; ; i++ {
			if i > len(in)+1 {
				t.Fatalf("no progress on %q", in)
			}
			m, ok := r.Next()
			if !ok {
				break
			}
			if len(m.Body) > max {
				t.Fatalf("a body of %d bytes passed the maximum", len(m.Body))
			}
			var fe *frame.Error
			switch {
			case m.Err == nil, errors.Is(m.Err, frame.ErrTooLarge):
			case errors.As(m.Err, &fe):
				if len(fe.Bytes) > frame.MaxShown {
					t.Fatalf("shows %d bytes", len(fe.Bytes))
				}
				switch fe.Code {
				case frame.HeaderInvalid, frame.Unframed, frame.Truncated:
				default:
					t.Fatalf("code %q", fe.Code)
				}
			default:
				t.Fatalf("error %v", m.Err)
			}
		}
		// The input's own bytes as bodies, framed: they come back whole.
		var enc bytes.Buffer
		parts := bytes.Split(in, []byte{0})
		for _, p := range parts {
			enc.Write(frame.Encode(frame.ContentLength, p))
		}
		r = frame.NewReader(&enc, len(in))
		for _, p := range parts {
			m, ok := r.Next()
			if !ok || m.Err != nil || !bytes.Equal(m.Body, p) {
				t.Fatalf("round trip of %q: got %q, %v, %v", p, m.Body, ok, m.Err)
			}
		}
		if _, ok := r.Next(); ok {
			t.Fatal("more than was framed")
		}
	})
}
