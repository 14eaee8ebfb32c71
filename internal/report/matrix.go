package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/result"
)

// Bounds of what the matrix printers show of one cell (the JSON form keeps
// everything).
const (
	// matrixTextMax is the most bytes of one message, reason or difference
	// shown (then "…").
	matrixTextMax = 400
	// matrixDiffsMax is the most differences shown per cell (then a line
	// saying how many more there are).
	matrixDiffsMax = 8
)

// matrixView is what the HTML and Markdown printers show: the matrix with
// every string that came from a report made inert ([inert]) and the
// details of every cell that is not PASS with exact parity, numbered.
type matrixView struct {
	Suite           result.MatrixSuite
	Implementations []implView
	Sections        []sectionView
	// Details counts every detail entry of all sections.
	Details int
}

type implView struct {
	Name, Implementation string
	// Verdicts has one entry per section: the verdict, or "" when the
	// implementation has no column there.
	Verdicts []string
}

type sectionView struct {
	// Key is "agent-v1"; Title "agent role, protocol v1".
	Key, Title string
	Columns    []columnView
	Rows       []rowView
	Details    []detailView
}

type columnView struct {
	Name, Verdict, Counts, Invocation string
	// Notes are column-level facts: preflight failed, stale entries,
	// partial or interrupted run, problems.
	Notes []string
}

type rowView struct {
	ID, Level string
	Cells     []cellView
}

type cellView struct {
	// Status is the status word ("" when the report has no result), Class
	// its CSS class, Parity "exact", "differs" or "".
	Status, Class, Parity string
	// Detail is the number of the cell's detail entry (0: none).
	Detail int
}

type detailView struct {
	N                   int
	Vector, Level, Name string
	Status, Parity      string
	Findings            []string
	Reason              string
	Differences         []string
	MoreDifferences     int
	Repro               string
}

// newMatrixView prepares m for display. Detail entries are numbered from 1
// over the whole matrix, in section, row, column order.
func newMatrixView(m *result.Matrix) matrixView {
	v := matrixView{Suite: result.MatrixSuite{Name: inert(m.Suite.Name), Digest: inert(m.Suite.Digest)}}
	for _, impl := range m.Implementations {
		iv := implView{Name: inert(impl.Name), Implementation: inert(impl.Implementation)}
		for _, sec := range m.Sections {
			verdict := ""
			for _, c := range sec.Columns {
				if c.Name == impl.Name {
					verdict = c.Verdict
				}
			}
			iv.Verdicts = append(iv.Verdicts, verdict)
		}
		v.Implementations = append(v.Implementations, iv)
	}
	for _, sec := range m.Sections {
		sv := sectionView{Key: fmt.Sprintf("%s-v%d", inert(sec.Role), sec.Version), Title: fmt.Sprintf("%s role, protocol v%d", inert(sec.Role), sec.Version)}
		for _, c := range sec.Columns {
			sv.Columns = append(sv.Columns, columnViewOf(c))
		}
		for _, row := range sec.Rows {
			rv := rowView{ID: inert(row.ID), Level: inert(row.Level)}
			for i, c := range row.Cells {
				cv := cellView{Status: string(c.Status), Class: statusClass(c.Status), Parity: c.Parity}
				if c.Status == "" {
					cv.Status, cv.Class = "", "st-none"
				}
				if !c.Passed() && c.Status != result.NotRun && c.Status != "" {
					v.Details++
					cv.Detail = v.Details
					sv.Details = append(sv.Details, detailViewOf(v.Details, row, sec.Columns[i].Name, c))
				}
				rv.Cells = append(rv.Cells, cv)
			}
			sv.Rows = append(sv.Rows, rv)
		}
		v.Sections = append(v.Sections, sv)
	}
	return v
}

func columnViewOf(c result.MatrixColumn) columnView {
	s := c.Summary
	cv := columnView{
		Name: inert(c.Name), Verdict: c.Verdict, Invocation: inert(shellQuote(append([]string{"conform"}, c.Invocation...))),
		Counts: fmt.Sprintf("%d passed, %d failed, %d xfail, %d xpass, %d informational; exact parity %d of %d",
			s.Passed, s.Failed, s.XFail, s.XPass, s.Informational, s.ParityExact, s.ParityExact+s.ParityDiffers),
	}
	if p := c.Preflight; p != nil {
		note := "the preflight vector " + p.ID + " failed (" + string(p.Status)
		if len(p.Findings) > 0 {
			note += ": " + p.Findings[0].Code
		}
		note += "): the implementation does not speak this version, and the other vectors were not run (NOT_RUN)"
		if len(p.Repro) > 0 {
			note += "; repro: " + shellQuote(p.Repro)
		}
		cv.Notes = append(cv.Notes, inert(note))
	}
	if len(c.Stale) > 0 {
		cv.Notes = append(cv.Notes, inert(clipText("stale expected-failure entries: "+strings.Join(c.Stale, ", "))))
	}
	if c.Partial {
		cv.Notes = append(cv.Notes, "a filtered run: certifies nothing")
	}
	if c.Interrupted {
		cv.Notes = append(cv.Notes, "interrupted: unfinished vectors are NOT_RUN")
	}
	if c.Problems > 0 {
		cv.Notes = append(cv.Notes, fmt.Sprintf("%d kit input problems (invalid vectors or golden files)", c.Problems))
	}
	return cv
}

func detailViewOf(n int, row result.MatrixRow, name string, c result.MatrixCell) detailView {
	d := detailView{N: n, Vector: inert(row.ID), Level: inert(row.Level), Name: inert(name), Status: string(c.Status), Parity: c.Parity,
		Reason: inert(clipText(c.Reason)), Repro: inert(shellQuote(c.Repro))}
	for _, f := range c.Findings {
		d.Findings = append(d.Findings, inert(clipText(string(f.Status)+" "+f.Code+": "+f.Message)))
	}
	for i, diff := range c.Differences {
		if i == matrixDiffsMax {
			d.MoreDifferences = len(c.Differences) - i
			break
		}
		d.Differences = append(d.Differences, inert(clipText(compare.Render(diff))))
	}
	return d
}

// statusClass returns the CSS class of a status; the set is fixed, so no
// report text ever reaches a class attribute.
func statusClass(s result.Status) string {
	switch s {
	case result.Pass:
		return "st-pass"
	case result.XFail:
		return "st-xfail"
	case result.NotRun:
		return "st-notrun"
	case result.Fail, result.SchemaViolation, result.ProtocolError, result.Timeout, result.Crash, result.XPass, result.Invalid:
		return "st-fail"
	}
	return "st-other"
}

// clipText cuts s to matrixTextMax bytes (at a rune boundary) and marks the
// cut with "…".
func clipText(s string) string {
	if len(s) <= matrixTextMax {
		return s
	}
	cut := matrixTextMax
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// inert spells every character of s that could act rather than print as a
// visible escape: control characters (C0, DEL, C1; LF, CR and TAB too, as
// \n, \r, \t), format characters (Cf: the bidi overrides and isolates such
// as U+202E, zero-width characters, U+FEFF), the line and paragraph
// separators U+2028 and U+2029, and invalid UTF-8 bytes become \uXXXX (or
// \UXXXXXXXX, \xXX). The result holds no character that reorders or hides
// the text around it, on a page or in a terminal; markup is left to the
// printer's own escaping.
func inert(s string) string {
	clean := true
	for _, r := range s {
		if needsEscape(r) {
			clean = false
			break
		}
	}
	if clean && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case needsEscape(r) && r > 0xFFFF:
			fmt.Fprintf(&b, `\U%08x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

func needsEscape(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' || r == utf8.RuneError
}
