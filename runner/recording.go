package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/envelope"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/schema"
)

// Recording defaults, for [RecordingOptions] fields left zero.
const (
	// DefaultRecordingMaxLine is the longest recording line read, in bytes
	// (16 MiB: the suite's largest frame is 2 MiB; pass-over frames such
	// as tool results can be larger than any control frame).
	DefaultRecordingMaxLine = 16 << 20
	// DefaultMaxPending is how many unanswered requests are tracked at once.
	DefaultMaxPending = 1 << 16
)

// FindingRecordingEmpty: a recording without a non-blank line proves
// nothing, so it is reported rather than passed.
const FindingRecordingEmpty = "RECORDING_EMPTY"

// RecordingOptions configures [ValidateRecording]. Zero values take the
// documented defaults.
type RecordingOptions struct {
	// MaxLine is the longest line read, in bytes (default
	// DefaultRecordingMaxLine); a longer line is FRAME_TOO_LARGE and skipped
	// without being held in memory.
	MaxLine int
	// Complete says the recording holds whole sessions: a reply whose
	// request is not pending and a request never answered are failures
	// (PROTOCOL_ERROR) rather than notes.
	Complete bool
	// Jobs is how many goroutines parse and validate (default GOMAXPROCS).
	Jobs int
	// MaxPending is the most unanswered requests tracked at once (default
	// DefaultMaxPending); beyond it the oldest is dropped, with a
	// REPLY_MISSING finding.
	MaxPending int
	// InFlight, if set, is told how many bytes of lines are between
	// reading and emitting (read, not yet reported), each time that
	// changes: at most about 2 x Jobs chunks of 256 KiB, or one line when a
	// line is longer (it is read on its own, into memory of its size when
	// the reader is a regular file, and not copied again). It is called
	// from the reading and the calling goroutine, one call at a time. A
	// caller uses it to let its memory bound follow the line in flight
	// (conform validate's soft memory limit), so that one large line is not
	// checked under a bound it cannot fit in (a collection after every few
	// MiB).
	InFlight func(bytes int64)
}

// LineFinding is one finding of a recording, at a 1-based line.
type LineFinding struct {
	Line int `json:"line"`
	// EOF marks a finding made at the end of the recording about an earlier
	// line (a request never answered).
	EOF bool `json:"eof,omitempty"`
	Finding
}

// RecordingStats counts what [ValidateRecording] read.
type RecordingStats struct {
	// Lines is the number of lines, Frames the number of non-blank ones.
	Lines, Frames int
	// Control counts the frames of the envelope's classes; Requests,
	// Replies and Cancels count them by kind.
	Control, Requests, Replies, Cancels int
	// Matched counts replies to a request pending in the recording;
	// BodiesChecked those also checked against the replyBody schema of
	// the request's method (success replies to a method the schema
	// lists).
	Matched, BodiesChecked int
	// Failed counts findings that fail the recording (Status not empty),
	// Notes the others.
	Failed, Notes int
}

// ValidateRecording reads a JSONL recording of a protocol session (both
// directions interleaved, one frame a line, as a harness or proxy writes
// it) from r and checks it the way [Run] checks what an IUT writes, through
// the version's envelope:
//
//   - each non-blank line must be one JSON object read strictly
//     (FRAME_NOT_JSON, FRAME_DUPLICATE_KEY, FRAME_NUMBER_INEXACT,
//     FRAME_NOT_OBJECT, FRAME_TOO_LARGE over opt.MaxLine bytes);
//   - frames a passOver rule matches are skipped; a frame of no class that
//     no tolerate rule allows is FRAME_TYPE_UNKNOWN;
//   - the other frames must validate against the version's schema
//     (FRAME_SCHEMA);
//   - every reply is matched to the oldest pending request with the same
//     correlation id (canonical JSON, so "1" and 1 differ) earlier in the
//     recording, which it removes; a success reply is validated against
//     the replyBody schema of that request's method (REPLY_BODY_SCHEMA),
//     as run does. A cancel marks the pending request cancelled: it may
//     still get its reply, and is not reported if it gets none.
//
// A recording of a suite framed by content-length is JSON lines of bodies
// too (what conform writes), or a capture of the framed stream itself
// (it starts with a header field): then each message is read as one line
// (its CR and LF bytes as spaces), "line N" means message N, and a break
// of the framing is FRAME_HEADER_INVALID, FRAME_UNFRAMED or
// FRAME_TRUNCATED at its message, as in a run.
//
// A recording may start or end mid-session, so by default a reply with no
// pending request (REPLY_UNSOLICITED: sent before the recording began, or a
// second reply) and a request not cancelled and never answered
// (REPLY_MISSING, reported at the end) are notes (Status ""), reported but
// not failures; with opt.Complete they are PROTOCOL_ERROR. A recording
// without a non-blank line is RECORDING_EMPTY (INVALID).
//
// Memory does not grow with the recording: lines are read in chunks, at
// most a few chunks per worker are in flight, and only pending requests are
// kept (at most opt.MaxPending; the oldest beyond that is dropped and
// reported as REPLY_MISSING). One large line costs about its size: it is
// read once, into memory of its size from a regular file (from a pipe,
// grown by doubling), and its tape folds what no check reads (see
// canon.Tape, and bench/README.md "2026-12-01, night: issue 25 item 3, one
// large frame"). Lines are parsed and validated on opt.Jobs
// goroutines; emit is called from the calling goroutine, in line order,
// with end-of-file findings last (ordered by line).
//
// Errors: VERSION_UNKNOWN, SCHEMA_INVALID, IO (reading r), INTERRUPTED (ctx
// done; findings up to then were emitted).
func ValidateRecording(ctx context.Context, s *Suite, n int, r io.Reader, opt RecordingOptions, emit func(LineFinding)) (RecordingStats, error) {
	c, err := newRecordingCheck(s, n, opt)
	if err != nil {
		return RecordingStats{}, err
	}
	r, fr := maybeFramed(s.Framing, r, c.opt.MaxLine)
	if fr == nil {
		return c.run(ctx, r, emit)
	}
	wrapped, rest := fr.interleave(emit)
	st, err := c.run(ctx, r, wrapped)
	st.Failed += rest()
	return st, err
}

// recordingCheck is the state of one ValidateRecording.
type recordingCheck struct {
	opt       RecordingOptions
	schemaLoc string
	root      *schema.Schema
	byMethod  *methodSchemas
	// methods maps each replyBody method name to itself, so pending
	// requests keep the schema's copy of a method, not the frame's.
	methods  map[string]string
	env      *envelope.Envelope
	passOver []envelope.Rule
	tolerate []envelope.Rule
	// locations are what a line's skeleton holds (see envelope.Locations).
	locations []envelope.Location
	// keyLocs are the locations a frame's class, outcome and method
	// depend on: all but the id pointers' own, each pointer once (see
	// memoLocations). A line whose values there are all strings or absent
	// is classified once per distinct set of values (skeleton.memo).
	keyLocs []envelope.Location
	pending *pendingSet
	tapes   sync.Pool // of *canon.Tape
	// results holds the results slices of emitted chunks for reuse (of
	// *[]lineResult): made for each chunk, they were a third of what
	// validate allocated (bench/README.md, issue 31 item 5).
	results sync.Pool
	// stats is counted by the emitting goroutine, mstats by the matcher.
	stats, mstats RecordingStats
	// readErr is the reader's error, set before its queues close.
	readErr error
	// inFlight counts the bytes between reading and emitting (flight).
	flightMu sync.Mutex
	inFlight int64
}

func newRecordingCheck(s *Suite, n int, opt RecordingOptions) (*recordingCheck, error) {
	if opt.MaxLine <= 0 {
		opt.MaxLine = DefaultRecordingMaxLine
	}
	if opt.Jobs <= 0 {
		opt.Jobs = runtime.GOMAXPROCS(0)
	}
	if opt.MaxPending <= 0 {
		opt.MaxPending = DefaultMaxPending
	}
	ver, err := s.Version(n)
	if err != nil {
		return nil, err
	}
	c := &recordingCheck{opt: opt, schemaLoc: ver.Schema, methods: map[string]string{},
		env: ver.Env(), passOver: ver.PassOverRules(), tolerate: ver.TolerateRules(), pending: newPendingSet(opt.MaxPending)}
	c.locations = c.env.Locations(c.passOver, c.tolerate)
	c.keyLocs = memoLocations(c.env, c.locations)
	c.tapes.New = func() any { return &canon.Tape{} }
	if c.root, c.byMethod, err = compileSchemas(s, ver); err != nil {
		return nil, err
	}
	c.byMethod.names(func(m string) { c.methods[m] = m })
	return c, nil
}

// Sizes of the pipeline: lines are read in chunks of chunkSize bytes
// (a longer line gets a chunk of its own: readLong), and at most window
// chunks' worth of bytes per worker are between the reader and emit. A
// window of 4 held 15-20 MiB live at 1M frames (the chunks' tapes and
// results); 1 is as fast here and holds a quarter (bench/README.md).
const (
	chunkSize = 256 << 10
	window    = 1
)

// chunk is a run of whole lines and what checking them found.
type chunk struct {
	first int    // line number of the first line
	data  []byte // whole lines; the last one may lack its LF at end of input
	// src is data as a string that shares its memory (parse): the tape's
	// strings are substrings of it. It and buf are given back to the
	// reader's pool only once the chunk is emitted, when nothing reads
	// them any more: what outlives the chunk (a method in the
	// classification memo or a pending request, a correlation key, a
	// message) is a copy (see recordingCheck.line).
	src string
	// text, in place of data, is a line longer than a chunk, read on its
	// own (readLong).
	text string
	// tooLarge, when > 0, is the size of the single line this chunk stands
	// for, which was over MaxLine and not kept.
	tooLarge int
	weight   int   // window units held
	size     int64 // bytes it stands for (InFlight)
	buf      *[]byte

	lines, frames int
	// results holds the lines that found something or take part in reply
	// matching, in line order.
	results []lineResult
	// eof holds end-of-input findings (the last chunk only).
	eof []LineFinding

	// tape holds the chunk's success replies until their bodies are
	// checked; its strings share one copy of the chunk's bytes.
	tape *canon.Tape

	parsed  chan struct{} // closed when results are complete
	checked chan struct{} // closed when reply bodies are checked
}

type frameKind uint8

const (
	kindNone frameKind = iota
	kindRequest
	kindReply
	kindCancel
)

// lineResult is one line's findings and its part in reply matching.
type lineResult struct {
	line     int
	findings []Finding
	kind     frameKind
	hasID    bool
	key      string // RFC 8785 text of the correlation id
	method   string // request: its method
	// A success reply, kept until its body is checked: on the chunk's tape
	// at root, or (a line the tape does not read) as frame.
	tape  *canon.Tape
	root  int
	frame any
	// body is the replyBody schema to check frame against, set by the
	// matcher, with the request it answers.
	body      *schema.Schema
	reqMethod string
	reqLine   int
}

func (c *recordingCheck) run(ctx context.Context, r io.Reader, emit func(LineFinding)) (RecordingStats, error) {
	jobs := c.opt.Jobs
	capacity := window * jobs
	win := newWeighted(capacity)
	parseQ := make(chan *chunk, capacity)
	bodyQ := make(chan *chunk, capacity)
	matchQ := make(chan *chunk, capacity)
	emitQ := make(chan *chunk, capacity+1)
	bufs := &sync.Pool{New: func() any { b := make([]byte, 0, chunkSize); return &b }}

	go func() {
		defer close(parseQ)
		defer close(matchQ)
		// Written before the queues close, so the matcher and this
		// function see it once they have seen the close.
		c.readErr = c.read(ctx, r, bufs, win, capacity, func(ch *chunk) {
			parseQ <- ch
			matchQ <- ch
		})
	}()
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.work(parseQ, bodyQ)
		}()
	}
	go func() {
		defer close(emitQ)
		defer close(bodyQ)
		c.match(matchQ, bodyQ, emitQ)
	}()
	for ch := range emitQ {
		<-ch.checked
		c.emit(ch, emit)
		if ch.buf != nil {
			bufs.Put(ch.buf)
		}
		ch.data, ch.src, ch.buf = nil, "", nil
		c.flight(-ch.size)
		win.release(ch.weight)
	}
	wg.Wait()
	m := c.mstats
	c.stats.Control, c.stats.Requests, c.stats.Replies, c.stats.Cancels = m.Control, m.Requests, m.Replies, m.Cancels
	c.stats.Matched, c.stats.BodiesChecked = m.Matched, m.BodiesChecked
	if c.readErr != nil {
		return c.stats, c.readErr
	}
	if c.stats.Frames == 0 {
		c.count(Finding{Code: FindingRecordingEmpty, Status: Invalid, Message: "no frames: the recording is empty or blank"})
		emit(LineFinding{Line: max(c.stats.Lines, 1), Finding: Finding{Code: FindingRecordingEmpty, Status: Invalid,
			Message: "no frames: the recording is empty or blank"}})
	}
	return c.stats, nil
}

// flight adds d to the bytes in flight and tells opt.InFlight.
func (c *recordingCheck) flight(d int64) {
	if c.opt.InFlight == nil || d == 0 {
		return
	}
	c.flightMu.Lock()
	defer c.flightMu.Unlock()
	c.inFlight += d
	c.opt.InFlight(c.inFlight)
}

func (c *recordingCheck) count(f Finding) {
	if f.Status == "" {
		c.stats.Notes++
	} else {
		c.stats.Failed++
	}
}

func (c *recordingCheck) emit(ch *chunk, emit func(LineFinding)) {
	c.stats.Lines += ch.lines
	c.stats.Frames += ch.frames
	for i := range ch.results {
		res := &ch.results[i]
		for _, f := range res.findings {
			c.count(f)
			emit(LineFinding{Line: res.line, Finding: f})
		}
	}
	for _, f := range ch.eof {
		c.count(f.Finding)
		emit(f)
	}
	if ch.results != nil {
		clear(ch.results) // drop findings, frames and tapes
		rs := ch.results[:0]
		c.results.Put(&rs)
		ch.results = nil
	}
	if ch.tape != nil {
		ch.tape.Reset()
		c.tapes.Put(ch.tape)
		ch.tape = nil
	}
}

// read splits r into chunks of whole lines and hands each to send, in
// order, after taking its weight from win.
func (c *recordingCheck) read(ctx context.Context, r io.Reader, bufs *sync.Pool, win *weighted, capacity int, send func(*chunk)) error {
	line := 1
	newChunk := func(data []byte, buf *[]byte, text string, tooLarge int) {
		size := len(data) + len(text)
		w := min(max(1, (size+chunkSize-1)/chunkSize), capacity)
		win.acquire(w)
		ch := &chunk{first: line, data: data, buf: buf, text: text, tooLarge: tooLarge, weight: w, size: int64(size),
			parsed: make(chan struct{}), checked: make(chan struct{})}
		c.flight(ch.size)
		if tooLarge > 0 || text != "" {
			line++
		} else {
			line += bytes.Count(data, []byte{'\n'})
			if len(data) > 0 && data[len(data)-1] != '\n' {
				line++
			}
		}
		send(ch)
	}
	var carry []byte // the start of a line the last chunk did not end
	eof := false
	for !eof || len(carry) > 0 {
		if err := ctx.Err(); err != nil {
			return kiterr.Wrap(kiterr.Interrupted, err, "validate recording")
		}
		bp := bufs.Get().(*[]byte)
		buf := append((*bp)[:0], carry...)
		carry = nil
		for len(buf) < cap(buf) && !eof {
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if errors.Is(err, io.EOF) {
				eof = true
			} else if err != nil {
				return kiterr.Wrap(kiterr.IO, err, "read recording")
			}
		}
		if len(buf) == 0 {
			bufs.Put(bp)
			break
		}
		if !eof && len(buf) <= c.opt.MaxLine && bytes.IndexByte(buf, '\n') < 0 {
			// No line ends in the buffer: the line is read on its own.
			text, size, rest, err := c.readLong(r, buf, &eof)
			bufs.Put(bp)
			if err != nil {
				return err
			}
			newChunk(nil, nil, text, size)
			carry = rest
			continue
		}
		if firstLineLen(buf) > c.opt.MaxLine {
			// Measure the line without keeping it; what follows it is
			// read as usual.
			size, rest, err := skipLine(r, buf, &eof)
			if err != nil {
				return err
			}
			bufs.Put(bp)
			newChunk(nil, nil, "", size)
			carry = rest
			continue
		}
		end := len(buf)
		if !eof {
			end = bytes.LastIndexByte(buf, '\n') + 1
		}
		if end < len(buf) {
			carry = bytes.Clone(buf[end:])
		}
		*bp = buf
		newChunk(buf[:end], bp, "", 0)
	}
	return nil
}

// readLong reads the rest of a line longer than a chunk, of which buf (a
// full chunk without LF) is the start, and returns it with its LF (none at
// the end of input) as text, or when it is over MaxLine its size without
// LF as tooLarge (it is not kept); rest is what the last read got after
// the line. The line is kept in memory of its size, and once: the string
// shares the bytes read. A reader that can tell the line's size (lineSize:
// a regular file) is read into memory of that size; any other (a pipe) is
// read in blocks of a chunk, copied into memory of the line's size at its
// end (readBlocks). Grown by doubling, a line held up to twice its size,
// and the string made of it a copy: 3x a large frame before it was parsed.
func (c *recordingCheck) readLong(r io.Reader, buf []byte, eof *bool) (text string, tooLarge int, rest []byte, err error) {
	size, known := lineSize(r, len(buf), c.opt.MaxLine)
	if !known {
		return c.readBlocks(r, buf, eof)
	}
	var b strings.Builder
	b.Grow(size)
	b.Write(buf)
	tmp := buf[:cap(buf)] // read into the chunk buffer, now in b
	for !*eof {
		part, lf, tooLarge, rest, err := c.readPart(r, tmp, b.Len(), eof)
		if err != nil || tooLarge > 0 {
			return "", tooLarge, rest, err
		}
		if lf >= 0 {
			grow(&b, lf+1, c.opt.MaxLine+1)
			b.Write(part[:lf+1])
			return b.String(), 0, bytes.Clone(part[lf+1:]), nil
		}
		grow(&b, len(part), c.opt.MaxLine+1)
		b.Write(part)
	}
	return b.String(), 0, nil, nil
}

// readBlocks is readLong for a reader that cannot tell the line's size:
// the line is read in blocks of cap(buf) bytes (the first is buf, the
// others mapped outside the Go heap: newLineBlock), then copied once into
// memory of its size, each block given back as soon as it is copied, so
// that about the line's size is held while it is read and copied (in Go
// memory, blocks and copy were both resident until a collection: twice
// the line, for a large frame more than the parse itself needed).
func (c *recordingCheck) readBlocks(r io.Reader, buf []byte, eof *bool) (text string, tooLarge int, rest []byte, err error) {
	type block struct {
		b      []byte
		mapped bool
	}
	blocks := []block{{b: buf}} // buf is the caller's: never freed here
	defer func() {
		for _, bl := range blocks {
			freeLineBlock(bl.b, bl.mapped)
		}
	}()
	size := max(cap(buf), chunkSize)
	total := len(buf) // the bytes of the line in blocks
	line := func() string {
		var b strings.Builder
		b.Grow(total)
		for i, bl := range blocks {
			b.Write(bl.b)
			freeLineBlock(bl.b, bl.mapped)
			blocks[i] = block{}
		}
		return b.String()
	}
	for !*eof {
		last := &blocks[len(blocks)-1]
		if len(last.b) == cap(last.b) {
			b, mapped := newLineBlock(size)
			blocks = append(blocks, block{b, mapped})
			last = &blocks[len(blocks)-1]
		}
		cur := last.b
		part, lf, tooLarge, rest, err := c.readPart(r, cur[len(cur):cap(cur)], total, eof)
		if err != nil || tooLarge > 0 {
			return "", tooLarge, rest, err
		}
		if lf >= 0 {
			rest = bytes.Clone(part[lf+1:])
			last.b = cur[:len(cur)+lf+1]
			total += lf + 1
			return line(), 0, rest, nil
		}
		last.b = cur[:len(cur)+len(part)]
		total += len(part)
	}
	return line(), 0, nil, nil
}

// readPart is one read of a long line's loop (readLong, readBlocks): it
// reads into into, of which it returns the part read and the offset of
// its LF (-1 if none), have being the bytes of the line before it. A line
// over MaxLine is not kept: tooLarge is then its size without LF (the rest
// of it skipped, skipLine) and rest what the reads got after it.
func (c *recordingCheck) readPart(r io.Reader, into []byte, have int, eof *bool) (part []byte, lf, tooLarge int, rest []byte, err error) {
	n, err := r.Read(into)
	if errors.Is(err, io.EOF) {
		*eof = true
	} else if err != nil {
		return nil, -1, 0, nil, kiterr.Wrap(kiterr.IO, err, "read recording")
	}
	part = into[:n]
	lf = bytes.IndexByte(part, '\n')
	switch {
	case lf >= 0 && have+lf > c.opt.MaxLine:
		return nil, -1, have + lf, bytes.Clone(part[lf+1:]), nil
	case lf < 0 && have+n > c.opt.MaxLine:
		size, rest, err := skipLine(r, part, eof)
		return nil, -1, have + size, rest, err
	}
	return part, lf, 0, nil, nil
}

// grow makes room for n more bytes in b: twice its capacity, or what it
// needs, up to limit unless it needs more. A Builder's own growth would
// take 2 x its capacity + n, and append's a quarter at a time.
func grow(b *strings.Builder, n, limit int) {
	if b.Cap()-b.Len() >= n {
		return
	}
	held, c := b.String(), b.Cap()
	b.Reset()
	b.Grow(max(len(held)+n, min(2*c, limit)))
	b.WriteString(held)
}

// lineSize is the memory to reserve for a line of which have bytes are
// read: when r is a file that can be read at an offset (a regular file;
// not a pipe), the line's length with its LF, found by reading ahead
// with ReadAt without moving r, or (when the line is over maxLine, and
// will not be kept) twice have. known is false, and size 0, when r cannot
// be read at an offset.
func lineSize(r io.Reader, have, maxLine int) (size int, known bool) {
	guess := min(2*have, maxLine+1)
	ra, ok := r.(interface {
		io.ReaderAt
		io.Seeker
	})
	if !ok {
		return 0, false
	}
	pos, err := ra.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, false
	}
	limit := maxLine + 1 - have
	tmp := make([]byte, 64<<10)
	for n := 0; n < limit; {
		k, err := ra.ReadAt(tmp[:min(len(tmp), limit-n)], pos+int64(n))
		if lf := bytes.IndexByte(tmp[:k], '\n'); lf >= 0 {
			return have + n + lf + 1, true
		}
		n += k
		if errors.Is(err, io.EOF) {
			return have + n, true // the line ends the input
		}
		if err != nil || k == 0 {
			return 0, false
		}
	}
	return guess, true
}

// firstLineLen is the length of buf's first line without its LF.
func firstLineLen(buf []byte) int {
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		return i
	}
	return len(buf)
}

// skipLine reads on from buf (which starts with an over-long line) to the
// end of that line and returns its size (without LF) and what follows it.
func skipLine(r io.Reader, buf []byte, eof *bool) (int, []byte, error) {
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		return i, bytes.Clone(buf[i+1:]), nil
	}
	size := len(buf)
	tmp := make([]byte, chunkSize)
	for !*eof {
		n, err := r.Read(tmp)
		if errors.Is(err, io.EOF) {
			*eof = true
		} else if err != nil {
			return 0, nil, kiterr.Wrap(kiterr.IO, err, "read recording")
		}
		if i := bytes.IndexByte(tmp[:n], '\n'); i >= 0 {
			return size + i, bytes.Clone(tmp[i+1 : n]), nil
		}
		size += n
	}
	return size, nil, nil
}

// work parses chunks and checks reply bodies until both queues are closed;
// body checks go first, since emit waits on them.
func (c *recordingCheck) work(parseQ, bodyQ <-chan *chunk) {
	sk := newSkeleton(c.locations)
	for parseQ != nil || bodyQ != nil {
		select {
		case ch, ok := <-bodyQ:
			if !ok {
				bodyQ = nil
				continue
			}
			c.checkBodies(ch)
			continue
		default:
		}
		select {
		case ch, ok := <-bodyQ:
			if !ok {
				bodyQ = nil
				continue
			}
			c.checkBodies(ch)
		case ch, ok := <-parseQ:
			if !ok {
				parseQ = nil
				continue
			}
			c.parse(ch, sk)
			close(ch.parsed)
		}
	}
}

// parse checks each line of ch on its own (everything but matching).
func (c *recordingCheck) parse(ch *chunk, sk *skeleton) {
	if ch.tooLarge > 0 {
		ch.lines, ch.frames = 1, 1
		ch.results = []lineResult{{line: ch.first, findings: []Finding{c.tooLarge(ch.tooLarge)}}}
		return
	}
	// One string for the chunk: the tape's strings are substrings of it
	// (a line read on its own is one already). It shares the chunk
	// buffer's memory, which is not reused before the chunk is emitted
	// (see chunk.src); a copy was the largest allocation of validate.
	src := ch.text
	if ch.data != nil {
		ch.src = unsafe.String(unsafe.SliceData(ch.data), len(ch.data))
		src = ch.src
	}
	ch.tape = c.tapes.Get().(*canon.Tape)
	// At most one result a line: sized once, not grown.
	ch.results = c.resultsFor(strings.Count(src, "\n") + 1)
	num, off := ch.first, 0
	for off < len(src) {
		end := strings.IndexByte(src[off:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += off
		}
		var ln []byte // the line's bytes; nil for a text chunk (line makes them if needed)
		if ch.data != nil {
			ln = ch.data[off:end]
		}
		ch.lines++
		if end-off > c.opt.MaxLine {
			ch.frames++
			ch.results = append(ch.results, lineResult{line: num, findings: []Finding{c.tooLarge(end - off)}})
		} else if !isBlank(src[off:end]) {
			ch.frames++
			if res, ok := c.line(ch.tape, sk, src[off:end], ln, num); ok {
				ch.results = append(ch.results, res)
			}
		}
		num++
		off = end + 1
	}
}

// resultsFor returns an empty results slice for n lines, reused from an
// emitted chunk when one is large enough.
func (c *recordingCheck) resultsFor(n int) []lineResult {
	if p, _ := c.results.Get().(*[]lineResult); p != nil && cap(*p) >= n {
		return (*p)[:0]
	}
	return make([]lineResult, 0, n)
}

func (c *recordingCheck) tooLarge(size int) Finding {
	return Finding{Code: FindingFrameTooLarge, Status: ProtocolError,
		Message: fmt.Sprintf("a line of %d bytes exceeds the %d-byte limit", size, c.opt.MaxLine)}
}

// line checks one non-blank line, read onto tp; ok is false when there is
// nothing to report or match. A success reply's nodes stay on tp for its
// body check; everything else is taken off again.
func (c *recordingCheck) line(tp *canon.Tape, sk *skeleton, src string, ln []byte, num int) (res lineResult, ok bool) {
	res.line = num
	mark := len(tp.Nodes)
	root, read := tp.Append(src)
	if !read {
		return c.lineAny(lineBytes(ln, src), res)
	}
	keep := false
	defer func() {
		if !keep {
			tp.Nodes = tp.Nodes[:mark]
		}
	}()
	if tp.Nodes[root].Kind != canon.Object {
		res.findings = append(res.findings, Finding{Code: FindingFrameNotObject, Status: ProtocolError, Message: "line is not a JSON object: " + quote(lineBytes(ln, src))})
		return res, true
	}
	key, memoOK := c.memoKey(tp, root, sk)
	m, hit := sk.memo[string(key)]
	if !memoOK || !hit {
		m = c.classifyTape(tp, root, sk)
		if memoOK && len(sk.memo) < memoEntries {
			m.method = strings.Clone(m.method) // not the chunk's memory (chunk.src)
			sk.memo[string(key)] = m
		}
	}
	switch {
	case m.passed:
		return res, false
	case m.unknown != nil:
		res.findings = append(res.findings, *m.unknown)
		return res, true
	}
	if !c.root.ValidTape(tp, root) {
		res.findings = c.frameSchema(res.findings, tp.Value(root))
	}
	if m.cls == nil {
		return res, true // tolerated
	}
	res.kind, res.method = m.kind, m.method
	if m.idTokens != nil {
		if at := tapeAt(tp, root, m.idTokens); at >= 0 {
			res.hasID, res.key = true, tapeKey(tp, at)
		}
	}
	if m.success {
		keep = true
		res.tape, res.root = tp, root
	}
	return res, true
}

// tapeKey is envelope.Key of the value at node at of tp; a string (the
// usual id) is not built as a value first.
func tapeKey(tp *canon.Tape, at int) string {
	if n := &tp.Nodes[at]; n.Kind == canon.String {
		return envelope.StringKey(n.Str)
	}
	return envelope.Key(tp.Value(at))
}

// memoEntries bounds a worker's classification memo (skeleton.memo): a
// recording of frames that differ at every discriminating location
// classifies the lines past it the long way.
const memoEntries = 1024

// frameClass is what a line's class decides, worked out once per distinct
// set of values at the key locations (see memoLocations): whether the
// frame is passed over, its class (nil: tolerated, or of no class with
// the finding unknown), and the kind, method and success that meta gives;
// the id is read from each line at idTokens.
type frameClass struct {
	passed   bool
	unknown  *Finding
	cls      *envelope.Class
	kind     frameKind
	method   string
	success  bool
	idTokens []string
}

// classifyTape classifies the line at root of tp the long way: its
// skeleton built from every location, then classify and meta on it.
func (c *recordingCheck) classifyTape(tp *canon.Tape, root int, sk *skeleton) frameClass {
	sk.reset()
	skel := sk.root
	for li, l := range c.locations {
		if at := tapeAt(tp, root, l.Tokens); at >= 0 {
			if l.Value {
				sk.set(li, l.Tokens, tp.Value(at))
			} else {
				sk.set(li, l.Tokens, envelope.Opaque{})
			}
		}
	}
	var res lineResult
	cls, ok := c.classify(skel, &res)
	if !ok {
		if len(res.findings) > 0 {
			return frameClass{unknown: &res.findings[0]}
		}
		return frameClass{passed: true}
	}
	if cls == nil {
		return frameClass{}
	}
	m := frameClass{cls: cls, success: c.meta(cls, skel, &res), kind: res.kind, method: res.method}
	if res.kind != 0 && cls.IDPointer() != nil {
		m.idTokens = cls.IDPointer()
	}
	return m
}

// memoKey returns the line's values at c.keyLocs as one key (in
// sk.keyBuf), and false when one of them is neither a string nor absent
// (such a line is classified the long way, and not remembered).
func (c *recordingCheck) memoKey(tp *canon.Tape, root int, sk *skeleton) ([]byte, bool) {
	if c.keyLocs == nil {
		return nil, false
	}
	b := sk.keyBuf[:0]
	for _, l := range c.keyLocs {
		at := tapeAt(tp, root, l.Tokens)
		switch {
		case at < 0:
			b = append(b, 0)
		case !l.Value:
			b = append(b, 1)
		case tp.Nodes[at].Kind == canon.String:
			str := tp.Nodes[at].Str
			b = append(b, 2, byte(len(str)>>24), byte(len(str)>>16), byte(len(str)>>8), byte(len(str)))
			b = append(b, str...)
		default:
			sk.keyBuf = b
			return nil, false
		}
	}
	sk.keyBuf = b
	return b, true
}

// memoLocations returns the locations of locs that a frame's class,
// outcome and method may depend on: every location but those that are only
// a class's id pointer (each class adds its id pointer to the envelope's
// locations once; a pointer that appears more often than the classes that
// have it as their id is also read by a predicate, a method or a key, and
// is kept). Each pointer is returned once, in the order of its first
// location, its value read when any of its locations reads it (the
// envelope lists "type" once per class: reading it for each was half of
// memoKey's walks). Nil when there is no envelope.
func memoLocations(env *envelope.Envelope, locs []envelope.Location) []envelope.Location {
	if env == nil {
		return nil
	}
	path := func(t []string) string {
		var b strings.Builder
		for _, x := range t {
			fmt.Fprintf(&b, "%d:%s", len(x), x)
		}
		return b.String()
	}
	ids := map[string]int{}
	for _, cls := range env.Classes() {
		if t := cls.IDPointer(); t != nil {
			ids[path(t)]++
		}
	}
	seen := map[string]int{}
	for _, l := range locs {
		seen[path(l.Tokens)]++
	}
	out := []envelope.Location{}
	at := map[string]int{} // a pointer's index in out
	for _, l := range locs {
		p := path(l.Tokens)
		if n := ids[p]; n > 0 && seen[p] == n {
			continue
		}
		if k, dup := at[p]; dup {
			out[k].Value = out[k].Value || l.Value
			continue
		}
		at[p] = len(out)
		out = append(out, l)
	}
	return out
}

// lineBytes is ln, or for a line read on its own (no ln) a copy of src,
// made only to report a fault.
func lineBytes(ln []byte, src string) []byte {
	if ln != nil {
		return ln
	}
	return []byte(src)
}

// classify returns the frame's class, or ok false for a frame passed over
// or of no class (with its FRAME_TYPE_UNKNOWN finding in res); a tolerated
// frame of no class is a nil class with ok true.
func (c *recordingCheck) classify(frame any, res *lineResult) (*envelope.Class, bool) {
	if envelope.First(c.passOver, frame) >= 0 {
		return nil, false
	}
	cls := c.env.Classify(frame)
	if cls == nil {
		if envelope.First(c.tolerate, frame) >= 0 {
			return nil, true
		}
		res.findings = append(res.findings, Finding{Code: FindingFrameTypeUnknown, Status: ProtocolError,
			Message: fmt.Sprintf("the frame matches no frame class of the suite's envelope (%s) and no passOver or tolerate rule", clip(classNames(c.env)))})
		return nil, false
	}
	return cls, true
}

// meta fills res's kind, id and method from the frame's class, and
// reports whether the frame is a success reply (whose body the matcher
// may check).
func (c *recordingCheck) meta(cls *envelope.Class, frame any, res *lineResult) (success bool) {
	switch cls.Kind {
	case envelope.Request:
		res.kind = kindRequest
		res.method = cls.Method(frame)
	case envelope.Reply:
		res.kind = kindReply
		success = cls.Outcome(frame) == envelope.Success
	case envelope.Cancel:
		res.kind = kindCancel
	default:
		return false
	}
	if id, ok := cls.ID(frame); ok {
		res.hasID, res.key = true, envelope.Key(id)
	}
	return success
}

// tapeAt returns the node at the pointer tokens below node i of t, or -1.
// skeleton holds a line's skeleton (see line): the maps of the objects on
// the way to each location are made once per worker and cleared for each
// line, where making them for each line was a third of what validate
// allocated (bench/README.md). Nothing keeps a skeleton past its line: what
// a result keeps of it are strings.
type skeleton struct {
	root map[string]any
	// memo is the worker's classification memo, keyed by the line's
	// values at the key locations (recordingCheck.memoKey, built in
	// keyBuf).
	memo   map[string]frameClass
	keyBuf []byte
	// chain holds, per location, the map of each of its prefixes
	// (tokens[:1] ... tokens[:len-1]); all holds every such map once.
	chain [][]map[string]any
	all   []map[string]any
}

func newSkeleton(locs []envelope.Location) *skeleton {
	k := &skeleton{root: map[string]any{}, memo: map[string]frameClass{}}
	byPrefix := map[string]map[string]any{}
	for _, l := range locs {
		var ch []map[string]any
		for i := 1; i < len(l.Tokens); i++ {
			var key strings.Builder
			for _, t := range l.Tokens[:i] {
				fmt.Fprintf(&key, "%d:%s", len(t), t)
			}
			m := byPrefix[key.String()]
			if m == nil {
				m = map[string]any{}
				byPrefix[key.String()] = m
				k.all = append(k.all, m)
			}
			ch = append(ch, m)
		}
		k.chain = append(k.chain, ch)
	}
	return k
}

// reset empties the skeleton for the next line.
func (k *skeleton) reset() {
	clear(k.root)
	for _, m := range k.all {
		clear(m)
	}
}

// set is envelope.SetAt for location li (with tokens), taking the objects
// on the way from the skeleton's maps.
func (k *skeleton) set(li int, tokens []string, v any) {
	cur := k.root
	for i, t := range tokens {
		if i == len(tokens)-1 {
			if _, set := cur[t]; !set || v != (envelope.Opaque{}) {
				cur[t] = v // Opaque never hides what was read
			}
			return
		}
		next, ok := cur[t]
		if _, opaque := next.(envelope.Opaque); !ok || opaque {
			m := k.chain[li][i]
			cur[t] = m
			cur = m
			continue
		}
		m, isObj := next.(map[string]any)
		if !isObj {
			return
		}
		cur = m
	}
}

func tapeAt(t *canon.Tape, i int, tokens []string) int {
	for _, tok := range tokens {
		n := &t.Nodes[i]
		switch n.Kind {
		case canon.Object:
			if i = t.Member(i, tok); i < 0 {
				return -1
			}
		case canon.Array:
			k, ok := arrayIndex(tok)
			if !ok || k >= int(n.Len) {
				return -1
			}
			i = t.First(i)
			for range k {
				i = int(t.Nodes[i].Next)
			}
		default:
			return -1
		}
	}
	return i
}

// arrayIndex reads an RFC 6901 array index (decimal, no leading zero).
func arrayIndex(t string) (int, bool) {
	if t == "" || len(t) > 9 || (len(t) > 1 && t[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return 0, false
		}
		n = n*10 + int(t[i]-'0')
	}
	return n, true
}

func (c *recordingCheck) frameSchema(fs []Finding, v any) []Finding {
	for _, vi := range c.root.Validate(v) {
		fs = append(fs, Finding{Code: FindingFrameSchema, Status: SchemaViolation,
			Message: clip(fmt.Sprintf("%s: %s", c.schemaLoc, vi))})
	}
	return fs
}

// lineAny checks a line the tape did not read: Parse gives the error, or
// (an object too large for the tape) the value to check.
func (c *recordingCheck) lineAny(ln []byte, res lineResult) (lineResult, bool) {
	v, err := canon.Parse(ln)
	if err != nil {
		res.findings = append(res.findings, Finding{Code: frameErrorCode(err), Status: ProtocolError, Message: messageOf(err)})
		return res, true
	}
	obj, isObj := v.(map[string]any)
	if !isObj {
		res.findings = append(res.findings, Finding{Code: FindingFrameNotObject, Status: ProtocolError, Message: "line is not a JSON object: " + quote(ln)})
		return res, true
	}
	cls, ok := c.classify(obj, &res)
	if !ok {
		return res, len(res.findings) > 0
	}
	res.findings = c.frameSchema(res.findings, v)
	if cls != nil && c.meta(cls, obj, &res) {
		res.frame = v
	}
	return res, true
}

func isBlank(b string) bool {
	for _, c := range []byte(b) {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// match pairs replies with pending requests, in line order, and queues the
// chunks whose reply bodies need a check. It counts into c.mstats.
func (c *recordingCheck) match(matchQ <-chan *chunk, bodyQ, emitQ chan<- *chunk) {
	st := &c.mstats
	for ch := range matchQ {
		<-ch.parsed
		needBodies := false
		for i := range ch.results {
			res := &ch.results[i]
			if res.kind == kindNone {
				continue
			}
			st.Control++
			switch res.kind {
			case kindRequest:
				st.Requests++
				if res.hasID {
					m, known := c.methods[res.method]
					if !known {
						m = strings.Clone(res.method) // not the frame's memory
					}
					if dropped := c.pending.add(res.key, m, res.line); dropped != nil {
						res.findings = append(res.findings, c.missing(dropped, fmt.Sprintf("was dropped from reply matching: more than %d requests were pending", c.opt.MaxPending)))
						c.pending.recycle(dropped)
					}
				}
			case kindCancel:
				st.Cancels++
				if res.hasID {
					c.pending.cancel(res.key)
				}
			case kindReply:
				st.Replies++
				if !res.hasID {
					res.frame, res.tape = nil, nil
					break // FRAME_SCHEMA says it
				}
				req := c.pending.take(res.key)
				if req == nil {
					res.findings = append(res.findings, Finding{Code: FindingReplyUnsolicited, Status: c.windowStatus(),
						Message: clip(fmt.Sprintf("reply to id %s, which no earlier line of the recording left pending (sent before the recording began, or answered already); its body was not checked against the method's reply schema", res.key))})
					res.frame, res.tape = nil, nil
					break
				}
				st.Matched++
				method, line := req.method, req.line
				c.pending.recycle(req)
				if res.frame != nil || res.tape != nil {
					sch, err := c.byMethod.get(method)
					if err != nil {
						// Not reached for a suite that loaded (see
						// methodSchemas); never a silent pass.
						res.findings = append(res.findings, Finding{Code: FindingReplyBodySchema, Status: SchemaViolation,
							Message: clip(fmt.Sprintf("reply to %s: its reply schema does not compile: %v", method, err))})
					}
					if sch != nil {
						res.body, res.reqMethod, res.reqLine = sch, method, line
						needBodies = true
						st.BodiesChecked++
					} else {
						res.frame, res.tape = nil, nil
					}
				}
			}
		}
		emitQ <- ch
		if needBodies {
			bodyQ <- ch
		} else {
			close(ch.checked)
		}
	}
	// End of input: requests never answered, in a chunk of their own;
	// nothing when reading stopped early (the rest was never read).
	if c.readErr != nil {
		return
	}
	if rest := c.pending.rest(); len(rest) > 0 {
		end := &chunk{checked: make(chan struct{})}
		close(end.checked)
		for _, p := range rest {
			end.eof = append(end.eof, LineFinding{Line: p.line, EOF: true, Finding: c.missing(p, "was never answered before the end of the recording")})
		}
		emitQ <- end
	}
}

// windowStatus is the status of what a recording that starts or ends
// mid-session shows: a note, or a failure with Complete.
func (c *recordingCheck) windowStatus() Status {
	if c.opt.Complete {
		return ProtocolError
	}
	return ""
}

func (c *recordingCheck) missing(p *pendingReq, why string) Finding {
	m := p.method
	if m == "" {
		m = "request without a method"
	}
	return Finding{Code: FindingReplyMissing, Status: c.windowStatus(),
		Message: clip(fmt.Sprintf("id %s (%s, line %d) %s", p.key, m, p.line, why))}
}

// checkBodies validates the matched success replies of ch against the
// replyBody schema of the method of the request each answers.
func (c *recordingCheck) checkBodies(ch *chunk) {
	for i := range ch.results {
		res := &ch.results[i]
		if res.body == nil {
			continue
		}
		frame := res.frame
		if frame == nil {
			if res.body.ValidTape(res.tape, res.root) {
				res.tape, res.body = nil, nil
				continue
			}
			frame = res.tape.Value(res.root)
		}
		for _, vi := range res.body.Validate(frame) {
			res.findings = append(res.findings, Finding{Code: FindingReplyBodySchema, Status: SchemaViolation,
				Message: clip(fmt.Sprintf("reply to %s (line %d): %s", res.reqMethod, res.reqLine, vi))})
		}
		res.frame, res.tape, res.body = nil, nil, nil
	}
	close(ch.checked)
}

// pendingReq is a request waiting for its reply.
type pendingReq struct {
	key        string
	method     string
	line       int
	cancelled  bool
	prev, next *pendingReq // in line order, over all keys
	same       *pendingReq // the next pending request with the same key
}

// pendingSet holds pending requests by key (oldest first per key) and in
// line order, bounded by max.
type pendingSet struct {
	max        int
	n          int
	byKey      map[string]*pendingReq
	head, tail *pendingReq
	// free holds requests taken or dropped whose caller is done with
	// them (recycle), linked through next, for add to reuse.
	free *pendingReq
}

func newPendingSet(max int) *pendingSet {
	return &pendingSet{max: max, byKey: map[string]*pendingReq{}}
}

// add records a request; when that makes more than max pending, the oldest
// is removed and returned.
func (ps *pendingSet) add(key, method string, line int) *pendingReq {
	p := ps.free
	if p != nil {
		ps.free = p.next
		*p = pendingReq{key: key, method: method, line: line, prev: ps.tail}
	} else {
		p = &pendingReq{key: key, method: method, line: line, prev: ps.tail}
	}
	if ps.tail != nil {
		ps.tail.next = p
	} else {
		ps.head = p
	}
	ps.tail = p
	if first := ps.byKey[key]; first == nil {
		ps.byKey[key] = p
	} else {
		for first.same != nil {
			first = first.same
		}
		first.same = p
	}
	ps.n++
	if ps.n > ps.max {
		old := ps.head
		ps.remove(old)
		return old
	}
	return nil
}

// take removes and returns the oldest pending request with key, or nil.
func (ps *pendingSet) take(key string) *pendingReq {
	p := ps.byKey[key]
	if p == nil {
		return nil
	}
	ps.remove(p)
	return p
}

// cancel marks the oldest pending, not yet cancelled request with key.
func (ps *pendingSet) cancel(key string) {
	for p := ps.byKey[key]; p != nil; p = p.same {
		if !p.cancelled {
			p.cancelled = true
			return
		}
	}
}

// remove unlinks p, which is the first of its key.
func (ps *pendingSet) remove(p *pendingReq) {
	if p.same != nil {
		ps.byKey[p.key] = p.same
	} else {
		delete(ps.byKey, p.key)
	}
	if p.prev != nil {
		p.prev.next = p.next
	} else {
		ps.head = p.next
	}
	if p.next != nil {
		p.next.prev = p.prev
	} else {
		ps.tail = p.prev
	}
	p.prev, p.next, p.same = nil, nil, nil
	ps.n--
}

// recycle gives back p, which take or add returned and which its caller
// no longer reads, for add to reuse.
func (ps *pendingSet) recycle(p *pendingReq) {
	*p = pendingReq{next: ps.free}
	ps.free = p
}

// rest returns the pending requests not cancelled, in line order.
func (ps *pendingSet) rest() []*pendingReq {
	var out []*pendingReq
	for p := ps.head; p != nil; p = p.next {
		if !p.cancelled {
			out = append(out, p)
		}
	}
	return out
}

// weighted is a counting semaphore whose acquirers take several units.
type weighted struct {
	mu   sync.Mutex
	cond *sync.Cond
	free int
}

func newWeighted(n int) *weighted {
	w := &weighted{free: n}
	w.cond = sync.NewCond(&w.mu)
	return w
}

func (w *weighted) acquire(n int) {
	w.mu.Lock()
	for w.free < n {
		w.cond.Wait()
	}
	w.free -= n
	w.mu.Unlock()
}

func (w *weighted) release(n int) {
	w.mu.Lock()
	w.free += n
	w.mu.Unlock()
	w.cond.Broadcast()
}
