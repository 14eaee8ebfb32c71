package runner_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/runner"
)

// The acceptance fakes of issue "Verdicts that hold for implementations we
// did not write": each plays the reference (agent or host, v1 or v2) and
// changes what it writes in one way. Those the protocol allows must pass
// conformance (and still be listed as exact-parity differences); the real
// faults must fail. Each fake is selected by CONFORM_FAKE_IUT=accept-<name>.

// mutation rewrites one decoded reply frame (and may drop it: nil) or, for
// raw faults, returns the exact line to write.
type mutation struct {
	// frame rewrites a reply; the request it answers is given (nil if none).
	frame func(reply, request map[string]any) map[string]any
	// line, when set, replaces the encoding of the rewritten frame.
	line func(reply map[string]any) string
	// reader64k reads stdin the way a default bufio.Scanner does: a line
	// over 64 KiB ends the read loop.
	reader64k bool
	// atEnd rewrites the replies written at end of input (v2 cancellations).
	atEnd func(lines [][]byte) [][]byte
	// batch rewrites the replies one input line produced.
	batch func(lines [][]byte) [][]byte
	// lag holds the replies to each input line back until the next line
	// arrives, and drops them when input ends: a host that needs more input
	// to answer.
	lag bool
}

func inner(reply map[string]any) map[string]any {
	resp, _ := reply["response"].(map[string]any)
	return resp
}

func body(reply map[string]any) map[string]any {
	b, _ := inner(reply)["response"].(map[string]any)
	return b
}

func requestBody(req map[string]any) map[string]any {
	b, _ := req["request"].(map[string]any)
	return b
}

var mutations = map[string]mutation{
	// Allowed by the protocol.
	"drop-pending": {frame: func(r, _ map[string]any) map[string]any {
		delete(inner(r), "pending_permission_requests")
		delete(inner(r), "pending_user_dialog_requests")
		return r
	}},
	"drop-oldest-sdk": {frame: func(r, _ map[string]any) map[string]any {
		delete(body(r), "oldestDesktopSdk")
		return r
	}},
	"reword-errors": {frame: func(r, _ map[string]any) map[string]any {
		if msg, ok := inner(r)["error"].(string); ok {
			inner(r)["error"] = "callback not found: " + strings.ToUpper(msg)
		}
		return r
	}},
	"prefix-errors": {frame: func(r, _ map[string]any) map[string]any {
		if msg, ok := inner(r)["error"].(string); ok {
			inner(r)["error"] = "error: " + msg
		}
		return r
	}},
	// verbatim-errors echoes the name or subtype as received, without the
	// reference's cleaning (COMPATIBILITY.md decision 12).
	"verbatim-errors": {frame: func(r, req map[string]any) map[string]any {
		if _, ok := inner(r)["error"].(string); ok {
			rb := requestBody(req)
			if name, ok := rb["serverName"].(string); ok {
				inner(r)["error"] = "no MCP server named " + name
			} else if st, ok := rb["subtype"].(string); ok {
				inner(r)["error"] = "cannot handle " + st
			}
		}
		return r
	}},
	"lag-replies": {lag: true},
	"terse-errors": {frame: func(r, _ map[string]any) map[string]any {
		if _, ok := inner(r)["error"].(string); ok {
			inner(r)["error"] = "x"
			delete(inner(r), "error_code")
		}
		return r
	}},
	"add-tool-use-id": {frame: func(r, req map[string]any) map[string]any {
		if b := body(r); b != nil && b["behavior"] != nil {
			if id, ok := requestBody(req)["tool_use_id"].(string); ok {
				b["toolUseID"] = id
			}
		}
		return r
	}},
	// Real faults.
	"silent-unknown": {frame: func(r, _ map[string]any) map[string]any {
		if msg, _ := inner(r)["error"].(string); strings.HasPrefix(msg, "Unsupported control request subtype") {
			return nil
		}
		return r
	}},
	"duplicate-key": {line: func(r map[string]any) string {
		b, _ := json.Marshal(r)
		return strings.Replace(string(b), `"type":"control_response"`, `"type":"control_response","type":"control_response"`, 1)
	}},
	"drop-required": {frame: func(r, _ map[string]any) map[string]any {
		delete(body(r), "version")
		return r
	}},
	"wrong-type": {frame: func(r, _ map[string]any) map[string]any {
		if b := body(r); b != nil && b["still_queued"] != nil {
			b["still_queued"] = "none"
		}
		return r
	}},
	"reader-64k": {reader64k: true},
	"allow-no-input": {frame: func(r, _ map[string]any) map[string]any {
		if b := body(r); b != nil && b["behavior"] == "allow" {
			delete(b, "updatedInput")
		}
		return r
	}},
	"change-session-id": {frame: func(r, _ map[string]any) map[string]any {
		if in, ok := body(r)["updatedInput"].(map[string]any); ok {
			if _, ok := in["session_id"]; ok {
				in["session_id"] = "6fa459ea-ee8a-3ca4-894e-db77e160355e"
			}
		}
		return r
	}},
	"deny-after-cancel": {}, // handled in acceptHost: denies a deferred request when it is cancelled
	"mcp-empty-input": {frame: func(r, req map[string]any) map[string]any {
		if name, _ := requestBody(req)["tool_name"].(string); strings.HasPrefix(name, "mcp__") && body(r)["behavior"] == "allow" {
			body(r)["updatedInput"] = map[string]any{}
		}
		return r
	}},
	"drop-empty-input": {frame: func(r, _ map[string]any) map[string]any {
		if in, ok := body(r)["updatedInput"].(map[string]any); ok && len(in) == 0 {
			delete(body(r), "updatedInput")
		}
		return r
	}},
	"cancel-newest-first": {atEnd: func(lines [][]byte) [][]byte {
		slices.Reverse(lines)
		return lines
	}},
	// Issue 22's coverage holes: both were certified in every role and
	// version they apply to before a vector sent such an id or echoed
	// such an input.
	"digit-id-as-number": {frame: func(r, _ map[string]any) map[string]any {
		if id, ok := inner(r)["request_id"].(string); ok {
			if n, err := strconv.Atoi(id); err == nil && strings.Trim(id, "0123456789") == "" {
				inner(r)["request_id"] = n
			}
		}
		return r
	}},
	"rewrite-uuid-input": {frame: func(r, _ map[string]any) map[string]any {
		if in, ok := body(r)["updatedInput"].(map[string]any); ok {
			body(r)["updatedInput"] = rewriteUUIDs(in)
		}
		return r
	}},
	"release-before-hold": {batch: func(lines [][]byte) [][]byte {
		slices.Reverse(lines)
		return lines
	}},
}

// uuidRE matches a UUID in its canonical text form.
var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// rewriteUUIDs replaces every string that is a UUID, at any depth, by
// another UUID, as a host that regenerates ids it takes for its own does.
func rewriteUUIDs(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = rewriteUUIDs(e)
		}
	case []any:
		for i, e := range x {
			x[i] = rewriteUUIDs(e)
		}
	case string:
		if uuidRE.MatchString(x) {
			return "00000000-0000-4000-8000-000000000000"
		}
	}
	return v
}

// handler is one of the reference implementations, as a line handler.
type handler struct {
	handle func(line []byte) ([][]byte, error)
	end    func() [][]byte
}

func referenceHandler() (handler, error) {
	role, version := os.Getenv("CONFORM_ROLE"), os.Getenv("CONFORM_PROTOCOL_VERSION")
	policy := []byte(os.Getenv("CONFORM_POLICY"))
	switch {
	case role == "host" && version == "2":
		h, err := reference.NewHostV2(policy)
		if err != nil {
			return handler{}, err
		}
		return handler{handle: func(l []byte) ([][]byte, error) { return h.Handle(l), nil }, end: h.End}, nil
	case role == "host":
		h, err := reference.NewHost(policy)
		if err != nil {
			return handler{}, err
		}
		return handler{handle: one(h.Handle), end: func() [][]byte { return nil }}, nil
	case version == "2":
		a := reference.NewAgentV2()
		return handler{handle: a.Handle, end: a.End}, nil
	}
	a := reference.NewAgent()
	return handler{handle: one(a.Handle), end: func() [][]byte { return nil }}, nil
}

func one(f func([]byte) ([]byte, error)) func([]byte) ([][]byte, error) {
	return func(l []byte) ([][]byte, error) {
		b, err := f(l)
		if b == nil {
			return nil, err
		}
		return [][]byte{b}, err
	}
}

// acceptFake plays the reference with mutation name applied.
func acceptFake(name string) int {
	m, ok := mutations[name]
	if !ok {
		os.Stderr.WriteString("unknown acceptance fake " + name + "\n")
		return 2
	}
	h, err := referenceHandler()
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	requests := map[string]map[string]any{}
	deferred := map[string]bool{}
	var held [][]byte // lag: the replies not written yet
	write := func(lines [][]byte) {
		for _, l := range lines {
			var reply map[string]any
			dec := json.NewDecoder(bytes.NewReader(l))
			dec.UseNumber()
			if dec.Decode(&reply) != nil || (m.frame == nil && m.line == nil) {
				out.Write(append(l, '\n'))
				continue
			}
			id, _ := json.Marshal(inner(reply)["request_id"])
			if m.frame != nil {
				if reply = m.frame(reply, requests[string(id)]); reply == nil {
					continue
				}
			}
			var b []byte
			if m.line != nil {
				b = []byte(m.line(reply))
			} else {
				b, _ = json.Marshal(reply)
			}
			out.Write(append(b, '\n'))
		}
		out.Flush()
	}
	lines := func(yield func([]byte) bool) {
		if m.reader64k {
			sc := bufio.NewScanner(os.Stdin) // 64 KiB lines at most, as by default
			for sc.Scan() {
				if !yield(sc.Bytes()) {
					return
				}
			}
			return
		}
		in := bufio.NewReader(os.Stdin)
		for {
			l, err := in.ReadBytes('\n')
			if len(l) > 0 && !yield(l) {
				return
			}
			if err != nil {
				return
			}
		}
	}
	for l := range lines {
		var frame map[string]any
		dec := json.NewDecoder(bytes.NewReader(l))
		dec.UseNumber()
		if dec.Decode(&frame) == nil {
			id, _ := json.Marshal(frame["request_id"])
			switch frame["type"] {
			case "control_request":
				requests[string(id)] = frame
			case "control_cancel_request":
				if name == "deny-after-cancel" && deferred[string(id)] {
					write([][]byte{[]byte(`{"type":"control_response","response":{"subtype":"success","request_id":` + string(id) + `,"response":{"behavior":"deny","message":"cancelled"}}}`)})
				}
			}
		}
		replies, err := h.handle(l)
		if err != nil {
			return 1
		}
		if frame["type"] == "control_request" && len(replies) == 0 {
			id, _ := json.Marshal(frame["request_id"])
			deferred[string(id)] = true
		}
		if m.batch != nil && len(replies) > 1 {
			replies = m.batch(replies)
		}
		if m.lag {
			replies, held = held, replies
		}
		write(replies)
	}
	end := h.end()
	if m.atEnd != nil {
		end = m.atEnd(end)
	}
	write(end)
	return 0
}

// acceptConfig runs the acceptance fake name against role and version.
func acceptConfig(t *testing.T, name, role string, version int, filters ...string) runner.Config {
	t.Helper()
	cfg := testConfig(t, "accept-"+name, filters...)
	cfg.Role, cfg.Version = role, version
	cfg.Timeout = 5 * time.Second
	return cfg
}

// TestAcceptance proves, vector by vector, that the differences the protocol
// allows pass conformance (while exact parity lists them) and that every
// real fault fails.
func TestAcceptance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fake    string
		role    string
		version int
		vectors []string
		// pass: conformance passes and exact parity differs; otherwise the
		// vectors must fail with finding.
		pass    bool
		finding string
	}{
		{"drop-pending", "agent", 1, []string{"initialize-minimal", "initialize-hooks-empty", "large-frame-initialize"}, true, ""},
		{"drop-oldest-sdk", "agent", 1, []string{"get-binary-version", "pipelined-out-of-order"}, true, ""},
		{"reword-errors", "agent", 1, []string{"unknown-subtype", "set-permission-mode-invalid"}, true, ""},
		{"terse-errors", "agent", 1, []string{"unknown-subtype", "set-permission-mode-invalid"}, true, ""},
		{"prefix-errors", "agent", 1, []string{"canon-echo-server-name", "canon-echo-subtype", "canon-echo-toggle-name"}, true, ""},
		{"verbatim-errors", "agent", 1, []string{"canon-echo-server-name", "canon-echo-subtype", "canon-echo-toggle-name"}, true, ""},
		{"add-tool-use-id", "host", 1, []string{"host-can-use-tool-allow-echo", "host-can-use-tool-deny-message", "host-ask-single-select"}, true, ""},
		{"reword-errors", "host", 1, []string{"host-hook-unregistered", "host-unknown-subtype"}, true, ""},

		{"allow-no-input", "host", 1, []string{"host-can-use-tool-allow-echo", "host-can-use-tool-allow-empty-input"}, false, runner.FindingReplyBodySchema},
		{"silent-unknown", "agent", 1, []string{"unknown-subtype"}, false, runner.FindingReplyMissing},
		{"terse-errors", "agent", 1, []string{"canon-echo-server-name", "canon-echo-subtype", "canon-echo-toggle-name"}, false, runner.FindingTextMismatch},
		{"duplicate-key", "agent", 1, []string{"interrupt-idle"}, false, runner.FindingFrameDuplicateKey},
		{"change-session-id", "host", 1, []string{"host-can-use-tool-echo-session-id"}, false, runner.FindingValueChanged},
		{"drop-required", "agent", 1, []string{"get-binary-version"}, false, runner.FindingReplyBodySchema},
		{"wrong-type", "agent", 1, []string{"interrupt-idle"}, false, runner.FindingReplyBodySchema},
		{"reader-64k", "agent", 1, []string{"large-frame-initialize"}, false, runner.FindingExitEarly},
		{"reader-64k", "host", 1, []string{"host-large-frame-echo"}, false, runner.FindingExitEarly},
		{"deny-after-cancel", "host", 1, []string{"host-cancel-pending"}, false, runner.FindingFrameAdded},
		{"digit-id-as-number", "agent", 1, []string{"request-id-digit-string"}, false, runner.FindingReplyUnsolicited},
		{"digit-id-as-number", "agent", 2, []string{"v2-request-id-digit-string"}, false, runner.FindingReplyUnsolicited},
		{"digit-id-as-number", "host", 1, []string{"host-request-id-digit-string"}, false, runner.FindingReplyUnsolicited},
		{"digit-id-as-number", "host", 2, []string{"v2-host-request-id-digit-string"}, false, runner.FindingReplyUnsolicited},
		{"rewrite-uuid-input", "host", 2, []string{"v2-host-can-use-tool-echo-uuid"}, false, runner.FindingValueChanged},
		{"mcp-empty-input", "host", 2, []string{"v2-host-can-use-tool-mcp-tool"}, false, runner.FindingMemberAbsent},
		{"drop-empty-input", "host", 2, []string{"v2-host-can-use-tool-allow-empty-input"}, false, runner.FindingReplyBodySchema},
		{"cancel-newest-first", "host", 2, []string{"v2-host-pending-at-end-oldest-first"}, false, runner.FindingReplyOrder},
		{"cancel-newest-first", "agent", 2, []string{"v2-pending-at-end-oldest-first"}, false, runner.FindingReplyOrder},
		{"release-before-hold", "agent", 2, []string{"v2-release-hold"}, false, runner.FindingReplyOrder},
	}
	for _, tc := range tests {
		t.Run(tc.fake+"/"+tc.role+"/v"+string(rune('0'+tc.version)), func(t *testing.T) {
			t.Parallel()
			cfg := acceptConfig(t, tc.fake, tc.role, tc.version, tc.vectors...)
			rep, err := runner.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			// What merge re-checks holds for every report a run makes,
			// allowed differences included.
			if err := runner.CheckReport(cfg.Suite, rep); err != nil {
				t.Errorf("CheckReport: %v", err)
			}
			for _, r := range rep.Results {
				switch {
				case tc.pass && (r.Status != runner.Pass || r.Parity != runner.ParityDiffers):
					t.Errorf("%s: %s, parity %q; want PASS with exact parity differing\n%v\n%v", r.ID, r.Status, r.Parity, r.Findings, r.Differences)
				case tc.pass:
					if !slices.Contains(findingCodes(r), runner.FindingParityDiffers) {
						t.Errorf("%s: the allowed difference is not listed: %v", r.ID, r.Findings)
					}
				case r.Status == runner.Pass || !r.Failed():
					t.Errorf("%s: %s; the fault must fail", r.ID, r.Status)
				case !slices.Contains(findingCodes(r), tc.finding):
					t.Errorf("%s: findings %v lack %s", r.ID, findingCodes(r), tc.finding)
				}
			}
			wantExit := 1
			if tc.pass {
				wantExit = 0
			}
			if rep.ExitCode() != wantExit {
				t.Errorf("exit %d, want %d (%s)", rep.ExitCode(), wantExit, rep.Verdict)
			}
		})
	}
}

// TestAwaitHoldsInputBack: host-cancel-after-reply writes its cancel only
// after the reply to req-1 (an await send item). A host that answers a
// request only when the next line arrives therefore never gets that line:
// AWAIT_UNMET, and sync is never sent (without the wait, the cancel line
// would have released the reply to req-1 after the cancel).
func TestAwaitHoldsInputBack(t *testing.T) {
	t.Parallel()
	cfg := acceptConfig(t, "lag-replies", "host", 1, "host-cancel-after-reply")
	cfg.Timeout = 2 * time.Second
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if r.Status == runner.Pass || !slices.Contains(findingCodes(r), runner.FindingAwaitUnmet) || !slices.Contains(findingCodes(r), runner.FindingReplyMissing) {
		t.Errorf("%s: %s %v; want AWAIT_UNMET and REPLY_MISSING", r.ID, r.Status, findingCodes(r))
	}
}

// TestExactParityDecides: with Config.Exact an allowed difference fails its
// vector, as the ports' gates require.
func TestExactParityDecides(t *testing.T) {
	t.Parallel()
	cfg := acceptConfig(t, "drop-pending", "agent", 1, "initialize-minimal", "interrupt-idle")
	cfg.Exact = true
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(rep)
	if got["initialize-minimal"] != runner.Fail || got["interrupt-idle"] != runner.Pass {
		t.Errorf("statuses %v, want initialize-minimal FAIL (exact parity) and interrupt-idle PASS", got)
	}
	for _, r := range rep.Results {
		if r.ID == "initialize-minimal" && !slices.Contains(findingCodes(r), runner.FindingGoldenMismatch) {
			t.Errorf("findings %v lack GOLDEN_MISMATCH", findingCodes(r))
		}
	}
}

// TestNoFalseCertificate: expected-failure lists keep CI green but never
// make a certificate, and a run where nothing required passed is never a
// pass.
func TestNoFalseCertificate(t *testing.T) {
	t.Parallel()
	s := testConfig(t, "reference").Suite
	ver, err := s.Version(1)
	if err != nil {
		t.Fatal(err)
	}
	all, _, err := s.VectorIndex(ver, "agent")
	if err != nil {
		t.Fatal(err)
	}
	excuseAll := map[string]string{}
	for _, v := range all {
		if v.Level != "informational" {
			excuseAll[v.ID] = "exits at once"
		}
	}
	t.Run("every required vector excused", func(t *testing.T) {
		t.Parallel()
		cfg := testConfig(t, "zoo-exit-at-once")
		cfg.ExpectFail = excuseAll
		cfg.NoFailFast = true
		rep, err := runner.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verdict != runner.VerdictNothingPassed || rep.ExitCode() != 1 {
			t.Errorf("verdict %s exit %d, want %s exit 1", rep.Verdict, rep.ExitCode(), runner.VerdictNothingPassed)
		}
		if rep.Summary.Excused() != len(excuseAll) {
			t.Errorf("excused %d, want %d", rep.Summary.Excused(), len(excuseAll))
		}
	})
	t.Run("every required vector excused, fail fast", func(t *testing.T) {
		t.Parallel()
		cfg := testConfig(t, "zoo-exit-at-once")
		cfg.ExpectFail = excuseAll
		rep, err := runner.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verdict != runner.VerdictNotCertified || rep.ExitCode() != 1 || rep.Preflight == nil {
			t.Errorf("verdict %s exit %d preflight %v, want %s exit 1 with the fail-fast cause", rep.Verdict, rep.ExitCode(), rep.Preflight != nil, runner.VerdictNotCertified)
		}
	})
	t.Run("one required vector excused", func(t *testing.T) {
		t.Parallel()
		cfg := testConfig(t, "reference")
		cfg.ExpectFail = map[string]string{"interrupt-idle": "known bug"}
		cfg.Env["CONFORM_FAKE_IUT"] = "wrong"
		rep, err := runner.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verdict == runner.VerdictCertified {
			t.Errorf("an expected-failure list that excuses a required vector certified: %s", rep.Verdict)
		}
	})
	t.Run("informational only", func(t *testing.T) {
		t.Parallel()
		rep, err := runner.Run(context.Background(), testConfig(t, "zoo-exit-at-once", "canon-request-id-*"))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verdict != runner.VerdictNothingPassed || rep.ExitCode() != 1 {
			t.Errorf("verdict %s exit %d, want %s exit 1", rep.Verdict, rep.ExitCode(), runner.VerdictNothingPassed)
		}
	})
	t.Run("parity with an excused implementation", func(t *testing.T) {
		t.Parallel()
		base := testConfig(t, "reference", "interrupt-idle", "get-binary-version")
		silent := testConfig(t, "zoo-exit-at-once")
		silent.ExpectFail = map[string]string{"interrupt-idle": "x", "get-binary-version": "x"}
		pr, err := runner.Parity(context.Background(), base, []runner.Target{{Name: "ref", Config: base}, {Name: "silent", Config: silent}})
		if err != nil {
			t.Fatal(err)
		}
		if pr.Passed || pr.Disagree != 2 {
			t.Errorf("parity passed=%v disagree=%d, want a failed gate on both rows", pr.Passed, pr.Disagree)
		}
	})
}
