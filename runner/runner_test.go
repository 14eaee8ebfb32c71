package runner_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/testpar"
	"github.com/conform-kit/conform/runner"
	"github.com/conform-kit/conform/runner/internal/fakeiut"
)

// The test binary doubles as every fake IUT: with CONFORM_FAKE_IUT set it
// plays that behaviour on stdin/stdout instead of running tests
// (protobuf-go's conformance pattern).
func TestMain(m *testing.M) {
	if b := os.Getenv("CONFORM_FAKE_IUT"); b != "" {
		os.Exit(fake(b))
	}
	// As cmd/conform does: orphans of IUTs come back here to be killed.
	if err := proc.BecomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "subreaper:", err)
	}
	// Most tests here wait on IUTs (timeouts, grace periods), not on CPU:
	// with 8 at once, the acceptance cases that wait out their 5 s
	// timeout started last and ended the package 5 s after the rest.
	testpar.Widen(16)
	code := m.Run()
	if fakeDir != "" {
		os.RemoveAll(fakeDir)
	}
	os.Exit(code)
}

// fakeBin is the fakeiut program, built on first use (fakeProgram) into
// fakeDir, which TestMain removes; "" when it could not be built
// (fakeCommand then runs the test binary, which plays the same fakes, only
// slower to start).
var (
	fakeOnce         sync.Once
	fakeDir, fakeBin string
)

// fakeProgram returns fakeBin, building it the first time.
func fakeProgram() string {
	fakeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "runner-test-fakeiut-")
		if err != nil {
			fmt.Fprintf(os.Stderr, "runner tests: the fakes run from the test binary: %v\n", err)
			return
		}
		fakeDir = dir
		fakeBin = buildFakeIUT(dir)
	})
	return fakeBin
}

// buildFakeIUT builds runner/internal/fakeiut/cmd/fakeiut into dir with
// the go command that runs the tests (about 0.1 s with a warm build cache)
// and returns its path, or "" with the reason on stderr.
func buildFakeIUT(dir string) string {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintf(os.Stderr, "runner tests: the fakes run from the test binary: %v\n", err)
		return ""
	}
	exe := filepath.Join(dir, "fakeiut")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	out, err := exec.Command(goCmd, "build", "-o", exe, "github.com/conform-kit/conform/runner/internal/fakeiut/cmd/fakeiut").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "runner tests: the fakes run from the test binary: go build fakeiut: %v\n%s", err, out)
		return ""
	}
	return exe
}

// fakeCommand is the command that plays behaviour (CONFORM_FAKE_IUT): the
// fakeiut program for its fakes, else this test binary.
func fakeCommand(behaviour string) []string {
	if fakeiut.Plays(behaviour) {
		if bin := fakeProgram(); bin != "" {
			return []string{bin}
		}
	}
	return []string{os.Args[0], "-test.run=^$"}
}

func fake(behaviour string) int {
	if behaviour != "host" {
		if name, ok := strings.CutPrefix(behaviour, "accept-"); ok {
			return acceptFake(name)
		}
		if code, ok := zoo(behaviour); ok {
			return code
		}
		if code, ok := boundsFake(behaviour); ok {
			return code
		}
		if code, ok := quietFake(behaviour); ok {
			return code
		}
		if code, ok := startFake(behaviour); ok {
			return code
		}
		if code, ok := countingFake(behaviour); ok {
			return code
		}
	}
	// The fakes of package fakeiut (the fakeiut program plays them too):
	// args are what follows the -test.run flag the tests pass.
	args := os.Args[1:]
	if len(args) > 0 && strings.HasPrefix(args[0], "-test.run=") {
		args = args[1:]
	}
	if code, ok := fakeiut.Main(behaviour, args); ok {
		return code
	}
	return fakeiut.Agent(behaviour)
}

// embeddedSuite is the kit's embedded suite, opened once for every
// testConfig: a *runner.Suite does not change after Open and its schema
// set is safe for concurrent use (and caches what it compiled), as
// concurrent runs of one suite need, so the tests share its loading and
// its schemas' compiling instead of redoing both in every test.
var embeddedSuite = sync.OnceValues(func() (*runner.Suite, error) { return runner.Open(conform.Suite()) })

// hangGuard is testConfig's timeout: a bound on a hang, not on speed. A
// fake that answers does so in milliseconds on a quiet machine and in
// seconds under load (2 s was seen to time out the reference at a load
// average of 30 on two cores), so a test whose verdict is not TIMEOUT
// must not depend on how loaded the machine is. A test whose verdict is
// TIMEOUT sets [timeoutVerdict] on its config: the wait it asserts is then
// as short as before.
const hangGuard = time.Minute

// timeoutVerdict is the timeout of a test that expects TIMEOUT (a fake that
// stays silent): the runner waits this long for nothing.
const timeoutVerdict = 2 * time.Second

func testConfig(t *testing.T, behaviour string, filters ...string) runner.Config {
	t.Helper()
	s, err := embeddedSuite()
	if err != nil {
		t.Fatal(err)
	}
	return runner.Config{
		Suite:   s,
		Command: fakeCommand(behaviour),
		Env:     map[string]string{"CONFORM_FAKE_IUT": behaviour},
		Filters: filters,
		Timeout: hangGuard, Grace: 500 * time.Millisecond, KillAfter: 500 * time.Millisecond,
		Jobs: 2,
	}
}

// expectStatuses returns cfg with the timeout [timeoutVerdict] when want
// has a TIMEOUT among its statuses, and cfg as it is otherwise.
func expectStatuses(cfg runner.Config, want map[string]runner.Status) runner.Config {
	for _, s := range want {
		if s == runner.Timeout {
			cfg.Timeout = timeoutVerdict
		}
	}
	return cfg
}

func statuses(rep *runner.Report) map[string]runner.Status {
	m := map[string]runner.Status{}
	for _, r := range rep.Results {
		m[r.ID] = r.Status
	}
	return m
}

func findingCodes(r runner.Result) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Code)
	}
	return out
}

// TestVerdicts proves each verdict is reported for the misbehaviour that
// earns it.
func TestVerdicts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		behaviour string
		filters   []string
		want      map[string]runner.Status
		finding   string
		exit      int
	}{
		{"reference", []string{"interrupt-idle", "pipelined-out-of-order"}, map[string]runner.Status{"interrupt-idle": runner.Pass, "pipelined-out-of-order": runner.Pass}, "", 0},
		{"reverse", []string{"pipelined-out-of-order"}, map[string]runner.Status{"pipelined-out-of-order": runner.Pass}, "", 0},
		{"noise", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.Pass}, "", 0},
		{"wrong", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.Fail}, runner.FindingItemAdded, 1},
		{"silent", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.Timeout}, runner.FindingReplyMissing, 1},
		{"buffered", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.Timeout}, runner.FindingReplyAfterStdinClosed, 1},
		{"crash", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.Crash}, runner.FindingExitEarly, 1},
		{"segv", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.Crash}, runner.FindingKilledBySignal, 1},
		{"schema", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.SchemaViolation}, runner.FindingFrameSchema, 1},
		{"notjson", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.ProtocolError}, runner.FindingFrameNotJSON, 1},
		{"twice", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.ProtocolError}, runner.FindingReplyDuplicate, 1},
		{"unsolicited", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.ProtocolError}, runner.FindingReplyUnsolicited, 1},
		{"linger", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.Pass}, runner.FindingLingered, 0},
	}
	for _, tc := range tests {
		t.Run(tc.behaviour, func(t *testing.T) {
			t.Parallel()
			rep, err := runner.Run(context.Background(), expectStatuses(testConfig(t, tc.behaviour, tc.filters...), tc.want))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, statuses(rep)); diff != "" {
				t.Errorf("statuses (-want +got):\n%s\n%+v", diff, rep.Results)
			}
			if tc.finding != "" {
				codes := findingCodes(rep.Results[0])
				if !slicesContains(codes, tc.finding) {
					t.Errorf("findings %v lack %s", codes, tc.finding)
				}
			}
			if got := rep.ExitCode(); got != tc.exit {
				t.Errorf("exit code %d, want %d", got, tc.exit)
			}
			for _, r := range rep.Results {
				if r.Status != runner.Pass && (r.Expected == "" || r.Actual == "") {
					t.Errorf("%s: a failing result must carry expected and actual bytes", r.ID)
				}
			}
		})
	}
}

// wantAllPass fails t unless every result of rep passed, rep has at least
// min vectors (of the kind what), and its exit status is 0.
func wantAllPass(t *testing.T, rep *runner.Report, min int, what string) {
	t.Helper()
	for _, r := range rep.Results {
		if r.Status != runner.Pass {
			t.Errorf("%s: %s %v\n%v", r.ID, r.Status, r.Findings, r.Differences)
		}
	}
	if rep.Summary.Total < min {
		t.Errorf("only %d %s vectors", rep.Summary.Total, what)
	}
	if rep.ExitCode() != 0 {
		t.Errorf("exit %d", rep.ExitCode())
	}
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestExpectedFailures(t *testing.T) {
	t.Parallel()
	t.Run("xfail", func(t *testing.T) {
		t.Parallel()
		cfg := testConfig(t, "wrong", "interrupt-idle", "get-binary-version")
		cfg.ExpectFail = map[string]string{"interrupt-idle": "known bug"}
		rep, err := runner.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := statuses(rep)["interrupt-idle"]; got != runner.XFail {
			t.Errorf("status %s, want XFAIL", got)
		}
		if rep.ExitCode() != 0 || rep.Verdict != runner.VerdictPartial {
			t.Errorf("exit %d %s, want 0 %s: expected failures are allowed", rep.ExitCode(), rep.Verdict, runner.VerdictPartial)
		}
	})
	t.Run("everything excused is nothing passed", func(t *testing.T) {
		t.Parallel()
		cfg := testConfig(t, "zoo-exit-at-once", "interrupt-idle", "get-binary-version")
		cfg.ExpectFail = map[string]string{"interrupt-idle": "known bug", "get-binary-version": "known bug"}
		cfg.NoFailFast = true // fail fast would stop at the dead IUT first (NOT_CERTIFIED)
		rep, err := runner.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if rep.ExitCode() != 1 || rep.Verdict != runner.VerdictNothingPassed {
			t.Errorf("exit %d %s, want 1 %s", rep.ExitCode(), rep.Verdict, runner.VerdictNothingPassed)
		}
	})
	t.Run("xpass", func(t *testing.T) {
		t.Parallel()
		cfg := testConfig(t, "reference", "interrupt-idle")
		cfg.ExpectFail = map[string]string{"interrupt-idle": "was broken once"}
		rep, err := runner.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Results[0].Status; got != runner.XPass {
			t.Errorf("status %s, want XPASS", got)
		}
		if rep.ExitCode() != 1 {
			t.Errorf("exit %d, want 1: an unexpected pass fails the run", rep.ExitCode())
		}
	})
	t.Run("intermittent", func(t *testing.T) {
		t.Parallel()
		// A listed failure that happens in some runs only: a pass stays
		// PASS with a note, a failure is XFAIL, and neither fails the run.
		for _, tc := range []struct {
			iut  string
			want runner.Status
		}{{"reference", runner.Pass}, {"wrong", runner.XFail}} {
			cfg := testConfig(t, tc.iut, "interrupt-idle", "get-binary-version")
			cfg.ExpectFail = map[string]string{"interrupt-idle": runner.IntermittentPrefix + " races its start-up"}
			rep, err := runner.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			var r runner.Result
			for _, x := range rep.Results {
				if x.ID == "interrupt-idle" {
					r = x
				}
			}
			if r.Status != tc.want || rep.ExitCode() != 0 || len(rep.Stale) != 0 {
				t.Errorf("%s: status %s, exit %d, stale %v; want %s, 0, none", tc.iut, r.Status, rep.ExitCode(), rep.Stale, tc.want)
			}
			noted := false
			for _, f := range r.Findings {
				noted = noted || f.Code == runner.FindingIntermittentPass
			}
			if noted != (tc.want == runner.Pass) {
				t.Errorf("%s: INTERMITTENT_PASSED noted %v, want it on a pass only: %+v", tc.iut, noted, r.Findings)
			}
		}
	})
	t.Run("stale", func(t *testing.T) {
		t.Parallel()
		cfg := testConfig(t, "reference", "interrupt-idle")
		cfg.ExpectFail = map[string]string{"no-such-vector": "gone", "malformed-line": "informational never fails"}
		rep, err := runner.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"malformed-line", "no-such-vector"}, rep.Stale); diff != "" {
			t.Errorf("stale (-want +got):\n%s", diff)
		}
		if rep.ExitCode() != 1 {
			t.Errorf("exit %d, want 1", rep.ExitCode())
		}
	})
}

func TestKitErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(*runner.Config)
		code runner.Code
	}{
		{"filter matches nothing", func(c *runner.Config) { c.Filters = []string{"no-such-*"} }, "FILTER_NO_MATCH"},
		{"unknown version", func(c *runner.Config) { c.Version = 9 }, "VERSION_UNKNOWN"},
		{"command cannot start", func(c *runner.Config) { c.Command = []string{"/nonexistent/iut"} }, "IUT_START"},
		{"no command", func(c *runner.Config) { c.Command = nil }, "USAGE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(t, "reference", "interrupt-idle")
			tc.edit(&cfg)
			_, err := runner.Run(context.Background(), cfg)
			if got := runner.CodeOf(err); got != tc.code {
				t.Errorf("code %q (%v), want %q", got, err, tc.code)
			}
		})
	}
}

// TestReferencePassesEveryVector certifies the Go reference in-process
// through the same runner, as `conform run` does.
func TestReferencePassesEveryVector(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "reference")
	cfg.Timeout = 10 * time.Second
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		// Informational vectors record implementation-defined corners, so a
		// finding is data there; the golden bytes must still match.
		if r.Level == "informational" {
			if r.Parity != runner.ParityExact {
				t.Errorf("%s: differs from its golden file\n%v", r.ID, r.Differences)
			}
			continue
		}
		if r.Status != runner.Pass {
			t.Errorf("%s: %s %v\n%v", r.ID, r.Status, r.Findings, r.Differences)
		}
	}
	if rep.Summary.Total < 40 {
		t.Errorf("only %d vectors", rep.Summary.Total)
	}
	if rep.ExitCode() != 0 {
		t.Errorf("exit %d", rep.ExitCode())
	}
}

func TestInterrupt(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cfg := testConfig(t, "silent")
	cfg.Timeout = time.Minute
	cfg.Jobs = 2
	done := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancel()
		close(done)
	}()
	rep, err := runner.Run(ctx, cfg)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || rep.ExitCode() != 130 {
		t.Errorf("interrupted=%v exit=%d, want true and 130", rep.Interrupted, rep.ExitCode())
	}
	if rep.Summary.NotRun != rep.Summary.Total {
		t.Errorf("not run %d of %d: a silent IUT finishes no vector", rep.Summary.NotRun, rep.Summary.Total)
	}
}

func ExampleRun() {
	s, _ := runner.Open(conform.Suite())
	rep, err := runner.Run(context.Background(), runner.Config{
		Suite:   s,
		Command: []string{os.Args[0], "-test.run=^$"},
		Env:     map[string]string{"CONFORM_FAKE_IUT": "reference"},
		Filters: []string{"get-binary-version"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Results[0].ID, rep.Results[0].Status, rep.ExitCode())
	// Output: get-binary-version PASS 0
}

// TestParity proves the gate catches one deliberately broken implementation
// among agreeing ones and names the groups.
func TestParity(t *testing.T) {
	t.Parallel()
	base := testConfig(t, "reference", "interrupt-idle", "get-binary-version")
	base.Version, base.Role = 1, "agent"
	target := func(name, behaviour string) runner.Target {
		c := testConfig(t, behaviour)
		return runner.Target{Name: name, Config: runner.Config{Command: c.Command, Env: c.Env, Timeout: c.Timeout, Grace: c.Grace, KillAfter: c.KillAfter}}
	}
	pr, err := runner.Parity(context.Background(), base, []runner.Target{
		target("ref", "reference"), target("reverse", "reverse"), target("broken", "wrong"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Passed {
		t.Error("parity passed with a broken implementation")
	}
	rows := map[string]runner.ParityVector{}
	for _, v := range pr.Vectors {
		rows[v.ID] = v
	}
	bad := rows["interrupt-idle"]
	want := []runner.Group{
		{Implementations: []string{"ref", "reverse"}, Golden: true},
		{Implementations: []string{"broken"}},
	}
	got := make([]runner.Group, len(bad.Groups))
	for i, g := range bad.Groups {
		got[i] = runner.Group{Implementations: g.Implementations, Golden: g.Golden}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	if !bad.Failed || bad.Agree {
		t.Errorf("interrupt-idle: failed=%v agree=%v, want true/false", bad.Failed, bad.Agree)
	}
	if ok := rows["get-binary-version"]; !ok.Agree || ok.Failed || len(ok.Groups) != 1 {
		t.Errorf("get-binary-version: %+v, want one agreeing group", ok)
	}
}

// A vector or golden file that changes while a run is under way (runs keep
// an index and read each vector and golden file as its vector starts) makes
// that vector INVALID with a stable code, never a result under the suite
// digest it no longer has; the other vectors still run.
func TestSuiteChangedDuringRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.CopyFS(dir, conform.Suite()); err != nil {
		t.Fatal(err)
	}
	s, err := runner.Open(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	vector := filepath.Join(dir, "vectors/v1/agent/interrupt-idle.json")
	golden := filepath.Join(dir, "golden/v1/interrupt-idle.json")
	origVector, err := os.ReadFile(vector)
	if err != nil {
		t.Fatal(err)
	}
	origGolden, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func() error
		code   string
	}{
		{"vector truncated", func() error { return os.WriteFile(vector, []byte("{"), 0o644) }, "SUITE_DIGEST_MISMATCH"},
		{"vector description edited", func() error {
			return os.WriteFile(vector, bytes.Replace(origVector, []byte(`"description": "`), []byte(`"description": "x`), 1), 0o644)
		}, "SUITE_DIGEST_MISMATCH"},
		{"vector removed", func() error { return os.Remove(vector) }, "SUITE_FILE_UNLISTED"},
		{"golden edited", func() error {
			return os.WriteFile(golden, bytes.Replace(origGolden, []byte("interrupt"), []byte("interrupx"), 1), 0o644)
		}, "SUITE_DIGEST_MISMATCH"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(vector, origVector, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, origGolden, 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := testConfig(t, "reference", "interrupt-idle", "initialize-minimal")
			cfg.Suite = s
			cfg.Jobs = 1          // initialize-minimal runs first; then the file changes
			cfg.NoFailFast = true // no probes: the vectors run in order, one at a time
			cfg.Progress = func(r runner.Result) {
				if r.ID == "initialize-minimal" {
					if err := tc.change(); err != nil {
						t.Error(err)
					}
				}
			}
			rep, err := runner.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := statuses(rep)
			if got["interrupt-idle"] != runner.Invalid || got["initialize-minimal"] != runner.Pass {
				t.Fatalf("statuses %v, want interrupt-idle INVALID and initialize-minimal PASS", got)
			}
			for _, r := range rep.Results {
				if r.ID == "interrupt-idle" && !slicesContains(findingCodes(r), tc.code) {
					t.Errorf("findings %v, want %s", findingCodes(r), tc.code)
				}
			}
			if rep.ExitCode() != 2 {
				t.Errorf("exit code %d, want 2", rep.ExitCode())
			}
		})
	}
}

// A process that leaves the IUT's group and clears its environment cannot
// be attributed or killed; it must not be able to reach a later vector
// through a reused directory. Vector 1's IUT starts one that writes into
// its working directory after the vector ended; vector 2's IUT fails
// unless its working directory is empty half a second into its run.
func TestEscapedProcessCannotReachALaterVector(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	script := filepath.Join(t.TempDir(), "iut.sh")
	body := `#!/bin/sh
sleep 0.5
if [ -n "$(ls -A "$PWD")" ]; then echo "working directory not empty: $(ls -A "$PWD")" >&2; exit 3; fi
setsid env -i /bin/sh -c "sleep 0.4; echo x > '$PWD/leak'; echo x > '$HOME/leak'" >/dev/null 2>&1 </dev/null &
exec "$TESTBIN" -test.run='^$'
`
	// With syscall.ForkLock held, as runner's writeExecutable writes: a
	// process a parallel test starts meanwhile would hold the descriptor
	// until its execve, and running the script would fail with ETXTBSY.
	syscall.ForkLock.RLock()
	err := os.WriteFile(script, []byte(body), 0o755)
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, "reference", "interrupt-idle", "initialize-minimal", "get-binary-version")
	cfg.Command = []string{script}
	cfg.Env["TESTBIN"] = os.Args[0]
	cfg.Jobs = 1
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		// The escapee may still be alive when its IUT ends (on a loaded
		// machine its 0.4 s outlast the grace period): that fails its own
		// vector with PROCESS_SURVIVED, which is right. What must never
		// happen is a later vector seeing its write (the IUT exits 3).
		if r.Status != runner.Pass && !slices.Equal(findingCodes(r), []string{runner.FindingProcessSurvived}) {
			t.Errorf("%s: %s %v, stderr %q", r.ID, r.Status, findingCodes(r), r.Stderr)
		}
	}
}
