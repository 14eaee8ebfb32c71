package proc_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/proc"
)

// cgroupOf returns pid's cgroup v2 path.
func cgroupOf(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return p
		}
	}
	return ""
}

// escapee starts the "escape" behaviour and returns the IUT and the pid of
// the process that escaped its group with an empty environment.
func escapee(t *testing.T, cfg proc.Config, extraEnv ...string) (*proc.Proc, int) {
	t.Helper()
	return escapeeOf(t, "escape", cfg, extraEnv...)
}

// escapeeOf is escapee for the behaviour "escape" or "escapehold".
func escapeeOf(t *testing.T, behaviour string, cfg proc.Config, extraEnv ...string) (*proc.Proc, int) {
	t.Helper()
	p := start(t, cfg, behaviour, extraEnv)
	ln, ok := nextLine(t, p)
	rest, found := strings.CutPrefix(string(ln.Data), "escapee ")
	pid, err := strconv.Atoi(rest)
	if !ok || !found || err != nil {
		t.Fatalf("first line %q, want escapee <pid>", ln.Data)
	}
	t.Cleanup(func() { _ = exec.Command("kill", "-9", strconv.Itoa(pid)).Run() })
	// The shell prints the pid as it forks: wait until that process runs
	// sleep (env -i has cleared its environment by then).
	for deadline := time.Now().Add(hangGuard); ; time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); strings.TrimSpace(string(b)) == "sleep" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("escapee %d never ran sleep", pid)
		}
	}
	return p, pid
}

// TestEscapeWithClearedEnvironment is the escape of issue 16: a process that
// double-forks, calls setsid and clears its environment. Whether a cgroup
// holds it or only the subreaper's sweep finds it, it is killed and counted;
// only the sweep cannot attribute it for certain. Not parallel: a sweep of
// another test's IUT would (rightly) kill an unattributable escapee first.
func TestEscapeWithClearedEnvironment(t *testing.T) {
	if !proc.IsSubreaper() {
		t.Skip("no child subreaper here")
	}
	tests := []struct {
		name     string
		noCgroup bool
		keepEnv  bool
		want     proc.Leftovers
	}{
		{"in a cgroup", false, false, proc.Leftovers{Count: 1}},
		{"without a cgroup, cleared environment", true, false, proc.Leftovers{Count: 1, Unattributed: 1}},
		{"without a cgroup, token kept", true, true, proc.Leftovers{Count: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var env []string
			if tc.keepEnv {
				env = append(env, "PROC_TEST_KEEPENV=1")
			}
			p, pid := escapee(t, proc.Config{NoCgroup: tc.noCgroup, Token: "tok-" + strconv.Itoa(os.Getpid())}, env...)
			if cg := cgroupOf(t, pid); !tc.noCgroup && !strings.Contains(cg, "/conform-iut-") {
				t.Skipf("no cgroup could be made here (the escapee is in %q)", cg)
			}
			if gone(pid) {
				t.Fatalf("escapee %d died before Stop", pid)
			}
			// The main process ends by itself; the escapee outlives it by
			// the whole grace period.
			waitExit(t, p)
			got := stopWithin(t, p, 200*time.Millisecond, time.Second)
			if got.Code != 0 || got.Signal != "" {
				t.Errorf("Stop = %+v, want the exit 0 of the main process", got)
			}
			if diff := cmp.Diff(tc.want, p.Leftovers()); diff != "" {
				t.Errorf("Leftovers (-want +got):\n%s", diff)
			}
			// Stop returns with the escapee reaped: no wait needed.
			if !gone(pid) {
				t.Errorf("escapee %d survived Stop", pid)
			}
		})
	}
}

// TestKilledTogether: a process that left the IUT's process group but not
// its cgroup, killed by Stop together with the main process, did not
// outlive it: it is no leftover, even though the sweep may meet it while
// the kernel is still ending it (its cgroup and environment already given
// up). Several rounds, since that moment is short. Not parallel, as
// TestEscapeWithClearedEnvironment.
func TestKilledTogether(t *testing.T) {
	if !proc.IsSubreaper() {
		t.Skip("no child subreaper here")
	}
	for round := range 10 {
		p, pid := escapeeOf(t, "escapehold", proc.Config{})
		if cg := cgroupOf(t, pid); !strings.Contains(cg, "/conform-iut-") {
			t.Skipf("no cgroup could be made here (the escapee is in %q)", cg)
		}
		got := stopWithin(t, p, 10*time.Millisecond, time.Second)
		if got.Stopped != "SIGTERM" {
			t.Errorf("round %d: Stop = %+v, want the main process ended by SIGTERM", round, got)
		}
		if l := p.Leftovers(); l != (proc.Leftovers{}) {
			t.Errorf("round %d: Leftovers = %+v, want none", round, l)
		}
		if !gone(pid) {
			t.Errorf("round %d: escapee %d survived Stop", round, pid)
		}
	}
}

// TestNoInheritedDescriptors: the IUT gets its three pipes and nothing else
// of this process's open descriptors (pipes of other IUTs, cgroup files,
// the poller), only what any child of this process gets (what the test
// runner itself left open without close-on-exec): its descriptors are a
// plain os/exec child's, with 0, 1 and 2 the IUT's pipes. Several IUTs run
// at once, as in a run.
func TestNoInheritedDescriptors(t *testing.T) {
	t.Parallel()
	plain := exec.Command(self(t))
	plain.Env = []string{"PROC_TEST_CHILD=fds"}
	out, err := plain.Output()
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if fd, _, _ := strings.Cut(l, " "); fd > "2" || len(fd) > 1 {
			allowed[fd] = true
		}
	}
	pool := proc.NewPool()
	defer pool.Close()
	var ps []*proc.Proc
	for range 3 {
		ps = append(ps, start(t, proc.Config{Pool: pool}, "sleeper", nil))
	}
	p := start(t, proc.Config{Pool: pool}, "fds", nil)
	for _, ln := range allLines(t, p) {
		fd, target, _ := strings.Cut(string(ln.Data), " ")
		switch {
		case fd == "0" || fd == "1" || fd == "2":
			if !strings.HasPrefix(target, "pipe:") {
				t.Errorf("fd %s is %s, want one of the IUT's pipes", fd, target)
			}
		case !allowed[fd] && !strings.Contains(target, "/proc/") && !strings.HasSuffix(target, "/fd"):
			// (ReadDir's own descriptor of /proc/self/fd aside.)
			t.Errorf("the IUT inherited fd %s (%s), which a plain child of this process does not have", fd, target)
		}
	}
	for _, q := range ps {
		q.Stop(10*time.Millisecond, time.Second)
	}
}

// TestWellBehavedLeavesNothing: an IUT that ends with stdin leaves no
// survivor, with or without a cgroup.
func TestWellBehavedLeavesNothing(t *testing.T) {
	t.Parallel()
	for _, noCgroup := range []bool{false, true} {
		p := start(t, proc.Config{NoCgroup: noCgroup}, "echo", nil, "x\n")
		if got := stopWithin(t, p, 5*time.Second, 5*time.Second); got.Code != 0 {
			t.Errorf("noCgroup=%v: Stop = %+v", noCgroup, got)
		}
		if got := p.Leftovers(); got != (proc.Leftovers{}) {
			t.Errorf("noCgroup=%v: Leftovers = %+v, want none", noCgroup, got)
		}
	}
}

// TestEnding: end of stdout from a process that exits is told apart exactly
// from a process that closed stdout and lives on.
func TestEnding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		behaviour string
		env       []string
		want      bool
	}{
		{"closestdout", nil, false},
		{"exit", []string{"PROC_TEST_N=3"}, true},
		{"write", []string{"PROC_TEST_OUT=" + strconv.Quote("partial")}, true},
	}
	for _, tc := range tests {
		t.Run(tc.behaviour, func(t *testing.T) {
			t.Parallel()
			for range 20 {
				p := start(t, proc.Config{}, tc.behaviour, tc.env)
				allLines(t, p)
				if got := p.Ending(); got != tc.want {
					t.Fatalf("Ending() = %v, want %v", got, tc.want)
				}
				stopWithin(t, p, time.Second, time.Second)
			}
		})
	}
}

// TestIsolation runs the IUT as another user (root only): it cannot read
// this process's environment nor write a file of this process's user, it
// has no supplementary group, and with namespaces its user namespace maps
// only that user.
func TestIsolation(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("isolation needs root")
	}
	const uid, gid = 65533, 65533
	// The isolated user must be able to run the test binary and enter its
	// working directory.
	base := t.TempDir()
	for d := base; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(base, "iut")
	if err := exec.Command("cp", self(t), exe).Run(); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(base, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(work, uid, gid); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(base, "report.json")
	if err := os.WriteFile(secret, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []bool{false, true} {
		t.Run(fmt.Sprintf("namespaces=%v", ns), func(t *testing.T) {
			p, err := proc.Start(t.Context(), proc.Config{
				Argv: []string{exe}, Dir: work,
				Env:     []string{childEnv + "=probe", "PROC_TEST_PEER=" + strconv.Itoa(os.Getpid()), "PROC_TEST_FILE=" + secret},
				Isolate: &proc.Isolation{UID: uid, GID: gid, Namespaces: ns},
			}, nil)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			var got []string
			for _, ln := range allLines(t, p) {
				got = append(got, string(ln.Data))
			}
			stopWithin(t, p, time.Second, time.Second)
			want := []string{"uid=65533 gid=65533 groups=[]", "environ: denied", "write: denied"}
			if diff := cmp.Diff(want, got[:min(3, len(got))]); diff != "" {
				t.Errorf("probe (-want +got):\n%s\nall: %q", diff, got)
			}
			if len(got) > 3 {
				t.Logf("namespaces=%v: %s", ns, got[3])
			}
		})
	}
	if b, _ := os.ReadFile(secret); string(b) != "{}" {
		t.Errorf("the isolated IUT changed %s: %q", secret, b)
	}
}
