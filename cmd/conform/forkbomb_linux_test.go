package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/conform-kit/conform/runner"
)

// pidsCgroupDir returns this process's cgroup in a hierarchy where the test
// can set a pids limit: a writable cgroup v1 pids hierarchy, or a cgroup v2
// whose subtree_control delegates pids; "" when there is none.
func pidsCgroupDir(t *testing.T) string {
	t.Helper()
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(info), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, p := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(p) < 3 {
			continue
		}
		mnt, root := f[4], f[3]
		switch {
		case p[0] == "cgroup" && strings.Contains(","+p[2]+",", ",pids,"):
			for _, l := range strings.Split(string(own), "\n") {
				parts := strings.SplitN(l, ":", 3)
				if len(parts) == 3 && strings.Contains(","+parts[1]+",", ",pids,") {
					return filepath.Join(mnt, strings.TrimPrefix(parts[2], root))
				}
			}
		case p[0] == "cgroup2":
			for _, l := range strings.Split(string(own), "\n") {
				if rel, ok := strings.CutPrefix(l, "0::"); ok {
					dir := filepath.Join(mnt, strings.TrimPrefix(rel, root))
					if sc, err := os.ReadFile(dir + "/cgroup.subtree_control"); err == nil && strings.Contains(" "+string(sc)+" ", " pids ") {
						return dir
					}
				}
			}
		}
	}
	return ""
}

// TestForkBombSharedLimit is the fork bomb of issue 22: conform and its
// IUTs share a pids limit (here one the test sets, 200 tasks, as a
// container's would be), and every IUT is a fork bomb. Each IUT gets its
// own share of what the limit leaves, so conform keeps its threads and
// forks: the run ends with a report, every vector PROCESS_LIMIT, exit 1,
// and nothing is left in the shared cgroup. Before, conform could not
// start the next IUT once the bombs had filled the limit (IUT_START, exit
// 3, no report) or aborted itself (runtime/cgo: pthread_create failed,
// exit 2), with hundreds of IUT processes left. The test never runs a bomb
// outside a limit it set: without a pids controller it can write to, it
// is skipped.
func TestForkBombSharedLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs fork bombs (inside a pids limit)")
	}
	parent := pidsCgroupDir(t)
	if parent == "" {
		t.Skip("no pids controller this test can set a limit with: a fork bomb would be unbounded here")
	}
	outer, err := os.MkdirTemp(parent, "conform-test-")
	if err != nil {
		t.Skipf("cannot make a pids cgroup in %s: %v (a fork bomb would be unbounded here)", parent, err)
	}
	t.Cleanup(func() { emptyCgroup(t, outer) })
	if err := os.WriteFile(filepath.Join(outer, "pids.max"), []byte("200"), 0o644); err != nil {
		t.Skipf("cannot set a pids limit: %v (a fork bomb would be unbounded here)", err)
	}
	bin := childBin(t)
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.sh")
	writeScript(t, bomb, "#!/bin/sh\nb() { b | b & }\nb\nsleep 100\n")
	report := filepath.Join(dir, "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The shell enters the limited cgroup, then becomes conform.
	script := `echo $$ > "$1"/cgroup.procs && shift && exec "$@"`
	cmd := exec.CommandContext(ctx, "sh", "-c", script, "sh", outer, filepath.Join(bin, "conform"), "run",
		"--filter", "set-*", "-j", "8", "--timeout", "3s", "--grace", "200ms", "--kill-after", "200ms", "--no-fail-fast",
		"--format", "json", "--out", report, "--", bomb)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	if code := cmd.ProcessState.ExitCode(); code != exitFail {
		t.Fatalf("exit status %d (%v), want %d with a report:\n%s", code, cmd.ProcessState, exitFail, tail(out.String(), 3000))
	}
	for _, bad := range []string{"pthread_create failed", "failed to create new OS thread", "IUT_START"} {
		if strings.Contains(out.String(), bad) {
			t.Errorf("conform's output has %q:\n%s", bad, tail(out.String(), 3000))
		}
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep runner.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) < 8 {
		t.Fatalf("%d results, want the set-* vectors", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Status != runner.Crash || !hasFinding(r, runner.FindingProcessLimit) {
			t.Errorf("%s: %s %v, want CRASH with PROCESS_LIMIT", r.ID, r.Status, codesOf(r))
		}
	}
	// conform has exited: nothing of it or its IUTs may be left.
	// The wait ends when the cgroup is empty; its bound is a hang guard for
	// a loaded machine, not a speed claim.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(outer, "pids.current"))
		if n, _ := strconv.Atoi(strings.TrimSpace(string(b))); n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("%s tasks are left in the shared cgroup after conform ended", strings.TrimSpace(string(b)))
			break
		}
	}
}

// emptyCgroup kills what is left in the cgroup dir and removes it.
func emptyCgroup(t *testing.T, dir string) {
	for range 100 {
		b, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		pids := strings.Fields(string(b))
		if len(pids) == 0 {
			break
		}
		for _, p := range pids {
			if pid, err := strconv.Atoi(p); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	for range 50 {
		if err := syscall.Rmdir(dir); err == nil || os.IsNotExist(err) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("could not remove the test's cgroup %s", dir)
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
