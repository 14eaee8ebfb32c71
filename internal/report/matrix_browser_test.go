package report_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/browser"
	"github.com/conform-kit/conform/internal/browser/browsertest"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/runner"
)

// pageTitle is the title MatrixHTML gives every page; a script that ran
// would change it (hostileScript does).
const pageTitle = "conform certification matrix"

// allowedTags are the elements MatrixHTML writes; anything else in the
// rendered DOM was injected.
var allowedTags = []string{"a", "b", "body", "br", "code", "h1", "h2", "h3", "head", "html", "li", "meta", "ol", "p",
	"section", "span", "style", "table", "tbody", "td", "th", "thead", "title", "tr", "ul"}

// domProbe is evaluated in the loaded page by the test (the page itself has
// no script). It returns what a person would see: the title, every element
// name, event-handler attributes, links, the implementations table, and per
// section the header, the rows with their cells and the details.
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
      })),
      details: [...s.querySelectorAll("ol.details > li")].map(li => ({id: li.id, text: li.textContent})),
    })),
  };
})()`

type domRow struct {
	ID    string   `json:"id"`
	Cells int      `json:"cells"`
	Text  []string `json:"text"`
}

type dom struct {
	Title    string   `json:"title"`
	Scripts  int      `json:"scripts"`
	Pwned    string   `json:"pwned"`
	Tags     []string `json:"tags"`
	Handlers []string `json:"handlers"`
	Links    []string `json:"links"`
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
		Details []struct {
			ID   string `json:"id"`
			Text string `json:"text"`
		} `json:"details"`
	} `json:"sections"`
}

// pageProblems compares the rendered DOM d with the matrix m it was made
// from and returns every way the page does not show m faithfully and
// inertly.
func pageProblems(d dom, m *runner.Matrix) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if d.Title != pageTitle {
		bad("title is %q, want %q (a script ran?)", d.Title, pageTitle)
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
		if !strings.HasPrefix(l, "#detail-") {
			bad("link to %q: only links to the page's own details are written", l)
		}
	}
	if d.Bidi || d.Controls {
		bad("raw bidi (%v) or control (%v) characters in the page's text", d.Bidi, d.Controls)
	}
	if len(d.Impls) != len(m.Implementations) {
		bad("implementations table has %d rows, want %d", len(d.Impls), len(m.Implementations))
	}
	for i, r := range d.Impls {
		if want := 2 + len(m.Sections); r.Cells != want {
			bad("implementations row %d has %d cells, want %d", i, r.Cells, want)
		}
	}
	if len(d.Sections) != len(m.Sections) {
		bad("%d sections, want %d", len(d.Sections), len(m.Sections))
		return out
	}
	details := 0
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
		want := 0
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
				if !c.Passed() && c.Status != runner.NotRun && c.Status != "" {
					want++
				}
			}
		}
		if len(ds.Details) != want {
			bad("section %s: %d details, want %d (one per cell that is not PASS with exact parity)", ds.ID, len(ds.Details), want)
		}
		for _, det := range ds.Details {
			details++
			if det.ID != fmt.Sprintf("detail-%d", details) {
				bad("detail %q, want detail-%d", det.ID, details)
			}
			if !strings.Contains(det.Text, "repro: conform run ") {
				bad("detail %s has no repro line: %q", det.ID, det.Text)
			}
		}
	}
	return out
}

// TestMatrixHTMLInBrowser renders the matrix of hostile reports in headless
// Chromium and checks the rendered DOM: no script ran and no element or
// attribute was injected, the tables have one row per vector and one cell
// per implementation, and the hostile name, its </td> and its bidi override
// are shown as inert text. A page with the same text pasted in raw must
// fail the same checks (the checks can fail). The screenshot and the page
// are kept in $CONFORM_ARTIFACTS (default testdata/browser-out, ignored by
// git). Skipped when there is no Chromium unless CONFORM_BROWSER=require.
func TestMatrixHTMLInBrowser(t *testing.T) {
	exe := browsertest.Need(t)
	m := hostileMatrix(t)
	var page bytes.Buffer
	if err := report.MatrixHTML(&page, m); err != nil {
		t.Fatal(err)
	}
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
	const width = 1280
	p, err := b.NewPage(ctx, width, 800)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, "file://"+htmlPath); err != nil {
		t.Fatal(err)
	}
	var d dom
	if err := p.Eval(ctx, domProbe, &d); err != nil {
		t.Fatal(err)
	}
	for _, problem := range pageProblems(d, m) {
		t.Error(problem)
	}
	// The hostile name is one cell's text, whole and inert.
	evil := slices.IndexFunc(d.Impls, func(r struct {
		Cells          int    `json:"cells"`
		Name           string `json:"name"`
		Implementation string `json:"implementation"`
		Shown          string `json:"shown"`
	}) bool {
		return r.Name == "evil"
	})
	switch {
	case evil < 0:
		t.Error("no implementations row named evil")
	case d.Impls[evil].Implementation != hostileText:
		t.Errorf("evil's implementation cell reads\n%q\nwant\n%q", d.Impls[evil].Implementation, hostileText)
	case !strings.Contains(d.Impls[evil].Shown, `</td><td>injected</td>`) || !strings.Contains(d.Impls[evil].Shown, `\u202eexe.gnp`):
		t.Errorf("rendered text of evil's cell %q does not show </td> and the bidi override as text", d.Impls[evil].Shown)
	}
	shot, err := p.Screenshot(ctx, width, 6000)
	if err != nil {
		t.Fatal(err)
	}
	shotPath := filepath.Join(dir, "matrix-hostile.png")
	if err := os.WriteFile(shotPath, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (page: %s)", shotPath, htmlPath)

	if err := p.Navigate(ctx, "file://"+rawPath); err != nil {
		t.Fatal(err)
	}
	var rd dom
	if err := p.Eval(ctx, domProbe, &rd); err != nil {
		t.Fatal(err)
	}
	if problems := pageProblems(rd, m); len(problems) == 0 {
		t.Error("the unescaped control page passed every check: the checks cannot fail")
	} else {
		t.Logf("the unescaped control page fails as it must: %s", strings.Join(problems, "; "))
	}
}
