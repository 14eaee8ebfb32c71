package report_test

import (
	"io"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gotest.tools/v3/golden"

	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/runner"
)

const stopToken = "TESTTOKEN"

// command matches one workflow command line as GitHub's runner reads it.
var command = regexp.MustCompile(`^::(error|warning|notice)(?: ([^:]*))?::(.*)$`)

// annotationOf decodes a workflow command line: level, properties and
// message, undoing the toolkit's escapes.
func annotationOf(t *testing.T, line string) (level string, props map[string]string, msg string) {
	t.Helper()
	m := command.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("not a workflow command: %q", line)
	}
	props = map[string]string{}
	if m[2] != "" {
		for _, kv := range strings.Split(m[2], ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("property %q without =: %q", kv, line)
			}
			props[k] = unescape(t, v)
		}
	}
	return m[1], props, unescape(t, m[3])
}

func unescape(t *testing.T, s string) string {
	t.Helper()
	u, err := url.PathUnescape(s)
	if err != nil {
		t.Fatalf("unescape %q: %v", s, err)
	}
	return u
}

func TestGitHub(t *testing.T) {
	t.Parallel()
	for _, tc := range reports() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := tc.report()
			out := string(render(t, func(w io.Writer) error {
				return report.GitHub(w, r, false, report.GitHubOptions{FileRoot: "suite", StopToken: stopToken})
			}))
			golden.Assert(t, out, "github-"+tc.name+".golden")

			// The text report is inside stop-commands; after it come only
			// workflow commands, one line each.
			before, after, ok := strings.Cut(out, "::"+stopToken+"::\n")
			if !ok || !strings.HasPrefix(before, "::stop-commands::"+stopToken+"\n") {
				t.Fatalf("text report not inside stop-commands:\n%s", out)
			}
			files := map[string]string{}
			var last string
			for _, line := range strings.Split(strings.TrimSuffix(after, "\n"), "\n") {
				level, props, msg := annotationOf(t, line)
				if f := props["file"]; f != "" {
					files[f] = level
				}
				if strings.ContainsAny(msg, "\x1b\r") {
					t.Errorf("annotation message holds control characters: %q", msg)
				}
				last = line
			}
			// Each vector that fails the run is an error on its file; each
			// expected failure a notice.
			want := map[string]string{}
			for _, res := range r.Results {
				switch {
				case res.Status == runner.NotRun:
				case res.Failed():
					want["suite/"+res.Path] = "error"
				case res.Status == runner.XFail:
					want["suite/"+res.Path] = "notice"
				}
			}
			for _, p := range r.Problems {
				if p.Path != "" {
					want["suite/"+p.Path] = "error"
				}
			}
			if r.Preflight != nil {
				want["suite/"+r.Preflight.Path] = "error"
			}
			if diff := cmp.Diff(want, files); diff != "" {
				t.Errorf("annotated files mismatch (-want +got):\n%s", diff)
			}
			// The last command is the verdict: an error exactly when the
			// run exits non-zero.
			level, props, _ := annotationOf(t, last)
			wantLevel := "notice"
			if r.ExitCode() != 0 {
				wantLevel = "error"
			}
			if level != wantLevel || props["title"] != "conform "+r.Verdict {
				t.Errorf("last command = %q, want a %s titled %q", last, wantLevel, "conform "+r.Verdict)
			}

			summary := string(render(t, func(w io.Writer) error { return report.GitHubSummary(w, r) }))
			golden.Assert(t, summary, "summary-"+tc.name+".golden")
			if strings.Contains(summary, "<script>") || strings.ContainsRune(summary, 0x1b) {
				t.Errorf("step summary holds raw IUT markup or controls:\n%s", summary)
			}
		})
	}
}

func TestParityGitHub(t *testing.T) {
	t.Parallel()
	pr := parityReport()
	out := string(render(t, func(w io.Writer) error {
		return report.ParityGitHub(w, pr, report.GitHubOptions{StopToken: stopToken})
	}))
	golden.Assert(t, out, "github-parity.golden")
	_, after, ok := strings.Cut(out, "::"+stopToken+"::\n")
	if !ok {
		t.Fatalf("no end of stop-commands:\n%s", out)
	}
	var titles []string
	for _, line := range strings.Split(strings.TrimSuffix(after, "\n"), "\n") {
		_, props, _ := annotationOf(t, line)
		titles = append(titles, props["title"])
	}
	want := []string{"NO PARITY initialize-minimal (required)", "port: NOT_CERTIFIED", "conform NO PARITY"}
	if diff := cmp.Diff(want, titles); diff != "" {
		t.Errorf("annotation titles mismatch (-want +got):\n%s", diff)
	}
	summary := string(render(t, func(w io.Writer) error { return report.ParityGitHubSummary(w, pr) }))
	golden.Assert(t, summary, "summary-parity.golden")
}

// TestEscapes checks GitHub's escaping rules (actions/toolkit command.ts)
// and the Markdown cell escaping.
func TestEscapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, data, property, md string
	}{
		{"plain", "FAIL set-model", "FAIL set-model", "FAIL set-model", `FAIL set\-model`},
		{"percent first", "100%0A", "100%250A", "100%250A", "100%0A"},
		// CR is a control character: spelled as an escape before escaping.
		{"line breaks", "a\r\nb", `a\r%0Ab`, `a\r%0Ab`, `a\\r b`},
		{"property separators", "file=a,b:c", "file=a,b:c", "file=a%2Cb%3Ac", "file=a,b:c"},
		{"command in text", "x\n::error::owned", "x%0A::error::owned", "x%0A%3A%3Aerror%3A%3Aowned", "x ::error::owned"},
		{"escape character", "\x1b[31mred", `\u001b[31mred`, `\u001b[31mred`, `\\u001b\[31mred`},
		{"markup", "<b>|`x`|</b> & *y*", "<b>|`x`|</b> & *y*", "<b>|`x`|</b> & *y*", "&lt;b&gt;\\|\\`x\\`\\|&lt;/b&gt; &amp; \\*y\\*"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := []string{report.EscapeWorkflowData(tc.in), report.EscapeWorkflowProperty(tc.in), report.MDCell(tc.in)}
			want := []string{tc.data, tc.property, tc.md}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("escapes of %q mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

// TestParityUncomparedRows: a required row that every implementation
// skipped is shown as not compared and left out of the gate's count, which
// says how many such rows there were (text, annotations, step summary,
// JUnit).
func TestParityUncomparedRows(t *testing.T) {
	t.Parallel()
	a, b := passingReport(), passingReport()
	a.Implementation.Name, b.Implementation.Name = "ref", "port"
	pr := &runner.ParityReport{
		Suite:           a.Suite,
		Implementations: []runner.Implementation{a.Implementation, b.Implementation},
		Reports:         []*runner.Report{a, b},
		Vectors: []runner.ParityVector{
			{ID: "initialize-minimal", Level: "required", Statuses: map[string]runner.Status{"ref": runner.Pass, "port": runner.Pass},
				Groups: []runner.Group{{Implementations: []string{"ref", "port"}, Golden: true, Bytes: "{}"}}, Golden: "{}", Agree: true},
			{ID: "needs-extra", Level: "required", Statuses: map[string]runner.Status{"ref": runner.Skipped, "port": runner.Skipped},
				Groups: []runner.Group{{Implementations: []string{"ref", "port"}, Golden: true}}, Agree: true, Uncompared: true},
		},
		Passed: true, Gated: 1, Uncompared: 1,
	}
	const more = "1 more skipped or not run by every implementation"
	text := string(render(t, func(w io.Writer) error { return report.ParityText(w, pr) }))
	for _, want := range []string{
		"needs-extra         SKIPPED SKIPPED  (not compared: no implementation ran it)\n",
		"PARITY: 2 implementations wrote the golden bytes on all 1 required and recommended vectors; " + more + " (nothing compared)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("parity text lacks %q:\n%s", want, text)
		}
	}
	out := string(render(t, func(w io.Writer) error {
		return report.ParityGitHub(w, pr, report.GitHubOptions{StopToken: stopToken})
	}))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	level, props, msg := annotationOf(t, lines[len(lines)-1])
	if level != "notice" || props["title"] != "conform PARITY" || !strings.Contains(msg, "on all 1 required and recommended vectors; "+more) {
		t.Errorf("gate annotation %s %q %q, want a notice counting 1 compared row and %q", level, props["title"], msg, more)
	}
	summary := string(render(t, func(w io.Writer) error { return report.ParityGitHubSummary(w, pr) }))
	if !strings.Contains(summary, "0 of 1 required and recommended vectors disagree; "+more) {
		t.Errorf("step summary does not count 1 compared row and say %q:\n%s", more, summary)
	}
	junit := string(render(t, func(w io.Writer) error { return report.ParityJUnit(w, pr) }))
	if !strings.Contains(junit, "not compared: no implementation ran it") {
		t.Errorf("JUnit parity suite does not mark the row not compared:\n%s", junit)
	}
}
