package report_test

import (
	"github.com/conform-kit/conform/internal/compare"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/runner"
)

// junitXSDs are the schemas every JUnit document must satisfy (sources in
// testdata/junit-xsd/README.md).
var junitXSDs = []string{"testdata/junit-xsd/junit-10.xsd", "testdata/junit-xsd/junit-4.xsd"}

// xmllint returns the xmllint binary. Without it the test is skipped,
// unless CONFORM_REQUIRE_XMLLINT is set (CI sets it after
// scripts/ci-tools.sh installed it), where it fails.
func xmllint(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CONFORM_REQUIRE_XMLLINT") != "" {
			t.Fatalf("xmllint not found (CONFORM_REQUIRE_XMLLINT is set): run scripts/ci-tools.sh")
		}
		t.Skip("xmllint not found: run scripts/ci-tools.sh (Debian's libxml2-utils) to validate JUnit against the XSDs")
	}
	return bin
}

// validateXSD validates doc against xsd with xmllint and returns its
// complaint, or "" when doc is valid.
func validateXSD(t *testing.T, bin, xsd string, doc []byte) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(f, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--noout", "--schema", xsd, f).CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("run xmllint: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	return ""
}

// TestJUnitSchemas validates every JUnit document the printers write (each
// report case, and a parity run) against the Jenkins xUnit junit-10 and the
// junit-4 schemas, and checks that the check can fail: documents in the
// shapes the printer used to write are rejected.
func TestJUnitSchemas(t *testing.T) {
	t.Parallel()
	bin := xmllint(t)
	docs := map[string][]byte{}
	for _, tc := range reports() {
		r := tc.report()
		docs[tc.name] = render(t, func(w io.Writer) error { return report.JUnit(w, r) })
	}
	docs["parity"] = render(t, func(w io.Writer) error { return report.ParityJUnit(w, parityReport()) })
	for name, doc := range docs {
		for _, xsd := range junitXSDs {
			t.Run(name+"/"+filepath.Base(xsd), func(t *testing.T) {
				t.Parallel()
				if msg := validateXSD(t, bin, xsd, doc); msg != "" {
					t.Errorf("JUnit document does not validate against %s:\n%s\n%s", xsd, msg, doc)
				}
			})
		}
	}

	// What the printer wrote before: a skipped count on <testsuites> (both
	// schemas reject it) and a message attribute on <skipped> (junit-4).
	bad := map[string]struct {
		doc    string
		reject []string
	}{
		"skipped on testsuites": {`<testsuites tests="1" failures="0" errors="0" skipped="1"><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="c"><skipped/></testcase></testsuite></testsuites>`, junitXSDs},
		"skipped message":       {`<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="c"><skipped message="m"/></testcase></testsuite></testsuites>`, junitXSDs[1:]},
	}
	for name, tc := range bad {
		for _, xsd := range tc.reject {
			t.Run("reject/"+name+"/"+filepath.Base(xsd), func(t *testing.T) {
				t.Parallel()
				if msg := validateXSD(t, bin, xsd, []byte(tc.doc)); msg == "" {
					t.Errorf("%s accepted %s", xsd, tc.doc)
				}
			})
		}
	}
}

// parityReport is a parity run of two implementations over two vectors:
// they agree on the first and differ on the second.
func parityReport() *runner.ParityReport {
	a, b := passingReport(), passingReport()
	a.Implementation.Name, b.Implementation.Name = "ref", "port"
	a.ElapsedMS, b.ElapsedMS = 1200, 3400
	b.Results = append([]runner.Result(nil), b.Results...)
	b.Results[0].Status = runner.Fail
	b.Results[0].Findings = []runner.Finding{{Code: runner.FindingValueChanged, Status: runner.Fail, Message: "/response/model differed"}}
	b.Recount()
	return &runner.ParityReport{
		Suite:           a.Suite,
		Implementations: []runner.Implementation{a.Implementation, b.Implementation},
		Reports:         []*runner.Report{a, b},
		Vectors: []runner.ParityVector{
			{ID: "initialize-minimal", Level: "required", Statuses: map[string]runner.Status{"ref": runner.Pass, "port": runner.Fail},
				Groups: []runner.Group{{Implementations: []string{"ref"}, Golden: true, Bytes: "{}"}, {Implementations: []string{"port"}, Bytes: `{"a":1}`,
					Differences: []compare.Difference{{Pointer: "/a", Kind: compare.MemberAdded, Actual: []byte("1"), Normative: true}}}},
				Golden: "{}", Failed: true},
			{ID: "unknown-subtype", Level: "informational", Statuses: map[string]runner.Status{"ref": runner.Fail, "port": runner.Fail},
				Groups: []runner.Group{{Implementations: []string{"ref", "port"}, Golden: true, Bytes: "{}"}}, Golden: "{}", Agree: true},
		},
		Gated: 1, Disagree: 1,
	}
}
