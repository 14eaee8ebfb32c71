package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// mcpTutorial is docs/first-mcp-server.md: a server of the MCP suite
// written without an SDK, grown from CERTIFIED [core] to [core, tools].
var mcpTutorial = tutorialPage{
	doc: "docs/first-mcp-server.md", example: "examples/mcp-python/server.py", path: "my-mcp-server/server.py", lang: "python",
	frames: []string{"suites/mcp/vectors/v1/server/*.json", "suites/mcp/golden/v1/server/*.json"},
}

// TestFirstMCPServer runs docs/first-mcp-server.md as written (the
// conventions are TestTutorial's, with ```text verdict blocks): its
// excerpts rebuild examples/mcp-python/server.py step by step and each
// step's commands run against the reader's copy.
func TestFirstMCPServer(t *testing.T) {
	t.Parallel()
	runTutorial(t, mcpTutorial)
}

// verdictWord is the verdict at the start of a verdict line: "CERTIFIED"
// in "CERTIFIED: ...", "PASSED PARTIAL" in "PASSED PARTIAL (...": ...".
var verdictWord = regexp.MustCompile(`^([A-Z][A-Z_ ]*[A-Z])(?::| \()`)

// classList is the bracketed class list of a verdict line, "[core, tools]".
var classList = regexp.MustCompile(`\[[a-z][a-z0-9, -]*\]`)

// cmdVerdict is the testscript command "verdict FILE WHERE": FILE holds the
// verdict line a page shows, and the last line the last command printed
// must match it ([checkVerdict]).
func cmdVerdict(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: verdict FILE WHERE")
	}
	var want string
	for _, l := range strings.Split(ts.ReadFile(args[0]), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if want != "" {
				ts.Fatalf("%s: a verdict block holds one line", args[1])
			}
			want = l
		}
	}
	lines := strings.Split(strings.TrimSpace(ts.ReadFile("stdout")), "\n")
	note, err := checkVerdict(want, strings.TrimSpace(lines[len(lines)-1]))
	if err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	if note != "" {
		ts.Logf("%s: %s", args[1], note)
	}
}

// checkVerdict compares the verdict line a page shows (want, which must
// name classes) with the one printed (got): the same verdict word and the
// same class list (issue 30: a verdict names what it certifies).
func checkVerdict(want, got string) (note string, err error) {
	wantWord, wantClasses := verdictWord.FindStringSubmatch(want), classList.FindString(want)
	if wantWord == nil || wantClasses == "" {
		return "", fmt.Errorf("%q is no verdict line with a class list", want)
	}
	gotWord := verdictWord.FindStringSubmatch(got)
	if gotWord == nil || gotWord[1] != wantWord[1] {
		return "", fmt.Errorf("the page shows the verdict %s, the command printed:\n  %s", wantWord[1], got)
	}
	gotClasses := classList.FindString(got)
	if gotClasses != wantClasses {
		return "", fmt.Errorf("the page shows %s %s, the command printed:\n  %s", wantWord[1], wantClasses, got)
	}
	return "", nil
}

func TestCheckVerdict(t *testing.T) {
	t.Parallel()
	const want = "CERTIFIED: python3 — conform MCP suite server v1 [core, tools]: ..."
	for _, tc := range []struct {
		name, got string
		ok        bool
	}{
		{"classes", "CERTIFIED: tiny 0.4 — MCP server 2025-11-25 [core, tools]: 23/23 required, 10/10 recommended; not claimed: resources (9 vectors)", true},
		{"no classes", "CERTIFIED: python3 against conform MCP suite v1 (sha256:00)", false},
		{"other classes", "CERTIFIED: tiny 0.4 — MCP server 2025-11-25 [core]: 17/17 required", false},
		{"other word", "NOT CERTIFIED: tiny 0.4 — MCP server 2025-11-25 [core, tools]: 22/23 required", false},
		{"partial", "PASSED PARTIAL (13 vectors selected; a partial run certifies nothing): python3", false},
		{"broken list", "CERTIFIED: tiny — MCP server [Core]: ...", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := checkVerdict(want, tc.got); (err == nil) != tc.ok {
				t.Errorf("checkVerdict(%q) = %v, want ok %v", tc.got, err, tc.ok)
			}
		})
	}
	if _, err := checkVerdict("CERTIFIED: python3 against the suite", "CERTIFIED: python3 against the suite"); err == nil {
		t.Error("a page's verdict line without a class list was accepted")
	}
}
