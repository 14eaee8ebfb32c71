package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/conform-kit/conform/internal/result"
)

// MatrixMarkdown writes m as GitHub-flavoured Markdown, for a pull request,
// a CI step summary or a committed page: the suite digest, a table of
// implementations by sections with their verdicts, then per section a table
// of vectors by implementations (status and exact parity per cell), the
// verdicts with the command of each run, and a numbered list of details
// (decisive findings, differences, repro command) for every cell that is not
// PASS with exact parity. The same matrix gives the same bytes.
//
// Every string that came from a report is written as a code span ([matrixCode])
// outside tables: HTML, emphasis, links and @mentions do nothing inside one,
// its backtick fence is longer than any backtick run of the text, and
// [inert] has spelled newlines, control and bidi characters as visible
// escapes first. Tables hold only names [result.BuildMatrix] checked, vector
// ids (schema-checked), and the kit's own words.
func MatrixMarkdown(w io.Writer, m *result.Matrix) error {
	v := newMatrixView(m)
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "# conform certification matrix\n\n")
	fmt.Fprintf(ew, "Suite %s, digest %s. Each cell is the conformance status of one implementation on one vector, then its exact parity with the golden summary (`exact` or **`differs`**); see COMPATIBILITY.md \"Conformance and exact parity\". `—`: the implementation's report has no such vector.\n\n",
		matrixCode(v.Suite.Name), matrixCode(v.Suite.Digest))
	fmt.Fprintf(ew, "## Implementations\n\n")
	for _, impl := range v.Implementations {
		fmt.Fprintf(ew, "- %s: %s\n", matrixCode(impl.Name), matrixCode(impl.Implementation))
	}
	fmt.Fprintf(ew, "\n| name |")
	for _, s := range v.Sections {
		fmt.Fprintf(ew, " %s |", s.Title)
	}
	fmt.Fprintf(ew, "\n|---|%s\n", strings.Repeat("---|", len(v.Sections)))
	for _, impl := range v.Implementations {
		fmt.Fprintf(ew, "| %s |", matrixCode(impl.Name))
		for _, verdict := range impl.Verdicts {
			if verdict == "" {
				verdict = "—"
			}
			fmt.Fprintf(ew, " %s |", verdict)
		}
		fmt.Fprintln(ew)
	}
	for _, s := range v.Sections {
		fmt.Fprintf(ew, "\n## %s\n\n| vector | level |", s.Title)
		for _, c := range s.Columns {
			fmt.Fprintf(ew, " %s |", matrixCode(c.Name))
		}
		fmt.Fprintf(ew, "\n|---|---|%s\n", strings.Repeat("---|", len(s.Columns)))
		for _, row := range s.Rows {
			fmt.Fprintf(ew, "| %s | %s |", matrixCode(row.ID), row.Level)
			for _, c := range row.Cells {
				fmt.Fprintf(ew, " %s |", matrixCell(c))
			}
			fmt.Fprintln(ew)
		}
		fmt.Fprintf(ew, "\nVerdicts:\n\n")
		for _, c := range s.Columns {
			fmt.Fprintf(ew, "- %s: **%s** (%s); run: %s\n", matrixCode(c.Name), c.Verdict, c.Counts, matrixCode(c.Invocation))
			for _, n := range c.Notes {
				fmt.Fprintf(ew, "  - %s\n", matrixCode(n))
			}
		}
		if len(s.Details) == 0 {
			continue
		}
		fmt.Fprintf(ew, "\nFailures and parity differences (%s):\n\n", s.Title)
		for _, d := range s.Details {
			fmt.Fprintf(ew, "%d. %s (%s) · %s: %s", d.N, matrixCode(d.Vector), d.Level, matrixCode(d.Name), d.Status)
			if d.Parity != "" {
				fmt.Fprintf(ew, ", parity %s", d.Parity)
			}
			fmt.Fprintln(ew)
			for _, f := range d.Findings {
				fmt.Fprintf(ew, "   - %s\n", matrixCode(f))
			}
			if d.Reason != "" {
				fmt.Fprintf(ew, "   - expected failure: %s\n", matrixCode(d.Reason))
			}
			for _, diff := range d.Differences {
				fmt.Fprintf(ew, "   - %s\n", matrixCode(diff))
			}
			if d.MoreDifferences > 0 {
				fmt.Fprintf(ew, "   - and %d more differences (`conform matrix --format json` has them all)\n", d.MoreDifferences)
			}
			fmt.Fprintf(ew, "   - repro: %s\n", matrixCode(d.Repro))
		}
	}
	return ew.err
}

// matrixCell is a cell's status and parity; its words are the kit's own.
func matrixCell(c cellView) string {
	s := c.Status
	if s == "" {
		return "—"
	}
	switch c.Parity {
	case result.ParityDiffers:
		s += " **differs**"
	case result.ParityExact:
		s += " exact"
	}
	return s
}

// matrixCode writes s (already [inert]: one line, no control or bidi
// character) as a Markdown code span that shows it verbatim: HTML,
// emphasis, links and @mentions do nothing inside one. The fence is one
// backtick longer than the longest backtick run in s, and a space pads s
// when it starts or ends with a backtick or a space (CommonMark strips one
// of each). "" is written as nothing. Not for table cells: GFM splits a row
// at "|" before it reads code spans, and implementations disagree on "\\|";
// the matrix puts only names it has checked ([result.BuildMatrix]), vector
// ids and its own words in tables.
func matrixCode(s string) string {
	if s == "" {
		return ""
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}
