package suite

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
)

// Dir is a suite directory on disk, read and written only through an
// [os.Root]: no path, `..` or symbolic link can take a read or a write out
// of the directory. A symbolic link that stays inside is followed; one
// whose target is outside (an absolute target, or one with more `..` than
// it has parents) is refused with SUITE_PATH_OUTSIDE, and so is a path
// with a `..` element or an absolute path. Dir implements [fs.FS],
// [fs.ReadFileFS], [fs.StatFS] and [fs.ReadDirFS], so [Load] reads it like
// any suite; [Dir.WriteFile] and [Dir.Remove] are what 'conform golden
// --update' writes with.
//
// A Dir holds an open directory descriptor until [Dir.Close], and one for
// each folder a file was opened in: [Dir.Open] opens a file through its
// folder's descriptor, one openat(2), where a path through the root opens
// every folder on the way each time (a run opens each vector file twice and
// each golden file once). A folder is opened once, when a file in it is
// first opened: one replaced later (renamed away and made again) is not
// seen by Open, whose files are still checked against MANIFEST.sha256.
type Dir struct {
	root *os.Root
	fsys fs.FS
	name string

	mu      sync.Mutex
	folders map[string]*os.Root
}

// OpenDir opens the suite directory dir. Errors: SUITE_NOT_FOUND when dir
// does not exist or is not a directory.
func OpenDir(dir string) (*Dir, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.SuiteNotFound, err, "suite directory %q does not exist or is not a directory", dir)
	}
	return &Dir{root: r, fsys: r.FS(), name: dir}, nil
}

// Close closes the directory descriptors.
func (d *Dir) Close() error {
	d.mu.Lock()
	for _, r := range d.folders {
		_ = r.Close()
	}
	d.folders = nil
	d.mu.Unlock()
	return d.root.Close()
}

// Name returns the directory as given to [OpenDir].
func (d *Dir) Name() string { return d.name }

// Open opens name for reading (fs.FS). Only a regular file or a folder is
// opened: a FIFO, a device or a socket in the suite is refused with
// INPUT_NOT_REGULAR, without waiting for a FIFO's writer (the file is
// opened non-blocking, input.OpenFlags, and checked once open).
func (d *Dir) Open(name string) (fs.File, error) {
	if err := d.check("open", name); err != nil {
		return nil, err
	}
	if dir, base := path.Split(name); dir != "" && base != "" {
		if r := d.folder(dir[:len(dir)-1]); r != nil {
			if f, err := r.OpenFile(base, input.OpenFlags, 0); err == nil {
				return d.plain(f, name)
			}
			// A link out of the folder, a missing file, anything else:
			// decided through the root, as if the folder were not open.
		}
	}
	if name == "." {
		f, err := d.fsys.Open(name)
		return f, d.wrap(name, err)
	}
	f, err := d.root.OpenFile(name, input.OpenFlags, 0)
	if err != nil {
		return nil, d.wrap(name, err)
	}
	return d.plain(f, name)
}

// plain returns f when it is a regular file or a folder, and otherwise
// closes it and refuses it (INPUT_NOT_REGULAR).
func (d *Dir) plain(f *os.File, name string) (fs.File, error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, d.ioErr("stat", name, err)
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		f.Close()
		return nil, kiterr.New(kiterr.InputNotRegular, "%s in the suite %s is not a regular file (%s): refused, not read", name, d.name, st.Mode().Type())
	}
	return f, nil
}

// folder returns the folder dir (a clean relative path) opened through
// the root, or nil when it cannot be opened.
func (d *Dir) folder(dir string) *os.Root {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r, ok := d.folders[dir]; ok {
		return r
	}
	r, err := d.root.OpenRoot(dir)
	if err != nil {
		return nil
	}
	if d.folders == nil {
		d.folders = map[string]*os.Root{}
	}
	d.folders[dir] = r
	return r
}

// ReadFile reads name (fs.ReadFileFS).
func (d *Dir) ReadFile(name string) ([]byte, error) {
	if err := d.check("read", name); err != nil {
		return nil, err
	}
	f, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return b, d.wrap(name, err)
}

// Stat returns name's file information, following symbolic links that stay
// inside the directory (fs.StatFS).
func (d *Dir) Stat(name string) (fs.FileInfo, error) {
	if err := d.check("stat", name); err != nil {
		return nil, err
	}
	fi, err := fs.Stat(d.fsys, name)
	return fi, d.wrap(name, err)
}

// ReadDir lists the directory name, sorted by file name (fs.ReadDirFS).
// The entries give each file's name and type; Info reads the rest when
// asked (lstat through the root). A folder of a large suite holds 10,000
// files: the entries the os package makes (with an lstat each where the
// file system gives no type) are read 256 at a time and kept as name and
// type alone, about a quarter of their size. The folder is read through a
// second descriptor of its own (see plainDir), not lstat'ed entry by
// entry.
func (d *Dir) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := d.check("readdir", name); err != nil {
		return nil, err
	}
	f, err := d.fsys.Open(name)
	if err != nil {
		return nil, d.wrap(name, err)
	}
	defer f.Close()
	rd, ok := f.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not implemented")}
	}
	if of, isOS := f.(*os.File); isOS {
		if plain := plainDir(of); plain != nil {
			defer plain.Close()
			rd = plain
		}
	}
	var list []dirEntry
	for {
		batch, err := rd.ReadDir(256)
		for _, e := range batch {
			list = append(list, dirEntry{dir: d, folder: name, name: e.Name(), typ: e.Type()})
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, d.wrap(name, err)
		}
	}
	slices.SortFunc(list, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	out := make([]fs.DirEntry, len(list))
	for i := range list {
		out[i] = &list[i]
	}
	return out, nil
}

// dirEntry is one entry of [Dir.ReadDir].
type dirEntry struct {
	dir          *Dir
	folder, name string
	typ          fs.FileMode
}

func (e *dirEntry) Name() string      { return e.name }
func (e *dirEntry) IsDir() bool       { return e.typ.IsDir() }
func (e *dirEntry) Type() fs.FileMode { return e.typ }

// Info returns the file's information without following a final
// symbolic link, as the os package's entries do.
func (e *dirEntry) Info() (fs.FileInfo, error) {
	p := path.Join(e.folder, e.name)
	fi, err := e.dir.root.Lstat(p)
	return fi, e.dir.wrap(p, err)
}

// WriteFile replaces the file name (slash-separated, relative to the
// directory) with data, atomically: data goes to a new temporary file in
// the same folder, which is then renamed over name. The folder is made
// when missing (mode 0755); the file gets mode 0644 (less the umask). A
// symbolic link at name is never written through: the rename replaces the
// link itself, whatever its target. Errors: SUITE_PATH_OUTSIDE (a `..`, an
// absolute path, or a folder on the way that is a symbolic link leaving
// the directory), IO.
func (d *Dir) WriteFile(name string, data []byte) (err error) {
	if err := d.check("write", name); err != nil {
		return err
	}
	if dir := path.Dir(name); dir != "." {
		if err := d.root.MkdirAll(dir, 0o755); err != nil {
			return d.ioErr("make folder of", name, err)
		}
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := path.Join(path.Dir(name), "."+path.Base(name)+"."+hex.EncodeToString(rnd[:])+".tmp")
	// O_EXCL: a file (or a link) already at the temporary name is never
	// reused, so nothing is written through a planted link.
	f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return d.ioErr("create a temporary file for", name, err)
	}
	defer func() {
		if err != nil {
			_ = d.root.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return d.ioErr("write", name, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return d.ioErr("write", name, err)
	}
	if err := f.Close(); err != nil {
		return d.ioErr("write", name, err)
	}
	if err := d.root.Rename(tmp, name); err != nil {
		return d.ioErr("rename a temporary file over", name, err)
	}
	return nil
}

// Remove removes the file name; a symbolic link is removed itself, never
// its target. Errors as [Dir.WriteFile]; a missing file is fs.ErrNotExist.
func (d *Dir) Remove(name string) error {
	if err := d.check("remove", name); err != nil {
		return err
	}
	if err := d.root.Remove(name); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return d.ioErr("remove", name, err)
	}
	return nil
}

// check refuses a name that is not a clean relative path inside the
// directory before anything is opened.
func (d *Dir) check(op, name string) error {
	if fs.ValidPath(name) && !strings.Contains(name, `\`) {
		return nil
	}
	if outsidePath(name) {
		return kiterr.Wrap(kiterr.SuitePathOutside, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid},
			"%s is not a path inside the suite %s", name, d.name)
	}
	return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
}

// wrap gives an error of the os.Root its stable code when name leaves the
// directory through a symbolic link.
func (d *Dir) wrap(name string, err error) error {
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if d.outside(name) {
		return kiterr.Wrap(kiterr.SuitePathOutside, err, "%s leaves the suite %s through a symbolic link (refused)", name, d.name)
	}
	return err
}

func (d *Dir) ioErr(what, name string, err error) error {
	if d.outside(name) {
		return kiterr.Wrap(kiterr.SuitePathOutside, err, "%s %s: it leaves the suite %s through a symbolic link (refused)", what, name, d.name)
	}
	return kiterr.Wrap(kiterr.IO, err, "%s %s in the suite %s", what, name, d.name)
}

// outside reports whether name leaves the directory once its symbolic
// links are resolved one at a time (each looked up through the root, so
// the resolution itself never leaves it). A missing component ends the
// resolution: what does not exist leads nowhere.
func (d *Dir) outside(name string) bool {
	todo := strings.Split(name, "/")
	var at []string // resolved components, each a real folder or file inside
	for hops := 0; len(todo) > 0; {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(at) == 0 {
				return true
			}
			at = at[:len(at)-1]
			continue
		}
		next := path.Join(path.Join(at...), c)
		fi, err := d.root.Lstat(next)
		if err != nil {
			return false
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			at = append(at, c)
			continue
		}
		if hops++; hops > 40 {
			return false // a loop: the root reports it
		}
		target, err := d.root.Readlink(next)
		if err != nil {
			return false
		}
		if filepath.IsAbs(target) || filepath.VolumeName(target) != "" || strings.HasPrefix(target, "/") || strings.HasPrefix(target, `\`) {
			return true // an os.Root never follows an absolute link
		}
		todo = append(strings.Split(filepath.ToSlash(target), "/"), todo...)
	}
	return false
}

// outsidePath reports whether the slash-separated path p is one the suite
// refuses as leaving it: absolute (or with a volume name or a backslash
// root), or with a `..` element anywhere. Suite paths never need `..`.
func outsidePath(p string) bool {
	p = strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(p, "/") || filepath.VolumeName(p) != "" || (len(p) > 1 && p[1] == ':') {
		return true
	}
	return slices.Contains(strings.Split(p, "/"), "..")
}
