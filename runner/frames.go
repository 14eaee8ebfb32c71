package runner

import (
	"bytes"
	"errors"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/envelope"
	"github.com/conform-kit/conform/internal/frame"
	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/suite"
)

// frame judges one stdout line against the version's envelope and frame
// rules and returns the decoded frame to keep in the summary, or nil: a
// line that is not one JSON object is a finding; a frame a passOver rule
// matches is skipped; a request of the IUT is answered by the vector's
// scripted peer; a frame a tolerate rule matches is validated and counted
// but not kept; a frame of no class is FRAME_TYPE_UNKNOWN; every other frame
// is validated, a reply is matched to the request it answers (and its body
// checked against the replyBody schema of the request's method), and the
// frame is kept.
func (s *session) frame(ln proc.Line) any {
	p, o := s.p, s.o
	switch {
	case ln.Err != nil:
		if !s.lineError(ln) {
			return nil
		}
	case ln.Partial:
		o.add(FindingFramePartial, ProtocolError, "the last stdout line (%d bytes) has no LF: %s", ln.Size, quote(ln.Data))
		return nil
	case len(bytes.TrimSpace(ln.Data)) == 0 && p.framing != frame.ContentLength:
		return nil // blank lines carry nothing; JSON-lines readers skip them
	}
	v, err := canon.Parse(ln.Data)
	if err != nil {
		o.add(frameErrorCode(err), ProtocolError, "%v in line %s", err, quoteAt(ln.Data, errorOffset(err)))
		return nil
	}
	if _, ok := v.(map[string]any); !ok {
		o.add(FindingFrameNotObject, ProtocolError, "line is not a JSON object: %s", quote(ln.Data))
		return nil
	}
	if s.l.keepRaw && len(o.raw) < MaxFindings {
		o.raw = append(o.raw, v)
	}
	if envelope.First(p.passOver, v) >= 0 || envelope.First(s.l.passOver, v) >= 0 {
		o.accepted++
		return nil
	}
	c := p.env.Classify(v)
	unanswered := c != nil && c.Kind == envelope.Request && !s.answer(c, v, ln.Data)
	if i := s.tolerate(v); i >= 0 {
		o.accepted++
		s.seen++
		s.orderSeen(v)
		for _, vi := range p.root.Validate(v) {
			o.add(FindingFrameSchema, SchemaViolation, "%s: %s", p.ver.Schema, vi)
		}
		s.tolerated[i]++
		if r := s.toleratedRule(i); r.Before != "" {
			if req := s.sent[r.Before]; req != nil && req.replies > 0 {
				o.add(FindingFrameOrder, Fail, "a frame the vector tolerates only before the reply to %s came after it (%s): %s", r.Before, r.Reason, quote(ln.Data))
			}
		}
		return nil
	}
	if c == nil {
		o.add(FindingFrameTypeUnknown, ProtocolError, "the frame matches no frame class of the suite's envelope (%s) and no passOver or tolerate rule: %s", classNames(p.env), quote(ln.Data))
		return nil
	}
	o.accepted++
	s.seen++
	s.orderSeen(v)
	for _, vi := range p.root.Validate(v) {
		o.add(FindingFrameSchema, SchemaViolation, "%s: %s", p.ver.Schema, vi)
	}
	if unanswered {
		o.add(FindingRequestUnanswered, Fail, "the IUT sent a request (kind %q, method %q) that no peer rule of the vector answers and no tolerate rule allows (the frame is in the summary)", c.Name, c.Method(v))
	}
	if c.Kind != envelope.Reply {
		return v
	}
	id, hasID := c.ID(v)
	if !hasID {
		return v // the schema violation says it
	}
	k := envelope.Key(id)
	req := s.sent[k]
	switch {
	case req == nil:
		o.add(FindingReplyUnsolicited, ProtocolError, "reply to id %s, which no request sent carries", k)
		if o.unsolicited++; o.unsolicitedID == "" {
			o.unsolicitedID = k
		}
		return v
	case req.replies > 0:
		o.add(FindingReplyDuplicate, ProtocolError, "second reply to id %s", k)
	}
	req.replies++
	o.matched++
	if s.l.bindIDs[k] && req.replies == 1 {
		if s.bindReplies == nil {
			s.bindReplies = map[string]any{}
		}
		s.bindReplies[k] = v
	}
	if req.first == 0 {
		req.first = s.seen
	}
	if c.Outcome(v) == envelope.Success {
		sch, err := p.byMethod.get(req.method)
		if err != nil {
			// Not reached for a suite that loaded (see methodSchemas);
			// never a silent pass.
			o.add(FindingReplyBodySchema, SchemaViolation, "reply to %s: its reply schema does not compile: %v", req.method, err)
		}
		if sch != nil {
			for _, vi := range sch.Validate(v) {
				o.add(FindingReplyBodySchema, SchemaViolation, "reply to %s: %s", req.method, vi)
			}
		}
	}
	return v
}

// classNames lists the envelope's frame class names.
func classNames(e *envelope.Envelope) string {
	var names []string
	for _, c := range e.Classes() {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// tolerate returns the index (version rules first, then the vector's) of
// the first tolerate rule that matches v, or -1.
func (s *session) tolerate(v any) int {
	if i := envelope.First(s.p.tolerate, v); i >= 0 {
		return i
	}
	if i := envelope.First(s.l.tolerate, v); i >= 0 {
		return len(s.p.tolerate) + i
	}
	return -1
}

func (s *session) toleratedRule(i int) envelope.Rule {
	if i < len(s.p.tolerate) {
		return s.p.tolerate[i]
	}
	return s.l.tolerate[i-len(s.p.tolerate)]
}

// checkTolerated reports tolerate rules that allowed more frames than
// their max.
func (s *session) checkTolerated() {
	for i, n := range s.tolerated {
		if r := s.toleratedRule(i); r.Max > 0 && n > r.Max {
			s.o.add(FindingFrameToleratedTooMany, Fail, "the IUT wrote %d frames of a kind the vector tolerates at most %d time(s) (%s)", n, r.Max, r.Reason)
		}
	}
}

// answer writes the scripted peer's reply to a request of the IUT: the
// reply of the vector's first peer rule that matches it, with the
// request's own id at the envelope's reply id pointer. It reports whether
// a rule matched. A request that comes once stdin is closed cannot be
// answered: a note says so.
func (s *session) answer(c *envelope.Class, v any, line []byte) bool {
	for _, r := range s.l.peer {
		if !r.match.Holds(v) {
			continue
		}
		id, _ := c.ID(v)
		body := r.reply
		if r.work {
			body, _ = suite.ExpandValue(body, nil, s.work)
		}
		reply, ok := s.p.env.ReplyClass().WithID(body, id)
		b, err := canon.Canonical(reply)
		switch {
		case !ok || err != nil:
			s.o.add(FindingRequestUnanswered, Fail, "the peer rule for %s has a reply the request's id cannot be set in (%s)", quote(line), r.reason)
		case !s.open:
			s.o.add(FindingRequestUnanswered, "", "the IUT sent %s after stdin closed; the peer's reply was not written", quote(line))
		default:
			s.send([][]byte{frame.Encode(s.p.framing, b)})
		}
		return true
	}
	return false
}

// lineError adds the finding of a line (a message) the transport could
// not deliver whole: one over --max-line, or a break of content-length
// framing, with the bytes concerned. It reports whether the line's Data
// is still to be judged (a header defect that left the body readable).
func (s *session) lineError(ln proc.Line) bool {
	p, o := s.p, s.o
	var fe *frame.Error
	switch {
	case errors.Is(ln.Err, proc.ErrLineTooLong) && p.framing == frame.ContentLength:
		o.add(FindingFrameTooLarge, ProtocolError, "a message body of %d bytes (its Content-Length) exceeds the %d-byte limit", ln.Size, p.cfg.MaxLine)
	case errors.Is(ln.Err, proc.ErrLineTooLong):
		o.add(FindingFrameTooLarge, ProtocolError, "a stdout line of %d bytes exceeds the %d-byte limit", ln.Size, p.cfg.MaxLine)
	case errors.As(ln.Err, &fe):
		o.add(fe.Code, ProtocolError, "%s (%d bytes): %s", fe.Reason, fe.Size, quote(fe.Bytes))
		return ln.Data != nil
	default:
		o.add(FindingFramePartial, ProtocolError, "stdout could not be read: %v", ln.Err)
	}
	return false
}

// orderSeen records, for each match element of expect.order, the position
// of the first frame it matches, and for each await of a frame match
// whether a frame it holds for has come.
func (s *session) orderSeen(v any) {
	for i, m := range s.l.orderMatches {
		if s.orderAt[i] == 0 && m.Holds(v) {
			s.orderAt[i] = s.seen
		}
	}
	for i, g := range s.l.gates {
		if g.match != nil && !s.framed[i] && g.match.Holds(v) {
			s.framed[i] = true
		}
	}
}

// checkOrder adds a REPLY_ORDER finding for each expect.order sequence
// whose elements came in another order. Elements not seen are left to
// REPLY_MISSING (ids) or the golden comparison (matches).
func (s *session) checkOrder() {
	for _, seq := range s.l.order {
		prev, prevName := 0, ""
		for _, el := range seq {
			at, name := 0, el.name
			if el.match >= 0 {
				at = s.orderAt[el.match]
			} else if r := s.sent[el.key]; r != nil {
				at = r.first
			}
			if at == 0 {
				continue
			}
			if at < prev {
				s.o.add(FindingReplyOrder, Fail, "%s came before %s; the vector requires the order %s", name, prevName, seqNames(seq))
				break
			}
			prev, prevName = at, name
		}
	}
}

func seqNames(seq []orderElement) string {
	out := make([]string, len(seq))
	for i, el := range seq {
		out[i] = el.name
	}
	return strings.Join(out, ", ")
}

// sentRequest is what a send line carries for tracking: the RFC 8785 text
// of its request's correlation id and the request's method, or ok false
// for a line that carries no request (not a frame the envelope classifies
// as a request with an id).
type sentRequest struct {
	key, method string
	ok          bool
}

// request reads the request a send line carries ([sentRequest]). Each
// line is read once, when its vector is loaded (loaded.reqs): reading the
// lines again each time a request was tracked read a 2 MiB generated line
// three times a vector.
func (p *plan) request(ln sendLine) sentRequest {
	v, ok := sentValue(ln, p.env.Locations())
	if !ok {
		return sentRequest{}
	}
	return p.requestOf(v)
}

// requestOf is [plan.request] for the value a line carries: a frame item's
// decoded frame reads as its line (its RFC 8785 form) does, without
// reading the line again.
func (p *plan) requestOf(v any) sentRequest {
	c := p.env.Classify(v)
	if c == nil || c.Kind != envelope.Request {
		return sentRequest{}
	}
	id, ok := c.ID(v)
	if !ok {
		return sentRequest{}
	}
	return sentRequest{key: envelope.Key(id), method: c.Method(v), ok: true}
}

// track records the request a send line carries, r (see [plan.request]),
// by the RFC 8785 text of its id; a line without one, and ids already
// tracked, are left alone.
func track(sent map[string]*request, r sentRequest) {
	if !r.ok || sent[r.key] != nil {
		return
	}
	sent[r.key] = &request{method: r.method}
}

// declared answers compare.Declared for the frames of one session: a member
// is declared when the version's root schema or, for a success reply, the
// replyBody schema of the method of the request it answers declares it
// there.
func (p *plan) declared(sent map[string]*request) compare.Declared {
	return func(frame any, at, name string) bool {
		toks := pointerTokens(at)
		if p.root.Declares(toks, name) {
			return true
		}
		c := p.env.Classify(frame)
		if c == nil || c.Kind != envelope.Reply {
			return false
		}
		id, ok := c.ID(frame)
		if !ok {
			return false
		}
		if req := sent[envelope.Key(id)]; req != nil {
			if sch, _ := p.byMethod.get(req.method); sch != nil {
				return sch.Declares(toks, name)
			}
		}
		return false
	}
}

// pointerTokens splits an RFC 6901 pointer ("/a/b~1c") into its unescaped
// reference tokens; "" gives none.
func pointerTokens(ptr string) []string {
	if ptr == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, t := range toks {
		toks[i] = canon.UnescapePointer(t)
	}
	return toks
}

// arrived returns the ids of before that are not in after (both sorted).
func arrived(before, after []string) []string {
	var out []string
	j := 0
	for _, k := range before {
		for j < len(after) && after[j] < k {
			j++
		}
		if j < len(after) && after[j] == k {
			continue
		}
		out = append(out, k)
	}
	return out
}
