package runner

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/conform-kit/conform/internal/kiterr"
)

// iutDirs hands each vector a fresh-looking IUT directory: HOME (and
// TMPDIR) with one empty subdirectory, work, the working directory.
//
// A directory is reused for a later vector only when the IUT left it
// exactly as it was made: after the IUT's process group and its orphans
// are gone (session calls put after proc.KillOrphans), HOME holds nothing
// but work, work holds nothing, both are still real directories of mode
// 0700 owned by this process's user, and neither carries an extended
// attribute. Such a directory is indistinguishable from a new one except
// by its path, inode and timestamps, so isolation between vectors holds;
// anything else (a file, a chmod, a symlink, an xattr, a read error) and
// the directory is removed and a new one is made. Reuse matters because
// mkdir plus rmdir cost 0.3-0.7 ms per vector on this machine's ext4
// /tmp, a third of the runner's CPU (bench/README.md); the Claude Code
// CLI writes ~/.claude.json, so its directories are never reused.
//
// Every directory is under base (Config.TempDir, default os.TempDir) and
// named conform-iut-*; close removes the pooled ones. Safe for concurrent
// use.
type iutDirs struct {
	base string
	seq  atomic.Uint64
	mu   sync.Mutex
	free []string
}

func newIUTDirs(base string) *iutDirs { return &iutDirs{base: base} }

// get returns a clean directory (HOME), its work subdirectory, and a token
// unique to this call (for proc.TokenVar). Errors: IO.
func (d *iutDirs) get() (home, work, token string, err error) {
	d.mu.Lock()
	if n := len(d.free); n > 0 {
		home = d.free[n-1]
		d.free = d.free[:n-1]
	}
	d.mu.Unlock()
	if home == "" {
		if home, err = os.MkdirTemp(d.base, "conform-iut-"); err != nil {
			return "", "", "", kiterr.Wrap(kiterr.IO, err, "make IUT directory")
		}
		if err = os.Mkdir(filepath.Join(home, "work"), 0o700); err != nil {
			_ = os.RemoveAll(home)
			return "", "", "", kiterr.Wrap(kiterr.IO, err, "make IUT directory")
		}
	}
	token = fmt.Sprintf("%s.%d", filepath.Base(home), d.seq.Add(1))
	return home, filepath.Join(home, "work"), token, nil
}

// put takes back home once its IUT is gone: pooled when clean, removed
// otherwise.
func (d *iutDirs) put(home string) {
	if !pristine(home, "work") || !pristine(filepath.Join(home, "work"), "") {
		_ = os.RemoveAll(home)
		return
	}
	d.mu.Lock()
	d.free = append(d.free, home)
	d.mu.Unlock()
}

// close removes every pooled directory.
func (d *iutDirs) close() {
	d.mu.Lock()
	free := d.free
	d.free = nil
	d.mu.Unlock()
	for _, h := range free {
		_ = os.RemoveAll(h)
	}
}

// pristine reports whether dir is a directory (not a symlink) of mode 0700
// owned by this process's user, without extended attributes, whose only
// entry is the name only (none when only is "").
func pristine(dir, only string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || fi.Mode() != fs.ModeDir|0o700 {
		return false
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		return false
	}
	if n, err := syscall.Listxattr(dir, nil); err != nil && err != syscall.ENOTSUP || n > 0 {
		return false
	}
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	names, err := f.Readdirnames(2)
	_ = f.Close()
	switch {
	case only == "":
		return len(names) == 0 // io.EOF: empty
	default:
		return err == nil && len(names) == 1 && names[0] == only
	}
}
