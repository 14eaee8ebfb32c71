package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gotest.tools/v3/golden"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/internal/schema"
	"github.com/conform-kit/conform/runner"
)

// Hostile IUT output: a terminal escape, markup that would close the JUnit
// <failure> element and open a script, and a CDATA terminator.
const (
	esc     = "\x1b[31m"
	hostile = "</failure><script>alert(1)</script> ]]> & \"q\""
	stderr  = esc + "panic: boom\x1b[0m\n" + hostile + "\n\tgoroutine 1 [running]:\n"
)

const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// fullReport has one result of every status, findings, golden/actual bytes,
// exits and hostile stderr; Summary is filled by hand to match Results.
func fullReport() *runner.Report {
	return recount(&runner.Report{
		Suite:          runner.SuiteInfo{Name: "conform", Version: 1, Role: "agent", Digest: digest},
		Implementation: runner.Implementation{Name: "fake-iut", Command: []string{"/opt/fake-iut", "--mode", "stream json"}},
		Results: []runner.Result{
			{ID: "initialize-minimal", Level: "required", Status: runner.Pass, Path: "vectors/v1/initialize-minimal.json", DurationMS: 12},
			{ID: "get-context-usage", Level: "required", Status: runner.Fail, Path: "vectors/v1/get-context-usage.json", DurationMS: 35,
				Findings: []runner.Finding{{Code: runner.FindingGoldenMismatch, Status: runner.Fail, Message: "summary differed from golden/v1/agent/get-context-usage.json"}},
				Expected: `{"frames":[{"response":{"subtype":"success"},"type":"control_response"}]}`,
				Actual:   `{"frames":[{"response":{"error":"` + hostile + `","subtype":"error"},"type":"control_response"}]}`,
				Parity:   runner.ParityDiffers,
				Differences: []compare.Difference{{Frame: `control_response "req-1"`, Pointer: "/response", Kind: compare.ValueChanged,
					Golden: []byte(`{"subtype":"success"}`), Actual: canonical(map[string]any{"error": hostile, "subtype": "error"}), Normative: true}},
				Exit:   &proc.Exit{Code: 0},
				Stderr: stderr},
			{ID: "interrupt-idle", Level: "required", Status: runner.Crash, Path: "vectors/v1/interrupt-idle.json", DurationMS: 7,
				Findings: []runner.Finding{{Code: runner.FindingKilledBySignal, Status: runner.Crash, Message: "killed by SIGSEGV before it answered"}},
				Exit:     &proc.Exit{Code: -1, Signal: "SIGSEGV"},
				Stderr:   stderr},
			{ID: "initialize-twice", Level: "recommended", Status: runner.Timeout, Path: "vectors/v1/initialize-twice.json", DurationMS: 10000,
				Findings: []runner.Finding{{Code: runner.FindingReplyMissing, Status: runner.Timeout, Message: `no reply to request_id "req-2" within 10000 ms`}},
				Exit:     &proc.Exit{Code: -1, Signal: "SIGKILL", Stopped: "SIGKILL"}},
			{ID: "json-null-line", Level: "required", Status: runner.ProtocolError, Path: "vectors/v1/json-null-line.json", DurationMS: 4,
				Findings: []runner.Finding{{Code: runner.FindingFrameNotJSON, Status: runner.ProtocolError, Message: "stdout line 1 was not JSON: " + esc + hostile}},
				Exit:     &proc.Exit{Code: 1}},
			{ID: "envelope-extra-member", Level: "recommended", Status: runner.SchemaViolation, Path: "vectors/v1/envelope-extra-member.json", DurationMS: 5,
				Findings: []runner.Finding{{Code: runner.FindingFrameSchema, Status: runner.SchemaViolation, Message: `frame 1 at /response: additional properties "extra" not allowed`}}},
			{ID: "get-binary-version", Level: "required", Status: runner.XFail, Path: "vectors/v1/get-binary-version.json", DurationMS: 21, Reason: "upstream issue #123",
				Findings: []runner.Finding{
					{Code: runner.FindingGoldenMismatch, Status: runner.Fail, Message: "summary differed from golden/v1/agent/get-binary-version.json"},
					{Code: runner.FindingExpectedFailure, Message: "expected failure: upstream issue #123"},
				},
				Expected: `{"version":"1"}`, Actual: `{"version":"2"}`, Parity: runner.ParityDiffers,
				Differences: []compare.Difference{{Pointer: "/version", Kind: compare.ValueChanged, Golden: []byte(`"1"`), Actual: []byte(`"2"`), Normative: true}}},
			{ID: "initialize-hooks-empty", Level: "required", Status: runner.XPass, Path: "vectors/v1/initialize-hooks-empty.json", DurationMS: 9, Reason: "fixed in 2.1",
				Findings: []runner.Finding{{Code: runner.FindingUnexpectedPass, Status: runner.XPass, Message: "listed as an expected failure but passed: remove it from the list (fixed in 2.1)"}}},
			{ID: "unknown-subtype", Level: "informational", Status: runner.Fail, Path: "vectors/v1/unknown-subtype.json", DurationMS: 3,
				Findings: []runner.Finding{{Code: runner.FindingGoldenMismatch, Status: runner.Fail, Message: "summary differed"}},
				Expected: `{"a":1}`, Actual: `{"a":2}`, Stderr: esc + "informational noise"},
			{ID: "unknown-subtype-number", Level: "informational", Status: runner.Pass, Path: "vectors/v1/unknown-subtype-number.json", DurationMS: 2},
			{ID: "duplicate-keys-in-frame", Level: "required", Status: runner.Invalid, Path: "vectors/v1/duplicate-keys-in-frame.json",
				Findings: []runner.Finding{{Code: "GOLDEN_MISSING", Status: runner.Invalid, Message: "vector duplicate-keys-in-frame has no golden file golden/v1/agent/duplicate-keys-in-frame.json (run 'conform golden --update')"}}},
			{ID: "invalid-utf8-in-string", Level: "required", Status: runner.NotRun, Path: "vectors/v1/invalid-utf8-in-string.json"},
		},
		Stale:     []string{"no-such-vector"},
		Kit:       runner.Kit{Version: "v0.0.0-test", Revision: "0123abcd"},
		Started:   time.Date(2026, 11, 30, 12, 0, 0, 250e6, time.UTC),
		ElapsedMS: 10234,
	})
}

// canonical is v's RFC 8785 JSON.
func canonical(v any) []byte {
	b, err := canon.Canonical(v)
	if err != nil {
		panic(err)
	}
	return b
}

// recount fills r's Summary and Verdict from its results, as runner.Run does.
func recount(r *runner.Report) *runner.Report {
	r.Recount()
	return r
}

// passingReport certifies: passes, an expected failure and an informational
// failure.
func passingReport() *runner.Report {
	full := fullReport()
	return recount(&runner.Report{
		Suite:          full.Suite,
		Implementation: runner.Implementation{Name: "reference", Command: []string{"conform-reference"}},
		Results:        []runner.Result{full.Results[0], full.Results[6], full.Results[8], full.Results[9]},
	})
}

// problemReport has kit input errors (exit 2).
func problemReport() *runner.Report {
	r := passingReport()
	r.Problems = []runner.Problem{
		{Path: "vectors/v1/broken.json", Code: "VECTOR_INVALID", Message: "vectors/v1/broken.json: " + esc + "bad"},
		{Code: "SUITE_DIGEST_MISMATCH", Message: "MANIFEST.sha256 disagreed"},
	}
	return recount(r)
}

// staleReport passes every vector but names a vector the suite does not
// have in its expected-failure list (exit 1).
func staleReport() *runner.Report {
	r := passingReport()
	r.Stale = []string{"no-such-vector", "unknown-subtype"}
	return recount(r)
}

// nothingReport excuses its only required vector and passes nothing
// (NOTHING_PASSED, exit 1).
func nothingReport() *runner.Report {
	full := fullReport()
	return recount(&runner.Report{
		Suite:          full.Suite,
		Implementation: full.Implementation,
		Results:        []runner.Result{full.Results[6], full.Results[9]},
	})
}

// preflightReport is a filtered v2 run whose preflight vector (outside
// the filter) failed: every selected vector is NOT_RUN (exit 1).
func preflightReport() *runner.Report {
	full := fullReport()
	pre := runner.Result{ID: "negotiate-version", Level: "required", Status: runner.Fail, Path: "vectors/v2/agent/negotiate-version.json", DurationMS: 40,
		Findings: []runner.Finding{
			{Code: runner.FindingHostSent, Message: "the host sent an initialize request"},
			{Code: runner.FindingValueChanged, Status: runner.Fail, Message: "/response/protocolVersion differed"},
			{Code: runner.FindingVersionUnsupported, Status: runner.Fail, Message: "the IUT did not pass the preflight vector"},
		}}
	return recount(&runner.Report{
		Suite:          runner.SuiteInfo{Name: "conform", Version: 2, Role: "agent", Digest: digest},
		Implementation: full.Implementation,
		Results:        []runner.Result{{ID: "set-model-alias", Level: "required", Status: runner.NotRun, Path: "vectors/v2/agent/set-model-alias.json"}},
		Preflight:      &pre,
		Partial:        true,
	})
}

// interruptedReport was cancelled (exit 130).
func interruptedReport() *runner.Report {
	full := fullReport()
	return recount(&runner.Report{
		Suite:          full.Suite,
		Implementation: full.Implementation,
		Results:        []runner.Result{full.Results[0], full.Results[11]},
		Interrupted:    true,
	})
}

type reportCase struct {
	name     string
	report   func() *runner.Report
	exitCode int
	// JUnit counts, from the mapping in the [report.JUnit] doc comment.
	tests, failures, errors, skipped int
}

// reports are the hand-built reports every printer test runs over.
func reports() []reportCase {
	return []reportCase{
		// full: 12 results and one stale entry (an error case).
		{name: "full", report: fullReport, exitCode: 2, tests: 13, failures: 4, errors: 4, skipped: 3},
		{name: "excused", report: passingReport, exitCode: 0, tests: 4, skipped: 2},
		{name: "problems", report: problemReport, exitCode: 2, tests: 6, errors: 2, skipped: 2},
		// interrupted: the NOT_RUN vector is skipped, the interruption an error.
		{name: "interrupted", report: interruptedReport, exitCode: 130, tests: 3, errors: 1, skipped: 1},
		{name: "stale", report: staleReport, exitCode: 1, tests: 6, errors: 2, skipped: 2},
		// nothing: the excused vector is skipped; the verdict is an error case.
		{name: "nothing", report: nothingReport, exitCode: 1, tests: 3, errors: 1, skipped: 1},
		// preflight: the NOT_RUN vector, and the preflight vector as a failure.
		{name: "preflight", report: preflightReport, exitCode: 1, tests: 2, failures: 1, skipped: 1},
	}
}

func compileReportSchema(t *testing.T) *schema.Schema {
	t.Helper()
	sch, err := schema.NewSet(os.DirFS("../..")).Compile("schemas/report.schema.json")
	if err != nil {
		t.Fatalf("compile report schema: %v", err)
	}
	return sch
}

func render(t *testing.T, fn func(io.Writer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := fn(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestJSONValidatesAgainstSchema(t *testing.T) {
	t.Parallel()
	sch := compileReportSchema(t)
	for _, tc := range reports() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := tc.report()
			out := render(t, func(w io.Writer) error { return report.JSON(w, r) })
			v, err := canon.Parse(out)
			if err != nil {
				t.Fatalf("parse JSON report: %v\n%s", err, out)
			}
			if viol := sch.Validate(v); viol != nil {
				t.Errorf("JSON report does not validate against schemas/report.schema.json:\n%v\n%s", viol, out)
			}
			if r.ExitCode() != tc.exitCode {
				t.Errorf("ExitCode() = %d, want %d", r.ExitCode(), tc.exitCode)
			}
			// The JSON form carries everything; embedded JSON values come
			// back re-indented and HTML-escaped, so they are compared canonical.
			var back runner.Report
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatal(err)
			}
			compact := cmp.Transformer("canonical", func(m json.RawMessage) string {
				b, err := canon.CanonicalBytes(m)
				if err != nil {
					return string(m)
				}
				return string(b)
			})
			// Description, Source and GoldenPath are for printers only.
			printerOnly := cmpopts.IgnoreFields(runner.Result{}, "Description", "Source", "GoldenPath", "Canonical", "Golden", "Shapes")
			opts := cmp.Options{printerOnly, cmpopts.EquateEmpty(), compact}
			if diff := cmp.Diff(r, &back, opts); diff != "" {
				t.Errorf("JSON round trip mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSchemaCatchesDrift checks that the schema is closed and typed: each
// mutation of a valid report must be rejected at the named instance.
func TestSchemaCatchesDrift(t *testing.T) {
	t.Parallel()
	sch := compileReportSchema(t)
	tests := []struct {
		name     string
		mutate   func(doc map[string]any)
		instance string
	}{
		{"unknown top-level member", func(d map[string]any) { d["extra"] = true }, ""},
		{"unknown result member", func(d map[string]any) { result(d, 0)["diff"] = "x" }, "/results/0"},
		{"fractional duration", func(d map[string]any) { result(d, 0)["duration_ms"] = json.Number("1.5") }, "/results/0/duration_ms"},
		{"negative duration", func(d map[string]any) { result(d, 0)["duration_ms"] = json.Number("-1") }, "/results/0/duration_ms"},
		{"unknown status", func(d map[string]any) { result(d, 0)["status"] = "ERROR" }, "/results/0/status"},
		{"unknown level", func(d map[string]any) { result(d, 0)["level"] = "optional" }, "/results/0/level"},
		{"lowercase finding code", func(d map[string]any) {
			result(d, 1)["findings"].([]any)[0].(map[string]any)["code"] = "golden_mismatch"
		}, "/results/1/findings/0/code"},
		{"bad digest", func(d map[string]any) { d["suite"].(map[string]any)["digest"] = "sha256:ABC" }, "/suite/digest"},
		{"negative count", func(d map[string]any) { d["summary"].(map[string]any)["failed"] = json.Number("-1") }, "/summary/failed"},
		{"missing count", func(d map[string]any) { delete(d["summary"].(map[string]any), "not_run") }, "/summary"},
		{"unknown exit member", func(d map[string]any) { result(d, 1)["exit"].(map[string]any)["core"] = true }, "/results/1/exit"},
		{"interrupted false", func(d map[string]any) { d["interrupted"] = false }, "/interrupted"},
		{"problem without code", func(d map[string]any) { d["problems"] = []any{map[string]any{"message": "m"}} }, "/problems/0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, err := canon.Parse(render(t, func(w io.Writer) error { return report.JSON(w, fullReport()) }))
			if err != nil {
				t.Fatal(err)
			}
			doc := v.(map[string]any)
			tc.mutate(doc)
			viol := sch.Validate(doc)
			if viol == nil {
				t.Fatal("mutated report validated")
			}
			var got []string
			for _, x := range viol {
				got = append(got, x.Instance)
			}
			if diff := cmp.Diff([]string{tc.instance}, got); diff != "" {
				t.Errorf("violation instances mismatch (-want +got):\n%s\n%v", diff, viol)
			}
		})
	}
}

func result(doc map[string]any, i int) map[string]any {
	return doc["results"].([]any)[i].(map[string]any)
}

// junitDoc is the part of a JUnit document the tests read back.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Time     string   `xml:"time,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Suites   []struct {
		Time     string `xml:"time,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name      string     `xml:"name,attr"`
			Classname string     `xml:"classname,attr"`
			Failure   *junitElem `xml:"failure"`
			Error     *junitElem `xml:"error"`
			Skipped   *junitElem `xml:"skipped"`
			SystemOut string     `xml:"system-out"`
			SystemErr string     `xml:"system-err"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

type junitElem struct {
	// Attrs are every attribute of the element: <skipped> has none (junit-4).
	Attrs   []xml.Attr `xml:",any,attr"`
	Message string     `xml:"message,attr"`
	Type    string     `xml:"type,attr"`
	Body    string     `xml:",chardata"`
}

type counts struct{ Tests, Failures, Errors, Skipped int }

func TestJUnit(t *testing.T) {
	t.Parallel()
	for _, tc := range reports() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := tc.report()
			out := render(t, func(w io.Writer) error { return report.JUnit(w, r) })
			golden.Assert(t, string(out), "junit-"+tc.name+".golden")

			var doc junitDoc
			if err := xml.Unmarshal(out, &doc); err != nil {
				t.Fatalf("parse JUnit: %v\n%s", err, out)
			}
			want := counts{tc.tests, tc.failures, tc.errors, tc.skipped}
			if diff := cmp.Diff(counts{tc.tests, tc.failures, tc.errors, 0}, counts{doc.Tests, doc.Failures, doc.Errors, 0}); diff != "" {
				t.Errorf("<testsuites> counts mismatch (-want +got):\n%s", diff)
			}
			if len(doc.Suites) != 1 {
				t.Fatalf("got %d <testsuite> elements, want 1", len(doc.Suites))
			}
			s := doc.Suites[0]
			if diff := cmp.Diff(want, counts{s.Tests, s.Failures, s.Errors, s.Skipped}); diff != "" {
				t.Errorf("<testsuite> counts mismatch (-want +got):\n%s", diff)
			}
			// Red exactly when the exit status is (issue 16: an interrupted
			// run and stale entries count as errors).
			if red := doc.Failures+doc.Errors > 0; red != (r.ExitCode() != 0) {
				t.Errorf("failures+errors = %d, but ExitCode() = %d", doc.Failures+doc.Errors, r.ExitCode())
			}
			// The suite's time is the run's wall time, not the sum of the
			// vectors' times.
			if wantTime := fmt.Sprintf("%.3f", float64(r.ElapsedMS)/1000); doc.Time != wantTime || s.Time != wantTime {
				t.Errorf("time = %q (testsuites), %q (testsuite), want %q", doc.Time, s.Time, wantTime)
			}

			// Each case's element and type follow the status mapping.
			wantKinds := map[string]string{}
			for _, res := range r.Results {
				wantKinds[res.ID] = junitKind(res)
			}
			for _, p := range r.Problems {
				name := p.Path
				if name == "" {
					name = p.Code
				}
				wantKinds[name] = "error INVALID"
			}
			for _, id := range r.Stale {
				wantKinds["expected failure "+id] = "error STALE"
			}
			if r.Interrupted {
				wantKinds["interrupted"] = "error INTERRUPTED"
			}
			if r.Verdict == runner.VerdictNothingPassed {
				wantKinds["verdict"] = "error NOTHING_PASSED"
			}
			if r.Preflight != nil {
				wantKinds[r.Preflight.ID] = junitKind(*r.Preflight)
			}
			class := fmt.Sprintf("conform.v%d.agent", r.Suite.Version)
			gotKinds := map[string]string{}
			for _, c := range s.Cases {
				if c.Classname != class && c.Classname != class+".run" {
					t.Errorf("case %s: classname %q, want %q", c.Name, c.Classname, class)
				}
				if c.Skipped != nil && len(c.Skipped.Attrs) > 0 {
					t.Errorf("case %s: <skipped> has attributes %v; junit-4 allows none", c.Name, c.Skipped.Attrs)
				}
				switch {
				case c.Failure != nil:
					gotKinds[c.Name] = "failure " + c.Failure.Type
				case c.Error != nil:
					gotKinds[c.Name] = "error " + c.Error.Type
				case c.Skipped != nil:
					gotKinds[c.Name] = "skipped"
				default:
					gotKinds[c.Name] = "pass"
				}
			}
			if diff := cmp.Diff(wantKinds, gotKinds); diff != "" {
				t.Errorf("testcase kinds mismatch (-want +got):\n%s", diff)
			}

			// A failure's headline names the finding that decided its
			// status, never a note (HOST_SENT) that came first.
			byName := map[string]*junitElem{}
			for _, c := range s.Cases {
				if c.Failure != nil {
					byName[c.Name] = c.Failure
				} else if c.Error != nil {
					byName[c.Name] = c.Error
				}
			}
			results := r.Results
			if r.Preflight != nil {
				results = append([]runner.Result{*r.Preflight}, results...)
			}
			for _, res := range results {
				e := byName[res.ID]
				if e == nil || len(res.Findings) == 0 {
					continue
				}
				var cause string
				for _, f := range res.Findings {
					if f.Status == res.Status {
						cause = f.Code
						break
					}
				}
				if !strings.HasPrefix(e.Message, cause+": ") {
					t.Errorf("case %s: headline %q does not start with the deciding finding %s", res.ID, e.Message, cause)
				}
			}

			// Hostile IUT text comes back as text, with terminal controls
			// spelled as escapes, and never as markup.
			for _, c := range s.Cases {
				for _, text := range []string{c.SystemErr, c.SystemOut, body(c.Failure), body(c.Error)} {
					if strings.ContainsRune(text, 0x1b) {
						t.Errorf("case %s: decoded text holds a raw ESC: %q", c.Name, text)
					}
				}
				if c.Name == "get-context-usage" || c.Name == "interrupt-idle" {
					want := strings.ReplaceAll(stderr, "\x1b", `\u001b`)
					if c.SystemErr != want {
						t.Errorf("case %s: system-err = %q, want %q", c.Name, c.SystemErr, want)
					}
				}
				if c.Name == "json-null-line" && !strings.Contains(c.Failure.Message, hostile) || c.Name == "get-context-usage" && !strings.Contains(c.Failure.Body, hostile) {
					t.Errorf("case %s: hostile text did not round-trip as text", c.Name)
				}
			}
			assertNoMarkup(t, out)
		})
	}
}

// junitKind is the JUnit element the [report.JUnit] doc comment maps a
// result to: XFAIL, NOT_RUN and informational results that did not pass
// are skipped; informational PASS is a passing case.
func junitKind(res runner.Result) string {
	switch {
	case res.Status == runner.Pass:
		return "pass"
	case res.Status == runner.XFail || res.Status == runner.NotRun:
		return "skipped"
	case res.Status == runner.Invalid || res.Status == runner.Crash || res.Status == runner.Timeout:
		return "error " + string(res.Status)
	case res.Level == "informational":
		return "skipped"
	}
	return "failure " + string(res.Status)
}

func body(e *junitElem) string {
	if e == nil {
		return ""
	}
	return e.Message + e.Body
}

// assertNoMarkup checks that out holds no raw control bytes and that the
// only elements in it are the JUnit ones.
func assertNoMarkup(t *testing.T, out []byte) {
	t.Helper()
	if i := bytes.IndexByte(out, 0x1b); i >= 0 {
		t.Errorf("JUnit output holds a raw ESC at byte %d", i)
	}
	known := map[string]bool{"testsuites": true, "testsuite": true, "properties": true, "property": true, "testcase": true,
		"failure": true, "error": true, "skipped": true, "system-out": true, "system-err": true}
	dec := xml.NewDecoder(bytes.NewReader(out))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("tokenize JUnit: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if !known[tok.Name.Local] {
				t.Errorf("JUnit output has an unexpected <%s> element", tok.Name.Local)
			}
		case xml.Directive:
			t.Errorf("JUnit output has a directive %q", tok)
		}
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	verdictExit := map[string]int{runner.VerdictCertified: 0, runner.VerdictExcused: 0, runner.VerdictPartial: 0,
		runner.VerdictNotCertified: 1, runner.VerdictNothingPassed: 1, runner.VerdictInvalidInput: 2, runner.VerdictInterrupted: 130}
	for _, tc := range reports() {
		for _, verbose := range []bool{false, true} {
			name := tc.name
			if verbose {
				name += "-verbose"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				r := tc.report()
				out := render(t, func(w io.Writer) error { return report.Text(w, r, verbose) })
				golden.Assert(t, string(out), "text-"+name+".golden")

				for i, b := range out {
					if b < 0x20 && b != '\n' && b != '\t' || b == 0x7f {
						t.Errorf("text output holds control byte %#x at %d", b, i)
					}
				}
				lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
				last := lines[len(lines)-1]
				want := strings.ReplaceAll(r.Verdict, "_", " ")
				if !strings.HasPrefix(last, want) || verdictExit[r.Verdict] != tc.exitCode {
					t.Errorf("last line = %q, want prefix %q (ExitCode %d)", last, want, r.ExitCode())
				}
				if !strings.HasSuffix(string(out), "\n") {
					t.Error("text output does not end with a newline")
				}
			})
		}
	}
}

func TestTextWriteError(t *testing.T) {
	t.Parallel()
	err := report.Text(failWriter{}, fullReport(), false)
	if err == nil || err.Error() != "disk full" {
		t.Errorf("Text to a failing writer: err = %v, want %q", err, "disk full")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestTextFailingBlock: a failing vector's block says what the vector
// checks and where its rule comes from, lists only the differences that
// fail conformance (the allowed ones with -v), and ends with the sections
// of docs/findings.md that explain its findings.
func TestTextFailingBlock(t *testing.T) {
	t.Parallel()
	res := runner.Result{ID: "mcp-toggle-unknown-server", Level: "required", Status: runner.Fail,
		Path: "vectors/v1/agent/mcp-toggle-unknown-server.json", GoldenPath: "golden/v1/mcp-toggle-unknown-server.json",
		Description: "mcp_toggle of a server that does not exist is refused.", Source: "observed CLI " + esc + "2.1.332",
		Findings: []runner.Finding{
			{Code: compare.MemberAbsent, Status: runner.Fail, Message: "restated below"},
			{Code: runner.FindingParityDiffers, Message: "a note"},
		},
		Differences: []compare.Difference{
			{Frame: `control_response "req-1"`, Pointer: "/response/error_code", Kind: compare.MemberAbsent, Golden: []byte(`"x"`), Normative: true},
			{Frame: `control_response "req-1"`, Pointer: "/response/error", Kind: compare.ValueChanged,
				Golden: []byte(`"Server not found: nope"`), Actual: []byte(`"no server nope"`), Rule: "free text"},
		},
	}
	rep := recount(&runner.Report{Suite: fullReport().Suite, Implementation: fullReport().Implementation, Results: []runner.Result{res}})
	for _, tc := range []struct {
		verbose  bool
		want     []string
		wantNone []string
	}{
		{false, []string{
			"    vector: vectors/v1/agent/mcp-toggle-unknown-server.json: mcp_toggle of a server that does not exist is refused.\n",
			"    source: observed CLI \\u001b[31m2.1.332\n",
			"    differences from the golden summary golden/v1/mcp-toggle-unknown-server.json (1 failing conformance, 1 allowed: -v lists them):\n",
			`      control_response "req-1" /response/error_code: golden "x", actual has nothing [MEMBER_ABSENT]` + "\n",
			"    see: docs/findings.md#member_absent\n",
		}, []string{"restated below", "a note", `"no server nope"`}},
		{true, []string{
			"(1 failing conformance, 1 allowed):\n",
			`actual "no server nope" [VALUE_CHANGED, allowed] (free text)`,
		}, []string{"restated below"}},
	} {
		var b bytes.Buffer
		if err := report.Text(&b, rep, tc.verbose); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("verbose %v: report lacks %q:\n%s", tc.verbose, w, b.String())
			}
		}
		for _, w := range tc.wantNone {
			if strings.Contains(b.String(), w) {
				t.Errorf("verbose %v: report has %q:\n%s", tc.verbose, w, b.String())
			}
		}
	}
}

// TestTextShowsWhatWasWritten: every character the IUT wrote is shown as
// itself when graphic (é, 中, a U+FFFD it wrote itself) and as an escape
// otherwise, never as U+FFFD; -v shows a long value whole.
func TestTextShowsWhatWasWritten(t *testing.T) {
	t.Parallel()
	written := "é中\uFFFD|\u007f|\u0080|\u00ad|\ufeff|\u200b|\u2028|\u2029|\u202e|\U000E0001|\xff|end"
	want := `é中` + "\uFFFD" + `|\u007f|\u0080|\u00ad|\ufeff|\u200b|\u2028|\u2029|\u202e|\U000e0001|\xff|end`
	long := strings.Repeat("x", 1000)
	res := runner.Result{ID: "get-context-usage", Level: "required", Status: runner.Fail,
		Findings: []runner.Finding{{Code: runner.FindingFrameNotJSON, Status: runner.Fail, Message: "line: " + written}},
		Stderr:   "boom " + written + "\n",
		Differences: []compare.Difference{{Frame: `control_response "req-1"`, Pointer: "/response/x", Kind: compare.ValueChanged,
			Golden: canonical(long), Actual: canonical(long + "y"), Normative: true}},
	}
	rep := recount(&runner.Report{Suite: fullReport().Suite, Implementation: fullReport().Implementation, Results: []runner.Result{res}})
	for _, verbose := range []bool{false, true} {
		var b bytes.Buffer
		if err := report.Text(&b, rep, verbose); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, w := range []string{"FRAME_NOT_JSON: line: " + want + "\n", "      | boom " + want + "\n"} {
			if !strings.Contains(out, w) {
				t.Errorf("verbose %v: want %q in:\n%s", verbose, w, out)
			}
		}
		if got := strings.Count(out, "\uFFFD"); got != 2 {
			t.Errorf("verbose %v: %d U+FFFD in the report, want the 2 the IUT wrote", verbose, got)
		}
		whole := strings.Contains(out, `golden "`+long+`", actual "`+long+`y"`)
		if whole != verbose {
			t.Errorf("verbose %v: the 1000-byte values shown whole: %v", verbose, whole)
		}
	}
}
