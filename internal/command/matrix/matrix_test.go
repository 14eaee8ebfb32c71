package matrix_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/command/matrix"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/internal/result"
	"github.com/conform-kit/conform/runner"
)

// writeFile is the WriteFile a test gives: a plain write.
func writeFile(name string, print func(io.Writer) error) error {
	var b bytes.Buffer
	if err := print(&b); err != nil {
		return err
	}
	return os.WriteFile(name, b.Bytes(), 0o644)
}

// saved writes rep as conform run --json-out does and returns the file.
func saved(t *testing.T, dir, name string, rep *result.Report) string {
	t.Helper()
	rep.Recount()
	var b bytes.Buffer
	if err := report.JSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// openSuite opens the embedded control suite.
func openSuite(t *testing.T) *runner.Suite {
	t.Helper()
	s, err := runner.Open(conform.Suite())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sample is a small report of implementation version v, started on day.
func sample(s *runner.Suite, v string, day time.Time, failing bool) *result.Report {
	st := result.Pass
	var findings []result.Finding
	if failing {
		st = result.Fail
		findings = []result.Finding{{Code: result.FindingReplyMissing, Status: result.Fail, Message: "no reply"}}
	}
	return &result.Report{
		Suite:          result.SuiteInfo{Name: s.Manifest.Name, Version: 1, Role: "agent", Digest: s.Digest},
		Implementation: result.Implementation{Name: "tiny " + v, Command: []string{"tiny"}, Version: v},
		Started:        day,
		Invocation:     []string{"run", "--role", "agent", "--version", "1", "--suite", "/home/someone/src/conform/suites/mcp", "--", "/usr/local/bin/tiny", "serve"},
		Results: []result.Result{
			{ID: "alpha", Level: result.LevelRequired, Status: st, Findings: findings, Parity: result.ParityDiffers},
			{ID: "beta", Level: result.LevelRequired, Status: result.Pass, Parity: result.ParityExact},
			{ID: "gamma", Level: result.LevelRecommended, Status: result.Skipped,
				Findings: []result.Finding{{Code: result.FindingRequirementUnmet, Message: "no frame of the preflight matches /result/capabilities/logging"}}},
		},
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	src := []matrix.Source{{Name: "a", File: "a.json"}}
	for _, tc := range []struct {
		name string
		cfg  matrix.Config
		want string
	}{
		{"ok", matrix.Config{Format: matrix.FormatHTML, From: src, Pages: "p"}, ""},
		{"format", matrix.Config{Format: "pdf", From: src}, "--format must be"},
		{"pages in json", matrix.Config{Format: matrix.FormatJSON, From: src, Pages: "p"}, "--pages writes Markdown or HTML"},
		{"nothing", matrix.Config{Format: matrix.FormatMarkdown}, "name implementations with --impl"},
	} {
		err := tc.cfg.Check()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || kiterr.CodeOf(err) != kiterr.Usage || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want USAGE %q", tc.name, err, tc.want)
		}
	}
}

func TestParseSource(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]matrix.Source{
		"reports/python.agent-v1.json": {Name: "python", File: "reports/python.agent-v1.json"},
		"py=reports/x.json":            {Name: "py", File: "reports/x.json"},
		"a/b=c.json":                   {Name: "b=c", File: "a/b=c.json"},
	} {
		if got := matrix.ParseSource(spec); got != want {
			t.Errorf("ParseSource(%q) = %+v, want %+v", spec, got, want)
		}
	}
	if _, err := matrix.ParseTrend("x"); kiterr.CodeOf(err) != kiterr.Usage {
		t.Errorf("ParseTrend(x) = %v, want USAGE", err)
	}
}

func TestReplaceBlock(t *testing.T) {
	t.Parallel()
	doc := "# x\n\n" + matrix.ReadmeBegin + "\nold\n" + matrix.ReadmeEnd + "\nrest\n"
	got, err := matrix.ReplaceBlock(doc, "new\nlines\n")
	if want := "# x\n\n" + matrix.ReadmeBegin + "\nnew\nlines\n" + matrix.ReadmeEnd + "\nrest\n"; err != nil || got != want {
		t.Errorf("ReplaceBlock = %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{"# x\n", matrix.ReadmeEnd + "\n" + matrix.ReadmeBegin + "\n", matrix.ReadmeBegin + "\n" + matrix.ReadmeBegin + "\n" + matrix.ReadmeEnd + "\n"} {
		if _, err := matrix.ReplaceBlock(bad, "x\n"); err == nil {
			t.Errorf("ReplaceBlock(%q) = nil error, want one", bad)
		}
	}
	if got := matrix.ProfileOf([]string{"run", "--profile", "impl/x", "--", "--profile", "y"}); got != "impl/x" {
		t.Errorf("ProfileOf = %q, want impl/x", got)
	}
}

// TestMakeFromReports makes Markdown pages from saved reports with a
// history folder, and checks what the command promised: a page and badges
// per implementation, the history oldest first, the run date from the
// report, and no machine path anywhere (the report's --suite and command
// were absolute).
func TestMakeFromReports(t *testing.T) {
	t.Parallel()
	s := openSuite(t)
	dir := t.TempDir()
	day := func(d int) time.Time { return time.Date(2026, 11, d, 9, 30, 0, 0, time.UTC) }
	cur := saved(t, dir, "tiny.agent-v1.json", sample(s, "0.4", day(20), false))
	hist := filepath.Join(dir, "history")
	old := sample(s, "0.3", day(10), true)
	for i := range old.Results {
		old.Results[i].Class = "core"
	}
	old.Classes = []result.ClassResult{{Name: "core", Judged: true, How: result.HowAlways}}
	saved(t, hist, "tiny.0.3.json", old)
	saved(t, hist, "tiny/0.2.json", sample(s, "0.2", day(1), true))
	saved(t, hist, "other.0.1.json", sample(s, "0.1", day(2), true))
	pages := filepath.Join(dir, "pages")
	var stdout, stderr bytes.Buffer
	cfg := matrix.Config{Suite: s, Format: matrix.FormatMarkdown, From: []matrix.Source{matrix.ParseSource(cur)}, Histories: []string{hist},
		Pages: pages, Stdout: &stdout, Stderr: &stderr, WriteFile: writeFile}
	m, err := matrix.Make(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Make: %v (stderr %s)", err, stderr.String())
	}
	var versions []string
	for _, p := range m.Implementations[0].History {
		versions = append(versions, p.Version+" "+p.Date+" "+p.Verdict)
	}
	want := []string{"0.2 2026-11-01 NOT_CERTIFIED", "0.3 2026-11-10 NOT_CERTIFIED"}
	if diff := cmp.Diff(want, versions); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	for _, f := range []string{"tiny.md", "tiny.svg", "tiny.agent-v1.svg"} {
		if _, err := os.Stat(filepath.Join(pages, f)); err != nil {
			t.Errorf("page file: %v", err)
		}
	}
	page, err := os.ReadFile(filepath.Join(pages, "tiny.md"))
	if err != nil {
		t.Fatal(err)
	}
	all := stdout.String() + string(page)
	for _, leak := range []string{"/home/someone", "/usr/local/bin", "](/", "(" + dir} {
		if strings.Contains(all, leak) {
			t.Errorf("a page shows a machine path (%q)", leak)
		}
	}
	if !strings.Contains(string(page), "| 0.3 | 2026-11-10 | agent role, protocol v1 | NOT\\_CERTIFIED \\[core\\] | 1 | 1 | 0 | 1 | 0 |") {
		t.Errorf("the page's history does not show 0.3 with what it certified:\n%s", page)
	}
	if !strings.Contains(string(page), "--suite mcp") || !strings.Contains(string(page), "2026-11-20") {
		t.Errorf("the page does not show the suite by name and the run date:\n%s", page)
	}

	// The same reports give the same bytes.
	stdout.Reset()
	if _, err := matrix.Make(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(filepath.Join(pages, "tiny.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(page, again) {
		t.Error("the same reports gave different pages")
	}

	// A history folder with nothing of the matrix is an error.
	cfg.Histories = []string{t.TempDir()}
	if _, err := matrix.Make(context.Background(), cfg); kiterr.CodeOf(err) != kiterr.Usage {
		t.Errorf("empty --history: %v, want USAGE", err)
	}
}

// TestMakeRuns runs an implementation (cat, which echoes every request
// back) for one vector and checks the invocation the matrix records: the
// bounds given, --suite relative to the working directory, the command
// after "--", and Describe applied.
func TestMakeRuns(t *testing.T) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat on PATH")
	}
	s := openSuite(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cfg := matrix.Config{Suite: s, SuiteDir: filepath.Join(wd, "testdata", "suite"), Format: matrix.FormatJSON, Roles: []string{"agent"}, Versions: []int{1},
		Run: matrix.RunOptions{Filters: []string{"interrupt-idle"}, Timeout: 2 * time.Second, Grace: time.Second, KillAfter: time.Second, Recorded: []string{"timeout"}},
		Impls: []matrix.Impl{{Name: "echo", Configure: func(c *runner.Config) (matrix.Setup, error) {
			c.Command = []string{cat}
			return matrix.Setup{Command: []string{"cat"}, Describe: func(r *result.Report) { r.Implementation.Language = "C" }}, nil
		}}},
		Stdout: &stdout, Stderr: &stderr}
	m, err := matrix.Make(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Make: %v\n%s", err, stderr.String())
	}
	col := m.Sections[0].Columns[0]
	want := []string{"run", "--role", "agent", "--version", "1", "--suite", "testdata/suite", "--timeout", "2s", "--", "cat"}
	if diff := cmp.Diff(want, col.Invocation); diff != "" {
		t.Errorf("invocation (-want +got):\n%s", diff)
	}
	if m.Implementations[0].Language != "C" {
		t.Errorf("Describe was not applied: %+v", m.Implementations[0])
	}
	if !strings.Contains(stderr.String(), "echo, agent role, v1: ") {
		t.Errorf("no progress line on stderr: %q", stderr.String())
	}
	var back result.Matrix
	if err := json.Unmarshal(stdout.Bytes(), &back); err != nil || back.Suite.Digest != s.Digest {
		t.Errorf("the JSON overview does not read back: %v", err)
	}

	// A cancelled context is INTERRUPTED.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := matrix.Make(ctx, cfg); kiterr.CodeOf(err) != kiterr.Interrupted {
		t.Errorf("cancelled: %v, want INTERRUPTED", err)
	}
}

// TestProfileFacts: the homepage and artifact of the profile a report's
// invocation names reach the matrix and the page.
func TestProfileFacts(t *testing.T) {
	t.Parallel()
	s := openSuite(t)
	dir := t.TempDir()
	prof := filepath.Join(dir, "impl", "tiny")
	if err := os.MkdirAll(prof, 0o755); err != nil {
		t.Fatal(err)
	}
	digest := strings.Repeat("ab", 32)
	if err := os.WriteFile(filepath.Join(prof, "profile.json"), []byte(`{"name": "tiny", "command": ["tiny"], "homepage": "https://example.org/tiny",
  "artifact": {"name": "tiny-0.4.tgz", "uri": "https://example.org/tiny-0.4.tgz", "digest": {"sha256": "`+digest+`"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, prof)
	if err != nil {
		t.Fatal(err)
	}
	rep := sample(s, "0.4", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), false)
	rep.Invocation = []string{"run", "--role", "agent", "--version", "1", "--profile", filepath.ToSlash(rel)}
	cur := saved(t, dir, "tiny.json", rep)
	var stdout bytes.Buffer
	m, err := matrix.Make(context.Background(), matrix.Config{Suite: s, Format: matrix.FormatHTML, From: []matrix.Source{matrix.ParseSource(cur)},
		Stdout: &stdout, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	mi := m.Implementations[0]
	if mi.Homepage != "https://example.org/tiny" || mi.Artifact == nil || mi.Artifact.Digest != "sha256:"+digest {
		t.Errorf("implementation %+v (artifact %+v): want the profile's homepage and artifact", mi, mi.Artifact)
	}
	for _, want := range []string{`<a class="impl-homepage" href="https://example.org/tiny">homepage</a>`, `<a class="impl-artifact" href="https://example.org/tiny-0.4.tgz">tiny-0.4.tgz</a>`, "sha256:" + digest} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the page does not show %s", want)
		}
	}
}

// TestVectorLinks: a page links each vector to its file in the suite when
// the suite and the pages are inside the working directory, and shows the
// path unlinked when the suite is elsewhere (a relative path out of the
// working directory would spell the machine's folders).
func TestVectorLinks(t *testing.T) {
	s := openSuite(t)
	dir := t.TempDir()
	rep := sample(s, "0.4", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), true)
	rep.Results[0].Path = "vectors/v1/agent/alpha.json"
	cur := saved(t, dir, "tiny.json", rep)
	pages := filepath.Join("testdata", "pages-out")
	t.Cleanup(func() { os.RemoveAll("testdata") })
	if err := os.MkdirAll(filepath.Join("testdata", "suite"), 0o755); err != nil {
		t.Fatal(err)
	}
	for suiteDir, want := range map[string]string{
		filepath.Join("testdata", "suite"): "[vectors/v1/agent/alpha.json](../suite/vectors/v1/agent/alpha.json)",
		filepath.Join(dir, "suite"):        "`vectors/v1/agent/alpha.json`",
	} {
		cfg := matrix.Config{Suite: s, SuiteDir: suiteDir, Format: matrix.FormatMarkdown, From: []matrix.Source{matrix.ParseSource(cur)},
			Pages: pages, Stdout: io.Discard, Stderr: io.Discard, WriteFile: writeFile}
		if _, err := matrix.Make(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		page, err := os.ReadFile(filepath.Join(pages, "tiny.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(page), want) || strings.Contains(string(page), dir) {
			t.Errorf("suite %s: the page does not show %s (or shows %s):\n%s", suiteDir, want, dir, page)
		}
	}
}

// TestReadmes: --readmes rewrites the generated block of the README in
// the profile folder a run names, with what the run certifies and its
// skipped vectors, and leaves the rest of the file as it was.
func TestReadmes(t *testing.T) {
	t.Parallel()
	s := openSuite(t)
	dir := t.TempDir()
	prof := filepath.Join(dir, "impl", "tiny")
	if err := os.MkdirAll(prof, 0o755); err != nil {
		t.Fatal(err)
	}
	readme := "# tiny\n\n" + matrix.ReadmeBegin + "\nold\n" + matrix.ReadmeEnd + "\n\nmore\n"
	if err := os.WriteFile(filepath.Join(prof, "README.md"), []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, prof)
	if err != nil {
		t.Fatal(err)
	}
	rep := sample(s, "0.4", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), false)
	rep.Invocation = []string{"run", "--role", "agent", "--version", "1", "--profile", filepath.ToSlash(rel)}
	for i, c := range []string{"core", "core", "logging"} {
		rep.Results[i].Class = c
	}
	rep.Classes = []result.ClassResult{{Name: "core", Judged: true, How: result.HowAlways}, {Name: "logging", Judged: true, How: result.HowDerived}}
	cur := saved(t, dir, "tiny.json", rep)
	var stderr bytes.Buffer
	cfg := matrix.Config{Suite: s, Format: matrix.FormatMarkdown, From: []matrix.Source{matrix.ParseSource(cur)}, Readmes: true,
		Stdout: io.Discard, Stderr: &stderr, WriteFile: writeFile}
	if _, err := matrix.Make(context.Background(), cfg); err != nil {
		t.Fatalf("Make: %v\n%s", err, stderr.String())
	}
	got, err := os.ReadFile(filepath.Join(prof, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# tiny\n\n" + matrix.ReadmeBegin + "\nResults of the last run", "| run | verdict | certifies |",
		"| agent role, protocol v1 | CERTIFIED | `core, logging` | 2 passed, 0 xfail, 0 failed |", "0 passed, 0 xfail, 0 failed, 1 skipped |",
		matrix.ReadmeEnd + "\n\nmore\n"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("README lacks %q:\n%s", want, got)
		}
	}
}

func TestRelativeDir(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(filepath.Dir(wd)), "elsewhere")
	for dir, want := range map[string]string{
		filepath.Join(wd, "suites", "mcp"): "suites/mcp",
		"suites/mcp":                       "suites/mcp",
		outside:                            outside, // result.Portable shows it by its last element
	} {
		if got := matrix.RelativeDir(dir); got != want {
			t.Errorf("RelativeDir(%s) = %s, want %s", dir, got, want)
		}
	}
}
