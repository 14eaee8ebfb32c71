package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/conform-kit/conform/internal/relay"
)

const relayUsage = `usage: conform relay hub [--name NAME] -- CLIENT [ARG...]
       conform relay connect --socket PATH

hub runs CLIENT, a client that starts its own peer (agent, server, adapter),
as the IUT: ${relay} in its arguments (and $CONFORM_RELAY, and NAME on its
PATH) is a command that, launched by the client as its peer, relays the
peer's stdin and stdout to the hub's stdout and stdin, where the runner
speaks the protocol. connect is that command. docs/relay.md.
`

// cmdRelay is `conform relay hub|connect` (internal/relay).
func cmdRelay(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, relayUsage)
		return exitUsage
	}
	fl := flag.NewFlagSet("relay "+args[0], flag.ContinueOnError)
	fl.SetOutput(stderr)
	switch args[0] {
	case "hub":
		name := fl.String("name", "", "the wrapper's command `name`, first on the client's PATH (default "+relay.DefaultName+")")
		if code, ok := parseFlags(fl, args[1:], stdout, stderr); !ok {
			return code
		}
		self, err := selfCommand()
		if err != nil {
			return fail(stderr, err)
		}
		return relay.Hub(ctx, relay.Options{Self: []string{self, "relay"}, Name: *name, Argv: fl.Args()}, stdin, stdout, stderr)
	case "connect":
		socket := fl.String("socket", "", "the hub's Unix socket `path`")
		if code, ok := parseFlags(fl, args[1:], stdout, stderr); !ok {
			return code
		}
		if *socket == "" {
			return usageError(stderr, "relay connect", "--socket is required")
		}
		return relay.Connect(*socket, stdin, stdout, stderr)
	case "-h", "--help":
		fmt.Fprint(stdout, relayUsage)
		return exitPass
	}
	fmt.Fprint(stderr, relayUsage)
	return exitUsage
}
