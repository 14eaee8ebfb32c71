package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/result"
)

// compactMax is the most bytes of a finding's text on a compact line
// (then "…").
const compactMax = 300

// Compact writes a report as one line per failure (conform run --format
// compact): each required or recommended vector that fails certification
// (and each XPASS and INVALID result) as its status, id, level and what
// explains it (result.Cause: the deciding finding or the first normative
// difference, with the number of other findings), then one line per
// problem, stale entry and failed preflight, a line of counts (skipped
// vectors among them: they do not apply, and never fail) and the verdict
// line, after a line of the conformance classes when the report has them
// ([ClassesLine]). Passing, excused, skipped and informational vectors get
// no line.
// IUT text is one line ([inert]), cut at 300 bytes.
func Compact(w io.Writer, r *result.Report, o TextOptions) error {
	ew := &errWriter{w: w}
	for _, res := range r.Results {
		if !res.Failed() || res.Status == result.NotRun {
			continue
		}
		lvl := ""
		if res.Level != result.LevelRequired {
			lvl = " [" + res.Level + "]"
		}
		code, pointer, _, msg := result.Cause(res.Status, res.Findings, res.Differences)
		text := code
		switch {
		case pointer != "" || compare.IsKind(code):
			text = msg // a rendered difference names its kind
		case msg != "":
			text = code + ": " + msg
		}
		more := ""
		if n := causeCount(res) - 1; n > 0 {
			more = fmt.Sprintf(" (and %d more %s)", n, plural(n, "finding", "findings"))
		}
		fmt.Fprintf(ew, "%s %s%s: %s%s\n", paint(o.Color, statusColor(res), fmt.Sprintf("%-16s", res.Status)), res.ID, lvl, clipTo(inert(text), compactMax), more)
	}
	for _, p := range r.Problems {
		where := p.Path
		if where == "" {
			where = "suite"
		}
		fmt.Fprintf(ew, "%s %s: %s: %s\n", paint(o.Color, red, fmt.Sprintf("%-16s", "INVALID")), inert(where), p.Code, clipTo(inert(p.Message), compactMax))
	}
	for _, id := range r.Stale {
		fmt.Fprintf(ew, "%s %s: the expected-failure entry names no vector that can fail (unknown or informational)\n", paint(o.Color, red, fmt.Sprintf("%-16s", "STALE")), inert(id))
	}
	if p := r.Preflight; p != nil {
		code, _, _, msg := result.Cause(p.Status, p.Findings, p.Differences)
		fmt.Fprintf(ew, "%s %s: %s: %s\n", paint(o.Color, red, fmt.Sprintf("%-16s", "PREFLIGHT")), p.ID, code, clipTo(inert(msg), compactMax))
	}
	if len(r.Classes) > 0 {
		fmt.Fprintf(ew, "classes: %s\n", ClassesLine(r.Classes))
	}
	c := r.Summary
	fmt.Fprintf(ew, "%d passed, %d failed, %d xfail, %d xpass, %d informational, %d skipped, %d not run (of %d)\n",
		c.Passed, c.Failed, c.XFail, c.XPass, c.Informational, c.Skipped, c.NotRun, c.Total)
	fmt.Fprintln(ew, paint(o.Color, verdictColor(verdictOf(r)), VerdictLine(r)))
	return ew.err
}

// ClassesLine says, for each conformance class of a run in suite order,
// how it did: a judged class as "NAME: P passed" and, when not zero, F
// failed, X excused, S skipped; a class not judged as "NAME: not claimed
// (N)", N its vectors; "claim contradicted" marks a claim the implementation's
// frames contradict. Classes are separated by "; ". Class names are
// suite data (checked names).
func ClassesLine(classes []result.ClassResult) string {
	parts := make([]string, 0, len(classes))
	for _, c := range classes {
		s := inert(c.Name) + ": "
		if !c.Judged {
			s += fmt.Sprintf("not claimed (%d)", c.NotClaimed)
		} else {
			s += fmt.Sprintf("%d passed", c.Passed)
			for _, n := range []struct {
				n    int
				word string
			}{{c.Failed, "failed"}, {c.XFail, "excused"}, {c.Skipped, "skipped"}, {c.NotRun, "not run"}} {
				if n.n > 0 {
					s += fmt.Sprintf(", %d %s", n.n, n.word)
				}
			}
		}
		if c.Contradicted {
			s += ", claim contradicted"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// causeCount is the number of findings that decide a status plus the
// normative differences (each listed once).
func causeCount(res result.Result) int {
	n := len(compare.Normative(res.Differences))
	for _, f := range res.Findings {
		if f.Status != "" && !compare.IsKind(f.Code) {
			n++
		}
	}
	return max(n, 1)
}
