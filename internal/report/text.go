// Package report prints a runner.Report: text for people, JSON
// (schemas/report.schema.json) and JUnit XML for CI systems. Every printer
// escapes what the IUT wrote: text output quotes it, JSON and XML encoders
// escape it, so IUT output can never inject markup or terminal controls.
package report

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/conform-kit/conform/runner"
)

// Text writes a human report: a header with the suite digest and the IUT,
// one line per vector, details for each vector that did not pass (findings,
// the go-cmp diff of golden and actual, the stderr tail), and the counts.
func Text(w io.Writer, r *runner.Report, verbose bool) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "suite   %s v%d (%s role)\n", r.Suite.Name, r.Suite.Version, r.Suite.Role)
	fmt.Fprintf(ew, "digest  %s\n", r.Suite.Digest)
	fmt.Fprintf(ew, "iut     %s: %s\n\n", r.Implementation.Name, shellQuote(r.Implementation.Command))
	for _, res := range r.Results {
		Line(ew, res)
	}
	for _, res := range r.Results {
		if res.Status == runner.NotRun || (res.Status == runner.Pass && (!verbose || len(res.Findings) == 0)) {
			continue
		}
		fmt.Fprintf(ew, "\n--- %s %s (%s)\n", res.Status, res.ID, res.Level)
		if res.Reason != "" {
			fmt.Fprintf(ew, "    reason: %s\n", res.Reason)
		}
		for _, f := range res.Findings {
			fmt.Fprintf(ew, "    %s: %s\n", f.Code, sanitize(f.Message))
		}
		if res.Diff != "" && res.Status != runner.XFail || (verbose && res.Diff != "") {
			fmt.Fprintf(ew, "    diff (-golden +actual):\n%s", indent(sanitize(res.Diff), "      "))
		}
		if res.Stderr != "" && res.Status != runner.XFail {
			fmt.Fprintf(ew, "    stderr (last %d bytes):\n%s", len(res.Stderr), indent(sanitize(res.Stderr), "      | "))
		}
	}
	for _, p := range r.Problems {
		where := p.Path
		if where == "" {
			where = "suite"
		}
		fmt.Fprintf(ew, "\nINVALID %s: %s: %s\n", where, p.Code, sanitize(p.Message))
	}
	for _, id := range r.Stale {
		fmt.Fprintf(ew, "\nSTALE expected-failure entry %q names no vector that can fail (unknown or informational)\n", id)
	}
	if r.Preflight != nil {
		fmt.Fprintf(ew, "\nPREFLIGHT FAILED: %s: %s\n", r.Preflight.ID, sanitize(r.Preflight.Findings[len(r.Preflight.Findings)-1].Message))
	}
	c := r.Summary
	fmt.Fprintf(ew, "\n%d passed, %d failed, %d xfail, %d xpass, %d informational, %d invalid, %d not run (of %d)\n",
		c.Passed, c.Failed, c.XFail, c.XPass, c.Informational, c.Invalid, c.NotRun, c.Total)
	fmt.Fprintln(ew, VerdictLine(r))
	return ew.err
}

// VerdictLine is the last line of a text report: the verdict, the IUT, the
// suite and its digest. A filtered run says how many vectors it ran.
func VerdictLine(r *runner.Report) string {
	v := r.Verdict
	if v == "" {
		v = r.ComputeVerdict()
	}
	verdict := strings.ReplaceAll(v, "_", " ")
	if r.Partial {
		noun := "vectors"
		if r.Summary.Total == 1 {
			noun = "vector"
		}
		verdict += fmt.Sprintf(" (%d %s selected by --filter; a partial run certifies nothing)", r.Summary.Total, noun)
	}
	return fmt.Sprintf("%s: %s against %s v%d (%s)", verdict, r.Implementation.Name, r.Suite.Name, r.Suite.Version, r.Suite.Digest)
}

// Line writes the one-line form of a result: status, id, level, time.
func Line(w io.Writer, res runner.Result) {
	lvl := ""
	if res.Level != "required" {
		lvl = " [" + res.Level + "]"
	}
	fmt.Fprintf(w, "%-16s %s%s (%d ms)\n", res.Status, res.ID, lvl, res.DurationMS)
}

func indent(s, prefix string) string {
	s = strings.TrimRight(s, "\n")
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix) + "\n"
}

// sanitize replaces C0/C1 control characters other than LF and TAB, and
// format characters (Cf: bidi overrides, zero-width characters), with
// U+FFFD so IUT text cannot drive or disguise the terminal.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		// Control characters, and format characters such as the bidi
		// overrides that would reorder the rest of a terminal line.
		if r < 0x20 || (r >= 0x7f && r < 0xa0) || unicode.Is(unicode.Cf, r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

func shellQuote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(b []byte) (int, error) {
	if e.err != nil {
		return len(b), nil
	}
	n, err := e.w.Write(b)
	e.err = err
	return n, nil
}
