//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/runner"
)

// TestSchemaRefCycleIsSuiteInput: a $ref cycle across two suite schemas
// (control.v1.json's InterruptResponseBody refers to cyc.json, which refers
// back) is invalid suite input: run and validate exit 2 with
// SCHEMA_REF_CYCLE, and the reference's reply is never blamed
// (SCHEMA_VIOLATION, exit 1, before issue 33).
func TestSchemaRefCycleIsSuiteInput(t *testing.T) {
	t.Parallel()
	bin := childBin(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, conform.Suite()); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "schemas", "control.v1.json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	defs, ok := doc["$defs"].(map[string]any)
	if _, found := defs["InterruptResponseBody"]; !ok || !found {
		t.Fatal("control.v1.json has no $defs/InterruptResponseBody to replace")
	}
	defs["InterruptResponseBody"] = map[string]any{"$ref": "cyc.json#/$defs/A"}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		p: string(out),
		filepath.Join(dir, "schemas", "cyc.json"): `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"A": {"$ref": "control.v1.json#/$defs/InterruptResponseBody"}}}`,
	}
	for name, body := range files {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := runner.WriteManifest(dir); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "--suite", dir, "--filter", "interrupt-idle"},
		{"validate", "--suite", dir},
	} {
		out, code, _ := runChild(t, bin, args...)
		if code != exitUsage || !strings.Contains(out, "SCHEMA_REF_CYCLE") || strings.Contains(out, "SCHEMA_VIOLATION") {
			t.Errorf("conform %s: exit %d, want %d with SCHEMA_REF_CYCLE and no SCHEMA_VIOLATION:\n%s", args[0], code, exitUsage, tail(out, 1500))
		}
		if !strings.Contains(out, "schemas/cyc.json#/$defs/A") {
			t.Errorf("conform %s does not name the cycle:\n%s", args[0], tail(out, 1500))
		}
	}
}

// TestInitErrorsHaveCodes: conform init into a symbolic link to nothing, or
// into a place it cannot write (a read-only folder; an immutable one for
// root, whom permissions do not stop), fails with INIT_DIR_UNUSABLE and
// exit 2, and leaves nothing behind: before, the errors were the system's
// words with no code.
func TestInitErrorsHaveCodes(t *testing.T) {
	t.Parallel()
	bin := childBin(t)
	root := t.TempDir()
	link := filepath.Join(root, "link")
	if err := os.Symlink(filepath.Join(root, "nowhere"), link); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	ro := filepath.Join(root, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if b, err := exec.Command("chattr", "+i", ro).CombinedOutput(); err != nil {
			t.Logf("chattr +i: %v %s: the read-only case is not tried as root", err, b)
			ro = ""
		} else {
			t.Cleanup(func() { _ = exec.Command("chattr", "-i", ro).Run() })
		}
	}
	cases := map[string]string{"dangling symbolic link": link}
	if ro != "" {
		cases["read-only folder"] = filepath.Join(ro, "suite")
	}
	for name, target := range cases {
		out, code, _ := runChild(t, bin, "init", target)
		if code != exitUsage || !strings.Contains(out, "INIT_DIR_UNUSABLE") {
			t.Errorf("%s: conform init: exit %d, want %d with INIT_DIR_UNUSABLE:\n%s", name, code, exitUsage, out)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "nowhere")); err == nil {
		t.Errorf("init wrote through the dangling link")
	}
}
