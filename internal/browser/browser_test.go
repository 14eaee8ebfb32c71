package browser_test

import (
	"context"
	"os"
	"path/filepath"
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
	png, err := p.Screenshot(ctx, 400, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Errorf("screenshot is not a PNG: % x", png[:min(8, len(png))])
	}
}
