package report_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/browser"
	"github.com/conform-kit/conform/internal/browser/browsertest"
	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/runner"
)

// pageTitle is the title MatrixHTML gives the overview; a script that ran
// would change it (hostileScript does).
const pageTitle = "conform certification matrix"

// allowedTags are the elements the matrix pages are made of; anything else
// in the rendered DOM was injected.
var allowedTags = []string{"a", "b", "body", "br", "code", "details", "div", "h1", "h2", "h3", "h4", "head", "html", "img", "li", "meta",
	"ol", "p", "section", "span", "style", "summary", "table", "tbody", "td", "th", "thead", "time", "title", "tr", "ul"}

// domProbe is evaluated in the loaded page by the test (the page itself has
// no script). It returns what a person would see: the title, every element
// name, event-handler attributes, links, the implementations table, per
// section the header and the rows with their cells and links, and per
// implementation the counts tables and the causes.
const domProbe = `(() => {
  const all = [...document.querySelectorAll("*")];
  const text = document.documentElement.textContent;
  return {
    title: document.title,
    scripts: document.scripts.length,
    pwned: typeof window.__pwned === "undefined" ? "" : String(window.__pwned),
    tags: [...new Set(all.map(e => e.localName))].sort(),
    handlers: all.flatMap(e => [...e.attributes].filter(a => a.name.startsWith("on")).map(a => e.localName + "." + a.name)),
    links: [...document.querySelectorAll("a")].map(a => a.getAttribute("href")),
    images: [...document.images].map(i => ({src: i.getAttribute("src"), loaded: i.complete && i.naturalWidth > 0})),
    ids: all.map(e => e.id).filter(id => id),
    bidi: /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/.test(text),
    controls: /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/.test(text),
    impls: [...document.querySelectorAll("#implementations-table > tbody > tr")].map(tr => ({
      cells: tr.children.length,
      name: tr.children[0].textContent,
      implementation: tr.children[1] ? tr.children[1].textContent : "",
      shown: tr.children[1] ? tr.children[1].innerText : "",
    })),
    sections: [...document.querySelectorAll("section.matrix-section")].map(s => ({
      id: s.id,
      columns: [...s.querySelectorAll("table.matrix > thead > tr > th.impl")].map(th => th.textContent),
      rows: [...s.querySelectorAll("table.matrix > tbody > tr")].map(tr => ({
        id: tr.children[0].textContent,
        cells: tr.children.length,
        text: [...tr.querySelectorAll("td.cell")].map(td => td.textContent),
        classes: [...tr.querySelectorAll("td.cell")].map(td => td.className),
        links: [...tr.querySelectorAll("td.cell")].map(td => { const a = td.querySelector("a"); return a ? a.getAttribute("href") : ""; }),
      })),
    })),
    pages: [...document.querySelectorAll("section.implementation")].map(s => ({
      name: s.dataset.name,
      verdict: (s.querySelector(".impl-verdict") || {}).textContent || "",
      source: (s.querySelector("a.impl-source") || {href: ""}).href,
      issues: (s.querySelector("a.impl-issues") || {href: ""}).href,
      sections: [...s.querySelectorAll("div.impl-section")].map(d => ({
        key: d.dataset.section,
        verdict: d.querySelector(".section-verdict").textContent,
        counts: [...d.querySelectorAll("table.counts-table > tbody > tr")].map(tr => ({
          level: tr.dataset.level,
          values: Object.fromEntries([...tr.querySelectorAll("td[data-count]")].map(td => [td.dataset.count, td.textContent])),
        })),
        groups: [...d.querySelectorAll(".cause-group")].map(g => ({
          kind: g.dataset.kind,
          folded: g.localName === "details" && !g.open,
          causes: [...g.querySelectorAll("ol.causes > li.cause")].map(li => ({
            id: li.id,
            code: li.dataset.code,
            pointer: li.dataset.pointer,
            vectors: [...li.querySelectorAll(":scope > .vectors > code.vector")].map(c => c.textContent + " " + c.dataset.status),
            red: [...li.querySelectorAll(":scope > .vectors > code.st-fail")].length,
            repro: (li.querySelector("code.repro") || {}).textContent || "",
            reasons: [...li.querySelectorAll(":scope > ul > li.reason")].map(r => r.textContent),
          })),
        })),
      })),
    })),
  };
})()`

type domRow struct {
	ID      string   `json:"id"`
	Cells   int      `json:"cells"`
	Text    []string `json:"text"`
	Classes []string `json:"classes"`
	Links   []string `json:"links"`
}

type domCause struct {
	ID      string   `json:"id"`
	Code    string   `json:"code"`
	Pointer string   `json:"pointer"`
	Vectors []string `json:"vectors"`
	Red     int      `json:"red"`
	Repro   string   `json:"repro"`
	Reasons []string `json:"reasons"`
}

type domGroup struct {
	Kind   string     `json:"kind"`
	Folded bool       `json:"folded"`
	Causes []domCause `json:"causes"`
}

type domImplSection struct {
	Key     string `json:"key"`
	Verdict string `json:"verdict"`
	Counts  []struct {
		Level  string            `json:"level"`
		Values map[string]string `json:"values"`
	} `json:"counts"`
	Groups []domGroup `json:"groups"`
}

type domPage struct {
	Name     string           `json:"name"`
	Verdict  string           `json:"verdict"`
	Source   string           `json:"source"`
	Issues   string           `json:"issues"`
	Sections []domImplSection `json:"sections"`
}

type dom struct {
	Title    string   `json:"title"`
	Scripts  int      `json:"scripts"`
	Pwned    string   `json:"pwned"`
	Tags     []string `json:"tags"`
	Handlers []string `json:"handlers"`
	Links    []string `json:"links"`
	IDs      []string `json:"ids"`
	Bidi     bool     `json:"bidi"`
	Controls bool     `json:"controls"`
	Impls    []struct {
		Cells          int    `json:"cells"`
		Name           string `json:"name"`
		Implementation string `json:"implementation"`
		Shown          string `json:"shown"`
	} `json:"impls"`
	Sections []struct {
		ID      string   `json:"id"`
		Columns []string `json:"columns"`
		Rows    []domRow `json:"rows"`
	} `json:"sections"`
	Pages []domPage `json:"pages"`
	// Errors are what the page wrote to its console at level error
	// (filled from the browser, not by domProbe).
	Errors []string `json:"-"`
	// Images are the src of each img and whether it loaded.
	Images []struct {
		Src    string `json:"src"`
		Loaded bool   `json:"loaded"`
	} `json:"images"`
}

// inertProblems returns every way the page d lets text act: scripts,
// injected elements or handlers, links other than the page's own anchors,
// its pages and http(s) URLs, raw bidi or control characters.
func inertProblems(d dom, title string) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if d.Title != title {
		bad("title is %q, want %q (a script ran?)", d.Title, title)
	}
	if d.Scripts != 0 || d.Pwned != "" {
		bad("%d script elements in the DOM, window.__pwned = %q", d.Scripts, d.Pwned)
	}
	for _, tag := range d.Tags {
		if !slices.Contains(allowedTags, tag) {
			bad("element <%s> injected", tag)
		}
	}
	if len(d.Handlers) > 0 {
		bad("event handler attributes: %v", d.Handlers)
	}
	for _, l := range d.Links {
		local := strings.HasPrefix(l, "#") && slices.Contains(d.IDs, l[1:])
		page := !strings.Contains(l, ":") && (strings.Contains(l, ".html") || strings.HasSuffix(l, ".json"))
		web := strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://")
		if !local && !page && !web {
			bad("link to %q: only the page's own anchors, its pages, vector files and http(s) URLs are links", l)
		}
	}
	for _, img := range d.Images {
		if strings.Contains(img.Src, ":") || !strings.HasSuffix(img.Src, ".svg") || !img.Loaded {
			bad("image %q (loaded %v): only the page's own badge, loaded from beside it", img.Src, img.Loaded)
		}
	}
	for _, e := range d.Errors {
		bad("console error: %s", e)
	}
	if d.Bidi || d.Controls {
		bad("raw bidi (%v) or control (%v) characters in the page's text", d.Bidi, d.Controls)
	}
	return out
}

// pageProblems compares the rendered overview d (with its implementation
// pages inside) with the matrix m it was made from and returns every way
// the page does not show m faithfully and inertly.
func pageProblems(d dom, m *runner.Matrix) []string {
	out := inertProblems(d, pageTitle)
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if len(d.Impls) != len(m.Implementations) {
		bad("implementations table has %d rows, want %d", len(d.Impls), len(m.Implementations))
	}
	for i, r := range d.Impls {
		if want := 3 + len(m.Sections); r.Cells != want {
			bad("implementations row %d has %d cells, want %d", i, r.Cells, want)
		}
	}
	if len(d.Sections) != len(m.Sections) {
		bad("%d sections, want %d", len(d.Sections), len(m.Sections))
		return out
	}
	causes := map[string]domCause{}
	for _, p := range d.Pages {
		for _, s := range p.Sections {
			for _, g := range s.Groups {
				for _, c := range g.Causes {
					causes[c.ID] = c
				}
			}
		}
	}
	for i, sec := range m.Sections {
		ds := d.Sections[i]
		var cols []string
		for _, c := range sec.Columns {
			cols = append(cols, c.Name)
		}
		if !slices.Equal(ds.Columns, cols) {
			bad("section %s: columns %q, want %q", ds.ID, ds.Columns, cols)
		}
		if len(ds.Rows) != len(sec.Rows) {
			bad("section %s: %d rows, want %d", ds.ID, len(ds.Rows), len(sec.Rows))
			continue
		}
		for j, row := range sec.Rows {
			dr := ds.Rows[j]
			if dr.ID != row.ID || dr.Cells != 2+len(sec.Columns) || len(dr.Text) != len(sec.Columns) {
				bad("section %s row %d: %q with %d cells (%d status cells), want %q with %d", ds.ID, j, dr.ID, dr.Cells, len(dr.Text), row.ID, 2+len(sec.Columns))
				continue
			}
			for k, c := range row.Cells {
				if got := strings.Fields(dr.Text[k]); len(got) == 0 || got[0] != string(c.Status) && c.Status != "" {
					bad("section %s %s/%s shows %q, want status %s", ds.ID, row.ID, sec.Columns[k].Name, dr.Text[k], c.Status)
				}
				if row.Level == "informational" && strings.Contains(dr.Classes[k], "st-fail") && c.Status != runner.XPass && c.Status != runner.Invalid {
					bad("section %s %s/%s: an informational cell is red (%s)", ds.ID, row.ID, sec.Columns[k].Name, dr.Classes[k])
				}
				explained := !c.Passed() && c.Status != runner.NotRun && c.Status != ""
				link := dr.Links[k]
				switch {
				case explained && link == "":
					bad("section %s %s/%s (%s) links to no cause", ds.ID, row.ID, sec.Columns[k].Name, c.Status)
				case !explained && link != "":
					bad("section %s %s/%s (%s) links to %q, but has nothing to explain", ds.ID, row.ID, sec.Columns[k].Name, c.Status, link)
				case explained:
					cause, ok := causes[strings.TrimPrefix(link, "#")]
					if !ok || !slices.ContainsFunc(cause.Vectors, func(v string) bool { return strings.HasPrefix(v, row.ID+" ") }) {
						bad("section %s %s/%s links to %q, which is no cause listing %s", ds.ID, row.ID, sec.Columns[k].Name, link, row.ID)
					}
				}
			}
		}
	}
	return out
}

// openPage loads file in a fresh page of b and returns what domProbe
// sees, with a screenshot of it in dir.
func openPage(t *testing.T, ctx context.Context, b *browser.Browser, file, shot string) dom {
	t.Helper()
	const width = 1280
	p, err := b.NewPage(ctx, width, 800)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, "file://"+file); err != nil {
		t.Fatal(err)
	}
	var d dom
	if err := p.Eval(ctx, domProbe, &d); err != nil {
		t.Fatal(err)
	}
	// Console events may trail the load a little.
	time.Sleep(200 * time.Millisecond)
	for _, e := range p.Errors() {
		d.Errors = append(d.Errors, e.Source+": "+e.Text+" "+e.URL)
	}
	png, err := p.Screenshot(ctx, width, 6000)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (page: %s)", shot, file)
	return d
}

// artifacts returns the directory for pages and screenshots:
// $CONFORM_ARTIFACTS, default testdata/browser-out (ignored by git).
func artifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CONFORM_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("testdata", "browser-out")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMatrixHTMLInBrowser renders the matrix of hostile reports in headless
// Chromium and checks the rendered DOM: no script ran and no element or
// attribute was injected, the tables have one row per vector and one cell
// per implementation, every cell that did not pass links to a cause that
// lists its vector, informational cells are never red, and the hostile
// name, its </td> and its bidi override are shown as inert text. A page
// with the same text pasted in raw must fail the same checks (the checks
// can fail). The screenshot and the page are kept in $CONFORM_ARTIFACTS
// (default testdata/browser-out, ignored by git). Skipped when there is no
// Chromium unless CONFORM_BROWSER=require.
func TestMatrixHTMLInBrowser(t *testing.T) {
	exe := browsertest.Need(t)
	m := hostileMatrix(t)
	var page bytes.Buffer
	if err := report.MatrixHTML(&page, m); err != nil {
		t.Fatal(err)
	}
	dir := artifacts(t)
	htmlPath := filepath.Join(dir, "matrix-hostile.html")
	if err := os.WriteFile(htmlPath, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The negative control: the hostile name written raw into the page, as
	// a printer without escaping would.
	raw := strings.Replace(page.String(), "</body>", "<p>"+hostileName+"</p></body>", 1)
	rawPath := filepath.Join(dir, "matrix-unescaped-control.html")
	if err := os.WriteFile(rawPath, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b, err := browser.Start(exe, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	d := openPage(t, ctx, b, htmlPath, filepath.Join(dir, "matrix-hostile.png"))
	for _, problem := range pageProblems(d, m) {
		t.Error(problem)
	}
	// The hostile name is one cell's text, whole and inert.
	evil := -1
	for i, r := range d.Impls {
		if r.Name == "evil" {
			evil = i
		}
	}
	switch {
	case evil < 0:
		t.Error("no implementations row named evil")
	case d.Impls[evil].Implementation != hostileText:
		t.Errorf("evil's implementation cell reads\n%q\nwant\n%q", d.Impls[evil].Implementation, hostileText)
	case !strings.Contains(d.Impls[evil].Shown, `</td><td>injected</td>`) || !strings.Contains(d.Impls[evil].Shown, `\u202eexe.gnp`):
		t.Errorf("rendered text of evil's cell %q does not show </td> and the bidi override as text", d.Impls[evil].Shown)
	}

	rd := openPage(t, ctx, b, rawPath, filepath.Join(dir, "matrix-unescaped-control.png"))
	if problems := pageProblems(rd, m); len(problems) == 0 {
		t.Error("the unescaped control page passed every check: the checks cannot fail")
	} else {
		t.Logf("the unescaped control page fails as it must: %s", strings.Join(problems, "; "))
	}
}

// sdkReport is a real report: conform run --role host --profile
// impl/claude-agent-sdk-rs (crate 0.6.4, 2026-12-01), with the stderr
// tails and the golden and actual excerpts left out to keep it small.
const sdkReport = "testdata/report-claude-agent-sdk-rs.json"

// wantCause is the cause of a result that did not pass, by the rule the
// implementation pages state, computed here from the JSON report alone:
// the first most severe finding that carries a status and is not a
// difference from the golden summary, else the first normative
// difference (its kind and pointer), else the status.
func wantCause(res runner.Result) string {
	best := -1
	for i, f := range res.Findings {
		if f.Status == "" || compare.IsKind(f.Code) {
			continue
		}
		if best < 0 || runner.Severity(f.Status) > runner.Severity(res.Findings[best].Status) {
			best = i
		}
	}
	if best >= 0 {
		return res.Findings[best].Code + " "
	}
	for _, d := range res.Differences {
		if d.Normative {
			return d.Kind + " " + d.Pointer
		}
	}
	return string(res.Status) + " "
}

// TestImplementationPageInBrowser opens the page conform matrix writes for
// one implementation (a real JSON report of a community SDK) in headless
// Chromium and checks it against the report: the verdict; each level's
// passed, expected-failure, failed, not-run and total counts; and the
// grouping: every required or recommended vector that failed is listed
// under exactly one failure cause, every expected failure under one
// expected-failure cause, every informational vector that differs under
// one informational cause, never red, each cause being one finding code
// and pointer whose vectors all have it as their cause (computed here from
// the report, not by the printer), with the expected-failure reasons of its
// vectors and a repro line that names its vectors; the allowed differences
// are folded. The page must also be inert and link only to its own
// anchors, the overview and the implementation's http(s) source and issue
// tracker.
func TestImplementationPageInBrowser(t *testing.T) {
	exe := browsertest.Need(t)
	s, err := runner.Open(conform.Suite())
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(sdkReport)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runner.ReadReport(s, data)
	if err != nil {
		t.Fatal(err)
	}
	const name = "claude-agent-sdk-rs"
	m, err := runner.BuildMatrix([]runner.MatrixInput{{Name: name, Report: rep}})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := report.MatrixPageHTML(&page, m, name, report.MatrixOptions{Pages: "matrix/", Overview: "../matrix"}); err != nil {
		t.Fatal(err)
	}
	dir := artifacts(t)
	htmlPath := filepath.Join(dir, "page-"+name+".html")
	if err := os.WriteFile(htmlPath, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// Its badge, beside it, as conform matrix --pages writes it.
	var badge bytes.Buffer
	if err := report.MatrixBadge(&badge, m, name, ""); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".svg"), badge.Bytes(), 0o644); err != nil {
		t.Fatal(err)
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
	if len(d.Pages) != 1 || len(d.Pages[0].Sections) != 1 {
		t.Fatalf("the page shows %d implementations, want 1 with 1 section: %+v", len(d.Pages), d.Pages)
	}
	if len(d.Images) != 1 || d.Images[0].Src != name+".svg" || !d.Images[0].Loaded {
		t.Errorf("images %+v, want the badge %s.svg, loaded", d.Images, name)
	}
	pg, sec := d.Pages[0], d.Pages[0].Sections[0]
	if pg.Name != name || pg.Verdict != rep.Verdict || sec.Verdict != rep.Verdict || sec.Key != "host-v1" {
		t.Errorf("page %q, verdict %q, section %q %q; want %q, %q, host-v1", pg.Name, pg.Verdict, sec.Key, sec.Verdict, name, rep.Verdict)
	}
	if pg.Source != rep.Implementation.Source || pg.Issues != rep.Implementation.Issues || pg.Source == "" {
		t.Errorf("links: source %q, issues %q; want %q, %q", pg.Source, pg.Issues, rep.Implementation.Source, rep.Implementation.Issues)
	}

	// Counts by level, from the report's summary.
	got := map[string]map[string]string{}
	for _, c := range sec.Counts {
		got[c.Level] = c.Values
	}
	want := map[string]map[string]string{}
	for level, lc := range map[string]runner.LevelCounts{"required": rep.Summary.Required, "recommended": rep.Summary.Recommended, "informational": rep.Summary.InformationalLevel} {
		if lc.Total == 0 {
			continue
		}
		xfail := fmt.Sprint(lc.XFail)
		if level == "informational" {
			xfail = "—"
		}
		want[level] = map[string]string{"passed": fmt.Sprint(lc.Passed), "xfail": xfail, "failed": fmt.Sprint(lc.Failed + lc.XPass),
			"skipped": fmt.Sprint(lc.Skipped), "not_run": fmt.Sprint(lc.NotRun), "total": fmt.Sprint(lc.Total)}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counts by level (-report +page):\n%s", diff)
	}

	// Grouping, from the report's results.
	kindOf := func(res runner.Result) string {
		switch {
		case res.Status == runner.NotRun || res.Status == runner.Pass && res.Parity != runner.ParityDiffers:
			return ""
		case res.Status == runner.Pass:
			return "allowed"
		case res.Status == runner.XFail:
			return "xfail"
		case res.Level == "informational" && res.Status != runner.XPass && res.Status != runner.Invalid:
			return "informational"
		}
		return "failed"
	}
	wantVectors := map[string][]string{} // kind -> "id STATUS", sorted
	wantCauses := map[string]string{}    // kind/id -> cause
	reasons := map[string]string{}
	for _, res := range rep.Results {
		kind := kindOf(res)
		if kind == "" || kind == "allowed" {
			continue
		}
		wantVectors[kind] = append(wantVectors[kind], res.ID+" "+string(res.Status))
		wantCauses[kind+"/"+res.ID] = wantCause(res)
		reasons[res.ID] = res.Reason
	}
	gotVectors := map[string][]string{}
	groups := 0
	for _, g := range sec.Groups {
		if g.Kind == "allowed" {
			if !g.Folded {
				t.Error("the allowed differences are not folded")
			}
			continue
		}
		for _, c := range g.Causes {
			groups++
			if c.Red > 0 && g.Kind == "informational" {
				t.Errorf("cause %s: informational vectors shown red", c.ID)
			}
			key := c.Code + " " + c.Pointer
			var ids []string
			for _, v := range c.Vectors {
				id, _, _ := strings.Cut(v, " ")
				ids = append(ids, id)
				gotVectors[g.Kind] = append(gotVectors[g.Kind], v)
				if w := wantCauses[g.Kind+"/"+id]; w != key {
					t.Errorf("%s is listed under %s cause %q; the report gives it %q", id, g.Kind, key, w)
				}
				if r := reasons[id]; r != "" && !slices.ContainsFunc(c.Reasons, func(x string) bool { return strings.Contains(x, r[:min(len(r), 60)]) }) {
					t.Errorf("cause %s does not give the expected-failure reason of %s: %q", c.ID, id, r)
				}
			}
			filter := ids[0]
			if len(ids) > 1 {
				filter = "'{" + strings.Join(ids, ",") + "}'"
			}
			if !strings.HasPrefix(c.Repro, "conform run --role host --version 1 --profile impl/claude-agent-sdk-rs --filter "+filter) {
				t.Errorf("cause %s: repro %q does not rerun exactly its vectors (--filter %s)", c.ID, c.Repro, filter)
			}
		}
	}
	for k := range gotVectors {
		sort.Strings(gotVectors[k])
	}
	for k := range wantVectors {
		sort.Strings(wantVectors[k])
	}
	if diff := cmp.Diff(wantVectors, gotVectors); diff != "" {
		t.Errorf("vectors by kind (-report +page), each listed once:\n%s", diff)
	}
	t.Logf("%d results that did not pass, %d causes on the page", len(wantCauses), groups)
	if groups >= len(wantCauses) {
		t.Errorf("%d causes for %d results: nothing was grouped", groups, len(wantCauses))
	}
}
