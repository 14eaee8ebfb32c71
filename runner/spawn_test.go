package runner_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/double"
	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/runner"
)

// spawnFake plays the fakes of spawned mode: "double" is the agent double
// (what `conform agent-double` runs), "spawn-host*" are hosts that start
// the agent as the SDKs do: the claude found on PATH.
func spawnFake(behaviour string) (int, bool) {
	switch behaviour {
	case "double":
		// The wrapper runs: <test binary> -test.run=^$ --plan ... -- <host argv>.
		return double.Main(context.Background(), os.Args[2:], os.Stdin, os.Stdout, os.Stderr), true
	case "spawn-host", "spawn-host-nostdio", "spawn-host-malformed", "spawn-host-version-only", "spawn-host-hang", "spawn-host-kill":
		return spawnHost(strings.TrimPrefix(behaviour, "spawn-host")), true
	case "silent":
		io.Copy(io.Discard, os.Stdin)
		return 0, true
	}
	return 0, false
}

// spawnHost is a host in the SDKs' manner: it probes `claude --version`,
// starts `claude` from PATH with the CLI's stream-json flags, sends
// initialize and a user turn, answers the agent's requests with the
// reference host (CONFORM_POLICY) and closes the agent's stdin on the
// result frame. mode "-nostdio" leaves out --permission-prompt-tool stdio,
// "-malformed" answers the first agent request with a broken line,
// "-version-only" stops after the probe, "-hang" never starts the agent
// and "-kill" kills the agent (SIGKILL) as it closes the agent's stdin, as
// PyPI claude-code-sdk 0.0.25 does (it terminates the CLI right after
// closing its stdin).
func spawnHost(mode string) int {
	if mode == "-hang" {
		time.Sleep(time.Hour)
	}
	v, err := exec.Command("claude", "--version").Output()
	if err != nil || string(v) != double.VersionLine {
		fmt.Fprintf(os.Stderr, "version probe: %q %v\n", v, err)
		return 1
	}
	if mode == "-version-only" {
		return 0
	}
	if os.Getenv("CONFORM_AGENT") == "" {
		fmt.Fprintln(os.Stderr, "no CONFORM_AGENT")
		return 1
	}
	h, err := reference.NewHost([]byte(os.Getenv("CONFORM_POLICY")))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	args := []string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json"}
	if mode != "-nostdio" {
		args = append(args, "--permission-prompt-tool", "stdio")
	}
	cmd := exec.Command("claude", args...)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	io.WriteString(in, `{"type":"control_request","request_id":"init-1","request":{"subtype":"initialize"}}`+"\n")
	io.WriteString(in, `{"type":"user","message":{"role":"user","content":"conform"},"parent_tool_use_id":null}`+"\n")
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var f struct {
			Type string `json:"type"`
		}
		json.Unmarshal(sc.Bytes(), &f)
		switch {
		case f.Type == "result" && mode == "-kill":
			// Killed first, then closed: the agent has no moment to
			// finish, whatever the scheduler does.
			cmd.Process.Kill()
			in.Close()
		case f.Type == "result":
			in.Close()
		case f.Type == "control_request" && mode == "-malformed":
			io.WriteString(in, `{"type":"control_response","response":`+"\n")
		default:
			reply, _ := h.Handle(sc.Bytes())
			if reply != nil {
				in.Write(append(reply, '\n'))
			}
		}
	}
	if err := cmd.Wait(); err != nil && mode != "-kill" {
		fmt.Fprintln(os.Stderr, "agent:", err)
		return 1
	}
	return 0
}

func spawnConfig(t *testing.T, behaviour string, filters ...string) runner.Config {
	t.Helper()
	cfg := testConfig(t, behaviour, filters...)
	cfg.Role = "host"
	cfg.Spawn = &runner.Spawn{Argv: []string{"/usr/bin/env", "CONFORM_FAKE_IUT=double", os.Args[0], "-test.run=^$"}, Name: "claude", Env: "CONFORM_AGENT"}
	cfg.Timeout = 10 * time.Second
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
	}{
		{"silent", "silent", false, runner.FindingIUTSilent},
		{"replies only once stdin closes", "buffered", false, runner.FindingIUTRepliesAfterStdinClosed},
		{"exits at once", "zoo-exit-at-once", false, runner.FindingIUTExitedAtStart},
		// Protocol-broken IUTs (issue 22): before, each ran every vector
		// (300 s and more for the v1 agent suite at the default timeout).
		{"every line rejected", "dupkey", false, runner.FindingIUTLinesRejected},
		{"replies never match the ids sent", "idnumber", false, runner.FindingIUTRepliesUnmatched},
		{"host probes the version only", "spawn-host-version-only", true, runner.FindingAgentNotStarted},
		{"host hangs", "spawn-host-hang", true, runner.FindingAgentNotStarted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(t, tc.behaviour)
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
