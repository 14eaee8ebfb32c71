package schema

import (
	"reflect"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// dispatch is a shortcut for a schema that is a oneOf over branches each
// pinning one object member to a string const, like control.v1.json's root
// Message: {"oneOf": [ControlRequest, ControlResponse, ...]}, where each
// branch says "type": {"const": "control_request"} and so on. Validating
// such a schema evaluates every branch, and the branches that cannot match
// (their const differs from the instance's member) build error trees that
// are thrown away; profiles put that at about 30% of validating a frame
// (bench/README.md).
//
// The shortcut only ever decides "valid": for an object instance whose key
// member is a string, branches whose const differs from it are certainly
// invalid (the properties keyword applies to a present member), so the
// oneOf holds exactly when exactly one of the other branches is valid. If
// that count is not one, or the instance has no such member, the whole
// schema is validated as usual, so violations are always the library's own.
//
// A dispatch is built only when that reasoning is sound for the compiled
// schema (see newDispatch): the root and every node of its $ref chain carry
// no assertion but $ref and, on the last node, oneOf; and nothing reachable
// from a branch uses $dynamicRef or $recursiveRef, whose resolution could
// differ when a branch is validated on its own.
type dispatch struct {
	key      string
	branches []*jsonschema.Schema
	// consts[i] is branch i's const for key; nil when branch i has none
	// (it is then always evaluated).
	consts []*string
}

// valid reports (true, true) when v is certainly valid against the schema
// the dispatch was built for, and (false, false) when it cannot tell.
func (d *dispatch) valid(v any) (valid, decided bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return false, false
	}
	val, ok := obj[d.key].(string)
	if !ok {
		return false, false
	}
	n := 0
	for i, b := range d.branches {
		if c := d.consts[i]; c != nil && *c != val {
			continue // its const fails: certainly invalid
		}
		if b.Validate(v) == nil {
			n++
		}
	}
	return n == 1, n == 1
}

// newDispatch returns the dispatch for root, or nil when root is not a
// pure oneOf (behind $ref only) whose branches share a member pinned to
// distinct string consts.
func newDispatch(root *jsonschema.Schema) *dispatch {
	n := root
	for seen := 0; n.Ref != nil; seen++ {
		if seen > 32 || !pure(n, "Ref") {
			return nil
		}
		n = n.Ref
	}
	if len(n.OneOf) < 2 || !pure(n, "OneOf") {
		return nil
	}
	for _, b := range n.OneOf {
		if usesDynamicRef(b) {
			return nil
		}
	}
	// The key: a member every branch pins to a string const.
	var keys []string
	for k := range pinned(n.OneOf[0]) {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		d := &dispatch{key: k, branches: n.OneOf, consts: make([]*string, len(n.OneOf))}
		distinct := map[string]bool{}
		for i, b := range n.OneOf {
			if c, ok := pinned(b)[k]; ok {
				d.consts[i] = &c
				distinct[c] = true
			}
		}
		if len(distinct) >= 2 {
			return d
		}
	}
	return nil
}

// pinned returns the members a schema pins to a string const through
// "properties": {"<k>": {"const": "<string>"}}, on the schema itself or on
// any node of its $ref chain (all of which apply).
func pinned(s *jsonschema.Schema) map[string]string {
	out := map[string]string{}
	for seen := 0; s != nil && seen <= 32; seen++ {
		for k, p := range s.Properties {
			if p != nil && p.Const != nil {
				if c, ok := (*p.Const).(string); ok {
					if prev, dup := out[k]; dup && prev != c {
						out[k] = "" // contradictory: never matches; leave it to the library
						continue
					}
					out[k] = c
				}
			}
		}
		s = s.Ref
	}
	for k, c := range out {
		if c == "" {
			delete(out, k)
		}
	}
	return out
}

// annotations are the exported fields of jsonschema.Schema that assert
// nothing about an instance.
var annotations = map[string]bool{
	"DraftVersion": true, "Location": true, "ID": true, "Anchor": true,
	"DynamicAnchor": true, "RecursiveAnchor": true, "Title": true,
	"Description": true, "Default": true, "Comment": true, "ReadOnly": true,
	"WriteOnly": true, "Examples": true, "Deprecated": true,
}

// pure reports whether s sets no exported field but annotations and the
// one field named allowed. Fields the library adds later count as
// assertions, so a newer library can only disable the shortcut.
func pure(s *jsonschema.Schema, allowed string) bool {
	v := reflect.ValueOf(s).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || annotations[f.Name] || f.Name == allowed {
			continue
		}
		if !v.Field(i).IsZero() {
			return false
		}
	}
	return true
}

// usesDynamicRef reports whether any schema reachable from s sets
// DynamicRef or RecursiveRef.
func usesDynamicRef(s *jsonschema.Schema) bool {
	seen := map[*jsonschema.Schema]bool{}
	var walk func(reflect.Value) bool
	schemaType := reflect.TypeFor[*jsonschema.Schema]()
	walk = func(v reflect.Value) bool {
		switch v.Kind() {
		case reflect.Interface:
			if v.IsNil() {
				return false
			}
			return walk(v.Elem())
		case reflect.Pointer:
			if v.IsNil() {
				return false
			}
			if v.Type() == schemaType {
				s := v.Interface().(*jsonschema.Schema)
				if seen[s] {
					return false
				}
				seen[s] = true
				if s.DynamicRef != nil || s.RecursiveRef != nil {
					return true
				}
				e := v.Elem()
				for i := range e.NumField() {
					if e.Type().Field(i).IsExported() && walk(e.Field(i)) {
						return true
					}
				}
			}
			return false
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				if walk(v.Index(i)) {
					return true
				}
			}
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				if walk(it.Value()) {
					return true
				}
			}
		}
		return false
	}
	return walk(reflect.ValueOf(s))
}
