package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/conform-kit/conform/internal/report"
	kit "github.com/conform-kit/conform/internal/result"
)

// classedReport is a run of an MCP-like suite that judged core and tools
// and not prompts, with the results given.
func classedReport(results ...kit.Result) *kit.Report {
	r := &kit.Report{
		Suite:          kit.SuiteInfo{Name: "conform MCP suite", Title: "MCP", Label: "2025-11-25", Version: 1, Role: "server", Digest: "sha256:" + strings.Repeat("0", 64)},
		Implementation: kit.Implementation{Name: "tiny", Version: "0.4", Command: []string{"tiny"}},
		Classes: []kit.ClassResult{
			{Name: "core", Judged: true, How: kit.HowAlways},
			{Name: "tools", Judged: true, How: kit.HowDerived},
			{Name: "prompts", How: kit.HowNotClaimed},
		},
		Results: results,
	}
	r.Recount()
	return r
}

func res(id, level, class string, st kit.Status, codes ...string) kit.Result {
	r := kit.Result{ID: id, Level: level, Class: class, Status: st}
	for _, c := range codes {
		f := kit.Finding{Code: c, Message: "m"}
		if st == kit.Fail || st == kit.XFail {
			f.Status = kit.Fail
		}
		r.Findings = append(r.Findings, f)
	}
	return r
}

// TestVerdictLineClasses: the verdict line names the implementation, the
// suite's title, role and version label, the judged classes, the counts of
// the judged classes' required and recommended vectors, the skips, the
// classes not claimed, and a contradicted claim.
func TestVerdictLineClasses(t *testing.T) {
	t.Parallel()
	const tail = " (sha256:0000000000000000000000000000000000000000000000000000000000000000)"
	notClaimed := []kit.Result{
		res("p1", "required", "prompts", kit.Skipped, kit.FindingClassNotClaimed),
		res("p2", "recommended", "prompts", kit.Skipped, kit.FindingClassNotClaimed),
	}
	for _, tc := range []struct {
		name string
		rep  *kit.Report
		want string
	}{
		{"certified", classedReport(append([]kit.Result{
			res("a", "required", "core", kit.Pass), res("b", "recommended", "core", kit.Pass),
			res("c", "required", "tools", kit.Pass), res("d", "recommended", "tools", kit.Skipped, kit.FindingRequirementUnmet)}, notClaimed...)...),
			"CERTIFIED: tiny 0.4 — MCP server 2025-11-25 [core, tools]: 2/2 required, 1/2 recommended; 1 skipped (requires not met); not claimed: prompts (2 vectors)"},
		{"core alone", func() *kit.Report {
			r := classedReport(res("a", "required", "core", kit.Pass), res("t", "required", "tools", kit.Skipped, kit.FindingClassNotClaimed))
			r.Classes[1].Judged, r.Classes[1].How = false, kit.HowNotClaimed
			r.Recount()
			return r
		}(), "CERTIFIED: tiny 0.4 — MCP server 2025-11-25 [core]: 1/1 required, 0/0 recommended; not claimed: tools, prompts (1 vector)"},
		{"not certified", classedReport(res("a", "required", "core", kit.Pass), res("c", "required", "tools", kit.Fail, kit.FindingRequirementUnmet)),
			"NOT CERTIFIED: tiny 0.4 — MCP server 2025-11-25 [core, tools]: 1/2 required, 0/0 recommended; not claimed: prompts (0 vectors)"},
		{"excused", classedReport(res("a", "required", "core", kit.Pass), res("c", "required", "tools", kit.XFail, "VALUE_CHANGED")),
			"PASSED WITH EXPECTED FAILURES (not certified: 1 required and 0 recommended vector excused by the expected-failure list): tiny 0.4 — MCP server 2025-11-25 [core, tools]: 1/2 required, 0/0 recommended; not claimed: prompts (0 vectors)"},
		{"contradicted", func() *kit.Report {
			r := classedReport(res("a", "required", "core", kit.Pass))
			r.Classes[1].How, r.Classes[1].Contradicted = kit.HowClaimed, true
			r.Findings = []kit.Finding{{Code: kit.FindingClaimContradicted, Status: kit.Fail, Message: "m"}}
			r.Recount()
			return r
		}(), "NOT CERTIFIED: tiny 0.4 — MCP server 2025-11-25 [core, tools]: 1/1 required, 0/0 recommended; not claimed: prompts (0 vectors); claim contradicted: tools"},
		{"no classes (an older report)", func() *kit.Report {
			r := classedReport(res("a", "required", "", kit.Pass))
			r.Classes, r.Suite.Title, r.Suite.Label = nil, "", ""
			r.Recount()
			return r
		}(), "CERTIFIED: tiny 0.4 — conform MCP suite server v1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := report.VerdictLine(tc.rep); got != tc.want+tail {
				t.Errorf("verdict line\n got %s\nwant %s", got, tc.want+tail)
			}
		})
	}
}

// TestTextNotClaimed: the text report lists a class not judged once, with
// its number of vectors, and never its vectors one by one or as failures.
func TestTextNotClaimed(t *testing.T) {
	t.Parallel()
	r := classedReport(res("a", "required", "core", kit.Pass),
		res("p-one", "required", "prompts", kit.Skipped, kit.FindingClassNotClaimed),
		res("p-two", "recommended", "prompts", kit.Skipped, kit.FindingClassNotClaimed))
	var b bytes.Buffer
	if err := report.Text(&b, r, true); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"p-one", "p-two", "FAIL"} {
		if strings.Contains(out, bad) {
			t.Errorf("text report mentions %q:\n%s", bad, out)
		}
	}
	for _, want := range []string{"  prompts          not claimed  2 vectors not run (SKIPPED: CLASS_NOT_CLAIMED)\n",
		"required       1 passed, 0 failed, 0 xfail (excused), 0 xpass, 1 not claimed (of 2)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
}
