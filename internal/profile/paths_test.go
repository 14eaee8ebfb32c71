//go:build unix

package profile_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/kiterr/kiterrtest"
	"github.com/conform-kit/conform/internal/profile"
)

// secret stands for a line of a file outside the profile (as /etc/shadow
// begins): it has no '#', so parsing it would fail and print it.
const secret = "root:*:19000:0:99999:7:::"

// TestProfileFilesStayInside: every file of a profile is read inside its
// folder only, as suite files are: an expected-failure list (or
// profile.json) that is a link to a file outside, a `..` path or an
// absolute path is refused, and the error never shows a byte of the file
// outside. Before issue 22 the link was followed and the error printed the
// outside file's first line ("entry \"root:*:...\" needs a reason").
func TestProfileFilesStayInside(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "shadow")
	if err := os.WriteFile(outside, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, expectFail string
		setup            func(t *testing.T, dir string)
	}{
		{"link out", "expected-failures.txt", func(t *testing.T, dir string) {
			if err := os.Symlink(outside, filepath.Join(dir, "expected-failures.txt")); err != nil {
				t.Fatal(err)
			}
		}},
		{"relative link out", "expected-failures.txt", func(t *testing.T, dir string) {
			rel, err := filepath.Rel(dir, outside)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(rel, filepath.Join(dir, "expected-failures.txt")); err != nil {
				t.Fatal(err)
			}
		}},
		{"dot-dot path", "../" + filepath.Base(filepath.Dir(outside)) + "/shadow", func(*testing.T, string) {}},
		{"absolute path", outside, func(*testing.T, string) {}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := writeProfile(t, `{"name":"x","command":["x"],"expectFail":"`+tc.expectFail+`"}`)
			tc.setup(t, dir)
			p, err := profile.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.ExpectFailures()
			kiterrtest.WantCode(t, err, kiterr.ExpectFileInvalid, "")
			if strings.Contains(err.Error(), "root:") {
				t.Errorf("the error shows the outside file: %v", err)
			}
		})
	}

	// profile.json itself, a link out of its folder.
	dir := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, profile.File)); err != nil {
		t.Fatal(err)
	}
	_, err := profile.Load(dir)
	kiterrtest.WantCode(t, err, kiterr.ProfileInvalid, "")
	if strings.Contains(err.Error(), "root:") {
		t.Errorf("the error shows the outside file: %v", err)
	}

	// A link that stays inside is followed.
	dir = writeProfile(t, `{"name":"x","command":["x"],"expectFail":"link.txt"}`)
	if err := os.Mkdir(filepath.Join(dir, "lists"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lists", "real.txt"), []byte("v1 # reason\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("lists/real.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.ExpectFailures()
	if err != nil || got["v1"] != "reason" {
		t.Errorf("ExpectFailures = %v, %v; want v1: reason", got, err)
	}
}

// TestProfileFilesBounded: a FIFO as an expected-failure list, inside a
// profile or given on the command line, is refused at once (before issue
// 22 the open blocked forever), and a list over MaxFile bytes is refused
// without being read.
func TestProfileFilesBounded(t *testing.T) {
	t.Parallel()
	dir := writeProfile(t, `{"name":"x","command":["x"],"expectFail":"fifo"}`)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	p, err := profile.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	go func() { _, err := p.ExpectFailures(); done <- err }()
	go func() { _, err := profile.ReadExpectFail(fifo); done <- err }()
	for range 2 {
		select {
		case err := <-done:
			kiterrtest.WantCode(t, err, kiterr.ExpectFileInvalid, "not a regular file")
		case <-time.After(10 * time.Second):
			// Unblock the stuck open so the test can end.
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
			t.Fatal("reading a FIFO as an expected-failure list blocked")
		}
	}

	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat("a # r\n", profile.MaxFile/6+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = profile.ReadExpectFail(big)
	kiterrtest.WantCode(t, err, kiterr.ExpectFileInvalid, "over the 1048576 a profile file may have")
	_, err = profile.ReadExpectFileIn(dir, "big.txt")
	kiterrtest.WantCode(t, err, kiterr.ExpectFileInvalid, "over the 1048576 a profile file may have")
}
