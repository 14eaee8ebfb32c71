package proc

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An orphan re-parented to this process (a subreaper) must be among the
// candidates, whichever thread forked its parent: Linux hands orphans to
// the subreaper's main thread, whose children file candidates reads.
func TestCandidatesListOrphans(t *testing.T) {
	if err := BecomeSubreaper(); err != nil {
		t.Skipf("no child subreaper here: %v", err)
	}
	for i := range 20 { // forks happen on whatever thread runs the goroutine
		out, err := exec.Command("sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $!").Output()
		if err != nil {
			t.Skipf("no sh: %v", err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil {
			t.Fatalf("sh wrote %q", out)
		}
		var found bool
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) { // a hang guard
			// The orphan is re-parented when sh has exited, which Output
			// waited for.
			if found = slices.Contains(candidates(), pid); found {
				break
			}
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
		if !found {
			t.Fatalf("round %d: orphan %d not in candidates() = %v", i, pid, candidates())
		}
	}
}

// Each IUT's cgroup is made below this process's own and removed by Stop.
func TestCgroupMadeAndRemoved(t *testing.T) {
	t.Parallel()
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat")
	}
	p, err := Start(t.Context(), Config{Argv: []string{cat}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cg := p.ctl.cg
	if cg == nil {
		p.Stop(time.Second, time.Second)
		t.Skip("no cgroup could be made here")
	}
	if got := cgroupOf(p.Pid()); got != cg.rel {
		t.Errorf("the IUT is in cgroup %q, want %q", got, cg.rel)
	}
	if !strings.HasPrefix(cg.rel, cgroupOf(os.Getpid())) {
		t.Errorf("cgroup %q is not below this process's %q", cg.rel, cgroupOf(os.Getpid()))
	}
	p.Stop(time.Second, time.Second)
	if _, err := os.Stat(cg.dir); !os.IsNotExist(err) {
		t.Errorf("cgroup %s still exists after Stop: %v", cg.dir, err)
	}
}

func TestUnescapeMount(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{`/sys/fs/cgroup`: "/sys/fs/cgroup", `/a\040b`: "/a b", `/x\\`: `/x\\`, `/t\011`: "/t\t"} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

// An IUT running as root may make cgroups below its own and move processes
// there: they are still counted, killed, and removed.
func TestCgroupBelowTheIUTs(t *testing.T) {
	t.Parallel()
	// The shell finds its own cgroup in the cgroup2 mount and moves a
	// sleep into a cgroup it makes below it.
	p, err := Start(t.Context(), Config{Argv: []string{"/bin/sh", "-c", `
		cg=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)$(sed -n 's/^0:://p' /proc/self/cgroup)
		mkdir "$cg/sub" || exit 1
		sleep 3600 </dev/null >/dev/null 2>&1 &
		echo $! > "$cg/sub/cgroup.procs" && echo moved
		exec cat >/dev/null`}, Env: []string{"PATH=/usr/bin:/bin"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.ctl.cg == nil {
		p.Stop(time.Second, time.Second)
		t.Skip("no cgroup could be made here")
	}
	dir := p.ctl.cg.dir
	if ln := <-p.Lines(); string(ln.Data) != "moved" {
		p.Stop(time.Second, time.Second)
		t.Fatalf("first line %q, want moved", ln.Data)
	}
	p.Stop(200*time.Millisecond, 200*time.Millisecond)
	if got := p.Leftovers(); got.Count != 1 {
		t.Errorf("Leftovers = %+v, want the sleep in the sub-cgroup", got)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("cgroup %s (with its sub-cgroup) still exists after Stop: %v", dir, err)
	}
}

// A pooled cgroup is handed to the next IUT only when the IUT that used it
// left it as made; otherwise it is removed. Close removes the pooled ones.
func TestPoolHandsOnOnlyCleanCgroups(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// script runs as the IUT with $cg its cgroup directory.
		script string
		// survivor: a process outlives the IUT (Stop kills it).
		handedOn, survivor bool
	}{
		{name: "exits cleanly", script: `exit 0`, handedOn: true},
		{name: "leaves it frozen", script: `echo 1 > "$cg/cgroup.freeze"; exit 0`},
		{name: "makes a cgroup below it", script: `mkdir "$cg/sub"; exit 0`},
		{name: "leaves a process behind", script: `setsid sleep 3600 </dev/null >/dev/null 2>&1 & exit 0`, survivor: true},
		{name: "is killed", script: `trap '' TERM; sleep 3600 </dev/null >/dev/null 2>&1; exit 0`},
		{name: "kills its own cgroup", script: `echo 1 > "$cg/cgroup.kill"; sleep 3600`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pl := NewPool()
			defer pl.Close()
			run := func(script string) (*cgroup, Exit) {
				p, err := Start(t.Context(), Config{Pool: pl, Argv: []string{"/bin/sh", "-c",
					`cg=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)$(sed -n 's/^0:://p' /proc/self/cgroup); ` + script},
					Env: []string{"PATH=/usr/bin:/bin"}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				cg := p.ctl.cg
				// A frozen or hanging IUT never exits: Stop kills it.
				e := p.Stop(time.Second, 200*time.Millisecond)
				if got := p.Leftovers().Count > 0; got != tc.survivor && script == tc.script {
					t.Errorf("survivors %+v, want some: %v", p.Leftovers(), tc.survivor)
				}
				return cg, e
			}
			first, _ := run(tc.script)
			if first == nil {
				t.Skip("no cgroup could be made here")
			}
			second, e := run(`exit 0`)
			if e != (Exit{}) {
				t.Errorf("the next IUT ended with %+v, want exit status 0", e)
			}
			if got := second == first; got != tc.handedOn {
				t.Errorf("cgroup handed to the next IUT: %v, want %v", got, tc.handedOn)
			}
			if !tc.handedOn {
				if _, err := os.Stat(first.dir); !os.IsNotExist(err) {
					t.Errorf("cgroup %s not handed on but still exists: %v", first.dir, err)
				}
			}
			pl.Close()
			if _, err := os.Stat(second.dir); !os.IsNotExist(err) {
				t.Errorf("pooled cgroup %s still exists after Close: %v", second.dir, err)
			}
		})
	}
}

// Where no cgroup v2 holds the IUT but a cgroup v1 made for its process
// limit does, that cgroup holds what the IUT forks, whatever it does with
// sessions and its environment: a re-parented process that cleared its
// environment is still counted as this IUT's (attributed) and killed, and
// one killed with the main process is no leftover. The pool is told that
// no cgroup v2 can be made, so the v1 pids hierarchy (where one is mounted
// and writable) is all that holds the IUT. Not parallel: the sweep of
// another test's IUT would (rightly) kill an unattributable escapee.
func TestEscapeHeldByCgroupV1(t *testing.T) {
	if !IsSubreaper() {
		t.Skip("no child subreaper here")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pl := newPool()
	pl.once.Do(func() { pl.err = errors.New("no cgroup v2, for this test") })
	pool := &Pool{p: pl}
	defer pool.Close()
	if pl.limitCtl().pidsV1 == nil {
		t.Skip("no writable cgroup v1 pids hierarchy here")
	}
	for _, tc := range []struct {
		behaviour string
		grace     time.Duration
		want      Leftovers
	}{
		{"escape", 20 * time.Millisecond, Leftovers{Count: 1}},
		{"escapehold", 10 * time.Millisecond, Leftovers{}},
	} {
		for round := range 10 {
			p, err := Start(t.Context(), Config{Argv: []string{exe}, Env: []string{"PROC_TEST_CHILD=" + tc.behaviour}, Pool: pool}, nil)
			if err != nil {
				t.Fatal(err)
			}
			ln := <-p.Lines()
			pid, err := strconv.Atoi(strings.TrimPrefix(string(ln.Data), "escapee "))
			if err != nil {
				p.Stop(time.Second, time.Second)
				t.Fatalf("first line %q, want escapee <pid>", ln.Data)
			}
			if p.ctl.cg != nil || len(p.ctl.v1()) == 0 {
				p.Stop(time.Second, time.Second)
				t.Fatalf("the IUT has cgroup v2 %v and cgroups v1 %v, want only v1", p.ctl.cg, p.ctl.v1())
			}
			if !slices.Contains(p.ctl.v1Members(), pid) {
				t.Errorf("%s round %d: escapee %d not in the IUT's cgroup v1 %v", tc.behaviour, round, pid, p.ctl.v1Members())
			}
			if tc.behaviour == "escape" {
				// The main process ends by itself; the escapee outlives it.
				select {
				case <-p.Exited():
				case <-time.After(20 * time.Second):
					t.Fatal("the IUT did not exit")
				}
			}
			p.Stop(tc.grace, time.Second)
			if got := p.Leftovers(); got != tc.want {
				t.Errorf("%s round %d: Leftovers = %+v, want %+v", tc.behaviour, round, got, tc.want)
			}
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("%s round %d: escapee %d survived Stop (kill 0: %v)", tc.behaviour, round, pid, err)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// A pooled pids cgroup v1 keeps the thread that forks its IUTs (a
// resident): its pids.max is the IUT's limit plus that thread, the next
// IUT gets the same cgroup and thread, and Close ends the thread and
// removes the cgroup.
func TestResidentThread(t *testing.T) {
	t.Parallel()
	pool := NewPool()
	defer pool.Close()
	if pool.Supports().Procs != "cgroup v1" {
		t.Skipf("process limits are held by %q here, not a cgroup v1", pool.Supports().Procs)
	}
	run := func() (*resident, []string) {
		p, err := Start(t.Context(), Config{Argv: []string{"/bin/cat"}, Pool: pool, Limits: Limits{Procs: 8}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Stop(time.Second, time.Second)
		r := p.ctl.lim.res
		if r == nil {
			t.Fatal("no resident thread for a pooled pids cgroup v1")
		}
		if b, _ := os.ReadFile(r.dir + "/pids.max"); strings.TrimSpace(string(b)) != "9" {
			t.Errorf("pids.max = %q, want 9 (the limit and the resident thread)", b)
		}
		if got := v1Procs(r.dir); !slices.Equal(got, []int{p.Pid()}) {
			t.Errorf("cgroup.procs without conform = %v, want only the IUT %d", got, p.Pid())
		}
		b, _ := os.ReadFile(r.dir + "/tasks")
		var ours []string
		for _, tid := range strings.Fields(string(b)) {
			if _, err := os.Stat("/proc/self/task/" + tid); err == nil {
				ours = append(ours, tid)
			}
		}
		if len(ours) != 1 {
			t.Errorf("conform's threads in the cgroup: %v, want one", ours)
		}
		return r, ours
	}
	r1, t1 := run()
	r2, t2 := run()
	if r1 != r2 || !slices.Equal(t1, t2) {
		t.Errorf("second IUT: cgroup %s thread %v, want the first's, %s %v", r2.dir, t2, r1.dir, t1)
	}
	pool.Close()
	if _, err := os.Stat(r1.dir); !os.IsNotExist(err) {
		t.Errorf("cgroup %s still exists after Close: %v", r1.dir, err)
	}
	for _, tid := range t1 {
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) { // a hang guard
			if _, err := os.Stat("/proc/self/task/" + tid); os.IsNotExist(err) {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("resident thread %s still runs after Close", tid)
				break
			}
		}
	}
}
