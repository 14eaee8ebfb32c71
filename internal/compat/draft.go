package compat

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/internal/kiterr"
)

// dialect is the JSON Schema draft a document is written in.
type dialect int

const (
	draft04 dialect = iota + 1
	draft06
	draft07
	draft2019
	draft2020
)

func (d dialect) String() string {
	switch d {
	case draft04:
		return "draft-04"
	case draft06:
		return "draft-06"
	case draft07:
		return "draft-07"
	case draft2019:
		return "2019-09"
	}
	return "2020-12"
}

// dialectOf reads the root $schema. Absent means 2020-12. Errors:
// SCHEMA_UNSUPPORTED for any other meta-schema (draft-03 and older, or an
// unknown URL), SCHEMA_INVALID for a $schema that is not a string.
func dialectOf(name string, root any, def dialect) (dialect, error) {
	m, ok := root.(map[string]any)
	if !ok {
		return def, nil
	}
	raw, ok := m["$schema"]
	if !ok {
		return def, nil
	}
	s, ok := raw.(string)
	if !ok {
		return 0, kiterr.New(kiterr.SchemaInvalid, "%s schema: $schema is %s, want a string", name, jsonKind(raw))
	}
	u := strings.TrimSuffix(strings.TrimSuffix(s, "#"), "/")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	switch u {
	case "json-schema.org/draft-04/schema":
		return draft04, nil
	case "json-schema.org/draft-06/schema":
		return draft06, nil
	case "json-schema.org/draft-07/schema":
		return draft07, nil
	case "json-schema.org/draft/2019-09/schema":
		return draft2019, nil
	case "json-schema.org/draft/2020-12/schema":
		return draft2020, nil
	}
	return 0, kiterr.New(kiterr.SchemaUnsupported, "%s schema: $schema %q is not a supported draft (draft-04, -06, -07, 2019-09, 2020-12)", name, s)
}

// parseDialect reads a draft name of [Options].DefaultDraft.
func parseDialect(s string) (dialect, bool) {
	switch s {
	case "", "2020-12":
		return draft2020, true
	case "2019-09":
		return draft2019, true
	case "draft-07", "7":
		return draft07, true
	case "draft-06", "6":
		return draft06, true
	case "draft-04", "4":
		return draft04, true
	}
	return 0, false
}

// translated is a document rewritten into draft 2020-12 form, with the map
// back to the original document's pointers.
type translated struct {
	root    any
	dialect dialect
	// renames maps a translated location whose path differs from the
	// original to the original location; see origPointer.
	renames map[string]string
}

// origPointer maps a pointer of the translated document to the pointer of
// the same node in the original document (longest renamed prefix).
func (t *translated) origPointer(p string) string {
	if len(t.renames) == 0 {
		return p
	}
	for q := p; ; {
		if o, ok := t.renames[q]; ok {
			return o + p[len(q):]
		}
		i := strings.LastIndexByte(q, '/')
		if i < 0 {
			return p
		}
		q = q[:i]
	}
}

// translate rewrites root (never modified) into draft 2020-12 form:
//
//   - draft-04 id is $id; boolean exclusiveMinimum/exclusiveMaximum with
//     minimum/maximum become the numeric 2020-12 forms;
//   - before 2020-12, array-form items is prefixItems and additionalItems
//     then is items (beside a schema-form items, additionalItems is ignored
//     and dropped);
//   - before 2019-09, dependencies splits into dependentRequired (arrays)
//     and dependentSchemas (schemas); a $ref makes its sibling keywords
//     ignored (draft-07 §8.3), so they are dropped ($defs/definitions kept);
//   - in every draft, a $ref to an anchor ($anchor, or a "#name" $id) or to
//     an absolute URI of the document or of a schema resource embedded in it
//     ($id) is rewritten into a local JSON Pointer "#/...".
//
// Errors: SCHEMA_UNSUPPORTED for $recursiveRef, $dynamicRef or a $schema it
// does not know; SCHEMA_REF_REMOTE for a $ref outside the document;
// SCHEMA_INVALID for a malformed $ref or $id.
func translate(name string, root any, def dialect) (*translated, error) {
	dl, err := dialectOf(name, root, def)
	if err != nil {
		return nil, err
	}
	t := &translated{dialect: dl, renames: map[string]string{}}
	tr := &translator{name: name, dl: dl, t: t}
	t.root, err = tr.schema(root, "", "")
	if err != nil {
		return nil, err
	}
	if err := tr.resolveRefs(); err != nil {
		return nil, err
	}
	return t, nil
}

type translator struct {
	name string
	dl   dialect
	t    *translated
}

// schemaMapKeywords hold a map of name to schema.
var schemaMapKeywords = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}

// schemaArrayKeywords hold an array of schemas.
var schemaArrayKeywords = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}

// schemaKeywords hold one schema.
var schemaKeywords = map[string]bool{"additionalProperties": true, "unevaluatedProperties": true, "items": true,
	"unevaluatedItems": true, "contains": true, "propertyNames": true, "not": true, "if": true, "then": true, "else": true,
	"contentSchema": true}

func (tr *translator) rename(tLoc, oLoc string) {
	if tLoc != oLoc {
		tr.t.renames[tLoc] = oLoc
	}
}

// schema translates one schema at tLoc (translated) / oLoc (original).
func (tr *translator) schema(v any, tLoc, oLoc string) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return v, nil
	}
	for _, k := range []string{"$recursiveRef", "$dynamicRef"} {
		if _, ok := m[k]; ok {
			return nil, kiterr.New(kiterr.SchemaUnsupported, "%s schema %s: %s is not supported", tr.name, show(oLoc), k)
		}
	}
	out := make(map[string]any, len(m))
	_, hasRef := m["$ref"]
	legacy := tr.dl <= draft07
	for k, e := range m {
		if legacy && hasRef && k != "$ref" && k != "definitions" && k != "$defs" && !isAnnotation(k) && k != "id" {
			continue // ignored beside $ref before 2019-09
		}
		if !inVocabulary(tr.dl, k) {
			continue // a keyword of another draft: validators of this one ignore it
		}
		out[k] = e
	}
	if tr.dl == draft04 {
		if id, ok := out["id"]; ok {
			delete(out, "id")
			if _, has := out["$id"]; !has {
				out["$id"] = id
			}
		}
		for _, b := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
			if ex, ok := out[b[0]].(bool); ok {
				bound, hasBound := out[b[1]]
				delete(out, b[0])
				if ex && hasBound {
					delete(out, b[1])
					out[b[0]] = bound
					tr.rename(child(tLoc, b[0]), child(oLoc, b[1]))
				}
			}
		}
	}
	if _, isArr := out["items"].([]any); isArr && tr.dl == draft2020 {
		return nil, kiterr.New(kiterr.SchemaInvalid, "%s schema %s: items is an array, the tuple form of draft-07 and 2019-09; in 2020-12 it is prefixItems (or declare the draft with $schema)", tr.name, show(oLoc))
	}
	if tr.dl <= draft2019 {
		if arr, ok := out["items"].([]any); ok {
			delete(out, "items")
			out["prefixItems"] = arr
			tr.rename(child(tLoc, "prefixItems"), child(oLoc, "items"))
			if ai, ok := out["additionalItems"]; ok {
				out["items"] = ai
				tr.rename(child(tLoc, "items"), child(oLoc, "additionalItems"))
			}
		}
		delete(out, "additionalItems")
	}
	if tr.dl <= draft07 {
		if deps, ok := out["dependencies"].(map[string]any); ok {
			delete(out, "dependencies")
			req, sch := map[string]any{}, map[string]any{}
			for k, e := range deps {
				if _, isArr := e.([]any); isArr {
					req[k] = e
					tr.rename(child(tLoc, "dependentRequired", k), child(oLoc, "dependencies", k))
				} else {
					sch[k] = e
					tr.rename(child(tLoc, "dependentSchemas", k), child(oLoc, "dependencies", k))
				}
			}
			if len(req) > 0 {
				out["dependentRequired"] = req
			}
			if len(sch) > 0 {
				out["dependentSchemas"] = sch
			}
		}
	}
	for k, e := range out {
		okLoc := tr.origChild(tLoc, oLoc, k)
		switch {
		case schemaMapKeywords[k]:
			mm, isMap := e.(map[string]any)
			if !isMap {
				continue
			}
			nm := make(map[string]any, len(mm))
			for name, s := range mm {
				var err error
				if nm[name], err = tr.schema(s, child(tLoc, k, name), child(okLoc, name)); err != nil {
					return nil, err
				}
			}
			out[k] = nm
		case schemaArrayKeywords[k]:
			arr, isArr := e.([]any)
			if !isArr {
				continue
			}
			na := make([]any, len(arr))
			for i, s := range arr {
				var err error
				if na[i], err = tr.schema(s, child(tLoc, k, strconv.Itoa(i)), child(okLoc, strconv.Itoa(i))); err != nil {
					return nil, err
				}
			}
			out[k] = na
		case schemaKeywords[k]:
			var err error
			if out[k], err = tr.schema(e, child(tLoc, k), okLoc); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// inVocabulary reports whether keyword k asserts or applies in draft dl.
// A keyword that only later drafts define (if/then/else before draft-07,
// const, contains and propertyNames before draft-06, unevaluated*,
// dependentRequired, dependentSchemas, minContains and maxContains before
// 2019-09, prefixItems before 2020-12) or that a later draft dropped
// (additionalItems and dependencies from 2020-12 and 2019-09 on) is
// ignored by a validator of dl, so the prover must not read it (sources:
// the Validation specification of each draft).
func inVocabulary(dl dialect, k string) bool {
	switch k {
	case "const", "contains", "propertyNames":
		return dl >= draft06
	case "if", "then", "else":
		return dl >= draft07
	case "unevaluatedProperties", "unevaluatedItems", "dependentRequired", "dependentSchemas", "minContains", "maxContains":
		return dl >= draft2019
	case "prefixItems":
		return dl >= draft2020
	case "dependencies":
		return dl <= draft07
	case "additionalItems":
		return dl <= draft2019
	}
	return true
}

// origChild returns the original location of keyword k of the schema at
// tLoc/oLoc, following a rename recorded for it.
func (tr *translator) origChild(tLoc, oLoc, k string) string {
	if o, ok := tr.t.renames[child(tLoc, k)]; ok {
		return o
	}
	return child(oLoc, k)
}

// resolveRefs rewrites every $ref of the translated tree into a local JSON
// Pointer, resolving it against the base URI in scope ($id).
func (tr *translator) resolveRefs() error {
	const docBase = "file:///conform-compat/document.json"
	resources := map[string]string{} // base URI -> pointer
	anchors := map[string]string{}   // base URI + "#" + name -> pointer
	var collect func(v any, loc, base string) error
	collect = func(v any, loc, base string) error {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if id, ok := m["$id"].(string); ok {
			b, err := url.Parse(base)
			if err != nil {
				return kiterr.Wrap(kiterr.SchemaInvalid, err, "%s schema %s: base", tr.name, show(loc))
			}
			r, err := url.Parse(id)
			if err != nil {
				return kiterr.Wrap(kiterr.SchemaInvalid, err, "%s schema %s: $id %q", tr.name, show(loc), id)
			}
			abs := b.ResolveReference(r)
			frag := abs.Fragment
			abs.Fragment = ""
			if frag != "" && !strings.HasPrefix(frag, "/") && tr.dl <= draft07 {
				anchors[abs.String()+"#"+frag] = loc // draft-06/07 "#name" $id
				if r.Scheme != "" || r.Path != "" {
					base = abs.String()
					resources[base] = loc
				}
			} else {
				base = abs.String()
				if _, dup := resources[base]; !dup || loc == "" {
					resources[base] = loc
				}
			}
		}
		if a, ok := m["$anchor"].(string); ok {
			anchors[base+"#"+a] = loc
		}
		m["\x00base"] = base // removed below
		return walkSubschemas(m, loc, func(s any, l string) error { return collect(s, l, base) })
	}
	resources[docBase] = ""
	if err := collect(tr.t.root, "", docBase); err != nil {
		return err
	}
	var rewrite func(v any, loc string) error
	rewrite = func(v any, loc string) error {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		base, _ := m["\x00base"].(string)
		delete(m, "\x00base")
		if raw, ok := m["$ref"]; ok {
			ref, ok := raw.(string)
			if !ok {
				return kiterr.New(kiterr.SchemaInvalid, "%s schema %s: $ref is %s, want a string", tr.name, show(tr.t.origPointer(loc)), jsonKind(raw))
			}
			ptr, err := tr.resolve(ref, base, resources, anchors, loc)
			if err != nil {
				return err
			}
			m["$ref"] = "#" + strings.ReplaceAll(ptr, "%", "%25")
		}
		return walkSubschemas(m, loc, rewrite)
	}
	return rewrite(tr.t.root, "")
}

func (tr *translator) resolve(ref, base string, resources, anchors map[string]string, loc string) (string, error) {
	at := show(tr.t.origPointer(loc))
	b, err := url.Parse(base)
	if err != nil {
		return "", kiterr.Wrap(kiterr.SchemaInvalid, err, "%s schema %s: base", tr.name, at)
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", kiterr.Wrap(kiterr.SchemaInvalid, err, "%s schema %s: $ref %q", tr.name, at, ref)
	}
	abs := b.ResolveReference(r)
	frag := r.Fragment
	if r.RawFragment != "" {
		frag, _ = url.PathUnescape(r.RawFragment)
	}
	abs.Fragment, abs.RawFragment = "", ""
	resLoc, ok := resources[abs.String()]
	if !ok {
		return "", kiterr.New(kiterr.SchemaRefRemote, "%s schema %s: $ref %q is not local (only pointers and anchors inside the document are resolved, never fetched)", tr.name, at, ref)
	}
	if frag == "" || strings.HasPrefix(frag, "/") {
		return resLoc + frag, nil
	}
	if p, ok := anchors[abs.String()+"#"+frag]; ok {
		return p, nil
	}
	return "", kiterr.New(kiterr.SchemaInvalid, "%s schema %s: $ref %q names an anchor that no $anchor or $id declares", tr.name, at, ref)
}

// walkSubschemas calls f on every direct subschema of the schema object m.
func walkSubschemas(m map[string]any, loc string, f func(v any, loc string) error) error {
	// the keywords that hold subschemas, in name order (sorting only
	// those: an object with hundreds of members holds a few)
	keys := make([]string, 0, 4)
	for k := range m {
		if schemaMapKeywords[k] || schemaArrayKeywords[k] || schemaKeywords[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		e := m[k]
		switch {
		case schemaMapKeywords[k] || k == "dependentRequired":
			if k == "dependentRequired" {
				continue
			}
			mm, _ := e.(map[string]any)
			for _, name := range sortedKeys(mm) {
				if err := f(mm[name], child(loc, k, name)); err != nil {
					return err
				}
			}
		case schemaArrayKeywords[k]:
			arr, _ := e.([]any)
			for i, s := range arr {
				if err := f(s, child(loc, k, strconv.Itoa(i))); err != nil {
					return err
				}
			}
		case schemaKeywords[k]:
			if err := f(e, child(loc, k)); err != nil {
				return err
			}
		}
	}
	return nil
}
