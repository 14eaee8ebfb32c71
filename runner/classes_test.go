package runner_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/internal/testtool"
	"github.com/conform-kit/conform/runner"
)

// tinyServer returns the command and environment of the tiny MCP server:
// fakeiut's Go port of runner/testdata/mcp-tiny/server.py (a
// standard-library MCP server that declares no capabilities or, with
// --tools, the tools capability and the suite's echo, add and fail tools).
// TestTinyPortAgrees checks that the port answers as the script does.
func tinyServer(args ...string) ([]string, map[string]string) {
	return append(fakeCommand("mcp-tiny"), args...), map[string]string{"CONFORM_FAKE_IUT": "mcp-tiny"}
}

// tinyScript returns the command of runner/testdata/mcp-tiny/server.py.
func tinyScript(t *testing.T, args ...string) []string {
	t.Helper()
	testtool.Need(t, "python3") // the tiny MCP server
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "mcp-tiny", "server.py"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{py, script}, args...)
}

// mcpSuite opens suites/mcp with its digests checked.
func mcpSuite(t *testing.T) *runner.Suite {
	t.Helper()
	s, err := openDir(t, filepath.Join("..", "suites", "mcp"), false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestClassesJudged: which classes a run judges, and what happens to the
// vectors of the others, against the MCP suite with the tiny server:
// derived from what it declared (no capabilities: core alone, always
// judged; tools: core and tools), claimed (a claim overrides derivation),
// contradicted (a claim of tools by a server that declared none fails the
// run, and the tools class's required vectors, whose requires cannot
// hold, FAIL with REQUIREMENT_UNMET rather than being skipped).
func TestClassesJudged(t *testing.T) {
	t.Parallel()
	s := mcpSuite(t)
	type want struct {
		verdict   string
		certifies []string
		how       map[string]string
		// contradicted classes; the status of some vectors.
		contradicted []string
		statuses     map[string]runner.Status
		line         string
	}
	for _, tc := range []struct {
		name   string
		args   []string
		claims []string
		want   want
	}{
		{"no capabilities", nil, nil, want{
			verdict: runner.VerdictCertified, certifies: []string{"core"},
			how: map[string]string{"core": "always", "tools": "not-claimed", "resources": "not-claimed", "progress": "not-claimed"},
			statuses: map[string]runner.Status{"lifecycle-initialize": runner.Pass, "ping": runner.Pass,
				"tools-list": runner.Skipped, "tools-call-echo": runner.Skipped, "resources-list": runner.Skipped},
			line: "CERTIFIED: tiny — MCP server 2025-11-25 [core]: 17/17 required, 3/3 recommended; 1 skipped (requires not met); not claimed: tools, resources, prompts, logging, completions, progress, server-requests (31 vectors)",
		}},
		{"tools", []string{"--tools"}, nil, want{
			verdict: runner.VerdictCertified, certifies: []string{"core", "tools"},
			how: map[string]string{"core": "always", "tools": "derived", "progress": "not-claimed", "server-requests": "not-claimed"},
			statuses: map[string]runner.Status{"tools-list": runner.Pass, "tools-call-echo": runner.Pass,
				"cancel-in-flight": runner.Skipped, "progress-notifications": runner.Skipped},
			line: "CERTIFIED: tiny — MCP server 2025-11-25 [core, tools]: 22/22 required, 9/10 recommended; 1 skipped (requires not met); not claimed: resources, prompts, logging, completions, progress, server-requests (17 vectors)",
		}},
		{"tools, claims core only", []string{"--tools"}, []string{"core"}, want{
			verdict: runner.VerdictCertified, certifies: []string{"core"},
			how:      map[string]string{"core": "always", "tools": "not-claimed"},
			statuses: map[string]runner.Status{"tools-list": runner.Skipped, "ping": runner.Pass},
			line:     "CERTIFIED: tiny — MCP server 2025-11-25 [core]: 17/17 required, 3/3 recommended; not claimed: tools, resources, prompts, logging, completions, progress, server-requests (31 vectors)",
		}},
		{"claims tools it did not declare", nil, []string{"core", "tools"}, want{
			verdict: runner.VerdictNotCertified, certifies: []string{"core", "tools"},
			how: map[string]string{"core": "always", "tools": "claimed"}, contradicted: []string{"tools"},
			statuses: map[string]runner.Status{"tools-list": runner.Fail, "tools-call-echo": runner.Fail,
				"tools-call-unknown-tool": runner.Skipped, "ping": runner.Pass},
			line: "NOT CERTIFIED: tiny — MCP server 2025-11-25 [core, tools]: 17/22 required, 3/10 recommended; 10 skipped (requires not met); not claimed: resources, prompts, logging, completions, progress, server-requests (17 vectors); claim contradicted: tools",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd, env := tinyServer(tc.args...)
			cfg := runner.Config{Suite: s, Role: "server", Command: cmd, Env: env, Implementation: "tiny",
				Claims: tc.claims, Jobs: 2, Timeout: 10 * time.Second}
			rep, err := runner.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != tc.want.verdict {
				t.Errorf("verdict %s, want %s", rep.Verdict, tc.want.verdict)
				for _, r := range rep.Results {
					if r.Failed() {
						t.Logf("%s %s %v", r.ID, r.Status, r.Findings)
					}
				}
			}
			if diff := cmp.Diff(tc.want.certifies, rep.Certifies); diff != "" {
				t.Errorf("certifies (-want +got):\n%s", diff)
			}
			how := map[string]string{}
			var contradicted []string
			for _, c := range rep.Classes {
				if _, ok := tc.want.how[c.Name]; ok {
					how[c.Name] = c.How
				}
				if c.Contradicted {
					contradicted = append(contradicted, c.Name)
				}
			}
			if diff := cmp.Diff(tc.want.how, how); diff != "" {
				t.Errorf("how each class is judged (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want.contradicted, contradicted); diff != "" {
				t.Errorf("contradicted classes (-want +got):\n%s", diff)
			}
			statuses := map[string]runner.Status{}
			for _, r := range rep.Results {
				if _, ok := tc.want.statuses[r.ID]; ok {
					statuses[r.ID] = r.Status
				}
				if r.Class == "" {
					t.Errorf("%s has no class", r.ID)
				}
				judged := slices.Contains(rep.Certifies, r.Class)
				if r.NotClaimed() == judged {
					t.Errorf("%s (%s, class %s judged %t) has CLASS_NOT_CLAIMED %t", r.ID, r.Status, r.Class, judged, r.NotClaimed())
				}
				if judged && r.Level == "required" && r.Status == runner.Skipped {
					t.Errorf("%s: a required vector of a judged class is SKIPPED", r.ID)
				}
			}
			if diff := cmp.Diff(tc.want.statuses, statuses); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
			line := report.VerdictLine(rep)
			line = line[:strings.LastIndex(line, " (sha256:")]
			if line != tc.want.line {
				t.Errorf("verdict line\n got %s\nwant %s", line, tc.want.line)
			}
			codes := []string{}
			for _, f := range rep.Findings {
				codes = append(codes, f.Code)
			}
			wantCodes := []string{}
			for range tc.want.contradicted {
				wantCodes = append(wantCodes, runner.FindingClaimContradicted)
			}
			if diff := cmp.Diff(wantCodes, codes); diff != "" {
				t.Errorf("report findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestClaimUnknown: a claim that names no class of the suite is refused
// before anything runs.
func TestClaimUnknown(t *testing.T) {
	t.Parallel()
	s := mcpSuite(t)
	_, err := runner.Run(context.Background(), runner.Config{Suite: s, Role: "server", Command: []string{"/nonexistent"}, Claims: []string{"core", "toolz"}})
	if kiterr.CodeOf(err) != kiterr.ClaimUnknown {
		t.Fatalf("err %v, want CLAIM_UNKNOWN", err)
	}
}

// TestReadReportClasses: a saved report's classes must follow from its
// results: counts, certifies, a result's class, and a not-claimed result
// of a judged class are each refused (REPORT_INVALID).
func TestReadReportClasses(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "reference", "set-model-*", "interrupt-*")
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	encode := func(r *runner.Report) []byte {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if _, err := runner.ReadReport(cfg.Suite, encode(rep)); err != nil {
		t.Fatalf("an honest report: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(r *runner.Report)
	}{
		{"class count", func(r *runner.Report) { r.Classes[0].Passed++ }},
		{"certifies", func(r *runner.Report) { r.Certifies = r.Certifies[:1] }},
		{"unknown class", func(r *runner.Report) { r.Results[0].Class = "nope" }},
		{"not claimed in a judged class", func(r *runner.Report) {
			r.Results[0].Status = runner.Skipped
			r.Results[0].Findings = []runner.Finding{{Code: runner.FindingClassNotClaimed, Message: "m"}}
			r.Recount()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			forged := *rep
			forged.Results = slices.Clone(rep.Results)
			forged.Classes = slices.Clone(rep.Classes)
			forged.Certifies = slices.Clone(rep.Certifies)
			tc.edit(&forged)
			if _, err := runner.ReadReport(cfg.Suite, encode(&forged)); kiterr.CodeOf(err) != kiterr.ReportInvalid {
				t.Errorf("err %v, want REPORT_INVALID", err)
			}
		})
	}
}

// TestPreflightStartErrorSurfaces: an IUT that cannot be started is
// IUT_START even when the only vector selected belongs to a class the
// preflight would have derived: the failed preflight judges no such class,
// so no other vector starts the IUT and the start error was lost (a
// NOTHING_PASSED report, exit 1, before).
func TestPreflightStartErrorSurfaces(t *testing.T) {
	t.Parallel()
	cfg := runner.Config{Suite: mcpSuite(t), Role: "server", Command: []string{filepath.Join(t.TempDir(), "no-such-server")},
		Filters: []string{"tools-call-echo"}, Jobs: 2, Timeout: 10 * time.Second, PreflightCache: t.TempDir()}
	rep, err := runner.Run(context.Background(), cfg)
	if got := kiterr.CodeOf(err); got != kiterr.IUTStart {
		t.Fatalf("error %v (code %q), report %v; want IUT_START", err, got, rep != nil)
	}
}

// TestTinyPortAgrees: fakeiut's Go port of the tiny MCP server answers
// every vector of suites/mcp as runner/testdata/mcp-tiny/server.py does,
// with and without --tools: the same status and the same finding codes per
// vector. The class tests run the port (a Go start costs a few
// milliseconds of CPU where python3's costs about 100); this test is what
// lets them. A long scenario: it starts python3 about 90 times.
func TestTinyPortAgrees(t *testing.T) {
	testtool.Long(t, "runs suites/mcp against the tiny server's script and its Go port, about 90 python3 starts")
	t.Parallel()
	s := mcpSuite(t)
	perVector := func(rep *runner.Report) map[string]string {
		m := map[string]string{}
		for _, r := range rep.Results {
			codes := []string{}
			for _, f := range r.Findings {
				codes = append(codes, f.Code)
			}
			slices.Sort(codes)
			m[r.ID] = string(r.Status) + " " + strings.Join(codes, ",")
		}
		return m
	}
	for _, args := range [][]string{nil, {"--tools"}} {
		t.Run(strings.Join(append([]string{"args"}, args...), " "), func(t *testing.T) {
			t.Parallel()
			port, env := tinyServer(args...)
			got := map[string]map[string]string{}
			for name, cfg := range map[string]runner.Config{
				"script": {Command: tinyScript(t, args...)},
				"port":   {Command: port, Env: env},
			} {
				cfg.Suite, cfg.Role, cfg.Implementation, cfg.Jobs, cfg.Timeout = s, "server", "tiny", 2, 10*time.Second
				rep, err := runner.Run(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				got[name] = perVector(rep)
			}
			if len(got["script"]) == 0 {
				t.Fatal("the script's run has no results")
			}
			if diff := cmp.Diff(got["script"], got["port"]); diff != "" {
				t.Errorf("status and finding codes per vector (-script +port):\n%s", diff)
			}
		})
	}
}
