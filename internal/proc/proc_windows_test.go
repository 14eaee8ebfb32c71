package proc_test

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/windows"

	"github.com/conform-kit/conform/internal/proc"
)

// platformChild: no Windows-only behaviours.
func platformChild(string) (int, bool) { return 0, false }

// detach starts cmd without a console of its own: it stays in the job.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP}
}

// underWine reports whether this runs under Wine, whose ntdll exports
// wine_get_version.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// testDir is t.TempDir, except under Wine 8.0, where Go's os.RemoveAll
// fails on any directory with entries ("unlinkat: Invalid function"), so
// the directory is removed on a best-effort basis.
func testDir(t *testing.T) string {
	if !underWine() {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "proc-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// systemAdded reports variables Windows adds to every child's environment
// (os/exec adds SYSTEMROOT) and those Wine adds.
func systemAdded(kv string) bool {
	k, _, _ := strings.Cut(kv, "=")
	k = strings.ToUpper(k)
	return k == "SYSTEMROOT" || k == "SYSTEMDRIVE" || strings.HasPrefix(k, "WINE")
}

// signalExits: Windows has no signals.
var signalExits []struct {
	name      string
	behaviour string
	env       []string
	want      proc.Exit
}

// alive reports whether pid still runs.
func alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	if windows.GetExitCodeProcess(h, &code) != nil {
		return false
	}
	return code == 259 // STILL_ACTIVE
}

// TestStop: without signals, an IUT that does not exit on stdin close is
// terminated with its job after the grace period.
func TestStop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		behaviour string
		want      proc.Exit
	}{
		{"exits on stdin close", "exitoneof", proc.Exit{Code: 3}},
		{"needs terminating", "sleeper", proc.Exit{Code: 1, Stopped: "SIGKILL"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := start(t, proc.Config{}, tc.behaviour, nil)
			if ln, _ := nextLine(t, p); string(ln.Data) != "ready" {
				t.Fatalf("first line %q, want ready", ln.Data)
			}
			if diff := cmp.Diff(tc.want, stopWithin(t, p, 300*time.Millisecond, 300*time.Millisecond)); diff != "" {
				t.Errorf("Stop (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJobKillsTree: a grandchild that holds stdout (and one detached from
// the console) is in the job and is terminated with it, and counted.
func TestJobKillsTree(t *testing.T) {
	t.Parallel()
	for _, detached := range []bool{false, true} {
		env := []string{"PROC_TEST_GRANDCHILD=sleeper"}
		if detached {
			env = append(env, "PROC_TEST_SETSID=1")
		}
		p := start(t, proc.Config{}, "grandchild", env)
		pid := 0
		for range 2 {
			ln, _ := nextLine(t, p)
			if rest, ok := strings.CutPrefix(string(ln.Data), "grandchild "); ok {
				pid, _ = strconv.Atoi(rest)
			}
		}
		if pid == 0 || !alive(pid) {
			t.Fatalf("detached=%v: no live grandchild (%d)", detached, pid)
		}
		stopWithin(t, p, 300*time.Millisecond, 300*time.Millisecond)
		if alive(pid) {
			t.Errorf("detached=%v: grandchild %d survived Stop", detached, pid)
		}
		if got := p.Leftovers(); got.Count != 1 {
			t.Errorf("detached=%v: Leftovers = %+v, want one survivor", detached, got)
		}
	}
}
