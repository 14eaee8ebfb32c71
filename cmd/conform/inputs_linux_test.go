//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/testtool"
	"github.com/conform-kit/conform/runner"
)

// hostileSize is the size of the sparse files TestInputsBounded makes:
// 1 GiB of holes, which costs no disk and, read whole, 1-2 GiB of memory.
const hostileSize = 1 << 30

// inputCeiling is the peak resident memory a refused hostile input may
// cost conform (and its IUTs), in bytes: the refusal comes from the file's
// size or type before it is read, so the peak is conform's own start (the
// embedded suite, about 30-60 MiB); a whole read of the 1 GiB file would
// be above it.
const inputCeiling = 256 << 20

// TestInputsBounded: every kit input named in issue 33 (and the other
// files the kit reads whole: compat's schemas and policies, frozen's
// inputs, drift's recordings and --schema), replaced by a FIFO
// (no writer ever comes) or by a sparse 1 GiB file, is refused within
// seconds with its stable code and exit 2 (1 for a file given to
// validate, reported as an INVALID line), and conform's memory stays
// under inputCeiling. Before, a FIFO hung run, validate --suite, report
// merge and matrix --from forever (here: killed after a minute), and
// suite.json, MANIFEST.sha256, schema files and shards were read whole
// (1.07-2.1 GB for 1 GB).
func TestInputsBounded(t *testing.T) {
	t.Parallel()
	bin := childBin(t)
	type kind struct {
		name string
		// suitePath is the file of a copied suite replaced (empty: a file
		// given on the command line).
		suitePath string
		// args are the command; SUITE is the suite copy, FILE the
		// hostile file.
		args []string
		// fifo and sparse are the codes wanted for a FIFO and for the
		// sparse file.
		fifo, sparse string
		// exit is the status wanted: 2 (invalid input), except for
		// files given to validate, which are checked one by one and
		// reported as INVALID lines (1).
		exit int
	}
	kinds := []kind{
		{"suite.json", "suite.json", []string{"validate", "--suite", "SUITE"}, "INPUT_NOT_REGULAR", "INPUT_TOO_LARGE", exitUsage},
		{"MANIFEST.sha256", "MANIFEST.sha256", []string{"validate", "--suite", "SUITE"}, "INPUT_NOT_REGULAR", "INPUT_TOO_LARGE", exitUsage},
		{"schema file", "schemas/control.v1.json", []string{"validate", "--suite", "SUITE"}, "INPUT_NOT_REGULAR", "INPUT_TOO_LARGE", exitUsage},
		{"vector file (validate)", "vectors/v1/agent/interrupt-idle.json", []string{"validate", "--suite", "SUITE"}, "INPUT_NOT_REGULAR", "VECTOR_TOO_LARGE", exitUsage},
		{"vector file (run)", "vectors/v1/agent/interrupt-idle.json", []string{"run", "--suite", "SUITE", "--filter", "interrupt-idle"}, "INPUT_NOT_REGULAR", "VECTOR_TOO_LARGE", exitUsage},
		{"golden file", "golden/v1/interrupt-idle.json", []string{"validate", "--suite", "SUITE"}, "INPUT_NOT_REGULAR", "INPUT_TOO_LARGE", exitUsage},
		{"report merge shard", "", []string{"report", "merge", "FILE"}, "INPUT_NOT_REGULAR", "INPUT_TOO_LARGE", exitUsage},
		{"report show", "", []string{"report", "show", "FILE"}, "INPUT_NOT_REGULAR", "INPUT_TOO_LARGE", exitUsage},
		{"matrix --from", "", []string{"matrix", "--from", "x=FILE"}, "INPUT_NOT_REGULAR", "INPUT_TOO_LARGE", exitUsage},
		{"run --rerun-failed", "", []string{"run", "--rerun-failed", "FILE"}, "INPUT_NOT_REGULAR", "INPUT_TOO_LARGE", exitUsage},
		{"validate a vector file", "", []string{"validate", "FILE"}, "INPUT_NOT_REGULAR", "VECTOR_TOO_LARGE", exitFail},
		{"compat schema", "", []string{"compat", "FILE", "REPO/schemas/control.v1.json"}, "INPUT_NOT_REGULAR", "INPUT_TOO_LARGE", exitUsage},
		{"compat policy", "", []string{"compat", "--ignore", "FILE", "REPO/schemas/control.v1.json", "REPO/schemas/control.v1.json"}, "INPUT_NOT_REGULAR", "INPUT_TOO_LARGE", exitUsage},
		{"frozen", "", []string{"frozen", "--published", "FILE", "--working", "REPO/schemas/control.v1.json", "--changelog", "REPO/COMPATIBILITY.md", "--date", "2026-01-01"}, "INPUT_NOT_REGULAR", "INPUT_TOO_LARGE", exitUsage},
		{"drift recording", "", []string{"drift", "DIR", "DIR"}, "INPUT_NOT_REGULAR", "INPUT_TOO_LARGE", exitUsage},
		{"drift --schema", "", []string{"drift", "--schema", "FILE", "golden", "golden"}, "INPUT_NOT_REGULAR", "INPUT_TOO_LARGE", exitUsage},
	}
	if _, err := os.Stat(filepath.Join(repoRoot(t), "schemas", "control.v1.json")); err != nil {
		t.Fatalf("the schema file this test replaces is gone: %v", err)
	}
	// Plain go test tries one hostile file per input, a FIFO and a sparse
	// file in turn (both codes, every input, 11 conform runs);
	// CONFORM_TEST_DEEP=1 (CI stage 80) tries both on every input.
	for i, k := range kinds {
		for j, hostile := range []string{"fifo", "sparse"} {
			if !testtool.Deep() && i%2 != j {
				continue
			}
			t.Run(k.name+"/"+hostile, func(t *testing.T) {
				t.Parallel()
				root := t.TempDir()
				file := filepath.Join(root, "hostile.json")
				suiteDir := ""
				if k.suitePath != "" {
					suiteDir = filepath.Join(root, "suite")
					// The suite with the one vector these cases name.
					if err := os.CopyFS(suiteDir, suiteSubset(t, "vectors/v1/agent/interrupt-idle.json", "golden/v1/interrupt-idle.json")); err != nil {
						t.Fatal(err)
					}
					if _, err := runner.WriteManifest(suiteDir); err != nil {
						t.Fatal(err)
					}
					file = filepath.Join(suiteDir, k.suitePath)
					if err := os.Remove(file); err != nil {
						t.Fatal(err)
					}
				}
				want := k.sparse
				if hostile == "fifo" {
					want = k.fifo
					if err := syscall.Mkfifo(file, 0o644); err != nil {
						t.Skipf("no FIFOs here: %v", err)
					}
				} else {
					if err := os.WriteFile(file, nil, 0o644); err != nil {
						t.Fatal(err)
					}
					if err := os.Truncate(file, hostileSize); err != nil {
						t.Fatal(err)
					}
				}
				args := make([]string, len(k.args))
				for i, a := range k.args {
					args[i] = strings.NewReplacer("SUITE", suiteDir, "FILE", file, "DIR", filepath.Dir(file), "REPO", repoRoot(t)).Replace(a)
				}
				start := time.Now()
				out, code, rss, timedOut := runChildBounded(t, bin, time.Minute, args...)
				took := time.Since(start)
				if timedOut {
					t.Fatalf("conform %s did not end within a minute (blocked on the %s?):\n%s", strings.Join(args, " "), hostile, tail(out, 1500))
				}
				if code != k.exit || !strings.Contains(out, want) {
					t.Errorf("conform %s: exit %d, want %d with %s:\n%s", strings.Join(args, " "), code, k.exit, want, tail(out, 1500))
				}
				if rss > inputCeiling {
					t.Errorf("conform %s: peak resident memory %d MiB, want under %d MiB (the input was read)", strings.Join(args, " "), rss>>20, inputCeiling>>20)
				}
				t.Logf("%s: exit %d in %v, peak %d MiB", strings.Join(args[:2], " "), code, took.Round(time.Millisecond), rss>>20)
			})
		}
	}
}

// runChildBounded is runChild with a time limit: a child still running
// after limit is killed and timedOut is true.
func runChildBounded(t *testing.T, bin string, limit time.Duration, args ...string) (out string, code int, rss int64, timedOut bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "conform"), args...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss << 10
	}
	return buf.String(), cmd.ProcessState.ExitCode(), rss, ctx.Err() != nil
}
