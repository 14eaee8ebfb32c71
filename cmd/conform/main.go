// Command conform certifies implementations of the stream-json control
// protocol against the conform suite. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/conform-kit/conform/internal/proc"
)

func main() {
	// No heap profile is ever taken of this binary: sampling allocations
	// for one cost 1.4 MiB of buckets in a run of 10,000 vectors.
	runtime.MemProfileRate = 0
	os.Exit(mainStatus(os.Args[1:]))
}

// mainStatus runs the command args and returns conform's exit status; the
// test binary's "conform" runs it too (main_test.go).
func mainStatus(args []string) int {
	// Orphans of IUTs that left their process group are re-parented to
	// conform, which kills them after each vector (best effort: a kernel
	// without PR_SET_CHILD_SUBREAPER only loses that cleanup).
	_ = proc.BecomeSubreaper()
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals()...)
	defer stop()
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, os.Stdin, os.Stdout, os.Stderr) }()
	name := "conform"
	if len(args) > 0 {
		name = args[0]
	}
	return awaitCommand(ctx, done, commandStopWait(args), name, os.Stderr)
}

// stopSignals are the signals that end a run as an interruption
// (INTERRUPTED, exit status 130): every IUT process is ended, the finished
// vectors are reported and temporary directories are removed. SIGINT
// (Ctrl-C) and SIGTERM (a supervisor), and SIGHUP (the terminal or ssh
// session closed) and SIGQUIT (Ctrl-\), whose default actions would end
// conform without any of that (SIGQUIT with a goroutine dump). On Windows
// only os.Interrupt is ever delivered; the others are never raised.
func stopSignals() []os.Signal {
	return []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}
}
