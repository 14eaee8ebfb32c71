package runner_test

import (
	"context"
	"testing"

	"github.com/conform-kit/conform/runner"
)

// TestPreflightV1OnlyIUT: a v1-only agent run against v2 gets one clear
// outcome (no shared version) from the preflight vector, the rest NOT_RUN,
// exit 1, and never a hang.
func TestPreflightV1OnlyIUT(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "reference") // the v1 reference agent
	cfg.Version = 2
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Preflight == nil {
		t.Fatal("no preflight result for a v1-only IUT")
	}
	if !slicesContains(findingCodes(*rep.Preflight), runner.FindingVersionUnsupported) {
		t.Errorf("preflight findings %v lack %s", findingCodes(*rep.Preflight), runner.FindingVersionUnsupported)
	}
	if rep.ExitCode() != 1 {
		t.Errorf("exit %d, want 1", rep.ExitCode())
	}
	if rep.Summary.NotRun != rep.Summary.Total-1 {
		t.Errorf("not run %d of %d, want all but the preflight", rep.Summary.NotRun, rep.Summary.Total)
	}
}
