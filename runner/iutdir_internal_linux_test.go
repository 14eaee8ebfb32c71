package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/conform-kit/conform/internal/proc"
)

func TestIUTDirsReuseOnlyPristine(t *testing.T) {
	if err := proc.BecomeSubreaper(); err != nil {
		t.Skipf("no child subreaper here: %v", err)
	}
	tests := []struct {
		name     string
		dirty    func(t *testing.T, home, work string)
		reused   bool
		survivor bool // a process of the IUT outlived it
	}{
		{"untouched", func(*testing.T, string, string) {}, true, false},
		{"untouched, but a process outlived the IUT", func(*testing.T, string, string) {}, false, true},
		{"work append-only (chattr +a)", func(t *testing.T, _, work string) {
			if out, err := exec.Command("chattr", "+a", work).CombinedOutput(); err != nil {
				t.Skipf("chattr +a unavailable here: %v %s", err, out)
			}
		}, false, false},
		{"file in HOME", func(t *testing.T, home, _ string) { write(t, filepath.Join(home, ".claude.json")) }, false, false},
		{"file in work", func(t *testing.T, _, work string) { write(t, filepath.Join(work, "x")) }, false, false},
		{"dir in work", func(t *testing.T, _, work string) { mkdir(t, filepath.Join(work, "d")) }, false, false},
		{"work chmod", func(t *testing.T, _, work string) { chmod(t, work, 0o755) }, false, false},
		{"HOME chmod", func(t *testing.T, home, _ string) { chmod(t, home, 0o711) }, false, false},
		{"work replaced by a symlink", func(t *testing.T, home, work string) {
			if err := os.Remove(work); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(home, work); err != nil {
				t.Fatal(err)
			}
		}, false, false},
		{"xattr on work", func(t *testing.T, _, work string) {
			if err := syscall.Setxattr(work, "user.conform", []byte("x"), 0); err != nil {
				t.Skipf("no user xattrs here: %v", err)
			}
		}, false, false},
		{"work removed", func(t *testing.T, _, work string) {
			if err := os.Remove(work); err != nil {
				t.Fatal(err)
			}
		}, false, false},
		{"HOME removed", func(t *testing.T, home, _ string) {
			if err := os.RemoveAll(home); err != nil {
				t.Fatal(err)
			}
		}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			d := newIUTDirs(base, nil)
			home, work, tok1, err := d.get()
			if err != nil {
				t.Fatal(err)
			}
			ids := d.made[home]
			if work != filepath.Join(home, "work") || !pristine(home, "work", ids[0], os.Getuid()) || !pristine(work, "", ids[1], os.Getuid()) {
				t.Fatalf("get() = %q, %q: not a fresh HOME with an empty work", home, work)
			}
			tt.dirty(t, home, work)
			if err := d.put(home, !tt.survivor); err != nil {
				// An append-only directory too is removed: its flag is
				// cleared first (issue 22).
				t.Errorf("put: %v", err)
			}
			home2, _, tok2, err := d.get()
			if err != nil {
				t.Fatal(err)
			}
			if tok1 == tok2 {
				t.Errorf("token %q given twice", tok1)
			}
			if got := home2 == home; got != tt.reused {
				t.Errorf("reused = %v, want %v", got, tt.reused)
			}
			if !tt.reused {
				if _, err := os.Lstat(home); !os.IsNotExist(err) && home2 != home {
					t.Errorf("dirty %s was not removed: %v", home, err)
				}
			}
			ids2 := d.made[home2]
			if !pristine(home2, "work", ids2[0], os.Getuid()) || !pristine(filepath.Join(home2, "work"), "", ids2[1], os.Getuid()) {
				t.Errorf("second get() gave a directory that is not fresh")
			}
			d.put(home2, true)
			d.close()
			if left, _ := os.ReadDir(base); len(left) != 0 {
				t.Errorf("close left %d entries in %s", len(left), base)
			}
		})
	}
}

// TestRemoveIUTDir: an IUT directory that the IUT made hard to remove is
// removed all the same (files and directories made immutable or
// append-only, chattr +i and +a, which an IUT running as root may set; a
// directory without write permission); one that cannot be removed (a
// mount point inside) is an error that names the path and the cause, which
// the vector reports as IUT_DIR_LEFT. Before issue 22 such directories
// were left behind silently, one per vector.
func TestRemoveIUTDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("inode flags need root (CAP_LINUX_IMMUTABLE)")
	}
	base := t.TempDir()
	home := filepath.Join(base, "conform-iut-1")
	mkdir(t, home)
	mkdir(t, filepath.Join(home, "d"))
	write(t, filepath.Join(home, "stuck"))
	write(t, filepath.Join(home, "d", "deeper"))
	for _, c := range [][]string{{"+i", filepath.Join(home, "stuck")}, {"+a", filepath.Join(home, "d", "deeper")}, {"+i", filepath.Join(home, "d")}} {
		if out, err := exec.Command("chattr", c...).CombinedOutput(); err != nil {
			t.Skipf("chattr %s unavailable here: %v %s", c[0], err, out)
		}
	}
	mkdir(t, filepath.Join(home, "ro"))
	write(t, filepath.Join(home, "ro", "f"))
	chmod(t, filepath.Join(home, "ro"), 0o500)
	if err := os.RemoveAll(home); err == nil {
		t.Fatal("a plain removal succeeded: the test proves nothing here")
	}
	if err := removeIUTDir(home); err != nil {
		t.Errorf("removeIUTDir: %v", err)
	}
	if _, err := os.Lstat(home); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", home, err)
	}

	// A mount point inside cannot be removed: the error says where and why.
	home = filepath.Join(base, "conform-iut-2")
	mnt := filepath.Join(home, "mnt")
	mkdir(t, home)
	mkdir(t, mnt)
	if err := syscall.Mount("conform-test", mnt, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	err := removeIUTDir(home)
	if err == nil || !strings.Contains(err.Error(), home) || !strings.Contains(err.Error(), "busy") {
		t.Errorf("removeIUTDir of a directory with a mount point: %v, want an error naming %s and the cause", err, home)
	}
}

func write(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}
