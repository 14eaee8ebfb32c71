package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pythonShimDir returns a directory to put first on the PATH of the
// commands TestTutorial and TestWritingASuite run, holding a python3 that
// execs the interpreter python3 on PATH runs (its sys.executable) with -S.
// The pages start python3 hundreds of times (once per vector), and two
// costs come before the program: a version manager's shim (pyenv's
// python3 is a bash script that runs `pyenv exec`, about 0.1 s of CPU),
// and the site module, which imports what every .pth file of the
// interpreter's site-packages names (on this project's machine one
// imports certifi: 34 of the 45 ms of CPU a start). The pages' programs
// use the standard library only; -S leaves site-packages off sys.path, so
// one that imported anything else would fail here, not pass. The same
// interpreter runs, with the same arguments after -S, from its own path
// (so that a venv it belongs to is still found).
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
	dir := t.TempDir()
	script := "#!/bin/sh\nexec '" + strings.ReplaceAll(exe, "'", `'\''`) + "' -S \"$@\"\n"
	writeScript(t, filepath.Join(dir, "python3"), script)
	return dir
}
