package runner_test

// The rpc suite (testdata/rpc) is a protocol the runner has never seen, in
// the shape of JSON-RPC: its envelope, tolerate rules, scripted peer,
// per-vector inputs, fixture goldens and requires are all suite data, and
// these tests check that the runner does what that data says, with a good
// server (whose output becomes the goldens) and servers that break one rule
// each.

import (
	"bufio"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/internal/suite"
	"github.com/conform-kit/conform/runner"
)

// rpcFake plays a server of the rpc suite; behaviour "rpc-good" follows
// every rule, the others break one.
func rpcFake(behaviour string) (int, bool) {
	if !strings.HasPrefix(behaviour, "rpc-") {
		return 0, false
	}
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	write := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	reply := func(id any, result any) { write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result}) }
	notify := func(method string) { write(map[string]any{"jsonrpc": "2.0", "method": method}) }
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			break
		}
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(string(line)))
		dec.UseNumber()
		if dec.Decode(&m) != nil {
			if behaviour != "rpc-silent-parse" {
				write(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": "Parse error"}})
			}
			continue
		}
		id, hasID := m["id"]
		method, _ := m["method"].(string)
		if !hasID {
			continue // a notification: no reply
		}
		switch method {
		case "initialize":
			caps := map[string]any{"echo": map[string]any{}}
			if behaviour != "rpc-no-extra" {
				caps["extra"] = map[string]any{}
			}
			reply(id, map[string]any{"capabilities": caps})
		case "echo":
			p, _ := m["params"].(map[string]any)
			reply(id, map[string]any{"text": p["text"]})
		case "chatty":
			notify("notifications/message")
			notify("notifications/message")
			reply(id, map[string]any{})
		case "progress":
			if behaviour == "rpc-late-progress" {
				reply(id, map[string]any{})
				notify("notifications/progress")
				continue
			}
			notify("notifications/progress")
			reply(id, map[string]any{})
		case "ready":
			notify("notifications/ready")
			if behaviour == "rpc-double-ready" {
				notify("notifications/ready")
			}
			reply(id, map[string]any{})
		case "ask":
			if behaviour == "rpc-ask-other" {
				write(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": "sampling/create"})
				reply(id, map[string]any{"roots": 0})
				continue
			}
			write(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": "roots/list"})
			ans, err := in.ReadBytes('\n')
			if err != nil {
				return 1, true
			}
			var a struct {
				ID     any `json:"id"`
				Result struct {
					Roots []any `json:"roots"`
				} `json:"result"`
			}
			_ = json.Unmarshal(ans, &a)
			if a.ID != "s1" {
				reply(id, map[string]any{"roots": -1})
				continue
			}
			reply(id, map[string]any{"roots": len(a.Result.Roots)})
		case "started":
			if behaviour == "rpc-quiet-started" {
				reply(id, map[string]any{})
				continue
			}
			if behaviour == "rpc-reverse" {
				reply(id, map[string]any{})
				notify("notifications/started")
				continue
			}
			notify("notifications/started")
			reply(id, map[string]any{})
		case "greet":
			var file string
			if len(os.Args) > 1 {
				b, _ := os.ReadFile(os.Args[len(os.Args)-1])
				file = string(b)
			}
			name, _ := os.ReadFile(filepath.Join("in", "name.txt"))
			reply(id, map[string]any{"text": file + " " + string(name) + os.Getenv("GREETING_SUFFIX")})
		case "hello":
			if behaviour == "rpc-misspelled" {
				reply(id, map[string]any{"helo": "world"})
				continue
			}
			reply(id, map[string]any{"hello": "world"})
		case "extra":
			reply(id, map[string]any{"extra": true})
		case "pingme":
			write(map[string]any{"jsonrpc": "2.0", "id": "p1", "method": "ping"})
			ans, err := in.ReadBytes('\n')
			if err != nil {
				return 1, true
			}
			var a struct {
				ID     any            `json:"id"`
				Result map[string]any `json:"result"`
			}
			_ = json.Unmarshal(ans, &a)
			reply(id, map[string]any{"pinged": a.ID == "p1" && a.Result != nil})
		case "page":
			p, _ := m["params"].(map[string]any)
			switch cursor, _ := p["cursor"].(string); {
			case p == nil:
				next := "c2"
				if behaviour == "rpc-cursor-moves" {
					next = "c3"
				}
				reply(id, map[string]any{"items": []any{1}, "next": next})
			case cursor == "c2" || cursor == "c3":
				reply(id, map[string]any{"items": []any{2}})
			default:
				write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32602, "message": "bad cursor"}})
			}
		default:
			write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32601, "message": "Method not found"}})
		}
	}
	if behaviour == "rpc-linger" {
		time.Sleep(time.Hour)
	}
	return 0, true
}

// rpcSuite copies testdata/rpc into a temporary directory, makes its goldens
// from the good server (golden --update) and opens it.
func rpcSuite(t *testing.T) *runner.Suite {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("testdata", "rpc")
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("fixture suite %s missing: %v", src, err)
	}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.WriteManifest(dir); err != nil {
		t.Fatal(err)
	}
	s, err := openDir(t, dir, true)
	if err != nil {
		t.Fatal(err)
	}
	up, err := runner.UpdateGolden(context.Background(), rpcConfig(t, s, "rpc-good"), dir)
	if err != nil {
		t.Fatalf("golden --update with the good server: %v", err)
	}
	if up.Fixtures != 1 || up.Written != 16 {
		t.Fatalf("golden update wrote %d golden files and kept %d fixture vectors, want 16 and 1", up.Written, up.Fixtures)
	}
	s, err = openDir(t, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// openDir opens the suite in dir through an os.Root, with its digests
// checked unless skipDigest.
func openDir(t *testing.T, dir string, skipDigest bool) (*runner.Suite, error) {
	t.Helper()
	d, err := suite.OpenDir(dir)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { d.Close() })
	return suite.Load(d, suite.Options{SkipDigest: skipDigest, Meta: conform.Meta()})
}

func rpcConfig(t *testing.T, s *runner.Suite, behaviour string) runner.Config {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return runner.Config{Suite: s, Command: []string{exe}, Env: map[string]string{"CONFORM_FAKE_IUT": behaviour},
		Timeout: 3 * time.Second, Grace: 500 * time.Millisecond, KillAfter: 500 * time.Millisecond, Jobs: 4}
}

// TestRPCSuite: the good server is certified (a SKIPPED-free full run with
// the rules of every vector holding); each broken server fails the vector
// whose rule it breaks, with the finding that names the rule, and nothing
// else.
func TestRPCSuite(t *testing.T) {
	t.Parallel()
	s := rpcSuite(t)
	type brief struct{ Status, Codes string }
	run := func(t *testing.T, behaviour string) map[string]brief {
		t.Helper()
		rep, err := runner.Run(context.Background(), rpcConfig(t, s, behaviour))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]brief{}
		for _, r := range rep.Results {
			var codes []string
			for _, f := range r.Findings {
				codes = append(codes, f.Code)
			}
			out[r.ID] = brief{string(r.Status), strings.Join(codes, " ")}
		}
		return out
	}
	good := run(t, "rpc-good")
	for id, b := range good {
		if b.Status != "PASS" {
			t.Errorf("good server: %s is %s (%s)", id, b.Status, b.Codes)
		}
	}
	if len(good) != 17 {
		t.Errorf("good server: %d results, want 17", len(good))
	}
	for _, tc := range []struct {
		behaviour, vector string
		want              brief
	}{
		{"rpc-late-progress", "progress-before-reply", brief{"FAIL", "FRAME_ORDER"}},
		{"rpc-double-ready", "at-most-once", brief{"FAIL", "FRAME_TOLERATED_TOO_MANY"}},
		// The other request pairs with the golden's (same id): its method
		// and the result that depended on the answer differ.
		{"rpc-ask-other", "peer-roots", brief{"FAIL", "REQUEST_UNANSWERED VALUE_CHANGED VALUE_CHANGED"}},
		{"rpc-silent-parse", "parse-error", brief{"TIMEOUT", "REPLY_MISSING FRAME_ABSENT"}},
		{"rpc-reverse", "order-by-match", brief{"FAIL", "REPLY_ORDER"}},
		// The notification comes after the reply: the gate opens then.
		{"rpc-reverse", "await-frame", brief{"PASS", ""}},
		// No notification: the echo is never written, so its reply is
		// not missing; the gate that never opened is, and so are the
		// golden's notification and its reply to the echo.
		{"rpc-quiet-started", "await-frame", brief{"FAIL", "AWAIT_UNMET FRAME_ABSENT FRAME_ABSENT"}},
		// "helo" is an undeclared member of an open result (allowed, so a
		// PARITY_DIFFERS note); "hello" missing fails.
		{"rpc-misspelled", "fixture-golden", brief{"FAIL", "MEMBER_ABSENT PARITY_DIFFERS"}},
		{"rpc-no-extra", "requires-extra", brief{"SKIPPED", "REQUIREMENT_UNMET"}},
		{"rpc-linger", "exit-after-input", brief{"FAIL", "EXIT_AFTER_INPUT_MISSING"}},
		{"rpc-linger", "keeps-running", brief{"PASS", ""}},
		{"rpc-linger", "echo", brief{"PASS", "IUT_LINGERED"}},
		// The second page is asked for with whatever cursor the first
		// reply gave (bind): another cursor shows only in the first reply.
		{"rpc-cursor-moves", "paginate", brief{"FAIL", "VALUE_CHANGED"}},
	} {
		t.Run(tc.behaviour+"/"+tc.vector, func(t *testing.T) {
			t.Parallel()
			got := run(t, tc.behaviour)
			if diff := cmp.Diff(tc.want, got[tc.vector]); diff != "" {
				t.Errorf("%s on %s (-want +got):\n%s", tc.behaviour, tc.vector, diff)
			}
		})
	}
}

// TestRPCNothingComparedIsNotExactParity: a vector whose summary holds no
// frame and no exit class is ParityEmpty, not counted as exact parity.
func TestRPCNothingComparedIsNotExactParity(t *testing.T) {
	t.Parallel()
	s := rpcSuite(t)
	cfg := rpcConfig(t, s, "rpc-good")
	cfg.Filters = []string{"notify-only", "echo"}
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Summary; c.ParityEmpty != 1 || c.ParityExact != 1 {
		t.Errorf("parity exact %d, empty %d; want 1 and 1", c.ParityExact, c.ParityEmpty)
	}
}

// TestRPCParityCountsComparedRows: the gate's count of required and
// recommended rows holds only the rows some implementation ran. A row every
// implementation SKIPPED compares nothing: it is Uncompared, and does not
// fail the gate; a row that one implementation ran and another skipped is
// compared (and disagrees).
func TestRPCParityCountsComparedRows(t *testing.T) {
	t.Parallel()
	s := rpcSuite(t)
	type counts struct {
		Passed                             bool
		Gated, Disagree, Uncompared        int
		RowUncompared, RowAgree, RowFailed bool
	}
	for _, tc := range []struct {
		name  string
		other string
		want  counts
		line  string
	}{
		{"skipped by all", "rpc-no-extra", counts{Passed: true, Gated: 1, Uncompared: 1, RowUncompared: true, RowAgree: true},
			"PARITY: 2 implementations wrote the golden bytes on all 1 required and recommended vectors; 1 more skipped or not run by every implementation (nothing compared)"},
		{"skipped by one", "rpc-good", counts{Gated: 2, Disagree: 1, RowFailed: true},
			"NO PARITY: on 1 of 2 required and recommended vectors the implementations do not all write the golden bytes (rows with more than one group above)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := rpcConfig(t, s, "rpc-no-extra")
			base.Filters = []string{"echo", "requires-extra"}
			other := rpcConfig(t, s, tc.other)
			pr, err := runner.Parity(context.Background(), base, []runner.Target{{Name: "a", Config: base}, {Name: "b", Config: other}})
			if err != nil {
				t.Fatal(err)
			}
			got := counts{Passed: pr.Passed, Gated: pr.Gated, Disagree: pr.Disagree, Uncompared: pr.Uncompared}
			for _, v := range pr.Vectors {
				if v.ID == "requires-extra" {
					got.RowUncompared, got.RowAgree, got.RowFailed = v.Uncompared, v.Agree, v.Failed
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parity counts (-want +got):\n%s", diff)
			}
			var b strings.Builder
			if err := report.ParityText(&b, pr); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			if last := lines[len(lines)-1]; last != tc.line {
				t.Errorf("gate line\n got %q\nwant %q", last, tc.line)
			}
		})
	}
}
