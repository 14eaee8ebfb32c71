package runner

import (
	"regexp"
	"strings"
	"sync"
)

// errorLine matches a stderr line that states an error in the forms
// runtimes print: "Error: Cannot find module ..." (Node),
// "ModuleNotFoundError: No module named ..." (Python, the last line of a
// traceback), "Exception in thread ..." and "Error: Could not find or load
// main class" (Java), "panic: ..." (Go), "thread 'main' panicked at"
// (Rust), "error: ..." and "fatal: ..." (many CLIs).
var errorLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*(?:[\w.$]*(?:error|exception)\b\s*:|(?:error|fatal|panic)\b|exception in thread\b)|\bpanicked at\b`)
})

// stderrLine returns the line of an IUT's stderr tail that says why it
// stopped, quoted: the first line that states an error ([errorLine]), else
// the last non-blank line; "" when there is none. Node ends a crash with
// its own version ("Node.js v20.20.2") after the error, and Python starts
// one with "Traceback (most recent call last):", so neither the first nor
// the last line alone says it.
func stderrLine(s string) string {
	last := ""
	for _, ln := range strings.Split(s, "\n") {
		ln = strings.TrimSpace(ln)
		if ln == "" {
			continue
		}
		if errorLine().MatchString(ln) {
			return quote([]byte(ln))
		}
		last = ln
	}
	if last == "" {
		return ""
	}
	return quote([]byte(last))
}
