//go:build linux

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

// TestSignalsEndRun: SIGINT, SIGTERM, SIGHUP (a closed terminal or ssh
// session) and SIGQUIT each end a run as an interruption: exit status 130,
// the report written (INTERRUPTED, the rest NOT_RUN), every process of
// every IUT ended, and no IUT directory left in the temporary directory.
// An interrupted run writes no attestation (--attest), and leaves no
// temporary file of one. Before issue 22 SIGHUP ended conform at once (exit 129, no report, two
// IUT processes alive, directories left) and SIGQUIT dumped its goroutines
// (exit 2, the same survivors).
func TestSignalsEndRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs conform as a child four times")
	}
	t.Parallel()
	bin := childBin(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tmp := filepath.Join(dir, "tmp")
			if err := os.Mkdir(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			pids := filepath.Join(dir, "pids")
			// The IUT records its pid and that of a child it starts, and
			// never answers.
			iut := filepath.Join(dir, "iut.sh")
			script := "#!/bin/sh\necho $$ >> \"$1\"\nsleep 600 &\necho $! >> \"$1\"\nwhile read -r line; do :; done\nwait\n"
			writeScript(t, iut, script)
			report := filepath.Join(dir, "report.json")
			attestation := filepath.Join(dir, "attestation.json")
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(bin, "conform"), "run", "-j", "2", "--timeout", "1m", "--no-fail-fast",
				"--format", "json", "--out", report, "--attest", attestation, "--", iut, pids)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Two IUTs, each with its child.
			var started []int
			for deadline := time.Now().Add(30 * time.Second); len(started) < 4; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the IUTs did not start: %v\n%s", started, out.String())
				}
				started = readPids(t, pids)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			if _, ok := err.(*exec.ExitError); err != nil && !ok {
				t.Fatal(err)
			}
			if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
				t.Errorf("exit status %d (%v), want %d:\n%s", code, cmd.ProcessState, exitInterrupted, out.String())
			}
			data, err := os.ReadFile(report)
			if err != nil {
				t.Fatalf("no report: %v\n%s", err, out.String())
			}
			var rep runner.Report
			if err := json.Unmarshal(data, &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != runner.VerdictInterrupted || !rep.Interrupted || rep.Summary.NotRun == 0 {
				t.Errorf("verdict %s, interrupted %v, %d not run; want INTERRUPTED with vectors not run", rep.Verdict, rep.Interrupted, rep.Summary.NotRun)
			}
			if _, err := os.Stat(attestation); err == nil {
				t.Errorf("an interrupted run wrote an attestation:\n%s", out.String())
			}
			if tmps, _ := filepath.Glob(filepath.Join(dir, ".attestation.json.tmp-*")); len(tmps) > 0 {
				t.Errorf("temporary files of the attestation left: %v", tmps)
			}
			for _, pid := range readPids(t, pids) {
				if alive(pid) {
					t.Errorf("IUT process %d is still alive after conform ended", pid)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			left, _ := filepath.Glob(filepath.Join(tmp, "conform-iut-*"))
			if len(left) > 0 {
				t.Errorf("IUT directories left behind: %v", left)
			}
		})
	}
}

// readPids reads the pids the IUTs wrote, one a line.
func readPids(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// alive reports whether pid is a live process (not gone, not a zombie),
// waiting up to 20 s (a hang guard for a loaded machine: it returns as soon
// as the process is gone) for one that was just killed to go.
func alive(pid int) bool {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			if syscall.Kill(pid, 0) != nil {
				return false
			}
			continue // no /proc here: the signal test says it lives
		}
		if i := bytes.LastIndexByte(b, ')'); i > 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X') {
			return false
		}
	}
	return true
}
