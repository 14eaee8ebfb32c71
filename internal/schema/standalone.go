package schema

import (
	"errors"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/conform-kit/conform/internal/kiterr"
)

// Standalone is one JSON Schema document compiled offline, outside any
// suite, so that instances can be validated against any of its locations.
// It serves internal/compat, which checks each witness it prints with this
// validator. The draft is the one its $schema names (draft-04, -06, -07,
// 2019-09, 2020-12); without $schema it is 2020-12. Every $ref must resolve
// inside the document (its $id and anchors included); nothing is loaded.
// Safe for concurrent use.
type Standalone struct {
	name string
	// doc is the document as given; metaURL the meta-schema of its
	// default draft (its own $schema wins)
	doc          any
	metaURL      string
	draft        *jsonschema.Draft
	assertFormat bool
	mu           sync.Mutex
	// metaChecked: [Standalone.CheckMeta] passed before the compiler was
	// made, so the compiler need not validate the document again
	metaChecked bool
	// c is made on first compile (compiler); url is the document's URL
	// in it
	c   *jsonschema.Compiler
	url string
	// compiled locations, with their fast evaluators (nil: none, see
	// fastNode); errs records the locations that failed
	cache map[string]compiled
	errs  map[string]error
	fast  fastBuilder
}

// compiled is one compiled location of a [Standalone].
type compiled struct {
	s    *jsonschema.Schema
	fast *fastNode
}

// NewStandalone prepares doc (a value as decoded by canon.Parse) under the
// name name ("old", "new"). With assertFormat, format is an assertion (as
// in [NewSet]); without, an annotation. Compilation happens per location,
// on first use. Errors: SCHEMA_INVALID when doc is not an object or
// boolean; USAGE for an unknown default draft.
func NewStandalone(name string, doc any, assertFormat bool, defaultDraft string) (*Standalone, error) {
	switch doc.(type) {
	case bool, map[string]any:
	default:
		return nil, kiterr.New(kiterr.SchemaInvalid, "%s schema: root is not an object or a boolean", name)
	}
	drafts := map[string]*jsonschema.Draft{"": jsonschema.Draft2020, "2020-12": jsonschema.Draft2020, "2019-09": jsonschema.Draft2019,
		"draft-07": jsonschema.Draft7, "draft-06": jsonschema.Draft6, "draft-04": jsonschema.Draft4}
	draft, ok := drafts[defaultDraft]
	if !ok {
		return nil, kiterr.New(kiterr.Usage, "default draft %q", defaultDraft)
	}
	metas := map[string]string{"": "https://json-schema.org/draft/2020-12/schema", "2020-12": "https://json-schema.org/draft/2020-12/schema",
		"2019-09": "https://json-schema.org/draft/2019-09/schema", "draft-07": "http://json-schema.org/draft-07/schema#",
		"draft-06": "http://json-schema.org/draft-06/schema#", "draft-04": "http://json-schema.org/draft-04/schema#"}
	return &Standalone{name: name, doc: doc, metaURL: metas[defaultDraft], draft: draft, assertFormat: assertFormat,
		cache: map[string]compiled{}, errs: map[string]error{}}, nil
}

// Base URLs of the document inside its compiler. jsonschema v6 validates
// a document against its meta-schema when it first loads it, except under
// json-schema.org (where it keeps its own meta-schemas): a document that
// [Standalone.CheckMeta] has already validated (the same meta-schema,
// chosen the same way) is loaded under checkedBase so that the
// compiler does not repeat that pass, which costs as much as the check.
// No path under checkedBase names a meta-schema, and nothing is ever
// fetched from either base (refuseLoader; a $ref outside the document
// fails the same under both). TestStandaloneCheckedBase pins the library
// behaviour this relies on.
const (
	uncheckedBase = "file:///conform-compat/"
	checkedBase   = "https://json-schema.org/conform-compat/"
)

// compiler returns the document's compiler, made on first use; s.mu is
// held. Errors: SCHEMA_INVALID when the document cannot be added.
func (s *Standalone) compiler() (*jsonschema.Compiler, error) {
	if s.c != nil {
		return s.c, nil
	}
	base := uncheckedBase
	if s.metaChecked {
		base = checkedBase
	}
	url := base + s.name + ".json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(s.draft)
	c.UseLoader(refuseLoader{})
	if s.assertFormat {
		c.AssertFormat()
	}
	if err := c.AddResource(url, s.doc); err != nil {
		return nil, kiterr.Wrap(kiterr.SchemaInvalid, err, "%s schema", s.name)
	}
	s.c, s.url = c, url
	return c, nil
}

// compile returns the compiled schema at JSON Pointer ptr ("" is the root).
// Errors: SCHEMA_INVALID (the location does not compile: a meta-schema
// violation, an unresolvable $ref), SCHEMA_REF_REMOTE.
func (s *Standalone) compile(ptr string) (compiled, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.cache[ptr]; ok {
		return sch, nil
	}
	if err, ok := s.errs[ptr]; ok {
		return compiled{}, err
	}
	c, err := s.compiler()
	if err != nil {
		return compiled{}, err
	}
	loc := s.url
	if ptr != "" {
		loc += "#" + strings.ReplaceAll(ptr, "%", "%25")
	}
	sch, err := c.Compile(loc)
	if err != nil {
		var le *jsonschema.LoadURLError
		var ke *kiterr.Error
		if errors.As(err, &le) && errors.As(le.Err, &ke) {
			err = &kiterr.Error{Code: ke.Code, Msg: "compile " + ptr, Err: err}
		} else {
			err = kiterr.Wrap(kiterr.SchemaInvalid, err, "compile %s", ptr)
		}
		s.errs[ptr] = err
		return compiled{}, err
	}
	out := compiled{s: sch, fast: s.fast.build(sch)}
	s.cache[ptr] = out
	return out, nil
}

// Valid reports whether v (a value as decoded by canon.Parse) validates
// against the schema at JSON Pointer ptr. Errors: those of compiling ptr.
// As in [Schema.Validate], the fast evaluator (fastNode) decides "valid"
// where it applies, without the library's error trees; "invalid" is
// always the library's answer.
func (s *Standalone) Valid(ptr string, v any) (bool, error) {
	sch, err := s.compile(ptr)
	if err != nil {
		return false, err
	}
	if sch.fast != nil && sch.fast.ok(v) {
		return true, nil
	}
	return sch.s.Validate(v) == nil, nil
}

// Compiles returns the error [Standalone.Valid] would return for every
// instance at JSON Pointer ptr: nil when the location compiles.
func (s *Standalone) Compiles(ptr string) error {
	_, err := s.compile(ptr)
	return err
}

// refuseLoader loads nothing: every $ref must resolve inside the document.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, kiterr.New(kiterr.SchemaRefRemote, "$ref %s is outside the document; conform never fetches schemas", url)
}

// CheckMeta validates the whole document against the meta-schema of its
// draft (the one its $schema names, else the default draft of
// [NewStandalone]), as jsonschema v6 does when it first compiles a
// resource, but for draft-06 and draft-07 against the published texts
// ([PublishedMetaSchema]). Errors: SCHEMA_INVALID naming the JSON Pointer of the most
// specific violation in the document and what the meta-schema says of it
// ("at /properties/a/type: value must be one of ..."); SCHEMA_REF_REMOTE
// and SCHEMA_INVALID for a $ref that does not resolve.
//
// Only the meta-schema is compiled (the document is its instance), so the
// check costs one validation pass, not a compilation of every location;
// ms, when not nil, holds it compiled already ([NewMetaSchemas]).
func (s *Standalone) CheckMeta(ms *MetaSchemas) error {
	meta := s.metaURL
	if m, ok := s.doc.(map[string]any); ok {
		if u, ok := m["$schema"].(string); ok {
			meta = u
		}
	}
	sch, fast, err := ms.lookup(meta)
	if err != nil {
		return kiterr.Wrap(kiterr.SchemaUnsupported, err, "meta-schema %s", meta)
	}
	if fast == nil || !fast.ok(s.doc) {
		err = sch.Validate(s.doc)
	}
	if err == nil {
		s.mu.Lock()
		s.metaChecked = true // takes effect when the compiler is made after this
		s.mu.Unlock()
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return kiterr.Wrap(kiterr.SchemaInvalid, err, "not valid against its meta-schema")
	}
	best, where := "", ""
	depth := -1
	p := message.NewPrinter(language.English)
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		switch e.ErrorKind.(type) {
		case *kind.Group, *kind.Schema, *kind.Reference, *kind.AllOf, *kind.AnyOf, *kind.OneOf:
			// a group: its causes say what is wrong
		default:
			if len(e.InstanceLocation) > depth {
				depth = len(e.InstanceLocation)
				best = e.ErrorKind.LocalizedString(p)
				where = ""
				for _, tok := range e.InstanceLocation {
					where += "/" + strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
				}
			}
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if best == "" {
		best = ve.Error()
	}
	if where == "" {
		where = "#"
	}
	return &kiterr.Error{Code: kiterr.SchemaInvalid, Msg: "not valid against its draft's meta-schema at " + where + ": " + best}
}

// MetaSchemas are the compiled meta-schemas of the drafts compat reads
// (2020-12, 2019-09 and draft-04 as jsonschema v6 embeds them; draft-07
// and draft-06 as json-schema.org publishes them, [PublishedMetaSchema]),
// keyed by their
// $schema URL without "#". A compiled *jsonschema.Schema is safe for
// concurrent validation and is never changed, so one MetaSchemas serves a
// whole batch: a batch of many small schemas would otherwise spend most of
// its time compiling the same meta-schema again. Build it with
// [NewMetaSchemas]; a nil *MetaSchemas compiles the one meta-schema a
// check needs.
type MetaSchemas struct {
	byURL map[string]*jsonschema.Schema
	// fast holds the fast evaluators of those that have one
	// (buildRooted: 2020-12), which decide "valid" as the library would;
	// "invalid" is always the library's answer (its violation is the
	// message)
	fast map[string]*fastNode
}

// NewMetaSchemas compiles the five meta-schemas (a few milliseconds; no
// network: they are embedded, here or in jsonschema v6, and any other
// $ref is refused).
func NewMetaSchemas() *MetaSchemas {
	out := map[string]*jsonschema.Schema{}
	fast := map[string]*fastNode{}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	for _, u := range []string{"https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2019-09/schema",
		"http://json-schema.org/draft-07/schema", "http://json-schema.org/draft-06/schema", "http://json-schema.org/draft-04/schema"} {
		if sch, err := compileMeta(c, u); err == nil {
			out[u] = sch
			if n := buildRooted(sch); n != nil {
				fast[u] = n
			}
		}
	}
	return &MetaSchemas{byURL: out, fast: fast}
}

// lookup returns the compiled meta-schema named by a $schema URL (with
// or without "#", http or https), compiling one that ms lacks (or every
// one when ms is nil) on its own, and its fast evaluator when ms has one.
func (ms *MetaSchemas) lookup(u string) (*jsonschema.Schema, *fastNode, error) {
	key := strings.TrimSuffix(u, "#")
	for _, pre := range []string{"http://json-schema.org/draft-0", "https://json-schema.org/draft-0"} {
		if strings.HasPrefix(key, pre) {
			key = "http://json-schema.org/draft-0" + strings.TrimPrefix(key, pre)
		}
	}
	for _, pre := range []string{"http://json-schema.org/draft/", "https://json-schema.org/draft/"} {
		if strings.HasPrefix(key, pre) {
			key = "https://json-schema.org/draft/" + strings.TrimPrefix(key, pre)
		}
	}
	if ms != nil {
		if sch, ok := ms.byURL[key]; ok {
			return sch, ms.fast[key], nil
		}
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	sch, err := compileMeta(c, key)
	return sch, nil, err
}
