package runner_test

import (
	"context"
	"testing"

	"github.com/conform-kit/conform/runner"
)

// TestReferenceHostV2PassesEveryVector certifies the Go reference v2 host
// through the same runner, as `conform run --version 2 --role host` does.
func TestReferenceHostV2PassesEveryVector(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "hostv2")
	cfg.Version, cfg.Role = 2, "host"
	cfg.Timeout = hangGuard
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantAllPass(t, rep, 30, "v2 host")
}
