package main

import (
	"io"

	"github.com/conform-kit/conform/internal/frame"
)

// maxBody bounds the body of one message the server reads (bytes); a
// Content-Length over it ends the session like any header it cannot read.
const maxBody = 64 << 20

// newReader reads LSP base-protocol messages (LSP 3.17 "Base Protocol":
// header fields "Name: value\r\n", an empty line, then Content-Length
// bytes of body) with the kit's reader, internal/frame; the server takes
// them with [frame.Reader.Body], which ends at the first break.
func newReader(r io.Reader) *frame.Reader { return frame.NewReader(r, maxBody) }

// encode returns body with its header part: Content-Length only (the
// default Content-Type applies).
func encode(body []byte) []byte { return frame.Encode(frame.ContentLength, body) }
