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

// Bounds of one message as read (bytes): the header part, and the content
// part a Content-Length may announce. The suite's vectors stay far below
// both; they keep a broken peer from making the adapter allocate without
// end.
const (
	maxHeader  = 8 << 10
	maxContent = 16 << 20
)

// errHeader is a header part the adapter cannot read: no Content-Length, a
// value that is not a non-negative decimal, a field without ": ", or a
// header over maxHeader bytes.
var errHeader = errors.New("invalid header part")

// readMessage reads one message of the DAP base protocol (DAP overview,
// "Base protocol": header fields "Name: value\r\n", then "\r\n", then
// exactly Content-Length bytes of UTF-8 JSON) and returns its content part.
// At the end of input before a header starts it returns io.EOF; inside a
// message, io.ErrUnexpectedEOF; a header it cannot read, an error wrapping
// errHeader. Fields other than Content-Length (Content-Type) are skipped.
func readMessage(r *bufio.Reader) ([]byte, error) {
	length, read := -1, 0
	for first := true; ; first = false {
		line, err := r.ReadSlice('\n')
		read += len(line)
		if read > maxHeader {
			return nil, fmt.Errorf("%w: over %d bytes", errHeader, maxHeader)
		}
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				return nil, fmt.Errorf("%w: a field over the read buffer", errHeader)
			}
			if errors.Is(err, io.EOF) && first && len(line) == 0 {
				return nil, io.EOF
			}
			return nil, io.ErrUnexpectedEOF
		}
		field := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
		if field == "" {
			break
		}
		name, value, ok := strings.Cut(field, ":")
		if !ok {
			return nil, fmt.Errorf("%w: field %q has no colon", errHeader, field)
		}
		if !token(name) {
			return nil, fmt.Errorf("%w: field name %q is not a name", errHeader, name)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: Content-Length %q", errHeader, value)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length", errHeader)
	}
	if length > maxContent {
		return nil, fmt.Errorf("%w: Content-Length %d over %d", errHeader, length, maxContent)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, io.ErrUnexpectedEOF
	}
	return body, nil
}

// encode frames a content part: the Content-Length header field, the empty
// line, the content (DAP overview, "Base protocol" / "Header Part").
func encode(content []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(content))
	b.Write(content)
	return b.Bytes()
}

// token reports whether a header field name is letters, digits and '-'
// only (a bare JSON line where a header should start is not).
func token(name string) bool {
	for _, c := range name {
		if !(c == '-' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return name != ""
}
