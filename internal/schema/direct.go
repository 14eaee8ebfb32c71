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

	"github.com/conform-kit/conform/internal/canon"
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
	// locs is where each node was built from.
	locs    map[*jsonschema.Schema]nodeLoc
	formats map[string]*jsonschema.Format
	// resolved memoizes ref: the document URL a $ref's URL part names,
	// by base and reference.
	resolved map[[2]string]string
	// lazies are the library compilations of nodes, made on first use.
	lazies map[*jsonschema.Schema]*lazySchema
}

// directDoc is one loaded document: nil doc when it is outside the subset.
type directDoc struct {
	doc any
	// nodes are the schemas built so far, by JSON Pointer (in the
	// library's escaping).
	nodes map[string]*jsonschema.Schema
}

// nodeLoc is a node's document URL and JSON Pointer.
type nodeLoc struct{ u, ptr string }

func newDirect(l loader) *direct {
	return &direct{load: l, docs: map[string]*directDoc{}, locs: map[*jsonschema.Schema]nodeLoc{},
		formats: map[string]*jsonschema.Format{}, resolved: map[[2]string]string{}, lazies: map[*jsonschema.Schema]*lazySchema{}}
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
	var added []*jsonschema.Schema
	root, err := d.node(u, frag, true, &added)
	if err != nil {
		for _, s := range added {
			l := d.locs[s]
			delete(d.docs[l.u].nodes, l.ptr)
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
	if err := scan(v, true); err != nil {
		return nil, err
	}
	if obj, ok := v.(map[string]any); ok {
		if s, has := obj["$schema"]; has && s != draft2020 {
			return nil, outside("$schema %v", s)
		}
	}
	dd.doc, dd.nodes = v, map[string]*jsonschema.Schema{}
	return dd, nil
}

const draft2020 = "https://json-schema.org/draft/2020-12/schema"

// Subschema positions of draft 2020-12, as the library's collectResources
// finds them (draft.go: Draft2020.subschemas): a keyword whose value is a
// subschema, a keyword whose object's member values are, and a keyword
// whose array's items are ("items" is both: a schema, or in older drafts an
// array of them).
var (
	posProp = map[string]bool{"not": true, "additionalProperties": true, "items": true, "additionalItems": true,
		"propertyNames": true, "contains": true, "if": true, "then": true, "else": true,
		"unevaluatedProperties": true, "unevaluatedItems": true, "contentSchema": true}
	posMap = map[string]bool{"definitions": true, "properties": true, "patternProperties": true, "dependencies": true,
		"$defs": true, "dependentSchemas": true}
	posArr = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "items": true, "prefixItems": true}
	// unscoped are the keywords that would make a base URI, an anchor or a
	// dialect other than the document's.
	unscoped = map[string]bool{"$id": true, "$anchor": true, "$dynamicAnchor": true, "$dynamicRef": true,
		"$recursiveRef": true, "$recursiveAnchor": true, "$vocabulary": true}
)

// scan refuses a document with an unscoped keyword at any subschema
// position, or "$schema" anywhere but at the root.
func scan(v any, root bool) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	for k, sub := range obj {
		switch {
		case unscoped[k], k == "$schema" && !root:
			return outside("%s in a subschema", k)
		}
		if posProp[k] {
			if err := scan(sub, false); err != nil {
				return err
			}
		}
		if m, ok := sub.(map[string]any); ok && posMap[k] {
			for _, e := range m {
				if err := scan(e, false); err != nil {
					return err
				}
			}
		}
		if a, ok := sub.([]any); ok && posArr[k] {
			for _, e := range a {
				if err := scan(e, false); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// isPosition reports whether ptr (library escaping) names a subschema
// position of doc, one the library's collectResources marks processed;
// a $ref to any other location makes the library check that location
// against the meta-schema first (roots.go ensureSubschema).
func isPosition(doc any, ptr string) bool {
	if ptr == "" {
		return true
	}
	toks := strings.Split(ptr, "/")[1:]
	cur := doc
	for i := 0; i < len(toks); i++ {
		obj, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		k, ok := unescape(toks[i])
		if !ok {
			return false
		}
		v, has := obj[k]
		if !has {
			return false
		}
		if a, isArr := v.([]any); isArr && posArr[k] && i+1 < len(toks) {
			n, err := strconv.Atoi(toks[i+1])
			if err != nil || n < 0 || n >= len(a) || strconv.Itoa(n) != toks[i+1] {
				return false
			}
			cur, i = a[n], i+1
			continue
		}
		if m, isObj := v.(map[string]any); isObj && posMap[k] {
			if i+1 >= len(toks) {
				return false
			}
			name, ok := unescape(toks[i+1])
			if !ok {
				return false
			}
			if cur, ok = m[name]; !ok {
				return false
			}
			i++
			continue
		}
		if !posProp[k] {
			return false
		}
		cur = v
	}
	return true
}

// unescape undoes RFC 6901 token escaping as the library's does: unlike
// canon.UnescapePointer it refuses a "~" not followed by 0 or 1.
func unescape(tok string) (string, bool) {
	if strings.IndexByte(tok, '~') < 0 {
		return tok, true
	}
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

// rejected are keywords the library compiles in draft 2020-12 that the
// fast evaluator does not implement.
var rejected = map[string]bool{
	"contains": true, "minContains": true, "maxContains": true, "dependencies": true,
	"dependentSchemas": true, "unevaluatedItems": true,
}

// node returns the schema at ptr of the document at u, building it and
// what it references. checkPos: ptr came from a $ref or Compile, not from
// a keyword of a node (which is a position by construction).
func (d *direct) node(u, ptr string, checkPos bool, added *[]*jsonschema.Schema) (*jsonschema.Schema, error) {
	dd, err := d.doc(u)
	if err != nil {
		return nil, err
	}
	if s, ok := dd.nodes[ptr]; ok {
		return s, nil
	}
	if checkPos && !isPosition(dd.doc, ptr) {
		return nil, outside("%s#%s is not a subschema position", u, ptr)
	}
	v, ok := lookup(dd.doc, ptr)
	if !ok {
		return nil, outside("%s#%s not found", u, ptr)
	}
	// Location is left empty: the graph is read for its keywords only.
	s := &jsonschema.Schema{DraftVersion: 2020}
	dd.nodes[ptr], d.locs[s] = s, nodeLoc{u, ptr}
	*added = append(*added, s)
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
	return nil, outside("%s#%s is not a schema", u, ptr)
}

// object fills s from obj as objCompiler.compile does for draft 2020-12
// with the default vocabularies and format assertion on. The keywords are
// read in one pass over obj; the order in which they are filled does not
// matter (each field depends on its own keyword, but for the ones handled
// after the loop).
func (d *direct) object(s *jsonschema.Schema, obj map[string]any, u, ptr string, added *[]*jsonschema.Schema) error {
	sub := func(tok ...string) (*jsonschema.Schema, error) {
		p := ptr
		for _, t := range tok {
			p += "/" + canon.EscapePointer(t)
		}
		return d.node(u, p, false, added)
	}
	arr := func(name string, v any) ([]*jsonschema.Schema, error) {
		a, ok := v.([]any)
		if !ok {
			return nil, outside("%s at %s#%s", name, u, ptr)
		}
		out := make([]*jsonschema.Schema, len(a))
		for i := range a {
			var err error
			if out[i], err = sub(name, strconv.Itoa(i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	mapOf := func(name string, v any) (map[string]*jsonschema.Schema, error) {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, outside("%s at %s#%s", name, u, ptr)
		}
		out := make(map[string]*jsonschema.Schema, len(m))
		for k := range m {
			var err error
			if out[k], err = sub(name, k); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	var exclMax, exclMin, hasIf bool
	var err error
	for k, v := range obj {
		switch k {
		case "$ref":
			ref, isStr := v.(string)
			if !isStr {
				return outside("$ref at %s#%s", u, ptr)
			}
			s.Ref, err = d.ref(u, ref, added)
		case "allOf":
			s.AllOf, err = arr(k, v)
		case "anyOf":
			s.AnyOf, err = arr(k, v)
		case "oneOf":
			s.OneOf, err = arr(k, v)
		case "not":
			s.Not, err = sub(k)
		case "properties":
			s.Properties, err = mapOf(k, v)
		case "patternProperties":
			var pp map[string]*jsonschema.Schema
			if pp, err = mapOf(k, v); err == nil {
				s.PatternProperties = make(map[jsonschema.Regexp]*jsonschema.Schema, len(pp))
				for name, sch := range pp {
					re, rerr := regexp.Compile(name)
					if rerr != nil {
						return outside("patternProperties %q", name)
					}
					s.PatternProperties[re] = sch
				}
			}
		case "additionalProperties":
			switch a := v.(type) {
			case nil:
				return outside("additionalProperties null")
			case bool:
				s.AdditionalProperties = a
			default:
				s.AdditionalProperties, err = sub(k)
			}
		case "type":
			var types jsonschema.Types
			switch t := v.(type) {
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
		case "enum":
			if a, ok := v.([]any); ok {
				s.Enum = &jsonschema.Enum{Values: a}
			}
		case "multipleOf":
			s.MultipleOf = numVal(v)
		case "maximum":
			s.Maximum = numVal(v)
		case "exclusiveMaximum":
			if b, ok := v.(bool); ok {
				exclMax = b
			} else {
				s.ExclusiveMaximum = numVal(v)
			}
		case "minimum":
			s.Minimum = numVal(v)
		case "exclusiveMinimum":
			if b, ok := v.(bool); ok {
				exclMin = b
			} else {
				s.ExclusiveMinimum = numVal(v)
			}
		case "minLength":
			s.MinLength = intVal(v)
		case "maxLength":
			s.MaxLength = intVal(v)
		case "pattern":
			if pat, ok := v.(string); ok {
				re, rerr := regexp.Compile(pat)
				if rerr != nil {
					return outside("pattern %q", pat)
				}
				s.Pattern = re
			}
		case "minItems":
			s.MinItems = intVal(v)
		case "maxItems":
			s.MaxItems = intVal(v)
		case "uniqueItems":
			s.UniqueItems = v == true
		case "maxProperties":
			s.MaxProperties = intVal(v)
		case "minProperties":
			s.MinProperties = intVal(v)
		case "required":
			if a, ok := v.([]any); ok {
				s.Required = toStrings(a)
			}
		case "format":
			if f, ok := v.(string); ok {
				s.Format, err = d.format(f)
			}
		case "title":
			s.Title, _ = v.(string)
		case "description":
			s.Description, _ = v.(string)
		case "default":
			s.Default = &v
		case "propertyNames":
			s.PropertyNames, err = sub(k)
		case "const":
			s.Const = &v
		case "if":
			hasIf = true
		case "$comment":
			s.Comment, _ = v.(string)
		case "readOnly":
			s.ReadOnly = v == true
		case "writeOnly":
			s.WriteOnly = v == true
		case "examples":
			if a, ok := v.([]any); ok {
				s.Examples = a
			}
		case "dependentRequired":
			if m, ok := v.(map[string]any); ok {
				s.DependentRequired = map[string][]string{}
				for name, e := range m {
					if a, ok := e.([]any); ok {
						s.DependentRequired[name] = toStrings(a)
					}
				}
			}
		case "unevaluatedProperties":
			s.UnevaluatedProperties, err = sub(k)
		case "deprecated":
			s.Deprecated = v == true
		case "prefixItems":
			s.PrefixItems, err = arr(k, v)
		case "items":
			if _, isArr := v.([]any); isArr {
				return outside("items array at %s#%s", u, ptr)
			}
			s.Items2020, err = sub(k)
		default:
			if rejected[k] {
				return outside("%s at %s#%s", k, u, ptr)
			}
			// then and else are read with if; anything else the
			// library does not read in draft 2020-12 without content
			// assertion or vocabularies.
		}
		if err != nil {
			return err
		}
	}
	if exclMax {
		s.ExclusiveMaximum, s.Maximum = s.Maximum, nil
	}
	if exclMin {
		s.ExclusiveMinimum, s.Minimum = s.Minimum, nil
	}
	if hasIf {
		if s.If, err = sub("if"); err != nil {
			return err
		}
		b, isBool := obj["if"].(bool)
		if _, ok := obj["then"]; ok && (!isBool || b) {
			if s.Then, err = sub("then"); err != nil {
				return err
			}
		}
		if _, ok := obj["else"]; ok && (!isBool || !b) {
			if s.Else, err = sub("else"); err != nil {
				return err
			}
		}
	}
	return nil
}

// ref resolves a $ref value against the document URL u as the library's
// url.join and root.resolve do (the base URI is u: no $id is allowed).
func (d *direct) ref(u, ref string, added *[]*jsonschema.Schema) (*jsonschema.Schema, error) {
	refPart, frag := split(ref)
	frag, err := gourl.PathUnescape(frag)
	if err != nil {
		return nil, outside("$ref %s", ref)
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return nil, outside("anchor $ref %s", ref)
	}
	key := [2]string{u, refPart}
	target, ok := d.resolved[key]
	if !ok {
		base, err := gourl.Parse(u)
		if err != nil {
			return nil, outside("url %s", u)
		}
		refURL, err := gourl.Parse(refPart)
		if err != nil {
			return nil, outside("$ref %s", ref)
		}
		resolved := base.ResolveReference(refURL)
		if !refURL.IsAbs() && base.Opaque != "" {
			resolved.Opaque = base.Opaque
		}
		target = resolved.String()
		d.resolved[key] = target
	}
	return d.node(target, frag, true, added)
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

// numVal, intVal and toStrings are objCompiler's value helpers.
func numVal(v any) *big.Rat {
	switch v.(type) {
	case json.Number, float32, float64, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		if n, ok := new(big.Rat).SetString(fmt.Sprint(v)); ok {
			return n
		}
	}
	return nil
}

func intVal(v any) *int {
	if n := numVal(v); n != nil && n.IsInt() {
		i := int(n.Num().Int64())
		return &i
	}
	return nil
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

// lazy returns the shared lazySchema of the node s of d. Callers hold the
// Set's lock.
func (d *direct) lazy(set *Set, s *jsonschema.Schema) *lazySchema {
	if l, ok := d.lazies[s]; ok {
		return l
	}
	nl := d.locs[s]
	loc := nl.u
	if nl.ptr != "" {
		// The library percent-decodes the fragment (splitFragment).
		loc += "#" + strings.ReplaceAll(nl.ptr, "%", "%25")
	}
	l := &lazySchema{set: set, loc: loc, rel: loc}
	d.lazies[s] = l
	return l
}
