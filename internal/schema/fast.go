package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/conform-kit/conform/internal/canon"
)

// The fast path: a second evaluator of a compiled schema that answers only
// "is v valid?", exactly as the library would, without building error trees.
// The library allocates about 20 KiB per control frame, most of it for errors
// of oneOf and if branches that are thrown away (bench/README.md); this
// evaluator allocates nothing on the paths the suite's schemas take.
//
// It is used only to decide "valid" ([Schema.Validate]): when it says
// invalid, the library validates the instance again and its violations are
// the verdict. Inside the evaluator both answers are exact, since not, oneOf
// and if need both.
//
// Exactness rests on three rules:
//   - A node whose schema sets any assertion the evaluator does not
//     implement (contains, dependentSchemas, unevaluatedProperties other
//     than over a static set of names (see staticEvaluated), content*,
//     draft-2019-or-older items, extensions, or any field a newer library
//     adds) is a library node: the library validates v against that
//     subschema on its own. A subschema's validity does not depend on where
//     it is reached from unless dynamic scope or a cycle is involved, which
//     the next two rules exclude.
//   - No fast path is built when a $dynamicRef or $recursiveRef is reachable
//     from the root (its target depends on the path taken to it), except
//     by buildRooted (a meta-schema whose every validation starts at its
//     root, where each $dynamicRef has one target).
//   - No fast path is built when the schema graph has an in-place cycle (a
//     schema that reaches itself through $ref, allOf, anyOf, oneOf, not, if,
//     then or else without descending into the instance): the library
//     reports such a cycle as a violation, while a naive evaluator would not
//     end.
//
// Keywords follow the library's own semantics (v6.0.3 validator.go): type
// "integer" accepts a number whose value is an integer (1.0), const and enum
// compare numbers by value, minLength and maxLength count code points, format
// calls the library's own format function, pattern its compiled regexp.
//
// Two shortcuts skip work whose outcome is known:
//   - oneOf and anyOf branches that pin one member to distinct string consts
//     (Message's "type", PermissionResultBody's "behavior") are indexed by
//     that const: when the instance is an object with that member, a branch
//     pinned to another value (or to a string while the member is not one)
//     is certainly invalid and is not evaluated.
//   - allOf entries of the form {"if": <member path pinned to a string
//     const>, "then": ...} (a request schema's rule per method) share one walk
//     of the path: only the entry whose const matches has its "then"
//     evaluated.
type fastNode struct {
	// s is the schema the node was built from: the library's compiled
	// schema, or a graph node of direct's, which lazy then compiles.
	s *jsonschema.Schema
	// set is the Set whose direct built s (nil: s is the library's);
	// lazy caches set's lazySchema of s once it was needed.
	set  *Set
	lazy atomic.Pointer[lazySchema]
	// lib: validate with the library (see above).
	lib bool
	// boolean: 1 for the schema true, -1 for false, 0 otherwise.
	boolean int8

	types    typeMask // 0: no type keyword
	constV   *any
	constStr *string // constV when it is a string
	enum     []any
	format   *jsonschema.Format

	ref   *fastNode
	not   *fastNode
	allOf []*fastNode
	// ifGroups are allOf entries taken over by a shared path walk.
	ifGroups []*ifGroup
	anyOf    *choice
	oneOf    *choice
	ifN      *fastNode
	thenN    *fastNode
	elseN    *fastNode

	// object
	minProps, maxProps int // -1: none
	required           []string
	// depRequired is dependentRequired: when the member named by a key is
	// present, so must be every member its value names; in key order, nil
	// when there is none (a slice: ranging over a map, even an empty one,
	// was a visible share of validate's CPU).
	depRequired  []depRequired
	props        []fastProp // pinned (const/enum) members first
	propIndex    map[string]*fastNode
	patternProps []fastPattern
	// additional: nil none; addFalse forbids other members; else a schema.
	additional *fastNode
	addFalse   bool
	// uneval is unevaluatedProperties (nil: none), over the members not in
	// evaluated, the names whose annotations the in-place applicators can
	// produce (see staticEvaluated).
	uneval    *fastNode
	evaluated map[string]bool
	// propNames is propertyNames: every member name, as a string, must
	// hold for it.
	propNames *fastNode
	hasObject bool

	// array
	minItems, maxItems int // -1: none
	unique             bool
	prefix             []*fastNode
	items              *fastNode
	hasArray           bool

	// string
	minLen, maxLen int // -1: none
	pattern        jsonschema.Regexp
	hasString      bool

	// number
	minimum, maximum, exclMin, exclMax, multipleOf *big.Rat
	hasNumber                                      bool
}

type fastProp struct {
	name string
	n    *fastNode
}

// depRequired is one member of dependentRequired: when key is present, so
// must be every member names names.
type depRequired struct {
	key   string
	names []string
}

type fastPattern struct {
	re jsonschema.Regexp
	n  *fastNode
}

// choice is a oneOf or anyOf, with its branches indexed by the string const
// they pin member key to, when at least two do.
type choice struct {
	branches []*fastNode
	key      string
	byConst  map[string][]int // branch indexes, in order
	unpinned []int            // branches without a const for key, in order
}

// ifGroup is a set of allOf entries {"if": P == c_i, "then": T_i} that test
// the same member path P (with the same required flags) against distinct
// string consts c_i.
type ifGroup struct {
	path     []string
	required []bool // required[i]: level i's "required" names path[i]
	thens    map[string][]*fastNode
	all      []*fastNode // every then, for instances where every if holds
}

type typeMask uint8

const (
	tNull typeMask = 1 << iota
	tBool
	tNumber
	tInteger
	tString
	tArray
	tObject
)

var typeNames = map[string]typeMask{
	"null": tNull, "boolean": tBool, "number": tNumber, "integer": tInteger,
	"string": tString, "array": tArray, "object": tObject,
}

// kw is a set of the assertion fields of jsonschema.Schema a schema sets
// (annotations such as title, $id or examples assert nothing and are not
// in it).
type kw uint64

const (
	kBool kw = 1 << iota
	kRef
	kRecursiveRef
	kDynamicRef
	kTypes
	kEnum
	kConst
	kNot
	kAllOf
	kAnyOf
	kOneOf
	kIf
	kThen
	kElse
	kFormat
	kMaxProperties
	kMinProperties
	kRequired
	kPropertyNames
	kProperties
	kPatternProperties
	kAdditionalProperties
	kDependencies
	kDependentRequired
	kDependentSchemas
	kUnevaluatedProperties
	kMinItems
	kMaxItems
	kUniqueItems
	kContains
	kMinContains
	kMaxContains
	kItems
	kAdditionalItems
	kPrefixItems
	kItems2020
	kUnevaluatedItems
	kMinLength
	kMaxLength
	kPattern
	kContentEncoding
	kContentMediaType
	kContentSchema
	kMaximum
	kMinimum
	kExclusiveMaximum
	kExclusiveMinimum
	kMultipleOf
	kExtensions
	// kUnknown: a field this code does not know (a newer library), which
	// counts as an assertion it does not implement.
	kUnknown
)

// handled are the keywords the evaluator implements; a node that sets any
// other is a library node.
const handled = kBool | kRef | kTypes | kEnum | kConst | kNot | kAllOf | kAnyOf | kOneOf | kIf | kThen | kElse |
	kFormat | kMaxProperties | kMinProperties | kRequired | kProperties | kPatternProperties | kAdditionalProperties |
	kPropertyNames | kDependentRequired |
	kMinItems | kMaxItems | kUniqueItems | kPrefixItems | kItems2020 | kMinLength | kMaxLength | kPattern |
	kMaximum | kMinimum | kExclusiveMaximum | kExclusiveMinimum | kMultipleOf

// knownFields are the exported fields of jsonschema.Schema (v6.0.3) that
// keywords reads or that are annotations.
var knownFields = map[string]bool{
	"DraftVersion": true, "Location": true, "ID": true, "Anchor": true, "DynamicAnchor": true, "RecursiveAnchor": true,
	"Title": true, "Description": true, "Default": true, "Comment": true, "ReadOnly": true, "WriteOnly": true,
	"Examples": true, "Deprecated": true,
	"Bool": true, "Ref": true, "RecursiveRef": true, "DynamicRef": true, "Types": true, "Enum": true, "Const": true,
	"Not": true, "AllOf": true, "AnyOf": true, "OneOf": true, "If": true, "Then": true, "Else": true, "Format": true,
	"MaxProperties": true, "MinProperties": true, "Required": true, "PropertyNames": true, "Properties": true,
	"PatternProperties": true, "AdditionalProperties": true, "Dependencies": true, "DependentRequired": true,
	"DependentSchemas": true, "UnevaluatedProperties": true, "MinItems": true, "MaxItems": true, "UniqueItems": true,
	"Contains": true, "MinContains": true, "MaxContains": true, "Items": true, "AdditionalItems": true,
	"PrefixItems": true, "Items2020": true, "UnevaluatedItems": true, "MinLength": true, "MaxLength": true,
	"Pattern": true, "ContentEncoding": true, "ContentMediaType": true, "ContentSchema": true, "Maximum": true,
	"Minimum": true, "ExclusiveMaximum": true, "ExclusiveMinimum": true, "MultipleOf": true, "Extensions": true,
}

// unknownFields are the indexes of exported fields of jsonschema.Schema
// outside knownFields: none for v6.0.3; a newer library's new fields.
var unknownFields = func() []int {
	var out []int
	t := reflect.TypeFor[jsonschema.Schema]()
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && !knownFields[f.Name] {
			out = append(out, i)
		}
	}
	return out
}()

// keywords returns the assertion fields s sets.
func keywords(s *jsonschema.Schema) kw {
	var k kw
	set := func(b bool, bit kw) {
		if b {
			k |= bit
		}
	}
	set(s.Bool != nil, kBool)
	set(s.Ref != nil, kRef)
	set(s.RecursiveRef != nil, kRecursiveRef)
	set(s.DynamicRef != nil, kDynamicRef)
	set(s.Types != nil, kTypes)
	set(s.Enum != nil, kEnum)
	set(s.Const != nil, kConst)
	set(s.Not != nil, kNot)
	set(len(s.AllOf) > 0, kAllOf)
	set(len(s.AnyOf) > 0, kAnyOf)
	set(len(s.OneOf) > 0, kOneOf)
	set(s.If != nil, kIf)
	set(s.Then != nil, kThen)
	set(s.Else != nil, kElse)
	set(s.Format != nil, kFormat)
	set(s.MaxProperties != nil, kMaxProperties)
	set(s.MinProperties != nil, kMinProperties)
	set(len(s.Required) > 0, kRequired)
	set(s.PropertyNames != nil, kPropertyNames)
	set(len(s.Properties) > 0, kProperties)
	set(len(s.PatternProperties) > 0, kPatternProperties)
	set(s.AdditionalProperties != nil, kAdditionalProperties)
	set(len(s.Dependencies) > 0, kDependencies)
	set(len(s.DependentRequired) > 0, kDependentRequired)
	set(len(s.DependentSchemas) > 0, kDependentSchemas)
	set(s.UnevaluatedProperties != nil, kUnevaluatedProperties)
	set(s.MinItems != nil, kMinItems)
	set(s.MaxItems != nil, kMaxItems)
	set(s.UniqueItems, kUniqueItems)
	set(s.Contains != nil, kContains)
	set(s.MinContains != nil, kMinContains)
	set(s.MaxContains != nil, kMaxContains)
	set(s.Items != nil, kItems)
	set(s.AdditionalItems != nil, kAdditionalItems)
	set(len(s.PrefixItems) > 0, kPrefixItems)
	set(s.Items2020 != nil, kItems2020)
	set(s.UnevaluatedItems != nil, kUnevaluatedItems)
	set(s.MinLength != nil, kMinLength)
	set(s.MaxLength != nil, kMaxLength)
	set(s.Pattern != nil, kPattern)
	set(s.ContentEncoding != nil, kContentEncoding)
	set(s.ContentMediaType != nil, kContentMediaType)
	set(s.ContentSchema != nil, kContentSchema)
	set(s.Maximum != nil, kMaximum)
	set(s.Minimum != nil, kMinimum)
	set(s.ExclusiveMaximum != nil, kExclusiveMaximum)
	set(s.ExclusiveMinimum != nil, kExclusiveMinimum)
	set(s.MultipleOf != nil, kMultipleOf)
	set(len(s.Extensions) > 0, kExtensions)
	if len(unknownFields) > 0 {
		v := reflect.ValueOf(s).Elem()
		for _, i := range unknownFields {
			set(!v.Field(i).IsZero(), kUnknown)
		}
	}
	return k
}

// fastBuilder compiles library schemas into fast nodes, sharing nodes
// between the roots of one [Set].
type fastBuilder struct {
	nodes map[*jsonschema.Schema]*fastNode
	// sound holds schemas whose whole reachable graph was found sound: a
	// later root's check stops there.
	sound map[*jsonschema.Schema]bool
	// set, when not nil, is the Set whose direct may have built the
	// schemas (see fastNode.set).
	set *Set
	// dynRoot, when not nil, is the one schema every validation through
	// this builder starts at (see buildRooted): a $dynamicRef then has one
	// target (dynTarget).
	dynRoot *jsonschema.Schema
}

// buildRooted is build for a builder of its own whose evaluations all
// start at root (MetaSchemas: a document validated against its
// meta-schema), so that a $dynamicRef resolves statically: jsonschema
// v6 (validator.go, validateRefs and resolveDynamicAnchor) takes a
// $dynamicRef whose fragment names a $dynamicAnchor that its initial
// target declares to the outermost schema of the dynamic scope whose
// resource declares that anchor, and the outermost scope is the schema
// validation started at. When root itself declares the anchor, that is
// root, wherever the $dynamicRef is met; otherwise it depends on the path
// and no fast path is built. A library node (validated by the library from
// that subschema, a fresh dynamic scope) would break that, so none is
// built when the graph holds one.
func buildRooted(root *jsonschema.Schema) *fastNode {
	b := &fastBuilder{dynRoot: root}
	n := b.build(root)
	if n == nil {
		return nil
	}
	for _, x := range b.nodes {
		if x.lib {
			return nil
		}
	}
	return n
}

// dynTarget returns the schema a $dynamicRef resolves to (see
// buildRooted), or nil when that is not fixed (always, without dynRoot:
// the fast path then refuses every $dynamicRef).
func (b *fastBuilder) dynTarget(d *jsonschema.DynamicRef) *jsonschema.Schema {
	if b.dynRoot == nil {
		return nil
	}
	if d.Anchor == "" || d.Ref.DynamicAnchor != d.Anchor {
		return d.Ref // the initial target, as the library takes it
	}
	if b.dynRoot.DynamicAnchor == d.Anchor {
		return b.dynRoot
	}
	return nil
}

// build returns the fast evaluator for root, or nil when none is sound
// (see the rules above) or when root itself would be a library node.
func (b *fastBuilder) build(root *jsonschema.Schema) *fastNode {
	if b.nodes == nil {
		b.nodes = map[*jsonschema.Schema]*fastNode{}
		b.sound = map[*jsonschema.Schema]bool{}
	}
	if !sound(root, b.sound, b.dynTarget) {
		return nil
	}
	n := b.node(root)
	if n.lib {
		return nil
	}
	return n
}

func (b *fastBuilder) node(s *jsonschema.Schema) *fastNode {
	if n, ok := b.nodes[s]; ok {
		return n
	}
	n := &fastNode{s: s, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
	if b.set != nil {
		if _, built := b.set.direct.locs[s]; built {
			n.set = b.set
		}
	}
	b.nodes[s] = n
	k := keywords(s)
	var evaluated map[string]bool
	if k&kUnevaluatedProperties != 0 {
		var ok bool
		if evaluated, ok = staticEvaluated(s); ok {
			k &^= kUnevaluatedProperties
		}
	}
	if k&kDynamicRef != 0 && b.dynRoot != nil && s.Ref == nil {
		if t := b.dynTarget(s.DynamicRef); t != nil {
			k &^= kDynamicRef // a $ref to t (buildRooted)
			n.ref = b.node(t)
		}
	}
	if s.DraftVersion < 2020 || k&^handled != 0 {
		n.lib = true
		return n
	}
	if evaluated != nil {
		n.evaluated = evaluated
		n.uneval = b.node(s.UnevaluatedProperties)
	}
	if s.Bool != nil {
		n.boolean = -1
		if *s.Bool {
			n.boolean = 1
		}
		return n
	}
	if s.Types != nil {
		for _, t := range s.Types.ToStrings() {
			n.types |= typeNames[t]
		}
	}
	if s.Const != nil {
		n.constV = s.Const
		if str, ok := (*s.Const).(string); ok {
			n.constStr = &str
		}
	}
	if s.Enum != nil {
		n.enum = s.Enum.Values
		if n.enum == nil {
			n.enum = []any{}
		}
	}
	n.format = s.Format
	if s.Ref != nil {
		n.ref = b.node(s.Ref)
	}
	if s.Not != nil {
		n.not = b.node(s.Not)
	}
	n.allOf, n.ifGroups = b.allOf(s.AllOf)
	if len(s.AnyOf) > 0 {
		n.anyOf = b.choice(s.AnyOf)
	}
	if len(s.OneOf) > 0 {
		n.oneOf = b.choice(s.OneOf)
	}
	if s.If != nil {
		n.ifN = b.node(s.If)
		if s.Then != nil {
			n.thenN = b.node(s.Then)
		}
		if s.Else != nil {
			n.elseN = b.node(s.Else)
		}
	}
	// object
	if s.MinProperties != nil {
		n.minProps = *s.MinProperties
	}
	if s.MaxProperties != nil {
		n.maxProps = *s.MaxProperties
	}
	n.required = s.Required
	for _, k := range slices.Sorted(maps.Keys(s.DependentRequired)) {
		n.depRequired = append(n.depRequired, depRequired{k, s.DependentRequired[k]})
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	n.propIndex = make(map[string]*fastNode, len(names))
	for _, k := range names {
		p := b.node(s.Properties[k])
		n.props = append(n.props, fastProp{k, p})
		n.propIndex[k] = p
	}
	// Members pinned by const or enum fail fastest: check them first.
	slices.SortStableFunc(n.props, func(x, y fastProp) int {
		return pinRank(x.n) - pinRank(y.n)
	})
	for re, sub := range s.PatternProperties {
		n.patternProps = append(n.patternProps, fastPattern{re, b.node(sub)})
	}
	slices.SortFunc(n.patternProps, func(x, y fastPattern) int {
		return strings.Compare(x.re.String(), y.re.String())
	})
	switch a := s.AdditionalProperties.(type) {
	case bool:
		n.addFalse = !a
		if a {
			n.additional = b.node(trueSchema)
		}
	case *jsonschema.Schema:
		n.additional = b.node(a)
	}
	if s.PropertyNames != nil {
		n.propNames = b.node(s.PropertyNames)
	}
	n.hasObject = n.minProps >= 0 || n.maxProps >= 0 || len(n.required) > 0 || len(n.depRequired) > 0 || len(n.props) > 0 ||
		len(n.patternProps) > 0 || n.additional != nil || n.addFalse || n.uneval != nil || n.propNames != nil
	// array
	if s.MinItems != nil {
		n.minItems = *s.MinItems
	}
	if s.MaxItems != nil {
		n.maxItems = *s.MaxItems
	}
	n.unique = s.UniqueItems
	for _, p := range s.PrefixItems {
		n.prefix = append(n.prefix, b.node(p))
	}
	if s.Items2020 != nil {
		n.items = b.node(s.Items2020)
	}
	n.hasArray = n.minItems >= 0 || n.maxItems >= 0 || n.unique || len(n.prefix) > 0 || n.items != nil
	// string
	if s.MinLength != nil {
		n.minLen = *s.MinLength
	}
	if s.MaxLength != nil {
		n.maxLen = *s.MaxLength
	}
	n.pattern = s.Pattern
	n.hasString = n.minLen >= 0 || n.maxLen >= 0 || n.pattern != nil
	// number
	n.minimum, n.maximum, n.exclMin, n.exclMax, n.multipleOf = s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum, s.MultipleOf
	n.hasNumber = n.minimum != nil || n.maximum != nil || n.exclMin != nil || n.exclMax != nil || n.multipleOf != nil
	return n
}

// staticEvaluated returns, for a schema s with unevaluatedProperties, the
// member names whose evaluation annotations s and its in-place applicators
// can produce when they do not depend on the instance: s and everything its
// $ref and allOf entries reach in place (transitively) have only
// "properties" as object applicators (no patternProperties,
// additionalProperties or nested unevaluatedProperties) and no applicator
// whose annotations depend on which branch holds (anyOf, oneOf, if/then/
// else, dependentSchemas, dynamic references). Then every subschema that
// produces annotations must hold for s to hold (an allOf entry or a $ref
// that fails fails s), "not" produces none, and the members
// unevaluatedProperties applies to are exactly those not in the union of
// the "properties" names (JSON Schema 2020-12 §11.3). ok is false for any
// other shape: that node stays a library node. The suite's vector schema
// (SessionVector, MessageVector: allOf [$ref Common], properties,
// unevaluatedProperties false) has this shape.
func staticEvaluated(s *jsonschema.Schema) (names map[string]bool, ok bool) {
	names = map[string]bool{}
	seen := map[*jsonschema.Schema]bool{}
	var walk func(x *jsonschema.Schema, top bool) bool
	walk = func(x *jsonschema.Schema, top bool) bool {
		if seen[x] {
			return true
		}
		seen[x] = true
		k := keywords(x)
		if !top && k&kUnevaluatedProperties != 0 {
			return false
		}
		const dynamic = kPatternProperties | kAdditionalProperties | kAnyOf | kOneOf | kIf | kThen | kElse |
			kDependentSchemas | kDependencies | kDynamicRef | kRecursiveRef | kUnknown | kExtensions
		if k&dynamic != 0 {
			return false
		}
		for name := range x.Properties {
			names[name] = true
		}
		if x.Ref != nil && !walk(x.Ref, false) {
			return false
		}
		for _, e := range x.AllOf {
			if !walk(e, false) {
				return false
			}
		}
		return true
	}
	if !walk(s, true) {
		return nil, false
	}
	return names, true
}

// trueSchema stands for "additionalProperties": true, which asserts nothing.
var trueSchema = func() *jsonschema.Schema {
	t := true
	return &jsonschema.Schema{Bool: &t, DraftVersion: 2020}
}()

func pinRank(n *fastNode) int {
	if !n.lib && (n.constV != nil || n.enum != nil) {
		return 0
	}
	return 1
}

// choice builds a oneOf or anyOf with its const index.
func (b *fastBuilder) choice(branches []*jsonschema.Schema) *choice {
	c := &choice{}
	for _, s := range branches {
		c.branches = append(c.branches, b.node(s))
	}
	pins := make([]map[string]string, len(branches))
	keys := map[string]int{}
	for i, s := range branches {
		pins[i] = pinned(s)
		for k := range pins[i] {
			keys[k]++
		}
	}
	// The key: the member most branches pin (at least two), then by name.
	best := ""
	for k, cnt := range keys {
		if cnt >= 2 && (best == "" || cnt > keys[best] || cnt == keys[best] && k < best) {
			best = k
		}
	}
	if best == "" {
		return c
	}
	c.key, c.byConst = best, map[string][]int{}
	for i := range branches {
		if v, ok := pins[i][best]; ok {
			c.byConst[v] = append(c.byConst[v], i)
		} else {
			c.unpinned = append(c.unpinned, i)
		}
	}
	return c
}

// pinned returns the members a schema pins to a string const through
// "properties": {"<k>": {"const": "<string>"}}, on the schema itself or on
// any node of its $ref chain (all of which apply to the instance). For an
// object instance that has member k, a value other than that string fails
// the schema.
func pinned(s *jsonschema.Schema) map[string]string {
	out := map[string]string{}
	bad := map[string]bool{}
	for seen := 0; s != nil && seen <= 32; seen++ {
		if s.DraftVersion < 2020 {
			return nil // before 2019-09, $ref hides its siblings
		}
		for k, p := range s.Properties {
			if p != nil && p.Const != nil {
				if c, ok := (*p.Const).(string); ok {
					if prev, dup := out[k]; dup && prev != c {
						bad[k] = true // contradictory: never matches; leave it unindexed
					}
					out[k] = c
				}
			}
		}
		s = s.Ref
	}
	for k := range bad {
		delete(out, k)
	}
	return out
}

// allOf splits entries into those evaluated one by one and if-groups.
func (b *fastBuilder) allOf(entries []*jsonschema.Schema) ([]*fastNode, []*ifGroup) {
	var rest []*fastNode
	var groups []*ifGroup
	var guards []guardShape
	var idx []int
	for i, s := range entries {
		if g, ok := ifGuard(s); ok {
			guards = append(guards, g)
			idx = append(idx, i)
			continue
		}
		rest = append(rest, b.node(s))
	}
	// Group guards by shape; a shape with a single entry is not worth it.
	used := make([]bool, len(guards))
	for i := range guards {
		if used[i] {
			continue
		}
		g := &ifGroup{path: guards[i].path, required: guards[i].required, thens: map[string][]*fastNode{}}
		var members []int
		for j := i; j < len(guards); j++ {
			if !used[j] && slices.Equal(guards[j].path, g.path) && slices.Equal(guards[j].required, g.required) {
				members = append(members, j)
				used[j] = true
			}
		}
		if len(members) < 2 {
			rest = append(rest, b.node(entries[idx[i]]))
			continue
		}
		for _, j := range members {
			then := entries[idx[j]].Then
			if then == nil {
				continue
			}
			t := b.node(then)
			g.thens[guards[j].c] = append(g.thens[guards[j].c], t)
			g.all = append(g.all, t)
		}
		groups = append(groups, g)
	}
	return rest, groups
}

type guardShape struct {
	path     []string
	required []bool
	c        string
}

// ifGuard recognizes an allOf entry {"if": G, "then": T} (nothing else
// asserted, no else) whose G is a chain of objects
// {"required"?: [p_i], "properties": {p_i: next}} ending in
// {"properties": {p_n: {"const": "<string>"}}} with "required"?: [p_n],
// each level asserting nothing else.
func ifGuard(s *jsonschema.Schema) (guardShape, bool) {
	var g guardShape
	if s.DraftVersion < 2020 || s.If == nil || s.Else != nil || keywords(s)&^(kIf|kThen) != 0 {
		return g, false
	}
	cur := s.If
	for depth := 0; depth < 8; depth++ {
		if cur.DraftVersion < 2020 || len(cur.Properties) != 1 || keywords(cur)&^(kProperties|kRequired) != 0 {
			return g, false
		}
		var name string
		var sub *jsonschema.Schema
		for k, v := range cur.Properties {
			name, sub = k, v
		}
		switch {
		case len(cur.Required) == 0:
			g.required = append(g.required, false)
		case len(cur.Required) == 1 && cur.Required[0] == name:
			g.required = append(g.required, true)
		default:
			return g, false
		}
		g.path = append(g.path, name)
		if sub.DraftVersion >= 2020 && keywords(sub) == kConst {
			c, ok := (*sub.Const).(string)
			if !ok {
				return g, false
			}
			g.c = c
			return g, true
		}
		cur = sub
	}
	return g, false
}

// sound reports whether no schema reachable from root uses $dynamicRef,
// $recursiveRef or extensions, and the in-place graph (see children) of
// the reachable schemas has no cycle.
//
// known holds schemas already found sound with everything they reach; the
// walk does not enter them (nothing they reach can lead back to a schema
// outside known). When root is sound, everything it reaches joins known.
//
// dyn resolves a $dynamicRef (fastBuilder.dynTarget): one it resolves
// (to a schema it returns) is an edge like $ref, only when the builder
// has a dynRoot; otherwise any $dynamicRef refuses the fast path.
func sound(root *jsonschema.Schema, known map[*jsonschema.Schema]bool, dyn func(*jsonschema.DynamicRef) *jsonschema.Schema) bool {
	if known[root] {
		return true
	}
	var all []*jsonschema.Schema
	edges := map[*jsonschema.Schema][]*jsonschema.Schema{}
	seen := map[*jsonschema.Schema]bool{root: true}
	for queue := []*jsonschema.Schema{root}; len(queue) > 0; {
		s := queue[0]
		queue = queue[1:]
		if known[s] {
			continue
		}
		all = append(all, s)
		if keywords(s)&(kRecursiveRef|kExtensions) != 0 {
			return false
		}
		inPlace, descend := children(s)
		if s.DynamicRef != nil {
			t := dyn(s.DynamicRef)
			if t == nil || s.Ref != nil {
				return false
			}
			inPlace = append(inPlace, t)
		}
		edges[s] = inPlace
		for _, c := range append(inPlace, descend...) {
			if !seen[c] {
				seen[c] = true
				queue = append(queue, c)
			}
		}
	}
	const (
		white = iota
		grey
		black
	)
	color := make(map[*jsonschema.Schema]int, len(all))
	var cyclic func(s *jsonschema.Schema) bool
	cyclic = func(s *jsonschema.Schema) bool {
		color[s] = grey
		for _, c := range edges[s] {
			switch color[c] {
			case grey:
				return true
			case white:
				if cyclic(c) {
					return true
				}
			}
		}
		color[s] = black
		return false
	}
	for _, s := range all {
		if color[s] == white && cyclic(s) {
			return false
		}
	}
	for _, s := range all {
		known[s] = true
	}
	return true
}

// children returns the subschemas of s that apply to the instance itself
// ($ref, not, allOf, anyOf, oneOf, if, then, else, dependentSchemas and
// schema dependencies, $recursiveRef, $dynamicRef: the edges of an
// in-place cycle) and those that apply to a member, an item, a member name
// or decoded content. Subschemas held in a field this code does not know
// count as in place (the conservative reading).
func children(s *jsonschema.Schema) (inPlace, descend []*jsonschema.Schema) {
	add := func(out []*jsonschema.Schema, ss ...*jsonschema.Schema) []*jsonschema.Schema {
		for _, c := range ss {
			if c != nil {
				out = append(out, c)
			}
		}
		return out
	}
	inPlace = add(inPlace, s.Ref, s.Not, s.If, s.Then, s.Else, s.RecursiveRef)
	if s.DynamicRef != nil {
		inPlace = add(inPlace, s.DynamicRef.Ref)
	}
	inPlace = add(inPlace, s.AllOf...)
	inPlace = add(inPlace, s.AnyOf...)
	inPlace = add(inPlace, s.OneOf...)
	for _, c := range s.DependentSchemas {
		inPlace = add(inPlace, c)
	}
	for _, d := range s.Dependencies {
		if c, ok := d.(*jsonschema.Schema); ok {
			inPlace = add(inPlace, c)
		}
	}
	for _, c := range s.Properties {
		descend = add(descend, c)
	}
	for _, c := range s.PatternProperties {
		descend = add(descend, c)
	}
	if c, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
		descend = add(descend, c)
	}
	descend = add(descend, s.PropertyNames, s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema)
	switch it := s.Items.(type) {
	case *jsonschema.Schema:
		descend = add(descend, it)
	case []*jsonschema.Schema:
		descend = add(descend, it...)
	}
	if c, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
		descend = add(descend, c)
	}
	descend = add(descend, s.PrefixItems...)
	if len(unknownFields) > 0 {
		v := reflect.ValueOf(s).Elem()
		for _, i := range unknownFields {
			inPlace = subschemas(v.Field(i), inPlace)
		}
	}
	return inPlace, descend
}

// subschemas appends the schemas held anywhere inside v (a field of
// jsonschema.Schema).
func subschemas(v reflect.Value, out []*jsonschema.Schema) []*jsonschema.Schema {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			out = subschemas(v.Elem(), out)
		}
	case reflect.Pointer:
		if v.IsNil() {
			return out
		}
		switch x := v.Interface().(type) {
		case *jsonschema.Schema:
			return append(out, x)
		case *jsonschema.DynamicRef:
			return subschemas(reflect.ValueOf(x.Ref), out)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			out = subschemas(v.Index(i), out)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			out = subschemas(it.Value(), out)
		}
	}
	return out
}

// libValid is the library's verdict on v against n's schema.
func (n *fastNode) libValid(v any) bool {
	s := n.s
	if n.set != nil {
		l := n.lazy.Load()
		if l == nil {
			l = n.set.lazyOf(n.s)
			n.lazy.Store(l)
		}
		var err error
		if s, err = l.get(); err != nil {
			// Set.lazyFailed is set: Validate trusts no fast verdict
			// and reports the error.
			return false
		}
	}
	return s.Validate(v) == nil
}

// ok reports whether v is valid against n, as the library would decide.
func (n *fastNode) ok(v any) bool {
	if n.lib {
		return n.libValid(v)
	}
	if n.boolean != 0 {
		return n.boolean > 0
	}
	var t typeMask
	switch v.(type) {
	case nil:
		t = tNull
	case bool:
		t = tBool
	case string:
		t = tString
	case json.Number:
		t = tNumber
	case []any:
		t = tArray
	case map[string]any:
		t = tObject
	default:
		// Not a value canon.Parse returns: the library decides.
		return n.libValid(v)
	}
	if n.types != 0 && n.types&t == 0 {
		if !(t == tNumber && n.types&tInteger != 0 && isInteger(v.(json.Number))) {
			return false
		}
	}
	if n.constStr != nil {
		if s, ok := v.(string); !ok || s != *n.constStr {
			return false
		}
	} else if n.constV != nil && !equal(v, *n.constV) {
		return false
	}
	if n.enum != nil {
		found := false
		for _, e := range n.enum {
			if equal(v, e) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if n.format != nil && n.format.Validate(v) != nil {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		if n.hasObject && !n.object(x) {
			return false
		}
	case []any:
		if n.hasArray && !n.array(x) {
			return false
		}
	case string:
		if n.hasString && !n.string(x) {
			return false
		}
	case json.Number:
		if n.hasNumber && !n.number(x) {
			return false
		}
	}
	if n.ref != nil && !n.ref.ok(v) {
		return false
	}
	if n.not != nil && n.not.ok(v) {
		return false
	}
	for _, a := range n.allOf {
		if !a.ok(v) {
			return false
		}
	}
	for _, g := range n.ifGroups {
		if !g.ok(v) {
			return false
		}
	}
	if n.anyOf != nil && !n.anyOf.any(v) {
		return false
	}
	if n.oneOf != nil && n.oneOf.count(v) != 1 {
		return false
	}
	if n.ifN != nil {
		if n.ifN.ok(v) {
			if n.thenN != nil && !n.thenN.ok(v) {
				return false
			}
		} else if n.elseN != nil && !n.elseN.ok(v) {
			return false
		}
	}
	return true
}

func (n *fastNode) object(obj map[string]any) bool {
	if n.minProps >= 0 && len(obj) < n.minProps || n.maxProps >= 0 && len(obj) > n.maxProps {
		return false
	}
	for _, r := range n.required {
		if _, ok := obj[r]; !ok {
			return false
		}
	}
	for _, d := range n.depRequired {
		if _, ok := obj[d.key]; ok {
			for _, r := range d.names {
				if _, ok := obj[r]; !ok {
					return false
				}
			}
		}
	}
	if n.propNames != nil {
		for k := range obj {
			if !n.propNames.ok(k) {
				return false
			}
		}
	}
	if n.uneval != nil {
		for k, v := range obj {
			if !n.evaluated[k] && !n.uneval.ok(v) {
				return false
			}
		}
	}
	if n.additional == nil && !n.addFalse && len(n.patternProps) == 0 {
		// Only "properties": visit whichever side is smaller.
		if len(obj) < len(n.props) {
			for k, v := range obj {
				if p := n.propIndex[k]; p != nil && !p.ok(v) {
					return false
				}
			}
			return true
		}
		for _, p := range n.props {
			if v, ok := obj[p.name]; ok && !p.n.ok(v) {
				return false
			}
		}
		return true
	}
	for k, v := range obj {
		evaluated := false
		if p := n.propIndex[k]; p != nil {
			evaluated = true
			if !p.ok(v) {
				return false
			}
		}
		for _, pp := range n.patternProps {
			if pp.re.MatchString(k) {
				evaluated = true
				if !pp.n.ok(v) {
					return false
				}
			}
		}
		if !evaluated {
			if n.addFalse || n.additional != nil && !n.additional.ok(v) {
				return false
			}
		}
	}
	return true
}

func (n *fastNode) array(arr []any) bool {
	if n.minItems >= 0 && len(arr) < n.minItems || n.maxItems >= 0 && len(arr) > n.maxItems {
		return false
	}
	if n.unique {
		for i := 1; i < len(arr); i++ {
			for j := 0; j < i; j++ {
				if equal(arr[i], arr[j]) {
					return false
				}
			}
		}
	}
	k := min(len(n.prefix), len(arr))
	for i := range k {
		if !n.prefix[i].ok(arr[i]) {
			return false
		}
	}
	if n.items != nil {
		for _, e := range arr[k:] {
			if !n.items.ok(e) {
				return false
			}
		}
	}
	return true
}

func (n *fastNode) string(s string) bool {
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLen >= 0 && l < n.minLen || n.maxLen >= 0 && l > n.maxLen {
			return false
		}
	}
	return n.pattern == nil || n.pattern.MatchString(s)
}

func (n *fastNode) number(x json.Number) bool {
	r, ok := rat(x)
	if !ok {
		// The library compares with a nil *big.Rat here; let it decide.
		return n.libValid(x)
	}
	switch {
	case n.minimum != nil && r.Cmp(n.minimum) < 0,
		n.maximum != nil && r.Cmp(n.maximum) > 0,
		n.exclMin != nil && r.Cmp(n.exclMin) <= 0,
		n.exclMax != nil && r.Cmp(n.exclMax) >= 0:
		return false
	case n.multipleOf != nil:
		return new(big.Rat).Quo(r, n.multipleOf).IsInt()
	}
	return true
}

// rat is the value of x as the library reads it (big.Rat of its text).
func rat(x json.Number) (*big.Rat, bool) {
	if i, ok := plainInt(string(x)); ok {
		return new(big.Rat).SetInt64(i), true
	}
	return new(big.Rat).SetString(string(x))
}

// plainInt parses -?[0-9]{1,18}, which int64 holds.
func plainInt(s string) (int64, bool) {
	d := s
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		return 0, false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, false
		}
	}
	i, err := strconv.ParseInt(s, 10, 64)
	return i, err == nil
}

// isInteger is the library's test: the value's big.Rat is an integer.
func isInteger(x json.Number) bool {
	if _, ok := plainInt(string(x)); ok {
		return true
	}
	r, ok := new(big.Rat).SetString(string(x))
	return ok && r.IsInt()
}

// equal is the library's equality of JSON values: numbers by value,
// objects and arrays member by member.
func equal(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok || !equal(va, vb) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equal(a[i], b[i]) {
				return false
			}
		}
		return true
	case nil:
		return b == nil
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case string:
		b, ok := b.(string)
		return ok && a == b
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return otherNumbersEqual(a, b)
		}
		if x, ok := plainInt(string(a)); ok {
			if y, ok := plainInt(string(bn)); ok {
				return x == y
			}
		}
		x, ok1 := new(big.Rat).SetString(string(a))
		y, ok2 := new(big.Rat).SetString(string(bn))
		return ok1 && ok2 && x.Cmp(y) == 0
	}
	return otherNumbersEqual(a, b)
}

// otherNumbersEqual compares Go numbers canon.Parse never returns (float64,
// int, ...) the way the library does: by the big.Rat of their text.
func otherNumbersEqual(a, b any) bool {
	if !isNumber(a) || !isNumber(b) {
		return false
	}
	x, ok1 := new(big.Rat).SetString(fmt.Sprint(a))
	y, ok2 := new(big.Rat).SetString(fmt.Sprint(b))
	return ok1 && ok2 && x.Cmp(y) == 0
}

// isNumber mirrors the library's typeOf(v) == numberType.
func isNumber(v any) bool {
	switch x := v.(type) {
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case float32:
		return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0)
	case json.Number, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return true
	}
	return false
}

// ok reports whether every then whose if holds is valid. Each if is
// "the value at path equals c" on objects; a level that is not an object
// makes every if hold, a missing required member makes every if fail.
func (g *ifGroup) ok(v any) bool {
	cur := v
	for i, name := range g.path {
		obj, isObj := cur.(map[string]any)
		if !isObj {
			return allOK(g.all, v)
		}
		next, present := obj[name]
		if !present {
			if g.required[i] {
				return true // every if fails; no else
			}
			return allOK(g.all, v)
		}
		cur = next
	}
	s, isStr := cur.(string)
	if !isStr {
		return true // a string const never equals it: every if fails
	}
	return allOK(g.thens[s], v)
}

func allOK(ns []*fastNode, v any) bool {
	for _, n := range ns {
		if !n.ok(v) {
			return false
		}
	}
	return true
}

// candidates calls f with each branch index that may accept v, in order,
// until f returns false.
func (c *choice) candidates(v any, f func(i int) bool) {
	if c.byConst != nil {
		if obj, ok := v.(map[string]any); ok {
			if m, present := obj[c.key]; present {
				s, isStr := m.(string)
				var pinnedHere []int
				if isStr {
					pinnedHere = c.byConst[s]
				}
				// Merge the two ordered lists.
				i, j := 0, 0
				for i < len(pinnedHere) || j < len(c.unpinned) {
					var next int
					if j >= len(c.unpinned) || i < len(pinnedHere) && pinnedHere[i] < c.unpinned[j] {
						next = pinnedHere[i]
						i++
					} else {
						next = c.unpinned[j]
						j++
					}
					if !f(next) {
						return
					}
				}
				return
			}
		}
	}
	for i := range c.branches {
		if !f(i) {
			return
		}
	}
}

func (c *choice) any(v any) bool {
	found := false
	c.candidates(v, func(i int) bool {
		found = c.branches[i].ok(v)
		return !found
	})
	return found
}

// count returns how many branches accept v, stopping at 2.
func (c *choice) count(v any) int {
	n := 0
	c.candidates(v, func(i int) bool {
		if c.branches[i].ok(v) {
			n++
		}
		return n < 2
	})
	return n
}

// The same evaluator over a value on a canon.Tape, which a recording's
// lines are read into: no maps or interfaces are built for a valid line.
// The elements and members of a container are reached through t.First
// and t.Member, which unfold a folded container of a large line (only
// what the schema looks at is put on the tape); both may grow t.Nodes, so
// a *canon.Node held across them is only read, never written.

var kindType = [...]typeMask{canon.Null: tNull, canon.False: tBool, canon.True: tBool,
	canon.Number: tNumber, canon.String: tString, canon.Array: tArray, canon.Object: tObject}

// okT reports whether the value at t.Nodes[i] is valid against n, exactly
// as ok does for t.Value(i).
func (n *fastNode) okT(t *canon.Tape, i int) bool {
	if n.lib {
		return n.libValid(t.Value(i))
	}
	if n.boolean != 0 {
		return n.boolean > 0
	}
	nd := &t.Nodes[i]
	tm := kindType[nd.Kind]
	if n.types != 0 && n.types&tm == 0 {
		if !(tm == tNumber && n.types&tInteger != 0 && isInteger(json.Number(nd.Str))) {
			return false
		}
	}
	if n.constStr != nil {
		if nd.Kind != canon.String || nd.Str != *n.constStr {
			return false
		}
	} else if n.constV != nil && !equalT(t, i, *n.constV) {
		return false
	}
	if n.enum != nil {
		found := false
		for _, e := range n.enum {
			if equalT(t, i, e) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if n.format != nil {
		var v any
		if nd.Kind == canon.String {
			v = nd.Str
		} else {
			v = t.Value(i)
		}
		if n.format.Validate(v) != nil {
			return false
		}
	}
	switch nd.Kind {
	case canon.Object:
		if n.hasObject && !n.objectT(t, i) {
			return false
		}
	case canon.Array:
		if n.hasArray && !n.arrayT(t, i) {
			return false
		}
	case canon.String:
		if n.hasString && !n.string(nd.Str) {
			return false
		}
	case canon.Number:
		if n.hasNumber && !n.number(json.Number(nd.Str)) {
			return false
		}
	}
	if n.ref != nil && !n.ref.okT(t, i) {
		return false
	}
	if n.not != nil && n.not.okT(t, i) {
		return false
	}
	for _, a := range n.allOf {
		if !a.okT(t, i) {
			return false
		}
	}
	for _, g := range n.ifGroups {
		if !g.okT(t, i) {
			return false
		}
	}
	if n.anyOf != nil && !n.anyOf.anyT(t, i) {
		return false
	}
	if n.oneOf != nil && n.oneOf.countT(t, i) != 1 {
		return false
	}
	if n.ifN != nil {
		if n.ifN.okT(t, i) {
			if n.thenN != nil && !n.thenN.okT(t, i) {
				return false
			}
		} else if n.elseN != nil && !n.elseN.okT(t, i) {
			return false
		}
	}
	return true
}

// smallProps is the number of "properties" up to which objectT finds each
// in the instance rather than each member in the schema's index.
const smallProps = 8

func (n *fastNode) objectT(t *canon.Tape, i int) bool {
	nd := &t.Nodes[i]
	size := int(nd.Len)
	if n.minProps >= 0 && size < n.minProps || n.maxProps >= 0 && size > n.maxProps {
		return false
	}
	if len(n.required) == 0 && n.depRequired == nil && n.uneval == nil && n.propNames == nil && len(n.props) == 0 &&
		n.additional == nil && !n.addFalse && len(n.patternProps) == 0 {
		return true // nothing looks at the members: a folded object stays folded
	}
	// The members are reached from first, taken once (t.First may unfold
	// the object); t.MemberIn is inlined, t.Member is not.
	first, members := t.First(i), nd.Len
	for _, r := range n.required {
		if t.MemberIn(first, members, r) < 0 {
			return false
		}
	}
	for _, d := range n.depRequired {
		if t.MemberIn(first, members, d.key) >= 0 {
			for _, r := range d.names {
				if t.MemberIn(first, members, r) < 0 {
					return false
				}
			}
		}
	}
	if n.uneval != nil || n.propNames != nil {
		j := first
		for range size {
			m := &t.Nodes[j] // okT may grow t.Nodes: m is only read (see canon.Tape)
			if n.propNames != nil && !n.propNames.ok(m.Key) {
				return false
			}
			if n.uneval != nil && !n.evaluated[m.Key] && !n.uneval.okT(t, j) {
				return false
			}
			j = int(m.Next)
		}
	}
	if n.additional == nil && !n.addFalse && len(n.patternProps) == 0 && len(n.props) <= smallProps {
		for _, p := range n.props {
			if j := t.MemberIn(first, members, p.name); j >= 0 && !p.n.okT(t, j) {
				return false
			}
		}
		return true
	}
	j := first
	for range size {
		m := &t.Nodes[j]
		evaluated := false
		if p := n.propIndex[m.Key]; p != nil {
			evaluated = true
			if !p.okT(t, j) {
				return false
			}
		}
		for _, pp := range n.patternProps {
			if pp.re.MatchString(m.Key) {
				evaluated = true
				if !pp.n.okT(t, j) {
					return false
				}
			}
		}
		if !evaluated {
			if n.addFalse || n.additional != nil && !n.additional.okT(t, j) {
				return false
			}
		}
		j = int(m.Next)
	}
	return true
}

func (n *fastNode) arrayT(t *canon.Tape, i int) bool {
	size := int(t.Nodes[i].Len)
	if n.minItems >= 0 && size < n.minItems || n.maxItems >= 0 && size > n.maxItems {
		return false
	}
	if n.unique && size > 1 {
		arr := t.Value(i).([]any)
		for a := 1; a < len(arr); a++ {
			for b := 0; b < a; b++ {
				if equal(arr[a], arr[b]) {
					return false
				}
			}
		}
	}
	j := t.First(i)
	for k := range size {
		switch {
		case k < len(n.prefix):
			if !n.prefix[k].okT(t, j) {
				return false
			}
		case n.items != nil:
			if !n.items.okT(t, j) {
				return false
			}
		default:
			return true
		}
		j = int(t.Nodes[j].Next)
	}
	return true
}

// equalT is equal(t.Value(i), v) without building t.Value(i).
func equalT(t *canon.Tape, i int, v any) bool {
	nd := &t.Nodes[i]
	switch nd.Kind {
	case canon.Null:
		return v == nil
	case canon.False, canon.True:
		b, ok := v.(bool)
		return ok && b == (nd.Kind == canon.True)
	case canon.String:
		s, ok := v.(string)
		return ok && s == nd.Str
	case canon.Number:
		return equal(json.Number(nd.Str), v)
	case canon.Array:
		arr, ok := v.([]any)
		if !ok || len(arr) != int(nd.Len) {
			return false
		}
		j := t.First(i)
		for _, e := range arr {
			if !equalT(t, j, e) {
				return false
			}
			j = int(t.Nodes[j].Next)
		}
		return true
	}
	obj, ok := v.(map[string]any)
	if !ok || len(obj) != int(nd.Len) {
		return false
	}
	j := t.First(i)
	for range nd.Len {
		e, ok := obj[t.Nodes[j].Key]
		if !ok || !equalT(t, j, e) {
			return false
		}
		j = int(t.Nodes[j].Next)
	}
	return true
}

func (g *ifGroup) okT(t *canon.Tape, i int) bool {
	cur := i
	for k, name := range g.path {
		if t.Nodes[cur].Kind != canon.Object {
			return allOKT(g.all, t, i)
		}
		next := t.Member(cur, name)
		if next < 0 {
			if g.required[k] {
				return true
			}
			return allOKT(g.all, t, i)
		}
		cur = next
	}
	if t.Nodes[cur].Kind != canon.String {
		return true
	}
	return allOKT(g.thens[t.Nodes[cur].Str], t, i)
}

func allOKT(ns []*fastNode, t *canon.Tape, i int) bool {
	for _, n := range ns {
		if !n.okT(t, i) {
			return false
		}
	}
	return true
}

// candidatesT is candidates for a tape value.
func (c *choice) candidatesT(t *canon.Tape, i int, f func(k int) bool) {
	if c.byConst != nil && t.Nodes[i].Kind == canon.Object {
		if m := t.Member(i, c.key); m >= 0 {
			var pinnedHere []int
			if t.Nodes[m].Kind == canon.String {
				pinnedHere = c.byConst[t.Nodes[m].Str]
			}
			a, b := 0, 0
			for a < len(pinnedHere) || b < len(c.unpinned) {
				var next int
				if b >= len(c.unpinned) || a < len(pinnedHere) && pinnedHere[a] < c.unpinned[b] {
					next = pinnedHere[a]
					a++
				} else {
					next = c.unpinned[b]
					b++
				}
				if !f(next) {
					return
				}
			}
			return
		}
	}
	for k := range c.branches {
		if !f(k) {
			return
		}
	}
}

func (c *choice) anyT(t *canon.Tape, i int) bool {
	found := false
	c.candidatesT(t, i, func(k int) bool {
		found = c.branches[k].okT(t, i)
		return !found
	})
	return found
}

func (c *choice) countT(t *canon.Tape, i int) int {
	n := 0
	c.candidatesT(t, i, func(k int) bool {
		if c.branches[k].okT(t, i) {
			n++
		}
		return n < 2
	})
	return n
}
