//go:build linux

package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/conform-kit/conform/runner"
)

// readCeiling is the most resident memory conform may use to refuse an
// oversized file: it reads no more than the bound (16 MiB for a vector,
// 64 MiB for a golden file) and mostly nothing.
const readCeiling = 120 << 20

// TestValidateFileBounded: conform validate FILE reads a vector or golden
// file only up to the bound a run reads it with, and refuses a larger one
// by its size, unread. Before issue 22 a 1 GB file took 2.07 GB.
func TestValidateFileBounded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss is in KiB on Linux only")
	}
	t.Parallel()
	bin := childBin(t)
	dir := t.TempDir()
	vector := filepath.Join(dir, "big.json")
	golden := filepath.Join(dir, "golden", "v1", "big.json")
	if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{vector, golden} {
		// Sparse: a gigabyte the file system does not store.
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(f, 1<<30); err != nil {
			t.Fatal(err)
		}
	}
	out, code, peak := runChild(t, bin, "validate", vector, golden)
	t.Logf("peak RSS %.1f MiB", float64(peak)/(1<<20))
	for _, want := range []string{
		"INVALID " + vector + ": VECTOR_TOO_LARGE: 1073741824 bytes, over the 16777216 bytes a vector file may have",
		"INVALID " + golden + ": GOLDEN_INVALID: 1073741824 bytes, over the 67108864 bytes a golden file may have",
		"2 files, 2 invalid",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != exitFail {
		t.Errorf("exit %d, want %d", code, exitFail)
	}
	if peak > readCeiling {
		t.Errorf("conform's peak RSS was %d MiB, over the %d MiB ceiling", peak>>20, readCeiling>>20)
	}
}

// TestGoldenUpdateOversized: golden --update refuses a golden file larger
// than suite.MaxGoldenFile before anything runs, without reading it, and
// writes nothing. Before issue 22 a 2 GB golden file took 2.14 GB.
func TestGoldenUpdateOversized(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss is in KiB on Linux only")
	}
	t.Parallel()
	bin := childBin(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, suiteSubset(t, "vectors/v1/agent/interrupt-idle.json", "golden/v1/interrupt-idle.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := runner.WriteManifest(dir); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "golden", "v1", "interrupt-idle.json")
	if err := os.Truncate(big, 2<<30); err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join(dir, "MANIFEST.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	out, code, peak := runChild(t, bin, "golden", "--update", "--suite", dir)
	t.Logf("peak RSS %.1f MiB", float64(peak)/(1<<20))
	want := "GOLDEN_INVALID: golden golden/v1/interrupt-idle.json is 2147483648 bytes, over the 67108864 a golden file may have: it is not read"
	if code != exitUsage || !strings.Contains(out, want) {
		t.Errorf("exit %d, want %d with %q:\n%s", code, exitUsage, want, out)
	}
	if peak > readCeiling {
		t.Errorf("conform's peak RSS was %d MiB, over the %d MiB ceiling", peak>>20, readCeiling>>20)
	}
	if st, err := os.Stat(big); err != nil || st.Size() != 2<<30 {
		t.Errorf("the oversized golden file was touched: %v, %v", st, err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "MANIFEST.sha256")); string(after) != string(manifest) {
		t.Errorf("MANIFEST.sha256 was rewritten")
	}
}
