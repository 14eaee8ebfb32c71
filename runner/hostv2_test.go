package runner_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/runner"
)

// TestFakeHostV2 is not a test: re-executed by
// TestReferenceHostV2PassesEveryVector with CONFORM_FAKE_HOSTV2 set, the
// test binary plays the v2 reference host with the vector's CONFORM_POLICY
// (os/exec's helper-process pattern, beside TestMain's CONFORM_FAKE_IUT).
func TestFakeHostV2(t *testing.T) {
	if os.Getenv("CONFORM_FAKE_HOSTV2") == "" {
		t.Skip("only runs as the fake v2 host IUT")
	}
	h, err := reference.NewHostV2([]byte(os.Getenv("CONFORM_POLICY")))
	if err == nil {
		err = h.Serve(context.Background(), os.Stdin, os.Stdout)
	}
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(0)
}

// TestReferenceHostV2PassesEveryVector certifies the Go reference v2 host
// through the same runner, as `conform run --version 2 --role host` does.
func TestReferenceHostV2PassesEveryVector(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "host")
	cfg.Command = []string{os.Args[0], "-test.run=^TestFakeHostV2$"}
	cfg.Env = map[string]string{"CONFORM_FAKE_HOSTV2": "1"}
	cfg.Version, cfg.Role = 2, "host"
	cfg.Timeout = 10 * time.Second
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantAllPass(t, rep, 30, "v2 host")
}
