package proc

import (
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
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
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
