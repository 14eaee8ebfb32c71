// Package frame turns the IUT's byte stream into message bodies and bodies
// into bytes for it, in one of the framings a suite may declare
// (suite.json "framing"; docs/suite-format.md "Framing"):
//
//   - [Lines]: one body per line, ended by LF (JSON lines). The default.
//   - [ContentLength]: the base protocol of the Language Server Protocol
//     3.17 and the Debug Adapter Protocol: header fields "Name: value\r\n",
//     an empty line "\r\n", then exactly Content-Length bytes of body.
//     Content-Length is required, Content-Type optional, other fields are
//     tolerated; the header is at most [MaxHeader] bytes and the body at
//     most the reader's maximum (conform's --max-line).
//
// Everything downstream of the transport (JSON parsing, schemas,
// normalizers, canonical bytes, goldens) sees bodies; a framing only says
// how bodies travel. A stream that breaks the framing gives an [Error]
// whose Code is one of the FRAME_* findings below, with the offending
// bytes, and the reader goes on at the next place a message may start:
// bad framing is a finding, never a hang or an end of reading.
package frame

import (
	"fmt"
	"strconv"
)

// Framing is how messages are delimited on the IUT's stdin and stdout.
// The zero value "" means [Lines].
type Framing string

// The framings a suite may declare (suite.json "framing").
const (
	// Lines: one message per line, ended by LF ("\n"); the body is the
	// line without its LF.
	Lines Framing = "lines"
	// ContentLength: "Content-Length: N\r\n" (other header fields
	// tolerated) and "\r\n", then N bytes of body (LSP 3.17 "Base
	// Protocol"; DAP "Base protocol").
	ContentLength Framing = "content-length"
)

// Framings lists every framing, the default first.
var Framings = []Framing{Lines, ContentLength}

// MaxHeader bounds a content-length header: its field lines and the empty
// line that ends it, in bytes. LSP and DAP headers are under 100 bytes;
// more than 8 KiB is a stream that is not framed.
const MaxHeader = 8 << 10

// Parse returns the framing named s ("" is [Lines]); an error names the
// framings there are.
func Parse(s string) (Framing, error) {
	switch f := Framing(s); f {
	case "", Lines:
		return Lines, nil
	case ContentLength:
		return f, nil
	}
	return "", fmt.Errorf("framing %q is not one of %q, %q", s, Lines, ContentLength)
}

// Or returns f, or [Lines] when f is "".
func (f Framing) Or() Framing {
	if f == "" {
		return Lines
	}
	return f
}

// Encode returns body framed by f: body and LF for [Lines] (body should
// hold no LF), a Content-Length header and body for [ContentLength]. The
// result is a new slice; body is not changed.
func Encode(f Framing, body []byte) []byte {
	if f == ContentLength {
		b := appendHeader(make([]byte, 0, len(headerText)+20+len(body)), len(body))
		return append(b, body...)
	}
	out := make([]byte, 0, len(body)+1)
	return append(append(out, body...), '\n')
}

// Header returns the content-length header of a body of n bytes:
// "Content-Length: n\r\n\r\n". It lets a caller write a large body in
// pieces after it.
func Header(n int) []byte {
	return appendHeader(make([]byte, 0, len(headerText)+20), n)
}

func appendHeader(b []byte, n int) []byte {
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, "\r\n\r\n"...)
}

// headerText is a header without its number (sizes Header's buffer).
const headerText = "Content-Length: \r\n\r\n"

// Finding codes of a broken framing (PROTOCOL_ERROR; docs/findings.md).
// Codes are public API.
const (
	// HeaderInvalid: a content-length header without a Content-Length
	// field, or with one that is not a decimal number of bytes (negative,
	// non-numeric, beyond 2^53, given twice with different values), a
	// header line without a colon or not ended by CR LF, or a header over
	// [MaxHeader] bytes.
	HeaderInvalid = "FRAME_HEADER_INVALID"
	// Unframed: bytes where a header must start: between messages, or a
	// bare JSON line written as if the framing were lines.
	Unframed = "FRAME_UNFRAMED"
	// Truncated: the stream ended inside a header, or before the
	// Content-Length bytes of a body.
	Truncated = "FRAME_TRUNCATED"
)

// Error is a break of the framing: Code ([HeaderInvalid], [Unframed],
// [Truncated]), what is wrong (Reason, a past-tense phrase for messages),
// and the bytes concerned (Bytes: at most [MaxShown] of them; Size: how
// many there were).
type Error struct {
	Code   string
	Reason string
	Bytes  []byte
	Size   int
}

// MaxShown bounds Error.Bytes: findings quote at most this many bytes.
const MaxShown = 200

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s: %q", e.Code, e.Reason, e.Bytes)
}

// newError keeps at most MaxShown bytes of b (copied).
func newError(code, reason string, b []byte, size int) *Error {
	return &Error{Code: code, Reason: reason, Bytes: append([]byte(nil), b[:min(len(b), MaxShown)]...), Size: size}
}
