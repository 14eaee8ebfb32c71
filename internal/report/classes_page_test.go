package report_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/browser"
	"github.com/conform-kit/conform/internal/browser/browsertest"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/internal/testtool"
	"github.com/conform-kit/conform/runner"
)

// tinyMatrix runs the MCP suite (suites/mcp) against the tiny stdlib MCP
// server with tools (runner/testdata/mcp-tiny, judged on core and tools,
// the other classes not claimed), as conform run --json-out saves the
// report with an absolute --suite in its invocation, reads it back as
// conform matrix --from does, and returns its matrix and the report.
// Skipped without python3.
func tinyMatrix(t *testing.T) (*runner.Matrix, *runner.Report) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH: the tiny MCP server is a Python script")
	}
	suiteDir, err := filepath.Abs(filepath.Join("..", "..", "suites", "mcp"))
	if err != nil {
		t.Fatal(err)
	}
	server, err := filepath.Abs(filepath.Join("..", "..", "runner", "testdata", "mcp-tiny", "server.py"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := runner.Open(os.DirFS(suiteDir))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	rep, err := runner.Run(ctx, runner.Config{Suite: s, Role: "server", Version: 1, Command: []string{py, server, "--tools"}, Implementation: "tiny", Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	rep.Implementation.Version, rep.Implementation.Language = "0.4", "Python"
	rep.Implementation.Source, rep.Implementation.Issues = "https://example.org/tiny", "https://example.org/tiny/issues"
	rep.Invocation = []string{"run", "--role", "server", "--version", "1", "--suite", suiteDir, "--", "python3", server, "--tools"}
	var saved bytes.Buffer
	if err := report.JSON(&saved, rep); err != nil {
		t.Fatal(err)
	}
	back, err := runner.ReadReport(s, saved.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	m, err := runner.BuildMatrix([]runner.MatrixInput{{Name: "tiny", Report: back}})
	if err != nil {
		t.Fatal(err)
	}
	return m, back
}

// TestClassPageInBrowser renders the page conform matrix --pages writes for
// a real run with conformance classes in headless Chromium: it loads with
// no console error (its badge image among what it loads), shows the badge
// as an image with its Markdown to copy, a compliance table per class that
// agrees with the report, what it certifies, the skipped vectors apart
// from the failures, and no machine path. The Markdown page and the badge
// say the same. The page and its screenshot are kept in
// $CONFORM_ARTIFACTS (default testdata/browser-out).
func TestClassPageInBrowser(t *testing.T) {
	exe := browsertest.Need(t)
	testtool.Long(t, "certifies the tiny MCP server for its matrix, then renders the page in Chromium: about 10 s of CPU; stage 85 runs it")
	m, rep := tinyMatrix(t)
	if len(rep.Certifies) == 0 || rep.Summary.Skipped == 0 {
		t.Fatalf("fixture: the tiny server certifies %v with %d skipped; want classes and skipped vectors", rep.Certifies, rep.Summary.Skipped)
	}
	const name = "tiny"
	opt := report.MatrixOptions{Pages: "pages/", Overview: "../overview", Suite: "../suites/mcp/"}
	dir := artifacts(t)
	var page, md, badge bytes.Buffer
	if err := report.MatrixPageHTML(&page, m, name, opt); err != nil {
		t.Fatal(err)
	}
	if err := report.MatrixPageMarkdown(&md, m, name, opt); err != nil {
		t.Fatal(err)
	}
	if err := report.MatrixBadge(&badge, m, name, ""); err != nil {
		t.Fatal(err)
	}
	htmlPath := filepath.Join(dir, "page-"+name+".html")
	for file, data := range map[string][]byte{htmlPath: page.Bytes(), filepath.Join(dir, name+".svg"): badge.Bytes(), filepath.Join(dir, "page-"+name+".md"): md.Bytes()} {
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"HTML page": page.String(), "Markdown page": md.String(), "badge": badge.String()} {
		if strings.Contains(text, root) {
			t.Errorf("the %s shows the machine path %s", what, root)
		}
	}
	label := "MCP server · " + strings.Join(rep.Certifies, "+")
	if !strings.Contains(badge.String(), ">"+label+"</text>") || !strings.Contains(badge.String(), fmt.Sprintf("· %d skipped</text>", rep.Summary.Required.Skipped+rep.Summary.Recommended.Skipped)) {
		t.Errorf("badge does not name %q and its skips:\n%s", label, badge.String())
	}
	if want := "Certifies [" + strings.Join(rep.Certifies, ", ") + "]."; !strings.Contains(md.String(), want) || !strings.Contains(md.String(), "![conform: tiny](tiny.svg)\n") {
		t.Errorf("Markdown page: no %q or no badge image:\n%s", want, md.String())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b, err := browser.Start(exe, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	d := openPage(t, ctx, b, htmlPath, filepath.Join(dir, "page-"+name+".png"))
	for _, p := range inertProblems(d, "conform: "+name) {
		t.Error(p)
	}
	if len(d.Images) != 1 || !d.Images[0].Loaded {
		t.Errorf("images %+v, want the badge, loaded", d.Images)
	}
	p, err := b.NewPage(ctx, 1280, 800)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, "file://"+htmlPath); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Classes []struct {
			Class  string            `json:"class"`
			Judged string            `json:"judged"`
			Counts map[string]string `json:"counts"`
		} `json:"classes"`
		Certifies  string   `json:"certifies"`
		BadgeCopy  string   `json:"badgeCopy"`
		Failures   []string `json:"failures"`
		Skipped    []string `json:"skipped"`
		Provenance string   `json:"provenance"`
	}
	const probe = `(() => ({
  classes: [...document.querySelectorAll("table.classes-table > tbody > tr")].map(tr => ({
    class: tr.dataset.class,
    judged: tr.children[1].textContent,
    counts: Object.fromEntries([...tr.querySelectorAll("td[data-count]")].map(td => [td.dataset.count, td.textContent])),
  })),
  certifies: (document.querySelector("h3 .certifies") || {}).textContent || "",
  badgeCopy: (document.querySelector("code.badge-markdown") || {}).textContent || "",
  failures: [...document.querySelectorAll(".cause-group[data-kind=failed] code.vector")].map(c => c.textContent),
  skipped: [...document.querySelectorAll(".cause-group[data-kind=skipped] code.vector")].map(c => c.textContent),
  provenance: (document.querySelector(".provenance") || {}).textContent || "",
}))()`
	if err := p.Eval(ctx, probe, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Classes) != len(rep.Classes) {
		t.Fatalf("the page shows %d classes, the report has %d", len(got.Classes), len(rep.Classes))
	}
	for i, c := range rep.Classes {
		g := got.Classes[i]
		want := map[string]string{"passed": fmt.Sprint(c.Passed), "failed": fmt.Sprint(c.Failed), "xfail": fmt.Sprint(c.XFail),
			"skipped": fmt.Sprint(c.Skipped), "not_claimed": fmt.Sprint(c.NotClaimed), "total": fmt.Sprint(c.Total)}
		judged := strings.HasPrefix(g.Judged, "yes")
		if g.Class != c.Name || judged != c.Judged || fmt.Sprint(g.Counts) != fmt.Sprint(want) {
			t.Errorf("class row %d: %s judged %q %v; the report has %s judged %v %v", i, g.Class, g.Judged, g.Counts, c.Name, c.Judged, want)
		}
	}
	if got.Certifies != "["+strings.Join(rep.Certifies, ", ")+"]" || got.BadgeCopy != "![conform: tiny](tiny.svg)" {
		t.Errorf("certifies %q, badge Markdown %q", got.Certifies, got.BadgeCopy)
	}
	skipped := 0
	for _, res := range rep.Results {
		if res.Status == runner.Skipped {
			skipped++
		}
	}
	if len(got.Skipped) != skipped {
		t.Errorf("the page lists %d skipped vectors, the report has %d", len(got.Skipped), skipped)
	}
	for _, f := range got.Failures {
		for _, res := range rep.Results {
			if res.ID == f && res.Status == runner.Skipped {
				t.Errorf("skipped vector %s is listed among the failures", f)
			}
		}
	}
	if want := "Run on " + rep.Started.UTC().Format(time.DateOnly); !strings.HasPrefix(got.Provenance, want) {
		t.Errorf("provenance %q, want it to start %q", got.Provenance, want)
	}
}
