package schema

import (
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/conform-kit/conform/internal/kiterr"
)

// refCycle returns the subschemas of an in-place cycle reachable from root
// (a schema that reaches itself through $ref, allOf, anyOf, oneOf, not,
// if, then, else or dependentSchemas without descending into the
// instance: see children), in the order the cycle takes, or nil when there
// is none. Every instance that reaches such a cycle makes the library
// report a "reference cycle" violation: the fault is the suite's, whatever
// the instance (issue 33: a $ref cycle across two suite schemas was
// reported as SCHEMA_VIOLATION of the IUT's reply).
func refCycle(root *jsonschema.Schema) []*jsonschema.Schema {
	const (
		white = iota
		grey
		black
	)
	color := map[*jsonschema.Schema]int{}
	var stack []*jsonschema.Schema
	var found []*jsonschema.Schema
	var visit func(s *jsonschema.Schema) bool
	visit = func(s *jsonschema.Schema) bool {
		color[s] = grey
		stack = append(stack, s)
		inPlace, descend := children(s)
		for _, c := range inPlace {
			switch color[c] {
			case grey:
				for i, x := range stack {
					if x == c {
						found = append([]*jsonschema.Schema(nil), stack[i:]...)
						return true
					}
				}
			case white:
				if visit(c) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		// A descendant starts a new in-place chain: the instance is
		// another one, so reaching s again there is no cycle.
		color[s] = black
		for _, c := range descend {
			if color[c] == white {
				saved := stack
				stack = nil
				if visit(c) {
					return true
				}
				stack = saved
			}
		}
		return false
	}
	if visit(root) {
		return found
	}
	return nil
}

// checkCycle refuses the schema compiled from loc when an in-place cycle
// is reachable from its root g. Errors: SCHEMA_REF_CYCLE, naming the
// cycle's locations (suite-relative).
func (s *Set) checkCycle(g *jsonschema.Schema, loc string) error {
	cyc := refCycle(g)
	if cyc == nil {
		return nil
	}
	names := make([]string, 0, len(cyc)+1)
	for _, n := range append(cyc, cyc[0]) {
		names = append(names, s.locationOf(n))
	}
	return kiterr.New(kiterr.SchemaRefCycle, "compile %s: the schema reaches itself without descending into the instance (every instance that reaches it loops): %s", loc, strings.Join(names, " -> "))
}

// locationOf names the subschema n, suite-relative where it can.
func (s *Set) locationOf(n *jsonschema.Schema) string {
	u := n.Location
	if u == "" && s.direct != nil {
		if l, ok := s.direct.locs[n]; ok {
			u = l.u + "#" + l.ptr
		}
	}
	if u == "" {
		return "(a subschema)"
	}
	return strings.TrimPrefix(u, s.base)
}
