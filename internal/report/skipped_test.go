package report_test

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/runner"
)

// skippedReport is a CERTIFIED run that skipped a required vector of a
// class it did not claim and a recommended vector whose requirement the
// implementation does not meet.
func skippedReport() *runner.Report {
	full := fullReport()
	return recount(&runner.Report{
		Suite:          full.Suite,
		Implementation: runner.Implementation{Name: "tiny", Command: []string{"tiny"}},
		Invocation:     []string{"run", "--role", "agent", "--version", "1", "--", "tiny"},
		Results: []runner.Result{
			{ID: "ping", Level: "required", Status: runner.Pass, Parity: runner.ParityExact},
			{ID: "tools-list", Level: "required", Status: runner.Skipped,
				Findings: []runner.Finding{{Code: "CLASS_NOT_CLAIMED", Message: "class resources is not claimed"}}},
			{ID: "log-level", Level: "recommended", Status: runner.Skipped,
				Findings: []runner.Finding{{Code: runner.FindingRequirementUnmet, Message: "no frame of the preflight matches /result/capabilities/logging"}}},
		},
	})
}

// TestSkippedNeverFails: a SKIPPED vector is never a failure in any
// printer, and each says how many were skipped and why.
func TestSkippedNeverFails(t *testing.T) {
	t.Parallel()
	r := skippedReport()
	if r.Verdict != runner.VerdictCertified || r.Summary.Skipped != 2 {
		t.Fatalf("fixture: verdict %s, %d skipped; want CERTIFIED, 2", r.Verdict, r.Summary.Skipped)
	}

	compact := string(render(t, func(w io.Writer) error { return report.Compact(w, r, report.TextOptions{}) }))
	if strings.Contains(compact, "tools-list") || strings.Contains(compact, "log-level") || !strings.Contains(compact, " 2 skipped,") {
		t.Errorf("compact: a skipped vector has a line, or the count is missing:\n%s", compact)
	}

	summary := string(render(t, func(w io.Writer) error { return report.GitHubSummary(w, r) }))
	before, after, ok := strings.Cut(summary, "#### Vectors skipped")
	if !ok || strings.Contains(before, "tools-list") || !strings.Contains(after, "CLASS\\_NOT\\_CLAIMED: class resources is not claimed") ||
		!strings.Contains(after, "`log-level` | recommended | REQUIREMENT\\_UNMET") || strings.Contains(summary, "did not pass") {
		t.Errorf("step summary: skipped vectors not apart with why:\n%s", summary)
	}

	var doc struct {
		Suites []struct {
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Skipped  int `xml:"skipped,attr"`
			Cases    []struct {
				Name    string  `xml:"name,attr"`
				Skipped *string `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	junit := render(t, func(w io.Writer) error { return report.JUnit(w, r) })
	if err := xml.Unmarshal(junit, &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Suites[0]
	if s.Failures+s.Errors != 0 || s.Skipped != 2 {
		t.Errorf("JUnit: %d failures, %d errors, %d skipped; want 0, 0, 2:\n%s", s.Failures, s.Errors, s.Skipped, junit)
	}
	want := map[string]string{"tools-list": "skipped, required: CLASS_NOT_CLAIMED: class resources is not claimed",
		"log-level": "skipped, recommended: REQUIREMENT_UNMET: no frame of the preflight matches /result/capabilities/logging"}
	for _, c := range s.Cases {
		if w, ok := want[c.Name]; ok && (c.Skipped == nil || *c.Skipped != w) {
			t.Errorf("JUnit %s: <skipped> %v, want %q", c.Name, c.Skipped, w)
		}
	}

	// The matrix: the badge counts them, the page lists them apart, and
	// the overview cell links to why.
	suite, err := runner.Open(conform.Suite())
	if err != nil {
		t.Fatal(err)
	}
	r.Suite.Name, r.Suite.Digest = suite.Manifest.Name, suite.Digest
	m, err := runner.BuildMatrix([]runner.MatrixInput{{Name: "tiny", Report: r}})
	if err != nil {
		t.Fatal(err)
	}
	badge := string(render(t, func(w io.Writer) error { return report.MatrixBadge(w, m, "tiny", "") }))
	if !strings.Contains(badge, "certified · 1 passed · 2 skipped") {
		t.Errorf("badge does not count the skipped vectors:\n%s", badge)
	}
	page := string(render(t, func(w io.Writer) error { return report.MatrixPageMarkdown(w, m, "tiny", report.MatrixOptions{}) }))
	failures, rest, _ := strings.Cut(page, "### Skipped")
	if strings.Contains(failures, "tools-list") || !strings.Contains(page, "No required or recommended vector failed.") ||
		!strings.Contains(rest, "`CLASS_NOT_CLAIMED` (SKIPPED)") || !strings.Contains(rest, "`REQUIREMENT_UNMET` (SKIPPED)") {
		t.Errorf("page: skipped vectors are not apart with why:\n%s", page)
	}
	html := string(render(t, func(w io.Writer) error { return report.MatrixPageHTML(w, m, "tiny", report.MatrixOptions{}) }))
	if !strings.Contains(html, `data-kind="skipped"`) || !strings.Contains(html, `data-count="skipped">1</td>`) {
		t.Errorf("HTML page: no skipped group or count")
	}
}

// classReport is skippedReport with conformance classes: ping of core
// (always judged), tools-list of tools (not claimed), log-level of logging
// (derived, its requirement unmet).
func classReport() *runner.Report {
	r := skippedReport()
	r.Suite.Title = "MCP"
	for i, class := range []string{"core", "tools", "logging"} {
		r.Results[i].Class = class
	}
	r.Classes = []runner.ClassResult{
		{Name: "core", Title: "MCP server core", Judged: true, How: "always"},
		{Name: "tools", Title: "MCP server tools", How: "not-claimed"},
		{Name: "logging", Title: "MCP server logging", Judged: true, How: "derived"},
	}
	r.Recount()
	return r
}

// TestClassesInPrinters: the compact line, the step summary, JUnit and the
// badge name the classes and, per class, passed, failed, excused, skipped
// and not claimed.
func TestClassesInPrinters(t *testing.T) {
	t.Parallel()
	r := classReport()
	if got := strings.Join(r.Certifies, ","); got != "core,logging" {
		t.Fatalf("fixture: certifies %q", got)
	}
	const line = "core: 1 passed; tools: not claimed (1); logging: 0 passed, 1 skipped"
	if got := report.ClassesLine(r.Classes); got != line {
		t.Errorf("ClassesLine = %q, want %q", got, line)
	}
	compact := string(render(t, func(w io.Writer) error { return report.Compact(w, r, report.TextOptions{}) }))
	if !strings.Contains(compact, "\nclasses: "+line+"\n") && !strings.HasPrefix(compact, "classes: "+line+"\n") {
		t.Errorf("compact: no classes line:\n%s", compact)
	}
	summary := string(render(t, func(w io.Writer) error { return report.GitHubSummary(w, r) }))
	for _, want := range []string{"Certifies [core, logging].", "| `core` | yes (always) | 1 | 0 | 0 | 0 | 0 | 1 |",
		"| `tools` | no (not claimed) | 0 | 0 | 0 | 0 | 1 | 1 |", "| `logging` | yes (derived) | 0 | 0 | 0 | 1 | 0 | 1 |"} {
		if !strings.Contains(summary, want) {
			t.Errorf("step summary lacks %q:\n%s", want, summary)
		}
	}
	junit := string(render(t, func(w io.Writer) error { return report.JUnit(w, r) }))
	for _, want := range []string{`<property name="certifies" value="core, logging"></property>`,
		`<property name="class tools" value="tools: not claimed (1)"></property>`,
		`<testcase name="tools-list" classname="conform.v1.agent.tools"`} {
		if !strings.Contains(junit, want) {
			t.Errorf("JUnit lacks %s:\n%s", want, junit)
		}
	}
	suite, err := runner.Open(conform.Suite())
	if err != nil {
		t.Fatal(err)
	}
	r.Suite.Name, r.Suite.Digest = suite.Manifest.Name, suite.Digest
	m, err := runner.BuildMatrix([]runner.MatrixInput{{Name: "tiny", Report: r}})
	if err != nil {
		t.Fatal(err)
	}
	badge := string(render(t, func(w io.Writer) error { return report.MatrixBadge(w, m, "tiny", "agent-v1") }))
	if !strings.Contains(badge, ">MCP agent · core+logging</text>") {
		t.Errorf("badge does not name the suite, role and classes:\n%s", badge)
	}
}
