package main

import (
	"context"
	"io"

	"github.com/conform-kit/conform/internal/double"
	"github.com/conform-kit/conform/runner"
)

// agentDoubleCommand is the spawned mode of the control protocol
// (runner.Config.Spawn): the agent double played by this binary
// ([selfCommand]), found by a host as the CLI is, as claude on its PATH or
// in CONFORM_AGENT ([double.Command], [double.EnvVar]).
func agentDoubleCommand() (*runner.Spawn, error) {
	self, err := selfCommand()
	if err != nil {
		return nil, err
	}
	return &runner.Spawn{Argv: []string{self, "agent-double"}, Name: double.Command, Env: double.EnvVar}, nil
}

// cmdAgentDouble is the hidden "agent-double" command ([double.Main]).
func cmdAgentDouble(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return double.Main(ctx, args, stdin, stdout, stderr)
}
