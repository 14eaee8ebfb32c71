package proc

import (
	"os/exec"
	"slices"
	"testing"
)

// candidates must list a live child of this process, whichever source
// (children files or the /proc scan) the kernel offers.
func TestCandidatesListsChild(t *testing.T) {
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep: %v", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if got := candidates(); !slices.Contains(got, cmd.Process.Pid) {
		t.Fatalf("candidates() = %v, want it to contain child %d", got, cmd.Process.Pid)
	}
}
