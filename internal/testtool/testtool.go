// Package testtool decides whether a test that needs a program outside Go
// (python3, node, npm, cargo, java, bash) or a loopback network runs here.
//
// `go test ./...` must pass on a machine with Go alone: a test whose tool
// is not usable skips, and its message names the tool and why ([Need]).
// CI must not skip: with the environment variable CONFORM_REQUIRE_TOOLS=1
// (set by .ci/stages/80-tests.sh and the stages that run such tests) the
// same check fails the test instead. A tool is usable when it is on PATH
// and answers a version query: a rustup proxy for cargo with no default
// toolchain, or a pyenv shim for a Python version that is not installed,
// is on PATH and not usable.
package testtool

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// RequireEnv is the environment variable that turns the skips of [Need]
// into failures when it is "1".
const RequireEnv = "CONFORM_REQUIRE_TOOLS"

// Required reports whether RequireEnv is "1": a missing tool is then a
// failure, not a skip.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// probes are the arguments that make each tool say its version; a tool
// not listed is usable when it is on PATH.
var probes = map[string][]string{
	"python3": {"-c", "import sys"},
	"node":    {"--version"},
	"npm":     {"--version"},
	"cargo":   {"--version"},
	"java":    {"-version"},
	"go":      {"version"},
}

// Usable returns nil when tool is on PATH and, for the tools probes
// lists, runs its version query with exit status 0 within a minute (a
// hang guard, not a speed bound). Otherwise the error says which of the
// two failed, with the tool's stderr.
func Usable(tool string) error {
	path, err := exec.LookPath(tool)
	if err != nil {
		return fmt.Errorf("%s is not on PATH", tool)
	}
	args, ok := probes[tool]
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return fmt.Errorf("%s is on PATH (%s) but `%s %s` failed: %v %s", tool, path, tool, strings.Join(args, " "), err, msg)
	}
	return nil
}

// Need skips t unless every tool is usable ([Usable]); with
// CONFORM_REQUIRE_TOOLS=1 it fails t instead. The message starts with
// "needs TOOL" and says why the tool is not usable.
func Need(t testing.TB, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		err := Usable(tool)
		if err == nil {
			continue
		}
		if Required() {
			t.Fatalf("needs %s: %v (%s=1: a missing tool fails the test)", tool, err, RequireEnv)
		} else {
			t.Skipf("needs %s: %v (skipped; CI sets %s=1 and fails here)", tool, err, RequireEnv)
		}
		return
	}
}

// Loopback returns nil when this process can listen on 127.0.0.1 and
// connect to itself there: a network namespace without one (unshare -n
// leaves its lo interface down) has no loopback, a machine offline has.
func Loopback() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen on 127.0.0.1: %v", err)
	}
	defer l.Close()
	c, err := net.DialTimeout("tcp", l.Addr().String(), 10*time.Second)
	if err != nil {
		return fmt.Errorf("connect to 127.0.0.1: %v", err)
	}
	return c.Close()
}

// NeedLoopback skips t, or fails it with CONFORM_REQUIRE_TOOLS=1, when
// there is no loopback network ([Loopback]): the tests of an HTTP
// stand-in on 127.0.0.1 need one, and nothing beyond it.
func NeedLoopback(t testing.TB) {
	t.Helper()
	err := Loopback()
	switch {
	case err == nil:
	case Required():
		t.Fatalf("needs a loopback network: %v (%s=1: a missing tool fails the test)", err, RequireEnv)
	default:
		t.Skipf("needs a loopback network: %v (skipped; CI sets %s=1 and fails here)", err, RequireEnv)
	}
}

// DeepEnv is the environment variable that makes the tests run at full
// size when it is "1": the long scenarios ([Long]) and the larger samples
// of the differential tests ([Deep]). CI stage 80 sets it; plain
// `go test ./...` leaves it unset and stays within its time budget
// (docs/maintaining.md "What go test needs").
const DeepEnv = "CONFORM_TEST_DEEP"

// Deep reports whether DeepEnv is "1": a test then checks its larger
// sample.
func Deep() bool { return os.Getenv(DeepEnv) == "1" }

// Long skips t unless DeepEnv is "1": a scenario whose cost (tens of
// seconds of CPU, or a machine deliberately loaded) CI pays and a
// developer's `go test ./...` does not. why says what the scenario proves
// and what it costs; the skip message starts with "long scenario" and
// names the variable, so that a CI stage that sets it can fail on any
// such skip.
func Long(t testing.TB, why string) {
	t.Helper()
	if !Deep() {
		t.Skipf("long scenario (%s): runs with %s=1, as CI stage 80 does", why, DeepEnv)
	}
}
