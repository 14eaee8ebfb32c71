package runner_test

import (
	"context"
	"testing"

	"github.com/conform-kit/conform/runner"
)

// TestReferenceHostPassesEveryVector certifies the Go reference host
// through the same runner, as `conform run --role host` does.
func TestReferenceHostPassesEveryVector(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "host")
	cfg.Role = "host"
	cfg.Timeout = hangGuard
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantAllPass(t, rep, 30, "host")
}
