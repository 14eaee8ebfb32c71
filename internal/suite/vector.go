package suite

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/envelope"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/normalize"
	"github.com/conform-kit/conform/internal/schema"
)

// Vector kinds and levels (schemas/vector.schema.json).
const (
	KindSession = "session"
	KindMessage = "message"

	LevelRequired      = "required"
	LevelRecommended   = "recommended"
	LevelInformational = "informational"
)

// Bounds on what one vector sends, checked when it is loaded (before
// anything is built), so that a vector file cannot make the kit hold more
// than this: schemas/vector.schema.json states them.
const (
	// MaxGenerated is the longest line a generate send item may build, in
	// bytes (64 MiB).
	MaxGenerated = 64 << 20
	// MaxSendBytes is the most a vector may send in all, in bytes (256
	// MiB): the sum of its lines with their LFs, a generate item at the
	// size it builds, a frame at the size of its RFC 8785 form.
	// VECTOR_TOO_LARGE.
	MaxSendBytes = 256 << 20
	// MaxVectorFile is the largest vector file read, in bytes (16 MiB):
	// long lines are written with generate, not spelled out.
	// VECTOR_TOO_LARGE.
	MaxVectorFile = 16 << 20
)

// chunkBytes is about how much of a generated line one chunk holds (see
// [SendItem.Chunks]).
const chunkBytes = 64 << 10

// Vector is one test vector file.
type Vector struct {
	ID          string   `json:"id"`
	Version     int      `json:"version"`
	Kind        string   `json:"kind"`
	Level       string   `json:"level"`
	Description string   `json:"description"`
	Source      string   `json:"source"`
	Tags        []string `json:"tags,omitempty"`

	// Class is the conformance class the vector belongs to: a class of its
	// version and role (suite.json "classes"); "" in a version that
	// declares none (its implicit class is ClassAll: [Vector.ClassName]).
	// Message vectors, which no IUT runs, have none.
	Class string `json:"class,omitempty"`

	// Session vectors.
	Role string `json:"role,omitempty"`
	// Policy is the host role's decisions, handed to the IUT as
	// CONFORM_POLICY (canonical JSON); nil for agent-role vectors.
	Policy    any              `json:"policy,omitempty"`
	Send      []SendItem       `json:"send,omitempty"`
	Expect    Expect           `json:"expect"`
	Normalize []normalize.Spec `json:"normalize,omitempty"`
	// Conformance adds to the version's conformance rules.
	Conformance *compare.Spec `json:"conformance,omitempty"`
	// Peer is the scripted peer: requests the IUT sends, answered by the
	// runner.
	Peer []PeerRule `json:"peer,omitempty"`
	// PassOver and Tolerate add to the version's frame rules.
	PassOver []envelope.RuleSpec `json:"passOver,omitempty"`
	Tolerate []envelope.RuleSpec `json:"tolerate,omitempty"`
	// Requires are predicates each of which some frame the IUT wrote in
	// the version's preflight vector must satisfy (not necessarily the same
	// frame) for this vector to apply.
	Requires []envelope.Predicate `json:"requires,omitempty"`
	// Args are appended to the IUT's command, Env added to its
	// environment (both may use ${suite:PATH} and ${work}); Files are
	// written into its working directory before it starts.
	Args  []string          `json:"args,omitempty"`
	Env   map[string]string `json:"env,omitempty"`
	Files []File            `json:"files,omitempty"`
	// Fixture lists suite files (under files/) that together are the
	// vector's golden: each is one frame the IUT must write.
	Fixture []string `json:"fixture,omitempty"`

	// Message vectors.
	Definition string `json:"definition,omitempty"`
	Message    any    `json:"message,omitempty"`
	Valid      bool   `json:"valid,omitempty"`

	// Path is the suite-relative file the vector was read from.
	Path string `json:"-"`
}

// SendItem is one line written to the IUT, or a wait between lines
// (exactly one field is set).
type SendItem struct {
	Frame    any       `json:"frame,omitempty"`
	Line     *string   `json:"line,omitempty"`
	Base64   *string   `json:"base64,omitempty"`
	Generate *Generate `json:"generate,omitempty"`
	// Bind, with Frame, sets values from replies the IUT already wrote into
	// the frame before it is written (a pagination cursor). [Vector] checks
	// that an await of each reply's id comes before the item.
	Bind []Binding `json:"bind,omitempty"`
	// Await is a correlation id (raw JSON, compared by its RFC 8785 form):
	// the lines after it are written only once the IUT has replied to that
	// request. Or it is {"match": [predicates]} ([SendItem.AwaitMatch]):
	// the lines after it are written once the IUT has written a frame all
	// the predicates hold for (a client's notifications/initialized, the
	// request a scripted server answers first), as in expect.order. It
	// writes nothing itself. [Vector] checks that a request sent before it
	// carries the id (or Expect.Replies lists it), or that the match
	// compiles, and that a line follows it.
	Await json.RawMessage `json:"await,omitempty"`
	// Name names the item, for a peer rule's After: a scripted reply held
	// until this item has been written.
	Name string `json:"name,omitempty"`
}

// AwaitMatch returns the compiled predicates of an await item of the match
// form, {"await": {"match": [predicates]}}, and whether item is one: an
// await whose value is a JSON object (correlation ids that are objects
// cannot be awaited, as in expect.order). Errors: an object that is not
// {"match": [predicates]}, predicates that do not compile.
func (it SendItem) AwaitMatch() (m envelope.Match, isMatch bool, err error) {
	raw := bytes.TrimSpace(it.Await)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false, nil
	}
	var w struct {
		Match *[]envelope.Predicate `json:"match"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	switch err := dec.Decode(&w); {
	case err != nil || w.Match == nil:
		return nil, true, fmt.Errorf("an await that is an object is {\"match\": [predicates]}")
	case len(*w.Match) == 0:
		return nil, true, fmt.Errorf("match has no predicate")
	}
	m, err = envelope.CompileMatch(*w.Match)
	return m, true, err
}

// AwaitKey returns the RFC 8785 form of an await item's id, the
// key the runner tracks replies by, and whether item is an await item.
func (it SendItem) AwaitKey() (string, bool) {
	if it.Await == nil {
		return "", false
	}
	k, err := canon.CanonicalBytes(it.Await)
	if err != nil {
		return string(it.Await), true
	}
	return string(k), true
}

// Binding takes the value at Path (a JSON Pointer) of the IUT's reply to
// the request with id Reply and sets it at At (a JSON Pointer) in the
// frame it belongs to. Where the reply has no value there, the frame gets
// null, or with WhenPresent is not written at all (and a reply to it is
// not expected): a pagination loop that follows a cursor only when there
// is one.
//
// With Match instead of Reply, the value comes from the first frame the
// IUT wrote (since it started: a request, a notification or a reply, kept
// or tolerated) that all the predicates hold for: the id of a request a
// client IUT sent, a session id it announced. [Vector] checks that an
// await comes before the item (an await of the same match makes sure the
// frame came).
type Binding struct {
	At          string               `json:"at"`
	Reply       any                  `json:"reply,omitempty"`
	Match       []envelope.Predicate `json:"match,omitempty"`
	Path        string               `json:"path"`
	WhenPresent bool                 `json:"whenPresent,omitempty"`
}

// PeerRule is one rule of a vector's scripted peer: a request the IUT
// writes that Match holds for is answered with Reply, the request's own id
// set at the envelope's reply id pointer.
//
// After names a send item ([SendItem.Name]): the reply is held until the
// runner has written that item, and written right after it (at once when
// it was already written), so a scripted peer can answer only after the
// runner's own next frame. A vector's rules only.
type PeerRule struct {
	Match  []envelope.Predicate `json:"match"`
	Reply  any                  `json:"reply"`
	Reason string               `json:"reason,omitempty"`
	After  string               `json:"after,omitempty"`
}

// Consistency is a rule over two frames the IUT writes (expect.consistent):
// the value at Path of the first frame First's predicates hold for must
// equal the value at Then.Path of every later frame Then's predicates
// hold for (a session id the IUT announced, then uses). A value absent
// from either side is compared as absent. Broken: VALUE_INCONSISTENT.
type Consistency struct {
	First  FrameValue `json:"first"`
	Then   FrameValue `json:"then"`
	Reason string     `json:"reason"`
}

// FrameValue names a value in the frames the IUT writes: the frames Match
// holds for, at Path (a JSON Pointer).
type FrameValue struct {
	Match []envelope.Predicate `json:"match"`
	Path  string               `json:"path"`
}

// File is a file written into the IUT's working directory before it
// starts: Path (relative, clean, inside the directory) holds the suite file
// From, or Text.
type File struct {
	Path string  `json:"path"`
	From string  `json:"from,omitempty"`
	Text *string `json:"text,omitempty"`
}

// FilesDir is the suite folder that fixture and input files live in; the
// suite digest (MANIFEST.sha256) covers it.
const FilesDir = "files"

// Generate builds a long line: Prefix, then Repeat Count times, then Suffix.
type Generate struct {
	Prefix string `json:"prefix"`
	Repeat string `json:"repeat"`
	Count  int    `json:"count"`
	Suffix string `json:"suffix"`
}

// Expect is what a session vector requires of the IUT.
type Expect struct {
	// Replies are correlation ids that must each get exactly one reply.
	Replies []any `json:"replies,omitempty"`
	// Exit is "", "zero", "nonzero" or "any": the IUT must end by itself.
	Exit string `json:"exit,omitempty"`
	// Order lists sequences whose first occurrences must come in that
	// order, whether before or after stdin closes: an element is a
	// correlation id (the reply to that request) or {"match": [predicates]}
	// (the first frame that matches), e.g. a hold's reply before its
	// release's (docs/v2.md §8).
	Order [][]any `json:"order,omitempty"`
	// AfterInput overrides the version's AfterInput.
	AfterInput string `json:"afterInput,omitempty"`
	// Quiet is the least quiet bound of this vector, a Go duration
	// ("5s"): a vector whose IUT is silent on purpose while a reply is
	// awaited (a tool that sleeps, a request that waits on the peer) sets
	// it above that silence; the runner uses the larger of it and the
	// run's quiet bound ("0s": no quiet bound for this vector). See
	// [Expect.QuietBound].
	Quiet string `json:"quiet,omitempty"`
	// Consistent are rules over pairs of frames the IUT writes
	// ([Consistency]).
	Consistent []Consistency `json:"consistent,omitempty"`
}

// QuietBound returns expect.quiet parsed (checked when the vector was
// loaded) and whether the vector sets it.
func (e Expect) QuietBound() (d time.Duration, set bool) {
	if e.Quiet == "" {
		return 0, false
	}
	d, _ = ParseBound(e.Quiet, true)
	return d, true
}

// Bytes returns the line to write for item, with its LF. A frame is written
// in its RFC 8785 canonical form. An await item writes nothing: nil, nil.
func (it SendItem) Bytes() ([]byte, error) {
	var b []byte
	switch {
	case it.Await != nil:
		return nil, nil
	case it.Line != nil:
		b = []byte(*it.Line)
	case it.Base64 != nil:
		d, err := base64.StdEncoding.DecodeString(*it.Base64)
		if err != nil {
			return nil, fmt.Errorf("base64: %w", err)
		}
		b = d
	case it.Generate != nil:
		g := it.Generate
		b = make([]byte, 0, len(g.Prefix)+len(g.Repeat)*g.Count+len(g.Suffix)+1)
		b = append(b, g.Prefix...)
		b = append(b, strings.Repeat(g.Repeat, g.Count)...)
		b = append(b, g.Suffix...)
	default:
		c, err := canon.Canonical(it.Frame)
		if err != nil {
			return nil, err
		}
		b = c
	}
	return append(b, '\n'), nil
}

// Size returns the length of the line [SendItem.Bytes] builds, LF
// included, without building a generated one. A frame is canonicalized to
// be measured. Errors: bad base64, a frame without an RFC 8785 form.
func (it SendItem) Size() (int64, error) {
	switch {
	case it.Await != nil:
		return 0, nil
	case it.Line != nil:
		return int64(len(*it.Line)) + 1, nil
	case it.Base64 != nil:
		n, err := base64.StdEncoding.DecodedLen(len(*it.Base64)), error(nil)
		if s := *it.Base64; len(s)%4 != 0 {
			err = fmt.Errorf("base64: length %d is not a multiple of 4", len(s))
		} else {
			n -= len(s) - len(strings.TrimRight(s, "="))
		}
		return int64(n) + 1, err
	case it.Generate != nil:
		g := it.Generate
		if g.Count < 0 {
			return 0, fmt.Errorf("generate: count %d is negative", g.Count)
		}
		return int64(len(g.Prefix)) + int64(len(g.Repeat))*int64(g.Count) + int64(len(g.Suffix)) + 1, nil
	}
	c, err := canon.Canonical(it.Frame)
	return int64(len(c)) + 1, err
}

// Chunks returns the line of [SendItem.Bytes] as pieces that, written in
// order, are that line. A generate item's repeated part is one shared
// block of about 64 KiB (a whole number of repeats) given as many times
// as needed, plus one shorter block for the rest, so a 64 MiB line costs
// about 64 KiB to write. Other items are one piece; an await item none.
func (it SendItem) Chunks() ([][]byte, error) {
	g := it.Generate
	if it.Await != nil {
		return nil, nil
	}
	if g == nil {
		b, err := it.Bytes()
		if err != nil {
			return nil, err
		}
		return [][]byte{b}, nil
	}
	per := max(1, chunkBytes/max(1, len(g.Repeat)))
	per = min(per, max(g.Count, 0))
	out := [][]byte{[]byte(g.Prefix)}
	if per > 0 {
		block := []byte(strings.Repeat(g.Repeat, per))
		for range g.Count / per {
			out = append(out, block)
		}
		if rest := g.Count % per; rest > 0 {
			out = append(out, block[:rest*len(g.Repeat)])
		}
	}
	return append(out, []byte(g.Suffix+"\n")), nil
}

// LoadError is a vector file that could not be loaded.
type LoadError struct {
	Path string
	Err  error
}

// Vectors loads every vector file of version ver (ver.Vectors/**/*.json),
// validating each against schemas/vector.schema.json. It returns the good
// vectors sorted by id and one [LoadError] per bad file (VECTOR_INVALID with
// line:column or the violated JSON Pointer, VECTOR_ID_MISMATCH,
// VECTOR_ID_DUPLICATE, or the file's digest problem); a bad file never stops
// the others from loading. The error return is for the kit itself
// (SCHEMA_INVALID, IO).
func (s *Suite) Vectors(ver *Version) ([]*Vector, []LoadError, error) {
	var out []*Vector
	bad, err := s.vectors(ver, false, func(v *Vector) { out = append(out, v) })
	if err != nil {
		return nil, nil, err
	}
	slices.SortFunc(out, func(a, b *Vector) int { return strings.Compare(a.ID, b.ID) })
	return out, bad, nil
}

// Ref identifies a vector without holding it: what a run keeps of each
// vector until it runs ([Suite.Reload] reads the rest then). ID is a part of
// Path and Level one of the Level constants, so a Ref costs 48 bytes plus
// its path.
type Ref struct {
	ID    string
	Level string
	// Class is the vector's class name ([Vector.ClassName]).
	Class string
	// Path is the suite-relative file, which ends in ID + ".json".
	Path string
}

// VectorIndex is [Suite.Vectors] for the session vectors of role, kept as
// [Ref]s sorted by id: every vector file of the version is loaded and
// checked the same way (and each bad one, of any kind or role, is a
// [LoadError]), but only one whole vector is in memory at a time, so a run
// of a large suite holds an index, not the suite.
func (s *Suite) VectorIndex(ver *Version, role string) ([]Ref, []LoadError, error) {
	var out []Ref
	// One copy of each class name: a vector's strings are pieces of its
	// file's text, which a Ref must not keep (about 1 KB a vector).
	classes := map[string]string{}
	bad, err := s.vectors(ver, true, func(v *Vector) {
		if v.Kind == KindSession && v.Role == role {
			r := v.ref()
			c, ok := classes[r.Class]
			if !ok {
				c = strings.Clone(r.Class)
				classes[c] = c
			}
			r.Class = c
			out = append(out, r)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	slices.SortFunc(out, func(a, b Ref) int { return strings.Compare(a.ID, b.ID) })
	return slices.Clip(out), bad, nil
}

// ref returns v's [Ref]: its id as part of its path (the file name is
// the id and ".json", which loading checks), its level as the constant.
func (v *Vector) ref() Ref {
	id := v.ID
	if strings.HasSuffix(v.Path, "/"+v.ID+".json") || v.Path == v.ID+".json" {
		id = v.Path[len(v.Path)-len(".json")-len(v.ID) : len(v.Path)-len(".json")]
	}
	level := v.Level
	for _, l := range []string{LevelRequired, LevelRecommended, LevelInformational} {
		if level == l {
			level = l
		}
	}
	return Ref{ID: id, Level: level, Class: v.ClassName(), Path: v.Path}
}

// vectors loads every vector file of ver, in path order, giving each good
// one to keep and returning the bad ones. For an index, a file the index
// cache vouches for is given as what an index keeps of it (see
// indexCache.lookup), not loaded.
func (s *Suite) vectors(ver *Version, index bool, keep func(*Vector)) ([]LoadError, error) {
	var cache *indexCache
	if index {
		cache = s.cache
	}
	// The vector schema is compiled only for a file that must be loaded.
	var schOnce sync.Once
	var sch *schema.Schema
	var schErr error
	validate := func(v any) []schema.Violation {
		schOnce.Do(func() { sch, schErr = s.Meta.Compile(VectorSchemaFile) })
		if schErr != nil {
			return []schema.Violation{{Message: schErr.Error()}}
		}
		return sch.Validate(v)
	}
	if cache == nil {
		schOnce.Do(func() { sch, schErr = s.Meta.Compile(VectorSchemaFile) })
		if schErr != nil {
			return nil, schErr
		}
	}
	names, listed := s.listedVectors(ver)
	if !listed {
		var err error
		names, err = doublestar.Glob(s.FS, path.Join(ver.Vectors, "**/*.json"), doublestar.WithFilesOnly(), doublestar.WithFailOnIOErrors())
		if err != nil {
			return nil, wrapCode(kiterr.IO, err, "glob %s", ver.Vectors)
		}
		slices.Sort(names)
	}
	var bad []LoadError
	// The path a Ref keeps is the table's copy (FileDigests), so a run
	// holds each path once.
	if s.Files != nil {
		for k, name := range names {
			if i, ok := s.Files.index(name); ok {
				names[k] = s.Files.name(i)
			}
		}
	}
	byID := map[string]string{}
	loaded := loadAll(names, func(name string) (*Vector, error) { return s.loadVector(ver, name, validate, cache) })
	for i, name := range names {
		v, err := loaded(i)
		var digest *digestError
		if errors.As(err, &digest) {
			v, err = digest.v, nil
		}
		if err == nil {
			// v.ID as a part of the path (the file name is the id and
			// ".json", or check failed): the map holds no copy of it.
			id := v.ref().ID
			// Duplicates are found among every parsed vector, whatever
			// its digest, so a copied file is named as a duplicate.
			if prev, dup := byID[id]; dup {
				err = kiterr.New(kiterr.VectorIDDuplicate, "id %q is used by %s and %s", v.ID, prev, name)
			} else {
				byID[id] = name
				if prob := s.Problems[name]; prob != nil {
					err = prob
				} else if digest != nil {
					err = digest.err
				}
			}
		}
		if err != nil {
			bad = append(bad, LoadError{Path: name, Err: err})
			continue
		}
		keep(v)
	}
	if schErr != nil {
		return nil, schErr
	}
	cache.save()
	cache.release()
	return bad, nil
}

// listedVectors returns, sorted, the vector files of ver as MANIFEST.sha256
// lists them, when that is what the glob <vectors>/**/*.json finds: in a
// suite this kit verified (Options.Immutable), whose files are exactly the
// ones listed, for a vectors folder under vectors/, which the manifest
// covers (vectors/**/*.json). ok is false otherwise.
func (s *Suite) listedVectors(ver *Version) (names []string, ok bool) {
	prefix := ver.Vectors + "/"
	if !s.trusted || s.Files == nil || !strings.HasPrefix(prefix, "vectors/") {
		return nil, false
	}
	for i, _ := s.Files.index(prefix); i < s.Files.Len(); i++ {
		n := s.Files.name(i)
		if !strings.HasPrefix(n, prefix) {
			break
		}
		if strings.HasSuffix(n, ".json") {
			names = append(names, n)
		}
	}
	return names, true
}

// loadBatch is how many vector files loadAll loads ahead of the one taken.
const loadBatch = 32

// loadAll returns a function that gives load(names[i]) for i = 0, 1, 2, ...
// in that order. The files are loaded a batch at a time by up to
// GOMAXPROCS goroutines (at most 4), so that loading a large suite, which
// reads, parses, validates and decodes every file before the first vector
// runs, takes the available cores; at most one batch of loaded vectors is
// held at a time. With one core or a small suite it loads each as asked.
func loadAll(names []string, load func(string) (*Vector, error)) func(i int) (*Vector, error) {
	workers := min(runtime.GOMAXPROCS(0), 4)
	if workers < 2 || len(names) < 2*loadBatch {
		return func(i int) (*Vector, error) { return load(names[i]) }
	}
	type result struct {
		v   *Vector
		err error
	}
	batch := make([]result, loadBatch)
	start := -1
	return func(i int) (*Vector, error) {
		if start < 0 || i >= start+loadBatch {
			start = i - i%loadBatch
			end := min(start+loadBatch, len(names))
			clear(batch)
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := start + w; k < end; k += workers {
						v, err := load(names[k])
						batch[k-start] = result{v, err}
					}
				}()
			}
			wg.Wait()
		}
		r := batch[i-start]
		batch[i-start] = result{}
		return r.v, r.err
	}
}

// Reload reads the vector file name (a suite-relative path [Vectors]
// returned) again and decodes it, with the checks of [Vectors] except the
// vector schema, which the file passed when it was loaded: runners keep
// only an index of vectors (ID, level, path) during a long run and reload
// each as it runs, so their memory does not grow with the suite. Errors:
// IO, VECTOR_INVALID, VECTOR_ID_MISMATCH (the file changed since it was
// loaded), or the file's digest problem (SUITE_DIGEST_MISMATCH, ...).
//
// Reload decodes the file the tolerant way (encoding/json) and checks its
// id and version, but not the strict form, the schema, normalizers or send
// items again: the caller builds the send items ([SendItem.Bytes]) and
// compiles the normalizers anyway, and reports their errors. Its sizes and
// inputs ([Vector.check]) are checked again only when Load skipped the
// digests: otherwise its bytes are the ones MANIFEST.sha256 lists, which
// the index checked (measuring a vector's frames for their sizes and
// compiling its rules again was a third of the reload's CPU).
func (s *Suite) Reload(ver *Version, name string) (*Vector, error) {
	if prob := s.Problems[name]; prob != nil {
		return nil, prob
	}
	data, err := readVector(s.FS, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, kiterr.Wrap(kiterr.SuiteFileUnlisted, err, "%s lists %s, which no longer exists (removed during the run?)", DigestFile, name)
	}
	if err != nil {
		return nil, err
	}
	if err := s.checkDigest(name, data); err != nil {
		return nil, err
	}
	if s.Files == nil {
		return decodeVector(ver, name, data)
	}
	// The bytes the index parsed: the strict reader reads them again.
	raw, err := canon.Parse(data)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "%s", name)
	}
	var v Vector
	if err := fromValue(raw, &v); err != nil {
		return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "decode %s", name)
	}
	v.Path = name
	if err := v.checkName(ver); err != nil {
		return nil, err
	}
	return &v, nil
}

// decodeVector decodes the vector file name and makes the checks of
// [Vector.check].
func decodeVector(ver *Version, name string, data []byte) (*Vector, error) {
	var v Vector
	if err := decode(data, &v); err != nil {
		return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "decode %s", name)
	}
	v.Path = name
	if err := v.check(ver); err != nil {
		return nil, err
	}
	return &v, nil
}

// decodeParsed is decodeVector for the file's parsed value.
func decodeParsed(ver *Version, name string, raw any) (*Vector, error) {
	var v Vector
	if err := fromValue(raw, &v); err != nil {
		return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "decode %s", name)
	}
	v.Path = name
	if err := v.check(ver); err != nil {
		return nil, err
	}
	return &v, nil
}

// readVector reads the vector file name. Errors: VECTOR_TOO_LARGE (over
// [MaxVectorFile]), SUITE_PATH_OUTSIDE, IO.
func readVector(fsys fs.FS, name string) ([]byte, error) {
	data, tooLarge, err := readFile(fsys, name, MaxVectorFile)
	switch {
	case err != nil:
		return nil, wrapCode(kiterr.IO, err, "read %s", name)
	case tooLarge:
		return nil, kiterr.New(kiterr.VectorTooLarge, "%s is larger than %d bytes (write long lines with generate)", name, MaxVectorFile)
	}
	return data, nil
}

// ClassName returns the vector's class: Class, or ClassAll when it names
// none (a version that declares no classes; loading refuses a vector
// without one in a version that does).
func (v *Vector) ClassName() string {
	if v.Class == "" {
		return ClassAll
	}
	return v.Class
}

// checkClass checks that a session vector names a class of its role when
// its version declares classes, and names none when it declares none.
// Errors: VECTOR_CLASS_UNKNOWN.
func (v *Vector) checkClass(ver *Version) error {
	if v.Kind != KindSession {
		if v.Class != "" {
			return kiterr.New(kiterr.VectorClassUnknown, "%s: a message vector has no class (class %q)", v.Path, v.Class)
		}
		return nil
	}
	if len(ver.Classes) == 0 {
		if v.Class != "" {
			return kiterr.New(kiterr.VectorClassUnknown, "%s: class %q: version %d declares no classes in suite.json", v.Path, v.Class, ver.Version)
		}
		return nil
	}
	var names []string
	for _, c := range ver.RoleClasses(v.Role) {
		if c.Name == v.Class {
			return nil
		}
		names = append(names, c.Name)
	}
	if v.Class == "" {
		return kiterr.New(kiterr.VectorClassUnknown, "%s: no class: version %d declares classes, and every vector names one of its role %q (%s)", v.Path, ver.Version, v.Role, strings.Join(names, ", "))
	}
	return kiterr.New(kiterr.VectorClassUnknown, "%s: class %q is not a class of version %d, role %q (%s)", v.Path, v.Class, ver.Version, v.Role, strings.Join(names, ", "))
}

// check is what every load checks of a decoded vector: its file name
// matches its id, its version its folder, no generate item is larger
// than MaxGenerated and the whole send list is not larger than
// MaxSendBytes (VECTOR_TOO_LARGE; built, a line would cost its size, so
// only sizes are computed).
func (v *Vector) check(ver *Version) error {
	if err := v.checkName(ver); err != nil {
		return err
	}
	var total int64
	for i, it := range v.Send {
		n, err := it.Size()
		if err != nil {
			return kiterr.Wrap(kiterr.VectorInvalid, err, "%s: send[%d]", v.Path, i)
		}
		if it.Generate != nil && n-1 > MaxGenerated {
			return kiterr.New(kiterr.VectorInvalid, "%s: send[%d] generates %d bytes, more than %d", v.Path, i, n-1, MaxGenerated)
		}
		if total += n; total > MaxSendBytes {
			return kiterr.New(kiterr.VectorTooLarge, "%s: send[0] to send[%d] add up to %d bytes, more than the %d a vector may send", v.Path, i, total, MaxSendBytes)
		}
	}
	if err := v.checkInputs(ver); err != nil {
		return err
	}
	if err := v.checkClass(ver); err != nil {
		return err
	}
	if err := v.checkVarRefs(ver); err != nil {
		return err
	}
	return v.checkAwaits(ver)
}

// checkName checks that v's file name is its id and its version its
// folder's: VECTOR_ID_MISMATCH.
func (v *Vector) checkName(ver *Version) error {
	if base := path.Base(v.Path); base != v.ID+".json" {
		return kiterr.New(kiterr.VectorIDMismatch, "%s: file name must be %s.json", v.Path, v.ID)
	}
	if v.Version != ver.Version {
		return kiterr.New(kiterr.VectorIDMismatch, "%s: version %d in a v%d folder", v.Path, v.Version, ver.Version)
	}
	return nil
}

// checkInputs checks what a session vector declares beyond its lines: its
// role is one of the version's, its files stay inside the IUT's working
// directory and come from the suite's files folder, its fixture files are
// there too, its frame rules, peer rules and requires compile, and its
// afterInput is known. Errors: VECTOR_INVALID.
func (v *Vector) checkInputs(ver *Version) error {
	if v.Kind != KindSession {
		return nil
	}
	if ver.Role(v.Role) == nil {
		return kiterr.New(kiterr.VectorInvalid, "%s: role %q is not a role of version %d (%s)", v.Path, v.Role, ver.Version, strings.Join(ver.RoleNames(), ", "))
	}
	if len(v.Requires) > 0 && (ver.Preflight == "" || ver.Preflight == v.ID) {
		return kiterr.New(kiterr.VectorInvalid, "%s: requires is checked against the frames of the version's preflight vector, and this version has none other than this vector", v.Path)
	}
	if len(v.Fixture) > 0 && v.Expect.Exit == "any" {
		return kiterr.New(kiterr.VectorInvalid, "%s: a fixture golden records exit zero or nonzero, not any", v.Path)
	}
	switch v.Expect.AfterInput {
	case "", AfterInputEither, AfterInputExit, AfterInputKeepRunning, AfterInputAny:
	default:
		return kiterr.New(kiterr.VectorInvalid, "%s: expect.afterInput %q is not either, exit, keepRunning or any", v.Path, v.Expect.AfterInput)
	}
	if v.Expect.Quiet != "" {
		if _, err := ParseBound(v.Expect.Quiet, true); err != nil {
			return kiterr.New(kiterr.VectorInvalid, "%s: expect.quiet: %v", v.Path, err)
		}
	}
	// The environment first: a vector that loads code both ways is
	// refused for the variable, so each deny list is tested on its own.
	for _, k := range slices.Sorted(maps.Keys(v.Env)) {
		if rule, reads, denied := EnvDenied(k); denied {
			return kiterr.New(kiterr.VectorEnvDenied, "%s: env: a suite may not set %s (denied: %s; read by %s); only the implementer's profile may", v.Path, k, rule, reads)
		}
	}
	for i, f := range v.Files {
		if !fs.ValidPath(f.Path) || f.Path == "." || strings.Contains(f.Path, `\`) {
			return kiterr.New(kiterr.VectorInvalid, "%s: files[%d]: path %q is not a clean relative path inside the IUT's working directory", v.Path, i, f.Path)
		}
		if (f.From == "") == (f.Text == nil) {
			return kiterr.New(kiterr.VectorInvalid, "%s: files[%d] (%s): give exactly one of from and text", v.Path, i, f.Path)
		}
		if f.From != "" {
			if err := checkSuiteFile(f.From); err != nil {
				return kiterr.Wrap(kiterr.VectorInvalid, err, "%s: files[%d]", v.Path, i)
			}
		}
		if why, denied := FileDenied(f.Path); denied {
			return kiterr.New(kiterr.VectorFileDenied, "%s: files[%d]: a suite may not put %s into the IUT's working directory: %s", v.Path, i, f.Path, why)
		}
	}
	for i, f := range v.Fixture {
		if err := checkSuiteFile(f); err != nil {
			return kiterr.Wrap(kiterr.VectorInvalid, err, "%s: fixture[%d]", v.Path, i)
		}
	}
	for _, s := range append(slices.Clone(v.Args), envValues(v.Env)...) {
		for _, ref := range SuiteRefs(s) {
			if err := checkSuiteFile(ref); err != nil {
				return kiterr.Wrap(kiterr.VectorInvalid, err, "%s: ${suite:%s}", v.Path, ref)
			}
			if why, denied := FileDenied(ref); denied {
				return kiterr.New(kiterr.VectorFileDenied, "%s: ${suite:%s}: its copy in the IUT's working directory would be denied: %s", v.Path, ref, why)
			}
		}
	}
	if _, err := envelope.CompileRules("passOver", v.PassOver, false); err != nil {
		return kiterr.Wrap(kiterr.VectorInvalid, err, "%s", v.Path)
	}
	if _, err := envelope.CompileRules("tolerate", v.Tolerate, true); err != nil {
		return kiterr.Wrap(kiterr.VectorInvalid, err, "%s", v.Path)
	}
	if _, err := envelope.CompileMatch(v.Requires); err != nil {
		return kiterr.Wrap(kiterr.VectorInvalid, err, "%s: requires", v.Path)
	}
	if len(v.Peer) > 0 && ver.Env().ReplyClass() == nil {
		return kiterr.New(kiterr.VectorInvalid, "%s: peer rules need a reply class in the version's envelope", v.Path)
	}
	for i, p := range v.Peer {
		if len(p.Match) == 0 {
			return kiterr.New(kiterr.VectorInvalid, "%s: peer[%d]: match has no predicate", v.Path, i)
		}
		if _, err := envelope.CompileMatch(p.Match); err != nil {
			return kiterr.Wrap(kiterr.VectorInvalid, err, "%s: peer[%d]", v.Path, i)
		}
	}
	for i, seq := range v.Expect.Order {
		for j, el := range seq {
			if _, _, err := OrderElement(el); err != nil {
				return kiterr.Wrap(kiterr.VectorInvalid, err, "%s: expect.order[%d][%d]", v.Path, i, j)
			}
		}
	}
	return nil
}

// OrderElement reads one element of an expect.order sequence: a
// correlation id (key is its RFC 8785 text) or {"match": [predicates]}
// (m is the compiled match). Errors: an object that is not a match, a
// match that does not compile.
func OrderElement(el any) (key string, m envelope.Match, err error) {
	obj, isObj := el.(map[string]any)
	if !isObj {
		return envelope.Key(el), nil, nil
	}
	raw, ok := obj["match"]
	if !ok || len(obj) != 1 {
		return "", nil, fmt.Errorf("an object in an order sequence is {\"match\": [predicates]}")
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return "", nil, err
	}
	var ps []envelope.Predicate
	if err := json.Unmarshal(b, &ps); err != nil {
		return "", nil, fmt.Errorf("match: %w", err)
	}
	if len(ps) == 0 {
		return "", nil, fmt.Errorf("match has no predicate")
	}
	m, err = envelope.CompileMatch(ps)
	return "", m, err
}

func envValues(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for _, v := range env {
		out = append(out, v)
	}
	return out
}

// checkSuiteFile checks that name is a clean suite path under [FilesDir].
func checkSuiteFile(name string) error {
	if !fs.ValidPath(name) || !strings.HasPrefix(name, FilesDir+"/") || strings.Contains(name, `\`) {
		return fmt.Errorf("%q is not a clean suite path under %s/ (the folder MANIFEST.sha256 covers for input and fixture files)", name, FilesDir)
	}
	return nil
}

// SuiteRefs returns the PATHs of the ${suite:PATH} placeholders in s, in
// order.
func SuiteRefs(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "${suite:")
		if i < 0 {
			return out
		}
		s = s[i+len("${suite:"):]
		j := strings.IndexByte(s, '}')
		if j < 0 {
			return append(out, s)
		}
		out = append(out, s[:j])
		s = s[j+1:]
	}
}

// checkAwaits checks every await item: it names the correlation id of a
// request sent before it (a send frame the version's envelope classifies
// as a request) or one that expect.replies lists, and a line follows it
// (an await with nothing after it would wait for nothing). Errors:
// VECTOR_INVALID.
func (v *Vector) checkAwaits(ver *Version) error {
	sent := map[string]bool{}
	for _, id := range v.Expect.Replies {
		sent[envelope.Key(id)] = true
	}
	env := ver.Env()
	awaited := map[string]bool{}
	anyAwait := false
	names := map[string]bool{}
	for i, it := range v.Send {
		if it.Name != "" {
			if names[it.Name] {
				return kiterr.New(kiterr.VectorInvalid, "%s: send[%d]: name %q is used twice", v.Path, i, it.Name)
			}
			if it.Await != nil {
				return kiterr.New(kiterr.VectorInvalid, "%s: send[%d]: an await item writes nothing and has no name", v.Path, i)
			}
			names[it.Name] = true
		}
		if it.Await != nil {
			anyAwait = true
		}
	}
	for i, p := range v.Peer {
		if p.After != "" && !names[p.After] {
			return kiterr.New(kiterr.VectorInvalid, "%s: peer[%d]: after %q names no send item", v.Path, i, p.After)
		}
	}
	for i, c := range v.Expect.Consistent {
		for _, side := range []struct {
			name string
			fv   FrameValue
		}{{"first", c.First}, {"then", c.Then}} {
			if len(side.fv.Match) == 0 {
				return kiterr.New(kiterr.VectorInvalid, "%s: expect.consistent[%d].%s: match has no predicate", v.Path, i, side.name)
			}
			if _, err := envelope.CompileMatch(side.fv.Match); err != nil {
				return kiterr.Wrap(kiterr.VectorInvalid, err, "%s: expect.consistent[%d].%s", v.Path, i, side.name)
			}
			if _, err := envelope.Tokens(side.fv.Path); err != nil {
				return kiterr.New(kiterr.VectorInvalid, "%s: expect.consistent[%d].%s: path: %v", v.Path, i, side.name, err)
			}
		}
	}
	anyAwait = false
	for i, it := range v.Send {
		if it.Await != nil {
			anyAwait = true
		}
		for j, b := range it.Bind {
			if it.Frame == nil {
				return kiterr.New(kiterr.VectorInvalid, "%s: send[%d]: bind needs a frame", v.Path, i)
			}
			if _, err := envelope.Tokens(b.At); err != nil || b.At == "" {
				return kiterr.New(kiterr.VectorInvalid, "%s: send[%d].bind[%d]: at %q is not a JSON Pointer into the frame", v.Path, i, j, b.At)
			}
			if _, err := envelope.Tokens(b.Path); err != nil {
				return kiterr.New(kiterr.VectorInvalid, "%s: send[%d].bind[%d]: path: %v", v.Path, i, j, err)
			}
			if b.Match != nil {
				if b.Reply != nil {
					return kiterr.New(kiterr.VectorInvalid, "%s: send[%d].bind[%d]: give reply or match, not both", v.Path, i, j)
				}
				if _, err := envelope.CompileMatch(b.Match); err != nil || len(b.Match) == 0 {
					return kiterr.New(kiterr.VectorInvalid, "%s: send[%d].bind[%d]: match: %v", v.Path, i, j, orNoPredicate(err))
				}
				if !anyAwait {
					return kiterr.New(kiterr.VectorInvalid, "%s: send[%d].bind[%d] takes a value from a frame the IUT writes, and no await before it waits for one", v.Path, i, j)
				}
				continue
			}
			if !awaited[envelope.Key(b.Reply)] {
				return kiterr.New(kiterr.VectorInvalid, "%s: send[%d].bind[%d] takes a value from the reply to %s, which no await before it waits for", v.Path, i, j, envelope.Key(b.Reply))
			}
		}
		if _, isMatch, err := it.AwaitMatch(); isMatch {
			if err != nil {
				return kiterr.Wrap(kiterr.VectorInvalid, err, "%s: send[%d]", v.Path, i)
			}
			if i+1 == len(v.Send) || v.Send[i+1].Await != nil {
				return kiterr.New(kiterr.VectorInvalid, "%s: send[%d] awaits a frame match but no line follows it", v.Path, i)
			}
			continue
		}
		k, await := it.AwaitKey()
		if !await {
			if it.Frame != nil && env != nil {
				if c := env.Classify(it.Frame); c != nil && c.Kind == envelope.Request {
					if id, ok := c.ID(it.Frame); ok {
						sent[envelope.Key(id)] = true
					}
				}
			}
			continue
		}
		if !sent[k] {
			return kiterr.New(kiterr.VectorInvalid, "%s: send[%d] awaits the reply to %s, which no request before it carries and expect.replies does not list", v.Path, i, k)
		}
		if i+1 == len(v.Send) || v.Send[i+1].Await != nil {
			return kiterr.New(kiterr.VectorInvalid, "%s: send[%d] awaits the reply to %s but no line follows it", v.Path, i, k)
		}
		awaited[k] = true
	}
	return nil
}

// orNoPredicate is err, or an error saying a match has no predicate.
func orNoPredicate(err error) error {
	if err == nil {
		return errors.New("match has no predicate")
	}
	return err
}

// digestError is a vector that loaded but whose file differs from what
// MANIFEST.sha256 lists (Options.DeferDigests): reported as that, after
// the checks that come first (a duplicate id).
type digestError struct {
	v   *Vector
	err error
}

func (e *digestError) Error() string { return e.err.Error() }

// loadVector reads, decodes and checks one vector file; a file cache
// vouches for is only read and hashed, or, in a suite this kit verified
// (Options.Immutable), not read. Under Options.DeferDigests a file
// that loads but differs from the manifest is a *digestError.
func (s *Suite) loadVector(ver *Version, name string, validate func(any) []schema.Violation, cache *indexCache) (v *Vector, err error) {
	if s.trusted {
		// Options.Immutable: the entry's SHA-256 is the file's.
		if v, sum, ok := cache.trusted(name); ok {
			if derr := s.firstCheckSum(name, &sum); derr != nil {
				return nil, &digestError{v: v, err: derr}
			}
			return v, nil
		}
	}
	data, err := readVector(s.FS, name)
	if err != nil {
		return nil, err
	}
	var sum [32]byte
	if s.deferred || cache != nil {
		sum = sha256.Sum256(data)
	}
	if s.deferred {
		if derr := s.firstCheckSum(name, &sum); derr != nil {
			defer func() {
				if err == nil {
					v, err = nil, &digestError{v: v, err: derr}
				}
			}()
		}
	}
	if v, ok := cache.lookup(name, &sum); ok {
		return v, nil
	}
	if cache != nil {
		defer func() {
			if err == nil {
				cache.add(v, &sum)
			}
		}()
	}
	raw, err := canon.Parse(data)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "%s", name)
	}
	if vs := validate(raw); vs != nil {
		msgs := make([]string, len(vs))
		for i, v := range vs {
			msgs[i] = v.String()
		}
		return nil, kiterr.New(kiterr.VectorInvalid, "%s violates %s: %s", name, VectorSchemaFile, strings.Join(msgs, "; "))
	}
	v, err = decodeParsed(ver, name, raw)
	if err != nil {
		return nil, err
	}
	if _, err := normalize.Compile(v.Normalize); err != nil {
		return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "%s", name)
	}
	if _, err := compare.Compile(v.Conformance); err != nil {
		return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "%s", name)
	}
	for i, it := range v.Send {
		if it.Generate != nil {
			continue // its size was checked; well-formed by construction
		}
		if _, err := it.Bytes(); err != nil {
			return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "%s: send[%d]", name, i)
		}
	}
	return v, nil
}

// Select keeps the vectors whose id matches any of the doublestar globs
// (all vectors when globs is empty). Each glob must match at least one
// vector: one that matches none is FILTER_NO_MATCH (never a green run of
// nothing). Bad globs are USAGE errors.
func Select[V *Vector | Ref](vs []V, globs []string) ([]V, error) {
	if len(globs) == 0 {
		return vs, nil
	}
	for _, g := range globs {
		if !doublestar.ValidatePattern(g) {
			return nil, kiterr.New(kiterr.Usage, "filter %q is not a valid glob", g)
		}
	}
	hit := make([]bool, len(globs))
	var out []V
	for _, v := range vs {
		keep := false
		id := ""
		switch v := any(v).(type) {
		case *Vector:
			id = v.ID
		case Ref:
			id = v.ID
		}
		for i, g := range globs {
			ok, err := doublestar.Match(g, id)
			if err != nil {
				return nil, kiterr.Wrap(kiterr.Usage, err, "filter %q", g)
			}
			if ok {
				hit[i] = true
				keep = true
			}
		}
		if keep {
			out = append(out, v)
		}
	}
	for i, g := range globs {
		if !hit[i] {
			return nil, kiterr.New(kiterr.FilterNoMatch, "filter %q matches no vector", g)
		}
	}
	return out, nil
}
