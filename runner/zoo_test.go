//go:build linux

package runner_test

// The zoo checks Linux containment: a cgroup or the subreaper holds every
// process an IUT starts (docs/containment.md "Containment"). Elsewhere a process that
// leaves the group escapes by design.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"golang.org/x/sys/unix"

	"github.com/conform-kit/conform/internal/testtool"
	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/runner"
)

// zoo plays a misbehaving IUT. It reports whether behaviour is one of its
// own; pids of every process it starts are appended to $CONFORM_ZOO_PIDS so
// the test can check that none survives.
func zoo(behaviour string) (int, bool) {
	notePID(os.Getpid())
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	agent := reference.NewAgent()
	// answer reads one request and writes the reference's reply.
	answer := func() bool {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return false
		}
		reply, _ := agent.Handle(line)
		out.Write(append(reply, '\n'))
		out.Flush()
		return true
	}
	switch behaviour {
	case "zoo-hang-ignore-term":
		signalIgnore(syscall.SIGTERM)
		answer()
		in.ReadBytes('\n') // EOF
		time.Sleep(time.Hour)
	case "zoo-exit-at-once":
		return 0, true
	case "zoo-immutable":
		// A file in HOME made immutable (chattr +i; an IUT running as
		// root may), then the reference's replies.
		stuck := filepath.Join(os.Getenv("HOME"), "stuck")
		if err := os.WriteFile(stuck, []byte("x"), 0o600); err == nil {
			if f, err := os.Open(stuck); err == nil {
				if flags, err := unix.IoctlGetInt(int(f.Fd()), unix.FS_IOC_GETFLAGS); err == nil {
					if unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, flags|0x10) == nil {
						os.WriteFile(os.Getenv("CONFORM_ZOO_PIDS")+".immutable", nil, 0o600)
					}
				}
				f.Close()
			}
		}
		for answer() {
		}
		return 0, true
	case "zoo-partial-line":
		os.Stdout.WriteString(`{"type":"control_response","response":{"subtype":"success","request_id":"req-1"`)
		return 0, true
	case "zoo-huge-line":
		in.ReadBytes('\n')
		w := bufio.NewWriterSize(os.Stdout, 1<<20)
		w.WriteString(`{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"still_queued":["`)
		w.WriteString(strings.Repeat("x", 10<<20))
		w.WriteString("\"]}}}\n")
		w.Flush()
		agent.Handle([]byte{})
		out.WriteString(`{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"still_queued":[]}}}` + "\n")
	case "zoo-invalid-utf8":
		in.ReadBytes('\n')
		out.WriteString("{\"type\":\"control_response\",\"response\":{\"subtype\":\"success\",\"request_id\":\"req-1\",\"response\":{\"still_queued\":[\"\xff\xfe\"]}}}\n")
		out.WriteString(`{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"still_queued":[]}}}` + "\n")
	case "zoo-duplicate-keys":
		in.ReadBytes('\n')
		out.WriteString(`{"type":"control_response","response":{"subtype":"success","request_id":"req-1","request_id":"req-1","response":{"still_queued":[]}}}` + "\n")
		out.WriteString(`{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"still_queued":[]}}}` + "\n")
	case "zoo-inexact-number":
		in.ReadBytes('\n')
		out.WriteString(`{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"still_queued":[12345678901234567890]}}}` + "\n")
		out.WriteString(`{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"still_queued":[]}}}` + "\n")
	case "zoo-stderr-flood":
		chunk := strings.Repeat("e", 1<<20)
		// CONFORM_ZOO_STDERR_MIB MiB (TestZoo: 16, 1024 times what stderr
		// keeps, DefaultStderrMax; 256 with CONFORM_TEST_DEEP=1)
		mib, err := strconv.Atoi(os.Getenv("CONFORM_ZOO_STDERR_MIB"))
		if err != nil {
			mib = 256
		}
		for range mib {
			if _, err := os.Stderr.WriteString(chunk); err != nil {
				break
			}
		}
		os.Stderr.WriteString("LAST-STDERR-LINE\n")
		in.ReadBytes('\n')
		out.WriteString(`{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"still_queued":["flood"]}}}` + "\n")
	case "zoo-grandchild-holds-stdout":
		cmd := exec.Command("sleep", "3600") // inherits stdout and the process group
		cmd.Stdout = os.Stdout
		if err := cmd.Start(); err == nil {
			notePID(cmd.Process.Pid)
		}
		answer()
		return 0, true
	case "zoo-setsid-orphan":
		// A daemon that leaves the process group, ignores SIGTERM and
		// outlives the IUT: only the orphan sweep can end it.
		cmd := exec.Command("sh", "-c", `trap "" TERM; exec sleep 3600`)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err == nil {
			notePID(cmd.Process.Pid)
		}
		answer()
		return 0, true
	case "zoo-setsid-escape":
		// The escape of issue 16: a child in a new session starts a
		// grandchild with an empty environment (no token) and exits, so
		// the grandchild is re-parented; then the IUT answers correctly.
		sh := exec.Command("/bin/sh", "-c", `env -i sleep 3600 </dev/null >/dev/null 2>&1 & echo $!`)
		sh.Env = []string{"PATH=" + os.Getenv("PATH")}
		sh.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if b, err := sh.Output(); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				notePID(pid)
			}
		}
		answer()
		return 0, true
	case "zoo-close-stdout":
		// Closes stdout after one request and lives until stdin closes.
		in.ReadBytes('\n')
		os.Stdout.Close()
		for {
			if _, err := in.ReadBytes('\n'); err != nil {
				return 0, true
			}
		}
	case "zoo-close-stdout-hang":
		// Closes stdout after one request and never exits by itself.
		in.ReadBytes('\n')
		os.Stdout.Close()
		time.Sleep(time.Hour)
	case "zoo-snoop":
		// Reads its caller's environment and writes where the caller
		// keeps the report; answers correctly only if both are denied.
		_, readErr := os.ReadFile(fmt.Sprintf("/proc/%d/environ", os.Getppid()))
		writeErr := os.WriteFile(os.Getenv("CONFORM_ZOO_REPORT"), []byte("CERTIFIED"), 0o644)
		if readErr == nil || writeErr == nil {
			fmt.Fprintf(os.Stderr, "read caller environment: %v; wrote report: %v\n", readErr == nil, writeErr == nil)
			return 3, true
		}
		if !answer() {
			return 1, true
		}
		in.ReadBytes('\n') // EOF
		return 0, true
	case "zoo-slow-one":
		line, _ := in.ReadBytes('\n')
		if strings.Contains(string(line), `"get_binary_version"`) {
			time.Sleep(time.Hour)
		}
		reply, _ := agent.Handle(line)
		out.Write(append(reply, '\n'))
	case "zoo-not-json-flood":
		in.ReadBytes('\n')
		for range 900 {
			out.WriteString("y\n")
		}
		out.WriteString(`{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"still_queued":[]}}}` + "\n")
	case "zoo-flood-frames":
		in.ReadBytes('\n')
		for range 20000 {
			out.WriteString(`{"type":"system","subtype":"status"}` + "\n")
		}
	default:
		return 0, false
	}
	return 0, true
}

func signalIgnore(sig syscall.Signal) { signal.Ignore(sig) }

func notePID(pid int) {
	f := os.Getenv("CONFORM_ZOO_PIDS")
	if f == "" {
		return
	}
	fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	fmt.Fprintln(fh, pid)
	fh.Close()
}

// TestZoo runs each misbehaving IUT and checks its exact verdict, what the
// report keeps, and that no process it started survives. No case asserts
// time: each vector is bounded by the runner's timeout, grace and
// kill-after, and the go test timeout is the hang guard.
func TestZoo(t *testing.T) {
	t.Parallel()
	const grace, killAfter = 500 * time.Millisecond, 500 * time.Millisecond
	// timeout is the wait for a reply where the verdict is TIMEOUT
	// (zoo-slow-one's get-binary-version); roomy is the wait everywhere
	// else, where the vector ends when the IUT answers, exits or breaks a
	// frame rule, never by the timeout: on a loaded 2-core machine writing
	// and reading 10 MiB or 256 MiB took longer than 2 s and turned the
	// verdict into TIMEOUT.
	const timeout, roomy = 2 * time.Second, time.Minute
	tests := []struct {
		behaviour string
		filters   []string
		want      map[string]runner.Status
		finding   string
	}{
		{"zoo-hang-ignore-term", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.Pass}, runner.FindingLingered},
		{"zoo-exit-at-once", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.Crash}, runner.FindingExitEarly},
		{"zoo-partial-line", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.Crash}, runner.FindingFramePartial},
		{"zoo-huge-line", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.ProtocolError}, runner.FindingFrameTooLarge},
		{"zoo-invalid-utf8", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.ProtocolError}, runner.FindingFrameNotJSON},
		{"zoo-duplicate-keys", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.ProtocolError}, runner.FindingFrameDuplicateKey},
		{"zoo-inexact-number", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.ProtocolError}, runner.FindingFrameInexact},
		// Its reply comes after 16 MiB of stderr (256 MiB with CONFORM_TEST_DEEP=1).
		{"zoo-stderr-flood", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.Fail}, runner.FindingItemAdded},
		// A grandchild that holds stdout after the IUT exited outlives it.
		{"zoo-grandchild-holds-stdout", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.Fail}, runner.FindingProcessSurvived},
		{"zoo-slow-one", []string{"interrupt-idle", "get-binary-version", "mcp-status-empty"},
			map[string]runner.Status{"interrupt-idle": runner.Pass, "get-binary-version": runner.Timeout, "mcp-status-empty": runner.Pass}, ""},
		{"zoo-flood-frames", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.ProtocolError}, runner.FindingFrameLimit},
		{"zoo-setsid-orphan", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.Fail}, runner.FindingProcessSurvived},
		{"zoo-setsid-escape", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.Fail}, runner.FindingProcessSurvived},
		{"zoo-not-json-flood", []string{"interrupt-idle"}, map[string]runner.Status{"interrupt-idle": runner.ProtocolError}, runner.FindingFindingsTruncated},
	}
	for _, tc := range tests {
		t.Run(tc.behaviour, func(t *testing.T) {
			t.Parallel()
			pids := filepath.Join(t.TempDir(), "pids")
			cfg := testConfig(t, tc.behaviour, tc.filters...)
			cfg.Env["CONFORM_ZOO_PIDS"] = pids
			// The stderr flood: 16 MiB keeps stderr bounded and its tail
			// as well as 256 MiB does, for a sixteenth of the copying.
			cfg.Env["CONFORM_ZOO_STDERR_MIB"] = "16"
			if testtool.Deep() {
				cfg.Env["CONFORM_ZOO_STDERR_MIB"] = "256"
			}
			cfg.Timeout, cfg.Grace, cfg.KillAfter = roomy, grace, killAfter
			if tc.behaviour == "zoo-slow-one" {
				cfg.Timeout = timeout
			}
			cfg.MaxFrames = 1000
			rep, err := runner.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			// What merge re-checks holds for every report a run makes.
			if err := runner.CheckReport(cfg.Suite, rep); err != nil {
				t.Errorf("CheckReport: %v", err)
			}
			if diff := cmp.Diff(tc.want, statuses(rep)); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
			if tc.finding != "" && !slicesContains(findingCodes(rep.Results[0]), tc.finding) {
				t.Errorf("findings %v lack %s", findingCodes(rep.Results[0]), tc.finding)
			}
			for _, r := range rep.Results {
				if len(r.Findings) > runner.MaxFindings+1 {
					t.Errorf("%s: %d findings, bound %d and one truncation note", r.ID, len(r.Findings), runner.MaxFindings)
				}
				if len(r.Stderr) > runner.DefaultStderrMax {
					t.Errorf("%s: kept %d bytes of stderr, bound %d", r.ID, len(r.Stderr), runner.DefaultStderrMax)
				}
				if tc.behaviour == "zoo-stderr-flood" && !strings.HasSuffix(r.Stderr, "LAST-STDERR-LINE\n") {
					t.Errorf("%s: stderr tail lost its last line: ...%q", r.ID, r.Stderr[max(0, len(r.Stderr)-40):])
				}
			}
			assertNoSurvivors(t, pids)
		})
	}
}

// assertNoSurvivors checks every pid the zoo recorded is gone.
func assertNoSurvivors(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("no pid file: the zoo IUT never started? %v", err)
	}
	for _, f := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(f)
		gone := false
		for range 1000 { // reaping by init lags after SIGKILL, more on a loaded machine: up to 20 s, a hang guard
			if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
				gone = true
				break
			}
			if zombie(pid) {
				gone = true
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if !gone {
			t.Errorf("process %d survived the run", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// zombie reports whether pid is a zombie (dead, waiting to be reaped).
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// TestClosedStdoutEndsTheVector: an IUT that closes stdout can no longer
// answer, so its vector ends at once with the exact verdict, never after
// the timeout (set to an hour here: the run finishing at all shows it was
// not waited for). An IUT that exits at once is told apart exactly.
func TestClosedStdoutEndsTheVector(t *testing.T) {
	t.Parallel()
	tests := []struct {
		behaviour string
		status    runner.Status
		findings  []string
	}{
		{"zoo-close-stdout", runner.ProtocolError, []string{runner.FindingStdoutClosed, runner.FindingFrameAbsent}},
		{"zoo-close-stdout-hang", runner.ProtocolError, []string{runner.FindingStdoutClosed, runner.FindingLingered, runner.FindingFrameAbsent}},
		{"zoo-exit-at-once", runner.Crash, []string{runner.FindingExitEarly, runner.FindingFrameAbsent}},
		{"zoo-partial-line", runner.Crash, []string{runner.FindingFramePartial, runner.FindingExitEarly, runner.FindingFrameAbsent}},
	}
	for _, tc := range tests {
		t.Run(tc.behaviour, func(t *testing.T) {
			t.Parallel()
			pids := filepath.Join(t.TempDir(), "pids")
			cfg := testConfig(t, tc.behaviour, "interrupt-idle")
			cfg.Env["CONFORM_ZOO_PIDS"] = pids
			cfg.Timeout, cfg.Grace, cfg.KillAfter = time.Hour, 500*time.Millisecond, 500*time.Millisecond
			done := make(chan *runner.Report, 1)
			go func() {
				rep, err := runner.Run(context.Background(), cfg)
				if err != nil {
					t.Error(err)
				}
				done <- rep
			}()
			var rep *runner.Report
			select {
			case rep = <-done:
			case <-time.After(2 * time.Minute): // a hang guard, far below the timeout
				t.Fatal("the vector waited for its one-hour timeout")
			}
			if rep == nil {
				return
			}
			r := rep.Results[0]
			t.Logf("%s: %s in %d ms", r.ID, r.Status, r.DurationMS)
			if r.Status != tc.status {
				t.Errorf("status %s, want %s (findings %v)", r.Status, tc.status, findingCodes(r))
			}
			if diff := cmp.Diff(tc.findings, findingCodes(r)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			assertNoSurvivors(t, pids)
		})
	}
}

// TestIsolatedIUT: with Config.Isolate an IUT cannot read conform's
// environment nor write the report (root only; docs/containment.md
// "Environment hygiene and untrusted IUTs"); without it, it can, and the
// snooping IUT fails.
func TestIsolatedIUT(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("isolation needs root")
	}
	// The isolated user must be able to run a copy of the test binary.
	bin := t.TempDir()
	for d := bin; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(bin, "iut")
	if out, err := exec.Command("cp", os.Args[0], exe).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	for _, isolate := range []bool{true, false} {
		t.Run(fmt.Sprintf("isolate=%v", isolate), func(t *testing.T) {
			report := filepath.Join(bin, fmt.Sprintf("report-%v.json", isolate))
			if err := os.WriteFile(report, []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := testConfig(t, "zoo-snoop", "interrupt-idle")
			cfg.Command = []string{exe, "-test.run=^$"}
			cfg.Env["CONFORM_ZOO_REPORT"] = report
			if isolate {
				cfg.Isolate = &runner.Isolation{UID: 65533, GID: 65533, Namespaces: true}
			}
			rep, err := runner.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			want := runner.Pass
			if !isolate {
				want = runner.Crash
			}
			if r := rep.Results[0]; r.Status != want {
				t.Errorf("status %s %v (stderr %q), want %s", r.Status, findingCodes(r), r.Stderr, want)
			}
			if b, _ := os.ReadFile(report); isolate && string(b) != "{}" {
				t.Errorf("the isolated IUT wrote the report: %q", b)
			}
		})
	}
}

// TestZooIUTDirsRemoved: an IUT that makes a file in its HOME immutable
// (chattr +i) leaves no IUT directory behind: conform clears the flag and
// removes it. Before issue 22 each such vector left its directory,
// silently.
func TestZooIUTDirsRemoved(t *testing.T) {
	t.Parallel()
	pids := filepath.Join(t.TempDir(), "pids")
	cfg := testConfig(t, "zoo-immutable", "interrupt-idle", "get-binary-version", "mcp-status-empty")
	cfg.Env["CONFORM_ZOO_PIDS"] = pids
	cfg.TempDir = t.TempDir()
	t.Cleanup(func() { _ = exec.Command("chattr", "-R", "-i", cfg.TempDir).Run() })
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(pids + ".immutable"); err != nil {
		t.Skip("the IUT could not make a file immutable here (needs root and a file system with inode flags)")
	}
	for _, r := range rep.Results {
		if r.Status != runner.Pass || slicesContains(findingCodes(r), runner.FindingIUTDirLeft) {
			t.Errorf("%s: %s %v, want PASS without IUT_DIR_LEFT", r.ID, r.Status, findingCodes(r))
		}
	}
	if left, _ := filepath.Glob(filepath.Join(cfg.TempDir, "conform-iut-*")); len(left) > 0 {
		t.Errorf("IUT directories left behind: %v", left)
	}
}
