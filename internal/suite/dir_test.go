package suite_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/kiterr/kiterrtest"
	"github.com/conform-kit/conform/internal/suite"
)

// outsideFile is a file outside a suite with known bytes and an old
// modification time, so that a test can prove nothing touched it.
type outsideFile struct {
	path  string
	data  []byte
	mtime time.Time
}

func newOutside(t *testing.T, dir, name string, data []byte) outsideFile {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	return outsideFile{path: p, data: data, mtime: old}
}

// unchanged fails t unless the file has its bytes and mtime.
func (o outsideFile) unchanged(t *testing.T) {
	t.Helper()
	got, err := os.ReadFile(o.path)
	if err != nil {
		t.Fatalf("outside file: %v", err)
	}
	if !bytes.Equal(got, o.data) {
		t.Errorf("the file outside the suite changed: %q, want %q", got, o.data)
	}
	fi, err := os.Stat(o.path)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.ModTime().Equal(o.mtime) {
		t.Errorf("the file outside the suite was touched: mtime %v, want %v", fi.ModTime(), o.mtime)
	}
}

// diskSuite writes the tiny suite to a fresh directory and returns it.
func diskSuite(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "suite")
	if err := os.CopyFS(dir, tinyFS(t)); err != nil {
		t.Fatal(err)
	}
	return dir
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Remove(link); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

// TestDirRefusesLinksLeaving: a vector file, a golden file, a golden
// folder or a schema that is a symbolic link to outside the suite is
// refused with SUITE_PATH_OUTSIDE by Load (digests checked or not), and
// nothing outside changes.
func TestDirRefusesLinksLeaving(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		link func(t *testing.T, suiteDir string, out outsideFile)
	}{
		{"vector file", func(t *testing.T, s string, o outsideFile) {
			symlink(t, o.path, filepath.Join(s, "vectors/v1/agent/ping.json"))
		}},
		{"vector file, relative target", func(t *testing.T, s string, o outsideFile) {
			symlink(t, "../../../../"+filepath.Base(o.path), filepath.Join(s, "vectors/v1/agent/ping.json"))
		}},
		{"golden file", func(t *testing.T, s string, o outsideFile) {
			symlink(t, o.path, filepath.Join(s, "golden/v1/ping.json"))
		}},
		{"golden folder", func(t *testing.T, s string, o outsideFile) {
			if err := os.RemoveAll(filepath.Join(s, "golden/v1")); err != nil {
				t.Fatal(err)
			}
			symlink(t, filepath.Dir(o.path), filepath.Join(s, "golden/v1"))
		}},
		{"schema", func(t *testing.T, s string, o outsideFile) {
			symlink(t, o.path, filepath.Join(s, "schemas/control.v1.json"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := diskSuite(t)
			out := newOutside(t, filepath.Dir(s), "ping.json", []byte(`{"frames":[],"vector":"ping"}`))
			tc.link(t, s, out)
			d, err := suite.OpenDir(s)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			for _, skip := range []bool{false, true} {
				_, err := suite.Load(d, suite.Options{SkipDigest: skip})
				kiterrtest.WantCode(t, err, kiterr.SuitePathOutside, "symbolic link")
			}
			out.unchanged(t)
		})
	}
}

// TestDirFollowsLinksInside: a link that stays inside the suite is read
// like any file.
func TestDirFollowsLinksInside(t *testing.T) {
	t.Parallel()
	s := diskSuite(t)
	if err := os.Rename(filepath.Join(s, "golden/v1"), filepath.Join(s, "golden/v1-real")); err != nil {
		t.Fatal(err)
	}
	symlink(t, "v1-real", filepath.Join(s, "golden/v1"))
	d, err := suite.OpenDir(s)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st, err := suite.Load(d, suite.Options{SkipDigest: true})
	if err != nil {
		t.Fatal(err)
	}
	ver, _ := st.Version(1)
	if _, err := st.ReadGolden(ver, "agent", "ping"); err != nil {
		t.Fatalf("ReadGolden through a link inside the suite: %v", err)
	}
}

// TestDirOpenThroughFolders: Open reads a file through its folder, once
// the folder is open, exactly as through the root: a link to another
// folder inside the suite is followed, a link out of the suite and a `..`
// are refused (SUITE_PATH_OUTSIDE), and a missing file is fs.ErrNotExist.
func TestDirOpenThroughFolders(t *testing.T) {
	t.Parallel()
	s := diskSuite(t)
	if err := os.MkdirAll(filepath.Join(s, "golden/elsewhere"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(s, "golden/v1/ping.json"), filepath.Join(s, "golden/elsewhere/ping.json")); err != nil {
		t.Fatal(err)
	}
	symlink(t, "../elsewhere/ping.json", filepath.Join(s, "golden/v1/ping.json"))
	out := newOutside(t, filepath.Dir(s), "out.json", []byte(`{}`))
	symlink(t, out.path, filepath.Join(s, "golden/v1/out.json"))
	d, err := suite.OpenDir(s)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for round := range 2 { // the second round finds the folder open
		if b, err := fs.ReadFile(d, "golden/v1/ping.json"); err != nil || len(b) == 0 {
			t.Errorf("round %d: a link to another folder inside: %q, %v", round, b, err)
		}
		_, err := fs.ReadFile(d, "golden/v1/out.json")
		kiterrtest.WantCode(t, err, kiterr.SuitePathOutside)
		_, err = d.Open("golden/v1/../../x")
		kiterrtest.WantCode(t, err, kiterr.SuitePathOutside)
		if _, err := d.Open("golden/v1/none.json"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("round %d: missing file: %v, want fs.ErrNotExist", round, err)
		}
	}
	out.unchanged(t)
}

// TestDirReadDir: ReadDir lists a folder as os.ReadDir does (sorted names,
// the same types, Info as Lstat), past its batches of 256 entries.
func TestDirReadDir(t *testing.T) {
	t.Parallel()
	s := diskSuite(t)
	folder := filepath.Join(s, "vectors/v1/agent")
	for i := range 600 {
		if err := os.WriteFile(filepath.Join(folder, fmt.Sprintf("z%03d.json", 599-i)), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(folder, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "z000.json", filepath.Join(folder, "link.json"))
	d, err := suite.OpenDir(s)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	type entry struct {
		Name string
		Type fs.FileMode
		Size int64
	}
	list := func(es []fs.DirEntry, err error) []entry {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []entry
		for _, e := range es {
			fi, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			if e.IsDir() != e.Type().IsDir() || fi.Name() != e.Name() {
				t.Errorf("%s: IsDir %v, Type %v, Info name %q", e.Name(), e.IsDir(), e.Type(), fi.Name())
			}
			size := fi.Size()
			if e.IsDir() {
				size = 0
			}
			out = append(out, entry{e.Name(), e.Type(), size})
		}
		return out
	}
	want := list(os.ReadDir(folder))
	if len(want) < 600 {
		t.Fatalf("only %d entries", len(want))
	}
	if diff := cmp.Diff(want, list(d.ReadDir("vectors/v1/agent"))); diff != "" {
		t.Errorf("ReadDir (-want +got):\n%s", diff)
	}
	_, err = d.ReadDir("vectors/none")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing folder: %v, want fs.ErrNotExist", err)
	}
}

// TestDirWriteFile: writes are atomic replacements inside the directory:
// never through a link (the link itself is replaced), never through a
// folder that leaves, never with `..`; no temporary file is left behind.
func TestDirWriteFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := filepath.Join(root, "suite")
	if err := os.MkdirAll(filepath.Join(s, "golden/v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(root, "outside")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := newOutside(t, outDir, "victim.json", []byte("outside\n"))
	inside := filepath.Join(s, "golden/v1/target.json")
	if err := os.WriteFile(inside, []byte("inside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	symlink(t, out.path, filepath.Join(s, "golden/v1/out-link.json"))
	symlink(t, "target.json", filepath.Join(s, "golden/v1/in-link.json"))
	symlink(t, outDir, filepath.Join(s, "golden/v9"))
	d, err := suite.OpenDir(s)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	for _, name := range []string{"golden/v1/new.json", "golden/v2/made/new.json", "golden/v1/target.json", "golden/v1/out-link.json", "golden/v1/in-link.json"} {
		if err := d.WriteFile(name, []byte("written\n")); err != nil {
			t.Fatalf("WriteFile %s: %v", name, err)
		}
		fi, err := os.Lstat(filepath.Join(s, filepath.FromSlash(name)))
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("%s: want a regular file, got %v, %v", name, fi, err)
		}
		if got, _ := os.ReadFile(filepath.Join(s, filepath.FromSlash(name))); string(got) != "written\n" {
			t.Errorf("%s holds %q", name, got)
		}
	}
	out.unchanged(t)

	for _, tc := range []struct {
		name string
		code kiterr.Code
	}{
		{"golden/v9/victim.json", kiterr.SuitePathOutside},
		{"golden/v9/new.json", kiterr.SuitePathOutside},
		{"../outside/victim.json", kiterr.SuitePathOutside},
		{"golden/../../outside/victim.json", kiterr.SuitePathOutside},
		{"/tmp/x.json", kiterr.SuitePathOutside},
	} {
		kiterrtest.WantCode(t, d.WriteFile(tc.name, []byte("evil\n")), tc.code)
		kiterrtest.WantCode(t, d.Remove(tc.name), tc.code)
	}
	out.unchanged(t)
	if names := dirNames(t, outDir); !slices.Equal(names, []string{"victim.json"}) {
		t.Errorf("files appeared outside the suite: %v", names)
	}

	// Removing a link removes the link, not its target.
	symlink(t, out.path, filepath.Join(s, "golden/v1/out-link.json"))
	if err := d.Remove("golden/v1/out-link.json"); err != nil {
		t.Fatal(err)
	}
	out.unchanged(t)

	want := []string{"in-link.json", "new.json", "target.json"}
	if diff := cmp.Diff(want, dirNames(t, filepath.Join(s, "golden/v1"))); diff != "" {
		t.Errorf("golden/v1 (-want +got), no temporary file may stay:\n%s", diff)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}
