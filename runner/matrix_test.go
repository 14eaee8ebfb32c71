package runner_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/kiterr/kiterrtest"
	"github.com/conform-kit/conform/runner"
)

const testDigest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// mreport is a report of role/version with results; Summary and Verdict are
// counted.
func mreport(impl, role string, version int, results ...runner.Result) *runner.Report {
	r := &runner.Report{
		Suite:          runner.SuiteInfo{Name: "conform", Version: version, Role: role, Digest: testDigest},
		Implementation: runner.Implementation{Name: impl, Command: []string{"/abs/" + impl}},
		Results:        results,
	}
	r.Recount()
	return r
}

func pass(id string) runner.Result {
	return runner.Result{ID: id, Level: "required", Status: runner.Pass, Parity: runner.ParityExact, DurationMS: 7}
}

func TestBuildMatrix(t *testing.T) {
	t.Parallel()
	failed := runner.Result{ID: "b", Level: "required", Status: runner.Crash, Parity: runner.ParityDiffers, DurationMS: 99, Stderr: "panic: at 0xc000123",
		Findings: []runner.Finding{
			{Code: runner.FindingHostSent, Message: "the host sent the agent req_1_549c9f49"},
			{Code: runner.FindingExitEarly, Status: runner.Crash, Message: "the IUT exited with status 2 before replying to \"r1\""},
			{Code: runner.FindingLingered, Message: "the IUT did not exit within 3s"},
		},
		Expected: `{"a":1}`, Actual: `{"a":2}`,
		Differences: []compare.Difference{{Pointer: "/a", Kind: compare.ValueChanged, Golden: json.RawMessage(`1`), Actual: json.RawMessage(`2`), Normative: true}}}
	py := mreport("py 1.0", "agent", 1, pass("a"), failed)
	py.Invocation = []string{"run", "--role", "agent", "--version", "1", "--profile", "impl/python"}
	cmdRun := mreport("iut", "agent", 1, pass("b"), pass("c"))
	cmdRun.Invocation = []string{"run", "--role", "agent", "--version", "1", "--", "./iut", "--stream"}
	host := mreport("py 1.0", "host", 1, pass("h"))
	m, err := runner.BuildMatrix([]runner.MatrixInput{
		{Name: "py", Report: host}, // host first: sections are sorted anyway
		{Name: "cmd", Report: cmdRun},
		{Name: "py", Report: py},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &runner.Matrix{
		Suite:           runner.MatrixSuite{Name: "conform", Digest: testDigest},
		Implementations: []runner.MatrixImplementation{{Name: "py", Implementation: "py 1.0"}, {Name: "cmd", Implementation: "iut"}},
		Sections: []runner.MatrixSection{
			{Role: "agent", Version: 1,
				Columns: []runner.MatrixColumn{
					{Name: "py", Verdict: runner.VerdictNotCertified, Summary: py.Summary, Invocation: py.Invocation,
						// One cause: the crash, not the difference it left.
						Causes: []runner.MatrixCause{{Kind: "failed", Code: runner.FindingExitEarly, Status: runner.Crash,
							Message: failed.Findings[1].Message, Messages: 1,
							Vectors: []runner.CauseVector{{ID: "b", Level: "required", Status: runner.Crash}},
							Repro:   []string{"conform", "run", "--role", "agent", "--version", "1", "--profile", "impl/python", "--filter", "b"}}}},
					{Name: "cmd", Verdict: runner.VerdictCertified, Summary: cmdRun.Summary, Invocation: cmdRun.Invocation},
				},
				Rows: []runner.MatrixRow{
					{ID: "a", Level: "required", Cells: []runner.MatrixCell{{Status: runner.Pass, Parity: runner.ParityExact}, {}}},
					{ID: "b", Level: "required", Cells: []runner.MatrixCell{
						{Status: runner.Crash, Parity: runner.ParityDiffers,
							Findings:    []runner.Finding{failed.Findings[1]},
							Differences: failed.Differences,
							Repro:       []string{"conform", "run", "--role", "agent", "--version", "1", "--profile", "impl/python", "--filter", "b"}},
						{Status: runner.Pass, Parity: runner.ParityExact},
					}},
					{ID: "c", Level: "required", Cells: []runner.MatrixCell{{}, {Status: runner.Pass, Parity: runner.ParityExact}}},
				}},
			{Role: "host", Version: 1,
				Columns: []runner.MatrixColumn{{Name: "py", Verdict: runner.VerdictCertified, Summary: host.Summary,
					Invocation: []string{"run", "--role", "host", "--version", "1", "--", "…/py 1.0"}}}, // result.Portable: no machine path
				Rows: []runner.MatrixRow{{ID: "h", Level: "required", Cells: []runner.MatrixCell{{Status: runner.Pass, Parity: runner.ParityExact}}}}},
		},
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("BuildMatrix (-want +got):\n%s", diff)
	}
}

func TestBuildMatrixErrors(t *testing.T) {
	t.Parallel()
	other := mreport("x", "agent", 1, pass("a"))
	other.Suite.Digest = "sha256:" + string(bytes.Repeat([]byte("f"), 64))
	level := mreport("y", "agent", 1, runner.Result{ID: "a", Level: "informational", Status: runner.Pass})
	role := mreport("z", "agent; rm -rf", 1, pass("a"))
	for _, tc := range []struct {
		name   string
		inputs []runner.MatrixInput
		code   kiterr.Code
		frag   string
	}{
		{"bad name", []runner.MatrixInput{{Name: "<b>x</b>", Report: mreport("x", "agent", 1)}}, kiterr.Usage, "implementation name"},
		{"empty name", []runner.MatrixInput{{Name: "", Report: mreport("x", "agent", 1)}}, kiterr.Usage, "implementation name"},
		{"no report", []runner.MatrixInput{{Name: "x"}}, kiterr.Usage, "no report"},
		{"twice", []runner.MatrixInput{{Name: "x", Report: mreport("x", "agent", 1)}, {Name: "x", Report: mreport("x", "agent", 1)}}, kiterr.Usage, "two reports"},
		{"two impls one name", []runner.MatrixInput{{Name: "x", Report: mreport("x 1", "agent", 1)}, {Name: "x", Report: mreport("x 2", "host", 1)}}, kiterr.Usage, "labels two"},
		{"two suites", []runner.MatrixInput{{Name: "a", Report: mreport("a", "agent", 1)}, {Name: "b", Report: other}}, kiterr.ReportSuiteMismatch, "one suite"},
		{"two levels", []runner.MatrixInput{{Name: "a", Report: mreport("a", "agent", 1, pass("a"))}, {Name: "b", Report: level}}, kiterr.ReportSuiteMismatch, "vector a is required"},
		{"bad role", []runner.MatrixInput{{Name: "z", Report: role}}, kiterr.ReportInvalid, "role"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := runner.BuildMatrix(tc.inputs)
			kiterrtest.WantCode(t, err, tc.code, tc.frag)
		})
	}
}

func TestRepro(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		inv  []string
		want []string
	}{
		{[]string{"run", "--exact"}, []string{"conform", "run", "--exact", "--filter", "v"}},
		{[]string{"run", "--", "iut", "--filter", "x"}, []string{"conform", "run", "--filter", "v", "--", "iut", "--filter", "x"}},
	} {
		if got := runner.Repro(tc.inv, "v"); !cmp.Equal(got, tc.want) {
			t.Errorf("Repro(%q) = %q, want %q", tc.inv, got, tc.want)
		}
	}
}

func TestReadReport(t *testing.T) {
	t.Parallel()
	s, err := runner.Open(conform.Suite())
	if err != nil {
		t.Fatal(err)
	}
	good := mreport("py", "agent", 1, pass("a"), runner.Result{ID: "b", Level: "required", Status: runner.Fail,
		Findings: []runner.Finding{{Code: "VALUE_CHANGED", Status: runner.Fail, Message: "m"}}})
	good.Invocation = []string{"run", "--role", "agent", "--version", "1"}
	encode := func(r *runner.Report) []byte {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	got, err := runner.ReadReport(s, encode(good))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(good, got, cmp.AllowUnexported(runner.Result{})); diff != "" {
		t.Errorf("ReadReport round trip (-want +got):\n%s", diff)
	}
	lying := *good
	lying.Verdict = runner.VerdictCertified
	counts := *good
	counts.Summary.Passed = 2
	for _, tc := range []struct {
		name string
		data []byte
		frag string
	}{
		{"not JSON", []byte(`{"suite":`), "strict JSON"},
		{"duplicate key", []byte(`{"verdict":"CERTIFIED","verdict":"CERTIFIED"}`), "strict JSON"},
		{"schema", []byte(`{"suite":{}}`), "report.schema.json"},
		{"unknown member", bytes.Replace(encode(good), []byte(`{"suite":`), []byte(`{"extra":1,"suite":`), 1), "report.schema.json"},
		{"verdict lies", encode(&lying), "verdict CERTIFIED does not follow"},
		{"summary lies", encode(&counts), "summary does not count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := runner.ReadReport(s, tc.data)
			kiterrtest.WantCode(t, err, kiterr.ReportInvalid, tc.frag)
		})
	}
}
