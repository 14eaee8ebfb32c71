package compat

import (
	"encoding/json"
	"math/big"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
)

// This file generates candidate instances for witness search: values that
// a schema is likely to accept (its const/enum/examples/default, boundary
// values of its bounds, strings made from its patterns and formats, objects
// with its required members and each documented optional member, arrays at
// its length bounds) mixed with the boundaries and names of a hint schema
// (the other side of the comparison), so that values near the other side's
// limits are tried too. Candidates are only candidates: a witness is kept
// only after the real validator checked it against both schemas.

// maxCandidates bounds the values one generator call returns.
const maxCandidates = 48

// genDepth bounds nesting (objects in arrays in objects ...).
const genDepth = 3

type generator struct {
	e *engine
}

// genKey names a values call for the engine's memo.
func genKey(s sref, hs []sref, depth int) string {
	k := s.key() + "@" + strconv.Itoa(depth)
	for _, h := range hs {
		k += "|" + h.key()
	}
	return k
}

// numLit makes a JSON number from a rational (integers exact, others as
// a decimal string).
func numLit(r *big.Rat) json.Number {
	if r.IsInt() {
		return json.Number(r.Num().String())
	}
	return json.Number(r.FloatString(6))
}

func ratInt(n int64) *big.Rat { return new(big.Rat).SetInt64(n) }

// hintBag collects numbers, lengths, strings and member names of the hint
// schemas (one level: the keywords of the nodes themselves and their
// flattened conjunction).
type hintBag struct {
	nums    []*big.Rat
	lens    []int64
	names   []string
	values  []any
	formats []string
	pats    []string
}

func (g *generator) hints(hs []sref) hintBag {
	if len(hs) == 1 {
		return g.hintsOf(hs[0])
	}
	var b hintBag
	for _, h := range hs {
		b.add(g.hintsOf(h))
	}
	return b
}

// hintsOf is the hintBag of one hint schema, computed once per
// comparison (engine.hintMemo; callers do not change it).
func (g *generator) hintsOf(h sref) hintBag {
	k := h.key()
	if b, ok := g.e.hintMemo[k]; ok {
		return b
	}
	b := g.hintsUncached(h)
	g.e.hintMemo[k] = b
	return b
}

func (g *generator) hintsUncached(h sref) hintBag {
	var b hintBag
	{
		atoms, neg, disj, _ := g.e.flatten(conj{atoms: []sref{h}})
		for _, n := range neg {
			more, _, _, _ := g.e.flatten(conj{atoms: []sref{n}})
			atoms = append(atoms, more...)
		}
		for _, d := range disj {
			for _, a := range d.alts {
				for _, p := range a.pos {
					more, _, _, _ := g.e.flatten(conj{atoms: []sref{p}})
					atoms = append(atoms, more...)
				}
			}
		}
		for _, s := range atoms {
			b.add(g.atomHints(s))
		}
	}
	return b
}

// add appends the hints of o to b.
func (b *hintBag) add(o hintBag) {
	b.nums = append(b.nums, o.nums...)
	b.lens = append(b.lens, o.lens...)
	b.names = append(b.names, o.names...)
	b.values = append(b.values, o.values...)
	b.formats = append(b.formats, o.formats...)
	b.pats = append(b.pats, o.pats...)
}

// atomHints is the hintBag of one flat atom's own keywords, computed
// once per comparison (engine.atomHintMemo).
func (g *generator) atomHints(s sref) hintBag {
	k := s.key()
	if b, ok := g.e.atomHintMemo[k]; ok {
		return b
	}
	var b hintBag
	m, _ := s.m()
	for _, kw := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
		if r, ok := rat(m[kw]); ok {
			b.nums = append(b.nums, r)
		}
	}
	for _, kw := range []string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"} {
		if n, ok := intOf(m[kw]); ok {
			b.lens = append(b.lens, n)
		}
	}
	if vs, ok := valueList(m); ok {
		b.values = append(b.values, vs...)
	}
	for _, kw := range []string{"examples"} {
		if arr, ok := m[kw].([]any); ok {
			b.values = append(b.values, arr...)
		}
	}
	if v, ok := m["default"]; ok {
		b.values = append(b.values, v)
	}
	if p, ok := m["properties"].(map[string]any); ok {
		b.names = append(b.names, sortedKeys(p)...)
	}
	b.names = append(b.names, sortedKeys(stringSet(m["required"]))...)
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		for _, p := range sortedKeys(pp) {
			b.pats = append(b.pats, p)
			b.names = append(b.names, regexSamples(p)...)
		}
	}
	if p, ok := m["pattern"].(string); ok {
		b.pats = append(b.pats, p)
	}
	if f, ok := m["format"].(string); ok {
		b.formats = append(b.formats, f)
	}
	for _, kw := range []string{"contains", "propertyNames"} {
		if sub, ok := m[kw]; ok {
			more, _, _, _ := g.e.flatten(conj{atoms: []sref{s.sub(sub, kw)}})
			for _, x := range more {
				xm, _ := x.m()
				for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
					if r, ok := rat(xm[k]); ok {
						b.nums = append(b.nums, r)
					}
				}
				for _, k := range []string{"minLength", "maxLength"} {
					if n, ok := intOf(xm[k]); ok {
						b.lens = append(b.lens, n)
					}
				}
			}
		}
	}
	if dr, ok := m["dependentRequired"].(map[string]any); ok {
		for _, k := range sortedKeys(dr) {
			b.names = append(b.names, k)
			b.names = append(b.names, sortedKeys(stringSet(dr[k]))...)
		}
	}
	if ds, ok := m["dependentSchemas"].(map[string]any); ok {
		b.names = append(b.names, sortedKeys(ds)...)
	}
	g.e.atomHintMemo[k] = b
	return b
}

// values returns candidate instances for s, trying hint boundaries too.
func (g *generator) values(s sref, hs []sref, depth int) []any {
	return g.keyedValues(s, hs, depth).vals
}

// keyed is a list of candidates with the jsonText of each (keys[i] is
// that of vals[i]), as a candSet lists them.
type keyed struct {
	vals []any
	keys []string
}

// keyedValues is values with each candidate's jsonText.
func (g *generator) keyedValues(s sref, hs []sref, depth int) keyed {
	if g.e.stop() {
		return keyed{}
	}
	k := genKey(s, hs, depth)
	if v, ok := g.e.genMemo[k]; ok {
		return v
	}
	g.e.genMemo[k] = keyed{} // a recursive schema met again generates nothing more
	v := g.valuesUncached(s, hs, depth)
	g.e.genMemo[k] = v
	return v
}

func (g *generator) valuesUncached(s sref, hs []sref, depth int) keyed {
	s = s.deref()
	hb := g.hints(append([]sref{s}, hs...))
	out := newCandSet()
	for _, v := range hb.values {
		out.add(v)
	}
	m, isFalse := s.m()
	if isFalse {
		return out.keyedList()
	}
	_ = m
	alts, ok := g.e.expandN(conj{atoms: []sref{s}}, 12)
	if !ok || len(alts) == 0 {
		alts = []conj{{atoms: []sref{s}}}
	}
	for _, a := range alts {
		g.forConj(a, hs, hb, depth, out)
		if len(out.vals) >= maxCandidates*2 {
			break
		}
	}
	return out.keyedList()
}

type candSet struct {
	seen map[string]bool
	vals []any
	// keys[i] is the jsonText of vals[i]
	keys []string
}

func newCandSet() *candSet { return &candSet{seen: map[string]bool{}} }

func (vs *candSet) add(v any) {
	if vs.full() {
		return // list would cut it off: no need to key it
	}
	vs.addKeyed(v, "")
}

// addKeyed is add with v's jsonText already known (k; "" when not).
func (vs *candSet) addKeyed(v any, k string) {
	if vs.full() {
		return
	}
	if k == "" {
		k = jsonText(v)
	}
	if vs.seen[k] {
		return
	}
	vs.seen[k] = true
	vs.vals = append(vs.vals, v)
	vs.keys = append(vs.keys, k)
}

// full reports whether vs holds as many values as list returns, so that
// nothing added later can be listed.
func (vs *candSet) full() bool { return len(vs.vals) >= maxCandidates*2 }

func (vs *candSet) list() []any {
	if len(vs.vals) > maxCandidates*2 {
		return vs.vals[:maxCandidates*2]
	}
	return vs.vals
}

// keyedList is list with each value's jsonText.
func (vs *candSet) keyedList() keyed {
	n := min(len(vs.vals), maxCandidates*2)
	return keyed{vals: vs.vals[:n], keys: vs.keys[:n]}
}

// forConj adds candidates for one flat alternative.
func (g *generator) forConj(a conj, hs []sref, hb hintBag, depth int, out *candSet) {
	f := g.e.factsOf(a)
	if f.finite {
		for _, v := range f.vals {
			out.add(v)
		}
	}
	types := f.types
	if types == 0 {
		types = tAll // still try: facts may be too coarse
	}
	for _, s := range a.atoms {
		m, _ := s.m()
		if arr, ok := m["examples"].([]any); ok {
			for _, v := range arr {
				out.add(v)
			}
		}
		if v, ok := m["default"]; ok {
			out.add(v)
		}
	}
	if types&tNull != 0 {
		out.add(nil)
	}
	if types&tBool != 0 {
		out.add(true)
		out.add(false)
	}
	if types&tNum != 0 {
		for _, n := range g.numbers(f, hb, types) {
			out.add(n)
		}
	}
	if types&tStr != 0 {
		for _, s := range g.strings(f, hb) {
			out.add(s)
		}
	}
	if depth >= genDepth {
		if types&tArr != 0 {
			out.add([]any{})
		}
		if types&tObj != 0 {
			out.add(map[string]any{})
		}
		return
	}
	if out.full() {
		return // objects and arrays below could not be listed
	}
	if types&tObj != 0 {
		g.objects(a, f, hs, hb, depth, out)
	}
	if types&tArr != 0 && !out.full() {
		for _, arr := range g.arrays(a, f, hs, hb, depth) {
			out.add(arr)
		}
	}
}

func (g *generator) numbers(f facts, hb hintBag, types tmask) []any {
	var base []*big.Rat
	add := func(r *big.Rat) { base = append(base, r) }
	for _, n := range []int64{0, 1, -1, 10} {
		add(ratInt(n))
	}
	for _, r := range append(append([]*big.Rat{}, hb.nums...), f.lo, f.hi) {
		if r == nil {
			continue
		}
		add(r)
		add(new(big.Rat).Add(r, ratInt(1)))
		add(new(big.Rat).Sub(r, ratInt(1)))
		add(new(big.Rat).Add(r, big.NewRat(1, 2)))
		add(new(big.Rat).Sub(r, big.NewRat(1, 2)))
		add(new(big.Rat).Mul(r, ratInt(2)))
		add(new(big.Rat).Mul(r, ratInt(3)))
		add(new(big.Rat).Mul(r, ratInt(7)))
	}
	for _, m := range f.mults {
		for _, k := range []int64{1, 2, 3, 5} {
			add(new(big.Rat).Mul(m, ratInt(k)))
		}
		if f.lo != nil {
			q := new(big.Rat).Quo(f.lo, m)
			n := intLo(q, false)
			add(new(big.Rat).Mul(m, new(big.Rat).SetInt(n)))
			add(new(big.Rat).Mul(m, new(big.Rat).SetInt(new(big.Int).Add(n, big.NewInt(1)))))
		}
	}
	add(big.NewRat(1, 2))
	var out []any
	seen := map[string]bool{}
	for _, r := range base {
		if r.IsInt() && types&tInt == 0 {
			continue
		}
		if !r.IsInt() && types&tFrac == 0 {
			continue
		}
		n := numLit(r)
		if !seen[string(n)] {
			seen[string(n)] = true
			out = append(out, n)
		}
	}
	return out
}

// formatSamples are values valid for each format the validator asserts.
var formatSamples = map[string][]string{
	"date-time":             {"2020-01-01T00:00:00Z"},
	"date":                  {"2020-01-01"},
	"time":                  {"00:00:00Z"},
	"duration":              {"P1D"},
	"email":                 {"a@example.com"},
	"idn-email":             {"a@example.com"},
	"hostname":              {"example.com"},
	"idn-hostname":          {"example.com"},
	"ipv4":                  {"127.0.0.1"},
	"ipv6":                  {"::1"},
	"uri":                   {"https://example.com/a"},
	"iri":                   {"https://example.com/a"},
	"uri-reference":         {"a/b"},
	"iri-reference":         {"a/b"},
	"uri-template":          {"a{b}"},
	"uuid":                  {"123e4567-e89b-12d3-a456-426614174000"},
	"json-pointer":          {"/a"},
	"relative-json-pointer": {"0/a"},
	"regex":                 {"^a"},
	"semver":                {"1.0.0"},
}

func (g *generator) strings(f facts, hb hintBag) []any {
	var out []any
	lens := []int64{0, 1, f.minLen, f.minLen + 1}
	if f.maxLen >= 0 {
		lens = append(lens, f.maxLen, f.maxLen+1)
	}
	for _, l := range hb.lens {
		lens = append(lens, l-1, l, l+1)
	}
	for _, l := range lens {
		if l >= 0 && l <= 512 {
			out = append(out, strings.Repeat("a", int(l)))
		}
	}
	var pats []string
	for p := range f.patterns {
		pats = append(pats, p)
	}
	pats = append(pats, hb.pats...)
	for _, p := range pats {
		for _, s := range regexSamples(p) {
			out = append(out, s)
			if int64(len(s)) < f.minLen {
				out = append(out, s+strings.Repeat("a", int(f.minLen)-len(s)))
			}
		}
	}
	var fmts []string
	for fm := range f.formats {
		fmts = append(fmts, fm)
	}
	fmts = append(fmts, hb.formats...)
	for _, fm := range fmts {
		for _, s := range formatSamples[fm] {
			out = append(out, s)
		}
	}
	out = append(out, "x", "A", "0")
	for _, n := range hb.names {
		out = append(out, n)
	}
	return out
}

// regexSamples returns strings matching pattern p: its shortest match and a
// longer one (quantifiers taken twice).
func regexSamples(p string) []string {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	var gen func(r *syntax.Regexp, more bool) string
	gen = func(r *syntax.Regexp, more bool) string {
		switch r.Op {
		case syntax.OpLiteral:
			return string(r.Rune)
		case syntax.OpCharClass:
			if len(r.Rune) >= 2 {
				lo, hi := r.Rune[0], r.Rune[1]
				if lo <= 'a' && 'a' <= hi {
					return "a"
				}
				return string(lo)
			}
			return "a"
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			return "a"
		case syntax.OpCapture:
			return gen(r.Sub[0], more)
		case syntax.OpStar, syntax.OpQuest:
			if more {
				return gen(r.Sub[0], more)
			}
			return ""
		case syntax.OpPlus:
			s := gen(r.Sub[0], more)
			if more {
				return s + s
			}
			return s
		case syntax.OpRepeat:
			var sb strings.Builder
			n := r.Min
			if more && r.Max != r.Min {
				n++
			}
			for range n {
				sb.WriteString(gen(r.Sub[0], more))
			}
			return sb.String()
		case syntax.OpConcat:
			var sb strings.Builder
			for _, s := range r.Sub {
				sb.WriteString(gen(s, more))
			}
			return sb.String()
		case syntax.OpAlternate:
			return gen(r.Sub[0], more)
		}
		return ""
	}
	a, b := gen(re, false), gen(re, true)
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

// ordered moves to the front the first few candidates c accepts (objects
// and arrays are built from the first candidates of their members), the
// others keep their order. It validates only until it found them:
// validating every candidate of every member cost most of a comparison.
// The keys (jsonText) of cands move with their values.
func (g *generator) ordered(c conj, cands keyed) keyed {
	const want = 2
	var good, bad []int
	for i, v := range cands.vals {
		if len(good) >= want {
			for j := i; j < len(cands.vals); j++ {
				bad = append(bad, j)
			}
			break
		}
		if g.e.acceptsAll(c, v) {
			good = append(good, i)
		} else {
			bad = append(bad, i)
		}
	}
	out := keyed{vals: make([]any, 0, len(cands.vals)), keys: make([]string, 0, len(cands.vals))}
	for _, i := range append(good, bad...) {
		out.vals = append(out.vals, cands.vals[i])
		out.keys = append(out.keys, cands.keys[i])
	}
	return out
}

// childValues returns candidates for a member or item schema conjunction,
// with their jsonText. One atom's candidates are its values as they are
// (a candSet lists them: distinct, at most its limit); several are
// merged into a candSet of their own, keyed by the texts they come with.
func (g *generator) childValues(c conj, hc conj, depth int) keyed {
	if len(c.atoms) == 1 {
		return g.ordered(c, g.keyedValues(c.atoms[0], hc.atoms, depth+1))
	}
	vs := newCandSet()
	for _, s := range c.atoms {
		kv := g.keyedValues(s, hc.atoms, depth+1)
		for i, v := range kv.vals {
			vs.addKeyed(v, kv.keys[i])
		}
	}
	if len(c.atoms) == 0 {
		for _, v := range []any{nil, true, json.Number("0"), "", map[string]any{}, []any{}} {
			vs.add(v)
		}
		for _, s := range hc.atoms {
			kv := g.keyedValues(s, nil, depth+1)
			for i, v := range kv.vals {
				vs.addKeyed(v, kv.keys[i])
			}
		}
	}
	return g.ordered(c, vs.keyedList())
}

// objects adds object candidates to out, in a fixed order, until out is
// full. Each is keyed by its jsonText composed from those of its member
// values (memberKey), each computed once, instead of canonicalizing every
// candidate: they share most members (a few hundred objects of up to
// maxNames members each).
func (g *generator) objects(a conj, f facts, hs []sref, hb hintBag, depth int, out *candSet) {
	hc := conj{atoms: hs}
	names := map[string]bool{}
	for _, s := range a.atoms {
		m, _ := s.m()
		if p, ok := m["properties"].(map[string]any); ok {
			for n := range p {
				names[n] = true
			}
		}
		if pp, ok := m["patternProperties"].(map[string]any); ok {
			for p := range pp {
				for _, n := range regexSamples(p) {
					names[n] = true
				}
			}
		}
	}
	for _, n := range hb.names {
		names[n] = true
	}
	for r := range f.required {
		names[r] = true
	}
	for _, s := range append(append([]sref{}, a.atoms...), hs...) {
		m, _ := s.m()
		if pn, ok := m["propertyNames"]; ok {
			for _, v := range g.values(s.sub(pn, "propertyNames"), nil, genDepth) {
				if str, ok := v.(string); ok && len(names) < 64 {
					names[str] = true
				}
			}
		}
	}
	for r := range f.required {
		names[r] = true
	}
	names = g.prioritize(a, hc, f, names, maxNames>>depth)
	cands := map[string][]any{}
	candKeys := map[string][]string{}
	for _, n := range sortedKeys(names) {
		kv := g.childValues(g.e.applicable(a, n), g.e.applicable(hc, n), depth)
		cands[n], candKeys[n] = kv.vals, kv.keys
	}
	base := map[string]any{}
	for _, r := range sortedKeys(f.required) {
		if len(cands[r]) > 0 {
			base[r] = cands[r][0]
		}
	}
	clone := func(m map[string]any) map[string]any {
		out := make(map[string]any, len(m)+1)
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	textOf := func(n string, i int) string { return candKeys[n][i] }
	// the names in name order, each as a JSON string, for memberKey
	order := newMemberOrder(sortedKeys(names))
	// emit adds o, whose member texts are mt; false once out is full
	emit := func(o map[string]any, mt map[string]string) bool {
		out.addKeyed(o, order.key(mt))
		return !out.full()
	}
	cloneT := func(m map[string]string) map[string]string {
		out := make(map[string]string, len(m)+1)
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	baseT := map[string]string{}
	for n := range base {
		baseT[n] = textOf(n, 0)
	}
	if !emit(base, baseT) {
		return
	}
	full := clone(base)
	fullT := cloneT(baseT)
	for _, n := range sortedKeys(names) {
		if _, ok := full[n]; !ok && len(cands[n]) > 0 {
			full[n] = cands[n][0]
			fullT[n] = textOf(n, 0)
		}
	}
	if !emit(full, fullT) {
		return
	}
	for _, n := range sortedKeys(names) {
		limit := 6
		for i, v := range cands[n] {
			if i >= limit {
				break
			}
			o := clone(base)
			o[n] = v
			ot := cloneT(baseT)
			ot[n] = textOf(n, i)
			if !emit(o, ot) {
				return
			}
			o2 := clone(full)
			o2[n] = v
			o2t := cloneT(fullT)
			o2t[n] = textOf(n, i)
			if !emit(o2, o2t) {
				return
			}
		}
	}
	for _, n := range sortedKeys(full) {
		if f.required[n] {
			continue
		}
		o := clone(full)
		delete(o, n)
		ot := cloneT(fullT)
		delete(ot, n)
		if !emit(o, ot) {
			return
		}
	}
	for _, extra := range []string{"x-conform-extra", "b", "a"} {
		if names[extra] {
			continue
		}
		o := clone(base)
		o[extra] = json.Number("1")
		ot := cloneT(baseT)
		ot[extra] = "1"
		if !emit(o, ot) {
			return
		}
		// the open-object default: a member no keyword names may hold any
		// value, so try the values the other schema's region for that
		// name tells apart (its additionalProperties, a pattern), and
		// null, which few regions allow
		kv := g.childValues(g.e.applicable(a, extra), g.e.applicable(hc, extra), depth)
		vals := append([]any{nil}, kv.vals...)
		for i, v := range vals {
			if i >= 5 {
				break
			}
			o := clone(base)
			o[extra] = v
			ot := cloneT(baseT)
			if i == 0 {
				ot[extra] = "null"
			} else {
				ot[extra] = kv.keys[i-1]
			}
			if !emit(o, ot) {
				return
			}
		}
		break
	}
	// fill up to minProperties with extra members
	if f.minProps > int64(len(base)) {
		o := clone(full)
		ot := cloneT(fullT)
		for i := 0; int64(len(o)) < f.minProps && i < 64; i++ {
			o["p"+strconv.Itoa(i)] = json.Number("1")
			ot["p"+strconv.Itoa(i)] = "1"
		}
		emit(o, ot)
	}
}

// memberKey composes the RFC 8785 text of an object from its members'
// texts (name → jsonText of the value), as canon writes it: members in
// the UTF-16 order of their names, no whitespace. That order is Go's
// byte order unless a name holds a code point from U+E000 (UTF-8 lead
// byte 0xEE and up); then it returns "" and the caller canonicalizes.
func memberKey(mt map[string]string) string {
	names := make([]string, 0, len(mt))
	n := 2
	for k, t := range mt {
		for i := 0; i < len(k); i++ {
			if k[i] >= 0xEE {
				return ""
			}
		}
		names = append(names, k)
		n += len(k) + len(t) + 4
	}
	slices.Sort(names)
	var b strings.Builder
	b.Grow(n)
	b.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonText(k))
		b.WriteByte(':')
		b.WriteString(mt[k])
	}
	b.WriteByte('}')
	return b.String()
}

// memberOrder is a set of member names in Go's byte order, each with its
// JSON text, so that memberKey's result for objects of those names is
// composed without sorting or quoting names again.
type memberOrder struct {
	names  []string
	quoted []string
	// high: a name holds a byte from 0xEE (memberKey falls back)
	high bool
}

func newMemberOrder(sorted []string) memberOrder {
	o := memberOrder{names: sorted, quoted: make([]string, len(sorted))}
	for i, n := range sorted {
		o.quoted[i] = jsonText(n)
		for j := 0; j < len(n); j++ {
			if n[j] >= 0xEE {
				o.high = true
			}
		}
	}
	return o
}

// key is memberKey(mt): the same text when every name of mt is one of
// o's (and none holds a byte from 0xEE), else memberKey's own answer.
func (o memberOrder) key(mt map[string]string) string {
	if o.high {
		return memberKey(mt)
	}
	n, size := 0, 2
	for i, k := range o.names {
		if t, ok := mt[k]; ok {
			n++
			size += len(o.quoted[i]) + len(t) + 2
		}
	}
	if n != len(mt) {
		return memberKey(mt)
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteByte('{')
	first := true
	for i, k := range o.names {
		t, ok := mt[k]
		if !ok {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(o.quoted[i])
		b.WriteByte(':')
		b.WriteString(t)
	}
	b.WriteByte('}')
	return b.String()
}

// maxNames bounds the member names one object candidate varies: an
// object type with hundreds of properties (renovate's configuration has
// about 200) would otherwise give objects of hundreds of members at each
// of genDepth levels, gigabytes of candidates.
const maxNames = 24

// prioritize keeps at most limit names (maxNames at the top, halved at
// each level down): the required ones, then those
// whose schemas differ between the two sides (declared on one side only,
// or not equal), then the rest in name order.
func (g *generator) prioritize(a, hc conj, f facts, names map[string]bool, limit int) map[string]bool {
	if len(names) <= limit {
		return names
	}
	keep := map[string]bool{}
	for _, n := range sortedKeys(f.required) {
		if len(keep) < limit {
			keep[n] = true
		}
	}
	sameSide := func(n string) bool {
		x, y := g.e.applicable(a, n), g.e.applicable(hc, n)
		if len(x.atoms) != len(y.atoms) {
			return false
		}
		for i := range x.atoms {
			if !g.e.eqS(x.atoms[i], y.atoms[i]) {
				return false
			}
		}
		return true
	}
	var rest []string
	for _, n := range sortedKeys(names) {
		if keep[n] {
			continue
		}
		if len(keep) < limit && !sameSide(n) {
			keep[n] = true
			continue
		}
		rest = append(rest, n)
	}
	for _, n := range rest {
		if len(keep) >= limit {
			break
		}
		keep[n] = true
	}
	return keep
}

func (g *generator) arrays(a conj, f facts, hs []sref, hb hintBag, depth int) []any {
	hc := conj{atoms: hs}
	k := 0
	for _, s := range append(append([]sref{}, a.atoms...), hs...) {
		m, _ := s.m()
		if pre, ok := m["prefixItems"].([]any); ok && len(pre) > k {
			k = len(pre)
		}
	}
	itemCands := make([][]any, k+1)
	for i := 0; i <= k; i++ {
		itemCands[i] = g.childValues(g.e.item(a, i), g.e.item(hc, i), depth).vals
		if len(itemCands[i]) > 8 {
			itemCands[i] = itemCands[i][:8]
		}
	}
	at := func(i, j int) (any, bool) {
		c := itemCands[min(i, k)]
		if len(c) == 0 {
			return nil, false
		}
		return c[j%len(c)], true
	}
	build := func(n int, vary, j int) []any {
		arr := make([]any, 0, n)
		for i := 0; i < n; i++ {
			jj := 0
			if i == vary {
				jj = j
			}
			v, ok := at(i, jj)
			if !ok {
				return nil
			}
			arr = append(arr, v)
		}
		return arr
	}
	var out []any
	lens := []int64{0, 1, 2, int64(k), int64(k) + 1, f.minItems, f.minItems + 1}
	if f.maxItems >= 0 {
		lens = append(lens, f.maxItems, f.maxItems+1)
	}
	for _, l := range hb.lens {
		lens = append(lens, l-1, l, l+1)
	}
	seen := map[int64]bool{}
	for _, l := range lens {
		if l < 0 || l > 64 || seen[l] {
			continue
		}
		seen[l] = true
		if arr := build(int(l), -1, 0); arr != nil {
			out = append(out, arr)
		}
	}
	n := max(int(f.minItems), 1, k)
	for i := 0; i <= k && i < n; i++ {
		for j := 1; j < len(itemCands[min(i, k)]); j++ {
			if arr := build(n, i, j); arr != nil {
				out = append(out, arr)
			}
		}
	}
	// items drawn from contains schemas (of a and of the hints)
	for _, s := range append(append([]sref{}, a.atoms...), hs...) {
		m, _ := s.m()
		if cv, ok := m["contains"]; ok {
			for i, v := range g.values(s.sub(cv, "contains"), nil, depth+1) {
				if i >= 12 {
					break
				}
				out = append(out, []any{v})
			}
		}
	}
	// duplicates, for uniqueItems
	if v, ok := at(0, 0); ok {
		out = append(out, []any{v, v})
	}
	return out
}

// witness searches an instance that x accepts and y rejects, both checked
// with the real validator. It returns the instance and true when found.
func (e *engine) witness(x, y sref) (any, bool) {
	return e.witnessWhere(x, y, nil)
}

// witnessWhere is witness with an extra condition on the instance.
func (e *engine) witnessWhere(x, y sref, also func(any) bool) (any, bool) {
	if e.stop() || x.d == nil || y.d == nil || x.d.std == nil || y.d.std == nil {
		return nil, false
	}
	for _, v := range e.separating(x, y) {
		if also == nil || also(v) {
			return v, true
		}
	}
	return nil, false
}

// maxValidations bounds the candidates one witness search validates.
const maxValidations = 600

// separating returns the generated candidates that x accepts and y
// rejects, by the real validator, in generation order (cached per pair).
func (e *engine) separating(x, y sref) []any {
	k := x.key() + "\x00" + y.key()
	if v, ok := e.sepMemo[k]; ok {
		return v
	}
	if !e.validatable(x) || !e.validatable(y) {
		// the search below would stop at its first candidate, unable to
		// validate it: nothing to generate
		e.sepMemo[k] = nil
		return nil
	}
	g := &generator{e: e}
	var out []any
	n := 0
	try := func(cands []any) bool {
		for _, v := range cands {
			if e.stop() || n >= maxValidations {
				return false
			}
			n++
			okX, knownX := e.valid(x, v)
			if !knownX {
				return false
			}
			if !okX {
				continue
			}
			okY, knownY := e.valid(y, v)
			if !knownY {
				return false
			}
			if !okY {
				out = append(out, v)
				if len(out) >= 8 {
					return false
				}
			}
		}
		return true
	}
	if try(g.values(x, []sref{y}, 0)) {
		try(g.values(y, []sref{x}, 0))
	}
	e.sepMemo[k] = out
	return out
}
