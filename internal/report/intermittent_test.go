package report_test

import (
	"io"
	"strings"
	"testing"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/runner"
)

// TestIntermittentCountsStable: a vector listed as an intermittent
// expected failure counts as "intermittent" in the overview whether it
// passed or failed this time, so that two runs of a racy implementation
// give the same overview line (CI compares it with the committed matrix).
func TestIntermittentCountsStable(t *testing.T) {
	t.Parallel()
	suite, err := runner.Open(conform.Suite())
	if err != nil {
		t.Fatal(err)
	}
	const why = runner.IntermittentPrefix + " start-up events race the reply"
	row := func(status runner.Status) string {
		r := recount(&runner.Report{
			Suite:          runner.SuiteInfo{Name: suite.Manifest.Name, Digest: suite.Digest, Version: 1, Role: "agent"},
			Implementation: runner.Implementation{Name: "racy", Command: []string{"racy"}},
			Invocation:     []string{"run", "--role", "agent", "--version", "1", "--", "racy"},
			Results: []runner.Result{
				{ID: "ping", Level: "required", Status: runner.Pass, Parity: runner.ParityExact},
				{ID: "bug", Level: "required", Status: runner.XFail, Reason: "a known bug",
					Findings: []runner.Finding{{Code: runner.FindingExpectedFailure, Message: "expected failure: a known bug"}}},
				{ID: "race", Level: "required", Status: status, Reason: why},
			},
		})
		m, err := runner.BuildMatrix([]runner.MatrixInput{{Name: "racy", Report: r}})
		if err != nil {
			t.Fatal(err)
		}
		out := string(render(t, func(w io.Writer) error { return report.MatrixMarkdown(w, m) }))
		for line := range strings.Lines(out) {
			if strings.HasPrefix(line, "| racy ") || strings.HasPrefix(line, "| [racy]") {
				return line
			}
		}
		t.Fatalf("no overview row for racy:\n%s", out)
		return ""
	}
	passed, failed := row(runner.Pass), row(runner.XFail)
	if passed != failed {
		t.Errorf("the overview row depends on the race:\npassed: %sfailed: %s", passed, failed)
	}
	if !strings.Contains(passed, "1 passed · 1 xfail · 1 intermittent · 0 failed") {
		t.Errorf("overview row does not count the intermittent vector apart: %s", passed)
	}
}
