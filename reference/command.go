package reference

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
)

// Exit codes of [Main]: 0 the session ended normally (stdin closed), 1 the
// session failed (an I/O error), 2 a usage error or an invalid
// CONFORM_POLICY. An agent that ends the session itself exits with the code
// of its [ExitError] (v2 version_mismatch: 1, as docs/v2.md says).
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// Main runs one reference IUT session over stdin/stdout and returns the
// process exit code. args are the flags after the command name:
// --role agent|host and --version 1|2; unset, they default to the
// CONFORM_ROLE and CONFORM_PROTOCOL_VERSION the runner gives every IUT
// (docs/running.md "The steps of a run"), else agent and 1. getenv supplies those and
// CONFORM_POLICY, the host role's answers (a JSON object; see
// docs/host-role.md). It is the whole of `conform reference` and of the
// standalone cmd/conform-reference binary, which starts about 4x faster
// because it does not link the JSON Schema validator (whose package init
// compiles every draft's metaschema; bench/README.md measures both), so the
// two can never answer differently. Diagnostics go to stderr.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fl := flag.NewFlagSet("reference", flag.ContinueOnError)
	fl.SetOutput(stderr)
	defRole, defVersion := "agent", 1
	if r := getenv("CONFORM_ROLE"); r != "" {
		defRole = r
	}
	if v := getenv("CONFORM_PROTOCOL_VERSION"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			fmt.Fprintf(stderr, "conform reference: CONFORM_PROTOCOL_VERSION=%q is not a number\n", v)
			return exitUsage
		}
		defVersion = n
	}
	role := fl.String("role", defRole, "role to play: agent or host (its default is $CONFORM_ROLE when set)")
	version := fl.Int("version", defVersion, "control protocol version: 1 or 2 (its default is $CONFORM_PROTOCOL_VERSION when set)")
	fl.SetOutput(io.Discard)
	switch err := fl.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		fl.SetOutput(stdout)
		fmt.Fprintln(stdout, "usage: conform-reference [--role agent|host] [--version 1|2]   (one IUT session on stdin/stdout)")
		fl.PrintDefaults()
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "conform reference: USAGE: %v\n", err)
		return exitUsage
	case fl.NArg() > 0:
		fmt.Fprintf(stderr, "conform reference: USAGE: unexpected argument %q\n", fl.Arg(0))
		return exitUsage
	}
	var serve func(context.Context, io.Reader, io.Writer) error
	switch {
	case *role == "host" && *version == 1:
		h, err := NewHost([]byte(getenv("CONFORM_POLICY")))
		if err != nil {
			fmt.Fprintf(stderr, "conform reference: %v\n", err)
			return exitUsage // the vector's policy is invalid suite input
		}
		serve = h.Serve
	case *role == "host" && *version == 2:
		h, err := NewHostV2([]byte(getenv("CONFORM_POLICY")))
		if err != nil {
			fmt.Fprintf(stderr, "conform reference: %v\n", err)
			return exitUsage
		}
		serve = h.Serve
	case *role == "agent" && *version == 1:
		serve = NewAgent().Serve
	case *role == "agent" && *version == 2:
		serve = NewAgentV2().Serve // docs/v2.md: speaks version 2 only
	default:
		fmt.Fprintf(stderr, "conform reference: no %s role for version %d\n", *role, *version)
		return exitUsage
	}
	err := serve(ctx, stdin, stdout)
	var ee *ExitError
	if errors.As(err, &ee) {
		fmt.Fprintln(stderr, ee.Msg)
		return ee.Code
	}
	if err != nil {
		fmt.Fprintf(stderr, "conform reference: %v\n", err)
		return exitFail
	}
	return exitOK
}
