package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/conform-kit/conform/internal/double"
)

// agentDoubleCommand is the argv prefix of the agent double played by this
// binary (runner.Config.Spawn): the same executable as [referenceCommand].
func agentDoubleCommand() ([]string, error) {
	ref, err := referenceCommand("agent", 1)
	if err != nil {
		return nil, err
	}
	return []string{ref[0], "agent-double"}, nil
}

// cmdAgentDouble is the hidden "agent-double" command: the stand-in agent a
// spawned host starts through the runner's "agent" wrapper. It ignores the
// CLI flags the host adds (--output-format stream-json, --verbose, ...),
// plays the plan over stdin/stdout and exits 0; exit 2 for a bad plan or
// missing flags, 3 when a record file cannot be written.
func cmdAgentDouble(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var planPath, transcriptPath, observedPath string
	maxLine := double.DefaultMaxLine
	// The host appends the CLI's own flags after ours: take ours, skip the rest.
	for i := 0; i < len(args); i++ {
		var dst *string
		switch args[i] {
		case "--plan":
			dst = &planPath
		case "--transcript":
			dst = &transcriptPath
		case "--observed":
			dst = &observedPath
		case "--max-line":
			if i+1 < len(args) {
				if _, err := fmt.Sscan(args[i+1], &maxLine); err != nil || maxLine <= 0 {
					return usageError(stderr, "agent-double", "bad --max-line %q", args[i+1])
				}
				i++
			}
			continue
		default:
			continue
		}
		if i+1 >= len(args) {
			return usageError(stderr, "agent-double", "%s needs a value", args[i])
		}
		*dst = args[i+1]
		i++
	}
	if planPath == "" || transcriptPath == "" || observedPath == "" {
		fmt.Fprintln(stderr, "usage: conform agent-double --plan FILE --transcript FILE --observed FILE [--max-line BYTES] [agent flags...]")
		return exitUsage
	}
	pl, err := double.ReadPlan(planPath)
	if err != nil {
		fmt.Fprintf(stderr, "conform agent-double: %v\n", err)
		return exitUsage
	}
	open := func(p string) (*os.File, error) {
		return os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	}
	tf, err := open(transcriptPath)
	if err != nil {
		fmt.Fprintf(stderr, "conform agent-double: %v\n", err)
		return exitBroken
	}
	defer tf.Close()
	of, err := open(observedPath)
	if err != nil {
		fmt.Fprintf(stderr, "conform agent-double: %v\n", err)
		return exitBroken
	}
	defer of.Close()
	st, err := double.Run(ctx, double.Options{Plan: pl, Transcript: tf, Observed: of, MaxLine: maxLine}, stdin, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "conform agent-double: %v\n", err)
		return exitBroken
	}
	if len(st.Pending) > 0 {
		fmt.Fprintf(stderr, "conform agent-double: no control_response to %v\n", st.Pending)
	}
	return exitPass
}
