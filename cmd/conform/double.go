package main

import (
	"context"
	"io"

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

// cmdAgentDouble is the hidden "agent-double" command ([double.Main]).
func cmdAgentDouble(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return double.Main(ctx, args, stdin, stdout, stderr)
}
