package report_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"gotest.tools/v3/golden"

	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/runner"
)

// TestCompact pins the compact report of every kind of report: one line
// per failure that counts (never a PASS, XFAIL or informational line), the
// counts and the verdict line; with Color, status words are coloured and
// IUT text is not.
func TestCompact(t *testing.T) {
	t.Parallel()
	for _, tc := range reports() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			if err := report.Compact(&b, tc.report(), report.TextOptions{}); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, b.String(), "compact-"+tc.name+".golden")
			for _, line := range strings.Split(b.String(), "\n") {
				if strings.HasPrefix(line, "PASS ") || strings.HasPrefix(line, "XFAIL ") || strings.Contains(line, "[informational]") || strings.Contains(line, "\x1b") {
					t.Errorf("compact line %q: a pass, an expected failure, an informational vector or a raw escape", line)
				}
			}
		})
	}
	var b bytes.Buffer
	if err := report.Compact(&b, fullReport(), report.TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\x1b[31mFAIL ") || !strings.Contains(b.String(), "\x1b[31mINVALID SUITE INPUT") {
		t.Errorf("coloured compact report lacks red FAIL or verdict:\n%q", b.String())
	}
	if strings.Count(b.String(), "\x1b[") != 2*strings.Count(b.String(), "\x1b[0m") {
		t.Errorf("an escape that is not a colour and its reset: IUT text reached the terminal raw:\n%q", b.String())
	}
}

// TestTextColor: colours mark status words and the verdict only; an
// informational vector that did not pass is never red.
func TestTextColor(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := report.TextWith(&b, fullReport(), report.TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"\x1b[32mPASS", "\x1b[31mFAIL", "\x1b[33mXFAIL", "  \x1b[2mFAIL" + strings.Repeat(" ", 12) + "\x1b[0m unknown-subtype [informational]"} {
		if !strings.Contains(out, want) {
			t.Errorf("coloured text lacks %q", want)
		}
	}
	if strings.Contains(out, "\x1b[31mFAIL"+strings.Repeat(" ", 12)+"\x1b[0m unknown-subtype") {
		t.Error("an informational FAIL is red")
	}
}

// TestMatrixBadges: each badge is well-formed SVG with a title, the
// verdict's words and colour, and no reference to anything outside it.
func TestMatrixBadges(t *testing.T) {
	t.Parallel()
	m := hostileMatrix(t)
	for _, tc := range []struct {
		name, section, text, color string
	}{
		{"clean", "", "certified · 6 passed", "#2e7d32"},
		{"clean", "agent-v1", "certified · 3 passed", "#2e7d32"},
		{"evil", "", "2 failed · 1 passed", "#c62828"},
		{"evil", "agent-v2", "1 failed · 0 passed", "#c62828"},
	} {
		var b bytes.Buffer
		if err := report.MatrixBadge(&b, m, tc.name, tc.section); err != nil {
			t.Fatal(err)
		}
		svg := b.String()
		var doc struct {
			XMLName xml.Name
			Title   string   `xml:"title"`
			Texts   []string `xml:"g>text"`
		}
		if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatalf("%s %s: not XML: %v\n%s", tc.name, tc.section, err, svg)
		}
		if doc.XMLName.Local != "svg" || len(doc.Texts) != 2 || doc.Texts[1] != tc.text || !strings.Contains(svg, `fill="`+tc.color+`"`) || doc.Title == "" {
			t.Errorf("%s %s badge: root %s, texts %q, want %q in %s:\n%s", tc.name, tc.section, doc.XMLName.Local, doc.Texts, tc.text, tc.color, svg)
		}
		for _, bad := range []string{"href", "<script", "@font-face", "url(", "<image", "<foreignObject"} {
			if strings.Contains(svg, bad) {
				t.Errorf("%s badge holds %q", tc.name, bad)
			}
		}
	}
	if err := report.MatrixBadge(&bytes.Buffer{}, m, "clena", ""); err == nil || !strings.Contains(err.Error(), `did you mean "clean"`) {
		t.Errorf("badge of an unknown name: %v, want a did-you-mean USAGE error", err)
	}
	if err := report.MatrixBadge(&bytes.Buffer{}, m, "clean", "host-v9"); runner.CodeOf(err) != "USAGE" {
		t.Errorf("badge of an unknown section: %v, want USAGE", err)
	}
}
