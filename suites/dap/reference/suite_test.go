package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/suite"
	"github.com/conform-kit/conform/runner"
)

// TestCertifiedExact runs the suite's folder (suites/dap, digests checked)
// against the reference adapter built from this package: it is CERTIFIED
// with every vector byte-identical with its golden file, so a change to the
// adapter or the vectors that `conform golden --update` did not follow
// fails here.
func TestCertifiedExact(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the reference and runs the whole suite")
	}
	bin := filepath.Join(t.TempDir(), "conform-dap-reference")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	d, err := suite.OpenDir("..")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s, err := suite.Load(d, suite.Options{Meta: conform.Meta()})
	if err != nil {
		t.Fatalf("suites/dap does not load: %v", err)
	}
	rep, err := runner.Run(context.Background(), runner.Config{Suite: s, Command: []string{bin}, Exact: true,
		Timeout: 10 * time.Second, Grace: 3 * time.Second, KillAfter: time.Second, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != runner.VerdictCertified {
		for _, r := range rep.Results {
			if r.Status != runner.Pass {
				t.Errorf("%s: %s %v", r.ID, r.Status, r.Findings)
			}
		}
		t.Fatalf("verdict %s, want %s", rep.Verdict, runner.VerdictCertified)
	}
	if n := len(rep.Results); n == 0 {
		t.Fatal("no results")
	}
	_ = os.Remove(bin)
}
