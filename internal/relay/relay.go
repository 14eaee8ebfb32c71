// Package relay lets conform certify a client that starts its own peer
// (an editor that launches its language server, an ACP client that
// launches its agent, a debugger front end that launches its adapter): the
// client is given a command to launch as that peer, and the command
// connects back to the runner (docs/relay.md).
//
// Two halves, both run by the conform binary:
//
//   - [Hub] is the IUT process the runner starts. It listens on a Unix
//     socket in a fresh temporary directory, writes an executable wrapper
//     that runs [Connect] on that socket, and starts the client with
//     ${relay} in its arguments replaced by the wrapper's absolute path
//     (also in CONFORM_RELAY, and on PATH under Options.Name). Once the
//     client has launched the wrapper, the hub's stdin goes to the
//     wrapper's stdout and the wrapper's stdin to the hub's stdout, byte
//     for byte: the runner speaks to the client as the peer, over any
//     framing. The client's own stdout and stderr go to the hub's stderr,
//     so nothing but the peer's bytes reaches the runner; the hub exits
//     with the client's status.
//   - [Connect] is the wrapper: it dials the socket and copies its stdin to
//     it and it to its stdout, until the runner closes the hub's stdin.
//
// Only the first connection is relayed; a later one is closed at once
// with a note on stderr (a client that starts its peer twice sees the
// second end at once).
package relay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Placeholder is replaced, in the client's arguments, by the absolute path
// of the wrapper that connects to the hub.
const Placeholder = "${relay}"

// EnvVar is the environment variable that holds the wrapper's path for
// the client.
const EnvVar = "CONFORM_RELAY"

// DefaultName is the wrapper's file name when Options.Name is empty.
const DefaultName = "conform-relay"

// Options configure [Hub].
type Options struct {
	// Self is the argv prefix that runs this conform binary's relay
	// command ("/abs/conform", "relay"); the wrapper runs Self, "connect",
	// "--socket", path.
	Self []string
	// Name is the wrapper's file name, also put first on the client's
	// PATH, for a client that starts its peer by a fixed command name
	// (default DefaultName).
	Name string
	// Argv is the client's command; ${relay} in its arguments is replaced.
	Argv []string
	// Drain bounds how long the hub goes on relaying the peer's bytes to
	// stdout once the client has exited (default 2 s).
	Drain time.Duration
}

// Hub runs the client with a relay to it and returns its exit status: the
// client's (128 + the signal's number when a signal ended it), or 3 when it
// could not be started. See the package comment.
func Hub(ctx context.Context, o Options, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(o.Argv) == 0 || len(o.Self) == 0 {
		fmt.Fprintln(stderr, "conform relay hub: no client command (give it after --)")
		return 2
	}
	name := o.Name
	if name == "" {
		name = DefaultName
	}
	if strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		fmt.Fprintf(stderr, "conform relay hub: --name %q is not a plain command name\n", name)
		return 2
	}
	drain := o.Drain
	if drain <= 0 {
		drain = 2 * time.Second
	}
	dir, err := os.MkdirTemp("", "conform-relay-")
	if err != nil {
		fmt.Fprintf(stderr, "conform relay hub: %v\n", err)
		return 3
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		fmt.Fprintf(stderr, "conform relay hub: listen: %v\n", err)
		return 3
	}
	defer ln.Close()
	bin := filepath.Join(dir, "bin")
	wrapper := filepath.Join(bin, name)
	if err := writeWrapper(bin, wrapper, append(append([]string{}, o.Self...), "connect", "--socket", sock)); err != nil {
		fmt.Fprintf(stderr, "conform relay hub: %v\n", err)
		return 3
	}
	argv := make([]string, len(o.Argv))
	for i, a := range o.Argv {
		argv[i] = strings.ReplaceAll(a, Placeholder, wrapper)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), EnvVar+"="+wrapper, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "conform relay hub: start %q: %v\n", argv[0], err)
		return 3
	}
	relayed := make(chan struct{})
	go accept(ln, stdin, stdout, stderr, relayed)
	err = cmd.Wait()
	// The peer's last bytes may still be on their way.
	select {
	case <-relayed:
	case <-time.After(drain):
	}
	return status(err)
}

// accept relays the first connection on ln (closing relayed when the
// peer's side has ended) and closes every later one.
func accept(ln net.Listener, stdin io.Reader, stdout, stderr io.Writer, relayed chan<- struct{}) {
	first := true
	for {
		c, err := ln.Accept()
		if err != nil {
			if first {
				close(relayed)
			}
			return
		}
		if !first {
			fmt.Fprintln(stderr, "conform relay hub: the client started its peer again; only the first connection is relayed")
			c.Close()
			continue
		}
		first = false
		go func() {
			defer close(relayed)
			pipe(c, stdin, stdout)
		}()
	}
}

// pipe copies in to c and c to out, closing c's write side when in ends,
// and returns once c's read side has ended.
func pipe(c net.Conn, in io.Reader, out io.Writer) {
	go func() {
		_, _ = io.Copy(c, in)
		if uc, ok := c.(*net.UnixConn); ok {
			_ = uc.CloseWrite()
		}
	}()
	_, _ = io.Copy(out, c)
	c.Close()
}

// Connect dials the hub's socket and relays stdin to it and it to stdout;
// it returns 0 once the hub's side has ended, 3 when it cannot connect.
func Connect(socket string, stdin io.Reader, stdout, stderr io.Writer) int {
	c, err := net.Dial("unix", socket)
	if err != nil {
		fmt.Fprintf(stderr, "conform relay connect: %v\n", err)
		return 3
	}
	pipe(c, stdin, stdout)
	return 0
}

// writeWrapper writes the executable shell wrapper name in dir bin that
// runs argv with the wrapper's own arguments after it.
func writeWrapper(bin, name string, argv []string) error {
	if err := os.Mkdir(bin, 0o700); err != nil {
		return err
	}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	script := "#!/bin/sh\nexec " + strings.Join(quoted, " ") + ` "$@"` + "\n"
	return os.WriteFile(name, []byte(script), 0o700)
}

// status is the exit status of a finished command.
func status(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return 3
}
