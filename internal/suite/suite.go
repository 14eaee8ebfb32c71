// Package suite loads a conform suite from an fs.FS: the manifest
// (suite.json), the digest manifest (MANIFEST.sha256), vector files and golden
// summaries. Everything is plain JSON that any language can read; see
// schemas/suite.schema.json and schemas/vector.schema.json.
package suite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	"github.com/conform-kit/conform/internal/frame"
	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/normalize"
	"github.com/conform-kit/conform/internal/schema"
)

// Well-known suite-relative paths.
const (
	ManifestFile     = "suite.json"
	DigestFile       = "MANIFEST.sha256"
	SuiteSchemaFile  = "schemas/suite.schema.json"
	VectorSchemaFile = "schemas/vector.schema.json"
	ReportSchemaFile = "schemas/report.schema.json"
)

// DigestGlobs are the files MANIFEST.sha256 covers.
var digestGlobs = []string{"suite.json", "schemas/**/*.json", "vectors/**/*.json", "golden/**/*.json", "files/**"}

// Manifest is suite.json.
type Manifest struct {
	Name string `json:"name"`
	// Title is the suite's short name for people ("MCP"), which verdict
	// lines print before the role and version; optional.
	Title       string    `json:"title,omitempty"`
	Description string    `json:"description,omitempty"`
	Versions    []Version `json:"versions"`
	// Vars are the values a vector may take from the implementation's
	// profile (${var:NAME}), by name ([Var], [Suite.ResolveVars]).
	Vars map[string]Var `json:"vars,omitempty"`

	// Framing is how messages are delimited on the IUT's stdin and stdout
	// (docs/suite-format.md "Framing"): "lines" or "content-length"; ""
	// (absent) is lines. [Suite.Framing] is the value to use.
	Framing frame.Framing `json:"framing,omitempty"`
}

// Version is one protocol version of the suite (docs/suite-format.md "A
// version"). Its compiled envelope and frame rules are set by [Load].
type Version struct {
	Version int `json:"version"`
	// Label is an optional display name of the protocol revision
	// ("2025-11-25").
	Label   string `json:"label,omitempty"`
	Status  string `json:"status"`
	Schema  string `json:"schema"`
	Vectors string `json:"vectors"`
	Golden  string `json:"golden"`
	// Roles are the roles an IUT can play, the default first.
	Roles []Role `json:"roles"`
	// Envelope says how frames are classified and correlated.
	Envelope envelope.Spec `json:"envelope"`
	// PassOver and Tolerate are the frames the runner skips, or allows
	// without keeping them in the summary.
	PassOver []envelope.RuleSpec `json:"passOver,omitempty"`
	Tolerate []envelope.RuleSpec `json:"tolerate,omitempty"`
	// Peer is the version's scripted peer: answers to requests the IUT may
	// send in any vector, tried after a vector's own peer rules.
	Peer []PeerRule `json:"peer,omitempty"`
	// AfterInput is what an IUT does once stdin closes: AfterInputEither
	// (default), AfterInputExit or AfterInputKeepRunning.
	AfterInput string `json:"afterInput,omitempty"`
	// Quiet and Grace bound the waits of the version's sessions, as Go
	// durations (docs/running.md "Bounds"). Quiet: once the IUT has
	// written its first line, how long it may write nothing while a reply
	// it owes is awaited before the wait ends ("0s": no quiet bound).
	// Grace: how long it gets to exit once stdin closes (positive). Empty:
	// the runner's defaults; a profile and the command line override
	// them. See [Version.QuietBound] and [Version.GraceBound].
	Quiet string `json:"quiet,omitempty"`
	Grace string `json:"grace,omitempty"`
	// Preflight names a session vector run before the others; an IUT that
	// does not pass it does not speak this version. Vectors' Requires are
	// checked against the frames the IUT wrote in it.
	Preflight string           `json:"preflight,omitempty"`
	Normalize []normalize.Spec `json:"normalize,omitempty"`
	// Conformance is what the protocol lets an implementation write
	// differently from the golden summary (see [compare.Spec]).
	Conformance compare.Spec `json:"conformance"`
	// Classes are the version's conformance classes (docs/suite-format.md
	// "Classes"), per role, in suite order. When it declares any, every
	// role has at least one and every session vector names one of its
	// role's ([Vector.Class]); when it declares none, each role has one
	// implicit class, result.ClassAll, always judged ([Version.RoleClasses]).
	Classes []Class `json:"classes,omitempty"`
	// Discover lists ids of session vectors run right after the preflight
	// vector, in order, each only when its own requires hold for the
	// frames so far; the frames the IUT wrote in them are added to the
	// frames requires and derive predicates are checked against
	// (docs/suite-format.md "Preflight and discover"). They are also
	// ordinary vectors with results.
	Discover []string `json:"discover,omitempty"`

	env                *envelope.Envelope
	passOver, tolerate []envelope.Rule
	quiet, grace       time.Duration
	// vars are the names of the suite's vars (Manifest.Vars), which a
	// vector's ${var:NAME} must name.
	vars map[string]bool
}

// Class is one conformance class of a version and role: a named set of
// features an implementation is certified for (suite.json "classes";
// docs/suite-format.md "Classes").
//
// A class is judged when it is claimed (profile.json "claims", conform run
// --claim), or, when nothing is claimed, when every Derive predicate is
// satisfied by some frame the IUT wrote in the preflight and discover
// vectors; an Always class is judged whatever is claimed. Requires names
// classes of the same role that are judged whenever this one is.
type Class struct {
	Name string `json:"name"`
	Role string `json:"role"`
	// Title names the class for people ("MCP server tools"); Description
	// says what it covers; Source is the specification or seed section
	// it rests on, URL a link to it ("" when none).
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description"`
	Source      string   `json:"source"`
	URL         string   `json:"url,omitempty"`
	Requires    []string `json:"requires,omitempty"`
	// Derive are predicates in the form of a vector's requires; empty:
	// the class is judged only when claimed (or Always).
	Derive []envelope.Predicate `json:"derive,omitempty"`
	Always bool                 `json:"always,omitempty"`
}

// Role is one role of a version: a name vectors, goldens, profiles and
// --role use, what the IUT does in it, and where its goldens live.
type Role struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Golden is the role's golden folder (a suite path); by default the
	// version's golden folder and the role's name.
	Golden string `json:"golden,omitempty"`
}

// Values of Version.AfterInput and a vector's expect.afterInput.
const (
	// AfterInputEither: the IUT should exit within the grace period once
	// stdin closes; one that does not is stopped, and a note says so.
	AfterInputEither = "either"
	// AfterInputExit: it must exit within the grace period.
	AfterInputExit = "exit"
	// AfterInputKeepRunning: it is a service that runs until stopped; it
	// is stopped after the grace period, without a note.
	AfterInputKeepRunning = "keepRunning"
)

// Env returns the version's compiled envelope.
func (v *Version) Env() *envelope.Envelope { return v.env }

// PassOverRules and TolerateRules return the version's compiled frame
// rules.
func (v *Version) PassOverRules() []envelope.Rule { return v.passOver }
func (v *Version) TolerateRules() []envelope.Rule { return v.tolerate }

// DefaultRole returns the name of the version's first role.
func (v *Version) DefaultRole() string {
	if len(v.Roles) == 0 {
		return ""
	}
	return v.Roles[0].Name
}

// Role returns the role named name, or nil.
func (v *Version) Role(name string) *Role {
	for i := range v.Roles {
		if v.Roles[i].Name == name {
			return &v.Roles[i]
		}
	}
	return nil
}

// RoleNames returns the names of the version's roles, in order.
func (v *Version) RoleNames() []string {
	out := make([]string, len(v.Roles))
	for i, r := range v.Roles {
		out[i] = r.Name
	}
	return out
}

// RoleClasses returns the classes of role in suite order: those the
// version declares, or, when it declares none, the one implicit class
// named result.ClassAll ("all"), always judged.
func (v *Version) RoleClasses(role string) []Class {
	if len(v.Classes) == 0 {
		return []Class{{Name: ClassAll, Role: role, Title: "all vectors", Description: "Every vector of the role: the suite version declares no conformance classes.", Always: true}}
	}
	var out []Class
	for _, c := range v.Classes {
		if c.Role == role {
			out = append(out, c)
		}
	}
	return out
}

// ClassAll is the name of the implicit class of a version that declares
// none (result.ClassAll).
const ClassAll = "all"

// checkClasses checks the version's classes: each of a declared role,
// unique per role, requiring classes of its role, with derive predicates
// that compile; every role has at least one when any is declared; the
// discover ids are unique and not the preflight's. Errors: plain, for
// SUITE_INVALID.
func (v *Version) checkClasses() error {
	if len(v.Classes) > 0 {
		seen := map[[2]string]bool{}
		for i, c := range v.Classes {
			if v.Role(c.Role) == nil {
				return fmt.Errorf("classes[%d] %q: role %q is not a role of the version (%s)", i, c.Name, c.Role, strings.Join(v.RoleNames(), ", "))
			}
			if c.Name == ClassAll {
				return fmt.Errorf("classes[%d]: %q is the implicit class of a version that declares none", i, ClassAll)
			}
			k := [2]string{c.Role, c.Name}
			if seen[k] {
				return fmt.Errorf("classes[%d]: class %q of role %q is declared twice", i, c.Name, c.Role)
			}
			seen[k] = true
			if _, err := envelope.CompileMatch(c.Derive); err != nil {
				return fmt.Errorf("classes[%d] %q: derive: %w", i, c.Name, err)
			}
			if len(c.Derive) > 0 && v.Preflight == "" {
				return fmt.Errorf("classes[%d] %q: derive is checked against the frames of the version's preflight vector, and the version has none", i, c.Name)
			}
		}
		for i, c := range v.Classes {
			for _, r := range c.Requires {
				if !seen[[2]string{c.Role, r}] {
					return fmt.Errorf("classes[%d] %q: requires %q, which is not a class of role %q", i, c.Name, r, c.Role)
				}
			}
		}
		for _, r := range v.Roles {
			if len(v.RoleClasses(r.Name)) == 0 {
				return fmt.Errorf("role %q has no class: a version that declares classes declares at least one per role", r.Name)
			}
		}
	}
	if len(v.Discover) > 0 && v.Preflight == "" {
		return fmt.Errorf("discover needs a preflight vector")
	}
	ids := map[string]bool{}
	for _, id := range v.Discover {
		if id == v.Preflight || ids[id] {
			return fmt.Errorf("discover: %q is the preflight vector or listed twice", id)
		}
		ids[id] = true
	}
	return nil
}

// QuietBound returns the version's quiet bound and whether suite.json
// sets one; 0 with set true means no quiet bound.
func (v *Version) QuietBound() (d time.Duration, set bool) { return v.quiet, v.Quiet != "" }

// GraceBound returns the version's exit grace, or 0 when suite.json sets
// none.
func (v *Version) GraceBound() time.Duration { return v.grace }

// ParseBound parses a bound of a suite, vector or profile: a Go duration
// such as "2s" or "1m30s", at least 0 (positive unless zeroOK). Errors:
// plain, naming what is wrong.
func ParseBound(s string, zeroOK bool) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a duration such as \"2s\"", s)
	case d < 0 || d == 0 && !zeroOK:
		return 0, fmt.Errorf("%q must be a positive duration", s)
	}
	return d, nil
}

// compile compiles the version's envelope and frame rules and checks its
// roles, classes and bounds. Errors: plain, for SUITE_INVALID.
func (v *Version) compile() error {
	var err error
	if v.Quiet != "" {
		if v.quiet, err = ParseBound(v.Quiet, true); err != nil {
			return fmt.Errorf("quiet: %v", err)
		}
	}
	if v.Grace != "" {
		if v.grace, err = ParseBound(v.Grace, false); err != nil {
			return fmt.Errorf("grace: %v", err)
		}
	}
	if v.env, err = envelope.Compile(v.Envelope); err != nil {
		return err
	}
	if v.passOver, err = envelope.CompileRules("passOver", v.PassOver, false); err != nil {
		return err
	}
	if v.tolerate, err = envelope.CompileRules("tolerate", v.Tolerate, true); err != nil {
		return err
	}
	if len(v.Peer) > 0 && v.env.ReplyClass() == nil {
		return fmt.Errorf("peer rules need a reply class in the envelope")
	}
	for i, p := range v.Peer {
		if _, err := envelope.CompileMatch(p.Match); err != nil || len(p.Match) == 0 {
			return fmt.Errorf("peer[%d]: match needs predicates that compile (%v)", i, err)
		}
	}
	seen := map[string]bool{}
	for _, r := range v.Roles {
		if seen[r.Name] {
			return fmt.Errorf("role %q is declared twice", r.Name)
		}
		seen[r.Name] = true
	}
	return v.checkClasses()
}

// Suite is a loaded suite. Its fields are read-only after [Load].
type Suite struct {
	FS       fs.FS
	Manifest Manifest
	// Framing is the suite's framing (Manifest.Framing, [frame.Lines]
	// when absent): how the runner reads the IUT's stdout and writes its
	// stdin, for every version.
	Framing frame.Framing
	// Digest is "sha256:" + the hex SHA-256 of MANIFEST.sha256's bytes.
	Digest string
	// Files is what MANIFEST.sha256 lists: each suite-relative path with
	// its SHA-256; nil when Load skipped the digests.
	Files *FileDigests
	// Schemas compiles the suite's schemas (shared, concurrency-safe).
	Schemas *schema.Set
	// Meta compiles the kit's meta-schemas (see Options.Meta).
	Meta *schema.Set
	// Problems lists files whose digest differs from the manifest or that
	// the manifest does not list (SUITE_DIGEST_MISMATCH, SUITE_FILE_UNLISTED),
	// keyed by path. Vectors and golden files named here are invalid. With
	// Options.DeferDigests, the digests of vector and golden files are not
	// among them (their reads report them).
	Problems map[string]error
	// deferred: Options.DeferDigests.
	deferred bool
	// cache is the index cache (Options.Cache), or nil.
	cache *indexCache
	// trusted: Options.Immutable, and the cache records that this kit
	// verified the suite (Load did not walk it; see cache.go).
	trusted bool
}

// Options tune [Load].
type Options struct {
	// SkipDigest loads without reading MANIFEST.sha256 (used while golden
	// files and the manifest are regenerated).
	SkipDigest bool
	// Meta holds the kit's meta-schemas (schemas/suite.schema.json,
	// schemas/vector.schema.json), which suite.json and every vector file
	// are validated against: the conform binary serves its own copy, so a
	// suite holds only its own files. Nil takes them from the suite itself.
	Meta fs.FS
	// DeferDigests checks vector and golden files (vectors/**, golden/**)
	// against MANIFEST.sha256 when they are read ([Suite.VectorIndex],
	// [Suite.Vectors], [Suite.ReadGolden]) instead of at Load, which still
	// finds every unlisted and missing file (by name) and checks
	// suite.json, the schemas and files/** as before. A file that differs
	// is reported by the read that meets it, with Load's message, and not
	// in Suite.Problems. A run reads each of its vector and golden files
	// anyway, and checks them again then (a file changed during the run):
	// hashing every one at Load as well was about 7% of a run's CPU
	// (bench/README.md).
	DeferDigests bool
	// Cache, when not "" (and CacheKit is set), is a directory where Load
	// and VectorIndex keep, between runs, which vector files (by path and
	// SHA-256) passed every check and their kind, role and level, and
	// whether this suite.json passed Load's (see cache.go): a later run of
	// the same suite by the same kit reads and hashes such a file but
	// parses it only when it runs, and does not compile the suite schema.
	// Ignored with SkipDigest.
	Cache string
	// CacheKit identifies the kit's own code (the running binary); the
	// cache holds nothing another kit made. "" disables the cache.
	CacheKit string
	// Immutable says fsys's files cannot change while the kit CacheKit
	// names exists: the suite embedded in the binary. With Cache, the
	// first Load that finds every covered file listed, matching and
	// present records it, and later ones neither walk nor hash the files;
	// VectorIndex then takes each vector the cache vouches for without
	// reading it (see cache.go). A run reads and checks each vector and
	// golden file it runs as before. Never set it for a directory.
	Immutable bool
	// SchemasChecked says the suite's schema files (fsys) are the kit's
	// embedded ones, whose meta-schema check its tests make: Suite.Schemas
	// is a [schema.NewCheckedSet] and compiling them skips that check.
	// MetaChecked says the same of Meta's files (Suite.Meta). Never set
	// either for a suite a user supplies: an invalid schema file would not
	// be reported as SCHEMA_INVALID.
	SchemasChecked, MetaChecked bool
}

// Load reads and checks suite.json and MANIFEST.sha256. Errors:
// SUITE_NOT_FOUND (no suite.json), SUITE_INVALID (also for a framing that
// is not one of [frame.Framings]), SCHEMA_INVALID,
// SUITE_PATH_OUTSIDE (a `..` or absolute path in suite.json, or a file the
// manifest covers that is a symbolic link leaving a [Dir]),
// SUITE_DIGEST_MISMATCH or SUITE_FILE_UNLISTED when suite.json or a schema
// itself is affected (those make every result meaningless). Digest problems
// of vector and golden files are kept in Suite.Problems instead.
func Load(fsys fs.FS, opt Options) (*Suite, error) {
	newSet := func(fsys fs.FS, checked bool) *schema.Set {
		if checked {
			return schema.NewCheckedSet(fsys)
		}
		return schema.NewSet(fsys)
	}
	metaFS := fsys
	if opt.Meta != nil {
		metaFS = opt.Meta
	}
	s := &Suite{FS: fsys, Schemas: newSet(fsys, opt.SchemasChecked), Meta: newSet(metaFS, opt.MetaChecked), Problems: map[string]error{},
		deferred: opt.DeferDigests && !opt.SkipDigest}
	data, err := readInput(fsys, ManifestFile, input.MaxSuiteJSON)
	if err != nil {
		return nil, wrapCode(kiterr.SuiteNotFound, err, "read %s", ManifestFile)
	}
	// Every covered file is looked at before any is used: a symbolic link
	// that leaves a [Dir] is refused (SUITE_PATH_OUTSIDE) whatever reads
	// it first. The same walk checks each file against MANIFEST.sha256,
	// one at a time; what that finds is reported after suite.json's own
	// errors, as when the digests were checked in a second walk.
	var dc *digestCheck
	if !opt.SkipDigest {
		dc = s.readDigests()
		if opt.Cache != "" && opt.CacheKit != "" {
			meta := opt.Meta
			switch {
			case meta == nil:
				meta = fsys
			case opt.MetaChecked:
				meta = nil // the kit's own files: CacheKit names them
			}
			s.cache = openCache(opt.Cache, opt.CacheKit, meta, data, s.Digest, opt.Immutable)
		}
	}
	// An immutable suite this kit has verified: the walk would find what
	// it found then (see cache.go).
	s.trusted = opt.Immutable && dc != nil && dc.err == nil && s.cache != nil && s.cache.verified
	if !s.trusted {
		if dc != nil {
			dc.start()
			defer dc.stop()
		}
		if err := walk(fsys, func(n string) error {
			if dc != nil {
				dc.file(n)
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	if s.cache == nil || !s.cache.hit {
		// (A cache file exists only for a suite.json that passed: these
		// bytes were read and checked before.)
		v, err := canon.Parse(data)
		if err != nil {
			return nil, kiterr.Wrap(kiterr.SuiteInvalid, err, "parse %s", ManifestFile)
		}
		sch, err := s.Meta.Compile(SuiteSchemaFile)
		if err != nil {
			return nil, err
		}
		if vs := sch.Validate(v); vs != nil {
			return nil, kiterr.New(kiterr.SuiteInvalid, "%s: %s", ManifestFile, vs[0])
		}
	}
	if err := decode(data, &s.Manifest); err != nil {
		return nil, kiterr.Wrap(kiterr.SuiteInvalid, err, "decode %s", ManifestFile)
	}
	// The meta-schema's enum says it too; this holds for a cached
	// suite.json and a kit whose meta-schema is older.
	if s.Framing, err = frame.Parse(string(s.Manifest.Framing)); err != nil {
		return nil, kiterr.Wrap(kiterr.SuiteInvalid, err, "%s", ManifestFile)
	}
	seen := map[int]bool{}
	for i := range s.Manifest.Versions {
		ver := &s.Manifest.Versions[i]
		if err := checkPaths(*ver); err != nil {
			return nil, err
		}
		if seen[ver.Version] {
			return nil, kiterr.New(kiterr.SuiteInvalid, "%s: version %d declared twice", ManifestFile, ver.Version)
		}
		seen[ver.Version] = true
		if _, err := normalize.Compile(ver.Normalize); err != nil {
			return nil, err
		}
		if _, err := compare.Compile(&ver.Conformance); err != nil {
			return nil, kiterr.Wrap(kiterr.SuiteInvalid, err, "%s: version %d", ManifestFile, ver.Version)
		}
		if err := ver.compile(); err != nil {
			return nil, kiterr.Wrap(kiterr.SuiteInvalid, err, "%s: version %d", ManifestFile, ver.Version)
		}
		ver.vars = make(map[string]bool, len(s.Manifest.Vars))
		for k := range s.Manifest.Vars {
			ver.vars[k] = true
		}
	}
	if opt.SkipDigest {
		return s, nil
	}
	if !s.trusted {
		if err := dc.finish(); err != nil {
			return nil, err
		}
		if opt.Immutable && len(s.Problems) == 0 {
			s.cache.markVerified()
		}
	}
	s.cache.save()
	return s, nil
}

// checkPaths refuses a version whose schema, vectors or golden path is not
// a clean path inside the suite: SUITE_PATH_OUTSIDE for a `..` element or
// an absolute path, SUITE_INVALID for any other unclean form ("./x", "x/",
// "a//b").
func checkPaths(ver Version) error {
	paths := []struct{ member, value string }{{"schema", ver.Schema}, {"vectors", ver.Vectors}, {"golden", ver.Golden}}
	for _, r := range ver.Roles {
		if r.Golden != "" {
			paths = append(paths, struct{ member, value string }{"role " + r.Name + " golden", r.Golden})
		}
	}
	for _, f := range paths {
		switch {
		case outsidePath(f.value):
			return kiterr.New(kiterr.SuitePathOutside, "%s: version %d: %s %q leaves the suite: suite paths are relative to the suite root and have no `..` element", ManifestFile, ver.Version, f.member, f.value)
		case !fs.ValidPath(f.value) || strings.Contains(f.value, `\`):
			return kiterr.New(kiterr.SuiteInvalid, "%s: version %d: %s %q is not a clean suite-relative path (slash-separated, no \"./\", \"//\" or trailing \"/\")", ManifestFile, ver.Version, f.member, f.value)
		}
	}
	return nil
}

// Version returns the manifest entry of protocol version n, or VERSION_UNKNOWN.
func (s *Suite) Version(n int) (*Version, error) {
	for i := range s.Manifest.Versions {
		if s.Manifest.Versions[i].Version == n {
			return &s.Manifest.Versions[i], nil
		}
	}
	return nil, kiterr.New(kiterr.VersionUnknown, "suite %q has no protocol version %d", s.Manifest.Name, n)
}

// digestCheck compares the covered files with MANIFEST.sha256, each
// hashed as it is read, on up to GOMAXPROCS goroutines (at most 4): nothing
// but the table of listed sums is kept.
type digestCheck struct {
	s    *Suite
	seen []bool // by table index: the file was found
	jobs chan digestJob
	wg   sync.WaitGroup
	next int // walk position of the next file

	mu sync.Mutex // guards s.Problems, err and errAt
	// err is the error of the earliest file in walk order that could not
	// be read, or of reading or parsing MANIFEST.sha256. finish returns
	// it.
	err   error
	errAt int
}

type digestJob struct {
	name string
	at   int
}

// readDigests reads MANIFEST.sha256 into s.Digest and s.Files; start
// starts the goroutines that check files.
func (s *Suite) readDigests() *digestCheck {
	c := &digestCheck{s: s, errAt: -1}
	data, err := readInput(s.FS, DigestFile, input.MaxManifest)
	if err != nil {
		c.err = wrapCode(kiterr.SuiteNotFound, err, "read %s (run 'conform golden --update' to create it)", DigestFile)
		return c
	}
	sum := sha256.Sum256(data)
	s.Digest = "sha256:" + hex.EncodeToString(sum[:])
	s.Files, c.err = parseDigests(data)
	return c
}

// start starts the goroutines that check the files handed to file.
func (c *digestCheck) start() {
	if c.err != nil {
		return
	}
	s := c.s
	c.seen = make([]bool, s.Files.Len())
	c.jobs = make(chan digestJob, 64)
	for range min(runtime.GOMAXPROCS(0), 4) {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			buf := make([]byte, 32<<10)
			for j := range c.jobs {
				c.check(j, buf)
			}
		}()
	}
}

// file hands the covered file name to the checking goroutines (a file
// whose digest is deferred is only looked up by name).
func (c *digestCheck) file(name string) {
	if c.jobs == nil {
		return
	}
	if c.s.deferred && deferredPath(name) {
		c.mu.Lock()
		if i, ok := c.s.Files.index(name); ok {
			c.seen[i] = true
		} else {
			c.s.Problems[name] = unlisted(name)
		}
		c.mu.Unlock()
		c.next++
		return
	}
	c.jobs <- digestJob{name: name, at: c.next}
	c.next++
}

// deferredPath reports whether Options.DeferDigests defers name's digest:
// a vector or golden file.
func deferredPath(name string) bool {
	return strings.HasPrefix(name, "vectors/") || strings.HasPrefix(name, "golden/")
}

// unlisted is the problem of a covered file MANIFEST.sha256 does not list.
func unlisted(name string) error {
	return kiterr.New(kiterr.SuiteFileUnlisted, "%s is not listed in %s (a new file? 'conform manifest' lists it; 'conform golden --update' rewrites goldens and the list)", name, DigestFile)
}

// mismatch is the problem of a file whose SHA-256 got is not the one
// MANIFEST.sha256 lists at index i.
func (s *Suite) mismatch(name string, i int, got *[32]byte) error {
	return kiterr.New(kiterr.SuiteDigestMismatch, "%s: sha256 %s, %s says %s (edited by hand? review it, then 'conform manifest'; a golden file is only rewritten by 'conform golden --update')", name, hex.EncodeToString(got[:6]), DigestFile, s.Files.hex(i)[:12])
}

// firstCheck checks data, the bytes of name read for the first time in
// this run, against MANIFEST.sha256 when Load deferred it: Load's
// SUITE_DIGEST_MISMATCH (a file listed nowhere was reported by Load).
// For any other file it is [Suite.checkDigest].
func (s *Suite) firstCheck(name string, data []byte) error {
	if !s.deferred || s.Files == nil || !deferredPath(name) {
		return s.checkDigest(name, data)
	}
	i, ok := s.Files.index(name)
	if !ok {
		return s.checkDigest(name, data)
	}
	if sum := sha256.Sum256(data); !s.Files.matches(i, &sum) {
		return s.mismatch(name, i, &sum)
	}
	return nil
}

// firstCheckSum is firstCheck for a file whose SHA-256 is known.
func (s *Suite) firstCheckSum(name string, sum *[32]byte) error {
	if !s.deferred || s.Files == nil || !deferredPath(name) {
		return nil
	}
	i, ok := s.Files.index(name)
	if !ok || s.Files.matches(i, sum) {
		return nil
	}
	return s.mismatch(name, i, sum)
}

// stop waits for the files handed over to be checked. Safe to call more
// than once.
func (c *digestCheck) stop() {
	if c.jobs != nil {
		close(c.jobs)
		c.wg.Wait()
		c.jobs = nil
	}
}

// check hashes one file and records what it finds.
func (c *digestCheck) check(j digestJob, buf []byte) {
	s := c.s
	got, err := hashFile(s.FS, j.name, buf)
	if errors.Is(err, fs.ErrNotExist) {
		return // gone since it was found: as if never found
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if code := kiterr.CodeOf(err); code == kiterr.VectorTooLarge || code == kiterr.InputTooLarge {
		// Over its cap: a problem of that file, as its digest would be
		// (fatal for suite.json and a schema, see finish).
		s.Problems[j.name] = err
		if i, ok := s.Files.index(j.name); ok {
			c.seen[i] = true
		}
		return
	}
	if err != nil {
		if c.errAt < 0 || j.at < c.errAt {
			c.err, c.errAt = wrapCode(kiterr.IO, err, "read %s", j.name), j.at
		}
		return
	}
	i, ok := s.Files.index(j.name)
	switch {
	case !ok:
		s.Problems[j.name] = unlisted(j.name)
	case !s.Files.matches(i, &got):
		s.Problems[j.name] = s.mismatch(j.name, i, &got)
	}
	if ok {
		c.seen[i] = true
	}
}

// finish reports the files listed but not found and returns the error of
// a file that makes every result meaningless (suite.json or a schema), or
// the first error met.
func (c *digestCheck) finish() error {
	c.stop()
	if c.err != nil {
		return c.err
	}
	s := c.s
	for i, found := range c.seen {
		if !found {
			name := s.Files.name(i)
			s.Problems[name] = kiterr.New(kiterr.SuiteFileUnlisted, "%s lists %s, which does not exist", DigestFile, name)
		}
	}
	var fatal []string
	for name, p := range s.Problems {
		if name == ManifestFile || strings.HasPrefix(name, "schemas/") {
			var ke *kiterr.Error
			if errors.As(p, &ke) {
				fatal = append(fatal, ke.Msg)
			} else {
				fatal = append(fatal, p.Error())
			}
		}
	}
	if len(fatal) > 0 {
		slices.Sort(fatal)
		return &kiterr.Error{Code: kiterr.CodeOf(s.Problems[firstFatal(s.Problems)]), Msg: strings.Join(fatal, "; ")}
	}
	return nil
}

func firstFatal(p map[string]error) string {
	var names []string
	for n := range p {
		if n == ManifestFile || strings.HasPrefix(n, "schemas/") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names[0]
}

// Digests returns the hex SHA-256 of every file MANIFEST.sha256 covers,
// keyed by suite-relative path. Each file is hashed as it is read (never
// held whole). Errors: SUITE_PATH_OUTSIDE (a symbolic link leaving a
// [Dir]), IO.
func Digests(fsys fs.FS) (map[string]string, error) {
	out := map[string]string{}
	buf := make([]byte, 32<<10)
	err := walk(fsys, func(n string) error {
		sum, err := hashFile(fsys, n, buf)
		if err != nil {
			return wrapCode(kiterr.IO, err, "read %s", n)
		}
		out[n] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// walk calls fn with every file MANIFEST.sha256 covers. A folder or file
// that cannot be looked at fails the walk (it is never skipped), so a
// symbolic link that leaves a [Dir] is SUITE_PATH_OUTSIDE, not a shorter
// suite.
func walk(fsys fs.FS, fn func(name string) error) error {
	for _, g := range digestGlobs {
		// fn's errors are told apart from the walk's own: only the
		// latter are wrapped.
		var fnErr error
		err := doublestar.GlobWalk(fsys, g, func(n string, _ fs.DirEntry) error {
			fnErr = fn(n)
			return fnErr
		}, doublestar.WithFilesOnly(), doublestar.WithFailOnIOErrors())
		if fnErr != nil {
			return fnErr
		}
		if err != nil {
			return wrapCode(kiterr.IO, err, "glob %s", g)
		}
	}
	return nil
}

// wrapCode wraps err with code, unless err already carries a stable code
// (SUITE_PATH_OUTSIDE from a [Dir]), which is kept.
func wrapCode(code kiterr.Code, err error, format string, args ...any) error {
	if kiterr.CodeOf(err) != "" {
		return err
	}
	return kiterr.Wrap(code, err, format, args...)
}

// readInput reads the suite file name, at most max bytes. Errors: those of
// opening it (fs.ErrNotExist, SUITE_PATH_OUTSIDE, INPUT_NOT_REGULAR),
// INPUT_TOO_LARGE, IO.
func readInput(fsys fs.FS, name string, max int64) ([]byte, error) {
	data, tooLarge, err := readFile(fsys, name, max)
	switch {
	case err != nil:
		return nil, err
	case tooLarge:
		return nil, kiterr.New(kiterr.InputTooLarge, "%s is over the %d bytes it may have: refused (docs/running.md \"Input bounds\")", name, max)
	}
	return data, nil
}

// readFile reads name, refusing a file longer than max bytes without
// reading more than max+1 of it (tooLarge is then true).
func readFile(fsys fs.FS, name string, max int64) (data []byte, tooLarge bool, err error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	size := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if size = fi.Size(); size > max {
			return nil, true, nil
		}
	}
	if size >= 0 {
		// The file's size is known: one buffer of that size (and a
		// byte to see the file grew), not io.ReadAll's doublings.
		data = make([]byte, 0, size+1)
		for int64(len(data)) <= max {
			if len(data) == cap(data) {
				data = append(data, 0)[:len(data)]
			}
			n, err := f.Read(data[len(data):cap(data)])
			data = data[:len(data)+n]
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, false, err
			}
		}
	} else if data, err = io.ReadAll(io.LimitReader(f, max+1)); err != nil {
		return nil, false, err
	}
	if int64(len(data)) > max {
		return nil, true, nil
	}
	return data, false, nil
}

// DigestManifest renders MANIFEST.sha256 for digests: one
// "<sha256>  <path>" line per file, sorted by path, LF-terminated
// (the sha256sum format).
func DigestManifest(digests map[string]string) []byte {
	names := make([]string, 0, len(digests))
	for n := range digests {
		names = append(names, n)
	}
	slices.Sort(names)
	var b bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", digests[n], n)
	}
	return b.Bytes()
}

// GoldenDir returns the suite-relative golden folder of role: the role's
// golden member, else the version's golden folder and the role's name.
func GoldenDir(ver *Version, role string) string {
	if r := ver.Role(role); r != nil && r.Golden != "" {
		return r.Golden
	}
	return path.Join(ver.Golden, role)
}

// GoldenPath returns the suite-relative golden file of a vector: its
// role's golden folder ([GoldenDir]), then <id>.json.
func GoldenPath(ver *Version, role, id string) string {
	return path.Join(GoldenDir(ver, role), id+".json")
}

// MaxGoldenFile is the largest golden file read, in bytes (64 MiB): a
// golden summary is what the reference kept of one vector, which the
// runner's per-vector budget bounds far below this.
const MaxGoldenFile = 64 << 20

// ReadGolden returns a vector's golden bytes. Errors: GOLDEN_MISSING,
// GOLDEN_INVALID (not canonical RFC 8785 bytes, so it was not written by
// 'conform golden --update', or larger than [MaxGoldenFile]),
// SUITE_PATH_OUTSIDE (a symbolic link leaving a [Dir]), or the file's
// digest problem.
func (s *Suite) ReadGolden(ver *Version, role, id string) ([]byte, error) {
	p := GoldenPath(ver, role, id)
	data, tooLarge, err := readFile(s.FS, p, MaxGoldenFile)
	if kiterr.CodeOf(err) != "" {
		return nil, err
	}
	if err != nil {
		return nil, kiterr.Wrap(kiterr.GoldenMissing, err, "vector %s has no golden file %s (run 'conform golden --update')", id, p)
	}
	if tooLarge {
		return nil, kiterr.New(kiterr.GoldenInvalid, "golden %s is larger than %d bytes", p, MaxGoldenFile)
	}
	if prob := s.Problems[p]; prob != nil {
		return nil, prob
	}
	check := s.checkDigest
	if s.deferred {
		check = s.firstCheck // Load did not check it: Load's message
	}
	if err := check(p, data); err != nil {
		return nil, err
	}
	c, err := canon.CanonicalBytes(data)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.GoldenInvalid, err, "golden %s", p)
	}
	if !bytes.Equal(c, data) {
		return nil, kiterr.New(kiterr.GoldenInvalid, "golden %s is not in RFC 8785 canonical form", p)
	}
	return data, nil
}

// MaxSuiteFile is the largest input or fixture file read (files/), in
// bytes (16 MiB, as a vector file).
const MaxSuiteFile = MaxVectorFile

// ReadFile returns the bytes of a suite file under files/ (a vector's
// input or fixture file), checked against MANIFEST.sha256 as it is read.
// Errors: SUITE_FILE_UNLISTED (missing, or not listed),
// SUITE_DIGEST_MISMATCH, SUITE_PATH_OUTSIDE, VECTOR_TOO_LARGE (over
// [MaxSuiteFile]), IO.
func (s *Suite) ReadFile(name string) ([]byte, error) {
	if prob := s.Problems[name]; prob != nil {
		return nil, prob
	}
	data, tooLarge, err := readFile(s.FS, name, MaxSuiteFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, kiterr.Wrap(kiterr.SuiteFileUnlisted, err, "suite file %s does not exist", name)
	case err != nil:
		return nil, wrapCode(kiterr.IO, err, "read %s", name)
	case tooLarge:
		return nil, kiterr.New(kiterr.VectorTooLarge, "suite file %s is larger than %d bytes", name, MaxSuiteFile)
	}
	if err := s.checkDigest(name, data); err != nil {
		return nil, err
	}
	return data, nil
}

// MissingFiles returns, sorted, the files under dir (a suite-relative
// folder such as "vectors/v1") that MANIFEST.sha256 lists but that do not
// exist (each has a SUITE_FILE_UNLISTED entry in Problems).
func (s *Suite) MissingFiles(dir string) []string {
	var out []string
	for name, prob := range s.Problems {
		if strings.HasPrefix(name, dir+"/") && kiterr.CodeOf(prob) == kiterr.SuiteFileUnlisted {
			if _, err := fs.Stat(s.FS, name); errors.Is(err, fs.ErrNotExist) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// checkDigest reports SUITE_DIGEST_MISMATCH when data, the bytes of name
// read just now, differ from what MANIFEST.sha256 says, and
// SUITE_FILE_UNLISTED when it does not list name: a file changed after Load
// verified the suite (during a run, say) must not be judged under the
// suite digest it no longer has. Nothing is checked when Load skipped the
// digests (golden --update).
func (s *Suite) checkDigest(name string, data []byte) error {
	if s.Files == nil {
		return nil
	}
	i, ok := s.Files.index(name)
	if !ok {
		return kiterr.New(kiterr.SuiteFileUnlisted, "%s is not listed in %s (run 'conform golden --update')", name, DigestFile)
	}
	if sum := sha256.Sum256(data); !s.Files.matches(i, &sum) {
		return kiterr.New(kiterr.SuiteDigestMismatch, "%s changed after the suite was opened: its sha256 is not the one %s lists (edited during the run?)", name, DigestFile)
	}
	return nil
}

func decode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}
