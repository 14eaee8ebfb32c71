package main

import (
	"io"

	"github.com/conform-kit/conform/internal/frame"
)

// maxContent bounds the content part of one message the adapter reads
// (bytes): the suite's vectors stay far below it; it keeps a broken peer
// from making the adapter allocate without end.
const maxContent = 16 << 20

// newReader reads messages of the DAP base protocol (DAP overview, "Base
// protocol": header fields "Name: value\r\n", then "\r\n", then exactly
// Content-Length bytes of UTF-8 JSON) with the kit's reader,
// internal/frame; the adapter takes them with [frame.Reader.Body]: io.EOF
// between messages, io.ErrUnexpectedEOF inside one, a [*frame.Error] for a
// header it cannot read (Content-Type and other fields are skipped).
func newReader(r io.Reader) *frame.Reader { return frame.NewReader(r, maxContent) }

// encode frames a content part: the Content-Length header field, the empty
// line, the content (DAP overview, "Base protocol" / "Header Part").
func encode(content []byte) []byte { return frame.Encode(frame.ContentLength, content) }
