//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/conform-kit/conform/runner"
)

// peakCeiling is the most resident memory conform may use on the worst
// case the default bounds allow. The default per-vector budget is 16 MiB;
// measured here the 1,500-frame vector peaks at about 120-155 MiB (the
// budget's frames, the summary made of them, their decoded form and their
// differences from the golden file while they are compared, and the Go
// heap's headroom of 100% over what is live) and the generated vectors at
// about 20 MiB. 300 MiB leaves twice the measured peak for other
// machines, Go versions and garbage collector timing, and is still 15 to
// 30 times below the 4-9 GB these inputs took before they were bounded.
const peakCeiling = 300 << 20

// runChild runs conform (this test binary under that name) with args and
// returns its combined output, exit status and peak resident set in bytes.
func runChild(t *testing.T, bin string, args ...string) (string, int, int64) {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), filepath.Join(bin, "conform"), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no rusage here")
	}
	// Linux reports ru_maxrss in KiB. It is the peak of conform and of the
	// descendants it waited for (its IUTs, each a few MiB).
	return out.String(), cmd.ProcessState.ExitCode(), ru.Maxrss << 10
}

// childBin makes a folder with conform and conform-fake-iut, both this
// test binary (testscript.Main runs the command its name says).
func childBin(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	for _, name := range []string{"conform", "conform-fake-iut"} {
		if err := os.Symlink(exe, filepath.Join(bin, name)); err != nil {
			t.Skipf("cannot link the test binary: %v", err)
		}
	}
	return bin
}

// TestPeakMemoryFrames: an IUT that writes 1,500 frames of about 1 MB
// (each within --max-line, all within --max-frames) for one vector fails
// it with VECTOR_BUDGET_EXCEEDED, and conform's peak resident memory stays
// under peakCeiling (it took 4.1 GB for 300 such frames before the
// budget, growing with every frame).
func TestPeakMemoryFrames(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss is in KiB on Linux only")
	}
	if testing.Short() {
		t.Skip("writes 1.5 GB through a pipe")
	}
	t.Parallel()
	bin := childBin(t)
	report := filepath.Join(t.TempDir(), "report.json")
	out, code, peak := runChild(t, bin, "run", "--filter", "interrupt-idle", "-j", "1", "--grace", "500ms", "--kill-after", "500ms",
		"--format", "json", "--out", report, "--", filepath.Join(bin, "conform-fake-iut"), "bigframes", "1500", "1000000")
	t.Logf("peak RSS %.1f MiB", float64(peak)/(1<<20))
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep runner.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if r.Status != runner.ProtocolError || !hasFinding(r, runner.FindingBudgetExceeded) {
		t.Errorf("status %s, findings %v; want PROTOCOL_ERROR with VECTOR_BUDGET_EXCEEDED", r.Status, codesOf(r))
	}
	if len(data) > 2<<20 {
		t.Errorf("report of %d bytes, want under 2 MiB", len(data))
	}
	if peak > peakCeiling {
		t.Errorf("conform's peak RSS was %d MiB, over the %d MiB ceiling", peak>>20, peakCeiling>>20)
	}
}

// TestPeakMemoryGenerated: a vector of 40 generated lines of 64 MiB is
// refused when it is loaded (VECTOR_TOO_LARGE, exit 2) without being
// built, and one at the limit (four lines of nearly 64 MiB, 256 MiB in
// all) is streamed to the IUT; conform's peak resident memory stays under
// peakCeiling in both (the 40 lines took 5.0 GB before).
func TestPeakMemoryGenerated(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss is in KiB on Linux only")
	}
	if testing.Short() {
		t.Skip("streams 256 MiB through a pipe")
	}
	t.Parallel()
	bin := childBin(t)
	tests := []struct {
		name       string
		items      int
		size       int
		code       int
		wantOutput string
	}{
		{"forty lines of 64 MiB", 40, 64 << 20, 2, `gen-huge\.json \(VECTOR_TOO_LARGE\)`},
		{"four lines at the limit", 4, 64<<20 - 64, 0, "PASS +gen-huge"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := genSuite(t, tc.items, tc.size)
			out, code, peak := runChild(t, bin, "run", "--suite", dir, "--filter", "gen-huge", "-j", "1",
				"--", filepath.Join(bin, "conform-fake-iut"), "drain", strconv.Itoa(tc.items))
			t.Logf("peak RSS %.1f MiB", float64(peak)/(1<<20))
			if code != tc.code || !regexp.MustCompile(tc.wantOutput).MatchString(out) {
				t.Fatalf("exit %d, want %d with %q:\n%s", code, tc.code, tc.wantOutput, out)
			}
			if peak > peakCeiling {
				t.Errorf("conform's peak RSS was %d MiB, over the %d MiB ceiling", peak>>20, peakCeiling>>20)
			}
		})
	}
}

// genSuite copies the embedded suite to a folder, adds the agent vector
// gen-huge (items generated control requests of size bytes each, LF
// included, that the IUT reads before it exits 0) with its golden file,
// and seals the manifest.
func genSuite(t *testing.T, items, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, suiteSubset(t)); err != nil { // the one vector run is gen-huge
		t.Fatal(err)
	}
	var send []string
	for i := range items {
		prefix := fmt.Sprintf(`{\"type\":\"control_request\",\"request_id\":\"g%d\",\"request\":{\"subtype\":\"interrupt\",\"pad\":\"`, i)
		unescaped := len(strings.ReplaceAll(prefix, `\"`, `"`))
		count := (size - unescaped - len(`"}}`) - 1) / 4
		send = append(send, fmt.Sprintf(`{"generate":{"prefix":"%s","repeat":"aaaa","count":%d,"suffix":"\"}}"}}`, prefix, count))
	}
	vector := `{"id":"gen-huge","class":"core","version":1,"kind":"session","level":"required","role":"agent",` +
		`"description":"generated lines of 64 MiB","source":"issue 16","send":[` + strings.Join(send, ",") + `],"expect":{"exit":"zero"}}`
	files := map[string]string{
		"vectors/v1/agent/gen-huge.json": vector,
		"golden/v1/gen-huge.json":        `{"exit":"zero","frames":[],"vector":"gen-huge"}`,
	}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := runner.WriteManifest(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func hasFinding(r runner.Result, code string) bool {
	for _, f := range r.Findings {
		if f.Code == code {
			return true
		}
	}
	return false
}

func codesOf(r runner.Result) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Code)
	}
	return out
}

// vectorMemory is the most memory one vector holds at once, in bytes, by
// the formula docs/running.md "Bounds" states: twice --max-vector-bytes (what the
// vector keeps, and the work of comparing it at the end), 16 MiB of lines
// read ahead, and three lines of --max-line (one more queued when a line
// is longer than 16 MiB, the one being read, the one being judged).
func vectorMemory(maxVectorBytes, maxLine int64) int64 {
	return 2*maxVectorBytes + 16<<20 + 3*maxLine
}

// TestPeakMemoryFormula: at raised flag values, an IUT whose reply has as
// many members as the budget admits, and one whose reply has 1,000,000
// members (13 MB), keep conform's peak resident memory within the formula
// docs/running.md "Bounds" states: a run's own baseline (measured here on a
// passing vector) plus the heap's headroom of half its live part over
// vectorMemory. Before issue 22 the 1,000,000 members took 1.29 GB with
// --max-line 64 MiB and --max-vector-bytes 256 MiB (about four times what
// the README stated); the line is now refused before it is decoded.
func TestPeakMemoryFormula(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss is in KiB on Linux only")
	}
	if testing.Short() {
		t.Skip("runs conform several times with large replies")
	}
	t.Parallel()
	bin := childBin(t)
	iut := filepath.Join(bin, "conform-fake-iut")
	_, code, base := runChild(t, bin, "run", "--filter", "interrupt-idle", "-j", "1")
	if code != 0 {
		t.Fatalf("baseline run: exit %d", code)
	}
	t.Logf("baseline peak RSS %.1f MiB", float64(base)/(1<<20))
	for _, tc := range []struct {
		name              string
		maxLine, maxBytes int64
		members           int
		status            runner.Status
		// timeout is --timeout: the vector's wait for a reply, which
		// only the TIMEOUT case waits out; the others end when their
		// reply is checked, and a loaded machine (load 12 on 2 cores)
		// took more than 2 s to read and check 1,000,000 members: a
		// minute, which they never wait out, keeps load from changing
		// their verdict.
		timeout string
	}{
		// As many members as 64 MiB admit (2 values each, at 2 KiB a
		// value): passes, allowed differences all.
		{"at the budget", 4 << 20, 64 << 20, 15000, runner.Pass, "60s"},
		{"1,000,000 members, flags raised", 64 << 20, 256 << 20, 1000000, runner.ProtocolError, "60s"},
		// At the default --max-line the line is too long to be read.
		{"1,000,000 members, defaults", 1 << 20, 16 << 20, 1000000, runner.Timeout, "2s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "report.json")
			out, code, peak := runChild(t, bin, "run", "--filter", "interrupt-idle", "-j", "1", "--timeout", tc.timeout,
				"--max-line", strconv.FormatInt(tc.maxLine, 10), "--max-vector-bytes", strconv.FormatInt(tc.maxBytes, 10),
				"--format", "json", "--out", report, "--", iut, "wide", strconv.Itoa(tc.members))
			bound := base + 3*vectorMemory(tc.maxBytes, tc.maxLine)/2
			t.Logf("peak RSS %.1f MiB, bound %.1f MiB", float64(peak)/(1<<20), float64(bound)/(1<<20))
			data, err := os.ReadFile(report)
			if err != nil {
				t.Fatalf("exit %d, no report: %v\n%s", code, err, out)
			}
			var rep runner.Report
			if err := json.Unmarshal(data, &rep); err != nil {
				t.Fatal(err)
			}
			if r := rep.Results[0]; r.Status != tc.status {
				t.Errorf("status %s %v, want %s", r.Status, codesOf(r), tc.status)
			}
			if peak > bound {
				t.Errorf("conform's peak RSS was %.1f MiB, over the formula's %.1f MiB", float64(peak)/(1<<20), float64(bound)/(1<<20))
			}
		})
	}
}
