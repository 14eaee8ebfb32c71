package runner

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/proc"
)

// FindingIUTDirLeft (note): the vector's IUT directory (HOME, TMPDIR and
// the working directory) could not be removed after the vector, even after
// conform undid what an IUT may do to keep it (see removeIUTDir); the
// message names the path and the cause. Public API, like the codes in
// result.go.
const FindingIUTDirLeft = "IUT_DIR_LEFT"

// iutDirs hands each vector a fresh-looking IUT directory: HOME (and
// TMPDIR) with one empty subdirectory, work, the working directory.
//
// A directory is handed to a later vector only when nothing of the IUT
// that used it can still be there, nor come back:
//   - every process of the IUT is gone and none outlived it (proc.Stop
//     found no survivor: its cgroup, process group and the orphan sweep,
//     which kills every re-parented process it cannot attribute to a
//     running IUT, were all empty); with a survivor the directory is
//     removed instead. Without the subreaper (proc.IsSubreaper false, as on
//     every system but Linux) orphans go elsewhere and nothing is reused;
//   - HOME holds nothing but work, work holds nothing, and both are still
//     the very directories made (same device and inode: not replaced, not
//     a mount point), real directories of mode 0700 owned by the IUT's
//     user (this process's, or the isolated user's), with the inode flags
//     they were made with (no chattr +i or +a) and no extended attribute
//     (iutdir_linux.go; elsewhere nothing is reused).
//
// Such a directory differs from a new one only by its path, inode and
// timestamps. Anything else, or any error while checking, and it is
// removed. Reuse matters because mkdir plus rmdir cost 0.3-0.7 ms per
// vector on this machine's ext4 /tmp, a third of the runner's CPU
// (bench/README.md); an IUT that writes a dotfile in its HOME (as most
// agents do) leaves a directory that is never reused.
//
// Every directory is under base (Config.TempDir, default os.TempDir) and
// named conform-iut-*; close removes the pooled ones. Safe for concurrent
// use.
type iutDirs struct {
	base  string
	reuse bool // this process is a child subreaper
	// owner is the isolated user the IUT runs as, or nil for this
	// process's user.
	owner *proc.Isolation
	seq   atomic.Uint64
	mu    sync.Mutex
	free  []string
	made  map[string][2]identity // HOME -> identity of HOME and work when made
}

func newIUTDirs(base string, owner *proc.Isolation) *iutDirs {
	return &iutDirs{base: base, reuse: proc.IsSubreaper(), owner: owner, made: map[string][2]identity{}}
}

// uid is the user that must own an IUT directory.
func (d *iutDirs) uid() int {
	if d.owner != nil {
		return int(d.owner.UID)
	}
	return os.Getuid()
}

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
		if home, err = d.make(); err != nil {
			return "", "", "", err
		}
	}
	token = fmt.Sprintf("%s.%d", filepath.Base(home), d.seq.Add(1))
	return home, filepath.Join(home, "work"), token, nil
}

// make creates HOME and HOME/work and records their identities.
func (d *iutDirs) make() (string, error) {
	home, err := os.MkdirTemp(d.base, "conform-iut-")
	if err != nil {
		return "", kiterr.Wrap(kiterr.IO, err, "make IUT directory")
	}
	work := filepath.Join(home, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		_ = os.RemoveAll(home)
		return "", kiterr.Wrap(kiterr.IO, err, "make IUT directory")
	}
	if o := d.owner; o != nil {
		// The isolated IUT owns its HOME and working directory, and
		// nothing else of this process's.
		for _, p := range []string{home, work} {
			if err := os.Chown(p, int(o.UID), int(o.GID)); err != nil {
				_ = os.RemoveAll(home)
				return "", kiterr.Wrap(kiterr.IO, err, "give the IUT directory to the isolated user")
			}
		}
	}
	if d.reuse {
		h, okH := identify(home)
		w, okW := identify(work)
		if okH && okW {
			d.mu.Lock()
			d.made[home] = [2]identity{h, w}
			d.mu.Unlock()
		}
	}
	return home, nil
}

// put takes back home once its IUT is gone: pooled when reuse is allowed
// and the directory is pristine, removed otherwise. Its error says that
// home could not be removed and why (see removeIUTDir): it is left behind.
func (d *iutDirs) put(home string, reuse bool) error {
	d.mu.Lock()
	want, known := d.made[home]
	d.mu.Unlock()
	if !d.reuse || !reuse || !known || !pristine(home, "work", want[0], d.uid()) || !pristine(filepath.Join(home, "work"), "", want[1], d.uid()) {
		d.mu.Lock()
		delete(d.made, home)
		d.mu.Unlock()
		return removeIUTDir(home)
	}
	d.mu.Lock()
	d.free = append(d.free, home)
	d.mu.Unlock()
	return nil
}

// removeIUTDir removes an IUT directory and everything in it. What the IUT
// may have done to keep it (an inode flag such as chattr +i or +a, which
// an IUT running as root can set; a directory it made unwritable) is
// undone first when a plain removal fails: on Linux the immutable and
// append-only flags are cleared (conform, as root, may), and directories
// get mode 0700; symbolic links are never followed and only regular files
// and directories are opened. Errors: the directory, or part of it,
// cannot be removed even so (a mount point in it, a file system gone
// read-only), naming the path and the cause.
func removeIUTDir(home string) error {
	err := os.RemoveAll(home)
	if err == nil {
		return nil
	}
	_ = filepath.WalkDir(home, func(path string, e fs.DirEntry, werr error) error {
		if werr == nil && (e.Type().IsRegular() || e.IsDir()) {
			unlockEntry(path, e.IsDir())
		}
		return nil
	})
	if err = os.RemoveAll(home); err != nil {
		return fmt.Errorf("the IUT directory %s could not be removed and is left behind: %w", home, err)
	}
	return nil
}

// close removes every pooled directory.
func (d *iutDirs) close() {
	d.mu.Lock()
	free := d.free
	d.free = nil
	d.mu.Unlock()
	for _, h := range free {
		_ = removeIUTDir(h) // pristine when pooled: nothing keeps it
	}
}
