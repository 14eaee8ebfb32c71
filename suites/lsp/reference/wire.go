package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Bounds of one message (bytes): the header part, and the body the reader
// accepts. Larger bodies are a framing error: the stream is not read on.
const (
	maxHeader = 8 << 10
	maxBody   = 64 << 20
)

// errHeader is a header part the reader cannot frame a body with (LSP 3.17
// "Base Protocol" / "Header Part"): no Content-Length, a value that is not
// a non-negative decimal, a field without ": ", a line not ended by
// "\r\n", or more than maxHeader bytes.
var errHeader = errors.New("invalid header part")

// reader reads LSP base-protocol messages: header fields "Name: value\r\n",
// an empty line "\r\n", then Content-Length bytes of body (LSP 3.17 "Base
// Protocol" / "Header Part" and "Content Part").
type reader struct{ r *bufio.Reader }

func newReader(r io.Reader) *reader { return &reader{r: bufio.NewReaderSize(r, 64<<10)} }

// next returns the next body. io.EOF when the stream ends between
// messages; io.ErrUnexpectedEOF when it ends inside one; errHeader (wrapped,
// with the offending text) for a header part that cannot be read.
func (r *reader) next() ([]byte, error) {
	length, seen, size := -1, false, 0
	for {
		line, err := r.r.ReadString('\n')
		size += len(line)
		if err != nil {
			if err == io.EOF && size == 0 {
				return nil, io.EOF
			}
			if err == io.EOF {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if size > maxHeader {
			return nil, fmt.Errorf("%w: header part over %d bytes", errHeader, maxHeader)
		}
		if !strings.HasSuffix(line, "\r\n") {
			return nil, fmt.Errorf("%w: header line %q does not end in CRLF", errHeader, line)
		}
		line = strings.TrimSuffix(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: header line %q has no colon", errHeader, line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 || seen {
				return nil, fmt.Errorf("%w: Content-Length %q", errHeader, value)
			}
			length, seen = n, true
		}
		// Content-Type and any other field are accepted and not used:
		// the body is UTF-8 JSON whatever it says ("Content Part").
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length", errHeader)
	}
	if length > maxBody {
		return nil, fmt.Errorf("%w: Content-Length %d over %d", errHeader, length, maxBody)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r.r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

// frame returns body with its header part: Content-Length only (the
// default Content-Type applies).
func frame(body []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(body))
	b.Write(body)
	return b.Bytes()
}
