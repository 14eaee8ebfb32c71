package proc_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/testtool"
)

// spawner is a shell IUT that starts n sleeping processes, one after
// another, writing each pid to the file $1, then waits: a bounded stand-in
// for a fork bomb (it never makes more than n, whatever conform does).
const spawner = `i=0; while [ $i -lt %d ]; do sleep 60 & echo $! >> "$1"; i=$((i+1)); done; echo started; wait`

// TestProcessLimit: an IUT that starts more processes than its limit is
// ended within the watch's interval and reports the limit, held by a pids
// controller where the system offers one and by the process watch
// otherwise (and always with WatchOnly); none of its processes is left.
func TestProcessLimit(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	pool := proc.NewPool()
	defer pool.Close()
	sup := pool.Supports()
	t.Logf("process limits held by: %s", sup.Procs)
	for _, watchOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("watchOnly=%v", watchOnly), func(t *testing.T) {
			pids := filepath.Join(t.TempDir(), "pids")
			p, err := proc.Start(t.Context(), proc.Config{
				Argv:   []string{sh, "-c", fmt.Sprintf(spawner, 64), "spawner", pids},
				Pool:   pool,
				Limits: proc.Limits{Procs: 16, WatchOnly: watchOnly},
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-p.Exited():
			case <-time.After(hangGuard):
				t.Fatal("the IUT was not ended at its limit")
			}
			p.Stop(100*time.Millisecond, 100*time.Millisecond)
			ex := p.Exhaustion()
			want := "process watch"
			if !watchOnly && sup.Procs != "process watch" {
				want = map[string]string{"cgroup v1": "cgroup v1 pids", "cgroup v2": "cgroup v2 pids"}[sup.Procs]
			}
			if ex.Procs != 16 || ex.By != want {
				t.Errorf("Exhaustion = %+v, want the limit 16 reached, held by %s", ex, want)
			}
			assertGone(t, pids)
		})
	}

	// Within the limit nothing is reported.
	p, err := proc.Start(t.Context(), proc.Config{
		Argv: []string{sh, "-c", fmt.Sprintf(spawner, 4), "spawner", filepath.Join(t.TempDir(), "pids")},
		Pool: pool, Limits: proc.Limits{Procs: 16},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ln, ok := nextLine(t, p); !ok || string(ln.Data) != "started" {
		t.Fatalf("first line %q", ln.Data)
	}
	p.Stop(100*time.Millisecond, 100*time.Millisecond)
	if ex := p.Exhaustion(); ex != (proc.Exhaustion{}) {
		t.Errorf("Exhaustion = %+v within the limit, want none", ex)
	}
}

// assertGone checks that every pid in the file is dead.
func assertGone(t *testing.T, file string) {
	t.Helper()
	b, _ := os.ReadFile(file)
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		for deadline := time.Now().Add(hangGuard); ; time.Sleep(10 * time.Millisecond) {
			st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil {
				break
			}
			if i := bytes.LastIndexByte(st, ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("process %d of the IUT is still alive", pid)
				_ = syscall.Kill(pid, syscall.SIGKILL)
				break
			}
		}
	}
}

// TestMemoryLimit: an IUT above its memory bound has a process killed by
// the kernel, counted in Exhaustion.OOMKills (skipped where the system
// offers no memory controller: Start then fails, checked too).
func TestMemoryLimit(t *testing.T) {
	testtool.Need(t, "python3")
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal(err)
	}
	pool := proc.NewPool()
	defer pool.Close()
	cfg := proc.Config{
		Argv:   []string{py, "-c", "import time; b = bytearray(256 << 20); print('allocated', flush=True); time.sleep(30)"},
		Pool:   pool,
		Limits: proc.Limits{Memory: 64 << 20},
	}
	if pool.Supports().Memory == "" {
		if _, err := proc.Start(t.Context(), cfg, nil); err == nil || !strings.Contains(err.Error(), "memory controller") {
			t.Errorf("Start with a memory bound and no controller: %v, want an error naming the controller", err)
		}
		t.Skip("no memory controller here")
	}
	p, err := proc.Start(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := allLines(t, p)
	ex := p.Stop(100*time.Millisecond, 100*time.Millisecond)
	if len(lines) > 0 || ex.Signal != "SIGKILL" {
		t.Errorf("%d lines, exit %+v: want the IUT killed before it allocated", len(lines), ex)
	}
	if e := p.Exhaustion(); e.OOMKills < 1 || e.Memory != 64<<20 {
		t.Errorf("Exhaustion = %+v, want an OOM kill at 64 MiB", e)
	}
}

// TestIsolatedTempDirs: an isolated IUT (root only) has /tmp, /var/tmp
// and /dev/shm of its own: what it writes there is gone after Stop and
// never reached the directories on disk, what was there it can still
// read, and its HOME is the directory on disk. Before issue 22 its files
// in the system's temporary directory and /dev/shm outlived the run.
func TestIsolatedTempDirs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("isolation needs root")
	}
	const uid, gid = 65533, 65533
	home, err := os.MkdirTemp("", "conform-iut-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	work := filepath.Join(home, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{home, work} {
		if err := os.Chown(d, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	seen, err := os.CreateTemp("", "conform-visible-*")
	if err != nil {
		t.Fatal(err)
	}
	seen.WriteString("visible\n")
	seen.Close()
	os.Chmod(seen.Name(), 0o644)
	t.Cleanup(func() { os.Remove(seen.Name()) })
	tag := fmt.Sprintf("conform-private-%d", os.Getpid())
	paths := []string{filepath.Join("/tmp", tag), filepath.Join("/dev/shm", tag), filepath.Join("/var/tmp", tag)}
	for _, p := range paths {
		t.Cleanup(func() { os.Remove(p) })
	}
	script := fmt.Sprintf(`for f in %s; do echo x > "$f" && echo "wrote $f"; done; cat %s; echo home > "$HOME/in-home"; echo cwd > in-work; echo done`,
		strings.Join(paths, " "), seen.Name())
	p, err := proc.Start(t.Context(), proc.Config{
		Argv: []string{"/bin/sh", "-c", script}, Dir: work, Home: home,
		Env:     []string{"HOME=" + home, "PATH=/usr/bin:/bin"},
		Isolate: &proc.Isolation{UID: uid, GID: gid, Namespaces: true},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ln := range allLines(t, p) {
		out = append(out, string(ln.Data))
	}
	p.Stop(time.Second, time.Second)
	if !slicesContains(out, "done") || !slicesContains(out, "visible") {
		t.Fatalf("the IUT wrote %q: want it to read the file already in the temporary directory and finish", out)
	}
	for _, f := range paths {
		if slicesContains(out, "wrote "+f) {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("%s, which the isolated IUT wrote, is on disk after the run", f)
			}
		}
	}
	if !slicesContains(out, "wrote "+paths[0]) || !slicesContains(out, "wrote "+paths[1]) {
		t.Errorf("the IUT could not write its own /tmp and /dev/shm: %q", out)
	}
	for _, f := range []string{filepath.Join(home, "in-home"), filepath.Join(work, "in-work")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s, written in the IUT's HOME and working directory, is not on disk: %v", f, err)
		}
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
