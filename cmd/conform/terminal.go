package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/runner"
)

// terminalProgress sets how cfg shows progress when stderr is a character
// device, and returns the function to call once the run is over, before
// the report is written. A terminal shows each vector once:
//
//   - when the report goes to the same terminal (stdout is one and there
//     is no --out), a status line on stderr that rewrites itself as vectors
//     finish and is erased before the report prints its line per vector;
//   - when the report goes elsewhere (a file, a pipe), one line per vector
//     on stderr as it finishes.
//
// A character device that is not a terminal (/dev/null) gets nothing.
func terminalProgress(stdout, stderr io.Writer, out string, cfg *runner.Config) (done func()) {
	if _, ok := termWidth(stderr); !ok {
		return func() {}
	}
	if _, ok := termWidth(stdout); ok && out == "" {
		st := &statusLine{w: stderr, width: func() int { w, _ := termWidth(stderr); return w }}
		cfg.Progress = st.finished
		return st.clear
	}
	var mu sync.Mutex
	cfg.Progress = func(r runner.Result) {
		mu.Lock()
		defer mu.Unlock()
		report.Line(stderr, r)
	}
	return func() {}
}

// statusLine is one line on a terminal that each finished vector rewrites:
//
//	conform: 12 vectors done, 1 failing; last: FAIL set-model-not-string
//
// It moves the cursor with a carriage return only and blanks what is left
// of a longer previous line with spaces (no escape sequences, so it works
// on every terminal, Windows consoles included), and is cut to the
// terminal's width so it never wraps.
type statusLine struct {
	mu            sync.Mutex
	w             io.Writer
	width         func() int
	done, failing int
	shown         int // columns of the line now on the terminal
}

func (s *statusLine) finished(r runner.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done++
	if r.Status != runner.NotRun && r.Failed() {
		s.failing++
	}
	line := fmt.Sprintf("conform: %d %s done, %d failing; last: %s %s", s.done, plural(s.done, "vector", "vectors"), s.failing, r.Status, r.ID)
	s.show(line)
}

// show writes line over the current one, cut to the terminal's width.
func (s *statusLine) show(line string) {
	if room := max(0, s.width()-1); utf8.RuneCountInString(line) > room {
		line = string([]rune(line)[:room])
	}
	n := utf8.RuneCountInString(line)
	pad := ""
	if s.shown > n {
		pad = strings.Repeat(" ", s.shown-n)
	}
	fmt.Fprintf(s.w, "\r%s%s\r", line, pad)
	s.shown = n
}

// clear erases the status line and leaves the cursor at its start.
func (s *statusLine) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shown > 0 {
		fmt.Fprintf(s.w, "\r%s\r", strings.Repeat(" ", s.shown))
		s.shown = 0
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
