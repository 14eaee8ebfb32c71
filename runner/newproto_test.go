package runner_test

// What a new protocol's authors missed (issue 32 item 5): bind from any
// frame the IUT wrote, a scripted reply held until a named send item, and
// consistency rules over two frames.

import (
	"context"
	"strings"
	"testing"

	"github.com/conform-kit/conform/runner"
)

// rpcSuiteWith is the rpc suite (testdata/rpc) with vectors added (file
// name to content, under vectors/v1/server), its goldens made by the good
// server.
func rpcSuiteWith(t *testing.T, vectors map[string]string) *runner.Suite {
	t.Helper()
	dir := fixtureDir(t, "rpc", func(dir string) {
		for name, v := range vectors {
			addVector(t, dir, name, v)
		}
	})
	s, _ := goldenSuite(t, dir, func(s *runner.Suite) runner.Config { return rpcConfig(t, s, "rpc-good") })
	return s
}

const (
	// bindRequest answers the IUT's own request with a send frame whose id
	// is bound from that request (no scripted peer): the fake answers
	// roots 2 only to a reply that carries its id "s1".
	bindRequest = `{"id": "bind-request", "version": 1, "kind": "session", "level": "required", "role": "server", "description": "bind from a request of the IUT", "source": "test",
 "send": [{"frame": {"id": 7, "method": "ask"}},
          {"await": {"match": [{"path": "/method", "equals": "roots/list"}]}},
          {"frame": {"jsonrpc": "2.0", "id": "unbound", "result": {"roots": [1, 2]}},
           "bind": [{"at": "/id", "match": [{"path": "/method", "equals": "roots/list"}], "path": "/id"}]}],
 "tolerate": [{"when": [{"path": "/method", "equals": "roots/list"}], "reason": "answered by the bound send frame"}],
 "expect": {"replies": [7]}}
`
	// peerAfter holds the scripted answer to the IUT's request until the
	// runner's echo (named "mine") was written.
	peerAfter = `{"id": "peer-after", "version": 1, "kind": "session", "level": "required", "role": "server", "description": "a scripted reply after the runner's own frame", "source": "test",
 "send": [{"frame": {"id": 7, "method": "ask-order"}},
          {"await": {"match": [{"path": "/method", "equals": "roots/list"}]}},
          {"name": "mine", "frame": {"id": 8, "method": "echo", "params": {"text": "mine"}}}],
 "peer": [{"match": [{"path": "/method", "equals": "roots/list"}], "reply": {"jsonrpc": "2.0", "result": {"roots": []}}, "after": "mine", "reason": "test"}],
 "expect": {"replies": [7, 8]}}
`
	// sessionConsistent: the session id the IUT announced in its reply is
	// the one its later notification carries.
	sessionConsistent = `{"id": "session-consistent", "version": 1, "kind": "session", "level": "required", "role": "server", "description": "a session id is used as announced", "source": "test",
 "send": [{"frame": {"id": 1, "method": "session"}}, {"await": 1}, {"frame": {"id": 2, "method": "use"}}],
 "expect": {"replies": [1, 2], "consistent": [{"first": {"match": [{"path": "/id", "equals": 1}], "path": "/result/sessionId"},
   "then": {"match": [{"path": "/method", "equals": "notifications/used"}], "path": "/params/sessionId"}, "reason": "the session the IUT announced"}]}}
`
)

func TestBindMatchPeerAfterConsistent(t *testing.T) {
	t.Parallel()
	s := rpcSuiteWith(t, map[string]string{"bind-request.json": bindRequest, "peer-after.json": peerAfter, "session-consistent.json": sessionConsistent})
	run := func(behaviour string) map[string]runner.Result {
		cfg := rpcConfig(t, s, behaviour)
		cfg.Filters, cfg.NoFailFast = []string{"bind-request", "peer-after", "session-consistent"}, true
		rep, err := runner.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]runner.Result{}
		for _, r := range rep.Results {
			out[r.ID] = r
		}
		return out
	}
	good := run("rpc-good")
	for id, r := range good {
		if r.Status != runner.Pass || len(r.Findings) > 0 {
			t.Errorf("good server: %s: %s %v", id, r.Status, r.Findings)
		}
	}
	// The goldens hold what the bindings and the held reply made the good
	// server answer: roots 2 (the bound id was its own), runnerFirst true.
	for id, want := range map[string]string{"bind-request": `"roots":2`, "peer-after": `"runnerFirst":true`} {
		g, err := s.ReadGolden(&s.Manifest.Versions[0], "server", id)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(g), want) {
			t.Errorf("golden of %s lacks %s: %s", id, want, g)
		}
	}
	drift := run("rpc-session-drift")["session-consistent"]
	f, ok := finding(drift, runner.FindingValueInconsistent)
	if !ok || drift.Status != runner.Fail {
		t.Fatalf("drifting session id: %s %v, want FAIL with VALUE_INCONSISTENT", drift.Status, drift.Findings)
	}
	if want := `the IUT wrote "s-2" at /params/sessionId of a later frame, but "s-1" at /result/sessionId of the first frame matching [{"equals":1,"path":"/id"}] (the session the IUT announced)`; !strings.HasPrefix(f.Message, want) {
		t.Errorf("message %q\nwant prefix %q", f.Message, want)
	}
}
