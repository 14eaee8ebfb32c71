// Package input opens and reads the kit's input files from disk: suite
// files, manifests, schemas, reports and shards. Every one must be a
// regular file of bounded size: a FIFO, a device or a socket is refused
// (INPUT_NOT_REGULAR) without blocking on it, and a file over its kind's
// cap is refused (INPUT_TOO_LARGE) by its size before any of it is read,
// or, if it grows while read, at the first byte over the cap (issue 33: a
// FIFO hung run, validate, report merge and matrix --from forever; 1 GB
// files took 1-2 GB of memory). The caps are stated in docs/running.md
// "Input bounds".
package input

import (
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/conform-kit/conform/internal/kiterr"
)

// The caps of the kit's inputs read whole, in bytes. A vector file's is
// suite.MaxVectorFile (16 MiB), a golden file's suite.MaxGoldenFile (64
// MiB), a profile's profile.MaxFile.
const (
	// MaxSuiteJSON is the largest suite.json read (16 MiB; the embedded
	// suite's is 30 KiB).
	MaxSuiteJSON = 16 << 20
	// MaxManifest is the largest MANIFEST.sha256 read (64 MiB: a line of
	// about 100 bytes per file, so some 600,000 files).
	MaxManifest = 64 << 20
	// MaxSchema is the largest schema file read (16 MiB; the largest of the
	// kit's suites is 60 KiB).
	MaxSchema = 16 << 20
	// MaxReport is the largest JSON report read back: conform report show,
	// report merge (each shard), matrix --from, run --rerun-failed (64 MiB;
	// a report takes about 370 bytes a passing vector and a few KiB a
	// failing one with its findings: the embedded suite's 80 vectors are 29
	// KB, a 10,000-vector run is under 20 MiB).
	MaxReport = 64 << 20
	// MaxText is the largest text input read whole that is none of the
	// above: a compat policy, a cliplay decisions file, a changelog, a
	// README.md whose generated block is rewritten, a recording's summary
	// (16 MiB; the largest of the repo's is under 100 KiB).
	MaxText = 16 << 20
)

// OpenFlags are the flags a kit input is opened with: read only, and on
// Unix non-blocking, so that opening a FIFO returns at once (the open is
// then refused: not a regular file) instead of waiting for a writer.
const OpenFlags = os.O_RDONLY | nonBlocking

// Open opens the file path for reading and returns it with its
// information when it is a regular file. The file is stat'ed before it is
// opened (a device is never opened) and again once open (what was opened
// is what is checked). Errors: PATH_NOT_FOUND (it cannot be opened),
// INPUT_NOT_REGULAR.
func Open(path, what string) (*os.File, fs.FileInfo, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, nil, notRegular(what, path, st)
	}
	f, err := os.OpenFile(path, OpenFlags, 0)
	if err != nil {
		return nil, nil, kiterr.Wrap(kiterr.PathNotFound, err, "%s %s", what, path)
	}
	st, err := Regular(f, what, path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// Regular returns the information of the open file f (named name in
// errors) when it is a regular file. Errors: INPUT_NOT_REGULAR, IO.
func Regular(f fs.File, what, name string) (fs.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, kiterr.Wrap(kiterr.IO, err, "%s %s", what, name)
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(what, name, st)
	}
	return st, nil
}

func notRegular(what, name string, st fs.FileInfo) error {
	return kiterr.New(kiterr.InputNotRegular, "%s %s is not a regular file (%s): refused, not read", what, name, typeName(st.Mode()))
}

// typeName names the type of a file that is not regular.
func typeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return m.Type().String()
}

// ReadFile reads the regular file path, at most max bytes (what names its
// kind in errors: "report", "shard"). Errors: PATH_NOT_FOUND,
// INPUT_NOT_REGULAR, INPUT_TOO_LARGE, IO.
func ReadFile(path string, max int64, what string) ([]byte, error) {
	f, st, err := Open(path, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, st.Size(), max, what, path)
}

// Read reads the open regular file f of size bytes (its size when
// stat'ed), refusing it when size is over max, without reading, and when it
// grows over max while read, at the first byte over. One buffer of its size
// is allocated, not io.ReadAll's doublings. Errors: INPUT_TOO_LARGE, IO.
func Read(f io.Reader, size, max int64, what, name string) ([]byte, error) {
	if size > max {
		return nil, tooLarge(what, name, max, size)
	}
	data := make([]byte, 0, size+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if int64(len(data)) > max {
			return nil, tooLarge(what, name, max, -1)
		}
		if errors.Is(err, io.EOF) {
			return data, nil
		}
		if err != nil {
			return nil, kiterr.Wrap(kiterr.IO, err, "read %s %s", what, name)
		}
	}
}

// ReadFS reads the file name of fsys, at most max bytes, refusing what is
// not a regular file by its information before it is opened (fs.Stat
// follows a symbolic link, so a link to a FIFO is refused too) and again
// once open. Errors: PATH_NOT_FOUND, INPUT_NOT_REGULAR, INPUT_TOO_LARGE, IO.
func ReadFS(fsys fs.FS, name string, max int64, what string) ([]byte, error) {
	if st, err := fs.Stat(fsys, name); err == nil && !st.Mode().IsRegular() {
		return nil, notRegular(what, name, st)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.PathNotFound, err, "%s %s", what, name)
	}
	defer f.Close()
	st, err := Regular(f, what, name)
	if err != nil {
		return nil, err
	}
	return Read(f, st.Size(), max, what, name)
}

func tooLarge(what, name string, max, size int64) error {
	if size < 0 {
		return kiterr.New(kiterr.InputTooLarge, "%s %s grew over the %d bytes it may have while read: refused", what, name, max)
	}
	return kiterr.New(kiterr.InputTooLarge, "%s %s is %d bytes, over the %d bytes it may have: refused, not read", what, name, size, max)
}
