package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conform-kit/conform/runner"
)

// TestAlongsideSameStatuses: a one-vector run with no preflight cache runs
// its vector alongside the preflight and discover vectors, and each
// vector's status is the one the full run gives it (TestClassesJudged):
// a vector whose class is not judged or whose requires do not hold is
// SKIPPED or FAIL as in series, whatever its early run gave; the IUT is
// started once for the vector and once for each of the preflight vectors
// (with the cache on, once in all).
func TestAlongsideSameStatuses(t *testing.T) {
	t.Parallel()
	s := mcpSuite(t)
	for _, tc := range []struct {
		args   []string
		claims []string
		want   map[string]runner.Status
	}{
		{nil, nil, map[string]runner.Status{"tools-call-echo": runner.Skipped, "tools-list": runner.Skipped, "ping": runner.Pass, "lifecycle-initialize": runner.Pass}},
		{[]string{"--tools"}, nil, map[string]runner.Status{"tools-call-echo": runner.Pass, "cancel-in-flight": runner.Skipped, "tools-list": runner.Pass}},
		{nil, []string{"core", "tools"}, map[string]runner.Status{"tools-call-echo": runner.Fail, "tools-call-unknown-tool": runner.Skipped, "ping": runner.Pass}},
	} {
		t.Run(strings.Join(append(tc.args, tc.claims...), ","), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			counter := filepath.Join(dir, "starts")
			// A shell that counts the server's starts, then runs it.
			tiny, env := tinyServer(tc.args...)
			cmd := append([]string{"/bin/sh", "-c", `echo start >> "$0"; shift; exec "$@"`, counter, "-"}, tiny...)
			primed := false // the cache holds this server's entry
			for id, want := range tc.want {
				for _, cached := range []bool{false, true} {
					if err := os.WriteFile(counter, nil, 0o644); err != nil {
						t.Fatal(err)
					}
					cfg := runner.Config{Suite: s, Role: "server", Command: cmd, Env: env, Implementation: "tiny",
						Claims: tc.claims, Jobs: 4, Timeout: 10 * time.Second, Filters: []string{id}}
					if cached {
						cfg.PreflightCache = filepath.Join(dir, "cache")
					}
					rep, err := runner.Run(context.Background(), cfg)
					if err != nil {
						t.Fatal(err)
					}
					if got := statuses(rep)[id]; got != want {
						t.Errorf("%s (cache %t): %s, want %s as in the full run: %v", id, cached, got, want, rep.Results[0].Findings)
					}
					b, _ := os.ReadFile(counter)
					starts := strings.Count(string(b), "start\n")
					if cached && primed && starts > 1 {
						t.Errorf("%s with the cache: %d starts, want at most 1", id, starts)
					}
					if cached && !primed && starts < 2 {
						t.Errorf("%s, the first run with the cache: %d starts, want the preflight's too", id, starts)
					}
					primed = primed || cached
				}
			}
		})
	}
}
