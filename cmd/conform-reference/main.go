// Command conform-reference is conform's Go reference implementation of the
// control protocol as a binary of its own: the same code as `conform
// reference` ([reference.Main]), without the rest of the kit, so it starts
// about 4x faster (no JSON Schema validator to initialize). Give it to any
// command that takes an IUT:
//
//	conform run -- conform-reference
//	conform run --role host --version 2 -- conform-reference
//
// Flags: --role agent|host and --version 1|2, by default what the runner
// says in CONFORM_ROLE and CONFORM_PROTOCOL_VERSION (else agent, 1). Exit
// codes as [reference.Main].
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/conform-kit/conform/reference"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := reference.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
