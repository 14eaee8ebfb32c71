package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// stopWait is how long a command may take to end once a stop signal
// (stopSignals) has come, before conform ends it itself (exit status 130,
// "INTERRUPTED"): a command still reading a pipe that never ends (validate
// -), comparing schemas (compat), reading reports (report merge, matrix
// --from) or recordings (drift). Before issue 33 only run and golden acted
// on the signals; the others could be stopped only with SIGKILL. The
// commands that start IUTs are never ended so (see stopsItself).
const stopWait = 500 * time.Millisecond

// stopsItself are the commands that start IUTs and end them on a stop
// signal themselves: every IUT process ended (after --grace and
// --kill-after at most), the finished work reported, temporary
// directories removed. conform waits for them, since ending one sooner
// could leave IUT processes behind (TestSignalsEndRun and
// TestSignalsEndEveryCommand check that they end at once). And the two
// that write a suite in place, init and manifest, which are left to finish
// what they write (a few milliseconds for init; manifest hashes the suite
// through one buffer, then writes MANIFEST.sha256 through a temporary
// file) rather than leave a suite half written.
var stopsItself = map[string]bool{
	"run": true, "golden": true, "parity": true, "matrix": true, "record": true,
	"fidelity": true, "agent-tap": true, "host-adapter": true,
	"init": true, "manifest": true,
}

// outputGate is held (shared) by every write of an output file through a
// temporary file (writeAtomic) from its creation to its rename or removal,
// and taken (exclusive) before conform ends a command that did not stop:
// conform never exits with a temporary file of its own left behind or a
// file half renamed. It is the one piece of process-wide state of package
// main, as the process's exit is: nothing else reads it.
var outputGate sync.RWMutex

// awaitCommand waits for the command's exit status on done. Once ctx is
// cancelled (a stop signal came), it waits at most wait more (0: without
// a bound); a command still running then is ended by conform: a line on
// stderr and exit status 130, once no output file is being written
// (outputGate).
func awaitCommand(ctx context.Context, done <-chan int, wait time.Duration, name string, stderr io.Writer) int {
	select {
	case code := <-done:
		return code
	case <-ctx.Done():
	}
	if wait <= 0 {
		return <-done
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case code := <-done:
		return code
	case <-t.C:
	}
	outputGate.Lock()
	fmt.Fprintf(stderr, "conform %s: INTERRUPTED: stopped by a signal before it finished (nothing more written)\n", name)
	return exitInterrupted
}

// commandStopWait returns how long the command named by args[0] may take
// to end after a stop signal (0: as long as it takes, stopsItself).
func commandStopWait(args []string) time.Duration {
	if len(args) > 0 && stopsItself[args[0]] {
		return 0
	}
	return stopWait
}
