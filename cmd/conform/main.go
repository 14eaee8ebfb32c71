// Command conform certifies implementations of the stream-json control
// protocol against the conform suite. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/conform-kit/conform/internal/proc"
)

func main() {
	// Orphans of IUTs that left their process group are re-parented to
	// conform, which kills them after each vector (best effort: a kernel
	// without PR_SET_CHILD_SUBREAPER only loses that cleanup).
	_ = proc.BecomeSubreaper()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
