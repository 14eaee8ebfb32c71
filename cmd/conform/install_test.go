package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/suite"
)

// TestInstallRunsAnywhere holds README.md and docs/install.md to what
// they say: `go install ./cmd/...` from a clone gives a conform that runs
// the MCP suite by name from any directory. It installs into a fresh
// GOBIN, builds the MCP reference server (suites/mcp/reference), and from
// an empty directory runs conform suites (the MCP suite listed with its
// folder's digest), conform run --suite mcp --filter ping against the
// reference, and the same run through a profile that names the suite
// "mcp".
func TestInstallRunsAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("go install ./cmd/... builds every command: not in -short")
	}
	t.Parallel()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	root := repoRoot(t)
	bin := t.TempDir()
	install := exec.Command(goCmd, "install", "./cmd/...")
	install.Dir = root
	install.Env = append(os.Environ(), "GOBIN="+bin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/...: %v\n%s", err, out)
	}
	exe := func(name string) string {
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		return filepath.Join(bin, name)
	}
	ref := exe("conform-mcp-reference")
	build := exec.Command(goCmd, "build", "-o", ref, "./suites/mcp/reference")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./suites/mcp/reference: %v\n%s", err, out)
	}
	d, err := suite.OpenDir(filepath.Join(root, "suites", "mcp"))
	if err != nil {
		t.Fatal(err)
	}
	folder, err := suite.Load(d, suite.Options{Meta: conform.Meta()})
	if err != nil {
		t.Fatal(err)
	}

	empty := t.TempDir()
	cache := t.TempDir()
	conformCmd := func(args ...string) (string, string, int) {
		t.Helper()
		c := exec.Command(exe("conform"), args...)
		c.Dir = empty
		// Only what a user's shell would have: no GOFLAGS, no reference
		// binary from the test harness.
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + cache, "CONFORM_CACHE=" + cache}
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("conform %s: %v", strings.Join(args, " "), err)
		}
		return stdout.String(), stderr.String(), code
	}

	out, errOut, code := conformCmd("suites")
	if code != 0 {
		t.Fatalf("conform suites: exit %d\n%s%s", code, out, errOut)
	}
	mcpLine := regexp.MustCompile(`(?m)^mcp +conform MCP suite +.* (sha256:[0-9a-f]{64})$`).FindStringSubmatch(out)
	if mcpLine == nil {
		t.Fatalf("conform suites lists no mcp suite:\n%s", out)
	}
	if mcpLine[1] != folder.Digest {
		t.Errorf("conform suites: embedded mcp digest %s, suites/mcp's %s", mcpLine[1], folder.Digest)
	}

	out, errOut, code = conformCmd("run", "--suite", "mcp", "--filter", "ping", "--", ref)
	if code != 0 || !regexp.MustCompile(`(?m)^PASS +ping `).MatchString(out) || !strings.Contains(out, "PASSED PARTIAL") || !strings.Contains(out, folder.Digest) {
		t.Errorf("conform run --suite mcp --filter ping -- %s from an empty directory: exit %d\n%s%s", ref, code, out, errOut)
	}

	prof := filepath.Join(t.TempDir(), "ref")
	if err := os.Mkdir(prof, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(map[string]any{"name": "ref", "suite": "mcp", "role": "server", "command": []string{ref}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(prof, "profile.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = conformCmd("run", "--profile", prof, "--filter", "ping")
	if code != 0 || !strings.Contains(out, "conform MCP suite") || !regexp.MustCompile(`(?m)^PASS +ping `).MatchString(out) {
		t.Errorf("conform run --profile (suite \"mcp\") --filter ping: exit %d\n%s%s", code, out, errOut)
	}
}

// TestProfileSuiteOf: a profile's "suite" is an embedded suite's name
// unless it holds a path separator or names a folder beside profile.json;
// a folder is joined to the profile's folder.
func TestProfileSuiteOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		suite  string
		folder bool // the want is the profile's folder joined with suite
	}{
		{"", false},
		{"mcp", false},
		{"../../suites/mcp", true},
		{"mine", true},     // a folder "mine" is beside profile.json
		{"unknown", false}, // the suite's loader reports it: SUITE_NOT_FOUND
	} {
		prof := t.TempDir()
		if err := os.Mkdir(filepath.Join(prof, "mine"), 0o755); err != nil {
			t.Fatal(err)
		}
		m := map[string]any{"name": "p", "command": []string{"x"}, "role": "server"}
		if tc.suite != "" {
			m["suite"] = tc.suite
		}
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(prof, "profile.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		want := tc.suite
		if tc.folder {
			want = filepath.Join(prof, filepath.FromSlash(tc.suite))
		}
		dir, role, err := implementation{Profile: prof}.suiteOf()
		if err != nil {
			t.Fatalf("suite %q: %v", tc.suite, err)
		}
		if dir != want || role != "server" {
			t.Errorf("suite %q: suiteOf = %q, %q; want %q, \"server\"", tc.suite, dir, role, want)
		}
	}
}
