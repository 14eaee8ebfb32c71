// Package refute searches an instance that refutes a claimed inclusion
// between two JSON Schemas: a value the first schema accepts and the second
// rejects, both decided by the real validator (santhosh-tekuri/jsonschema/v6
// through internal/schema, each document in the draft its $schema names).
//
// It is the independent check of internal/compat's prover: it shares no
// code with the prover or with compat's witness generator. Candidates come
// from a seeded pseudo-random generator fed with what both documents
// mention (const, enum, examples, default, bounds and their neighbours,
// lengths, strings made from patterns and formats, member names), built
// both blindly (random JSON over those atoms) and by the schemas' shapes
// (required members, properties, items, one branch of a combinator), then
// mutated (a member dropped or added, a value replaced, a number written
// as 1.0). Search is deterministic for a seed and bounded by
// [Options].Budget candidates.
package refute

import (
	"context"
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"net/url"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/schema"
)

// Options tune [Search]. The zero value is usable: seed 0, 2000
// candidates, formats asserted, 2020-12 for documents without $schema.
type Options struct {
	// Seed makes the search reproducible.
	Seed uint64
	// Budget is the number of candidates validated; 0 means 2000.
	Budget int
	// FormatAnnotation treats format as an annotation (as compat's option).
	FormatAnnotation bool
	// DefaultDraft is the draft of a document without $schema ("" is 2020-12).
	DefaultDraft string
}

// Result is the outcome of [Search].
type Result struct {
	// Instance is the refuting value when Found.
	Instance any
	Found    bool
	// Tried is how many candidates were validated.
	Tried int
}

// Search looks for an instance that sub accepts at JSON Pointer subPtr and
// sup rejects at supPtr ("" is the root). Documents are values as
// canon.Parse decodes them. Errors: SCHEMA_INVALID (a document or a
// location that does not compile), INTERRUPTED when ctx ends.
func Search(ctx context.Context, sub any, subPtr string, sup any, supPtr string, opt Options) (Result, error) {
	budget := opt.Budget
	if budget <= 0 {
		budget = 2000
	}
	a, err := schema.NewStandalone("sub", sub, !opt.FormatAnnotation, opt.DefaultDraft)
	if err != nil {
		return Result{}, err
	}
	b, err := schema.NewStandalone("sup", sup, !opt.FormatAnnotation, opt.DefaultDraft)
	if err != nil {
		return Result{}, err
	}
	g := newGen(opt.Seed, []any{sub, sup})
	g.roots = []node{{doc: sub, v: at(sub, subPtr)}, {doc: sup, v: at(sup, supPtr)}}
	var res Result
	var accepted []any
	check := func(v any) (bool, error) {
		res.Tried++
		okA, err := a.Valid(subPtr, v)
		if err != nil {
			return false, err
		}
		if !okA {
			return false, nil
		}
		accepted = append(accepted, v)
		okB, err := b.Valid(supPtr, v)
		if err != nil {
			return false, err
		}
		if !okB {
			res.Instance, res.Found = v, true
			return true, nil
		}
		return false, nil
	}
	for _, v := range g.seeds() {
		if res.Tried >= budget {
			return res, nil
		}
		if done, err := check(v); err != nil || done {
			return res, err
		}
	}
	for res.Tried < budget {
		if err := ctx.Err(); err != nil {
			return res, kiterr.Wrap(kiterr.Interrupted, err, "refute")
		}
		var v any
		switch k := g.r.IntN(10); {
		case k < 4:
			v = g.shaped(g.roots[g.r.IntN(2)], 0)
		case k < 6 || len(accepted) == 0:
			v = g.random(0)
		default:
			v = g.mutate(accepted[g.r.IntN(len(accepted))], 0)
		}
		if done, err := check(v); err != nil || done {
			return res, err
		}
	}
	return res, nil
}

// node is a schema value inside its document (for $ref).
type node struct {
	doc any
	v   any
}

// at returns the value at JSON Pointer ptr of doc (nil when absent).
func at(doc any, ptr string) any {
	if ptr == "" {
		return doc
	}
	v := doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case map[string]any:
			v = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

// gen is the seeded candidate generator; pools hold the atoms both
// documents mention.
type gen struct {
	r       *rand.Rand
	roots   []node
	nums    []json.Number
	strs    []string
	names   []string
	values  []any
	maxSize int
}

func newGen(seed uint64, docs []any) *gen {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), maxSize: 6}
	nums := map[string]bool{"0": true, "1": true, "-1": true, "1.0": true, "0.5": true, "2": true, "100": true}
	strs := map[string]bool{"": true, "a": true, "A": true, "0": true, "ab": true, "x y": true}
	names := map[string]bool{"a": true, "b": true, "$ref": true}
	for _, d := range docs {
		g.collect(d, nums, strs, names, 0)
	}
	g.nums = sortedNums(nums)
	g.strs = sorted(strs)
	g.names = sorted(names)
	return g
}

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedNums(m map[string]bool) []json.Number {
	var out []json.Number
	for _, s := range sorted(m) {
		out = append(out, json.Number(s))
	}
	return out
}

// formatSamples are valid values of the formats validators assert.
var formatSamples = map[string]string{
	"date-time": "2020-01-01T00:00:00Z", "date": "2020-01-01", "time": "00:00:00Z", "duration": "P1D",
	"email": "a@example.com", "idn-email": "a@example.com", "hostname": "example.com", "idn-hostname": "example.com",
	"ipv4": "127.0.0.1", "ipv6": "::1", "uri": "https://example.com/a", "iri": "https://example.com/a",
	"uri-reference": "a/b", "iri-reference": "a/b", "uri-template": "a{b}", "uuid": "123e4567-e89b-12d3-a456-426614174000",
	"json-pointer": "/a", "relative-json-pointer": "0/a", "regex": "^a", "semver": "1.0.0",
}

// collect walks every value of a document (schemas and their keywords
// alike) and records numbers near bounds, strings, member names and
// literal values.
func (g *gen) collect(v any, nums, strs, names map[string]bool, depth int) {
	if depth > 64 {
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		if arr, ok := v.([]any); ok {
			for _, e := range arr {
				g.collect(e, nums, strs, names, depth+1)
			}
		}
		return
	}
	addNum := func(x any) {
		r, ok := ratOf(x)
		if !ok {
			return
		}
		for _, d := range []*big.Rat{big.NewRat(0, 1), big.NewRat(1, 1), big.NewRat(-1, 1), big.NewRat(1, 2), big.NewRat(-1, 2)} {
			nums[lit(new(big.Rat).Add(r, d))] = true
		}
		nums[lit(new(big.Rat).Mul(r, big.NewRat(2, 1)))] = true
		nums[lit(new(big.Rat).Mul(r, big.NewRat(3, 1)))] = true
		if r.IsInt() {
			nums[r.Num().String()+".0"] = true
		}
	}
	addLen := func(x any) {
		r, ok := ratOf(x)
		if !ok || !r.IsInt() || r.Num().BitLen() > 10 {
			return
		}
		n := int(r.Num().Int64())
		for _, l := range []int{n - 1, n, n + 1} {
			if l >= 0 && l <= 300 {
				strs[strings.Repeat("a", l)] = true
			}
		}
	}
	for k, e := range m {
		switch k {
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
			addNum(e)
		case "minLength", "maxLength":
			addLen(e)
		case "const", "default":
			g.values = append(g.values, e)
		case "enum", "examples":
			if arr, ok := e.([]any); ok {
				g.values = append(g.values, arr...)
			}
		case "pattern":
			if p, ok := e.(string); ok {
				for _, s := range patternSamples(p) {
					strs[s] = true
				}
			}
		case "format":
			if f, ok := e.(string); ok && formatSamples[f] != "" {
				strs[formatSamples[f]] = true
			}
		case "required":
			if arr, ok := e.([]any); ok {
				for _, n := range arr {
					if s, ok := n.(string); ok {
						names[s] = true
					}
				}
			}
		case "properties", "dependentRequired", "dependentSchemas", "dependencies":
			if pm, ok := e.(map[string]any); ok {
				for n := range pm {
					names[n] = true
				}
			}
		case "patternProperties":
			if pm, ok := e.(map[string]any); ok {
				for p := range pm {
					for _, s := range patternSamples(p) {
						names[s] = true
					}
				}
			}
		}
		if k == "const" || k == "enum" || k == "default" || k == "examples" {
			continue
		}
		g.collect(e, nums, strs, names, depth+1)
	}
}

func ratOf(x any) (*big.Rat, bool) {
	switch x := x.(type) {
	case json.Number:
		return new(big.Rat).SetString(string(x))
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(x) == nil {
			return nil, false
		}
		return r, true
	}
	return nil, false
}

func lit(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	return strings.TrimRight(strings.TrimRight(r.FloatString(8), "0"), ".")
}

// patternSamples returns strings matching p: its shortest match, a longer
// one, and each with a prefix and suffix (patterns are not anchored).
func patternSamples(p string) []string {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	var gen func(r *syntax.Regexp, more bool, depth int) string
	gen = func(r *syntax.Regexp, more bool, depth int) string {
		if depth > 40 {
			return ""
		}
		switch r.Op {
		case syntax.OpLiteral:
			return string(r.Rune)
		case syntax.OpCharClass:
			if len(r.Rune) >= 2 {
				if more && r.Rune[1] > r.Rune[0] {
					return string(r.Rune[1])
				}
				return string(r.Rune[0])
			}
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			return "z"
		case syntax.OpCapture:
			return gen(r.Sub[0], more, depth+1)
		case syntax.OpStar, syntax.OpQuest:
			if more {
				return gen(r.Sub[0], more, depth+1)
			}
		case syntax.OpPlus:
			s := gen(r.Sub[0], more, depth+1)
			if more {
				return s + s
			}
			return s
		case syntax.OpRepeat:
			n := r.Min
			if more && r.Max != r.Min {
				n++
			}
			var sb strings.Builder
			for range min(n, 64) {
				sb.WriteString(gen(r.Sub[0], more, depth+1))
			}
			return sb.String()
		case syntax.OpConcat:
			var sb strings.Builder
			for _, s := range r.Sub {
				sb.WriteString(gen(s, more, depth+1))
			}
			return sb.String()
		case syntax.OpAlternate:
			if more {
				return gen(r.Sub[len(r.Sub)-1], more, depth+1)
			}
			return gen(r.Sub[0], more, depth+1)
		}
		return ""
	}
	a, b := gen(re, false, 0), gen(re, true, 0)
	return []string{a, b, "-" + a, a + "-"}
}

// seeds are the plain candidates tried first: every literal value, every
// pooled scalar, and the empty containers.
func (g *gen) seeds() []any {
	out := []any{nil, true, false, map[string]any{}, []any{}}
	out = append(out, g.values...)
	for _, n := range g.nums {
		out = append(out, n)
	}
	for _, s := range g.strs {
		out = append(out, s)
	}
	for _, n := range g.names {
		out = append(out, map[string]any{n: nil}, map[string]any{n: json.Number("1")}, map[string]any{n: ""}, map[string]any{n: map[string]any{}})
	}
	return out
}

func (g *gen) scalar() any {
	switch g.r.IntN(5) {
	case 0:
		return nil
	case 1:
		return g.r.IntN(2) == 0
	case 2:
		return g.nums[g.r.IntN(len(g.nums))]
	case 3:
		if len(g.values) > 0 && g.r.IntN(2) == 0 {
			return g.values[g.r.IntN(len(g.values))]
		}
		fallthrough
	default:
		return g.strs[g.r.IntN(len(g.strs))]
	}
}

// random is a blind random JSON value over the pools.
func (g *gen) random(depth int) any {
	k := g.r.IntN(7)
	if depth >= 3 || k < 4 {
		return g.scalar()
	}
	if k == 4 {
		n := g.r.IntN(g.maxSize)
		arr := make([]any, 0, n)
		for range n {
			arr = append(arr, g.random(depth+1))
		}
		return arr
	}
	n := g.r.IntN(g.maxSize)
	obj := make(map[string]any, n)
	for range n {
		obj[g.names[g.r.IntN(len(g.names))]] = g.random(depth + 1)
	}
	return obj
}

// shaped is a value built by a schema's shape: a branch of a combinator,
// its required members and some of its properties, its items.
func (g *gen) shaped(n node, depth int) any {
	if depth > 6 {
		return g.random(3)
	}
	m, ok := n.v.(map[string]any)
	if !ok {
		return g.random(depth)
	}
	if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#") && g.r.IntN(4) != 0 {
		return g.shaped(node{doc: n.doc, v: at(n.doc, unescapeFragment(ref[1:]))}, depth+1)
	}
	var branches []any
	for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
		if arr, ok := m[kw].([]any); ok {
			branches = append(branches, arr...)
		}
	}
	for _, kw := range []string{"then", "else", "if"} {
		if s, ok := m[kw]; ok {
			branches = append(branches, s)
		}
	}
	if len(branches) > 0 && g.r.IntN(3) != 0 {
		return g.shaped(node{doc: n.doc, v: branches[g.r.IntN(len(branches))]}, depth+1)
	}
	if vs, ok := m["enum"].([]any); ok && len(vs) > 0 {
		return vs[g.r.IntN(len(vs))]
	}
	if c, ok := m["const"]; ok {
		return c
	}
	types := typesOf(m)
	t := types[g.r.IntN(len(types))]
	switch t {
	case "object":
		obj := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		if req, ok := m["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					obj[s] = g.member(n, props[s], depth)
				}
			}
		}
		for _, name := range sortedKeys(props) {
			if g.r.IntN(2) == 0 {
				obj[name] = g.member(n, props[name], depth)
			}
		}
		if g.r.IntN(4) == 0 {
			obj[g.names[g.r.IntN(len(g.names))]] = g.random(depth + 1)
		}
		return obj
	case "array":
		var items []any
		if pre, ok := m["prefixItems"].([]any); ok {
			items = pre
		} else if pre, ok := m["items"].([]any); ok {
			items = pre
		}
		n2 := g.r.IntN(4)
		if len(items) > 0 {
			n2 = len(items) + g.r.IntN(2) - g.r.IntN(2)
		}
		arr := make([]any, 0, max(n2, 0))
		for i := 0; i < n2; i++ {
			var s any
			if i < len(items) {
				s = items[i]
			} else if it, ok := m["items"]; ok {
				if _, isArr := it.([]any); !isArr {
					s = it
				}
			}
			arr = append(arr, g.member(n, s, depth))
		}
		return arr
	case "integer":
		x := g.nums[g.r.IntN(len(g.nums))]
		if r, ok := ratOf(x); ok && !r.IsInt() {
			return json.Number(new(big.Int).Quo(r.Num(), r.Denom()).String())
		}
		return x
	case "number":
		return g.nums[g.r.IntN(len(g.nums))]
	case "string":
		return g.strs[g.r.IntN(len(g.strs))]
	case "boolean":
		return g.r.IntN(2) == 0
	case "null":
		return nil
	}
	return g.random(depth)
}

func (g *gen) member(n node, s any, depth int) any {
	if s == nil || g.r.IntN(5) == 0 {
		return g.random(depth + 1)
	}
	return g.shaped(node{doc: n.doc, v: s}, depth+1)
}

func typesOf(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	var out []string
	for _, kw := range []string{"properties", "required", "additionalProperties", "patternProperties"} {
		if _, ok := m[kw]; ok {
			out = append(out, "object")
			break
		}
	}
	for _, kw := range []string{"items", "prefixItems", "contains"} {
		if _, ok := m[kw]; ok {
			out = append(out, "array")
			break
		}
	}
	if len(out) == 0 {
		out = []string{"object", "array", "string", "number", "integer", "boolean", "null"}
	}
	return out
}

// mutate changes a value the first schema accepted, one step.
func (g *gen) mutate(v any, depth int) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v)+1)
		for k, e := range v {
			out[k] = e
		}
		keys := sortedKeys(out)
		switch k := g.r.IntN(4); {
		case k == 0 && len(keys) > 0:
			delete(out, keys[g.r.IntN(len(keys))])
		case k == 1 && len(keys) > 0 && depth < 4:
			key := keys[g.r.IntN(len(keys))]
			out[key] = g.mutate(out[key], depth+1)
		case k == 2 && len(keys) > 0:
			out[keys[g.r.IntN(len(keys))]] = g.scalar()
		default:
			out[g.names[g.r.IntN(len(g.names))]] = g.random(depth + 1)
		}
		return out
	case []any:
		out := append([]any{}, v...)
		switch k := g.r.IntN(4); {
		case k == 0 && len(out) > 0:
			out = out[:len(out)-1]
		case k == 1 && len(out) > 0 && depth < 4:
			i := g.r.IntN(len(out))
			out[i] = g.mutate(out[i], depth+1)
		case k == 2 && len(out) > 0:
			out = append(out, out[0])
		default:
			out = append(out, g.random(depth+1))
		}
		return out
	case json.Number:
		if r, ok := ratOf(v); ok && r.IsInt() && g.r.IntN(2) == 0 {
			return json.Number(r.Num().String() + ".0")
		}
	}
	return g.scalar()
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func unescapeFragment(f string) string {
	if s, err := url.PathUnescape(f); err == nil {
		return s
	}
	return f
}
