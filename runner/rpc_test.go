package runner_test

// The rpc suite (testdata/rpc) is a protocol the runner has never seen, in
// the shape of JSON-RPC: its envelope, tolerate rules, scripted peer,
// per-vector inputs, fixture goldens and requires are all suite data, and
// these tests check that the runner does what that data says, with a good
// server (whose output becomes the goldens) and servers that break one rule
// each.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/internal/suite"
	"github.com/conform-kit/conform/runner"
)

// rpcSuite copies testdata/rpc into a temporary directory, makes its goldens
// from the good server (golden --update) and opens it.
func rpcSuite(t *testing.T) *runner.Suite {
	t.Helper()
	s, up := goldenSuite(t, fixtureDir(t, "rpc", nil), func(s *runner.Suite) runner.Config { return rpcConfig(t, s, "rpc-good") })
	if up.Fixtures != 1 || up.Written != 17 {
		t.Fatalf("golden update wrote %d golden files and kept %d fixture vectors, want 17 and 1", up.Written, up.Fixtures)
	}
	return s
}

// fixtureDir copies the fixture suite testdata/<name> into a temporary
// directory, lets edit change the copy (nil: none), seals its manifest
// and returns the directory.
func fixtureDir(t *testing.T, name string, edit func(dir string)) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatalf("fixture suite %s: %v", name, err)
	}
	if edit != nil {
		edit(dir)
	}
	if _, err := runner.WriteManifest(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// addVector writes the vector file name (content v) into dir's
// vectors/v1/server.
func addVector(t *testing.T, dir, name, v string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "vectors", "v1", "server", name), []byte(v), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editSuiteJSON replaces the first old in dir's suite.json with new.
func editSuiteJSON(t *testing.T, dir, old, new string) {
	t.Helper()
	manifest := filepath.Join(dir, "suite.json")
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// goldenSuite makes the goldens of the suite in dir with golden --update
// from the configuration cfg gives (a good fake server), and returns the
// suite opened again with its digests checked, and what the update did.
func goldenSuite(t *testing.T, dir string, cfg func(*runner.Suite) runner.Config) (*runner.Suite, *runner.GoldenUpdate) {
	t.Helper()
	s, err := openDir(t, dir, true)
	if err != nil {
		t.Fatal(err)
	}
	up, err := runner.UpdateGolden(context.Background(), cfg(s), dir)
	if err != nil {
		t.Fatalf("golden --update with the good server: %v", err)
	}
	if s, err = openDir(t, dir, false); err != nil {
		t.Fatal(err)
	}
	return s, up
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
	command := []string{exe}
	if bin := fakeProgram(); bin != "" {
		command = []string{bin} // it plays every rpc-* fake
	}
	// The grace is what a fake gets to exit once its stdin closed: every
	// rpc fake exits then, at once, except rpc-linger, which never does
	// and so waits the grace out in each vector (500 ms). For the others
	// it is a hang guard: at load averages of 15-20 they took more than
	// 500 ms to exit (IUT_LINGERED, or EXIT_AFTER_INPUT_MISSING where a
	// vector wants the exit).
	grace := 10 * time.Second
	if behaviour == "rpc-linger" {
		grace = 500 * time.Millisecond
	}
	return runner.Config{Suite: s, Command: command, Env: map[string]string{"CONFORM_FAKE_IUT": behaviour},
		Timeout: 3 * time.Second, Grace: grace, KillAfter: 500 * time.Millisecond, Jobs: 4}
}

// TestRPCSuite: the good server is certified (a SKIPPED-free full run with
// the rules of every vector holding); each broken server fails the vector
// whose rule it breaks, with the finding that names the rule, and nothing
// else.
func TestRPCSuite(t *testing.T) {
	t.Parallel()
	s := rpcSuite(t)
	type brief struct{ Status, Codes string }
	// One run of the suite per behaviour, shared by the subtests that
	// look at its vectors (rpc-linger has four).
	type shared struct {
		once sync.Once
		out  map[string]brief
		err  error
	}
	var mu sync.Mutex
	runs := map[string]*shared{}
	run := func(t *testing.T, behaviour string) map[string]brief {
		t.Helper()
		mu.Lock()
		r := runs[behaviour]
		if r == nil {
			r = &shared{}
			runs[behaviour] = r
		}
		mu.Unlock()
		r.once.Do(func() {
			rep, err := runner.Run(context.Background(), rpcConfig(t, s, behaviour))
			if err != nil {
				r.err = err
				return
			}
			r.out = map[string]brief{}
			for _, res := range rep.Results {
				var codes []string
				for _, f := range res.Findings {
					codes = append(codes, f.Code)
				}
				r.out[res.ID] = brief{string(res.Status), strings.Join(codes, " ")}
			}
		})
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.out
	}
	good := run(t, "rpc-good")
	for id, b := range good {
		if b.Status != "PASS" {
			t.Errorf("good server: %s is %s (%s)", id, b.Status, b.Codes)
		}
	}
	if len(good) != 18 {
		t.Errorf("good server: %d results, want 18", len(good))
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
		// afterInput any: how the IUT ends once stdin closed is a note;
		// under the default (either) it is a crash.
		{"rpc-exit-1-at-end", "any-after-input", brief{"PASS", "EXIT_NONZERO"}},
		{"rpc-exit-1-at-end", "echo", brief{"CRASH", "EXIT_NONZERO"}},
		{"rpc-killed-at-end", "any-after-input", brief{"PASS", "KILLED_BY_SIGNAL"}},
		{"rpc-killed-at-end", "echo", brief{"CRASH", "KILLED_BY_SIGNAL"}},
		{"rpc-linger", "any-after-input", brief{"PASS", "IUT_LINGERED"}},
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
