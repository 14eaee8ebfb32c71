// Command conform-dap-reference is the conform DAP reference adapter: a
// debug adapter (Debug Adapter Protocol 1.71, single session mode over
// stdin and stdout) written for the suites/dap vectors with the Go standard
// library only. Its output is what `conform golden --update` records as the
// suite's goldens, so it is deterministic: no clocks, no randomness, its
// own seq counted from 1, each request's seq echoed byte for byte as
// request_seq.
//
// It frames messages itself (DAP overview, "Base protocol": a
// Content-Length header part, an empty line, a JSON content part). It
// debugs nothing: what it does with each command is listed in
// suites/dap/reference/README.md. It exits 0 once it has answered a
// disconnect request, or at the end of its input; 1 on a header part it
// cannot read or input that ends inside a message (the reason on stderr).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(context.Background(), os.Stdin, os.Stdout, os.Stderr))
}

// run serves one debug session on in and out and returns the exit status.
func run(ctx context.Context, in io.Reader, out, errOut io.Writer) int {
	r := newReader(in)
	s := &session{out: out}
	for ctx.Err() == nil {
		content, err := r.Body()
		if err == io.EOF {
			return 0
		}
		if err != nil {
			fmt.Fprintf(errOut, "conform-dap-reference: %v\n", err)
			return 1
		}
		if end := s.handle(content); end {
			return 0
		}
		if s.err != nil {
			fmt.Fprintf(errOut, "conform-dap-reference: write: %v\n", s.err)
			return 1
		}
	}
	return 0
}
