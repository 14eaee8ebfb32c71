package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/runner"
)

// TestStatusLine: each finished vector rewrites one line (carriage
// returns only, a shorter line blanks the rest of a longer one), the line
// never reaches the terminal's last column, failing counts only what fails
// the run, and clear leaves a blank line with the cursor at its start.
func TestStatusLine(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	st := &statusLine{w: &b, width: func() int { return 60 }}
	st.finished(runner.Result{ID: "set-model-alias-context-suffix", Level: "recommended", Status: runner.Pass})
	st.finished(runner.Result{ID: "stop-task", Level: "required", Status: runner.Fail})
	st.finished(runner.Result{ID: "json-null-line", Level: "informational", Status: runner.Crash})
	st.clear()
	want := "\rconform: 1 vector done, 0 failing; last: PASS set-model-ali\r" +
		"\rconform: 2 vectors done, 1 failing; last: FAIL stop-task   \r" +
		"\rconform: 3 vectors done, 1 failing; last: CRASH json-null-l\r" +
		"\r" + strings.Repeat(" ", 59) + "\r"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("terminal bytes (-want +got):\n%s", diff)
	}
}

// TestTerminalProgressNotATerminal: a file and /dev/null (a character
// device, but no terminal) get no progress, so nothing is printed twice
// and nothing garbles a log.
func TestTerminalProgressNotATerminal(t *testing.T) {
	t.Parallel()
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	file, err := os.Create(t.TempDir() + "/stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, w := range []*os.File{devnull, file} {
		var cfg runner.Config
		done := terminalProgress(w, w, "", &cfg)
		done()
		if cfg.Progress != nil {
			t.Errorf("%s: progress set on something that is not a terminal", w.Name())
		}
	}
}

// TestHelpNamesEveryVerdict: `conform run -h` ends with every run verdict
// and its exit status, and both help texts point to the docs.
func TestHelpNamesEveryVerdict(t *testing.T) {
	t.Parallel()
	verdicts := map[string]int{
		runner.VerdictCertified: 0, runner.VerdictExcused: 0, runner.VerdictPartial: 0,
		runner.VerdictNotCertified: 1, runner.VerdictNothingPassed: 1, runner.VerdictInvalidInput: 2, runner.VerdictInterrupted: 130,
	}
	for v, code := range verdicts {
		found := false
		for _, line := range strings.Split(runHelpTail, "\n") {
			f := strings.Fields(line)
			if len(f) >= 2 && f[0] == v && f[1] == strconv.Itoa(code) {
				found = true
			}
		}
		if !found {
			t.Errorf("run -h lacks a line %q with exit status %d", v, code)
		}
	}
	for name, c := range map[string]struct {
		text string
		docs []string
	}{
		"--help": {helpTail, []string{"docs/findings.md", "docs/first-implementation.md", "README.md", "docs/commands.md"}},
		"run -h": {runHelpTail, []string{"docs/findings.md", "docs/first-implementation.md", "docs/running.md"}},
	} {
		for _, doc := range c.docs {
			if !strings.Contains(c.text, doc) {
				t.Errorf("%s does not point to %s", name, doc)
			}
		}
	}
}
