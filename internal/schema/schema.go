// Package schema compiles the suite's JSON Schemas (draft 2020-12) and
// validates values against them. It is the only importer of
// github.com/santhosh-tekuri/jsonschema/v6.
//
// Schemas are served from the suite's fs.FS only, under the base URL
// [BaseURL]: a $ref to any other URL is never fetched (SCHEMA_REF_REMOTE) and a
// relative $ref that climbs out of the suite root is never read
// (SCHEMA_REF_OUTSIDE). The 2020-12 meta-schemas come embedded in the library.
package schema

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
)

// BaseURL is the absolute URL under which suite files are addressed while
// compiling; "schemas/control.v1.json" is BaseURL+"schemas/control.v1.json".
const BaseURL = "file:///conform-suite/"

// checkedBaseURL is the base URL of a [NewCheckedSet]'s files. jsonschema
// v6 (v6.0.3, roots.go addRoot) validates a document against its
// meta-schema when it first loads it, except under json-schema.org, where it
// keeps its own meta-schemas; files known to pass that check are addressed
// here so the compiler does not repeat it. No path under this base names a
// meta-schema (they are under draft/ and the bare "schema").
// TestCheckedSetSkipsMetaCheck pins the library behaviour this relies on.
const checkedBaseURL = "https://json-schema.org/conform-suite/"

// MaxViolations is the most [Violation] values one validation reports.
const MaxViolations = 16

// Set compiles schemas of one suite on demand and caches them. Compile is
// safe for concurrent use; so is Validate on the returned [*Schema].
type Set struct {
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	cache    map[string]*Schema
	fast     fastBuilder
	// base is BaseURL, or checkedBaseURL for a NewCheckedSet.
	base string
	// direct builds fast evaluators from the documents themselves and
	// defers the library's compilation to first need (see direct); only
	// for a NewCheckedSet, whose files need no meta-schema check at
	// Compile.
	direct *direct
	// lazyFailed is set when a deferred compilation failed: a fast
	// evaluator that met it may have answered without the library, so no
	// "valid" of its is trusted after that (see Schema.Validate).
	lazyFailed atomic.Bool
}

// NewSet returns a [*Set] that reads schema files from fsys (the suite root).
func NewSet(fsys fs.FS) *Set { return newSet(fsys, BaseURL) }

// NewCheckedSet is [NewSet] for schema files already known to be valid
// against their meta-schema (the kit's embedded suite, whose files are
// fixed at build time and checked by its tests through [NewSet]): the
// library's meta-schema pass over each file, about a third of compiling
// control.v1.json, is skipped. Compiled schemas validate and report
// exactly as NewSet's do. An invalid file is not reported as such
// (SCHEMA_INVALID) but fails or misbehaves later; use NewSet for any
// suite a user supplies.
//
// A checked Set also builds a schema's fast evaluator straight from its
// documents when they are inside the subset direct.go describes (draft
// 2020-12, no $id, anchors or dynamic references, only keywords the fast
// evaluator implements) and compiles it with the library only when first
// needed: an invalid value (whose violations are the library's), a
// keyword only the library implements. direct refuses what would make the
// library's compilation fail (a pattern that does not compile, a $ref to
// nothing), so such a file still fails Compile, with the library's error;
// outside the subset a location compiles at Compile as with NewSet.
func NewCheckedSet(fsys fs.FS) *Set { return newSet(fsys, checkedBaseURL) }

// Checked reports whether s is a [NewCheckedSet].
func (s *Set) Checked() bool { return s.base == checkedBaseURL }

func newSet(fsys fs.FS, base string) *Set {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(loader{fsys: fsys, base: base})
	c.AssertFormat()
	set := &Set{compiler: c, cache: map[string]*Schema{}, base: base}
	if base == checkedBaseURL {
		set.direct = newDirect(loader{fsys: fsys, base: base})
		set.fast.set = set
	}
	return set
}

// Compile compiles loc, a suite-relative file path with an optional JSON
// Pointer fragment ("schemas/control.v1.json#/$defs/AllowBody"). Errors:
// SCHEMA_INVALID, SCHEMA_REF_REMOTE, SCHEMA_REF_OUTSIDE, SUITE_NOT_FOUND.
func (s *Set) Compile(loc string) (*Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.cache[loc]; ok {
		return sch, nil
	}
	printer := message.NewPrinter(language.English)
	if s.direct != nil {
		// A graph built from the documents, its fast evaluator, and the
		// library's compilation when first needed; anything outside the
		// direct subset, or without a sound fast evaluator, is compiled
		// now as below.
		if g, err := s.direct.build(s.base + loc); err == nil {
			if err := s.checkCycle(g, loc); err != nil {
				return nil, err
			}
			if fast := s.fast.build(g); fast != nil {
				lib := &lazySchema{set: s, loc: s.base + loc, rel: loc}
				sch := &Schema{Loc: loc, graph: g, lib: lib, fast: fast, failed: &s.lazyFailed, printer: printer, at: &locations{}}
				s.cache[loc] = sch
				return sch, nil
			}
		}
	}
	compiled, err := s.libCompile(s.base+loc, loc)
	if err != nil {
		return nil, err
	}
	if err := s.checkCycle(compiled, loc); err != nil {
		return nil, err
	}
	lib := &lazySchema{s: compiled}
	sch := &Schema{Loc: loc, graph: compiled, lib: lib, fast: s.fast.build(compiled), failed: &s.lazyFailed, printer: printer, at: &locations{}}
	s.cache[loc] = sch
	return sch, nil
}

// Parsed returns the document at the suite-relative path file as the
// Set's loader parsed it (canon.Parse of the file's bytes) for a schema
// compiled through the direct path of a [NewCheckedSet]; ok is false when
// it has not (call canon.Parse yourself). The value is shared: callers
// must not change it.
func (s *Set) Parsed(file string) (doc any, ok bool) {
	if s.direct == nil {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	dd, found := s.direct.docs[s.base+file]
	if !found || dd.doc == nil {
		return nil, false
	}
	return dd.doc, true
}

// lazyOf returns the deferred compilation of the node s of s.direct.
func (s *Set) lazyOf(node *jsonschema.Schema) *lazySchema {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.direct.lazy(s, node)
}

// libCompile compiles the absolute location u (loc, suite-relative, names
// it in errors) with the library. Callers hold s.mu.
func (s *Set) libCompile(u, loc string) (*jsonschema.Schema, error) {
	compiled, err := s.compiler.Compile(u)
	if err != nil {
		// jsonschema v6 errors do not unwrap: look inside LoadURLError here.
		var le *jsonschema.LoadURLError
		var ke *kiterr.Error
		if errors.As(err, &le) && errors.As(le.Err, &ke) {
			return nil, &kiterr.Error{Code: ke.Code, Msg: "compile " + loc, Err: err}
		}
		return nil, kiterr.Wrap(kiterr.SchemaInvalid, err, "compile %s", loc)
	}
	return compiled, nil
}

// Schema is one compiled schema location.
type Schema struct {
	// Loc is the suite-relative location it was compiled from.
	Loc string
	// graph is the schema's keyword graph: the library's compiled schema,
	// or for a NewCheckedSet one built by direct with the same exported
	// fields, which is only read (Declares), never validated with.
	graph *jsonschema.Schema
	// lib is the library's compiled schema, compiled on first use when
	// graph is direct's.
	lib *lazySchema
	// failed is the Set's lazyFailed.
	failed *atomic.Bool
	// fast, when not nil, decides "valid" without building the library's
	// error trees (see fastNode); "invalid" is always the library's.
	fast    *fastNode
	printer *message.Printer
	// discriminators are member names whose const or enum selects a
	// oneOf/anyOf branch (see [Schema.WithDiscriminators]).
	discriminators []string
	// at caches the subschemas found at instance locations (Declares);
	// copies made by WithDiscriminators share it.
	at *locations
}

// WithDiscriminators returns a copy of sch whose violations follow the
// branch that the named members select: a oneOf or anyOf branch that fails
// a const or enum on one of these members (a frame's kind, a body's shape,
// as the suite's envelope names them) is one the instance does not claim
// to be, so its other failures are left out and the branches are reported
// as one grouped violation. Without discriminators every branch's failures
// are reported.
func (sch *Schema) WithDiscriminators(names []string) *Schema {
	c := *sch
	c.discriminators = names
	return &c
}

// Violation is one leaf failure of a validation: where in the instance, which
// keyword (suite-relative schema location) and what.
type Violation struct {
	Instance string `json:"instance"`
	Keyword  string `json:"keyword"`
	Message  string `json:"message"`
	// group marks a violation that stands for oneOf/anyOf branches the
	// discriminator did not select; it sorts after the others.
	group bool
}

// String renders "at /x: message (keyword)".
func (v Violation) String() string {
	inst := v.Instance
	if inst == "" {
		inst = "/"
	}
	return fmt.Sprintf("at %s: %s (%s)", inst, v.Message, v.Keyword)
}

// Validate checks v (a value as decoded by canon.Parse) and returns at most
// [MaxViolations] leaf violations, sorted by instance location, keyword, then message;
// nil means valid.
func (sch *Schema) Validate(v any) []Violation {
	if sch.fast != nil && sch.fast.ok(v) && !sch.failed.Load() {
		return nil
	}
	compiled, err := sch.lib.get()
	if err != nil {
		// Only when direct accepted a document the library refuses, which
		// TestDirectMatchesLibrary rules out for the kit's own suites.
		return []Violation{{Message: err.Error()}}
	}
	err = compiled.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Violation{{Message: err.Error()}}
	}
	out := collect(ve, sch.printer, sch.discriminators)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].group != out[j].group {
			return out[j].group
		}
		if out[i].Instance != out[j].Instance {
			return out[i].Instance < out[j].Instance
		}
		if out[i].Keyword != out[j].Keyword {
			return out[i].Keyword < out[j].Keyword
		}
		return out[i].Message < out[j].Message
	})
	if len(out) > MaxViolations {
		out = out[:MaxViolations]
	}
	return out
}

// ValidTape reports whether the value at t.Nodes[i] is certainly valid.
// False means "not decided valid": call Validate(t.Value(i)) for the
// verdict and its violations, which are always the library's.
func (sch *Schema) ValidTape(t *canon.Tape, i int) bool {
	// Without a fast evaluator nothing is decided here: the caller's
	// Validate is the one validation (not a second one for invalid values).
	return sch.fast != nil && sch.fast.okT(t, i) && !sch.failed.Load()
}

// libSchema is the library's compiled schema of sch, compiled now if it
// was deferred. Errors: those of [Set.Compile].
func (sch *Schema) libSchema() (*jsonschema.Schema, error) { return sch.lib.get() }

// loader serves files of a Set; base is its BaseURL or checkedBaseURL.
type loader struct {
	fsys fs.FS
	base string
}

// Load serves base-relative URLs from the suite fs.FS with the strict JSON
// reader; anything else is refused without touching the network.
func (l loader) Load(url string) (any, error) {
	rel, ok := strings.CutPrefix(url, l.base)
	if !ok {
		if strings.HasPrefix(url, "file:///") {
			return nil, kiterr.New(kiterr.SchemaRefOutside, "$ref %s is outside the suite root", url)
		}
		return nil, kiterr.New(kiterr.SchemaRefRemote, "$ref %s is remote; conform never fetches schemas", url)
	}
	clean := path.Clean(rel)
	if clean != rel || !fs.ValidPath(clean) {
		return nil, kiterr.New(kiterr.SchemaRefOutside, "$ref %s is outside the suite root", url)
	}
	data, err := readSchema(l.fsys, clean)
	if err != nil {
		if c := kiterr.CodeOf(err); c != "" {
			return nil, err
		}
		return nil, kiterr.Wrap(kiterr.SuiteNotFound, err, "read schema %s", clean)
	}
	v, err := canon.Parse(data)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.SchemaInvalid, err, "parse schema %s", clean)
	}
	return v, nil
}

// readSchema reads the schema file name of fsys: a regular file of at most
// input.MaxSchema bytes, refused by its size before it is read. Errors:
// those of opening it, INPUT_NOT_REGULAR, INPUT_TOO_LARGE, IO.
func readSchema(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := input.Regular(f, "schema", name)
	if err != nil {
		return nil, err
	}
	return input.Read(f, st.Size(), input.MaxSchema, "schema", name)
}
