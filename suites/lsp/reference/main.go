// Command conform-lsp-reference is the conform LSP reference server: a
// language server (LSP 3.17, stdio, Content-Length framing) for a toy
// language, written for the suites/lsp vectors with the Go standard library
// only. `conform golden --update` records its output as the suite's goldens,
// so it is deterministic: one message at a time, no clocks, no randomness.
//
// The toy language: a line whose first character is '#' declares a symbol
// named by the rest of the line (trimmed); a word is a run of letters,
// digits and '_'; hovering a word shows it; "TODO" in a line is an
// information diagnostic. What it does, section by section of the
// specification, is listed in suites/lsp/reference/README.md.
//
// Exit codes (LSP 3.17 "exit"): 0 after shutdown then exit (or end of input
// after shutdown); 1 on exit without shutdown, end of input without
// shutdown, or a header part it cannot frame (stderr says which).
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Stdin, os.Stdout, os.Stderr))
}
