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
	url string
	// doc is the document as given; metaURL the meta-schema of its
	// default draft (its own $schema wins)
	doc     any
	metaURL string
	mu      sync.Mutex
	c       *jsonschema.Compiler
	// compiled locations; a nil entry records a location that failed
	cache map[string]*jsonschema.Schema
	errs  map[string]error
}

// NewStandalone prepares doc (a value as decoded by canon.Parse) under the
// name name ("old", "new"). With assertFormat, format is an assertion (as
// in [NewSet]); without, an annotation. Compilation happens per location,
// on first use. Errors: SCHEMA_INVALID when doc is not an object or boolean.
func NewStandalone(name string, doc any, assertFormat bool, defaultDraft string) (*Standalone, error) {
	switch doc.(type) {
	case bool, map[string]any:
	default:
		return nil, kiterr.New(kiterr.SchemaInvalid, "%s schema: root is not an object or a boolean", name)
	}
	url := "file:///conform-compat/" + name + ".json"
	drafts := map[string]*jsonschema.Draft{"": jsonschema.Draft2020, "2020-12": jsonschema.Draft2020, "2019-09": jsonschema.Draft2019,
		"draft-07": jsonschema.Draft7, "draft-06": jsonschema.Draft6, "draft-04": jsonschema.Draft4}
	draft, ok := drafts[defaultDraft]
	if !ok {
		return nil, kiterr.New(kiterr.Usage, "default draft %q", defaultDraft)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(draft)
	c.UseLoader(refuseLoader{})
	if assertFormat {
		c.AssertFormat()
	}
	if err := c.AddResource(url, doc); err != nil {
		return nil, kiterr.Wrap(kiterr.SchemaInvalid, err, "%s schema", name)
	}
	metas := map[string]string{"": "https://json-schema.org/draft/2020-12/schema", "2020-12": "https://json-schema.org/draft/2020-12/schema",
		"2019-09": "https://json-schema.org/draft/2019-09/schema", "draft-07": "http://json-schema.org/draft-07/schema#",
		"draft-06": "http://json-schema.org/draft-06/schema#", "draft-04": "http://json-schema.org/draft-04/schema#"}
	return &Standalone{url: url, c: c, doc: doc, metaURL: metas[defaultDraft], cache: map[string]*jsonschema.Schema{}, errs: map[string]error{}}, nil
}

// compile returns the compiled schema at JSON Pointer ptr ("" is the root).
// Errors: SCHEMA_INVALID (the location does not compile: a meta-schema
// violation, an unresolvable $ref), SCHEMA_REF_REMOTE.
func (s *Standalone) compile(ptr string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.cache[ptr]; ok {
		return sch, nil
	}
	if err, ok := s.errs[ptr]; ok {
		return nil, err
	}
	loc := s.url
	if ptr != "" {
		loc += "#" + strings.ReplaceAll(ptr, "%", "%25")
	}
	sch, err := s.c.Compile(loc)
	if err != nil {
		var le *jsonschema.LoadURLError
		var ke *kiterr.Error
		if errors.As(err, &le) && errors.As(le.Err, &ke) {
			err = &kiterr.Error{Code: ke.Code, Msg: "compile " + ptr, Err: err}
		} else {
			err = kiterr.Wrap(kiterr.SchemaInvalid, err, "compile %s", ptr)
		}
		s.errs[ptr] = err
		return nil, err
	}
	s.cache[ptr] = sch
	return sch, nil
}

// Valid reports whether v (a value as decoded by canon.Parse) validates
// against the schema at JSON Pointer ptr. Errors: those of compiling ptr.
func (s *Standalone) Valid(ptr string, v any) (bool, error) {
	sch, err := s.compile(ptr)
	if err != nil {
		return false, err
	}
	return sch.Validate(v) == nil, nil
}

// refuseLoader loads nothing: every $ref must resolve inside the document.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, kiterr.New(kiterr.SchemaRefRemote, "$ref %s is outside the document; conform never fetches schemas", url)
}

// CheckMeta validates the whole document against the meta-schema of its
// draft (the one its $schema names, else the default draft of
// [NewStandalone]), as jsonschema v6 does when it first compiles a
// resource. Errors: SCHEMA_INVALID naming the JSON Pointer of the most
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
	sch, err := ms.lookup(meta)
	if err != nil {
		return kiterr.Wrap(kiterr.SchemaUnsupported, err, "meta-schema %s", meta)
	}
	err = sch.Validate(s.doc)
	if err == nil {
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

// MetaSchemas are the compiled meta-schemas of the drafts jsonschema v6
// embeds (2020-12, 2019-09, draft-07, draft-06, draft-04), keyed by their
// $schema URL without "#". A compiled *jsonschema.Schema is safe for
// concurrent validation and is never changed, so one MetaSchemas serves a
// whole batch: a batch of many small schemas would otherwise spend most of
// its time compiling the same meta-schema again. Build it with
// [NewMetaSchemas]; a nil *MetaSchemas compiles the one meta-schema a
// check needs.
type MetaSchemas struct {
	byURL map[string]*jsonschema.Schema
}

// NewMetaSchemas compiles the five meta-schemas (a few milliseconds; no
// network: jsonschema v6 embeds them, and any other $ref is refused).
func NewMetaSchemas() *MetaSchemas {
	out := map[string]*jsonschema.Schema{}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	for _, u := range []string{"https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2019-09/schema",
		"http://json-schema.org/draft-07/schema", "http://json-schema.org/draft-06/schema", "http://json-schema.org/draft-04/schema"} {
		if sch, err := c.Compile(u); err == nil {
			out[u] = sch
		}
	}
	return &MetaSchemas{byURL: out}
}

// lookup returns the compiled meta-schema named by a $schema URL (with
// or without "#", http or https), compiling one that ms lacks (or every
// one when ms is nil) on its own.
func (ms *MetaSchemas) lookup(u string) (*jsonschema.Schema, error) {
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
			return sch, nil
		}
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	return c.Compile(u)
}
