package browser_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/browser"
	"github.com/conform-kit/conform/internal/browser/browsertest"
)

// TestPage loads a small page of its own and reads its DOM back: the
// driver itself works (the matrix page test in internal/report relies on
// it). Skipped without Chromium unless CONFORM_BROWSER=require.
func TestPage(t *testing.T) {
	exe := browsertest.Need(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	page := filepath.Join(dir, "p.html")
	if err := os.WriteFile(page, []byte("<!DOCTYPE html><title>t</title><p id=a>one</p><p>two</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := browser.Start(exe, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.NewPage(ctx, 400, 300)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, "file://"+page); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Title string
		Ps    int
		A     string
	}
	if err := p.Eval(ctx, `({Title: document.title, Ps: document.querySelectorAll("p").length, A: document.getElementById("a").textContent})`, &got); err != nil {
		t.Fatal(err)
	}
	if got.Title != "t" || got.Ps != 2 || got.A != "one" {
		t.Errorf("DOM = %+v, want title t, 2 paragraphs, #a one", got)
	}
	if err := p.Eval(ctx, `(() => { throw new Error("boom") })()`, new(any)); err == nil {
		t.Error("Eval of a throwing expression: error = nil")
	}
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("a clean page logged errors: %+v", errs)
	}
	png, err := p.Screenshot(ctx, 400, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Errorf("screenshot is not a PNG: % x", png[:min(8, len(png))])
	}
}

// TestConsoleErrors loads a page that throws, logs an error, loads a
// missing image and runs a script its policy forbids, and checks that
// Page.Errors reports each: a page test that asks for no console error
// can fail.
func TestConsoleErrors(t *testing.T) {
	exe := browsertest.Need(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	page := filepath.Join(dir, "bad.html")
	html := `<!DOCTYPE html><title>bad</title><p>x</p><img src="missing.png" alt="">` +
		`<script>console.error("logged"); throw new Error("thrown")</script>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	csp := filepath.Join(dir, "csp.html")
	if err := os.WriteFile(csp, []byte(`<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><title>csp</title><script>document.title = "ran"</script>`), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := browser.Start(exe, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for file, want := range map[string][]string{page: {"logged", "thrown", "missing.png"}, csp: {"Content Security Policy"}} {
		p, err := b.NewPage(ctx, 400, 300)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Navigate(ctx, "file://"+file); err != nil {
			t.Fatal(err)
		}
		var all string
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			all = ""
			for _, e := range p.Errors() {
				all += e.Source + ": " + e.Text + " " + e.URL + "\n"
			}
			found := 0
			for _, w := range want {
				if strings.Contains(all, w) {
					found++
				}
			}
			if found == len(want) {
				break
			}
		}
		for _, w := range want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: no console error mentions %q; errors:\n%s", filepath.Base(file), w, all)
			}
		}
	}
}
