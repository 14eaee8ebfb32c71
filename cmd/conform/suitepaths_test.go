//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/conform-kit/conform/runner"
)

// TestSuiteLinksChangeNothingOutside: a vector file, a golden file and a
// golden folder that are symbolic links leaving a suite directory are
// refused (exit 2) by run, validate and golden --update, and the files
// outside keep their bytes and their modification times.
func TestSuiteLinksChangeNothingOutside(t *testing.T) {
	t.Parallel()
	bin := childBin(t)
	tests := []struct {
		name string
		// link is the suite path moved outside and replaced by a link
		// to it.
		link string
	}{
		{"vector file", "vectors/v1/agent/interrupt-idle.json"},
		{"golden file", "golden/v1/interrupt-idle.json"},
		{"golden folder", "golden/v1/host"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			s := filepath.Join(root, "suite")
			// The vectors the links concern: interrupt-idle and the
			// host role's (whose golden folder is linked).
			if err := os.CopyFS(s, suiteSubset(t, "vectors/v1/agent/interrupt-idle.json", "golden/v1/interrupt-idle.json", "vectors/v1/host", "golden/v1/host")); err != nil {
				t.Fatal(err)
			}
			if _, err := runner.WriteManifest(s); err != nil {
				t.Fatal(err)
			}
			outside := filepath.Join(root, "outside", filepath.Base(tc.link))
			if err := os.MkdirAll(filepath.Dir(outside), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(filepath.Join(s, tc.link), outside); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(s, tc.link)); err != nil {
				t.Skipf("no symbolic links: %v", err)
			}
			old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
			before := snapshot(t, filepath.Dir(outside), old)
			for _, args := range [][]string{
				{"run", "--suite", s, "--filter", "interrupt-idle"},
				{"validate", "--suite", s},
				{"golden", "--update", "--suite", s},
			} {
				out, code, _ := runChild(t, bin, args...)
				if code != 2 || !bytes.Contains([]byte(out), []byte("SUITE_PATH_OUTSIDE")) {
					t.Errorf("%v: exit %d, want 2 with SUITE_PATH_OUTSIDE:\n%s", args, code, out)
				}
			}
			if after := snapshot(t, filepath.Dir(outside), time.Time{}); !equalSnapshots(before, after) {
				t.Errorf("files outside the suite changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// fileState is what a test compares of a file outside a suite.
type fileState struct {
	data  string
	mtime time.Time
}

// snapshot records every file under dir; with a non-zero set, it first
// sets each file's modification time to set.
func snapshot(t *testing.T, dir string, set time.Time) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !set.IsZero() {
			if err := os.Chtimes(p, set, set); err != nil {
				return err
			}
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		out[p] = fileState{data: string(data), mtime: fi.ModTime()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("no file under %s", dir)
	}
	return out
}

func equalSnapshots(a, b map[string]fileState) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || v.data != w.data || !v.mtime.Equal(w.mtime) {
			return false
		}
	}
	return true
}
