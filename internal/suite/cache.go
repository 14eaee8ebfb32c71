package suite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// The index cache (Options.Cache): what Load and VectorIndex learnt about
// a suite's files, kept between runs so that a later run of the same suite
// by the same kit does not learn it again.
//
// A run must know every vector file's kind, role and level, and that the
// file is valid (every bad file is reported, selected or not), before its
// first vector runs; then it reads each vector it runs again, to run it.
// Without the cache every vector file is parsed, validated against the
// vector schema, decoded and checked when the index is built, and decoded
// again when it runs; and suite.json is validated against the suite schema,
// whose compilation (the library checks it against its meta-schema first)
// was a seventh of a one-vector run's CPU (bench/README.md). With it, a
// file the cache vouches for is read and hashed (its digest is checked
// anyway) and decoded once, when it runs.
//
// What the cache vouches for is a pure function of what its name and its
// lines hold: the kit (Options.CacheKit: the running binary), the kit's
// meta-schemas, suite.json's bytes and the suite's digest (of
// MANIFEST.sha256, so one suite's files never meet another's), and for
// each file its suite path and SHA-256. A file is in it only after it loaded and passed every check of
// [Suite.Vectors]; a cache file exists only for a suite.json that passed
// Load's checks. Anything that differs (another kit, an edited suite.json
// or schema, a file whose bytes changed) is simply not found, and is
// checked as without a cache; an unreadable or malformed cache file is
// ignored and written again.
//
// A suite whose files cannot change while the kit exists (Options.Immutable:
// the suite embedded in the binary, which CacheKit identifies) is checked
// once per kit: the cache file records that Load's walk found every
// covered file listed and matching (the line "verified"), and its entries'
// SHA-256s are then the files' own, since the same kit read the same
// bytes. A later Load neither walks nor hashes the files, and VectorIndex
// takes a vector the cache vouches for without reading it (its digest is
// checked against MANIFEST.sha256 from the entry). A suite with any
// problem is never marked, so it is checked, and reported, every time.
//
// One file per key: <Cache>/index-<hex>.txt, a header line, the line
// "verified" when it is, then one line per valid vector file:
// "<sha256> <kind> <role or -> <level> <class or -> <path>". It
// is written whole to a temporary file and renamed, so concurrent runs
// never read half of one; the directory keeps the cacheFiles most recently
// written.
type indexCache struct {
	file string
	// hit: the file was there and well-formed (suite.json passed Load).
	hit bool
	// verified: the file records that Load found every covered file
	// listed and matching (see markVerified).
	verified bool

	mu sync.Mutex
	// loaded: data and lines hold the file (none when there was none);
	// false once released.
	loaded bool
	// data is the file as read, lines the offsets of its entry lines in
	// path order: the entries are read from the line when looked up,
	// so that a cache of 10,000 vectors costs its 1.5 MB file and 4 bytes
	// a vector, where a map of parsed entries (and the line strings their
	// fields kept) cost 5.4 MB at the run's peak (bench/README.md).
	data  []byte
	lines []uint32
	// added holds the entries add recorded since, by suite path; they
	// take precedence over the file's.
	added map[string]cacheEntry
	// names interns the kinds, roles, levels and classes of entries (a
	// handful of values), so that what a run keeps of a vector never
	// holds a piece of the file or of the vector it was read from.
	names map[string]string
	dirty bool
}

type cacheEntry struct {
	sum                      [32]byte
	kind, role, level, class string
}

const cacheHeader = "conform suite index 3"

// cacheVerified is the line after the header of a cache file whose suite
// passed every check of Load's walk (see markVerified).
const cacheVerified = "verified"

// cacheFiles is how many index files the cache directory keeps (each
// suite state, kit and suite.json has its own; an edited suite makes a new
// one): saving one removes the oldest beyond it.
const cacheFiles = 32

// openCache finds the cache file of this suite.json for this kit, and
// reads it when it is there. meta is nil when the meta-schemas are the
// kit's own (Options.MetaChecked), which kit identifies. An immutable
// suite (Options.Immutable) has cache files of its own: its entries'
// SHA-256s are trusted as the files' own, so they are never mixed with
// those of a directory holding the same suite.json and manifest.
func openCache(dir, kit string, meta fs.FS, suiteJSON []byte, digest string, immutable bool) *indexCache {
	if digest == "" {
		return nil // no MANIFEST.sha256 read: nothing to key by
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%t\x00", cacheHeader, kit, immutable)
	for _, name := range []string{SuiteSchemaFile, VectorSchemaFile} {
		if meta == nil {
			break
		}
		b, err := fs.ReadFile(meta, name)
		if err != nil {
			return nil
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(b))
		h.Write(b)
	}
	h.Write(suiteJSON)
	h.Write([]byte(digest))
	c := &indexCache{file: filepath.Join(dir, "index-"+hex.EncodeToString(h.Sum(nil))[:32]+".txt")}
	c.load()
	return c
}

// cacheFields is the number of fields of an entry line.
const cacheFields = 6

// fields splits the entry line at off into its fields: sum, kind, role,
// level, class, path; ok is false when it has fewer.
func (c *indexCache) fields(off uint32) (f [cacheFields][]byte, ok bool) {
	line := c.data[off:]
	if n := bytes.IndexByte(line, '\n'); n >= 0 {
		line = line[:n]
	}
	for i := range cacheFields - 1 {
		n := bytes.IndexByte(line, ' ')
		if n < 0 {
			return f, false
		}
		f[i], line = line[:n], line[n+1:]
	}
	f[cacheFields-1] = line
	return f, true
}

// load reads the cache file (none, or a malformed one, gives no entries).
func (c *indexCache) load() {
	c.loaded, c.data, c.lines, c.added = true, nil, nil, nil
	data, err := os.ReadFile(c.file)
	if err != nil {
		return
	}
	body, ok := bytes.CutPrefix(data, []byte(cacheHeader+"\n"))
	if !ok {
		return
	}
	verified := false
	if rest, ok := bytes.CutPrefix(body, []byte(cacheVerified+"\n")); ok {
		body, verified = rest, true
	}
	// About 150 bytes a line.
	lines := make([]uint32, 0, len(body)/128)
	var sum [32]byte
	for at := len(data) - len(body); at < len(data); {
		n := bytes.IndexByte(data[at:], '\n')
		if n < 0 {
			n = len(data) - at
		}
		c.data = data
		f, ok := c.fields(uint32(at))
		if !ok || len(f[0]) != 64 {
			c.data = nil
			return
		}
		if _, err := hex.Decode(sum[:], f[0]); err != nil {
			c.data = nil
			return
		}
		lines = append(lines, uint32(at))
		at += n + 1
	}
	c.data = data
	path := func(off uint32) []byte { f, _ := c.fields(off); return f[cacheFields-1] }
	if !slices.IsSortedFunc(lines, func(a, b uint32) int { return bytes.Compare(path(a), path(b)) }) || hasDup(lines, path) {
		// Not a file save wrote: the last line of a path counts.
		slices.SortStableFunc(lines, func(a, b uint32) int { return bytes.Compare(path(a), path(b)) })
		out := lines[:0]
		for i, off := range lines {
			if i+1 < len(lines) && bytes.Equal(path(off), path(lines[i+1])) {
				continue
			}
			out = append(out, off)
		}
		lines = out
	}
	c.lines = lines
	c.hit, c.verified = true, verified
}

// hasDup reports whether two neighbours of the sorted lines have the
// same path.
func hasDup(lines []uint32, path func(uint32) []byte) bool {
	for i := 1; i < len(lines); i++ {
		if bytes.Equal(path(lines[i-1]), path(lines[i])) {
			return true
		}
	}
	return false
}

// release drops the entries once an index is built (the file and about 100
// bytes a vector file added, which a run would otherwise hold to its end);
// a later lookup reads the file again.
func (c *indexCache) release() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.loaded, c.data, c.lines, c.added = false, nil, nil, nil
	c.mu.Unlock()
}

// find returns the entry of name; c.mu is held.
func (c *indexCache) find(name string) (cacheEntry, bool) {
	if !c.loaded {
		c.load()
	}
	if e, ok := c.added[name]; ok {
		return e, true
	}
	i, ok := slices.BinarySearchFunc(c.lines, name, func(off uint32, name string) int {
		f, _ := c.fields(off)
		return bytes.Compare(f[cacheFields-1], []byte(name))
	})
	if !ok {
		return cacheEntry{}, false
	}
	return c.entry(c.lines[i]), true
}

// entry parses the entry line at off, which load checked.
func (c *indexCache) entry(off uint32) cacheEntry {
	f, _ := c.fields(off)
	var e cacheEntry
	_, _ = hex.Decode(e.sum[:], f[0])
	e.kind, e.role, e.level, e.class = c.intern(f[1]), c.intern(f[2]), c.intern(f[3]), c.intern(f[4])
	if e.role == "-" {
		e.role = ""
	}
	if e.class == "-" {
		e.class = ""
	}
	return e
}

// intern returns the string of b, one copy per distinct value; c.mu is
// held.
func (c *indexCache) intern(b []byte) string {
	if s, ok := c.names[string(b)]; ok {
		return s
	}
	if c.names == nil {
		c.names = map[string]string{}
	}
	s := string(b)
	c.names[s] = s
	return s
}

// lookup returns the vector the cache vouches for: name with these bytes
// (sum) loaded and passed every check before. Only what an index keeps is
// set (id, kind, role, level, class, path).
func (c *indexCache) lookup(name string, sum *[32]byte) (*Vector, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	e, ok := c.find(name)
	c.mu.Unlock()
	if !ok || e.sum != *sum {
		return nil, false
	}
	return e.vector(name), true
}

// vector is what an index keeps of the vector file name the entry
// vouches for (its id is the file name without ".json", which loading
// checked).
func (e cacheEntry) vector(name string) *Vector {
	id := strings.TrimSuffix(name[strings.LastIndexByte(name, '/')+1:], ".json")
	return &Vector{ID: id, Kind: e.kind, Role: e.role, Level: e.level, Class: e.class, Path: name}
}

// trusted returns the vector the cache vouches for under name whatever the
// file's bytes are now, and the SHA-256 of the bytes it was read with: only
// for a suite whose files cannot change ([Options.Immutable]), where that
// is the SHA-256 the file has.
func (c *indexCache) trusted(name string) (*Vector, [32]byte, bool) {
	if c == nil {
		return nil, [32]byte{}, false
	}
	c.mu.Lock()
	e, ok := c.find(name)
	c.mu.Unlock()
	if !ok {
		return nil, [32]byte{}, false
	}
	return e.vector(name), e.sum, true
}

// markVerified records that Load's walk found every covered file listed
// and matching, and none missing, for a suite whose files cannot change.
func (c *indexCache) markVerified() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.verified {
		c.verified, c.dirty = true, true
	}
}

// add records that v, read with these bytes (sum), loaded and passed every
// check.
func (c *indexCache) add(v *Vector, sum *[32]byte) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.find(v.Path); ok && e.sum == *sum {
		return
	}
	if c.added == nil {
		c.added = map[string]cacheEntry{}
	}
	c.added[v.Path] = cacheEntry{sum: *sum, kind: c.intern([]byte(v.Kind)), role: c.intern([]byte(v.Role)),
		level: c.intern([]byte(v.Level)), class: c.intern([]byte(v.Class))}
	c.dirty = true
}

// save writes the cache file when something was added, or when there was
// none (suite.json passed Load). Errors are ignored: the cache only saves
// work.
func (c *indexCache) save() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded || c.hit && !c.dirty {
		return
	}
	names := make([]string, 0, len(c.lines)+len(c.added))
	for n := range c.added {
		names = append(names, n)
	}
	for _, off := range c.lines {
		f, _ := c.fields(off)
		if _, ok := c.added[string(f[cacheFields-1])]; !ok {
			names = append(names, string(f[cacheFields-1]))
		}
	}
	slices.Sort(names)
	var b bytes.Buffer
	b.WriteString(cacheHeader + "\n")
	if c.verified {
		b.WriteString(cacheVerified + "\n")
	}
	for _, n := range names {
		e, _ := c.find(n)
		role := e.role
		if role == "" {
			role = "-"
		}
		class := e.class
		if class == "" {
			class = "-"
		}
		if strings.ContainsAny(n+e.kind+role+e.level+class, " \n") {
			continue // not a line this format can hold: checked each time
		}
		fmt.Fprintf(&b, "%x %s %s %s %s %s\n", e.sum, e.kind, role, e.level, class, n)
	}
	if err := os.MkdirAll(filepath.Dir(c.file), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.file), ".index-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b.Bytes())
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), c.file) != nil {
		_ = os.Remove(tmp.Name())
		return
	}
	c.hit, c.dirty = true, false
	PruneCache(filepath.Dir(c.file), "index-", cacheFiles)
}

// PruneCache removes the oldest files of dir named prefix*.txt beyond the
// keep newest (by modification time): the index cache's files here, the
// runner's preflight cache. Errors are ignored: a cache that cannot be
// pruned is only larger.
func PruneCache(dir, prefix string, keep int) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		name string
		mod  int64
	}
	var files []file
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), prefix) || !strings.HasSuffix(e.Name(), ".txt") {
			continue
		}
		if fi, err := e.Info(); err == nil {
			files = append(files, file{e.Name(), fi.ModTime().UnixNano()})
		}
	}
	if len(files) <= keep {
		return
	}
	slices.SortFunc(files, func(a, b file) int { return int(min(max(b.mod-a.mod, -1), 1)) })
	for _, f := range files[keep:] {
		_ = os.Remove(filepath.Join(dir, f.name))
	}
}
