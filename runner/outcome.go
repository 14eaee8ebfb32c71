package runner

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/normalize"
	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/result"
	"github.com/conform-kit/conform/internal/suite"
)

// Summary is the golden summary of one session vector: what the IUT wrote on
// the control channel, normalized, in canonical order. Its RFC 8785 bytes are
// golden/v<N>/<id>.json.
//
//	{"exit":"nonzero","frames":[...],"vector":"<id>"}
//
// Frames holds every control frame (suite.json controlTypes) the IUT wrote,
// each normalized, sorted by its canonical bytes, so reply order never
// matters. Exit ("zero", "nonzero" or "signal") is present only when the
// vector expects the IUT to end by itself.
type Summary struct {
	Exit   string `json:"exit,omitempty"`
	Frames []any  `json:"frames"`
	Vector string `json:"vector"`
}

// outcome is what one session observed, before comparison with the golden.
type outcome struct {
	findings []Finding
	summary  []byte
	exit     proc.Exit
	stderr   []byte
	elapsed  time.Duration
	// unmatched lists vector-level normalizers that matched nothing.
	unmatched []string
	// dropped counts findings over MaxFindings; droppedStatus is the most
	// severe status among them.
	dropped       int
	droppedStatus Status
	notRun        bool
	// responses counts the control responses read so far (reply order).
	responses int
	// declared tells the conformance comparison which members the schema
	// declares on an actual frame (see compare.Declared); framing pairs
	// frames (the suite's envelope).
	declared compare.Declared
	framing  compare.Framing
	// kept is the number of frames the summary holds; raw the frames the
	// IUT wrote, as read, when the session keeps them (loaded.keepRaw).
	kept int
	raw  []any
	// exitClass is the summary's exit class ("" for none).
	exitClass string
	// shapes is the shapes document of the summary (Config.Shapes).
	shapes []byte
	// overBudget is set once the vector kept as much as its byte budget
	// allows (VECTOR_BUDGET_EXCEEDED).
	overBudget bool
	// lines counts the lines the IUT wrote (in spawned mode: to the agent,
	// its own requests and user turns aside); awaited is how many replies
	// the vector waits for with stdin open (0 when it expects an exit).
	// Fail fast reads them (failfast.go).
	lines, awaited int
	// vector is the vector as loaded for the session (with its
	// description and source).
	vector *suite.Vector
	// firstLine is when the IUT wrote its first line, from its start (0:
	// none); slowStart is set when a reply came only after stdin closed and
	// that first line came well after it (session.startNote).
	firstLine time.Duration
	slowStart bool
	// early counts the lines the IUT wrote while stdin was open; late
	// lists the awaited replies that came only after stdin closed.
	early int
	late  []string
	// Fail fast for protocol-broken IUTs (failfast.go): accepted counts
	// the lines read as frames of the envelope or passed over; matched
	// and unsolicited count the replies whose id names a request sent,
	// and those naming none (unsolicitedID: the first such id, in RFC 8785
	// form).
	accepted, matched, unsolicited int
	unsolicitedID                  string
}

// Bounds on what one vector reports, so a misbehaving IUT cannot flood a
// report: at most MaxFindings findings (then one FINDINGS_TRUNCATED note
// with the count) of at most MaxFindingBytes bytes each.
const (
	MaxFindings     = 50
	MaxFindingBytes = 1024
)

func (o *outcome) add(code string, st Status, format string, args ...any) {
	if len(o.findings) >= MaxFindings {
		o.drop(1, st)
		return
	}
	msg := clip(fmt.Sprintf(format, args...))
	o.findings = append(o.findings, Finding{Code: code, Status: st, Message: msg})
}

// drop counts n findings of status st that are not reported.
func (o *outcome) drop(n int, st Status) {
	o.dropped += n
	// The verdict still counts: keep the most severe status seen.
	if Severity(st) > Severity(o.droppedStatus) {
		o.droppedStatus = st
	}
}

// close adds the truncation note, if findings were dropped.
func (o *outcome) close() {
	if o.dropped > 0 {
		o.findings = append(o.findings, Finding{Code: FindingFindingsTruncated, Status: o.droppedStatus,
			Message: fmt.Sprintf("%d more findings were not reported (at most %d per vector)", o.dropped, MaxFindings)})
		o.dropped = 0
	}
}

// result turns an outcome into a Result by comparing it with golden: exact
// parity (canonical bytes equal) and conformance (compare.Differences with
// the vector's rules). With exact set, any byte difference fails the vector
// (GOLDEN_MISMATCH); otherwise only normative differences do, each a finding
// coded by its kind, and the allowed ones are one PARITY_DIFFERS note.
func (o *outcome) result(v suite.Ref, golden []byte, goldenPath string, rules *compare.Rules, exact bool) Result {
	r := Result{ID: v.ID, Level: v.Level, Path: v.Path, DurationMS: o.elapsed.Milliseconds(), Canonical: o.summary,
		GoldenPath: goldenPath, Shapes: o.shapes}
	if full := o.vector; full != nil {
		// The run's vector list holds ids and levels; the text is in the
		// file as loaded for this session.
		r.Description, r.Source = full.Description, full.Source
	}
	if o.notRun {
		r.Status = NotRun
		return r
	}
	r.Findings = o.findings
	r.Parity = ParityExact
	if compare.Equal(golden, o.summary) && o.kept == 0 && o.exitClass == "" {
		r.Parity = ParityEmpty
	}
	if !compare.Equal(golden, o.summary) {
		r.Parity = ParityDiffers
		if exact {
			rules = nil
		}
		ds, err := compare.Differences(golden, o.summary, rules, o.declared, o.framing)
		if err != nil {
			r.Findings = append(r.Findings, Finding{Code: FindingGoldenMismatch, Status: Fail,
				Message: fmt.Sprintf("normalized canonical output differs from %s and cannot be compared: %v", goldenPath, err)})
		}
		r.Findings = append(r.Findings, differenceFindings(ds, goldenPath, exact)...)
		if len(ds) > MaxDifferences {
			r.Findings = append(r.Findings, Finding{Code: FindingDifferencesTruncated, Message: fmt.Sprintf(
				"%d more differences from %s were not listed (at most %d per vector)", len(ds)-MaxDifferences, goldenPath, MaxDifferences)})
			ds = ds[:MaxDifferences]
		}
		r.Differences = boundValues(ds)
	}
	// The one status rule (informational observations become notes).
	r.Status, r.Findings = result.Judge(v.Level, r.Findings)
	exit := o.exit
	r.Exit = &exit
	if r.Status != Pass || r.Parity == ParityDiffers {
		r.Expected = excerpt(golden, MaxExcerptBytes)
		r.Actual = excerpt(o.summary, MaxExcerptBytes)
	}
	if r.Status != Pass {
		r.Stderr = string(o.stderr)
	}
	return r
}

// excerpt returns b as a string, cut at max bytes (at a rune boundary)
// and ended with "... (N bytes)" when longer.
func excerpt[T ~string | ~[]byte](b T, max int) string {
	if len(b) <= max {
		return string(b)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", b[:cut], len(b))
}

// boundValues replaces each value of ds longer than MaxValueBytes of
// canonical JSON by a JSON string: the value's first bytes, then "... (N
// bytes)".
func boundValues(ds []compare.Difference) []compare.Difference {
	cut := func(v json.RawMessage) json.RawMessage {
		if len(v) <= MaxValueBytes {
			return v
		}
		b, err := canon.Canonical(excerpt(v, MaxValueBytes))
		if err != nil {
			return json.RawMessage(`"..."`)
		}
		return b
	}
	out := make([]compare.Difference, len(ds))
	for i, d := range ds {
		d.Golden, d.Actual = cut(d.Golden), cut(d.Actual)
		out[i] = d
	}
	return out
}

// differenceFindings turns differences into findings: with exact, one
// GOLDEN_MISMATCH for them all; otherwise one finding per normative
// difference (its kind is the code; at most MaxFindings) and one
// PARITY_DIFFERS note for the allowed ones.
func differenceFindings(ds []compare.Difference, goldenPath string, exact bool) []Finding {
	var out []Finding
	if exact {
		if len(ds) > 0 {
			out = append(out, Finding{Code: FindingGoldenMismatch, Status: Fail,
				Message: clip(fmt.Sprintf("canonical bytes differ from %s in %d place(s), and exact parity is required: %s", goldenPath, len(ds), pointers(ds)))})
		}
		return out
	}
	var allowed []compare.Difference
	for _, d := range ds {
		if !d.Normative {
			allowed = append(allowed, d)
			continue
		}
		if len(out) < MaxFindings {
			msg := compare.Render(d)
			if first, _, two := strings.Cut(msg, "\n"); two && len(msg) > MaxFindingBytes {
				// Keep the values whole rather than cut the look-alike
				// line where the strings differ; Differences has both.
				msg = first + " (spelled as code points in differences)"
			}
			out = append(out, Finding{Code: d.Kind, Status: Fail, Message: clip(msg)})
		}
	}
	if n := len(compare.Normative(ds)); n > MaxFindings {
		out = append(out, Finding{Code: FindingFindingsTruncated, Status: Fail,
			Message: fmt.Sprintf("%d more differences from %s were not listed as findings (see differences)", n-MaxFindings, goldenPath)})
	}
	if len(allowed) > 0 {
		out = append(out, Finding{Code: FindingParityDiffers, Message: clip(fmt.Sprintf(
			"canonical bytes differ from %s in %d place(s) the protocol allows (conformance passes there; exact parity does not): %s",
			goldenPath, len(allowed), pointers(allowed)))})
	}
	return out
}

// pointers lists where differences are: "frame pointer (KIND)", comma-joined.
func pointers(ds []compare.Difference) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		where := strings.TrimSpace(d.Frame + " " + d.Pointer)
		parts[i] = where + " (" + d.Kind + ")"
	}
	return strings.Join(parts, ", ")
}

// clip cuts a finding message to MaxFindingBytes at a rune boundary.
func clip(msg string) string { return excerpt(msg, MaxFindingBytes) }

// frameErrorCode is the finding code of a line canon.Parse refused:
// FRAME_DUPLICATE_KEY, FRAME_INEXACT or FRAME_NOT_JSON.
func frameErrorCode(err error) string {
	switch kiterr.CodeOf(err) {
	case kiterr.JSONDuplicateKey:
		return FindingFrameDuplicateKey
	case kiterr.JSONNumberInexact:
		return FindingFrameInexact
	}
	return FindingFrameNotJSON
}

// awaitUnmet is the AWAIT_UNMET note, given the awaited correlation id.
const awaitUnmet = "the vector waits for the reply to %s before writing the rest of its input, and that reply never came; the rest was not written"

const awaitFrameUnmet = "the vector waits for a frame matching %s before writing the rest of its input, and no frame the IUT wrote matches it; the rest was not written"

// unattributed explains survivors that could not be tied to this IUT.
func unattributed(l proc.Leftovers) string {
	if l.Unattributed == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d had left the IUT's process group and cleared its environment, and no cgroup held it: with -j above 1 it may be another vector's IUT's)", l.Unattributed)
}

func exitClass(e proc.Exit) string {
	switch {
	case e.Signal != "":
		return "signal"
	case e.Code == 0:
		return "zero"
	}
	return "nonzero"
}

// summarizer keeps the summary of one session as its control frames come:
// each frame is normalized and canonicalized at once and only its
// canonical bytes are kept (never the decoded frame), within room bytes.
type summarizer struct {
	rules   []normalize.Rule
	scope   normalize.Scope
	matched []bool
	// frames are the canonical bytes of the normalized frames kept;
	// shapes, when scope.Shapes asks for them, the shapes of what the
	// normalizers hid in each (normalize.Result.Shapes), aligned with
	// frames.
	frames []string
	shapes []map[string]any
	// kept is the sum of their lengths and of their work (see admit);
	// room is the most it may reach. work is that of the line admitted
	// last.
	kept, room, work int
	// mismatches holds the first MaxFindings NORMALIZE_FORMAT messages,
	// moreMismatches counts the rest; both become findings at the end, in
	// the place they always had.
	mismatches     []string
	moreMismatches int
	// inexact is the first frame without an RFC 8785 form.
	inexact error
	// workDir, when not "", is the IUT's working directory, written back as
	// ${work} in the strings of the frames kept (before normalizers), so
	// that a path the IUT echoes is the same in every run: set for a
	// vector whose frames name ${work} (loaded.work).
	workDir string
}

// add normalizes the control frame f and keeps its canonical bytes. A
// frame that does not fit in the room left ends the keeping: o gets one
// VECTOR_BUDGET_EXCEEDED finding (PROTOCOL_ERROR) and o.overBudget is set,
// so the session stops the IUT.
func (s *summarizer) add(o *outcome, f any, budget int) {
	if s.workDir != "" {
		f = unwork(f, s.workDir)
	}
	nr := normalize.ApplyScoped(f, s.rules, s.scope)
	for i, m := range nr.Matched {
		s.matched[i] = s.matched[i] || m
	}
	for _, m := range nr.Mismatches {
		if len(s.mismatches) < MaxFindings {
			s.mismatches = append(s.mismatches, m.String())
		} else {
			s.moreMismatches++
		}
	}
	c, err := canon.Canonical(nr.Value)
	if err != nil {
		if s.inexact == nil {
			s.inexact = err
		}
		return
	}
	// A kept frame costs its bytes and the work its values take when the
	// summary is compared (admit, work.go).
	if s.kept+len(c)+s.work > s.room {
		o.overBudget = true
		o.add(FindingBudgetExceeded, ProtocolError, "the IUT wrote more frames than one vector may keep: with this frame (%d bytes normalized) they would take %d bytes, over the %d the budget of %d bytes (--max-vector-bytes) leaves after the stderr tail and the findings; the IUT was stopped and the frames after it were not judged",
			len(c), s.kept+len(c)+s.work, s.room, budget)
		return
	}
	s.kept += len(c) + s.work
	s.frames = append(s.frames, string(c))
	if s.scope.Shapes {
		s.shapes = append(s.shapes, nr.Shapes)
	}
}

// shapesBytes returns the RFC 8785 bytes of the shapes document of the
// kept frames, {"frames": [{<pointer>: <shape>, ...}, ...]} with one object
// per frame of the summary, in the summary's (sorted) order: what a
// recording keeps of the values normalizers replaced (see
// normalize.Shape). Call it before summaryBytes sorts s.frames.
func (s *summarizer) shapesBytes() []byte {
	idx := make([]int, len(s.frames))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(s.frames[a], s.frames[b]) })
	out := make([]any, len(idx))
	for k, i := range idx {
		m := map[string]any{}
		if i < len(s.shapes) && s.shapes[i] != nil {
			for ptr, sh := range s.shapes[i] {
				m[ptr] = sh
			}
		}
		out[k] = m
	}
	b, err := canon.Canonical(map[string]any{"frames": out})
	if err != nil {
		return nil
	}
	return b
}

// summaryBytes returns the RFC 8785 bytes of the [Summary] of vector id
// with exit class exit ("" for none) and frames (the canonical bytes of
// each normalized frame), which it sorts: the same bytes canon.Canonical
// gives for the Summary, built without decoding the frames again. RFC 8785
// orders the members exit, frames, vector (by UTF-16 code units) and a
// sorted list of canonical texts is the list sorted by canonical bytes.
func summaryBytes(id, exit string, frames []string) []byte {
	slices.Sort(frames)
	str := func(s string) []byte {
		b, err := canon.Canonical(s)
		if err != nil {
			panic(err) // a Go string always has an RFC 8785 form
		}
		return b
	}
	n := 64 + len(id)
	for _, f := range frames {
		n += len(f) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	if exit != "" {
		b = append(b, `"exit":`...)
		b = append(b, str(exit)...)
		b = append(b, ',')
	}
	b = append(b, `"frames":[`...)
	for i, f := range frames {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, f...)
	}
	b = append(b, `],"vector":`...)
	b = append(b, str(id)...)
	return append(b, '}')
}

// maxQuoted is how many bytes of an IUT line a finding quotes.
const maxQuoted = 200

// quote renders at most maxQuoted bytes of b as a Go-quoted string, so IUT
// output never reaches a terminal or report unescaped.
func quote(b []byte) string { return quoteAt(b, 0) }

// quoteAt is quote for a line with a fault at byte offset at: a longer
// line is quoted around that offset, so the fault is always in view.
func quoteAt(b []byte, at int) string {
	if len(b) <= maxQuoted {
		return fmt.Sprintf("%q", b)
	}
	from := max(0, min(at-maxQuoted/4, len(b)-maxQuoted))
	for from > 0 && !utf8.RuneStart(b[from]) {
		from--
	}
	to := min(len(b), from+maxQuoted)
	s := fmt.Sprintf("%q", b[from:to])
	if from > 0 {
		s = fmt.Sprintf("(%d bytes)...", from) + s
	}
	if to < len(b) {
		s += fmt.Sprintf("... (%d bytes)", len(b))
	}
	return s
}

// errorPosition finds the byte offset a strict-reader error names ("at
// 1:COL", or "at byte offset N"); a stdout line has no LF, so its column
// is the offset plus one.
var errorPosition = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bat (?:1:(\d+)|byte offset (\d+))\b`) })

// errorOffset returns the byte offset err names, or 0.
func errorOffset(err error) int {
	m := errorPosition().FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	if m[1] != "" {
		n, _ := strconv.Atoi(m[1])
		return max(0, n-1)
	}
	n, _ := strconv.Atoi(m[2])
	return n
}

// unwork returns a copy of the JSON value v in which every occurrence of
// work in a string is ${work} (suite.WorkPlaceholder); member names are
// kept. v is returned as it is when no string holds work.
func unwork(v any, work string) any {
	if !holds(v, work) {
		return v
	}
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, work, suite.WorkPlaceholder)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = unwork(e, work)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = unwork(e, work)
		}
		return out
	}
	return v
}

// holds reports whether a string of the JSON value v contains sub.
func holds(v any, sub string) bool {
	switch x := v.(type) {
	case string:
		return strings.Contains(x, sub)
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { return holds(e, sub) })
	case map[string]any:
		for _, e := range x {
			if holds(e, sub) {
				return true
			}
		}
	}
	return false
}
