package schema

import (
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Declares reports whether the schema declares the member name on the
// object found at the instance location at (RFC 6901 reference tokens,
// unescaped; empty for the root), looking through every subschema that can
// apply there: $ref, $dynamicRef, allOf, anyOf, oneOf, if/then/else and
// dependentSchemas, whichever branch the instance takes. A member is declared
// when some such subschema names it in properties, matches it with
// patternProperties, or constrains it through additionalProperties or
// unevaluatedProperties (anything but true). The union over branches makes
// the answer conservative: a member any branch gives a meaning counts as
// declared.
//
// The conformance comparison (internal/compare) uses it to tell a member a
// writer may add to an open object (undeclared: readers ignore it) from one
// that carries meaning (declared: adding it changes what the frame says).
func (sch *Schema) Declares(at []string, name string) bool {
	for _, n := range sch.at.schemas(sch.graph, at) {
		if _, ok := n.Properties[name]; ok {
			return true
		}
		for re := range n.PatternProperties {
			if re.MatchString(name) {
				return true
			}
		}
		if constrains(n.AdditionalProperties) || (n.UnevaluatedProperties != nil && !isTrue(n.UnevaluatedProperties)) {
			return true
		}
	}
	return false
}

// locations caches, per instance location, the subschemas that apply there
// (expand along its reference tokens): the comparison asks Declares once
// for every member of an object, and an object of many members would
// otherwise walk the schema again for each (issue 22: 1,000,000 members
// took 70 s and most of 1.28 GB). At most maxLocations are kept, then the
// cache starts again, so its memory is bounded whatever the instance.
type locations struct {
	mu sync.Mutex
	m  map[string][]*jsonschema.Schema
}

// maxLocations bounds the locations a cache keeps.
const maxLocations = 1024

// schemas returns the subschemas that apply at the location at of an
// instance of root (nil when none does).
func (l *locations) schemas(root *jsonschema.Schema, at []string) []*jsonschema.Schema {
	key := strings.Join(at, "\x00")
	if l != nil {
		l.mu.Lock()
		nodes, ok := l.m[key]
		l.mu.Unlock()
		if ok {
			return nodes
		}
	}
	nodes := expand([]*jsonschema.Schema{root})
	for _, tok := range at {
		if nodes = expand(memberSchemas(nodes, tok)); len(nodes) == 0 {
			break
		}
	}
	if l != nil {
		l.mu.Lock()
		if l.m == nil || len(l.m) >= maxLocations {
			l.m = map[string][]*jsonschema.Schema{}
		}
		l.m[key] = nodes
		l.mu.Unlock()
	}
	return nodes
}

// expand returns nodes and every subschema that applies at the same instance
// location through an applicator, each once.
func expand(nodes []*jsonschema.Schema) []*jsonschema.Schema {
	seen := map[*jsonschema.Schema]bool{}
	var out []*jsonschema.Schema
	var visit func(n *jsonschema.Schema)
	visit = func(n *jsonschema.Schema) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		out = append(out, n)
		visit(n.Ref)
		visit(n.RecursiveRef)
		if n.DynamicRef != nil {
			visit(n.DynamicRef.Ref)
		}
		for _, s := range n.AllOf {
			visit(s)
		}
		for _, s := range n.AnyOf {
			visit(s)
		}
		for _, s := range n.OneOf {
			visit(s)
		}
		visit(n.If)
		visit(n.Then)
		visit(n.Else)
		for _, s := range n.DependentSchemas {
			visit(s)
		}
	}
	for _, n := range nodes {
		visit(n)
	}
	return out
}

// memberSchemas returns the subschemas that apply to the member or item tok of
// an instance that nodes apply to.
func memberSchemas(nodes []*jsonschema.Schema, tok string) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	idx, err := strconv.Atoi(tok)
	isIndex := err == nil && idx >= 0
	for _, n := range nodes {
		matched := false
		if s, ok := n.Properties[tok]; ok {
			out, matched = append(out, s), true
		}
		for re, s := range n.PatternProperties {
			if re.MatchString(tok) {
				out, matched = append(out, s), true
			}
		}
		if s, ok := n.AdditionalProperties.(*jsonschema.Schema); ok && !matched {
			out = append(out, s)
		}
		if !isIndex {
			continue
		}
		if idx < len(n.PrefixItems) {
			out = append(out, n.PrefixItems[idx])
		} else if n.Items2020 != nil {
			out = append(out, n.Items2020)
		}
		switch items := n.Items.(type) {
		case *jsonschema.Schema:
			out = append(out, items)
		case []*jsonschema.Schema:
			if idx < len(items) {
				out = append(out, items[idx])
			} else if s, ok := n.AdditionalItems.(*jsonschema.Schema); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// constrains reports whether an additionalProperties value restricts members
// (false, or a schema other than true).
func constrains(ap any) bool {
	switch v := ap.(type) {
	case bool:
		return !v
	case *jsonschema.Schema:
		return !isTrue(v)
	}
	return false
}

func isTrue(s *jsonschema.Schema) bool { return s.Bool != nil && *s.Bool }
