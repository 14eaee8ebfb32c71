package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pythonShimDir returns a directory to put first on the PATH of the
// commands TestTutorial and TestWritingASuite run, holding a python3 that
// execs the interpreter python3 on PATH runs (its sys.executable), or ""
// when python3 on PATH is that interpreter already (a plain install, a
// venv). A version manager's shim stands between: pyenv's python3 is a
// bash script that runs `pyenv exec`, about 0.1 s of CPU before the
// interpreter starts, and the pages start python3 hundreds of times (once
// per vector). The same interpreter runs either way, with the same
// arguments, from its own path (so that a venv it belongs to is still
// found); what is left out is the shim's choosing, done once here.
func pythonShimDir(t *testing.T) string {
	t.Helper()
	onPath, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(onPath, "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Fatalf("python3 -c 'print(sys.executable)': %v", err)
	}
	exe := strings.TrimSpace(string(out))
	if exe == "" || !filepath.IsAbs(exe) {
		t.Fatalf("python3 names no interpreter (sys.executable %q)", exe)
	}
	if same(onPath, exe) {
		return ""
	}
	dir := t.TempDir()
	script := "#!/bin/sh\nexec '" + strings.ReplaceAll(exe, "'", `'\''`) + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "python3"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// same reports whether two paths name one file.
func same(a, b string) bool {
	if a == b {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
