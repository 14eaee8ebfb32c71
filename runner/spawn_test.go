package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/conform-kit/conform/runner"
)

func spawnConfig(t *testing.T, behaviour string, filters ...string) runner.Config {
	t.Helper()
	cfg := testConfig(t, behaviour, filters...)
	cfg.Role = "host"
	cfg.Spawn = &runner.Spawn{Argv: append([]string{"/usr/bin/env", "CONFORM_FAKE_IUT=double"}, fakeCommand("double")...), Name: "claude", Env: "CONFORM_AGENT"}
	cfg.Timeout = hangGuard
	return cfg
}

// The reference host, started as a spawned host around the double, passes
// every host vector: the double plays them as the runner does directly.
func TestSpawnedReferenceHostPassesEveryVector(t *testing.T) {
	t.Parallel()
	rep, err := runner.Run(context.Background(), spawnConfig(t, "spawn-host"))
	if err != nil {
		t.Fatal(err)
	}
	wantAllPass(t, rep, 30, "spawned host")
	for _, r := range rep.Results {
		if !slicesContains(findingCodes(r), runner.FindingHostArgv) {
			t.Errorf("%s: no %s note: %v", r.ID, runner.FindingHostArgv, r.Findings)
		}
	}
}

func TestSpawnedFindings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		behaviour, vector string
		status            runner.Status
		finding           string
	}{
		// can_use_tool is withheld without --permission-prompt-tool stdio,
		// and that precondition is the reported cause.
		{"spawn-host-nostdio", "host-can-use-tool-allow-echo", runner.Fail, runner.FindingAgentPrecondition},
		{"spawn-host-nostdio", "host-hook-pre-tool-use-block", runner.Pass, ""},
		// A malformed reply ends the session at once: a protocol error,
		// never a timeout.
		{"spawn-host-malformed", "host-hook-pre-tool-use-block", runner.ProtocolError, runner.FindingSessionEnded},
		{"spawn-host-malformed", "host-can-use-tool-allow-echo", runner.ProtocolError, runner.FindingFrameNotJSON},
		// A host that only probes the version never starts a session.
		{"spawn-host-version-only", "host-hook-pre-tool-use-block", runner.Crash, runner.FindingAgentNotStarted},
	}
	for _, tc := range tests {
		t.Run(tc.behaviour+"/"+tc.vector, func(t *testing.T) {
			t.Parallel()
			cfg := spawnConfig(t, tc.behaviour, tc.vector)
			cfg.Timeout = time.Minute // a TIMEOUT verdict would show as one
			rep, err := runner.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Results[0]
			if r.Status != tc.status {
				t.Fatalf("status %s, want %s: %v", r.Status, tc.status, r.Findings)
			}
			if tc.finding != "" && !slicesContains(findingCodes(r), tc.finding) {
				t.Errorf("findings %v, want %s", findingCodes(r), tc.finding)
			}
		})
	}
}

// An IUT that is dead or silent on the probe vectors stops the run with a
// verdict naming the cause; --no-fail-fast (NoFailFast) runs everything.
func TestFailFast(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, behaviour string
		spawned         bool
		cause           string
		// waits: the probes end in TIMEOUT (the IUT writes nothing before
		// stdin closes), so the run waits timeoutVerdict, not the hang
		// guard (each of these took 60 s of the package's 72).
		waits bool
	}{
		{"silent", "silent", false, runner.FindingIUTSilent, true},
		{"replies only once stdin closes", "buffered", false, runner.FindingIUTRepliesAfterStdinClosed, true},
		{"exits at once", "zoo-exit-at-once", false, runner.FindingIUTExitedAtStart, false},
		// Protocol-broken IUTs (issue 22): before, each ran every vector
		// (300 s and more for the v1 agent suite at the default timeout).
		{"every line rejected", "dupkey", false, runner.FindingIUTLinesRejected, false},
		{"replies never match the ids sent", "idnumber", false, runner.FindingIUTRepliesUnmatched, false},
		{"host probes the version only", "spawn-host-version-only", true, runner.FindingAgentNotStarted, false},
		{"host hangs", "spawn-host-hang", true, runner.FindingAgentNotStarted, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(t, tc.behaviour)
			if tc.waits {
				cfg.Timeout = timeoutVerdict
			}
			if tc.spawned {
				cfg = spawnConfig(t, tc.behaviour)
				cfg.Timeout = 2 * time.Second
			}
			rep, err := runner.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Preflight == nil {
				t.Fatalf("no run-level verdict; %d results", len(rep.Results))
			}
			last := rep.Preflight.Findings[len(rep.Preflight.Findings)-1]
			if last.Code != tc.cause || !strings.Contains(last.Message, "--no-fail-fast") {
				t.Errorf("last preflight finding %s %q, want %s naming --no-fail-fast", last.Code, last.Message, tc.cause)
			}
			if rep.Summary.NotRun != rep.Summary.Total-2 || rep.ExitCode() != 1 || rep.Verdict != "NOT_CERTIFIED" {
				t.Errorf("summary %+v exit %d verdict %s, want all but the 2 probes NOT_RUN, exit 1, NOT_CERTIFIED", rep.Summary, rep.ExitCode(), rep.Verdict)
			}
		})
	}
	t.Run("no-fail-fast", func(t *testing.T) {
		t.Parallel()
		cfg := testConfig(t, "zoo-exit-at-once", "get-binary-version", "interrupt-idle", "mcp-status-empty")
		cfg.NoFailFast = true
		rep, err := runner.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Preflight != nil || rep.Summary.NotRun != 0 || rep.Summary.Failed != 3 {
			t.Errorf("preflight %v, summary %+v, want every vector run and failed", rep.Preflight, rep.Summary)
		}
	})
	t.Run("a live IUT is not stopped", func(t *testing.T) {
		t.Parallel()
		// zoo-hang answers nothing but the reference does: probes pass.
		rep, err := runner.Run(context.Background(), testConfig(t, "reference", "get-binary-version", "interrupt-idle", "mcp-status-empty"))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Preflight != nil || rep.Summary.Passed != 3 {
			t.Errorf("preflight %v, summary %+v", rep.Preflight, rep.Summary)
		}
	})
}

// TestSpawnedHostKillsAgent: a host that kills the agent double right
// after closing its stdin (PyPI claude-code-sdk 0.0.25 does) leaves the
// double no time to write its end record; the record it wrote when the
// session's outcome was decided stands in for it, so every vector is
// judged as with a host that lets the agent exit. Before issue 22 each was
// a CRASH (AGENT_NOT_STARTED: "started ... for --version only").
func TestSpawnedHostKillsAgent(t *testing.T) {
	t.Parallel()
	cfg := spawnConfig(t, "spawn-host-kill", "host-can-use-tool-*", "host-hook-*")
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) < 5 {
		t.Fatalf("%d results, want the can_use_tool and hook vectors", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Status != runner.Pass {
			t.Errorf("%s: %s %v, want PASS as with a host that lets the agent exit", r.ID, r.Status, findingCodes(r))
		}
	}
}
