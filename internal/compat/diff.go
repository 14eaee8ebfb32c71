package compat

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
)

// comparer holds the state of one [Compare] call.
type comparer struct {
	ctx      context.Context
	opt      Options
	filter   Breaks
	rules    map[string]Rule
	old, new *doc
	seen     map[string]bool // location pairs already compared
	findings []Finding
	meta     []findingMeta // parallel to findings
	err      error
	e        *engine
	// subj is the pair of schemas the findings being added are about (the
	// pair a semantic check compares); pin > 0 keeps it while descending
	// into positions whose meaning depends on the parent (oneOf branches,
	// then/else).
	subj    [2]string
	cur     [2]string // the pair being compared (never pinned)
	pin     int
	checked map[string]outcome // semantic checks per subject pair and direction
	// overlaps: oneOf lists whose branches changed, checked for overlap
	overlaps []overlapCandidate
}

func pairKey(a, b string) string { return a + "\x00" + b }

func child(loc string, tokens ...string) string {
	for _, t := range tokens {
		loc += "/" + canon.EscapePointer(t)
	}
	return loc
}

// asMap returns the keywords of a schema; true is {}; false reports isFalse.
func asMap(v any) (m map[string]any, isFalse bool) {
	switch v := v.(type) {
	case map[string]any:
		return v, false
	case bool:
		return map[string]any{}, !v
	}
	return map[string]any{}, false
}

// schema compares the schema o at oLoc (old document) with n at nLoc (new
// document). disc says the schemas are those of a property required on both
// sides (a const there is a discriminator).
func (c *comparer) schema(o any, oLoc string, n any, nLoc string, disc bool) {
	if c.err != nil {
		return
	}
	if c.e.stop() {
		c.err = c.e.err
		return
	}
	saved, savedCur := c.subj, c.cur
	defer func() { c.subj, c.cur = saved, savedCur }()
	if om, ok := o.(map[string]any); ok && isRefOnly(om) {
		if nm, ok := n.(map[string]any); ok && isRefOnly(nm) && om["$ref"] != nm["$ref"] {
			ot, otl := c.old.deref(o, oLoc)
			nt, ntl := c.new.deref(n, nLoc)
			if !c.same(ot, otl, nt, ntl) {
				c.add("REF_RETARGETED", nLoc, false, "$ref was retargeted from %q to %q and the resolved schemas differ", om["$ref"], nm["$ref"])
			}
		}
	}
	o, oLoc = c.old.deref(o, oLoc)
	n, nLoc = c.new.deref(n, nLoc)
	key := pairKey(oLoc, nLoc)
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	if c.same(o, oLoc, n, nLoc) {
		return // equal schemas (annotations aside): nothing below can differ
	}
	c.cur = [2]string{oLoc, nLoc}
	if c.pin == 0 {
		c.subj = c.cur
	}

	om, oFalse := asMap(o)
	nm, nFalse := asMap(n)
	if !oFalse && !nFalse && c.wrapper(om, oLoc, nm, nLoc) {
		return
	}
	switch {
	case oFalse && nFalse:
		return
	case oFalse:
		c.add("TYPE_WIDENED", nLoc, false, "schema false (nothing accepted) was replaced by a schema that accepts values")
		return
	case nFalse:
		c.add("TYPE_NARROWED", nLoc, false, "schema was replaced by false (nothing accepted)")
		return
	}
	c.types(om, nm, nLoc)
	c.values(om, nm, nLoc, disc)
	c.bounds(om, nm, nLoc)
	c.strings(om, nm, nLoc)
	c.object(om, oLoc, nm, nLoc)
	c.arrays(om, oLoc, nm, nLoc)
	c.combinators(om, oLoc, nm, nLoc)
	c.conjuncts(om, oLoc, nm, nLoc)
	c.conditional(om, oLoc, nm, nLoc)
	c.generic(om, oLoc, nm, nLoc)
}

// defs compares the $defs (and legacy definitions) of two raw schemas.
func (c *comparer) defs(o any, oLoc string, n any, nLoc string) {
	om, _ := o.(map[string]any)
	nm, _ := n.(map[string]any)
	for _, kw := range []string{"$defs", "definitions"} {
		od, _ := om[kw].(map[string]any)
		nd, _ := nm[kw].(map[string]any)
		if od == nil && nd == nil {
			continue
		}
		key := "defs:" + kw + ":" + pairKey(oLoc, nLoc)
		if c.seen[key] {
			continue
		}
		c.seen[key] = true
		for _, name := range union(od, nd) {
			ov, inO := od[name]
			nv, inN := nd[name]
			switch {
			case inO && inN:
				c.schema(ov, child(oLoc, kw, name), nv, child(nLoc, kw, name), false)
			case inO:
				if c.old.refTargets[child(oLoc, kw, name)] {
					// used by the document itself: its meaning is compared
					// where it was used; only pointer users outside lose it
					c.addOld("DEFINITION_REMOVED", child(oLoc, kw, name), true, "definition %q was removed; the document's own references to it are compared where they were", name)
				} else {
					c.addOld("DEFINITION_REMOVED", child(oLoc, kw, name), false, "definition %q was removed", name)
				}
			default:
				c.add("DEFINITION_ADDED", child(nLoc, kw, name), false, "definition %q was added", name)
			}
		}
	}
}

// typeSet returns the type keyword as a set; ok is false when it is absent.
func typeSet(m map[string]any) (set map[string]bool, ok bool) {
	switch t := m["type"].(type) {
	case string:
		return map[string]bool{t: true}, true
	case []any:
		set = map[string]bool{}
		for _, e := range t {
			if s, ok := e.(string); ok {
				set[s] = true
			}
		}
		return set, true
	}
	return nil, false
}

func covers(set map[string]bool, t string) bool {
	return set[t] || (t == "integer" && set["number"])
}

func coversAll(set map[string]bool) bool {
	for _, t := range []string{"null", "boolean", "object", "array", "number", "string"} {
		if !covers(set, t) {
			return false
		}
	}
	return true
}

func joinTypes(set map[string]bool, withNull bool) string {
	var ts []string
	for _, t := range sortedKeys(set) {
		if t != "null" || withNull {
			ts = append(ts, t)
		}
	}
	return strings.Join(ts, ",")
}

func (c *comparer) types(om, nm map[string]any, ptr string) {
	ot, oOK := typeSet(om)
	nt, nOK := typeSet(nm)
	switch {
	case !oOK && !nOK:
		return
	case !oOK:
		if !coversAll(nt) {
			c.add("TYPE_NARROWED", ptr, false, "type %q was added", joinTypes(nt, true))
		}
		return
	case !nOK:
		if !coversAll(ot) {
			c.add("TYPE_WIDENED", ptr, false, "type %q was removed", joinTypes(ot, true))
		}
		return
	}
	if ot["null"] != nt["null"] {
		if nt["null"] {
			c.add("NULLABLE_ADDED", ptr, false, "type %q became nullable", joinTypes(ot, false))
		} else {
			c.add("NULLABLE_REMOVED", ptr, false, "type %q stopped accepting null", joinTypes(nt, false))
		}
	}
	widened, narrowed := false, false
	for t := range nt {
		if t != "null" && !covers(ot, t) {
			widened = true
		}
	}
	for t := range ot {
		if t != "null" && !covers(nt, t) {
			narrowed = true
		}
	}
	from, to := joinTypes(ot, false), joinTypes(nt, false)
	switch {
	case widened && narrowed:
		c.add("TYPE_CHANGED", ptr, false, "type changed from %q to %q", from, to)
	case widened:
		c.add("TYPE_WIDENED", ptr, false, "type widened from %q to %q", from, to)
	case narrowed:
		c.add("TYPE_NARROWED", ptr, false, "type narrowed from %q to %q", from, to)
	}
}

// jsonText is the RFC 8785 text of an instance value, for set keys and
// messages.
func jsonText(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		if v {
			return "true"
		}
		return "false"
	case string:
		if plainString(v) {
			return `"` + v + `"` // what canon would write: nothing to escape
		}
	case json.Number:
		if plainInteger(string(v)) {
			return string(v)
		}
	}
	b, err := canon.Canonical(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// plainString reports whether s has no character RFC 8785 escapes.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// plainInteger reports whether s is an integer literal RFC 8785 writes as
// it is: an optional minus, no leading zero, at most 15 digits (exact in
// binary64), not "-0".
func plainInteger(s string) bool {
	d := strings.TrimPrefix(s, "-")
	if d == "" || len(d) > 15 || (len(d) > 1 && d[0] == '0') || s == "-0" {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// valueSet returns const as a one-value set, else enum as a set, keyed by
// canonical text; ok is false when neither is present.
func valueSet(m map[string]any) (set map[string]bool, ok bool) {
	if v, ok := m["const"]; ok {
		return map[string]bool{jsonText(v): true}, true
	}
	if e, ok := m["enum"].([]any); ok {
		set = map[string]bool{}
		for _, v := range e {
			set[jsonText(v)] = true
		}
		return set, true
	}
	return nil, false
}

func (c *comparer) values(om, nm map[string]any, ptr string, disc bool) {
	oc, ocOK := om["const"]
	nc, ncOK := nm["const"]
	os, oOK := valueSet(om)
	ns, nOK := valueSet(nm)
	switch {
	case ocOK && ncOK:
		if a, b := jsonText(oc), jsonText(nc); a != b {
			rule := "CONST_CHANGED"
			if disc {
				rule = "DISCRIMINATOR_CHANGED"
			}
			c.add(rule, ptr, false, "const changed from %s to %s", a, b)
		}
		return
	case !oOK && !nOK:
		return
	case !oOK && ncOK:
		c.add("CONST_ADDED", ptr, false, "const %s was added", jsonText(nc))
		return
	case !oOK:
		c.add("ENUM_ADDED", ptr, false, "enum %s was added", jsonText(nm["enum"]))
		return
	case !nOK && ocOK:
		c.add("CONST_REMOVED", ptr, false, "const %s was removed", jsonText(oc))
		return
	case !nOK:
		c.add("ENUM_REMOVED", ptr, false, "enum %s was removed", jsonText(om["enum"]))
		return
	}
	for _, v := range sortedKeys(ns) {
		if !os[v] {
			c.add("ENUM_VALUE_ADDED", ptr, c.opt.EnumAddedAdditive, "enum value %s was added", v)
		}
	}
	for _, v := range sortedKeys(os) {
		if !ns[v] {
			c.add("ENUM_VALUE_REMOVED", ptr, false, "enum value %s was removed", v)
		}
	}
}

// rat returns a JSON number as an exact rational.
func rat(v any) (*big.Rat, bool) {
	switch v := v.(type) {
	case json.Number:
		return new(big.Rat).SetString(string(v))
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(v) == nil {
			return nil, false
		}
		return r, true
	case int:
		return new(big.Rat).SetInt64(int64(v)), true
	}
	return nil, false
}

func (c *comparer) bounds(om, nm map[string]any, ptr string) {
	for _, b := range []struct {
		kw  string
		min bool // a larger value is tighter
	}{
		{"minimum", true}, {"exclusiveMinimum", true}, {"minLength", true}, {"minItems", true},
		{"minProperties", true}, {"minContains", true},
		{"maximum", false}, {"exclusiveMaximum", false}, {"maxLength", false}, {"maxItems", false},
		{"maxProperties", false}, {"maxContains", false},
	} {
		ov, oOK := rat(om[b.kw])
		nv, nOK := rat(nm[b.kw])
		switch {
		case !oOK && !nOK:
		case !nOK:
			c.add("BOUND_LOOSENED", ptr, false, "%s %v was removed", b.kw, om[b.kw])
		case !oOK:
			c.add("BOUND_TIGHTENED", ptr, false, "%s %v was added", b.kw, nm[b.kw])
		default:
			d := nv.Cmp(ov)
			if d == 0 {
				continue
			}
			if (d > 0) == b.min {
				c.add("BOUND_TIGHTENED", ptr, false, "%s tightened from %v to %v", b.kw, om[b.kw], nm[b.kw])
			} else {
				c.add("BOUND_LOOSENED", ptr, false, "%s loosened from %v to %v", b.kw, om[b.kw], nm[b.kw])
			}
		}
	}
	ov, oOK := rat(om["multipleOf"])
	nv, nOK := rat(nm["multipleOf"])
	switch {
	case !oOK && !nOK:
	case !nOK:
		c.add("BOUND_LOOSENED", ptr, false, "multipleOf %v was removed", om["multipleOf"])
	case !oOK:
		c.add("BOUND_TIGHTENED", ptr, false, "multipleOf %v was added", nm["multipleOf"])
	case ov.Cmp(nv) == 0 || ov.Sign() == 0 || nv.Sign() == 0:
	case new(big.Rat).Quo(nv, ov).IsInt():
		c.add("BOUND_TIGHTENED", ptr, false, "multipleOf tightened from %v to %v", om["multipleOf"], nm["multipleOf"])
	case new(big.Rat).Quo(ov, nv).IsInt():
		c.add("BOUND_LOOSENED", ptr, false, "multipleOf loosened from %v to %v", om["multipleOf"], nm["multipleOf"])
	default:
		c.add("BOUND_CHANGED", ptr, false, "multipleOf changed from %v to %v", om["multipleOf"], nm["multipleOf"])
	}
	ou, nu := om["uniqueItems"] == true, nm["uniqueItems"] == true
	switch {
	case nu && !ou:
		c.add("BOUND_TIGHTENED", ptr, false, "uniqueItems was set")
	case ou && !nu:
		c.add("BOUND_LOOSENED", ptr, false, "uniqueItems was unset")
	}
}

func (c *comparer) strings(om, nm map[string]any, ptr string) {
	for _, kw := range []string{"pattern", "format"} {
		ov, oOK := om[kw].(string)
		nv, nOK := nm[kw].(string)
		soft := kw == "format" && c.opt.FormatAnnotation
		prefix := strings.ToUpper(kw)
		switch {
		case !oOK && !nOK, ov == nv:
		case !nOK:
			c.add(prefix+"_REMOVED", ptr, soft, "%s %q was removed", kw, ov)
		case !oOK:
			c.add(prefix+"_ADDED", ptr, soft, "%s %q was added", kw, nv)
		default:
			c.add(prefix+"_CHANGED", ptr, soft, "%s changed from %q to %q", kw, ov, nv)
		}
	}
}

// Openness of an object to members its properties do not name.
const (
	open = iota
	closed
	partial
)

// state classifies an additionalProperties-like keyword value.
func state(d *doc, v any, present bool, loc string) int {
	if !present {
		return open
	}
	v, _ = d.deref(v, loc)
	switch {
	case v == false:
		return closed
	case d.trivial(v, loc):
		return open
	}
	return partial
}

func stateName(s int) string {
	switch s {
	case closed:
		return "closed"
	case partial:
		return "a schema"
	}
	return "open"
}

// fallback returns what governs member name of object m when properties
// does not name it: a matching patternProperties entry (Go regexp syntax,
// first in key order), additionalProperties, then unevaluatedProperties.
func fallback(d *doc, m map[string]any, loc, name string) (schema any, sloc string, kind int) {
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		for _, pat := range sortedKeys(pp) {
			if re, err := regexp.Compile(pat); err == nil && re.MatchString(name) {
				return pp[pat], child(loc, "patternProperties", pat), partial
			}
		}
	}
	for _, kw := range []string{"additionalProperties", "unevaluatedProperties"} {
		v, ok := m[kw]
		if !ok {
			continue
		}
		switch state(d, v, true, child(loc, kw)) {
		case closed:
			return nil, "", closed
		case partial:
			return v, child(loc, kw), partial
		}
		return nil, "", open
	}
	return nil, "", open
}

func stringSet(v any) map[string]bool {
	set := map[string]bool{}
	if a, ok := v.([]any); ok {
		for _, e := range a {
			if s, ok := e.(string); ok {
				set[s] = true
			}
		}
	}
	return set
}

func union[V any](a, b map[string]V) []string {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return sortedKeys(m)
}

func (c *comparer) object(om map[string]any, oLoc string, nm map[string]any, nLoc string) {
	op, _ := om["properties"].(map[string]any)
	np, _ := nm["properties"].(map[string]any)
	oReq, nReq := stringSet(om["required"]), stringSet(nm["required"])
	for _, name := range union(op, np) {
		ov, inO := op[name]
		nv, inN := np[name]
		optr, nptr := child(oLoc, "properties", name), child(nLoc, "properties", name)
		switch {
		case inO && inN:
			c.schema(ov, optr, nv, nptr, oReq[name] && nReq[name])
		case inN:
			fb, fbLoc, kind := fallback(c.old, om, oLoc, name)
			switch kind {
			case closed:
				c.add("PROPERTY_ADDED_CLOSED", nptr, false, "property %q was added to a closed object", name)
			case open:
				c.add("PROPERTY_ADDED_OPEN", nptr, !c.opt.StrictOpen || c.new.trivial(nv, nptr), "property %q was added to an open object", name)
			default:
				c.add("PROPERTY_ADDED_PARTIAL", nptr, false, "property %q was added where %q governed it before", name, show(fbLoc))
				c.schema(fb, fbLoc, nv, nptr, false)
			}
		default:
			fb, fbLoc, kind := fallback(c.new, nm, nLoc, name)
			switch kind {
			case closed:
				c.addOld("PROPERTY_REMOVED_CLOSED", optr, false, "property %q was removed from a closed object", name)
			case open:
				c.addOld("PROPERTY_REMOVED_OPEN", optr, !c.opt.StrictOpen || c.old.trivial(ov, optr), "property %q was removed from an open object", name)
			default:
				c.addOld("PROPERTY_REMOVED_PARTIAL", optr, false, "property %q was removed and %q governs it now", name, show(fbLoc))
				c.schema(ov, optr, fb, fbLoc, false)
			}
		}
	}
	for _, name := range sortedKeys(nReq) {
		if oReq[name] {
			continue
		}
		if pv, ok := np[name]; ok && c.new.hasDefault(pv, child(nLoc, "properties", name)) {
			c.add("REQUIRED_ADDED_WITH_DEFAULT", child(nLoc, "required"), c.opt.RequiredDefaultAdditive, "property %q became required (it has a default)", name)
		} else {
			c.add("REQUIRED_ADDED", child(nLoc, "required"), false, "property %q became required", name)
		}
	}
	for _, name := range sortedKeys(oReq) {
		if !nReq[name] {
			c.addOld("REQUIRED_REMOVED", child(oLoc, "required"), false, "property %q is no longer required", name)
		}
	}
	c.extra("additionalProperties", om, oLoc, nm, nLoc)
	c.extra("unevaluatedProperties", om, oLoc, nm, nLoc)

	opp, _ := om["patternProperties"].(map[string]any)
	npp, _ := nm["patternProperties"].(map[string]any)
	for _, pat := range union(opp, npp) {
		ov, inO := opp[pat]
		nv, inN := npp[pat]
		switch {
		case inO && inN:
			c.schema(ov, child(oLoc, "patternProperties", pat), nv, child(nLoc, "patternProperties", pat), false)
		case inN:
			c.add("PATTERN_PROPERTY_ADDED", child(nLoc, "patternProperties", pat), false, "patternProperties entry %q was added", pat)
		default:
			c.addOld("PATTERN_PROPERTY_REMOVED", child(oLoc, "patternProperties", pat), false, "patternProperties entry %q was removed", pat)
		}
	}

	odr, _ := om["dependentRequired"].(map[string]any)
	ndr, _ := nm["dependentRequired"].(map[string]any)
	for _, name := range union(odr, ndr) {
		os, ns := stringSet(odr[name]), stringSet(ndr[name])
		for _, dep := range sortedKeys(ns) {
			if !os[dep] {
				c.add("DEPENDENT_REQUIRED_ADDED", child(nLoc, "dependentRequired", name), false, "property %q became required when %q is present", dep, name)
			}
		}
		for _, dep := range sortedKeys(os) {
			if !ns[dep] {
				if _, ok := ndr[name]; !ok {
					c.addOld("DEPENDENT_REQUIRED_REMOVED", child(oLoc, "dependentRequired", name), false, "property %q is no longer required when %q is present", dep, name)
				} else {
					c.add("DEPENDENT_REQUIRED_REMOVED", child(nLoc, "dependentRequired", name), false, "property %q is no longer required when %q is present", dep, name)
				}
			}
		}
	}
}

// extra compares additionalProperties or unevaluatedProperties.
func (c *comparer) extra(kw string, om map[string]any, oLoc string, nm map[string]any, nLoc string) {
	ov, oOK := om[kw]
	nv, nOK := nm[kw]
	if !oOK && !nOK {
		return
	}
	oSub, nSub := child(oLoc, kw), child(nLoc, kw)
	os, ns := state(c.old, ov, oOK, oSub), state(c.new, nv, nOK, nSub)
	if os == partial && ns == partial {
		c.schema(ov, oSub, nv, nSub, false)
		return
	}
	if os == ns {
		return
	}
	ptr := nLoc
	if nOK {
		ptr = nSub
	}
	var rule string
	if kw == "additionalProperties" {
		switch {
		case ns == closed:
			rule = "ADDITIONAL_PROPERTIES_CLOSED"
		case os == closed && ns == open:
			rule = "ADDITIONAL_PROPERTIES_OPENED"
		case os == open:
			rule = "ADDITIONAL_PROPERTIES_NARROWED"
		default:
			rule = "ADDITIONAL_PROPERTIES_WIDENED"
		}
	} else {
		rule = "UNEVALUATED_PROPERTIES_OPENED"
		if ns == closed || os == open {
			rule = "UNEVALUATED_PROPERTIES_CLOSED"
		}
	}
	c.add(rule, ptr, false, "%s went from %s to %s", kw, stateName(os), stateName(ns))
}

func (c *comparer) arrays(om map[string]any, oLoc string, nm map[string]any, nLoc string) {
	op, _ := om["prefixItems"].([]any)
	np, _ := nm["prefixItems"].([]any)
	// beyond prefixItems an item falls to items, else to unevaluatedItems
	// (when nothing else evaluates it), else to anything
	rest := func(m map[string]any, loc string) (any, string) {
		if v, ok := m["items"]; ok {
			return v, child(loc, "items")
		}
		if v, ok := m["unevaluatedItems"]; ok && !hasInPlace(m) {
			return v, child(loc, "unevaluatedItems")
		}
		return true, child(loc, "items")
	}
	oi, oil := rest(om, oLoc)
	ni, nRestLoc := rest(nm, nLoc)
	for i := range max(len(op), len(np)) {
		os, osl := oi, oil
		if i < len(op) {
			os, osl = op[i], child(oLoc, "prefixItems", strconv.Itoa(i))
		}
		ns, nsl := ni, nRestLoc
		if i < len(np) {
			ns, nsl = np[i], child(nLoc, "prefixItems", strconv.Itoa(i))
		}
		c.schema(os, osl, ns, nsl, false)
	}
	for _, kw := range []string{"items", "additionalItems", "unevaluatedItems"} {
		ov, oOK := om[kw]
		nv, nOK := nm[kw]
		if !oOK && !nOK {
			continue
		}
		if !oOK {
			ov = true
		}
		if !nOK {
			nv = true
		}
		c.schema(ov, child(oLoc, kw), nv, child(nLoc, kw), false)
	}
}

func (c *comparer) combinators(om map[string]any, oLoc string, nm map[string]any, nLoc string) {
	var oOnly, nOnly []string
	for _, kw := range []string{"anyOf", "oneOf"} {
		_, oOK := om[kw].([]any)
		_, nOK := nm[kw].([]any)
		switch {
		case oOK && nOK:
			c.branches(om[kw], child(oLoc, kw), nm[kw], child(nLoc, kw))
		case oOK:
			oOnly = append(oOnly, kw)
		case nOK:
			nOnly = append(nOnly, kw)
		}
	}
	if len(oOnly) == 1 && len(nOnly) == 1 {
		c.add("COMBINATOR_CHANGED", child(nLoc, nOnly[0]), false, "combinator changed from %q to %q", oOnly[0], nOnly[0])
		c.branches(om[oOnly[0]], child(oLoc, oOnly[0]), nm[nOnly[0]], child(nLoc, nOnly[0]))
		return
	}
	for _, kw := range oOnly {
		c.addOld("COMBINATOR_CHANGED", child(oLoc, kw), false, "combinator %q was removed", kw)
	}
	for _, kw := range nOnly {
		c.add("COMBINATOR_CHANGED", child(nLoc, kw), false, "combinator %q was added", kw)
	}
}

// branches compares the anyOf/oneOf lists at oBase and nBase. Findings
// inside a branch are about the schema holding the list (pinned subject):
// whether a changed branch breaks depends on the other branches (a value
// may match another one, or two of a oneOf).
func (c *comparer) branches(o any, oBase string, n any, nBase string) {
	ol, _ := o.([]any)
	nl, _ := n.([]any)
	pairs, oRest, nRest := c.pair(ol, oBase, nl, nBase)
	before := len(c.findings)
	c.pin++
	for _, p := range pairs {
		c.schema(ol[p[0]], child(oBase, strconv.Itoa(p[0])), nl[p[1]], child(nBase, strconv.Itoa(p[1])), false)
	}
	c.pin--
	if strings.HasSuffix(nBase, "/oneOf") && (len(c.findings) > before || len(nRest) > 0) {
		c.overlaps = append(c.overlaps, overlapCandidate{subj: c.subj, oneOf: nBase})
	}
	for _, i := range nRest {
		ptr := child(nBase, strconv.Itoa(i))
		if c.new.isNull(nl[i], ptr) {
			c.add("NULLABLE_ADDED", ptr, false, "branch %d accepting null was added", i)
		} else {
			c.add("BRANCH_ADDED", ptr, false, "branch %d was added", i)
		}
	}
	for _, j := range oRest {
		ptr := child(oBase, strconv.Itoa(j))
		if c.old.isNull(ol[j], ptr) {
			c.addOld("NULLABLE_REMOVED", ptr, false, "branch %d accepting null was removed", j)
		} else {
			c.addOld("BRANCH_REMOVED", ptr, false, "branch %d was removed", j)
		}
	}
}

// pair matches entries of two schema lists: equal schemas first, then the
// same $ref, then conditionals with the same if, then the same
// discriminator (consts of properties), then by order when as many remain
// on both sides. It returns the [old, new] index pairs and the indexes
// left unmatched, in order.
func (c *comparer) pair(ol []any, oBase string, nl []any, nBase string) (pairs [][2]int, oRest, nRest []int) {
	usedO, usedN := make([]bool, len(ol)), make([]bool, len(nl))
	oLoc := func(j int) string { return child(oBase, strconv.Itoa(j)) }
	nLoc := func(i int) string { return child(nBase, strconv.Itoa(i)) }
	match := func(eq func(j, i int) bool) {
		for i := range nl {
			if usedN[i] {
				continue
			}
			for j := range ol {
				if !usedO[j] && eq(j, i) {
					usedO[j], usedN[i] = true, true
					pairs = append(pairs, [2]int{j, i})
					break
				}
			}
		}
	}
	if small := len(ol)*len(nl) <= 4096; !small {
		// long lists: pair by keys in maps (equal text, same $ref, same
		// discriminator), never all pairs
		c.pairByKeys(ol, oLoc, nl, nLoc, usedO, usedN, &pairs)
	} else {
		match(func(j, i int) bool { return c.same(ol[j], oLoc(j), nl[i], nLoc(i)) })
		match(func(j, i int) bool {
			or, _ := refOf(ol[j])
			nr, _ := refOf(nl[i])
			return or != "" && or == nr
		})
		match(func(j, i int) bool {
			oif, ok1 := c.old.conditionalIf(ol[j], oLoc(j))
			nif, ok2 := c.new.conditionalIf(nl[i], nLoc(i))
			return ok1 && ok2 && c.same(oif.v, oif.loc, nif.v, nif.loc)
		})
		match(func(j, i int) bool {
			od := c.old.discriminator(ol[j], oLoc(j))
			return od != "" && od == c.new.discriminator(nl[i], nLoc(i))
		})
	}
	// by content: one side proven to contain the other (small lists only)
	if left := (len(ol) - len(pairs)) * (len(nl) - len(pairs)); left > 0 && left <= 256 {
		match(func(j, i int) bool {
			o, n := sref{d: c.old, v: ol[j], loc: oLoc(j)}, sref{d: c.new, v: nl[i], loc: nLoc(i)}
			return c.e.prove(conj{atoms: []sref{o}}, n) || c.e.prove(conj{atoms: []sref{n}}, o)
		})
	}
	for j := range ol {
		if !usedO[j] {
			oRest = append(oRest, j)
		}
	}
	for i := range nl {
		if !usedN[i] {
			nRest = append(nRest, i)
		}
	}
	if len(oRest) == len(nRest) {
		for k := range oRest {
			pairs = append(pairs, [2]int{oRest[k], nRest[k]})
		}
		oRest, nRest = nil, nil
	}
	return pairs, oRest, nRest
}

func refOf(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	r, ok := m["$ref"].(string)
	return r, ok
}

// conjuncts compares allOf lists and a $ref written beside other keywords
// (which draft 2020-12 applies like one more allOf entry).
func (c *comparer) conjuncts(om map[string]any, oLoc string, nm map[string]any, nLoc string) {
	ol, oOK := om["allOf"].([]any)
	nl, nOK := nm["allOf"].([]any)
	if oOK || nOK {
		oBase, nBase := child(oLoc, "allOf"), child(nLoc, "allOf")
		pairs, oRest, nRest := c.pair(ol, oBase, nl, nBase)
		c.pin++
		for _, p := range pairs {
			c.schema(ol[p[0]], child(oBase, strconv.Itoa(p[0])), nl[p[1]], child(nBase, strconv.Itoa(p[1])), false)
		}
		c.pin--
		for _, i := range nRest {
			ptr := child(nBase, strconv.Itoa(i))
			if _, ok := c.new.conditionalIf(nl[i], ptr); ok {
				c.add("CONDITIONAL_ADDED", ptr, false, "allOf entry %d with if/then/else was added", i)
			} else {
				c.add("CONJUNCT_ADDED", ptr, false, "allOf entry %d was added", i)
			}
		}
		for _, j := range oRest {
			ptr := child(oBase, strconv.Itoa(j))
			if _, ok := c.old.conditionalIf(ol[j], ptr); ok {
				c.addOld("CONDITIONAL_REMOVED", ptr, false, "allOf entry %d with if/then/else was removed", j)
			} else {
				c.addOld("CONJUNCT_REMOVED", ptr, false, "allOf entry %d was removed", j)
			}
		}
	}
	or, oOK := om["$ref"].(string)
	nr, nOK := nm["$ref"].(string)
	switch {
	case oOK && nOK:
		ot, otl := c.old.target(or, oLoc)
		nt, ntl := c.new.target(nr, nLoc)
		if or != nr && !c.same(ot, otl, nt, ntl) {
			c.add("REF_RETARGETED", nLoc, false, "$ref was retargeted from %q to %q and the resolved schemas differ", or, nr)
		}
		c.pin++
		c.schema(ot, otl, nt, ntl, false)
		c.pin--
	case nOK:
		c.add("CONJUNCT_ADDED", nLoc, false, "$ref %q was added beside other keywords", nr)
	case oOK:
		c.addOld("CONJUNCT_REMOVED", oLoc, false, "$ref %q was removed from beside other keywords", or)
	}
}

func (c *comparer) conditional(om map[string]any, oLoc string, nm map[string]any, nLoc string) {
	oif, oOK := om["if"]
	nif, nOK := nm["if"]
	switch {
	case !oOK && !nOK:
	case !oOK:
		c.add("CONDITIONAL_ADDED", nLoc, false, "if/then/else was added")
	case !nOK:
		c.addOld("CONDITIONAL_REMOVED", oLoc, false, "if/then/else was removed")
	case !c.same(oif, child(oLoc, "if"), nif, child(nLoc, "if")):
		c.add("CONDITIONAL_CHANGED", child(nLoc, "if"), false, "the if schema of a conditional changed")
	default:
		for _, kw := range []string{"then", "else"} {
			ov, ok := om[kw]
			if !ok {
				ov = true
			}
			nv, ok := nm[kw]
			if !ok {
				nv = true
			}
			c.pin++
			c.schema(ov, child(oLoc, kw), nv, child(nLoc, kw), false)
			c.pin--
		}
	}
}

// handled reports whether a keyword has its own comparison.
func handled(kw string) bool {
	switch kw {
	case "type", "enum", "const",
		"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains",
		"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains",
		"multipleOf", "uniqueItems", "pattern", "format",
		"properties", "required", "additionalProperties", "unevaluatedProperties", "patternProperties",
		"dependentRequired", "prefixItems", "items", "additionalItems", "unevaluatedItems",
		"anyOf", "oneOf", "allOf", "$ref", "if", "then", "else":
		return true
	}
	return false
}

// generic reports KEYWORD_CHANGED for assertion keywords without a finer
// rule whose values differ.
func (c *comparer) generic(om map[string]any, oLoc string, nm map[string]any, nLoc string) {
	for _, kw := range union(om, nm) {
		if handled(kw) || isAnnotation(kw) {
			continue
		}
		_, oOK := om[kw]
		_, nOK := nm[kw]
		switch {
		case !oOK:
			c.add("KEYWORD_CHANGED", child(nLoc, kw), false, "keyword %q was added", kw)
		case !nOK:
			c.addOld("KEYWORD_CHANGED", child(oLoc, kw), false, "keyword %q was removed", kw)
		case !c.e.eqKw(kw, sref{d: c.old, v: om, loc: oLoc}, om[kw], sref{d: c.new, v: nm, loc: nLoc}, nm[kw], map[string]bool{}):
			c.add("KEYWORD_CHANGED", child(nLoc, kw), false, "keyword %q changed", kw)
		}
	}
}

// same reports whether two schemas accept the same instances as far as
// their keywords show: equal after resolving $ref and ignoring annotations,
// with recursion assumed equal (so cycles terminate).
func (c *comparer) same(o any, oLoc string, n any, nLoc string) bool {
	return c.e.eqS(sref{d: c.old, v: o, loc: oLoc}, sref{d: c.new, v: n, loc: nLoc})
}

// sameSet compares two JSON values as sets of canonical texts (a non-array
// is a one-element set).
func sameSet(a, b any) bool {
	set := func(v any) map[string]bool {
		s := map[string]bool{}
		if arr, ok := v.([]any); ok {
			for _, e := range arr {
				s[jsonText(e)] = true
			}
		} else {
			s[jsonText(v)] = true
		}
		return s
	}
	sa, sb := set(a), set(b)
	if len(sa) != len(sb) {
		return false
	}
	for k := range sa {
		if !sb[k] {
			return false
		}
	}
	return true
}

// trivial reports whether v accepts every instance (true, or only
// annotations).
func (d *doc) trivial(v any, loc string) bool {
	v, _ = d.deref(v, loc)
	m, isFalse := asMap(v)
	if isFalse {
		return false
	}
	for k := range m {
		if !isAnnotation(k) {
			return false
		}
	}
	return true
}

// hasDefault reports whether the schema v carries a default.
func (d *doc) hasDefault(v any, loc string) bool {
	v, _ = d.deref(v, loc)
	m, _ := v.(map[string]any)
	_, ok := m["default"]
	return ok
}

// isNull reports whether v accepts exactly null ({"type":"null"},
// {"const":null} or {"enum":[null]}).
func (d *doc) isNull(v any, loc string) bool {
	v, _ = d.deref(v, loc)
	m, _ := v.(map[string]any)
	n := 0
	for k, e := range m {
		if isAnnotation(k) {
			continue
		}
		n++
		switch k {
		case "type":
			if t, ok := typeSet(m); !ok || len(t) != 1 || !t["null"] {
				return false
			}
		case "const":
			if e != nil {
				return false
			}
		case "enum":
			if a, ok := e.([]any); !ok || len(a) != 1 || a[0] != nil {
				return false
			}
		default:
			return false
		}
	}
	return n > 0
}

type located struct {
	v   any
	loc string
}

// conditionalIf returns the if schema of v when v is only a conditional
// (if/then/else and annotations).
func (d *doc) conditionalIf(v any, loc string) (located, bool) {
	v, loc = d.deref(v, loc)
	m, _ := v.(map[string]any)
	iv, ok := m["if"]
	if !ok {
		return located{}, false
	}
	for k := range m {
		if k != "if" && k != "then" && k != "else" && !isAnnotation(k) {
			return located{}, false
		}
	}
	return located{iv, child(loc, "if")}, true
}

// discriminator returns the consts of v's properties as "name=json;...",
// or "" when it has none.
func (d *doc) discriminator(v any, loc string) string {
	v, loc = d.deref(v, loc)
	m, _ := v.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	var parts []string
	for _, name := range sortedKeys(props) {
		p, _ := d.deref(props[name], child(loc, "properties", name))
		if pm, ok := p.(map[string]any); ok {
			if cv, ok := pm["const"]; ok {
				parts = append(parts, name+"="+jsonText(cv))
			}
		}
	}
	return strings.Join(parts, ";")
}

// pureCombinator returns the keyword and list of a schema that is nothing
// but one anyOf, oneOf or allOf (and annotations).
func pureCombinator(m map[string]any) (string, []any) {
	kw := ""
	for k := range m {
		if isAnnotation(k) {
			continue
		}
		if kw != "" || (k != "anyOf" && k != "oneOf" && k != "allOf") {
			return "", nil
		}
		kw = k
	}
	l, _ := m[kw].([]any)
	if kw == "" || l == nil {
		return "", nil
	}
	return kw, l
}

// wrapper compares a schema with a combinator that wraps it (or the
// reverse): {"$ref": A} and {"oneOf": [{"type": "null"}, {"$ref": A}]},
// X and {"allOf": [X]}. The plain side is taken as a one-entry list of the
// wrapper's kind, so the wrapped schema is paired with its entry (compared
// inside) and the other entries are added or removed branches (or
// conjuncts); the schemas are never compared keyword by keyword. It
// reports whether it handled the pair.
func (c *comparer) wrapper(om map[string]any, oLoc string, nm map[string]any, nLoc string) bool {
	ok, ol := pureCombinator(om)
	nk, nl := pureCombinator(nm)
	if (ok == "") == (nk == "") {
		return false
	}
	single := func(m map[string]any) []any { return []any{m} }
	var oList, nList []any
	var oBase, nBase, kind string
	var oItem, nItem func(i int) string
	if nk != "" {
		kind, oList, nList = nk, single(om), nl
		oBase, nBase = oLoc, child(nLoc, nk)
		oItem = func(int) string { return oLoc }
		nItem = func(i int) string { return child(nBase, strconv.Itoa(i)) }
	} else {
		kind, oList, nList = ok, ol, single(nm)
		oBase, nBase = child(oLoc, ok), nLoc
		oItem = func(i int) string { return child(oBase, strconv.Itoa(i)) }
		nItem = func(int) string { return nLoc }
	}
	pairs, oRest, nRest := c.pairWrapped(oList, oItem, nList, nItem)
	if len(pairs) == 0 {
		if nk != "" {
			c.add("COMBINATOR_CHANGED", nBase, false, "the schema was replaced by a %q of %d entries", nk, len(nl))
		} else {
			c.addOld("COMBINATOR_CHANGED", oBase, false, "the %q of %d entries was replaced by a schema", ok, len(ol))
		}
		return true
	}
	c.pin++
	for _, p := range pairs {
		c.schema(oList[p[0]], oItem(p[0]), nList[p[1]], nItem(p[1]), false)
	}
	c.pin--
	if nk == "oneOf" && len(nRest) > 0 {
		// the old schema is one branch now: an old instance that another
		// branch accepts too matches two of them and is rejected
		c.overlaps = append(c.overlaps, overlapCandidate{subj: c.subj, oneOf: nBase})
	}
	for _, i := range nRest {
		ptr := nItem(i)
		switch {
		case kind == "allOf":
			c.add("CONJUNCT_ADDED", ptr, false, "allOf entry %d was added around the schema", i)
		case c.new.isNull(nList[i], ptr):
			c.add("NULLABLE_ADDED", ptr, false, "branch %d accepting null was added around the schema", i)
		default:
			c.add("BRANCH_ADDED", ptr, false, "branch %d was added around the schema", i)
		}
	}
	for _, j := range oRest {
		ptr := oItem(j)
		switch {
		case kind == "allOf":
			c.addOld("CONJUNCT_REMOVED", ptr, false, "allOf entry %d was removed and its other entry kept", j)
		case c.old.isNull(oList[j], ptr):
			c.addOld("NULLABLE_REMOVED", ptr, false, "branch %d accepting null was removed and its other branch kept", j)
		default:
			c.addOld("BRANCH_REMOVED", ptr, false, "branch %d was removed and its other branch kept", j)
		}
	}
	return true
}

// pairWrapped pairs the one plain schema with an entry of the wrapper's
// list: an equal one, else the same $ref, else one proven to contain it or
// be contained in it, else the only entry that is not null.
func (c *comparer) pairWrapped(ol []any, oItem func(int) string, nl []any, nItem func(int) string) (pairs [][2]int, oRest, nRest []int) {
	type cand struct{ j, i int }
	var all []cand
	for j := range ol {
		for i := range nl {
			all = append(all, cand{j, i})
		}
	}
	stages := []func(j, i int) bool{
		func(j, i int) bool { return c.same(ol[j], oItem(j), nl[i], nItem(i)) },
		func(j, i int) bool {
			or, _ := refOf(ol[j])
			nr, _ := refOf(nl[i])
			return or != "" && or == nr
		},
		func(j, i int) bool {
			o, n := sref{d: c.old, v: ol[j], loc: oItem(j)}, sref{d: c.new, v: nl[i], loc: nItem(i)}
			return c.e.prove(conj{atoms: []sref{o}}, n) || c.e.prove(conj{atoms: []sref{n}}, o)
		},
	}
	found := false
	for _, st := range stages {
		for _, k := range all {
			if st(k.j, k.i) {
				pairs = append(pairs, [2]int{k.j, k.i})
				found = true
				break
			}
		}
		if found {
			break
		}
	}
	if !found {
		var cands []cand
		for _, k := range all {
			if !c.old.isNull(ol[k.j], oItem(k.j)) && !c.new.isNull(nl[k.i], nItem(k.i)) {
				cands = append(cands, k)
			}
		}
		if len(cands) == 1 {
			pairs = append(pairs, [2]int{cands[0].j, cands[0].i})
		}
	}
	for j := range ol {
		if len(pairs) == 0 || pairs[0][0] != j {
			oRest = append(oRest, j)
		}
	}
	for i := range nl {
		if len(pairs) == 0 || pairs[0][1] != i {
			nRest = append(nRest, i)
		}
	}
	return pairs, oRest, nRest
}

// pairByKeys pairs entries of two long lists through maps: equal canonical
// text, then the same $ref, then the same discriminator; linear, not
// quadratic.
func (c *comparer) pairByKeys(ol []any, oLoc func(int) string, nl []any, nLoc func(int) string, usedO, usedN []bool, pairs *[][2]int) {
	keys := []struct {
		o func(j int) string
		n func(i int) string
	}{
		{func(j int) string { return jsonText(ol[j]) }, func(i int) string { return jsonText(nl[i]) }},
		{func(j int) string { r, _ := refOf(ol[j]); return r }, func(i int) string { r, _ := refOf(nl[i]); return r }},
		{func(j int) string { return c.old.discriminator(ol[j], oLoc(j)) }, func(i int) string { return c.new.discriminator(nl[i], nLoc(i)) }},
	}
	for _, k := range keys {
		byKey := map[string][]int{}
		for j := range ol {
			if !usedO[j] {
				if s := k.o(j); s != "" {
					byKey[s] = append(byKey[s], j)
				}
			}
		}
		for i := range nl {
			if usedN[i] {
				continue
			}
			s := k.n(i)
			if s == "" || len(byKey[s]) == 0 {
				continue
			}
			j := byKey[s][0]
			byKey[s] = byKey[s][1:]
			usedO[j], usedN[i] = true, true
			*pairs = append(*pairs, [2]int{j, i})
		}
	}
}
