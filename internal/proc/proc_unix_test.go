//go:build unix

package proc_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/proc"
)

// platformChild plays the behaviours that need Unix signals.
func platformChild(behaviour string) (int, bool) {
	switch behaviour {
	case "selfkill":
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		sleepForever()
	case "selfterm":
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		sleepForever()
	case "escape", "escapehold":
		// Double fork: a shell in a session of its own starts sleep with
		// an empty environment (or, with PROC_TEST_KEEPENV, the IUT's)
		// and exits, so sleep is re-parented. Then the IUT exits 0
		// (escapehold: it waits to be signalled).
		script := `env -i sleep 3600 </dev/null >/dev/null 2>&1 & echo $!`
		if os.Getenv("PROC_TEST_KEEPENV") != "" {
			script = `sleep 3600 </dev/null >/dev/null 2>&1 & echo $!`
		}
		sh := exec.Command("/bin/sh", "-c", script)
		detach(sh)
		out, err := sh.Output()
		if err != nil {
			panic(err)
		}
		fmt.Printf("escapee %s\n", strings.TrimSpace(string(out)))
		if behaviour == "escapehold" {
			sleepForever()
		}
		return 0, true
	case "probe": // who am I, and what can I reach of my caller's?
		groups, _ := os.Getgroups()
		fmt.Printf("uid=%d gid=%d groups=%v\n", os.Getuid(), os.Getgid(), groups)
		if _, err := os.ReadFile("/proc/" + os.Getenv("PROC_TEST_PEER") + "/environ"); err != nil {
			fmt.Println("environ: denied")
		} else {
			fmt.Println("environ: read")
		}
		if err := os.WriteFile(os.Getenv("PROC_TEST_FILE"), []byte("CERTIFIED"), 0o644); err != nil {
			fmt.Println("write: denied")
		} else {
			fmt.Println("write: done")
		}
		m, _ := os.ReadFile("/proc/self/uid_map")
		fmt.Printf("uid_map: %s\n", strings.Join(strings.Fields(string(m)), " "))
		return 0, true
	case "fds": // the open descriptors of this process, one a line: "fd target"
		ents, _ := os.ReadDir("/proc/self/fd")
		for _, e := range ents {
			target, _ := os.Readlink("/proc/self/fd/" + e.Name())
			fmt.Printf("%s %s\n", e.Name(), target)
		}
		return 0, true
	case "closestdout": // closes stdout and lives until stdin closes
		os.Stdout.Close()
		io.Copy(io.Discard, os.Stdin)
		return 0, true
	}
	return 0, false
}

// detach puts cmd in a session of its own, out of the IUT's process group.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// testDir is t.TempDir.
func testDir(t *testing.T) string { return t.TempDir() }

// systemAdded: Unix adds nothing to a child's environment.
func systemAdded(string) bool { return false }

// signalExits are the exits by signal TestExitStatus checks.
var signalExits = []struct {
	name      string
	behaviour string
	env       []string
	want      proc.Exit
}{
	{"killed by SIGKILL", "selfkill", nil, proc.Exit{Code: -1, Signal: "SIGKILL"}},
	{"killed by SIGTERM", "selfterm", nil, proc.Exit{Code: -1, Signal: "SIGTERM"}},
}

func TestStop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		behaviour string
		grace     time.Duration
		killAfter time.Duration
		want      proc.Exit
	}{
		{"exits on stdin close", "exitoneof", 10 * time.Second, 10 * time.Second, proc.Exit{Code: 3}},
		{"needs SIGTERM", "sleeper", 200 * time.Millisecond, 10 * time.Second, proc.Exit{Code: -1, Signal: "SIGTERM", Stopped: "SIGTERM"}},
		{"ignores SIGTERM", "ignoreterm", 200 * time.Millisecond, 300 * time.Millisecond, proc.Exit{Code: -1, Signal: "SIGKILL", Stopped: "SIGKILL"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := start(t, proc.Config{}, tc.behaviour, nil)
			if ln, _ := nextLine(t, p); string(ln.Data) != "ready" {
				t.Fatalf("first line %q, want ready", ln.Data)
			}
			got := stopWithin(t, p, tc.grace, tc.killAfter)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Stop (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(got, p.Exit()); diff != "" {
				t.Errorf("Exit() after Stop differs (-Stop +Exit):\n%s", diff)
			}
			select {
			case <-p.Exited():
			default:
				t.Errorf("Exited not closed after Stop")
			}
			if _, ok := <-p.Lines(); ok {
				t.Errorf("Lines still open after Stop")
			}
		})
	}
}

// gone reports whether pid no longer runs: ESRCH, or a zombie waiting for
// its new parent (init) to reap it.
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return false // no /proc (macOS, FreeBSD): alive until ESRCH
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	// "pid (comm) S ...": the state follows the last ')'.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard) // returns as soon as the process is gone
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Errorf("process %d still alive", pid)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// grandchildPID reads stdout lines until the "grandchild <pid>" line (the
// grandchild's own "ready" may come first) and returns the pid and the other
// lines seen.
func grandchildPID(t *testing.T, p *proc.Proc, lines int) (int, []string) {
	t.Helper()
	pid := 0
	var others []string
	for range lines {
		ln, ok := nextLine(t, p)
		if !ok {
			t.Fatal("stdout closed early")
		}
		if rest, ok := strings.CutPrefix(string(ln.Data), "grandchild "); ok {
			n, err := strconv.Atoi(rest)
			if err != nil || n <= 0 {
				t.Fatalf("bad grandchild line %q", ln.Data)
			}
			pid = n
			continue
		}
		others = append(others, string(ln.Data))
	}
	if pid == 0 {
		t.Fatalf("no grandchild line among %q", others)
	}
	return pid, others
}

func TestStopGrandchildHoldingStdout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		grandchild string
	}{
		{"grandchild dies on SIGTERM", "sleeper"},
		{"grandchild ignores SIGTERM", "ignoreterm"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := start(t, proc.Config{}, "grandchild", []string{"PROC_TEST_GRANDCHILD=" + tc.grandchild})
			pid, others := grandchildPID(t, p, 2)
			if diff := cmp.Diff([]string{"ready"}, others); diff != "" {
				t.Fatalf("other lines (-want +got):\n%s", diff)
			}
			waitExit(t, p) // the main process is gone; stdout is still open
			if gone(pid) {
				t.Fatalf("grandchild %d died before Stop", pid)
			}
			got := stopWithin(t, p, 200*time.Millisecond, 300*time.Millisecond)
			// The main process ended by itself, so nothing was "stopped".
			if diff := cmp.Diff(proc.Exit{Code: 0}, got); diff != "" {
				t.Errorf("Stop (-want +got):\n%s", diff)
			}
			waitGone(t, pid)
			if _, ok := <-p.Lines(); ok {
				t.Errorf("Lines still open after Stop")
			}
			// It outlived the main process by the whole grace period.
			if got := p.Leftovers(); got.Count != 1 {
				t.Errorf("Leftovers = %+v, want one survivor", got)
			}
		})
	}
}

// TestStopGrandchildOutsideGroup: a grandchild that left the process group
// (setsid) cannot be killed through the group, but Stop still returns.
func TestStopGrandchildOutsideGroup(t *testing.T) {
	t.Parallel()
	p := start(t, proc.Config{}, "grandchild", []string{"PROC_TEST_GRANDCHILD=sleeper", "PROC_TEST_SETSID=1"})
	pid, _ := grandchildPID(t, p, 2) // "grandchild <pid>" and the sleeper's "ready", in either order
	// We started it (through our child): end it by its id.
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	waitExit(t, p)
	got := stopWithin(t, p, 200*time.Millisecond, 300*time.Millisecond)
	if got.Code != 0 {
		t.Errorf("Stop = %+v, want code 0", got)
	}
	// Lines is closed after Stop; unread lines stay readable before that.
	for _, ln := range allLines(t, p) {
		if string(ln.Data) != "ready" {
			t.Errorf("unexpected line %q", ln.Data)
		}
	}
}

func TestContextCancelKillsGroup(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	p, err := proc.Start(ctx, proc.Config{Argv: []string{self(t)}, Env: []string{childEnv + "=ignoreterm"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(100*time.Millisecond, 100*time.Millisecond) })
	if ln, _ := nextLine(t, p); string(ln.Data) != "ready" {
		t.Fatalf("first line %q, want ready", ln.Data)
	}
	cancel()
	if diff := cmp.Diff(proc.Exit{Code: -1, Signal: "SIGKILL"}, waitExit(t, p)); diff != "" {
		t.Errorf("Exit (-want +got):\n%s", diff)
	}
}
