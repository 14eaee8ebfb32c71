package schema

import (
	"encoding/json"
	"fmt"
	"math/big"
	gourl "net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The direct path: for a [NewCheckedSet], a schema graph built straight
// from the parsed JSON documents, without compiling them with the library
// at start-up. Compiling control.v1.json with jsonschema v6 (resource
// collection, fragment resolution, one Schema per location) was about a
// sixth of a one-vector run's CPU (issue 25 item 2), and the fast
// evaluator (fastNode) needs only the exported keyword fields of the
// compiled schemas. direct fills those fields exactly as the library's
// compiler does (v6.0.3 objcompiler.go, compiler.go, roots.go, root.go,
// util.go) for documents inside a subset it knows, and refuses anything
// else, which the Set then compiles with the library as before:
//
//   - draft 2020-12 only: "$schema" absent or exactly the 2020-12
//     meta-schema URL, and only at a document's root;
//   - no "$id", "$anchor", "$dynamicAnchor", "$dynamicRef",
//     "$recursiveRef", "$recursiveAnchor" or "$vocabulary" at any
//     subschema position (so every base URI is the document's own URL and
//     no reference depends on dynamic scope);
//   - no keyword the library compiles but the fast evaluator does not
//     implement (contains, minContains, maxContains, dependencies,
//     dependentSchemas, unevaluatedItems); a keyword the library does not
//     read (an unknown one, additionalItems or content* without content
//     assertion, $defs) is ignored as it ignores it;
//   - each keyword's value has the shape the library expects (an array
//     for allOf, a schema for not, ...); where the library's compiler
//     quietly drops a value of another type (an "exclusiveMaximum": true,
//     a non-integer "minLength"), direct does the same with the same code;
//   - every subschema (a keyword's value, or a $ref target) is an object or
//     a boolean, and a $ref names a JSON Pointer (not an anchor) to a
//     location the library counts as a subschema (roots.go
//     collectResources over the draft's subschema positions), in the same
//     document or in another one the Set's loader serves;
//   - every "pattern" and patternProperties name compiles with Go's
//     regexp, the library's default engine (compiler.go goRegexpCompile;
//     Set never changes it).
//
// Formats are the library's own values: the first use of a name compiles
// {"format": name} once with a throwaway compiler that asserts formats, as
// the Set's does (Set registers no formats of its own).
//
// The graph it returns is made of jsonschema.Schema values whose unexported
// fields are zero: they are read (by fastBuilder and Declares) and never
// validated with. Whenever the library's answer is needed (an invalid
// verdict and its violations, a library node, a number the evaluator
// cannot read), the location is compiled with the Set's compiler then, once
// (lazySchema). TestDirectMatchesLibrary compares every exported field of
// the graph with the library's compilation of the same location, for every
// location the suites compile.
type direct struct {
	load loader
	docs map[string]*directDoc
	// nodes are the schemas built so far, by location (URL "#" JSON
	// Pointer, in the library's escaping).
	nodes map[string]*jsonschema.Schema
	// locs is the location of each node.
	locs    map[*jsonschema.Schema]string
	formats map[string]*jsonschema.Format
	// lazies are the library compilations of locations, made on first use.
	lazies map[string]*lazySchema
}

// directDoc is one loaded document: nil doc when it is outside the subset.
type directDoc struct {
	doc any
	// positions are the JSON Pointers the library treats as subschemas.
	positions map[string]bool
}

func newDirect(l loader) *direct {
	return &direct{load: l, docs: map[string]*directDoc{}, nodes: map[string]*jsonschema.Schema{},
		locs: map[*jsonschema.Schema]string{}, formats: map[string]*jsonschema.Format{}, lazies: map[string]*lazySchema{}}
}

// errOutside marks a document or location the direct path does not build.
type errOutside struct{ why string }

func (e errOutside) Error() string { return "outside the direct subset: " + e.why }

func outside(format string, args ...any) error { return errOutside{fmt.Sprintf(format, args...)} }

// build returns the graph for the absolute location loc (a URL with an
// optional JSON Pointer fragment, as Set.Compile passes to the library).
// On error nothing built for loc is kept. Callers hold the Set's lock.
func (d *direct) build(loc string) (*jsonschema.Schema, error) {
	u, frag := split(loc)
	frag, err := gourl.PathUnescape(frag)
	if err != nil {
		return nil, outside("fragment of %s", loc)
	}
	pu, err := gourl.Parse(u)
	if err != nil || !pu.IsAbs() {
		return nil, outside("url %s", loc)
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return nil, outside("anchor in %s", loc)
	}
	added := map[string]*jsonschema.Schema{}
	root, err := d.node(u, frag, added)
	if err != nil {
		for k, s := range added {
			delete(d.nodes, k)
			delete(d.locs, s)
		}
		return nil, err
	}
	return root, nil
}

func split(s string) (string, string) {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// doc loads (once) the document at u and checks the document-level rules.
func (d *direct) doc(u string) (*directDoc, error) {
	if dd, ok := d.docs[u]; ok {
		if dd.doc == nil {
			return nil, outside("document %s", u)
		}
		return dd, nil
	}
	dd := &directDoc{}
	d.docs[u] = dd
	v, err := d.load.Load(u)
	if err != nil {
		return nil, outside("load %s: %v", u, err)
	}
	pos := map[string]bool{}
	if err := positions(v, "", pos); err != nil {
		return nil, err
	}
	if obj, ok := v.(map[string]any); ok {
		if s, has := obj["$schema"]; has && s != draft2020 {
			return nil, outside("$schema %v", s)
		}
	}
	dd.doc, dd.positions = v, pos
	return dd, nil
}

const draft2020 = "https://json-schema.org/draft/2020-12/schema"

// positions marks ptr and every subschema position under v, as the
// library's collectResources does for draft 2020-12 (draft.go: the
// positions of Draft2020.subschemas), and refuses the keywords that would
// make a base URI, an anchor or a dialect other than the document's.
func positions(v any, ptr string, out map[string]bool) error {
	out[ptr] = true
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	for _, k := range []string{"$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef", "$recursiveAnchor", "$vocabulary"} {
		if _, has := obj[k]; has {
			return outside("%s at %q", k, ptr)
		}
	}
	if _, has := obj["$schema"]; has && ptr != "" {
		return outside("$schema at %q", ptr)
	}
	for _, k := range []string{"not", "additionalProperties", "items", "additionalItems", "propertyNames", "contains",
		"if", "then", "else", "unevaluatedProperties", "unevaluatedItems", "contentSchema"} {
		if sub, has := obj[k]; has {
			if err := positions(sub, ptr+"/"+escape(k), out); err != nil {
				return err
			}
		}
	}
	for _, k := range []string{"definitions", "properties", "patternProperties", "dependencies", "$defs", "dependentSchemas"} {
		if m, ok := obj[k].(map[string]any); ok {
			for name, sub := range m {
				if err := positions(sub, ptr+"/"+escape(k)+"/"+escape(name), out); err != nil {
					return err
				}
			}
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "items", "prefixItems"} {
		if arr, ok := obj[k].([]any); ok {
			for i, sub := range arr {
				if err := positions(sub, ptr+"/"+escape(k)+"/"+strconv.Itoa(i), out); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// escape and unescape are RFC 6901 token escaping, as the library's.
func escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

func unescape(tok string) (string, bool) {
	var sb strings.Builder
	for {
		i := strings.IndexByte(tok, '~')
		if i < 0 {
			sb.WriteString(tok)
			return sb.String(), true
		}
		sb.WriteString(tok[:i])
		if i+1 >= len(tok) {
			return "", false
		}
		switch tok[i+1] {
		case '0':
			sb.WriteByte('~')
		case '1':
			sb.WriteByte('/')
		default:
			return "", false
		}
		tok = tok[i+2:]
	}
}

// lookup is the library's urlPtr.lookup.
func lookup(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok, ok := unescape(tok)
		if !ok {
			return nil, false
		}
		switch x := v.(type) {
		case map[string]any:
			if next, ok := x[tok]; ok {
				v = next
				continue
			}
		case []any:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(x) {
				v = x[i]
				continue
			}
		}
		return nil, false
	}
	return v, true
}

// location is the library's urlPtr.String: the pointer's tokens
// path-escaped, slashes kept.
func location(u, ptr string) string {
	toks := strings.Split(ptr, "/")
	for i, t := range toks {
		toks[i] = gourl.PathEscape(t)
	}
	return u + "#" + strings.Join(toks, "/")
}

// rejected are keywords the library compiles in draft 2020-12 that the
// fast evaluator does not implement (or that the document rules exclude).
var rejected = map[string]bool{
	"contains": true, "minContains": true, "maxContains": true, "dependencies": true,
	"dependentSchemas": true, "unevaluatedItems": true,
}

// node returns the schema at ptr of the document at u, building it and
// what it references.
func (d *direct) node(u, ptr string, added map[string]*jsonschema.Schema) (*jsonschema.Schema, error) {
	key := u + "#" + ptr
	if s, ok := d.nodes[key]; ok {
		return s, nil
	}
	dd, err := d.doc(u)
	if err != nil {
		return nil, err
	}
	if !dd.positions[ptr] {
		return nil, outside("%s is not a subschema position", key)
	}
	v, ok := lookup(dd.doc, ptr)
	if !ok {
		return nil, outside("%s not found", key)
	}
	s := &jsonschema.Schema{DraftVersion: 2020, Location: location(u, ptr)}
	d.nodes[key], d.locs[s], added[key] = s, key, s
	switch x := v.(type) {
	case bool:
		s.Bool = &x
		return s, nil
	case map[string]any:
		if len(x) == 0 {
			t := true
			s.Bool = &t
			return s, nil
		}
		return s, d.object(s, x, u, ptr, added)
	}
	return nil, outside("%s is not a schema", key)
}

// object fills s from obj as objCompiler.compile does for draft 2020-12
// with the default vocabularies and format assertion on.
func (d *direct) object(s *jsonschema.Schema, obj map[string]any, u, ptr string, added map[string]*jsonschema.Schema) error {
	for k := range obj {
		if rejected[k] {
			return outside("%s at %s#%s", k, u, ptr)
		}
	}
	sub := func(tok ...string) (*jsonschema.Schema, error) {
		p := ptr
		for _, t := range tok {
			p += "/" + escape(t)
		}
		return d.node(u, p, added)
	}
	var err error
	if v, ok := obj["$ref"]; ok {
		ref, isStr := v.(string)
		if !isStr {
			return outside("$ref at %s#%s", u, ptr)
		}
		if s.Ref, err = d.ref(u, ref, added); err != nil {
			return err
		}
	}
	arr := func(name string) ([]*jsonschema.Schema, error) {
		v, ok := obj[name]
		if !ok {
			return nil, nil
		}
		a, ok := v.([]any)
		if !ok {
			return nil, outside("%s at %s#%s", name, u, ptr)
		}
		out := make([]*jsonschema.Schema, len(a))
		for i := range a {
			if out[i], err = sub(name, strconv.Itoa(i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	prop := func(name string) (*jsonschema.Schema, error) {
		if _, ok := obj[name]; !ok {
			return nil, nil
		}
		return sub(name)
	}
	mapOf := func(name string) (map[string]*jsonschema.Schema, error) {
		v, ok := obj[name]
		if !ok {
			return nil, nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, outside("%s at %s#%s", name, u, ptr)
		}
		out := make(map[string]*jsonschema.Schema, len(m))
		for k := range m {
			if out[k], err = sub(name, k); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	if s.AllOf, err = arr("allOf"); err != nil {
		return err
	}
	if s.AnyOf, err = arr("anyOf"); err != nil {
		return err
	}
	if s.OneOf, err = arr("oneOf"); err != nil {
		return err
	}
	if s.Not, err = prop("not"); err != nil {
		return err
	}
	if s.Properties, err = mapOf("properties"); err != nil {
		return err
	}
	pp, err := mapOf("patternProperties")
	if err != nil {
		return err
	}
	if pp != nil {
		s.PatternProperties = make(map[jsonschema.Regexp]*jsonschema.Schema, len(pp))
		for name, sch := range pp {
			re, err := regexp.Compile(name)
			if err != nil {
				return outside("patternProperties %q", name)
			}
			s.PatternProperties[re] = sch
		}
	}
	switch a := obj["additionalProperties"].(type) {
	case nil:
		if _, ok := obj["additionalProperties"]; ok {
			return outside("additionalProperties null")
		}
	case bool:
		s.AdditionalProperties = a
	default:
		if s.AdditionalProperties, err = sub("additionalProperties"); err != nil {
			return err
		}
	}
	// validation
	if t, ok := obj["type"]; ok {
		var types jsonschema.Types
		switch t := t.(type) {
		case string:
			types.Add(t)
		case []any:
			for _, e := range t {
				if str, ok := e.(string); ok {
					types.Add(str)
				}
			}
		}
		if !types.IsEmpty() {
			s.Types = &types
		}
	}
	if a, ok := obj["enum"].([]any); ok {
		s.Enum = &jsonschema.Enum{Values: a}
	}
	s.MultipleOf = numVal(obj, "multipleOf")
	s.Maximum = numVal(obj, "maximum")
	if boolean(obj, "exclusiveMaximum") {
		s.ExclusiveMaximum, s.Maximum = s.Maximum, nil
	} else {
		s.ExclusiveMaximum = numVal(obj, "exclusiveMaximum")
	}
	s.Minimum = numVal(obj, "minimum")
	if boolean(obj, "exclusiveMinimum") {
		s.ExclusiveMinimum, s.Minimum = s.Minimum, nil
	} else {
		s.ExclusiveMinimum = numVal(obj, "exclusiveMinimum")
	}
	s.MinLength = intVal(obj, "minLength")
	s.MaxLength = intVal(obj, "maxLength")
	if pat, ok := obj["pattern"].(string); ok {
		re, err := regexp.Compile(pat)
		if err != nil {
			return outside("pattern %q", pat)
		}
		s.Pattern = re
	}
	s.MinItems = intVal(obj, "minItems")
	s.MaxItems = intVal(obj, "maxItems")
	s.UniqueItems = boolean(obj, "uniqueItems")
	s.MaxProperties = intVal(obj, "maxProperties")
	s.MinProperties = intVal(obj, "minProperties")
	if a, ok := obj["required"].([]any); ok {
		s.Required = toStrings(a)
	}
	if f, ok := obj["format"].(string); ok {
		if s.Format, err = d.format(f); err != nil {
			return err
		}
	}
	// annotations
	s.Title, _ = obj["title"].(string)
	s.Description, _ = obj["description"].(string)
	if v, ok := obj["default"]; ok {
		s.Default = &v
	}
	// draft 6
	if s.PropertyNames, err = prop("propertyNames"); err != nil {
		return err
	}
	if v, ok := obj["const"]; ok {
		s.Const = &v
	}
	// draft 7
	if s.If, err = prop("if"); err != nil {
		return err
	}
	if s.If != nil {
		b, isBool := obj["if"].(bool)
		if !isBool || b {
			if s.Then, err = prop("then"); err != nil {
				return err
			}
		}
		if !isBool || !b {
			if s.Else, err = prop("else"); err != nil {
				return err
			}
		}
	}
	s.Comment, _ = obj["$comment"].(string)
	s.ReadOnly = boolean(obj, "readOnly")
	s.WriteOnly = boolean(obj, "writeOnly")
	if a, ok := obj["examples"].([]any); ok {
		s.Examples = a
	}
	// draft 2019
	if m, ok := obj["dependentRequired"].(map[string]any); ok {
		s.DependentRequired = map[string][]string{}
		for name, v := range m {
			if a, ok := v.([]any); ok {
				s.DependentRequired[name] = toStrings(a)
			}
		}
	}
	if s.UnevaluatedProperties, err = prop("unevaluatedProperties"); err != nil {
		return err
	}
	s.Deprecated = boolean(obj, "deprecated")
	// draft 2020
	if s.PrefixItems, err = arr("prefixItems"); err != nil {
		return err
	}
	if items, ok := obj["items"]; ok {
		if _, isArr := items.([]any); isArr {
			return outside("items array at %s#%s", u, ptr)
		}
		if s.Items2020, err = sub("items"); err != nil {
			return err
		}
	}
	return nil
}

// ref resolves a $ref value against the document URL u as the library's
// url.join and root.resolve do (the base URI is u: no $id is allowed).
func (d *direct) ref(u, ref string, added map[string]*jsonschema.Schema) (*jsonschema.Schema, error) {
	base, err := gourl.Parse(u)
	if err != nil {
		return nil, outside("url %s", u)
	}
	refPart, frag := split(ref)
	frag, err = gourl.PathUnescape(frag)
	if err != nil {
		return nil, outside("$ref %s", ref)
	}
	refURL, err := gourl.Parse(refPart)
	if err != nil {
		return nil, outside("$ref %s", ref)
	}
	resolved := base.ResolveReference(refURL)
	if !refURL.IsAbs() && base.Opaque != "" {
		resolved.Opaque = base.Opaque
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return nil, outside("anchor $ref %s", ref)
	}
	return d.node(resolved.String(), frag, added)
}

// format returns the library's format of that name (nil for a name it does
// not know, which it then ignores).
func (d *direct) format(name string) (*jsonschema.Format, error) {
	if f, ok := d.formats[name]; ok {
		return f, nil
	}
	// Under json-schema.org the library skips its meta-schema check
	// (checkedBaseURL); nothing is loaded.
	const u = "https://json-schema.org/conform-format/f.json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	c.AssertFormat()
	if err := c.AddResource(u, map[string]any{"format": name}); err != nil {
		return nil, outside("format %q: %v", name, err)
	}
	s, err := c.Compile(u)
	if err != nil {
		return nil, outside("format %q: %v", name, err)
	}
	d.formats[name] = s.Format
	return s.Format, nil
}

// numVal, intVal, boolean and toStrings are objCompiler's value helpers.
func numVal(obj map[string]any, name string) *big.Rat {
	v, ok := obj[name]
	if !ok {
		return nil
	}
	switch v.(type) {
	case json.Number, float32, float64, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		if n, ok := new(big.Rat).SetString(fmt.Sprint(v)); ok {
			return n
		}
	}
	return nil
}

func intVal(obj map[string]any, name string) *int {
	if n := numVal(obj, name); n != nil && n.IsInt() {
		i := int(n.Num().Int64())
		return &i
	}
	return nil
}

func boolean(obj map[string]any, name string) bool {
	b, ok := obj[name].(bool)
	return ok && b
}

func toStrings(arr []any) []string {
	var out []string
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// lazySchema is the library's compilation of one location, made on first
// use and shared by every user of that location; with a nil set, s was
// compiled up front.
type lazySchema struct {
	once sync.Once
	set  *Set
	loc  string // absolute, as passed to the library
	rel  string // suite-relative, for errors
	s    *jsonschema.Schema
	err  error
}

// get returns the compiled schema, compiling it on first use. It takes the
// Set's lock: never call it while holding that lock.
func (l *lazySchema) get() (*jsonschema.Schema, error) {
	if l.set == nil {
		return l.s, nil // compiled up front
	}
	l.once.Do(func() {
		l.set.mu.Lock()
		defer l.set.mu.Unlock()
		l.s, l.err = l.set.libCompile(l.loc, l.rel)
		if l.err != nil {
			l.set.lazyFailed.Store(true)
		}
	})
	return l.s, l.err
}

// lazy returns the shared lazySchema of the node s (nil when s is not a
// node of d).
func (d *direct) lazy(set *Set, s *jsonschema.Schema) *lazySchema {
	key, ok := d.locs[s]
	if !ok {
		return nil
	}
	return d.lazyAt(set, key, key)
}

func (d *direct) lazyAt(set *Set, key, rel string) *lazySchema {
	if l, ok := d.lazies[key]; ok {
		return l
	}
	u, ptr := split(key)
	loc := u
	if ptr != "" {
		// The library percent-decodes the fragment (splitFragment).
		loc += "#" + strings.ReplaceAll(ptr, "%", "%25")
	}
	l := &lazySchema{set: set, loc: loc, rel: rel}
	d.lazies[key] = l
	return l
}
