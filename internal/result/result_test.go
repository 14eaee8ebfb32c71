package result

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/kiterr"
)

func TestJudge(t *testing.T) {
	t.Parallel()
	schema := Finding{Code: FindingFrameSchema, Status: SchemaViolation, Message: "m"}
	proto := Finding{Code: FindingFrameNotJSON, Status: ProtocolError, Message: "m"}
	crash := Finding{Code: FindingExitEarly, Status: Crash, Message: "m"}
	note := Finding{Code: FindingHostSent, Message: "m"}
	for _, tc := range []struct {
		name     string
		level    string
		findings []Finding
		want     Status
		cleared  int // findings whose status Judge cleared
	}{
		{"none", LevelRequired, nil, Pass, 0},
		{"a note never decides", LevelRequired, []Finding{note}, Pass, 0},
		{"most severe wins", LevelRequired, []Finding{schema, crash, proto}, Crash, 0},
		{"schema", LevelRecommended, []Finding{note, schema}, SchemaViolation, 0},
		{"informational observations are notes", LevelInformational, []Finding{schema, proto}, Pass, 2},
		{"informational crashes still count", LevelInformational, []Finding{schema, crash}, Crash, 1},
	} {
		in := append([]Finding(nil), tc.findings...)
		got, out := Judge(tc.level, in)
		if got != tc.want {
			t.Errorf("%s: Judge = %s, want %s", tc.name, got, tc.want)
		}
		cleared := 0
		for i := range out {
			if out[i].Status == "" && tc.findings[i].Status != "" {
				cleared++
			}
		}
		if cleared != tc.cleared {
			t.Errorf("%s: %d statuses cleared, want %d", tc.name, cleared, tc.cleared)
		}
		if diff := cmp.Diff(tc.findings, in); diff != "" {
			t.Errorf("%s: Judge changed the caller's findings:\n%s", tc.name, diff)
		}
	}
}

func TestStatusFollows(t *testing.T) {
	t.Parallel()
	fail := Finding{Code: FindingValueChanged, Status: Fail, Message: "m"}
	for _, tc := range []struct {
		r    Result
		want bool
	}{
		{Result{Level: LevelRequired, Status: Pass}, true},
		{Result{Level: LevelRequired, Status: Fail}, false},
		{Result{Level: LevelRequired, Status: Fail, Findings: []Finding{fail}}, true},
		{Result{Level: LevelRequired, Status: Pass, Findings: []Finding{fail}}, false},
		{Result{Level: LevelRequired, Status: XFail, Findings: []Finding{fail}}, true},
		{Result{Level: LevelRequired, Status: XFail}, false},
		{Result{Level: LevelRequired, Status: XPass, Findings: []Finding{{Code: FindingUnexpectedPass, Status: XPass}}}, true},
		{Result{Level: LevelRequired, Status: XPass, Findings: []Finding{fail}}, false},
		{Result{Level: LevelInformational, Status: ProtocolError, Findings: []Finding{{Code: FindingFrameNotJSON, Status: ProtocolError}}}, false},
		{Result{Level: LevelRequired, Status: NotRun}, true},
		{Result{Level: LevelRequired, Status: Invalid}, true},
	} {
		if got := StatusFollows(tc.r); got != tc.want {
			t.Errorf("StatusFollows(%s %s %v) = %v, want %v", tc.r.Level, tc.r.Status, tc.r.Findings, got, tc.want)
		}
	}
}

// TestCauses: one cause per cell that did not pass, grouped by code and
// pointer within each kind; allowed differences one cause per place;
// repro lines rerun exactly the vectors of a cause.
func TestCauses(t *testing.T) {
	t.Parallel()
	missing := func(id string) Finding {
		return Finding{Code: FindingReplyMissing, Status: Timeout, Message: "no reply to " + id}
	}
	diff := func(ptr string, normative bool) compare.Difference {
		return compare.Difference{Frame: `control_response "r"`, Pointer: ptr, Kind: compare.MemberAdded, Actual: json.RawMessage(`1`), Normative: normative}
	}
	results := []Result{
		{ID: "a", Level: LevelRequired, Status: Timeout, Findings: []Finding{missing("a")}},
		{ID: "b", Level: LevelRecommended, Status: XFail, Reason: "known", Findings: []Finding{missing("b")}},
		{ID: "c", Level: LevelRequired, Status: XFail, Reason: "known", Findings: []Finding{missing("c")}},
		{ID: "d", Level: LevelRequired, Status: Fail, Parity: ParityDiffers, Differences: []compare.Difference{diff("/x", true), diff("/y", true)},
			Findings: []Finding{{Code: compare.MemberAdded, Status: Fail, Message: "restated"}}},
		{ID: "e", Level: LevelInformational, Status: Timeout, Findings: []Finding{missing("e")}},
		{ID: "f", Level: LevelRequired, Status: Pass, Parity: ParityDiffers, Differences: []compare.Difference{diff("/t", false), diff("/u", false)}},
		{ID: "g", Level: LevelRequired, Status: Pass, Parity: ParityDiffers, Differences: []compare.Difference{diff("/t", false)}},
		{ID: "h", Level: LevelRequired, Status: Pass, Parity: ParityExact},
		{ID: "i", Level: LevelRequired, Status: XPass, Findings: []Finding{{Code: FindingUnexpectedPass, Status: XPass, Message: "passed"}}},
		{ID: "j", Level: LevelRequired, Status: NotRun},
	}
	rep := &Report{Suite: SuiteInfo{Name: "s", Version: 1, Role: "agent", Digest: "d"}, Implementation: Implementation{Name: "x"}, Results: results,
		Invocation: []string{"run", "--role", "agent", "--version", "1", "--", "./x"}}
	rep.Recount()
	m, err := BuildMatrix([]MatrixInput{{Name: "x", Report: rep}})
	if err != nil {
		t.Fatal(err)
	}
	type cause struct {
		Kind, Code, Pointer string
		IDs                 []string
		Reasons             []string
		Filter              string
	}
	var got []cause
	for _, c := range m.Sections[0].Columns[0].Causes {
		g := cause{Kind: c.Kind, Code: c.Code, Pointer: c.Pointer, Reasons: c.Reasons}
		for _, v := range c.Vectors {
			g.IDs = append(g.IDs, v.ID)
		}
		for i, a := range c.Repro {
			if a == "--filter" {
				g.Filter = c.Repro[i+1]
			}
		}
		if c.Repro[len(c.Repro)-2] != "--" || c.Repro[len(c.Repro)-1] != "./x" {
			t.Errorf("repro %q does not end with the IUT command", c.Repro)
		}
		got = append(got, g)
	}
	want := []cause{
		{Kind: CauseFailed, Code: compare.MemberAdded, Pointer: "/x", IDs: []string{"d"}, Filter: "d"},
		{Kind: CauseFailed, Code: FindingReplyMissing, IDs: []string{"a"}, Filter: "a"},
		{Kind: CauseFailed, Code: FindingUnexpectedPass, IDs: []string{"i"}, Filter: "i"},
		{Kind: CauseXFail, Code: FindingReplyMissing, IDs: []string{"b", "c"}, Reasons: []string{"known"}, Filter: "{b,c}"},
		{Kind: CauseInformational, Code: FindingReplyMissing, IDs: []string{"e"}, Filter: "e"},
		{Kind: CauseAllowed, Code: compare.MemberAdded, Pointer: "/t", IDs: []string{"f", "g"}, Filter: "{f,g}"},
		{Kind: CauseAllowed, Code: compare.MemberAdded, Pointer: "/u", IDs: []string{"f"}, Filter: "f"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("causes (-want +got):\n%s", d)
	}
	if c := m.Sections[0].Columns[0].Causes[3]; c.Messages != 2 || c.Message != "no reply to b" {
		t.Errorf("xfail cause: message %q of %d wordings, want the first of 2", c.Message, c.Messages)
	}
}

func TestSetTrend(t *testing.T) {
	t.Parallel()
	rep := &Report{Suite: SuiteInfo{Name: "s", Version: 1, Role: "agent", Digest: "d"}, Implementation: Implementation{Name: "cli"},
		Results: []Result{{ID: "a", Level: LevelRequired, Status: Pass, Parity: ParityExact}}}
	rep.Recount()
	m, err := BuildMatrix([]MatrixInput{{Name: "cli", Report: rep}})
	if err != nil {
		t.Fatal(err)
	}
	p := func(label, date string) TrendPoint {
		return TrendPoint{Label: label, Released: date, Role: "agent", Version: 1, Verdict: VerdictCertified}
	}
	if err := m.SetTrend("cli", []TrendPoint{p("2.1.10", "2026-02-01"), p("2.1.9", "2026-01-01")}); err != nil {
		t.Fatal(err)
	}
	if got := m.Implementations[0].Trend; got[0].Label != "2.1.9" || got[1].Label != "2.1.10" {
		t.Errorf("trend order %q, %q; want by release date", got[0].Label, got[1].Label)
	}
	bad := p("x", "2026-01-01")
	for _, tc := range []struct {
		name   string
		points []TrendPoint
	}{
		{"cil", []TrendPoint{p("1", "")}},
		{"cli", []TrendPoint{p("1 | x", "")}},
		{"cli", []TrendPoint{p("1", "01/02/2026")}},
		{"cli", []TrendPoint{func() TrendPoint { b := bad; b.Verdict = "GREAT"; return b }()}},
		{"cli", []TrendPoint{func() TrendPoint { b := bad; b.Role = "Agent Role"; return b }()}},
	} {
		if err := m.SetTrend(tc.name, tc.points); kiterr.CodeOf(err) != kiterr.Usage {
			t.Errorf("SetTrend(%q, %+v) = %v, want USAGE", tc.name, tc.points, err)
		}
	}
}
