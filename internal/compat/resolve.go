package compat

import (
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/schema"
)

// doc is one schema document whose local $ref have been checked.
type doc struct {
	name string // "old" or "new", for error messages
	root any    // the translated (draft 2020-12) document
	// tr maps locations of root back to the original document; std
	// validates instances against the original document (nil when it does
	// not compile as a whole).
	tr  *translated
	std *schema.Standalone
	// refTargets are the locations some $ref of the document points at
	refTargets map[string]bool
	// unfoldMemo caches unfold per location
	unfoldMemo map[string]int64
}

// newDoc checks every $ref of root: local, resolvable, and not part of a
// cycle of schemas that are nothing but a $ref.
func newDoc(name string, root any) (*doc, error) {
	switch root.(type) {
	case bool, map[string]any:
	default:
		return nil, kiterr.New(kiterr.SchemaInvalid, "%s schema: root is %s, want an object or a boolean", name, jsonKind(root))
	}
	d := &doc{name: name, root: root, refTargets: map[string]bool{}}
	if err := d.check(root, ""); err != nil {
		return nil, err
	}
	if err := d.checkLoops(); err != nil {
		return nil, err
	}
	return d, nil
}

// inPlaceEdges returns the locations of the schemas that the schema at loc
// applies to the same instance: its $ref target and its allOf, anyOf,
// oneOf, not, if, then, else and dependentSchemas subschemas.
func (d *doc) inPlaceEdges(m map[string]any, loc string) []string {
	var out []string
	if r, ok := m["$ref"].(string); ok {
		if t, err := d.refLoc(r, loc); err == nil {
			out = append(out, t)
		}
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		arr, _ := m[kw].([]any)
		for i := range arr {
			out = append(out, child(loc, kw, strconv.Itoa(i)))
		}
	}
	for _, kw := range []string{"not", "if", "then", "else"} {
		if _, ok := m[kw]; ok {
			out = append(out, child(loc, kw))
		}
	}
	if ds, ok := m["dependentSchemas"].(map[string]any); ok {
		for _, k := range sortedKeys(ds) {
			out = append(out, child(loc, "dependentSchemas", k))
		}
	}
	return out
}

// checkLoops refuses a cycle of in-place applications (a schema that
// reaches itself through $ref and allOf/anyOf/oneOf/not/if/then/else
// without moving into a member or an item): a validator evaluating it
// never ends, and jsonschema v6 reports an infinite loop, so the schema
// accepts nothing a validator can confirm. Error: SCHEMA_INVALID with the
// location where the cycle closes.
func (d *doc) checkLoops() error {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	type frame struct {
		loc   string
		edges []string
	}
	var visit func(start string) error
	visit = func(start string) error {
		stack := []frame{}
		push := func(loc string) {
			color[loc] = grey
			v, _ := d.lookup(loc)
			m, _ := v.(map[string]any)
			stack = append(stack, frame{loc: loc, edges: d.inPlaceEdges(m, loc)})
		}
		push(start)
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if len(top.edges) == 0 {
				color[top.loc] = black
				stack = stack[:len(stack)-1]
				continue
			}
			next := top.edges[0]
			top.edges = top.edges[1:]
			switch color[next] {
			case grey:
				return kiterr.New(kiterr.SchemaInvalid, "%s schema %s: reaches itself through $ref and in-place applicators without moving into a member or an item (a validator never ends)", d.name, show(next))
			case white:
				push(next)
			}
		}
		return nil
	}
	var all func(v any, loc string) error
	all = func(v any, loc string) error {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if color[loc] == white {
			if err := visit(loc); err != nil {
				return err
			}
		}
		return walkSubschemas(m, loc, all)
	}
	return all(d.root, "")
}

// isValueKeyword reports whether keyword k holds instance data, never
// subschemas (not walked for $ref).
func isValueKeyword(k string) bool {
	switch k {
	case "const", "enum", "default", "examples":
		return true
	}
	return false
}

func (d *doc) check(v any, loc string) error {
	switch v := v.(type) {
	case map[string]any:
		if r, ok := v["$ref"]; ok {
			s, ok := r.(string)
			if !ok {
				return kiterr.New(kiterr.SchemaInvalid, "%s schema %s: $ref is %s, want a string", d.name, show(loc), jsonKind(r))
			}
			target, err := d.refLoc(s, loc)
			if err != nil {
				return err
			}
			d.refTargets[target] = true
			if isRefOnly(v) {
				if _, _, err := d.follow(v, loc); err != nil {
					return err
				}
			}
		}
		for _, k := range sortedKeys(v) {
			if isValueKeyword(k) {
				continue
			}
			kLoc := loc + "/" + canon.EscapePointer(k)
			if members, ok := v[k].(map[string]any); ok && schemaMapKeywords[k] {
				// a map of names to schemas: a member named "$ref" is a
				// property (or definition), not the keyword
				for _, name := range sortedKeys(members) {
					if err := d.check(members[name], kLoc+"/"+canon.EscapePointer(name)); err != nil {
						return err
					}
				}
				continue
			}
			if err := d.check(v[k], kLoc); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := d.check(e, loc+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// refLoc turns a $ref into the JSON Pointer of its target and checks that
// the target exists.
func (d *doc) refLoc(ref, at string) (string, error) {
	if !strings.HasPrefix(ref, "#") {
		return "", kiterr.New(kiterr.SchemaRefRemote, "%s schema %s: $ref %q is not local (only #/... pointers are resolved, never fetched)", d.name, show(at), ref)
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return "", kiterr.Wrap(kiterr.SchemaInvalid, err, "%s schema %s: $ref %q", d.name, show(at), ref)
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return "", kiterr.New(kiterr.SchemaInvalid, "%s schema %s: $ref %q names an anchor; only JSON Pointer fragments are supported", d.name, show(at), ref)
	}
	if _, ok := d.lookup(frag); !ok {
		return "", kiterr.New(kiterr.SchemaInvalid, "%s schema %s: $ref %q does not resolve", d.name, show(at), ref)
	}
	return frag, nil
}

// lookup returns the value at JSON Pointer ptr.
func (d *doc) lookup(ptr string) (any, bool) {
	v := d.root
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = canon.UnescapePointer(tok)
		switch c := v.(type) {
		case map[string]any:
			e, ok := c[tok]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) || strconv.Itoa(i) != tok {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// follow resolves a chain of $ref-only schemas and returns the first schema
// that asserts something itself, with its location.
func (d *doc) follow(v any, loc string) (any, string, error) {
	visited := map[string]bool{}
	for {
		m, ok := v.(map[string]any)
		if !ok || !isRefOnly(m) {
			return v, loc, nil
		}
		if visited[loc] {
			return nil, "", kiterr.New(kiterr.SchemaInvalid, "%s schema %s: $ref cycle with no schema in between", d.name, show(loc))
		}
		visited[loc] = true
		next, err := d.refLoc(m["$ref"].(string), loc)
		if err != nil {
			return nil, "", err
		}
		v, _ = d.lookup(next)
		loc = next
	}
}

// deref is follow for a checked document (it cannot fail).
func (d *doc) deref(v any, loc string) (any, string) {
	t, l, err := d.follow(v, loc)
	if err != nil {
		panic("compat: deref of an unchecked document: " + err.Error())
	}
	return t, l
}

// target resolves ref, found at loc of a checked document, and everything
// it chains to.
func (d *doc) target(ref, loc string) (any, string) {
	next, err := d.refLoc(ref, loc)
	if err != nil {
		panic("compat: target of an unchecked document: " + err.Error())
	}
	v, _ := d.lookup(next)
	return d.deref(v, next)
}

// isAnnotation reports whether keyword k never changes what a schema
// accepts, so comparisons ignore it. $defs and definitions are compared on
// their own (DEFINITION_*); x- extensions are ignored.
func isAnnotation(k string) bool {
	switch k {
	case "$schema", "$id", "$anchor", "$dynamicAnchor", "$comment", "$vocabulary", "$defs", "definitions",
		"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
		"contentMediaType", "contentEncoding", "contentSchema":
		return true
	}
	return strings.HasPrefix(k, "x-")
}

// isRefOnly reports whether m is a $ref and annotations only.
func isRefOnly(m map[string]any) bool {
	if _, ok := m["$ref"]; !ok {
		return false
	}
	for k := range m {
		if k != "$ref" && !isAnnotation(k) {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// show prints a location for messages: the root is "#".
func show(loc string) string {
	if loc == "" {
		return "#"
	}
	return loc
}

// jsonKind names the JSON type of a decoded value for messages ("an
// object", "a string", ...), never a Go type.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	if _, ok := rat(v); ok {
		return "a number"
	}
	return "not JSON"
}

// maxUnfold bounds the in-place unfolding of a location that compat asks
// the validator about (see [doc.unfold]): beyond it, a validation may cost
// that many evaluations of one instance (jsonschema v6 tries every branch
// of an anyOf that rejects), so the location is not validated and the
// prover and the witness search treat its verdict as unknown.
const maxUnfold = 4096

// unfold returns how many schema evaluations one instance costs at loc
// through in-place applicators alone ($ref, allOf, anyOf, oneOf, not, if,
// then, else, dependentSchemas), when no branch stops early: the size of
// the in-place tree below loc, each shared location counted on every path,
// saturated just past maxUnfold. The in-place graph is acyclic
// (checkLoops), so the sum ends; each location is computed once per
// document (memo), so the cost is linear in the document even when the
// count is exponential in it (a chain of anyOf whose branches all refer
// to the next definition doubles it per level).
func (d *doc) unfold(loc string) int64 {
	if n, ok := d.unfoldMemo[loc]; ok {
		return n
	}
	if d.unfoldMemo == nil {
		d.unfoldMemo = map[string]int64{}
	}
	d.unfoldMemo[loc] = maxUnfold + 1 // a cycle (refused by checkLoops) saturates
	v, _ := d.lookup(loc)
	m, _ := v.(map[string]any)
	n := int64(1)
	for _, next := range d.inPlaceEdges(m, loc) {
		n += d.unfold(next)
		if n > maxUnfold {
			n = maxUnfold + 1
			break
		}
	}
	d.unfoldMemo[loc] = n
	return n
}
