package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/result"
)

// ParityText writes the parity matrix (vectors by implementations), then for
// each vector where the implementations do not all write the golden bytes:
// which implementations form each group and a diff of each group against the
// golden bytes, then the gate verdict.
func ParityText(w io.Writer, pr *result.ParityReport) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "suite   %s v%d (%s role)\ndigest  %s\n\n", pr.Suite.Name, pr.Suite.Version, pr.Suite.Role, pr.Suite.Digest)
	names := make([]string, len(pr.Implementations))
	width := 8
	for i, impl := range pr.Implementations {
		names[i] = impl.Name
		width = max(width, len(impl.Name)+2)
	}
	idw := 6
	for _, v := range pr.Vectors {
		idw = max(idw, len(v.ID)+2)
	}
	fmt.Fprintf(ew, "%-*s", idw, "vector")
	for _, n := range names {
		fmt.Fprintf(ew, "%-*s", width, n)
	}
	fmt.Fprintln(ew)
	for _, v := range pr.Vectors {
		id := v.ID
		if v.Level == "informational" {
			id += "*"
		}
		fmt.Fprintf(ew, "%-*s", idw, id)
		for _, n := range names {
			fmt.Fprintf(ew, "%-*s", width, short(v.Statuses[n]))
		}
		switch {
		case v.Uncompared:
			fmt.Fprint(ew, " (not compared: no implementation ran it)")
		case !v.Agree:
			fmt.Fprintf(ew, " (%d groups)", len(v.Groups))
			if len(v.Groups) == 1 {
				fmt.Fprint(ew, " (not every implementation ran it)")
			}
		}
		fmt.Fprintln(ew)
	}
	fmt.Fprintln(ew, "(* informational: recorded, never fails the gate)")
	for _, v := range pr.Vectors {
		if v.Agree || v.Uncompared {
			continue
		}
		fmt.Fprintf(ew, "\n--- %s (%s): %d groups\n", v.ID, v.Level, len(v.Groups))
		for i, g := range v.Groups {
			label := fmt.Sprintf("group %d", i+1)
			if g.Golden {
				label += " (= golden)"
			}
			fmt.Fprintf(ew, "    %s: %s\n", label, strings.Join(g.Implementations, ", "))
			if !g.Golden {
				fmt.Fprintf(ew, "      differences from the golden bytes:\n%s", indent(sanitize(compare.RenderAll(g.Differences)), "        "))
			}
		}
	}
	fmt.Fprintln(ew)
	for i, rep := range pr.Reports {
		c := rep.Summary
		fmt.Fprintf(ew, "%-*s %s: %d passed, %d failed, %d xfail, %d xpass, %d informational, %d invalid, %d stale; exact parity on %d of %d\n",
			width, names[i], rep.Verdict, c.Passed, c.Failed, c.XFail, c.XPass, c.Informational, c.Invalid, len(rep.Stale), c.ParityExact, c.ParityExact+c.ParityDiffers)
	}
	switch {
	case pr.Passed:
		fmt.Fprintf(ew, "PARITY: %d implementations wrote the golden bytes on all %d required and recommended vectors%s\n", len(names), pr.Gated, uncompared(pr))
	case pr.Disagree > 0:
		fmt.Fprintf(ew, "NO PARITY: on %d of %d required and recommended vectors the implementations do not all write the golden bytes (rows with more than one group above)%s\n", pr.Disagree, pr.Gated, uncompared(pr))
	default:
		fmt.Fprintf(ew, "NO PARITY: every implementation wrote the golden bytes on all %d required and recommended vectors, but at least one implementation's own run failed (see its counts above)%s\n", pr.Gated, uncompared(pr))
	}
	return ew.err
}

// uncompared is what the gate's line adds when some required or
// recommended rows were run by no implementation: they are not among the
// counted (compared) rows, and the line says how many there were.
func uncompared(pr *result.ParityReport) string {
	if pr.Uncompared == 0 {
		return ""
	}
	return fmt.Sprintf("; %d more skipped or not run by every implementation (nothing compared)", pr.Uncompared)
}

func short(s result.Status) string {
	if s == "" {
		return "-"
	}
	return string(s)
}

// ParityJSON writes the parity report as indented JSON.
func ParityJSON(w io.Writer, pr *result.ParityReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(pr)
}

// ParityJUnit writes one testsuite per implementation (as [JUnit] does) plus
// a "parity" testsuite with one testcase per vector that fails when the row
// fails the gate, its message naming the groups. The document's time is the
// longest implementation run's wall time (they run at once).
func ParityJUnit(w io.Writer, pr *result.ParityReport) error {
	doc := junitSuites{Name: pr.Suite.Name}
	for _, rep := range pr.Reports {
		s := junitSuiteOf(rep)
		doc.Suites = append(doc.Suites, s)
	}
	ps := junitSuite{Name: "parity", Tests: len(pr.Vectors), Time: seconds(0),
		Properties: []junitProperty{{"suite", pr.Suite.Name}, {"digest", pr.Suite.Digest}, {"gate", parityGate(pr)}}}
	for _, v := range pr.Vectors {
		c := junitCase{Name: v.ID, Classname: fmt.Sprintf("conform.v%d.%s.parity", pr.Suite.Version, pr.Suite.Role), Time: "0.000"}
		switch {
		case v.Uncompared && v.Failed:
			c.Failure = &junitMessage{Message: "not compared: no implementation ran it", Type: "PARITY"}
			ps.Failures++
		case v.Uncompared:
			c.Skipped = &junitText{Body: "not compared: no implementation ran it"}
			ps.Skipped++
		case !v.Agree:
			var groups []string
			for _, g := range v.Groups {
				tag := ""
				if g.Golden {
					tag = "=golden "
				}
				groups = append(groups, tag+"["+strings.Join(g.Implementations, ", ")+"]")
			}
			msg := sanitize(strings.Join(groups, " vs "))
			switch {
			case v.Failed:
				c.Failure = &junitMessage{Message: msg, Type: "PARITY"}
				ps.Failures++
			default:
				c.Skipped = &junitText{Body: "informational: " + msg}
				ps.Skipped++
			}
		}
		ps.Cases = append(ps.Cases, c)
	}
	doc.Suites = append(doc.Suites, ps)
	var elapsed int64
	for _, rep := range pr.Reports {
		elapsed = max(elapsed, rep.ElapsedMS)
	}
	doc.Time = seconds(elapsed)
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
	}
	return writeJUnit(w, doc)
}

// parityGate is the gate's one-word outcome: PARITY or NO_PARITY.
func parityGate(pr *result.ParityReport) string {
	if pr.Passed {
		return "PARITY"
	}
	return "NO_PARITY"
}
