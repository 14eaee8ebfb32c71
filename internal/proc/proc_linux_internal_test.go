package proc

import (
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
