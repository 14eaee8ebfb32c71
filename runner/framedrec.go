package runner

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/conform-kit/conform/internal/frame"
)

// framedRecording reads a recording of a suite framed by content-length
// that is a capture of the framed stream itself (it starts with a header
// field, not a JSON text) as the JSON-lines recording of its bodies: one
// line per message, in order, each body with its CR and LF bytes turned
// into spaces (in a JSON text they can only be whitespace). A message that
// breaks the framing, or a body over the maximum, is an empty line (which
// the check skips) and a finding at that line, kept in order for
// [framedRecording.emitUpTo]. So "line N" of a finding is message N of the
// capture.
type framedRecording struct {
	fr   *frame.Reader
	max  int
	line int
	buf  []byte
	mu   sync.Mutex
	// found are the framing findings not yet emitted, by line.
	found []LineFinding
}

// maybeFramed returns r as it is, or, for a content-length suite whose
// recording starts as a header does, a reader of the lines of its bodies
// (see [framedRecording]) and that reader.
func maybeFramed(f frame.Framing, r io.Reader, maxLine int) (io.Reader, *framedRecording) {
	if f != frame.ContentLength {
		return r, nil
	}
	var head []byte
	if rs, ok := r.(io.ReadSeeker); ok {
		// A regular file stays one, for the check's reading of long lines.
		if at, err := rs.Seek(0, io.SeekCurrent); err == nil {
			b := make([]byte, 32)
			n, _ := io.ReadFull(rs, b)
			if _, err := rs.Seek(at, io.SeekStart); err == nil {
				head = b[:n]
			}
		}
	}
	if head == nil {
		br := bufio.NewReaderSize(r, 64)
		head, _ = br.Peek(32)
		r = br
	}
	if !frame.LooksFramed(head) {
		return r, nil
	}
	fr := &framedRecording{fr: frame.NewReader(r, maxLine), max: maxLine}
	return fr, fr
}

func (fr *framedRecording) Read(p []byte) (int, error) {
	for len(fr.buf) == 0 {
		m, ok := fr.fr.Next()
		if !ok {
			return 0, io.EOF
		}
		fr.line++
		var fe *frame.Error
		switch {
		case errors.Is(m.Err, frame.ErrTooLarge):
			fr.add(FindingFrameTooLarge, fmt.Sprintf("a message body of %d bytes (its Content-Length) exceeds the %d-byte limit", m.Size, fr.max))
		case errors.As(m.Err, &fe):
			fr.add(fe.Code, fmt.Sprintf("%s (%d bytes): %s", fe.Reason, fe.Size, quote(fe.Bytes)))
		}
		if m.Body == nil {
			fr.buf = []byte{'\n'}
			continue
		}
		for i, c := range m.Body {
			if c == '\r' || c == '\n' {
				m.Body[i] = ' '
			}
		}
		fr.buf = append(m.Body, '\n')
	}
	n := copy(p, fr.buf)
	fr.buf = fr.buf[n:]
	return n, nil
}

func (fr *framedRecording) add(code, msg string) {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	fr.found = append(fr.found, LineFinding{Line: fr.line, Finding: Finding{Code: code, Status: ProtocolError, Message: msg}})
}

// emitUpTo emits the framing findings at lines up to line, in order, and
// returns how many it emitted.
func (fr *framedRecording) emitUpTo(line int, emit func(LineFinding)) int {
	fr.mu.Lock()
	var out []LineFinding
	i := 0
	for i < len(fr.found) && fr.found[i].Line <= line {
		i++
	}
	out, fr.found = fr.found[:i], fr.found[i:]
	fr.mu.Unlock()
	for _, lf := range out {
		emit(lf)
	}
	return len(out)
}

// interleave wraps emit so that the framing findings come in line order
// with the check's own, and returns it with a function that emits the
// rest and returns how many framing findings were emitted in all.
func (fr *framedRecording) interleave(emit func(LineFinding)) (func(LineFinding), func() int) {
	n := 0
	wrapped := func(lf LineFinding) {
		upTo := lf.Line
		if lf.EOF {
			upTo = math.MaxInt
		}
		n += fr.emitUpTo(upTo, emit)
		emit(lf)
	}
	return wrapped, func() int { return n + fr.emitUpTo(math.MaxInt, emit) }
}
