package report_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gotest.tools/v3/golden"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/internal/schema"
	"github.com/conform-kit/conform/runner"
)

// Hostile text an IUT (or a forged report) can put in a matrix: markup that
// would run a script, close the cell or the table and open new ones; a
// right-to-left override (U+202E) that would show "exe.gnp" as "png.exe"; a
// terminal escape, NUL and BEL; a newline; Markdown that would make a link,
// emphasis, a table cell or an @mention.
const (
	hostileScript = `<script>window.__pwned=1;document.title="pwned"</script>`
	hostileName   = "Evil IUT 6.6.6 " + hostileScript + "</td><td>injected</td></tr><tr><td>row" +
		"\u202Eexe.gnp\u202C" + "\x1b[31m\x00\x07" + "\nnext line `|` *em* [x](javascript:alert(1)) @octocat"
	hostileMessage = `reply was </td></tr></table><img src=x onerror="window.__pwned=2"><table><tr><td>` +
		"\u2066isolate\u2069 \u200Bzero-width \u202Eevil\u202C ```fence``` | pipe"
	hostileReason = "known bug \u202E}esrever{ <b>bold</b>\r\n<!-- comment -->"
)

// hostileText is how the page must show hostileName: every character as
// text, control and format characters spelled as escapes. It is written out
// here, not computed with the printer's own function.
const hostileText = "Evil IUT 6.6.6 " + hostileScript + "</td><td>injected</td></tr><tr><td>row" +
	`\u202eexe.gnp\u202c` + `\u001b[31m\u0000\u0007` + `\nnext line ` + "`|` *em* [x](javascript:alert(1)) @octocat"

// hostileMatrix builds the matrix of three hostile reports (written as JSON
// and read back through runner.ReadReport, as conform matrix --from does)
// and a clean one, over two sections: agent v1 (clean and evil columns,
// every kind of cell) and agent v2 (evil failed the preflight).
func hostileMatrix(t *testing.T) *runner.Matrix {
	t.Helper()
	s, err := runner.Open(conform.Suite())
	if err != nil {
		t.Fatal(err)
	}
	suite := func(version int) runner.SuiteInfo {
		return runner.SuiteInfo{Name: s.Manifest.Name, Version: version, Role: "agent", Digest: s.Digest}
	}
	evilImpl := runner.Implementation{Name: hostileName, Command: []string{"/opt/evil", hostileMessage}}
	evilInvocation := []string{"run", "--role", "agent", "--version", "1", "--profile", "impl/</code>" + hostileScript + "\u202E"}
	clean := []runner.Result{
		{ID: "alpha", Level: "required", Status: runner.Pass, Parity: runner.ParityExact},
		{ID: "beta", Level: "required", Status: runner.Pass, Parity: runner.ParityExact},
		{ID: "gamma", Level: "recommended", Status: runner.Pass, Parity: runner.ParityExact},
		{ID: "delta", Level: "informational", Status: runner.Pass, Parity: runner.ParityExact},
	}
	evil := []runner.Result{
		{ID: "alpha", Level: "required", Status: runner.Pass, Parity: runner.ParityDiffers, DurationMS: 12,
			Findings: []runner.Finding{{Code: runner.FindingParityDiffers, Message: "note " + hostileMessage}},
			Differences: []compare.Difference{{Frame: `control_response "req-1"`, Pointer: "/response/toolUseID", Kind: compare.MemberAdded,
				Actual: canonical(hostileMessage), Rule: "added member the schema does not declare"}}},
		{ID: "beta", Level: "required", Status: runner.Fail, Parity: runner.ParityDiffers, DurationMS: 40, Stderr: hostileMessage,
			Findings: []runner.Finding{
				{Code: runner.FindingHostSent, Message: "the host sent the agent " + hostileMessage},
				{Code: compare.ValueChanged, Status: runner.Fail, Message: hostileMessage},
			},
			Differences: []compare.Difference{{Frame: `control_response "req-1"`, Pointer: "/response/message", Kind: compare.ValueChanged,
				Golden: canonical("ok"), Actual: canonical(hostileMessage), Normative: true}}},
		{ID: "gamma", Level: "recommended", Status: runner.XFail, Parity: runner.ParityDiffers, Reason: hostileReason,
			Findings: []runner.Finding{
				{Code: runner.FindingReplyMissing, Status: runner.Timeout, Message: "no reply within 10s to " + hostileMessage},
				{Code: runner.FindingExpectedFailure, Message: "expected failure: " + hostileReason},
			}},
		{ID: "delta", Level: "informational", Status: runner.Crash,
			Findings: []runner.Finding{
				{Code: runner.FindingFrameNotJSON, Message: "line 1 is not JSON: " + hostileMessage},
				{Code: runner.FindingExitEarly, Status: runner.Crash, Message: "exited 1 before it replied: " + hostileMessage},
			}},
	}
	preflight := runner.Result{ID: "alpha", Level: "required", Status: runner.Fail, Parity: runner.ParityDiffers,
		Findings: []runner.Finding{{Code: runner.FindingVersionUnsupported, Status: runner.Fail, Message: "did not negotiate: " + hostileMessage}}}
	v2 := []runner.Result{preflight}
	for _, r := range clean[1:] {
		v2 = append(v2, runner.Result{ID: r.ID, Level: r.Level, Status: runner.NotRun})
	}
	reports := []struct {
		name string
		rep  *runner.Report
	}{
		{"clean", &runner.Report{Suite: suite(1), Implementation: runner.Implementation{Name: "clean 1.0", Command: []string{"clean"}}, Results: clean,
			Invocation: []string{"run", "--role", "agent", "--version", "1", "--", "clean"}}},
		{"evil", &runner.Report{Suite: suite(1), Implementation: evilImpl, Results: evil, Invocation: evilInvocation}},
		{"clean", &runner.Report{Suite: suite(2), Implementation: runner.Implementation{Name: "clean 1.0", Command: []string{"clean"}}, Results: clean}},
		{"evil", &runner.Report{Suite: suite(2), Implementation: evilImpl, Results: v2, Preflight: &preflight}},
	}
	var inputs []runner.MatrixInput
	for _, r := range reports {
		r.rep.Recount()
		var buf bytes.Buffer
		if err := report.JSON(&buf, r.rep); err != nil {
			t.Fatal(err)
		}
		back, err := runner.ReadReport(s, buf.Bytes())
		if err != nil {
			t.Fatalf("ReadReport(%s): %v", r.name, err)
		}
		inputs = append(inputs, runner.MatrixInput{Name: r.name, Report: back})
	}
	m, err := runner.BuildMatrix(inputs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMatrixGolden pins the three formats of the hostile matrix (update
// with go test ./internal/report -update).
func TestMatrixGolden(t *testing.T) {
	t.Parallel()
	m := hostileMatrix(t)
	// The golden files must not change with every suite edit: the digest
	// is the embedded suite's, so it is pinned here.
	m.Suite.Digest = "sha256:" + strings.Repeat("0", 64)
	for _, tc := range []struct {
		file string
		fn   func(*bytes.Buffer) error
	}{
		{"matrix.md.golden", func(b *bytes.Buffer) error { return report.MatrixMarkdown(b, m) }},
		{"matrix.html.golden", func(b *bytes.Buffer) error { return report.MatrixHTML(b, m) }},
		{"matrix.json.golden", func(b *bytes.Buffer) error { return report.MatrixJSON(b, m) }},
	} {
		var b bytes.Buffer
		if err := tc.fn(&b); err != nil {
			t.Fatal(err)
		}
		golden.Assert(t, b.String(), tc.file)
	}
}

// TestMatrixJSONValidates checks the JSON form against
// schemas/matrix.schema.json.
func TestMatrixJSONValidates(t *testing.T) {
	t.Parallel()
	sch, err := schema.NewSet(conform.Suite()).Compile("schemas/matrix.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	m := hostileMatrix(t)
	// Every optional member: a run's start and kit, a history, a row's
	// file and source, and a skipped vector's cause.
	m.Sections[0].Columns[0].Started = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	m.Sections[0].Columns[0].Kit = runner.Kit{Version: "(devel)", Revision: "0123abcd"}
	m.Sections[0].Rows[0].Path, m.Sections[0].Rows[0].Source = "vectors/v1/agent/alpha.json", "MCP 2025-11-25 Basic, 'Lifecycle'"
	m.Sections[0].Columns[0].Causes = append(m.Sections[0].Columns[0].Causes, runner.MatrixCause{Kind: "skipped", Code: "CLASS_NOT_CLAIMED", Status: runner.Skipped,
		Message: "class tools is not claimed", Messages: 1, Vectors: []runner.CauseVector{{ID: "alpha", Level: "required", Status: runner.Skipped}},
		Repro: []string{"conform", "run", "--filter", "alpha"}})
	if err := m.AddHistory("clean", []runner.HistoryPoint{{Version: "0.9", Date: "2026-11-01", Role: "agent", SuiteVersion: 1, Verdict: "NOT_CERTIFIED", Failed: 2}}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.MatrixJSON(&b, m); err != nil {
		t.Fatal(err)
	}
	v, err := canon.Parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if viol := sch.Validate(v); viol != nil {
		t.Errorf("matrix JSON does not validate against schemas/matrix.schema.json: %v", viol)
	}
}

// TestMatrixMarkdownInert checks that no text from a report acts in the
// Markdown: every line that holds hostile text holds it inside a code
// span, and no raw control or bidi character, newline or unfenced markup
// reaches the output.
func TestMatrixMarkdownInert(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := report.MatrixMarkdown(&b, hostileMatrix(t)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, r := range out {
		if r == '\u202E' || r == '\u2066' || r == '\u200B' || r == 0 || r == 0x1b || r == '\r' || r == 7 {
			t.Fatalf("raw %U in the Markdown", r)
		}
	}
	// Outside code spans and the kit's own links and folds, no line may
	// hold "<", "](", "*em*" or "@octocat".
	for _, line := range strings.Split(out, "\n") {
		rest := kitLink.ReplaceAllString(stripCodeSpans(line), "")
		if kitFold.MatchString(rest) {
			continue
		}
		for _, bad := range []string{"<", "](", "*em*", "@octocat", "javascript:"} {
			if strings.Contains(rest, bad) {
				t.Errorf("%q outside a code span in line %q", bad, line)
			}
		}
	}
	// The hostile name is shown whole, on one line, in one code span.
	want := "``" + hostileText + "``"
	if strings.Contains(hostileText, "``") {
		t.Fatal("fixture: hostileText must not hold a double backtick")
	}
	if !strings.Contains(out, "- [evil](#evil): "+want+"\n") && !strings.Contains(out, "- [evil](#evil): "+want+" 🟩") {
		t.Errorf("implementation line not found; want %q in:\n%s", want, out)
	}
	// Table rows keep their cell count: 2 + columns, whatever the text.
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "| `alpha`") || strings.HasPrefix(line, "| `beta`") {
			if got := strings.Count(line, "|"); got != 5 {
				t.Errorf("row %q has %d pipes, want 5 (two columns)", line, got)
			}
		}
	}
}

// kitLink is a link the Markdown printers write: a checked name or a word
// of the kit to a page, an anchor or the overview. kitFold is one of the
// lines of a folded group (details and summary with the kit's words).
var (
	kitLink = regexp.MustCompile(`\[[A-Za-z0-9._+ :-]+\]\((https://github\.com/conform-kit/conform/blob/main/)?[A-Za-z0-9._+/-]*(#[a-z0-9_-]+)?\)|<https?://[^\s<>"'\x60\\]+>`)
	kitFold = regexp.MustCompile(`^(<details>|</details>|<summary>[A-Za-z0-9 ,;():]+</summary>)$`)
)

// stripCodeSpans removes the code spans of one Markdown line (CommonMark:
// a run of n backticks up to the next run of exactly n).
func stripCodeSpans(line string) string {
	var out strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			out.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		fence := strings.Repeat("`", n)
		j := i + n
		closed := -1
		for j < len(line) {
			k := strings.Index(line[j:], fence)
			if k < 0 {
				break
			}
			k += j
			m := 0
			for k+m < len(line) && line[k+m] == '`' {
				m++
			}
			if m == n {
				closed = k
				break
			}
			j = k + m
		}
		if closed < 0 {
			out.WriteString(line[i:])
			break
		}
		i = closed + n
	}
	return out.String()
}

// TestMatrixCells checks the data model: cells keep status and parity,
// notes, durations and stderr are dropped, repro lines name the vector.
func TestMatrixCells(t *testing.T) {
	t.Parallel()
	m := hostileMatrix(t)
	if len(m.Sections) != 2 || len(m.Sections[0].Columns) != 2 {
		t.Fatalf("sections = %d, columns = %d; want 2 and 2", len(m.Sections), len(m.Sections[0].Columns))
	}
	beta := m.Sections[0].Rows[1]
	if beta.ID != "beta" {
		t.Fatalf("row 1 = %s, want beta (rows sorted by id)", beta.ID)
	}
	got := beta.Cells[1]
	// The VALUE_CHANGED finding restates a difference: it is listed once,
	// among the differences, in canonical form.
	want := runner.MatrixCell{
		Status: runner.Fail, Parity: runner.ParityDiffers,
		Differences: got.Differences,
		Repro:       []string{"conform", "run", "--role", "agent", "--version", "1", "--profile", "impl/</code>" + hostileScript + "\u202E", "--filter", "beta"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("evil beta cell (-want +got):\n%s", diff)
	}
	if len(got.Differences) != 1 || got.Differences[0].Kind != compare.ValueChanged || strings.Contains(string(got.Differences[0].Actual), `\u003c`) {
		t.Errorf("differences = %+v, want one VALUE_CHANGED with canonical values", got.Differences)
	}
	if c := beta.Cells[0]; c.Repro != nil || !c.Passed() {
		t.Errorf("clean beta cell = %+v, want PASS exact without repro", c)
	}
	v2 := m.Sections[1]
	if v2.Columns[1].Preflight == nil || v2.Columns[1].Verdict != runner.VerdictNotCertified {
		t.Errorf("evil v2 column = %+v, want a failed preflight, NOT_CERTIFIED", v2.Columns[1])
	}
	if got := v2.Columns[0].Invocation; !cmp.Equal(got, []string{"run", "--role", "agent", "--version", "2", "--", "clean"}) {
		t.Errorf("invocation of a report without one = %q, want one made of its role, version and command", got)
	}
}
