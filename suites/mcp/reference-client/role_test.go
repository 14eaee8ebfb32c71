package main

// The client role of suites/mcp, run by the runner against this client: the
// test binary re-executes itself as the IUT (CONFORM_MCP_TEST_CLIENT names
// the behaviour), the reference as it is ("good") or with one rule broken,
// and each broken client must fail the vector whose rule it breaks.

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/suite"
	"github.com/conform-kit/conform/runner"
)

const behaviourEnv = "CONFORM_MCP_TEST_CLIENT"

func TestMain(m *testing.M) {
	if b := os.Getenv(behaviourEnv); b != "" {
		os.Exit(playClient(b))
	}
	os.Exit(m.Run())
}

// playClient runs the reference client on this process's stdio with the
// behaviour's fault: its output lines pass through a rewrite, and "exit-1"
// ends a session that went well with status 1.
func playClient(behaviour string) int {
	out := &rewriter{w: os.Stdout, behaviour: behaviour}
	code := run(os.Args[1:], os.Stdin, out, os.Stderr)
	if behaviour == "exit-1" && code == 0 {
		return 1
	}
	return code
}

// rewriter writes the client's lines, each as the behaviour has it:
// "list-before-initialized" holds notifications/initialized back until the
// next line (the tools/list request) is written; "no-initialized" drops it;
// "no-ping-reply" drops the answers to the server's pings; "old-version"
// offers 2025-06-18 in initialize.
type rewriter struct {
	w         io.Writer
	behaviour string
	buf       []byte
	held      []byte
}

func (r *rewriter) Write(p []byte) (int, error) {
	r.buf = append(r.buf, p...)
	for {
		i := bytes.IndexByte(r.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := append([]byte(nil), r.buf[:i+1]...)
		r.buf = r.buf[i+1:]
		if err := r.line(line); err != nil {
			return 0, err
		}
	}
}

func (r *rewriter) line(l []byte) error {
	initialized := bytes.Contains(l, []byte(`"method":"notifications/initialized"`))
	switch {
	case r.behaviour == "list-before-initialized" && initialized:
		r.held = l
		return nil
	case r.behaviour == "no-initialized" && initialized:
		return nil
	case r.behaviour == "no-ping-reply" && bytes.Contains(l, []byte(`"id":"conform-ping-`)):
		return nil
	case r.behaviour == "old-version":
		l = bytes.Replace(l, []byte(`"protocolVersion":"2025-11-25"`), []byte(`"protocolVersion":"2025-06-18"`), 1)
	}
	if _, err := r.w.Write(l); err != nil {
		return err
	}
	if r.held != nil {
		h := r.held
		r.held = nil
		_, err := r.w.Write(h)
		return err
	}
	return nil
}

// mcpSuite opens suites/mcp (this package's parent folder) with its digests
// checked.
func mcpSuite(t *testing.T) *runner.Suite {
	t.Helper()
	if _, err := os.Stat("../suite.json"); err != nil {
		t.Fatalf("suites/mcp not found above this package: %v", err)
	}
	d, err := suite.OpenDir("..")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	s, err := suite.Load(d, suite.Options{Meta: conform.Meta()})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func clientRun(t *testing.T, s *runner.Suite, behaviour string, filters ...string) *runner.Report {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runner.Run(context.Background(), runner.Config{
		Suite: s, Version: 1, Role: "client", Command: []string{exe}, Filters: filters,
		// The client role's tools class has nothing to derive it from
		// (no preflight): the reference client claims it.
		Claims:  []string{"core", "tools"},
		Env:     map[string]string{behaviourEnv: behaviour},
		Timeout: 10 * time.Second, Grace: 2 * time.Second, KillAfter: time.Second, Jobs: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestClientRole: the reference client passes every client vector, each
// byte for byte with its golden (the goldens are its own).
func TestClientRole(t *testing.T) {
	t.Parallel()
	rep := clientRun(t, mcpSuite(t), "good")
	if len(rep.Results) < 20 {
		t.Fatalf("%d client vectors ran, want at least 20", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Status != runner.Pass {
			t.Errorf("%s: %s %v", r.ID, r.Status, r.Findings)
		}
	}
	if c := rep.Summary; c.ParityExact != len(rep.Results) {
		t.Errorf("exact parity on %d of %d vectors, want all", c.ParityExact, len(rep.Results))
	}
}

// TestBrokenClients: a client that breaks one rule fails the vector about
// it, with the finding that names the rule.
func TestBrokenClients(t *testing.T) {
	t.Parallel()
	s := mcpSuite(t)
	type brief struct{ Status, Codes string }
	for _, tc := range []struct {
		behaviour, vector string
		want              brief
	}{
		// The golden holds the same frames; the order is the point.
		{"list-before-initialized", "client-lifecycle-initialize", brief{"FAIL", "REPLY_ORDER"}},
		{"list-before-initialized", "client-lifecycle-initialized-first", brief{"FAIL", "REPLY_ORDER"}},
		{"no-initialized", "client-lifecycle-initialize", brief{"FAIL", "FRAME_ABSENT"}},
		{"no-ping-reply", "client-ping-from-server", brief{"FAIL", "FRAME_ABSENT"}},
		{"no-ping-reply", "client-ping-before-initialize", brief{"FAIL", "FRAME_ABSENT"}},
		{"old-version", "client-lifecycle-initialize", brief{"FAIL", "VALUE_CHANGED"}},
		{"exit-1", "client-tools-call", brief{"FAIL", "EXIT_CHANGED"}},
		// After stdin closes, a nonzero exit is a crash.
		{"exit-1", "client-lifecycle-server-closes", brief{"CRASH", "EXIT_NONZERO"}},
	} {
		t.Run(tc.behaviour+"/"+tc.vector, func(t *testing.T) {
			t.Parallel()
			rep := clientRun(t, s, tc.behaviour, tc.vector)
			if len(rep.Results) != 1 {
				t.Fatalf("%d results, want 1", len(rep.Results))
			}
			r := rep.Results[0]
			var codes []string
			for _, f := range r.Findings {
				codes = append(codes, f.Code)
			}
			if diff := cmp.Diff(tc.want, brief{string(r.Status), strings.Join(codes, " ")}); diff != "" {
				t.Errorf("%s on %s (-want +got):\n%s", tc.behaviour, tc.vector, diff)
			}
		})
	}
}
