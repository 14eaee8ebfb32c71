package runner_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/runner"
)

// fakeHost plays the reference host (CONFORM_FAKE_IUT=host) with the
// vector's CONFORM_POLICY.
func fakeHost() int {
	h, err := reference.NewHost([]byte(os.Getenv("CONFORM_POLICY")))
	if err == nil {
		err = h.Serve(context.Background(), os.Stdin, os.Stdout)
	}
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	return 0
}

// TestReferenceHostPassesEveryVector certifies the Go reference host
// through the same runner, as `conform run --role host` does.
func TestReferenceHostPassesEveryVector(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "host")
	cfg.Role = "host"
	cfg.Timeout = 10 * time.Second
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantAllPass(t, rep, 30, "host")
}
