package frame

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ErrTooLarge marks a body longer than the reader's maximum: it is
// skipped unread (conform's FRAME_TOO_LARGE).
var ErrTooLarge = errors.New("body too large")

// Message is what [Reader.Next] read: a body, or a break of the framing.
type Message struct {
	// Body is the message's body (a new slice), or nil when it could not
	// be read (Err is [ErrTooLarge], or an [*Error] that lost the body).
	Body []byte
	// Size is the body's length in bytes (its Content-Length), or for an
	// [*Error] the number of bytes it concerns.
	Size int
	// Err is nil, [ErrTooLarge], or an [*Error]. An *Error of code
	// [HeaderInvalid] with a Body is a header with a defect that did
	// not hide the body's length (a header line ended by LF alone): the
	// body is delivered, and the defect reported.
	Err error
	// Partial is true when the stream ended inside this message.
	Partial bool
}

// Reader reads content-length framed messages from a byte stream: each
// [Reader.Next] returns one body or one break of the framing, and goes on
// after a break where the next message may start (the next line). It
// holds at most [MaxHeader] bytes of header and one body of at most the
// maximum it was made with. Not safe for concurrent use.
type Reader struct {
	br      *bufio.Reader
	max     int
	hdr     []byte
	skip    bool  // discard through the next LF before the next message
	discard int64 // bytes of a too-large body still to discard
}

// readBuf is the reader's buffer: a header fits; a larger body is read
// straight into its own slice.
const readBuf = 4 << 10

// NewReader returns a reader of content-length framed messages from r
// whose bodies are at most maxBody bytes (a longer one is [ErrTooLarge]).
func NewReader(r io.Reader, maxBody int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, readBuf), max: maxBody}
}

// Next returns the next message, or ok false at the end of the stream (or
// a read error, which ends it as EOF would). Breaks of the framing are
// messages with an [*Error]; after one, reading goes on at the next line.
func (r *Reader) Next() (m Message, ok bool) {
	if r.discard > 0 {
		n, err := io.CopyN(io.Discard, r.br, r.discard)
		left := int(r.discard - n)
		r.discard = 0
		if err != nil {
			return Message{Size: left, Partial: true,
				Err: newError(Truncated, "the stream ended "+strconv.Itoa(left)+" bytes before the end of a body skipped as too large", nil, left)}, true
		}
	}
	if r.skip {
		r.skip = false
		for {
			_, err := r.br.ReadSlice('\n')
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				return Message{}, false
			}
			break
		}
	}
	r.hdr = r.hdr[:0]
	length := -1
	lfOnly := false
	for first := true; ; first = false {
		from := len(r.hdr)
		over, err := r.readLine()
		line := r.hdr[from:]
		if err != nil {
			switch {
			case len(r.hdr) == 0:
				return Message{}, false
			case first && !mayBeField(line):
				return Message{Size: len(line), Partial: true, Err: unframed(line)}, true
			}
			return Message{Size: len(r.hdr), Partial: true,
				Err: newError(Truncated, "the stream ended inside a header", r.hdr, len(r.hdr))}, true
		}
		if over {
			if first && !isField(line) {
				return Message{Size: len(line), Err: unframed(line)}, true
			}
			return Message{Size: len(r.hdr), Err: newError(HeaderInvalid, "the header passed 8192 bytes", r.hdr, len(r.hdr))}, true
		}
		text := bytes.TrimSuffix(line, []byte("\n"))
		cr := bytes.HasSuffix(text, []byte("\r"))
		text = bytes.TrimSuffix(text, []byte("\r"))
		if !cr {
			lfOnly = true
		}
		if len(text) == 0 {
			if first {
				return Message{Size: len(line), Err: unframed(line)}, true
			}
			break // the empty line ends the header
		}
		name, value, isF := field(text)
		switch {
		case !isF && first:
			return Message{Size: len(line), Err: unframed(line)}, true
		case !isF:
			return Message{Size: len(r.hdr), Err: newError(HeaderInvalid, "a header line had no field name and colon", r.hdr, len(r.hdr))}, true
		case !asciiEqualFold(name, "Content-Length"):
			continue // Content-Type and others are tolerated
		}
		n, valid := parseLength(value)
		switch {
		case !valid:
			r.resync()
			return Message{Size: len(r.hdr), Err: newError(HeaderInvalid, "Content-Length was not a decimal number of bytes", r.hdr, len(r.hdr))}, true
		case length >= 0 && n != length:
			r.resync()
			return Message{Size: len(r.hdr), Err: newError(HeaderInvalid, "Content-Length was given twice with different values", r.hdr, len(r.hdr))}, true
		}
		length = n
	}
	if length < 0 {
		return Message{Size: len(r.hdr), Err: newError(HeaderInvalid, "the header had no Content-Length", r.hdr, len(r.hdr))}, true
	}
	var defect *Error
	if lfOnly {
		defect = newError(HeaderInvalid, "a header line ended with LF, not CR LF", r.hdr, len(r.hdr))
	}
	if length > r.max {
		r.discard = int64(length)
		return Message{Size: length, Err: ErrTooLarge}, true
	}
	body := make([]byte, length)
	if n, err := io.ReadFull(r.br, body); err != nil {
		shown := append(append([]byte(nil), r.hdr...), body[:min(n, MaxShown)]...)
		return Message{Size: len(r.hdr) + n, Partial: true,
			Err: newError(Truncated, "the stream ended "+strconv.Itoa(length-n)+" bytes before the end of a body of Content-Length "+strconv.Itoa(length), shown, len(r.hdr)+n)}, true
	}
	m = Message{Body: body, Size: length}
	if defect != nil {
		m.Err = defect
	}
	return m, true
}

// resync ends a header whose Content-Length is unusable: the rest of the
// header is read (up to its empty line, within MaxHeader) so that reading
// goes on after it; its body, whose length is unknown, is then read as
// unframed bytes.
func (r *Reader) resync() {
	for {
		from := len(r.hdr)
		over, err := r.readLine()
		if over || err != nil {
			return
		}
		if t := bytes.TrimRight(r.hdr[from:], "\r\n"); len(t) == 0 {
			return
		}
	}
}

// readLine appends the stream's bytes through the next LF to r.hdr, but
// r.hdr never passes MaxHeader bytes: over says that the line went on
// past it (what passed is dropped, and r.skip set when the line's LF is
// still to come). err is the read error that ended the line before its
// LF.
func (r *Reader) readLine() (over bool, err error) {
	for {
		room := MaxHeader - len(r.hdr)
		if room <= 0 {
			r.skip = true
			return true, nil
		}
		chunk, err := r.br.ReadSlice('\n')
		if len(chunk) > room {
			r.hdr = append(r.hdr, chunk[:room]...)
			r.skip = err == bufio.ErrBufferFull
			return true, nil
		}
		r.hdr = append(r.hdr, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return false, err
	}
}

// unframed is the break of bytes where a header must start.
func unframed(line []byte) *Error {
	t := bytes.TrimLeft(line, " \t")
	reason := "bytes came where a header must start"
	switch {
	case len(bytes.TrimRight(line, "\r\n")) == 0:
		reason = "an empty line came between messages"
	case len(t) > 0 && (t[0] == '{' || t[0] == '['):
		reason = "a bare JSON line came where a header must start"
	}
	return newError(Unframed, reason, line, len(line))
}

// Body returns the next body for a reader that ends at the first break
// of the framing, as the suites' reference servers do: io.EOF at the end
// of the stream between messages, an error wrapping io.ErrUnexpectedEOF
// (and the [*Error]) when the stream ended inside a message, and
// otherwise the message's error ([*Error], [ErrTooLarge]), including a
// header defect that left the body readable.
func (r *Reader) Body() ([]byte, error) {
	m, ok := r.Next()
	switch {
	case !ok:
		return nil, io.EOF
	case m.Err == nil:
		return m.Body, nil
	case m.Partial:
		return nil, fmt.Errorf("%w: %w", io.ErrUnexpectedEOF, m.Err)
	}
	return nil, m.Err
}

// LooksFramed reports whether b, the first bytes of a stream, starts as a
// content-length header does: an RFC 9110 token (a field name) and a
// colon. A JSON text (a recording of bodies, one per line) does not.
func LooksFramed(b []byte) bool {
	i := bytes.IndexByte(b, ':')
	if i <= 0 {
		return false
	}
	for _, c := range b[:i] {
		if !isTchar(c) {
			return false
		}
	}
	return true
}

// isField reports whether line starts as a header field: a token and a
// colon.
func isField(line []byte) bool {
	_, _, ok := field(bytes.TrimRight(line, "\r\n"))
	return ok
}

// mayBeField reports whether line, cut short by the end of the stream,
// may be the start of a header field: a field, or a token so far.
func mayBeField(line []byte) bool {
	if isField(line) {
		return true
	}
	for _, c := range line {
		if !isTchar(c) {
			return false
		}
	}
	return true
}

// field splits a header line "Name: value" into its name (an RFC 9110
// token) and value (spaces and tabs trimmed).
func field(text []byte) (name, value []byte, ok bool) {
	i := bytes.IndexByte(text, ':')
	if i <= 0 {
		return nil, nil, false
	}
	for _, c := range text[:i] {
		if !isTchar(c) {
			return nil, nil, false
		}
	}
	return text[:i], bytes.Trim(text[i+1:], " \t"), true
}

// isTchar: RFC 9110 §5.6.2 tchar.
func isTchar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return bytes.IndexByte([]byte("!#$%&'*+-.^_`|~"), c) >= 0
}

// parseLength reads a Content-Length value: decimal digits only, at most
// 2^53 (what every JSON reader can hold).
func parseLength(v []byte) (int, bool) {
	if len(v) == 0 || len(v) > 16 {
		return 0, false
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if n > 1<<53 {
		return 0, false
	}
	return n, true
}

func asciiEqualFold(b []byte, s string) bool {
	return len(b) == len(s) && bytes.EqualFold(b, []byte(s))
}
