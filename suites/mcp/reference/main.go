// Command reference is the conform MCP reference server: a Model Context
// Protocol server (revision 2025-11-25, stdio transport) written for the
// suites/mcp vectors with the Go standard library only. Its output is what
// `conform golden --update` records as the suite's goldens, so it is
// deterministic: no clocks, no randomness, ids echoed byte for byte.
//
// It reads one JSON-RPC message per line on stdin and writes one per line
// on stdout (MCP 2025-11-25 Basic, "Transports" / "stdio"); nothing goes to
// stderr. At end of input it finishes the work in flight (a slow tool runs
// to its end; a tool waiting for the client's answer gives up) and exits 0
// (Lifecycle, "Shutdown" / "stdio": the client closes the server's input
// first).
//
// What it does is listed in suites/mcp/reference/README.md.
package main

import (
	"context"
	"os"
	"sort"
)

func main() {
	os.Exit(run(context.Background(), os.Stdin, os.Stdout))
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
