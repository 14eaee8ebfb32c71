package suite_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/suite"
)

// indexOf loads fsys with the index cache in dir (kit "k" unless given)
// and returns the v1 agent index, its load errors and whether the cache
// had this suite.json.
func indexOf(t *testing.T, fsys fstest.MapFS, dir, kit string) ([]suite.Ref, []string) {
	t.Helper()
	return indexWith(t, fsys, suite.Options{DeferDigests: true, Cache: dir, CacheKit: kit})
}

// indexWith loads fsys with opt and returns the v1 agent index and its
// load errors.
func indexWith(t *testing.T, fsys fs.FS, opt suite.Options) ([]suite.Ref, []string) {
	t.Helper()
	s, err := suite.Load(fsys, opt)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	refs, bad, err := s.VectorIndex(&s.Manifest.Versions[0], "agent")
	if err != nil {
		t.Fatalf("VectorIndex: %v", err)
	}
	return refs, errTexts(bad)
}

func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "index-*.txt"))
	return m
}

// The index cache changes nothing a run sees: a warm cache gives the same
// index and the same load errors as no cache; it vouches only for files
// that loaded and whose bytes are unchanged; another kit, another
// suite.json or another manifest has its own file; a malformed file is
// ignored and rewritten.
func TestIndexCache(t *testing.T) {
	t.Parallel()
	const vec = "vectors/v1/agent/ping.json"
	bad := strings.Replace(sessionVector, `"ping"`, `"pong"`, 1) // id does not match the file name
	fsys := tinyFS(t)
	fsys["vectors/v1/agent/pong.json"] = &fstest.MapFile{Data: []byte(strings.Replace(bad, `"pong"`, `"ping"`, 1))}
	seal(t, fsys)
	dir := t.TempDir()

	want, wantBad := indexOf(t, fsys, "", "")
	if len(want) != 1 || len(wantBad) != 1 {
		t.Fatalf("without a cache: %v %v, want one vector and one bad file", want, wantBad)
	}
	for round := range 2 { // cold, then warm
		got, gotBad := indexOf(t, fsys, dir, "k")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("round %d: index (-no cache +cache):\n%s", round, diff)
		}
		if diff := cmp.Diff(wantBad, gotBad); diff != "" {
			t.Errorf("round %d: load errors (-no cache +cache):\n%s", round, diff)
		}
	}
	files := cacheFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), " "+vec+"\n") || strings.Contains(string(data), "pong.json") {
		t.Errorf("cache file holds %q: want the valid vector and not the bad one", data)
	}

	// The vector edited to be invalid (and the manifest sealed again): the
	// cache does not vouch for its new bytes.
	fsys[vec] = &fstest.MapFile{Data: []byte(strings.Replace(sessionVector, `"expect"`, `"sneaky": 1, "expect"`, 1))}
	seal(t, fsys)
	want, wantBad = indexOf(t, fsys, "", "")
	got, gotBad := indexOf(t, fsys, dir, "k")
	if len(want) != 0 || len(wantBad) != 2 || !cmp.Equal(want, got) || !cmp.Equal(wantBad, gotBad) {
		t.Errorf("after an edit: cache %v %v, no cache %v %v; want both without the edited vector", got, gotBad, want, wantBad)
	}

	// Edited without sealing: a digest problem, as without a cache.
	seal(t, fsys)
	fsys[vec] = &fstest.MapFile{Data: []byte(sessionVector)}
	want, wantBad = indexOf(t, fsys, "", "")
	got, gotBad = indexOf(t, fsys, dir, "k")
	if !cmp.Equal(wantBad, gotBad) || len(gotBad) != 2 || !strings.Contains(strings.Join(gotBad, "\n"), string(kiterr.SuiteDigestMismatch)) {
		t.Errorf("edited without sealing: cache %v, no cache %v; want the same digest problem", gotBad, wantBad)
	}
	if !cmp.Equal(want, got) {
		t.Errorf("edited without sealing: index %v, want %v", got, want)
	}

	// Another kit: a file of its own.
	n := len(cacheFiles(t, dir))
	indexOf(t, fsys, dir, "another kit")
	if got := len(cacheFiles(t, dir)); got != n+1 {
		t.Errorf("another kit: %d cache files, want %d", got, n+1)
	}

	// A malformed cache file is ignored and written again.
	seal(t, fsys)
	indexOf(t, fsys, dir, "k")
	for _, f := range cacheFiles(t, dir) {
		if err := os.WriteFile(f, []byte("conform suite index 3\nnot a line\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	want, wantBad = indexOf(t, fsys, "", "")
	got, gotBad = indexOf(t, fsys, dir, "k")
	if !cmp.Equal(want, got) || !cmp.Equal(wantBad, gotBad) {
		t.Errorf("malformed cache: %v %v, want %v %v", got, gotBad, want, wantBad)
	}
}

// A suite.json that fails Load's checks leaves no cache file, so the next
// Load checks it again.
func TestIndexCacheInvalidSuite(t *testing.T) {
	t.Parallel()
	fsys := tinyFS(t)
	fsys["suite.json"] = &fstest.MapFile{Data: []byte(strings.Replace(tinyManifest, `"status": "draft"`, `"status": 7`, 1))}
	seal(t, fsys)
	dir := t.TempDir()
	for range 2 {
		if _, err := suite.Load(fsys, suite.Options{DeferDigests: true, Cache: dir, CacheKit: "k"}); kiterr.CodeOf(err) != kiterr.SuiteInvalid {
			t.Fatalf("Load = %v, want SUITE_INVALID", err)
		}
	}
	if files := cacheFiles(t, dir); len(files) != 0 {
		t.Errorf("cache files %v for an invalid suite.json, want none", files)
	}
}

// openCounter is an fs.FS that counts the names opened (files and
// folders: it implements only Open, so every read and walk goes through
// it).
type openCounter struct {
	fs.FS
	mu     sync.Mutex
	opened []string
}

func (c *openCounter) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opened = append(c.opened, name)
	c.mu.Unlock()
	return c.FS.Open(name)
}

func (c *openCounter) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.opened
	c.opened = nil
	slices.Sort(out)
	return out
}

// An immutable suite (the embedded one) is verified once per kit: the
// second Load neither walks nor hashes its files and the index is built
// without reading a vector, with the same index and load errors as
// without a cache. A directory with the same files has cache files of its
// own, and a suite with a problem is checked (and reported) every time.
func TestIndexCacheImmutable(t *testing.T) {
	t.Parallel()
	fsys := tinyFS(t)
	bad := strings.Replace(sessionVector, `"ping"`, `"pong"`, 1) // id does not match the file name
	fsys["vectors/v1/agent/pang.json"] = &fstest.MapFile{Data: []byte(bad)}
	seal(t, fsys)
	want, wantBad := indexOf(t, fsys, "", "")
	if len(want) != 1 || len(wantBad) != 1 {
		t.Fatalf("without a cache: %v %v, want one vector and one bad file", want, wantBad)
	}
	dir := t.TempDir()
	c := &openCounter{FS: fsys}
	load := func() ([]suite.Ref, []string) { t.Helper(); return indexOf2(t, c, dir, true) }
	for round, wantOpened := range [][]string{
		nil, // cold: everything, as without a cache
		// Warm: suite.json, the manifest and the meta-schemas (the cache
		// key; Options.Meta is not given, so they are the suite's own),
		// and the bad vector, read and checked again with the vector
		// schema.
		{suite.DigestFile, "schemas/suite.schema.json", "schemas/vector.schema.json", "schemas/vector.schema.json", "suite.json", "vectors/v1/agent/pang.json"},
	} {
		got, gotBad := load()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("round %d: index (-no cache +cache):\n%s", round, diff)
		}
		if diff := cmp.Diff(wantBad, gotBad); diff != "" {
			t.Errorf("round %d: load errors (-no cache +cache):\n%s", round, diff)
		}
		opened := c.take()
		if wantOpened == nil {
			if !slices.Contains(opened, "vectors/v1/agent/ping.json") || !slices.Contains(opened, "schemas") {
				t.Errorf("round %d opened %v, want the whole suite walked and read", round, opened)
			}
			continue
		}
		if diff := cmp.Diff(wantOpened, opened); diff != "" {
			t.Errorf("round %d: opened (-want +got):\n%s", round, diff)
		}
	}

	// The same files as a directory: not trusted, walked and read.
	if _, err := suite.Load(c, suite.Options{DeferDigests: true, Cache: dir, CacheKit: "k"}); err != nil {
		t.Fatal(err)
	}
	if opened := c.take(); !slices.Contains(opened, "schemas") {
		t.Errorf("a directory with the same files opened %v, want it walked", opened)
	}

	// A file the manifest does not list: never marked verified, so the
	// problem is found every time.
	prob := tinyFS(t)
	prob["vectors/v1/agent/extra.json"] = &fstest.MapFile{Data: []byte(strings.Replace(sessionVector, `"ping"`, `"extra"`, 1))}
	dir2 := t.TempDir()
	for round := range 2 {
		_, gotBad := indexOf2(t, prob, dir2, true)
		if !strings.Contains(strings.Join(gotBad, "\n"), string(kiterr.SuiteFileUnlisted)) {
			t.Errorf("round %d: load errors %v, want the unlisted file", round, gotBad)
		}
	}
	for _, f := range cacheFiles(t, dir2) {
		if data, err := os.ReadFile(f); err == nil && strings.Contains(string(data), "\nverified\n") {
			t.Errorf("cache file of a suite with a problem is marked verified:\n%s", data)
		}
	}
}

// indexOf2 is indexOf with kit "k" and Options.Immutable as given.
func indexOf2(t *testing.T, fsys fs.FS, dir string, immutable bool) ([]suite.Ref, []string) {
	t.Helper()
	return indexWith(t, fsys, suite.Options{DeferDigests: true, Cache: dir, CacheKit: "k", Immutable: immutable})
}
