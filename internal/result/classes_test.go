package result_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/result"
)

func classReport(results ...result.Result) *result.Report {
	return &result.Report{
		Classes: []result.ClassResult{
			{Name: "core", Judged: true, How: result.HowAlways},
			{Name: "tools", Judged: true, How: result.HowDerived},
			{Name: "prompts", Judged: false, How: result.HowNotClaimed},
		},
		Results: results,
	}
}

var notClaimed = []result.Finding{{Code: result.FindingClassNotClaimed, Message: "not judged"}}

var classResults = []result.Result{
	{ID: "a", Level: result.LevelRequired, Class: "core", Status: result.Pass},
	{ID: "b", Level: result.LevelRecommended, Class: "core", Status: result.Fail, Findings: []result.Finding{{Code: "VALUE_CHANGED", Status: result.Fail}}},
	{ID: "c", Level: result.LevelInformational, Class: "core", Status: result.Crash, Findings: []result.Finding{{Code: "EXIT_EARLY", Status: result.Crash}}},
	{ID: "d", Level: result.LevelRequired, Class: "tools", Status: result.XFail, Findings: []result.Finding{{Code: "VALUE_CHANGED", Status: result.Fail}}},
	{ID: "e", Level: result.LevelRecommended, Class: "tools", Status: result.Skipped, Findings: []result.Finding{{Code: result.FindingRequirementUnmet}}},
	{ID: "f", Level: result.LevelRequired, Class: "prompts", Status: result.Skipped, Findings: notClaimed},
	{ID: "g", Level: result.LevelRecommended, Class: "prompts", Status: result.Skipped, Findings: notClaimed},
	{ID: "h", Level: result.LevelRequired, Class: "tools", Status: result.NotRun},
}

// TestRecountClasses: Recount fills each class's counts (every result in
// exactly one bucket) and Certifies from the judged classes, and counts
// not-claimed skips in the summary.
func TestRecountClasses(t *testing.T) {
	t.Parallel()
	r := classReport(classResults...)
	r.Recount()
	want := []result.ClassResult{
		{Name: "core", Judged: true, How: result.HowAlways, Total: 3, Passed: 1, Failed: 1, Informational: 1,
			Required: result.ClassLevel{Total: 1, Passed: 1}, Recommended: result.ClassLevel{Total: 1}},
		{Name: "tools", Judged: true, How: result.HowDerived, Total: 3, XFail: 1, Skipped: 1, NotRun: 1,
			Required: result.ClassLevel{Total: 2}, Recommended: result.ClassLevel{Total: 1}},
		{Name: "prompts", How: result.HowNotClaimed, Total: 2, NotClaimed: 2,
			Required: result.ClassLevel{Total: 1}, Recommended: result.ClassLevel{Total: 1}},
	}
	if diff := cmp.Diff(want, r.Classes); diff != "" {
		t.Errorf("classes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"core", "tools"}, r.Certifies); diff != "" {
		t.Errorf("certifies (-want +got):\n%s", diff)
	}
	if r.Summary.Skipped != 3 || r.Summary.NotClaimed != 2 {
		t.Errorf("summary skipped %d, not claimed %d; want 3 and 2", r.Summary.Skipped, r.Summary.NotClaimed)
	}
}

// TestRecountMerged: the results of two shards, put together, recount to
// the classes of the whole run, whatever counts the shards carried.
func TestRecountMerged(t *testing.T) {
	t.Parallel()
	whole := classReport(classResults...)
	whole.Recount()
	a, b := classReport(classResults[:4]...), classReport(classResults[4:]...)
	a.Recount()
	b.Recount()
	merged := classReport(append(append([]result.Result(nil), a.Results...), b.Results...)...)
	merged.Classes = a.Classes // the shard's counts, recomputed below
	merged.Recount()
	if diff := cmp.Diff(whole.Classes, merged.Classes); diff != "" {
		t.Errorf("merged classes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(whole.Summary, merged.Summary); diff != "" {
		t.Errorf("merged summary (-want +got):\n%s", diff)
	}
}

// TestReportFindingsFail: a report-level finding with a status (a
// contradicted claim) makes a run that passed every vector NOT_CERTIFIED;
// one without a status is a note.
func TestReportFindingsFail(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		findings []result.Finding
		verdict  string
	}{
		{"none", nil, result.VerdictCertified},
		{"note", []result.Finding{{Code: "X", Message: "m"}}, result.VerdictCertified},
		{"contradicted", []result.Finding{{Code: result.FindingClaimContradicted, Status: result.Fail, Message: "m"}}, result.VerdictNotCertified},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := classReport(result.Result{ID: "a", Level: result.LevelRequired, Class: "core", Status: result.Pass})
			r.Findings = tc.findings
			r.Recount()
			if r.Verdict != tc.verdict {
				t.Errorf("verdict %s, want %s", r.Verdict, tc.verdict)
			}
		})
	}
}
