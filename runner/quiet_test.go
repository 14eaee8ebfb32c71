package runner_test

// The quiet bound (runner/quiet.go): once the IUT has written its first
// line, a wait for a reply it owes ends when it is silent for Config.Quiet,
// with the findings the timeout gives. These tests assert on the findings
// and on which bound ended the wait (the finding's message says), never on
// how long a run took.

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/conform-kit/conform/runner"
	"github.com/conform-kit/conform/runner/internal/fakeiut"
)

// quietFake plays "slow-start-reference": the reference agent, which
// reads and writes nothing for its first 3 s.
func quietFake(behaviour string) (int, bool) {
	if behaviour != "slow-start-reference" {
		return 0, false
	}
	time.Sleep(3 * time.Second)
	return fakeiut.Agent("reference"), true
}

// quietVector: the server answers echo 1 (its first line, which arms the
// quiet bound), then is sent a line that is not JSON, which the good server
// answers with an error reply of id null and rpc-silent-parse ignores.
const quietVector = `{"id": "quiet-drop", "version": 1, "kind": "session", "level": "required", "role": "server", "description": "an echo, then a malformed line", "source": "test",
 "send": [{"frame": {"id": 1, "method": "echo", "params": {"text": "hi"}}}, {"await": 1}, {"line": "not json"}],
 "expect": {"replies": [1, null]}}
`

// quietSuite is the rpc suite (testdata/rpc) with quietVector added (and
// members added to its version, such as `"quiet": "0s",`), its goldens made
// by the good server.
func quietSuite(t *testing.T, version string) *runner.Suite {
	t.Helper()
	dir := fixtureDir(t, "rpc", func(dir string) {
		addVector(t, dir, "quiet-drop.json", quietVector)
		editSuiteJSON(t, dir, `"preflight":`, version+` "preflight":`)
	})
	s, _ := goldenSuite(t, dir, func(s *runner.Suite) runner.Config { return rpcConfig(t, s, "rpc-good") })
	return s
}

// quietRun runs one vector of s with behaviour and returns its result.
func quietRun(t *testing.T, s *runner.Suite, behaviour, vector string, timeout, quiet time.Duration) runner.Result {
	t.Helper()
	cfg := rpcConfig(t, s, behaviour)
	cfg.Filters, cfg.Timeout, cfg.Quiet, cfg.NoFailFast = []string{vector}, timeout, quiet, true
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.ID == vector {
			return r
		}
	}
	t.Fatalf("no result for %s", vector)
	return runner.Result{}
}

func finding(r runner.Result, code string) (runner.Finding, bool) {
	for _, f := range r.Findings {
		if f.Code == code {
			return f, true
		}
	}
	return runner.Finding{}, false
}

func TestQuietBound(t *testing.T) {
	t.Parallel()
	s := quietSuite(t, "")

	// The server answers the echo and ignores the malformed line: with
	// the quiet bound on, its wait ends by that bound, with the status
	// and findings of the same run with the bound off, which the timeout
	// ends.
	t.Run("dropped-request", func(t *testing.T) {
		t.Parallel()
		quiet := quietRun(t, s, "rpc-silent-parse", "quiet-drop", time.Minute, 500*time.Millisecond)
		off := quietRun(t, s, "rpc-silent-parse", "quiet-drop", 2*time.Second, runner.NoQuiet)
		if quiet.Status != runner.Timeout || quiet.Status != off.Status {
			t.Errorf("status %s with the quiet bound, %s without; want TIMEOUT both", quiet.Status, off.Status)
		}
		if got, want := findingCodes(quiet), findingCodes(off); !slices.Equal(got, want) {
			t.Errorf("findings %v with the quiet bound, %v without: want the same", got, want)
		}
		f, ok := finding(quiet, runner.FindingReplyMissing)
		if !ok || !strings.Contains(f.Message, "the quiet bound") || !strings.Contains(f.Message, "null") {
			t.Errorf("REPLY_MISSING %q: want it to name the reply (null) and say the quiet bound ended the wait", f.Message)
		}
		if f, _ := finding(off, runner.FindingReplyMissing); f.Message != `no reply within 2s to null` {
			t.Errorf("without the quiet bound: REPLY_MISSING %q, want the timeout's message", f.Message)
		}
	})

	// A server that keeps writing (progress on stdout, or stderr) while
	// the reply is awaited is not silent: the timeout ends the wait.
	for _, behaviour := range []string{"rpc-chatty-parse", "rpc-stderr-parse"} {
		t.Run(behaviour, func(t *testing.T) {
			t.Parallel()
			r := quietRun(t, s, behaviour, "quiet-drop", 3*time.Second, 500*time.Millisecond)
			f, ok := finding(r, runner.FindingReplyMissing)
			if !ok || strings.Contains(f.Message, "quiet bound") || !strings.Contains(f.Message, "within 3s") {
				t.Errorf("%s: REPLY_MISSING %q (findings %v): want the timeout to end the wait, not the quiet bound", r.Status, f.Message, findingCodes(r))
			}
		})
	}

	// A slow start (its first line 3 s after its start) is not cut by a
	// quiet bound of 1 s: the bound counts only once the IUT has written.
	t.Run("slow-start", func(t *testing.T) {
		t.Parallel()
		if r := quietRun(t, s, "rpc-slow-start", "quiet-drop", time.Minute, time.Second); r.Status != runner.Pass {
			t.Errorf("%s %v: want PASS", r.Status, findingCodes(r))
		}
	})

	// An IUT that never wrote a line is bounded by the timeout alone
	// (rpc-silent-parse writes nothing on parse-error).
	t.Run("silent-from-start", func(t *testing.T) {
		t.Parallel()
		r := quietRun(t, s, "rpc-silent-parse", "parse-error", 2*time.Second, 200*time.Millisecond)
		if f, _ := finding(r, runner.FindingReplyMissing); !strings.Contains(f.Message, "within 2s") || !strings.Contains(f.Message, "a slow start?") {
			t.Errorf("REPLY_MISSING %q: an IUT that wrote nothing is bounded by the timeout alone, and may be starting slowly", f.Message)
		}
	})
}

// TestSlowStartDiagnosed: a reply that came only after stdin closed, from
// an IUT whose first line came well after that, is reported as a slow
// start with the time to its first line, not as a buffered stdout.
func TestSlowStartDiagnosed(t *testing.T) {
	t.Parallel()
	s := quietSuite(t, "")
	cfg := rpcConfig(t, s, "rpc-slow-start")
	cfg.Filters, cfg.Timeout, cfg.Grace, cfg.NoFailFast = []string{"initialize"}, 500*time.Millisecond, 10*time.Second, true
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	f, ok := finding(r, runner.FindingReplyAfterStdinClosed)
	if !ok || !strings.Contains(f.Message, "a slow start") || !strings.Contains(f.Message, "wrote its first line") || strings.Contains(f.Message, "flushed") {
		t.Errorf("%s %v: REPLY_AFTER_STDIN_CLOSED %q: want a slow start with the time to its first line", r.Status, findingCodes(r), f.Message)
	}
}

// TestSlowStartFailsFast: an IUT slower to start than the timeout on every
// probe vector stops the run as a slow start (IUT_SLOW_START), not as a
// buffered stdout.
func TestSlowStartFailsFast(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "slow-start-reference", "interrupt-idle", "get-binary-version")
	cfg.Timeout, cfg.Grace = 500*time.Millisecond, 10*time.Second
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Preflight == nil {
		t.Fatalf("the run did not stop after its probes: %v", statuses(rep))
	}
	f := rep.Preflight.Findings[len(rep.Preflight.Findings)-1]
	if f.Code != runner.FindingIUTSlowStart || !strings.Contains(f.Message, "after the IUT's start") {
		t.Errorf("fail fast %s: %s; want %s with the time to its first line", f.Code, f.Message, runner.FindingIUTSlowStart)
	}
}

// TestQuietFromSuite: a run that sets no quiet bound takes the suite
// version's (suite.json quiet; "0s": none), and Config.Quiet overrides it.
func TestQuietFromSuite(t *testing.T) {
	t.Parallel()
	s := quietSuite(t, `"quiet": "0s",`)
	r := quietRun(t, s, "rpc-silent-parse", "quiet-drop", 2*time.Second, 0)
	if f, _ := finding(r, runner.FindingReplyMissing); f.Message != `no reply within 2s to null` {
		t.Errorf("the suite's quiet 0s: REPLY_MISSING %q, want the timeout to end the wait", f.Message)
	}
	r = quietRun(t, s, "rpc-silent-parse", "quiet-drop", time.Minute, 300*time.Millisecond)
	if f, _ := finding(r, runner.FindingReplyMissing); !strings.Contains(f.Message, "the quiet bound") {
		t.Errorf("Config.Quiet over the suite's: REPLY_MISSING %q, want the quiet bound to end the wait", f.Message)
	}
}
