package runner

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestIUTDirsReuseOnlyPristine(t *testing.T) {
	tests := []struct {
		name   string
		dirty  func(t *testing.T, home, work string)
		reused bool
	}{
		{"untouched", func(*testing.T, string, string) {}, true},
		{"file in HOME", func(t *testing.T, home, _ string) { write(t, filepath.Join(home, ".claude.json")) }, false},
		{"file in work", func(t *testing.T, _, work string) { write(t, filepath.Join(work, "x")) }, false},
		{"dir in work", func(t *testing.T, _, work string) { mkdir(t, filepath.Join(work, "d")) }, false},
		{"work chmod", func(t *testing.T, _, work string) { chmod(t, work, 0o755) }, false},
		{"HOME chmod", func(t *testing.T, home, _ string) { chmod(t, home, 0o711) }, false},
		{"work replaced by a symlink", func(t *testing.T, home, work string) {
			if err := os.Remove(work); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(home, work); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"xattr on work", func(t *testing.T, _, work string) {
			if err := syscall.Setxattr(work, "user.conform", []byte("x"), 0); err != nil {
				t.Skipf("no user xattrs here: %v", err)
			}
		}, false},
		{"work removed", func(t *testing.T, _, work string) {
			if err := os.Remove(work); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"HOME removed", func(t *testing.T, home, _ string) {
			if err := os.RemoveAll(home); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			d := newIUTDirs(base)
			home, work, tok1, err := d.get()
			if err != nil {
				t.Fatal(err)
			}
			if work != filepath.Join(home, "work") || !pristine(home, "work") || !pristine(work, "") {
				t.Fatalf("get() = %q, %q: not a fresh HOME with an empty work", home, work)
			}
			tt.dirty(t, home, work)
			d.put(home)
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
			if !pristine(home2, "work") || !pristine(filepath.Join(home2, "work"), "") {
				t.Errorf("second get() gave a directory that is not fresh")
			}
			d.put(home2)
			d.close()
			if left, _ := os.ReadDir(base); len(left) != 0 {
				t.Errorf("close left %d entries in %s", len(left), base)
			}
		})
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
