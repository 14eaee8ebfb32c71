package compat

import (
	"context"
	"math"
	"math/big"
	"os"
	"regexp"
	"regexp/syntax"
	"runtime/metrics"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/internal/kiterr"
)

// This file is the semantic half of compat: a sound inclusion prover over
// draft 2020-12 schemas (after translate). prove(A, B) returns true only
// when every instance A accepts, B accepts too; false means "not proven"
// (a witness search, witness.go, then tries to show it is false). Every
// rule below only ever strengthens what A must imply, so a true answer is a
// proof; where a rule cannot decide it answers false.
//
// A conjunction (conj) is a list of schema nodes that must all hold
// ("atoms": their keywords other than allOf/anyOf/oneOf/not/if, which are
// flattened: allOf entries and a $ref are more atoms, not entries are
// negations, anyOf/oneOf/if are expanded into alternatives). Recursion
// through $ref is assumed to hold on a cycle (coinduction over finite
// instances); results are memoized per conjunction and schema.

// sref is one schema: a node of a document at a location, or a synthetic
// node (d == nil) such as {"type":"string"} made by a type split.
type sref struct {
	d   *doc
	v   any
	loc string
	// view is set on a node with some keywords stripped (expand); its
	// subschemas are the node's own.
	view string
}

func (s sref) key() string {
	if s.d == nil {
		return "s:" + jsonText(s.v)
	}
	return s.d.name + ":" + s.loc + s.view
}

// conj is a conjunction: every atom holds, no negation does, and one
// alternative of each pending disjunction holds.
type conj struct {
	atoms []sref
	neg   []sref
	disj  []disjunction
}

func (a conj) with(s sref) conj {
	return conj{atoms: append(append([]sref{}, a.atoms...), s), neg: a.neg, disj: a.disj}
}

func (a conj) withNeg(s sref) conj {
	return conj{atoms: a.atoms, neg: append(append([]sref{}, a.neg...), s), disj: a.disj}
}

func (a conj) key() string {
	ks := make([]string, 0, len(a.atoms))
	for _, s := range a.atoms {
		ks = append(ks, s.key())
	}
	sort.Strings(ks)
	ns := make([]string, 0, len(a.neg))
	for _, s := range a.neg {
		ns = append(ns, s.key())
	}
	sort.Strings(ns)
	k := strings.Join(ks, ",") + "!" + strings.Join(ns, ",")
	for _, d := range a.disj {
		k += "?" + d.kind
		for _, x := range d.alts {
			for _, p := range x.pos {
				k += "+" + p.key()
			}
			for _, p := range x.neg {
				k += "-" + p.key()
			}
		}
	}
	return k
}

// engine holds the memo tables of one Compare call.
type engine struct {
	ctx        context.Context
	opt        Options
	memo       map[string]bool
	inProgress map[string]progress // prove calls under way
	descents   int                 // prove calls that moved into a member or item
	level      int                 // nesting of prove calls
	// minDep is the lowest level of a prove call under way whose
	// coinductive assumption the current computation used; a result is
	// memoized only when it used none below its own level.
	minDep int
	// prov holds the true results that rested on a coinductive
	// assumption of a call still under way (see prove); provLog lists
	// their keys in the order they were made, frames the prove calls
	// under way, innermost last
	prov      map[string]provisional
	provLog   []string
	frames    []frame
	eqMemo    map[string]bool
	emptyMemo map[string]bool
	depth     int
	err       error
	regexps   map[string]*regexp.Regexp
	genMemo   map[string]keyed // generator results (gen.go)
	hintMemo  map[string]hintBag
	// atomHintMemo: the hints of one flat atom (gen.go)
	atomHintMemo map[string]hintBag
	flatMemo     map[string][]flatPart
	// memLimit bounds the heap (bytes; negative: none); polls counts stop
	// calls, sample is the runtime/metrics buffer
	memLimit int64
	polls    int
	sample   []metrics.Sample
	sepMemo  map[string][]any // separating candidates per schema pair
	// expandMemo remembers expandN's alternatives per conjunction
	expandMemo map[string]expansion
	// work counts, for the cost tests (Stats): validator calls, prove
	// calls not answered by a memo
	validations, proofs, expansions int
	// evaluations sums the unfolding (doc.unfold) of each validated
	// location: a bound on the validator's own work
	evaluations int64
}

func newEngine(ctx context.Context, opt Options) *engine {
	limit := opt.MemoryLimit
	if limit == 0 {
		limit = DefaultMemoryLimit
	}
	return &engine{ctx: ctx, opt: opt, memLimit: limit, sample: []metrics.Sample{{Name: metricMapped}, {Name: metricReleased}}, memo: map[string]bool{}, inProgress: map[string]progress{}, prov: map[string]provisional{}, minDep: math.MaxInt,
		eqMemo: map[string]bool{}, emptyMemo: map[string]bool{}, regexps: map[string]*regexp.Regexp{},
		genMemo: map[string]keyed{}, hintMemo: map[string]hintBag{}, atomHintMemo: map[string]hintBag{}, sepMemo: map[string][]any{}, flatMemo: map[string][]flatPart{}, expandMemo: map[string]expansion{}}
}

// stop reports whether the engine must give up (context done, or the heap
// past [Options].MemoryLimit); the error is kept for Compare.
func (e *engine) stop() bool {
	if e.err != nil {
		return true
	}
	if err := e.ctx.Err(); err != nil {
		e.err = ctxErr(err)
		return true
	}
	e.polls++
	if e.memLimit > 0 && e.polls%memPollEvery == 0 {
		if heap := heapBytes(e.sample); heap > e.memLimit {
			e.err = kiterr.New(kiterr.CompatMemory, "compare schemas: the process's memory reached %s, past the memory bound of %s (--memory)", showBytes(heap), showBytes(e.memLimit))
			return true
		}
	}
	return false
}

// showBytes prints a byte count in MiB, or KiB below one MiB.
func showBytes(n int64) string {
	if n < 1<<20 {
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n>>20, 10) + " MiB"
}

// memPollEvery is how many stop calls pass between two reads of the heap
// size (a read costs about a microsecond).
const memPollEvery = 256

// The runtime/metrics heapBytes reads when the process's resident set
// cannot be read: every byte the runtime mapped (heap, stacks,
// metadata), less the heap it gave back to the system.
const (
	metricMapped   = "/memory/classes/total:bytes"
	metricReleased = "/memory/classes/heap/released:bytes"
)

// heapBytes reads the memory of the process: its resident set
// (/proc/self/statm on Linux: the jsonschema compiler's and validator's
// allocations, goroutine stacks of deep recursion, runtime metadata and
// cgo alike), else what the Go runtime mapped and did not release
// (runtime/metrics, into sample). The heap of live objects alone
// ("/memory/classes/heap/objects:bytes", read before issue 33) missed
// stacks and free heap not yet returned, which let --memory 64MiB reach
// 600 MB.
func heapBytes(sample []metrics.Sample) int64 {
	if rss, ok := residentBytes(); ok {
		return rss
	}
	metrics.Read(sample)
	if len(sample) < 2 || sample[0].Value.Kind() != metrics.KindUint64 || sample[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(sample[0].Value.Uint64() - sample[1].Value.Uint64())
}

// residentBytes is the resident set size of the process in bytes, from
// the second field of /proc/self/statm (pages); ok is false where there
// is no such file.
func residentBytes() (int64, bool) {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}

// DefaultMemoryLimit is the heap bound of [Options].MemoryLimit when it is
// zero: 1 GiB.
const DefaultMemoryLimit = 1 << 30

func ctxErr(err error) error {
	if err == context.DeadlineExceeded {
		return kiterr.Wrap(kiterr.CompatTimeout, err, "compare schemas: the time bound was reached")
	}
	return kiterr.Wrap(kiterr.Interrupted, err, "compare schemas")
}

// deref follows $ref-only schemas (annotations beside them are ignored).
func (s sref) deref() sref {
	if s.d == nil || s.view != "" {
		return s // a view has no $ref: it is its own node
	}
	v, loc := s.d.deref(s.v, s.loc)
	return sref{d: s.d, v: v, loc: loc}
}

func (s sref) m() (map[string]any, bool) {
	m, isFalse := asMap(s.v)
	return m, isFalse
}

func (s sref) sub(v any, tokens ...string) sref {
	return sref{d: s.d, v: v, loc: child(s.loc, tokens...)}
}

// trivialS reports whether s accepts every instance.
func trivialS(s sref) bool { return trivialRec(s, map[string]bool{}) }

// trivialRec: a schema met again on a cycle counts as not trivial (the
// safe answer).
func trivialRec(s sref, visited map[string]bool) bool {
	s = s.deref()
	if s.d != nil {
		if visited[s.key()] {
			return false
		}
		visited[s.key()] = true
	}
	m, isFalse := s.m()
	if isFalse {
		return false
	}
	for k, v := range m {
		if isAnnotation(k) {
			continue
		}
		switch k {
		case "type":
			if t, ok := typeSet(m); ok && coversAll(t) {
				continue
			}
		case "allOf":
			arr, _ := v.([]any)
			ok := true
			for i, x := range arr {
				if !trivialRec(s.sub(x, "allOf", strconv.Itoa(i)), visited) {
					ok = false
				}
			}
			if ok {
				continue
			}
		case "pattern":
			if p, ok := v.(string); ok && universalPattern(p) {
				continue
			}
		case "additionalProperties", "unevaluatedProperties", "items", "unevaluatedItems", "propertyNames":
			if trivialRec(s.sub(v, k), visited) {
				continue
			}
		case "properties", "patternProperties", "dependentSchemas":
			mm, _ := v.(map[string]any)
			ok := true
			for name, x := range mm {
				if !trivialRec(s.sub(x, k, name), visited) {
					ok = false
				}
			}
			if ok {
				continue
			}
		case "minLength", "minItems", "minProperties", "minContains":
			if r, ok := rat(v); ok && r.Sign() == 0 && k != "minContains" {
				continue
			}
		case "uniqueItems":
			if b, ok := v.(bool); ok && !b {
				continue
			}
		case "required":
			if a, ok := v.([]any); ok && len(a) == 0 {
				continue
			}
		}
		return false
	}
	return true
}

// universalPattern reports whether the ECMA-262 regular expression p matches
// every string: it can match the empty string without any assertion, so it
// matches at position 0 of any string (for example "[a-z]*" or "a*").
func universalPattern(p string) bool {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return false
	}
	var nullable func(r *syntax.Regexp) bool
	nullable = func(r *syntax.Regexp) bool {
		switch r.Op {
		case syntax.OpEmptyMatch:
			return true
		case syntax.OpStar, syntax.OpQuest:
			return true
		case syntax.OpRepeat:
			return r.Min == 0 || nullable(r.Sub[0])
		case syntax.OpPlus, syntax.OpCapture:
			return nullable(r.Sub[0])
		case syntax.OpConcat:
			for _, s := range r.Sub {
				if !nullable(s) {
					return false
				}
			}
			return true
		case syntax.OpAlternate:
			for _, s := range r.Sub {
				if nullable(s) {
					return true
				}
			}
			return false
		}
		return false // literals, classes, anchors and word boundaries
	}
	return nullable(re)
}

// regex compiles an ECMA-262 pattern with Go's RE2 (nil when it does not
// compile: lookarounds, backreferences).
func (e *engine) regex(p string) *regexp.Regexp {
	if re, ok := e.regexps[p]; ok {
		return re
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	e.regexps[p] = re
	return re
}

// --- flattening and expansion -------------------------------------------

// alt is one alternative of a disjunction: more atoms and negations.
type alt struct {
	pos []sref
	neg []sref
}

// disjunction is an anyOf, a oneOf or an if/then/else of one atom.
type disjunction struct {
	kind string // "anyOf", "oneOf" or "if"
	alts []alt
}

// flatten splits a conjunction into atoms, negations and the disjunctions
// still to expand (those of in first). Atoms are "pure" views of their
// nodes: allOf, $ref, not, anyOf, oneOf, if/then/else are taken out (allOf
// entries and the $ref target become atoms of their own, not a negation,
// the rest disjunctions), so flattening again adds nothing twice. isEmpty
// is set when an atom is false. The parts of each document node are
// computed once per Compare (flatMemo): the prover and the generator
// flatten the same nodes many times.
func (e *engine) flatten(in conj) (atoms []sref, neg []sref, disj []disjunction, isEmpty bool) {
	disj = append(disj, in.disj...)
	seen := make(map[string]bool, len(in.atoms)*2)
	for _, s := range in.atoms {
		for _, p := range e.flatParts(s) {
			if seen[p.key] {
				continue
			}
			seen[p.key] = true
			if p.empty {
				isEmpty = true
			}
			if p.hasAtom {
				atoms = append(atoms, p.atom)
			}
			neg = append(neg, p.neg...)
			disj = append(disj, p.disj...)
		}
	}
	neg = append(neg, in.neg...)
	return atoms, neg, disj, isEmpty
}

// flatPart is what one node contributes to a flattened conjunction: its
// (pure) atom, its not, its disjunctions; key names the node.
type flatPart struct {
	key     string
	atom    sref
	hasAtom bool
	neg     []sref
	disj    []disjunction
	empty   bool
}

// flatParts returns the parts of s and of the nodes it reaches through
// allOf and $ref, in depth-first order, each node once.
func (e *engine) flatParts(s sref) []flatPart {
	s = s.deref()
	k := s.key()
	memo := s.d != nil
	if memo {
		if ps, ok := e.flatMemo[k]; ok {
			return ps
		}
	}
	var out []flatPart
	seen := map[string]bool{}
	var add func(s sref)
	add = func(s sref) {
		s = s.deref()
		key := s.key()
		if seen[key] {
			return
		}
		seen[key] = true
		p := flatPart{key: key}
		m, isFalse := s.m()
		if isFalse {
			p.empty = true
			out = append(out, p)
			return
		}
		if _, isMap := s.v.(map[string]any); !isMap {
			out = append(out, p) // true
			return
		}
		if s.view != "" {
			p.atom, p.hasAtom = s, true // already pure
			out = append(out, p)
			return
		}
		combined := false
		for k := range m {
			switch k {
			case "allOf", "$ref", "not", "anyOf", "oneOf", "if", "then", "else":
				combined = true
			}
		}
		if !combined {
			p.atom, p.hasAtom = s, true
			out = append(out, p)
			return
		}
		pure := make(map[string]any, len(m))
		for k, v := range m {
			switch k {
			case "allOf", "$ref", "not", "anyOf", "oneOf", "if", "then", "else":
			default:
				pure[k] = v
			}
		}
		// unevaluatedProperties and unevaluatedItems of the view still
		// see what the node's in-place applicators evaluated
		pure[inPlaceMark] = true
		p.atom, p.hasAtom = sref{d: s.d, v: pure, loc: s.loc, view: "|pure"}, true
		if n, ok := m["not"]; ok {
			p.neg = append(p.neg, s.sub(n, "not"))
		}
		for _, kw := range []string{"anyOf", "oneOf"} {
			if arr, ok := m[kw].([]any); ok {
				var alts []alt
				for i, x := range arr {
					b := s.sub(x, kw, strconv.Itoa(i))
					if kw == "anyOf" {
						alts = spliceAnyOf(alts, b, 0)
						continue
					}
					alts = append(alts, alt{pos: []sref{b}})
				}
				p.disj = append(p.disj, disjunction{kw, alts})
			}
		}
		if iv, ok := m["if"]; ok {
			is := s.sub(iv, "if")
			th := sref{v: true}
			el := sref{v: true}
			if tv, ok := m["then"]; ok {
				th = s.sub(tv, "then")
			}
			if ev, ok := m["else"]; ok {
				el = s.sub(ev, "else")
			}
			p.disj = append(p.disj, disjunction{"if", []alt{{pos: []sref{is, th}}, {pos: []sref{el}, neg: []sref{is}}}})
		}
		out = append(out, p)
		if arr, ok := m["allOf"].([]any); ok {
			for i, x := range arr {
				add(s.sub(x, "allOf", strconv.Itoa(i)))
			}
		}
		if r, ok := m["$ref"].(string); ok && s.d != nil {
			tv, tl := s.d.target(r, s.loc)
			add(sref{d: s.d, v: tv, loc: tl})
		}
	}
	add(s)
	if memo {
		e.flatMemo[k] = out
	}
	return out
}

// spliceAnyOf appends branch b of an anyOf to alts, or, when b is itself
// nothing but an anyOf (nested anyOf, a $ref to one), its branches: the
// union is the same, and a prover that meets a flat list tries each leaf
// once instead of descending level by level (50 nested anyOf cost
// hundreds of megabytes of memo keys before).
func spliceAnyOf(alts []alt, b sref, depth int) []alt {
	d := b.deref()
	if m, ok := d.v.(map[string]any); ok && depth < 64 {
		if kw, list := pureCombinator(m); kw == "anyOf" {
			for i, x := range list {
				alts = spliceAnyOf(alts, d.sub(x, "anyOf", strconv.Itoa(i)), depth+1)
			}
			return alts
		}
	}
	return append(alts, alt{pos: []sref{b}})
}

// maxAlternatives bounds the expansion of one conjunction into its
// alternatives; beyond it the prover answers "not proven".
const maxAlternatives = 512

// expand turns a conjunction into flat alternatives (no disjunction left).
// ok is false when there are more than maxAlternatives.
func (e *engine) expand(in conj) (out []conj, ok bool) { return e.expandN(in, 0) }

// expandN is expand that stops, with ok, once it has first alternatives
// (0: all, up to maxAlternatives).
func (e *engine) expandN(in conj, first int) (out []conj, ok bool) {
	k := strconv.Itoa(first) + "#" + in.orderedKey()
	if x, ok := e.expandMemo[k]; ok {
		return x.alts, x.ok
	}
	out, ok = e.expandUncached(in, first)
	if e.err == nil {
		// clipped, so that a caller's append never writes into a shared array
		for i := range out {
			out[i].atoms, out[i].neg = slices.Clip(out[i].atoms), slices.Clip(out[i].neg)
		}
		out = slices.Clip(out)
		e.expandMemo[k] = expansion{alts: out, ok: ok}
	}
	return out, ok
}

// expansion is a remembered result of expandN.
type expansion struct {
	alts []conj
	ok   bool
}

// orderedKey names a conjunction with its atoms and negations in their
// order (unlike key, which sorts them): expandN's alternatives follow
// that order, so only conjunctions with the same orderedKey share them.
func (a conj) orderedKey() string {
	var b strings.Builder
	put := func(tag byte, s sref) { // length-prefixed: a key may hold any character
		k := s.key()
		b.WriteByte(tag)
		b.WriteString(strconv.Itoa(len(k)))
		b.WriteByte(':')
		b.WriteString(k)
	}
	for _, s := range a.atoms {
		put('a', s)
	}
	for _, s := range a.neg {
		put('n', s)
	}
	for _, d := range a.disj {
		b.WriteString("?" + d.kind + ";")
		for _, x := range d.alts {
			b.WriteByte('|')
			for _, p := range x.pos {
				put('+', p)
			}
			for _, p := range x.neg {
				put('-', p)
			}
		}
	}
	return b.String()
}

func (e *engine) expandUncached(in conj, first int) (out []conj, ok bool) {
	stack := []conj{in}
	for len(stack) > 0 {
		if first > 0 && len(out) >= first {
			return out, true
		}
		if len(out)+len(stack) > maxAlternatives || e.stop() {
			return nil, false
		}
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		e.expansions++
		atoms, neg, disj, isEmpty := e.flatten(c)
		if isEmpty {
			continue
		}
		if len(disj) == 0 {
			out = append(out, conj{atoms: atoms, neg: neg})
			continue
		}
		first, rest := disj[0], disj[1:]
		for _, a := range first.alts {
			nc := conj{
				atoms: append(append([]sref{}, atoms...), a.pos...),
				neg:   append(append([]sref{}, neg...), a.neg...),
				disj:  rest,
			}
			stack = append(stack, nc)
		}
	}
	return out, true
}

// --- facts of a flat conjunction ------------------------------------------

type tmask uint8

const (
	tNull tmask = 1 << iota
	tBool
	tObj
	tArr
	tStr
	tInt
	tFrac
	tNum = tInt | tFrac
	tAll = tNull | tBool | tObj | tArr | tStr | tNum
)

var typeBits = []struct {
	name string
	bit  tmask
}{{"null", tNull}, {"boolean", tBool}, {"object", tObj}, {"array", tArr}, {"string", tStr}, {"integer", tInt}, {"number", tNum}}

func maskOf(m map[string]any) tmask {
	set, ok := typeSet(m)
	if !ok {
		return tAll
	}
	var t tmask
	for _, b := range typeBits {
		if set[b.name] {
			t |= b.bit
		}
	}
	return t
}

// valueMask is the type bit of an instance value.
func valueMask(v any) tmask {
	switch v := v.(type) {
	case nil:
		return tNull
	case bool:
		return tBool
	case map[string]any:
		return tObj
	case []any:
		return tArr
	case string:
		return tStr
	default:
		if r, ok := rat(v); ok {
			if r.IsInt() {
				return tInt
			}
			return tFrac
		}
	}
	return 0
}

type facts struct {
	types      tmask
	finite     bool
	vals       []any
	lo, hi     *big.Rat
	loEx, hiEx bool
	mults      []*big.Rat
	minLen     int64
	maxLen     int64 // -1: none
	minItems   int64
	maxItems   int64
	minProps   int64
	maxProps   int64
	unique     bool
	// strictInt: every number of the conjunction is an integer in the
	// sense of draft-04 (written without a fraction: some atom of a
	// draft-04 document has type integer and not number)
	strictInt bool
	required  map[string]bool
	patterns  map[string]bool
	formats   map[string]bool
}

func intOf(v any) (int64, bool) {
	r, ok := rat(v)
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	return r.Num().Int64(), true
}

// factsOf merges the atoms of a flat conjunction. Values of a finite set
// are filtered with the real validator against every atom and negation.
func (e *engine) factsOf(a conj) facts {
	f := facts{types: tAll, maxLen: -1, maxItems: -1, maxProps: -1, required: map[string]bool{}, patterns: map[string]bool{}, formats: map[string]bool{}}
	for _, s := range a.atoms {
		m, isFalse := s.m()
		if isFalse {
			f.types = 0
			continue
		}
		f.types &= maskOf(m)
		if strictInteger(s) {
			f.strictInt = true
		}
		if vs, ok := valueList(m); ok {
			if !f.finite {
				f.finite, f.vals = true, vs
			} else {
				var keep []any
				for _, v := range f.vals {
					for _, w := range vs {
						if jsonText(v) == jsonText(w) {
							keep = append(keep, v)
							break
						}
					}
				}
				f.vals = keep
			}
		}
		for _, b := range []struct {
			kw    string
			lower bool
			ex    bool
		}{{"minimum", true, false}, {"exclusiveMinimum", true, true}, {"maximum", false, false}, {"exclusiveMaximum", false, true}} {
			r, ok := rat(m[b.kw])
			if !ok {
				continue
			}
			if b.lower {
				if c := cmpRat(r, f.lo); f.lo == nil || c > 0 || (c == 0 && b.ex) {
					f.lo, f.loEx = r, b.ex
				}
			} else {
				if c := cmpRat(r, f.hi); f.hi == nil || c < 0 || (c == 0 && b.ex) {
					f.hi, f.hiEx = r, b.ex
				}
			}
		}
		if r, ok := rat(m["multipleOf"]); ok && r.Sign() > 0 {
			f.mults = append(f.mults, r)
			if r.IsInt() {
				f.types &^= tFrac
			}
		}
		maxI := func(dst *int64, kw string) {
			if n, ok := intOf(m[kw]); ok && n > *dst {
				*dst = n
			}
		}
		minI := func(dst *int64, kw string) {
			if n, ok := intOf(m[kw]); ok && (*dst < 0 || n < *dst) {
				*dst = n
			}
		}
		maxI(&f.minLen, "minLength")
		minI(&f.maxLen, "maxLength")
		maxI(&f.minItems, "minItems")
		minI(&f.maxItems, "maxItems")
		maxI(&f.minProps, "minProperties")
		minI(&f.maxProps, "maxProperties")
		if u, ok := m["uniqueItems"].(bool); ok && u {
			f.unique = true
		}
		for r := range stringSet(m["required"]) {
			f.required[r] = true
		}
		if p, ok := m["pattern"].(string); ok {
			f.patterns[p] = true
		}
		if fm, ok := m["format"].(string); ok {
			f.formats[fm] = true
		}
	}
	// numbers
	if f.lo != nil && f.hi != nil {
		c := f.lo.Cmp(f.hi)
		if c > 0 || (c == 0 && (f.loEx || f.hiEx)) {
			f.types &^= tNum
		}
	}
	if f.types&tInt != 0 && f.lo != nil && f.hi != nil {
		lo, hi := intLo(f.lo, f.loEx), intHi(f.hi, f.hiEx)
		if lo.Cmp(hi) > 0 {
			f.types &^= tInt
		}
	}
	if f.maxLen >= 0 && f.minLen > f.maxLen {
		f.types &^= tStr
	}
	if f.maxItems >= 0 && f.minItems > f.maxItems {
		f.types &^= tArr
	}
	if f.maxProps >= 0 && (f.minProps > f.maxProps || int64(len(f.required)) > f.maxProps) {
		f.types &^= tObj
	}
	if f.types&tObj != 0 {
		for r := range f.required {
			if e.forbids(a, r) {
				f.types &^= tObj
				break
			}
		}
	}
	if f.finite {
		var keep []any
		for _, v := range f.vals {
			if valueMask(v)&f.types == 0 {
				continue
			}
			if e.acceptsAll(a, v) {
				keep = append(keep, v)
			}
		}
		f.vals = keep
		f.types = 0
		for _, v := range keep {
			f.types |= valueMask(v)
		}
	}
	return f
}

// intLo is the least integer in [r, or (r, when ex.
func intLo(r *big.Rat, ex bool) *big.Int {
	q := new(big.Int).Quo(r.Num(), r.Denom())
	if r.IsInt() {
		if ex {
			q.Add(q, big.NewInt(1))
		}
		return q
	}
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// intHi is the greatest integer in r] or r) when ex.
func intHi(r *big.Rat, ex bool) *big.Int {
	q := new(big.Int).Quo(r.Num(), r.Denom())
	if r.IsInt() {
		if ex {
			q.Sub(q, big.NewInt(1))
		}
		return q
	}
	if r.Sign() < 0 {
		q.Sub(q, big.NewInt(1))
	}
	return q
}

func cmpRat(a, b *big.Rat) int {
	if b == nil {
		return 0
	}
	return a.Cmp(b)
}

// strictInteger reports whether s is a schema of a draft-04 document whose
// type admits integers but not number: draft-04 (Validation §5.5.2, and
// its test suite's zeroTerminatedFloats) defines an integer as a JSON
// number without a fraction or exponent, so 1.0 is not one, while draft-06
// and later accept any number with a zero fractional part. The prover
// holds such a schema implied only by conjunctions whose numbers are
// draft-04 integers too.
func strictInteger(s sref) bool {
	if s.d == nil || s.d.tr == nil || s.d.tr.dialect != draft04 {
		return false
	}
	m, isFalse := s.m()
	return !isFalse && maskOf(m)&tNum == tInt
}

// valueList returns const as one value, else the enum values.
func valueList(m map[string]any) ([]any, bool) {
	if v, ok := m["const"]; ok {
		return []any{v}, true
	}
	if arr, ok := m["enum"].([]any); ok {
		return append([]any{}, arr...), true
	}
	return nil, false
}

// acceptsAll reports whether v may satisfy the conjunction: every atom
// accepts it and no negation does, by the real validator. A node the
// validator cannot check counts as accepting (so facts stay an
// over-approximation).
func (e *engine) acceptsAll(a conj, v any) bool {
	for _, s := range a.atoms {
		if ok, known := e.validAs(s, v, true); known && !ok {
			return false
		}
	}
	for _, s := range a.neg {
		if ok, known := e.valid(s, v); known && ok {
			return false
		}
	}
	return true
}

// valid validates v against s with the real validator; known is false when
// s cannot be compiled.
func (e *engine) valid(s sref, v any) (ok, known bool) { return e.validAs(s, v, false) }

// validatable reports whether valid can decide instances of s at all:
// what makes validAs answer "unknown" (a pure view, a document without a
// validator, a location that does not compile) does not depend on the
// instance.
func (e *engine) validatable(s sref) bool {
	switch {
	case s.d == nil:
		return true
	case s.view != "" || s.d.std == nil:
		return false
	case s.d.unfold(s.loc) > maxUnfold:
		return false
	}
	return s.d.std.Compiles(s.d.tr.origPointer(s.loc)) == nil
}

// validAs: forFilter accepts a pure view (validated as its whole node: a
// conjunction holding the view lies inside the node, so a value the node
// rejects is not in it).
func (e *engine) validAs(s sref, v any, forFilter bool) (ok, known bool) {
	if s.d == nil {
		return validSynthetic(s.v, v), true
	}
	if s.view != "" && !forFilter {
		return false, false // a pure view is not its node
	}
	if s.d.std == nil || s.d.unfold(s.loc) > maxUnfold {
		return false, false // no validator, or one that may take exponential time here
	}
	e.validations++
	e.evaluations += s.d.unfold(s.loc)
	ptr := s.d.tr.origPointer(s.loc)
	ok, err := s.d.std.Valid(ptr, v)
	if err != nil {
		return false, false
	}
	return ok, true
}

// validSynthetic evaluates the synthetic schemas the prover makes:
// true, false, {"type": T} and {"const": V}.
func validSynthetic(schema, v any) bool {
	switch s := schema.(type) {
	case bool:
		return s
	case map[string]any:
		if t, ok := s["type"].(string); ok {
			for _, b := range typeBits {
				if b.name == t {
					return valueMask(v)&b.bit != 0
				}
			}
			return false
		}
		if c, ok := s["const"]; ok {
			return jsonText(c) == jsonText(v)
		}
		return true
	}
	return false
}

func typeAtom(bit tmask) sref {
	for _, b := range typeBits {
		if b.bit == bit {
			return sref{v: map[string]any{"type": b.name}}
		}
	}
	if bit == tFrac {
		return sref{v: map[string]any{"type": "number"}} // paired with a not-integer negation by the caller
	}
	return sref{v: false}
}

func constAtom(v any) sref { return sref{v: map[string]any{"const": v}} }

// forbids reports whether property name can never be present: some atom
// gives it the schema false.
func (e *engine) forbids(a conj, name string) bool {
	for _, s := range a.atoms {
		ap, known := e.applicableAtom(s, name, true)
		if !known {
			continue
		}
		for _, x := range ap {
			if _, isFalse := x.deref().m(); isFalse {
				return true
			}
		}
	}
	return false
}

// applicableAtom returns the schemas atom s applies to the member name:
// properties[name], every matching patternProperties entry, else
// additionalProperties (or unevaluatedProperties on an atom without
// in-place applicators). lenient: a pattern that does not compile counts
// as not matching (for the side that must be over-approximated).
func (e *engine) applicableAtom(s sref, name string, lenient bool) ([]sref, bool) {
	m, isFalse := s.m()
	if isFalse {
		return nil, false
	}
	var out []sref
	matched := false
	if props, ok := m["properties"].(map[string]any); ok {
		if v, ok := props[name]; ok {
			out = append(out, s.sub(v, "properties", name))
			matched = true
		}
	}
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		for _, p := range sortedKeys(pp) {
			re := e.regex(p)
			if re == nil {
				if lenient {
					continue
				}
				out = append(out, s.sub(pp[p], "patternProperties", p))
				matched = true
				continue
			}
			if re.MatchString(name) {
				out = append(out, s.sub(pp[p], "patternProperties", p))
				matched = true
			}
		}
	}
	if !matched {
		if ap, ok := m["additionalProperties"]; ok {
			out = append(out, s.sub(ap, "additionalProperties"))
		} else if up, ok := m["unevaluatedProperties"]; ok && !hasInPlace(m) {
			out = append(out, s.sub(up, "unevaluatedProperties"))
		}
	}
	return out, true
}

// hasUnevaluated reports whether m has unevaluatedProperties or
// unevaluatedItems.
func hasUnevaluated(m map[string]any) bool {
	_, p := m["unevaluatedProperties"]
	_, i := m["unevaluatedItems"]
	return p || i
}

// node returns the document node a view was made of (s itself when it is
// no view).
func (s sref) node() sref {
	if s.view == "" || s.d == nil {
		return s
	}
	v, _ := s.d.lookup(s.loc)
	return sref{d: s.d, v: v, loc: s.loc}
}

// inPlaceMark is the key flatten sets on the pure view of a node that
// had in-place applicators (allOf, $ref, anyOf, ...): they were taken out
// of the view, but its unevaluated* keywords still see what they
// evaluated (JSON Schema 2020-12 Core §11), so the view must not read
// those keywords as additionalProperties or items.
const inPlaceMark = "\x00inplace"

// hasInPlace reports whether a schema object has in-place applicators that
// evaluate properties or items beside its own keywords.
func hasInPlace(m map[string]any) bool {
	for _, k := range []string{inPlaceMark, "allOf", "anyOf", "oneOf", "$ref", "if", "dependentSchemas", "not"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// applicable is the conjunction of what a applies to member name.
func (e *engine) applicable(a conj, name string) conj {
	var out conj
	for _, s := range a.atoms {
		ap, _ := e.applicableAtom(s, name, true)
		out.atoms = append(out.atoms, ap...)
	}
	return out
}

// itemAtom returns what atom s applies to array index i.
func itemAtom(s sref, i int) (sref, bool) {
	m, _ := s.m()
	if pre, ok := m["prefixItems"].([]any); ok && i < len(pre) {
		return s.sub(pre[i], "prefixItems", strconv.Itoa(i)), true
	}
	if it, ok := m["items"]; ok {
		return s.sub(it, "items"), true
	}
	if ui, ok := m["unevaluatedItems"]; ok && !hasInPlace(m) && m["contains"] == nil {
		return s.sub(ui, "unevaluatedItems"), true // contains evaluates the items it matches
	}
	return sref{}, false
}

func (e *engine) item(a conj, i int) conj {
	var out conj
	for _, s := range a.atoms {
		if x, ok := itemAtom(s, i); ok {
			out.atoms = append(out.atoms, x)
		}
	}
	return out
}

// --- emptiness, equality --------------------------------------------------

// empty reports whether a conjunction is proven to accept nothing.
func (e *engine) empty(a conj) bool {
	if e.stop() {
		return false
	}
	k := a.key()
	if v, ok := e.emptyMemo[k]; ok {
		return v
	}
	e.emptyMemo[k] = false // assumed not empty while deciding (sound)
	alts, ok := e.expand(a)
	res := ok
	if ok {
		for _, c := range alts {
			if !e.emptyFlat(c) {
				res = false
				break
			}
		}
	}
	e.emptyMemo[k] = res
	return res
}

func (e *engine) emptyFlat(a conj) bool {
	f := e.factsOf(a)
	if f.types == 0 {
		return true
	}
	if e.depth > 6 {
		return false
	}
	e.depth++
	defer func() { e.depth-- }()
	for i, n := range a.neg {
		rest := conj{atoms: a.atoms, neg: append(append([]sref{}, a.neg[:i]...), a.neg[i+1:]...)}
		if e.prove(rest, n) {
			return true
		}
	}
	return false
}

// eqS reports whether two schemas have the same keywords after resolving
// $ref and ignoring annotations (so they accept the same instances).
//
// The pairs one call visits, each assumed equal when met again, form a
// bisimulation when the call answers true: every one of them is then
// memoized as equal, so a definition compared once is never compared
// again (linear in the documents' size for the differ's top-down walk).
// A false answer is memoized for the pairs on the path that failed.
func (e *engine) eqS(a, b sref) bool {
	visited := map[string]bool{}
	res := e.eqRec(a, b, visited)
	if res && e.err == nil {
		for k := range visited {
			e.eqMemo[k] = true
		}
	}
	return res
}

func (e *engine) eqRec(a, b sref, visited map[string]bool) bool {
	a, b = a.deref(), b.deref()
	if a.view != "" || b.view != "" {
		// the unevaluated* keywords of a pure view see what its node's
		// applicators evaluated: equal views mean equal only with equal nodes
		am, _ := a.m()
		bm, _ := b.m()
		if hasUnevaluated(am) || hasUnevaluated(bm) {
			return a.view != "" && b.view != "" && e.eqRec(a.node(), b.node(), visited)
		}
	}
	k := a.key() + "=" + b.key()
	if a.d != nil && b.d != nil && a.d == b.d && a.loc == b.loc && a.view == b.view {
		return true
	}
	if v, ok := e.eqMemo[k]; ok {
		return v
	}
	if visited[k] {
		return true
	}
	visited[k] = true
	am, aFalse := a.m()
	bm, bFalse := b.m()
	res := true
	if aFalse || bFalse {
		res = aFalse == bFalse
	} else {
		for _, kw := range union(am, bm) {
			if isAnnotation(kw) {
				continue
			}
			av, aok := am[kw]
			bv, bok := bm[kw]
			if aok != bok {
				res = false
				break
			}
			if !e.eqKw(kw, a, av, b, bv, visited) {
				res = false
				break
			}
		}
	}
	if !res {
		e.eqMemo[k] = false // false holds whatever was assumed
	}
	return res
}

func (e *engine) eqKw(kw string, a sref, av any, b sref, bv any, visited map[string]bool) bool {
	switch kw {
	case "$ref":
		if a.d == nil || b.d == nil {
			return false
		}
		ar, _ := av.(string)
		br, _ := bv.(string)
		at, atl := a.d.target(ar, a.loc)
		bt, btl := b.d.target(br, b.loc)
		return e.eqRec(sref{d: a.d, v: at, loc: atl}, sref{d: b.d, v: bt, loc: btl}, visited)
	case "additionalProperties", "unevaluatedProperties", "items", "unevaluatedItems",
		"contains", "propertyNames", "not", "if", "then", "else":
		return e.eqRec(a.sub(av, kw), b.sub(bv, kw), visited)
	case "properties", "patternProperties", "dependentSchemas", "$defs", "definitions":
		am, _ := av.(map[string]any)
		bm, _ := bv.(map[string]any)
		if len(am) != len(bm) {
			return false
		}
		for k, v := range am {
			w, ok := bm[k]
			if !ok || !e.eqRec(a.sub(v, kw, k), b.sub(w, kw, k), visited) {
				return false
			}
		}
		return true
	case "allOf", "anyOf", "oneOf", "prefixItems":
		al, _ := av.([]any)
		bl, _ := bv.([]any)
		if len(al) != len(bl) {
			return false
		}
		for i := range al {
			if !e.eqRec(a.sub(al[i], kw, strconv.Itoa(i)), b.sub(bl[i], kw, strconv.Itoa(i)), visited) {
				return false
			}
		}
		return true
	case "type":
		return sameSet(av, bv) && strictInteger(a) == strictInteger(b)
	case "required", "enum":
		return sameSet(av, bv)
	}
	return jsonText(av) == jsonText(bv)
}

// --- the prover -------------------------------------------------------------

// maxDepth bounds nested prove calls that are not cycles. A cycle
// through n mutually recursive definitions nests about three calls per
// definition before it closes (20 definitions needed more than the 60 of
// before; issue 33's 500 need about 1500); provisional results (prove)
// keep the deeper search from repeating itself, and the context and the
// memory bound still end it.
const maxDepth = 2000

// prove reports whether every instance of a is accepted by b (proven).
//
// Recursion is coinductive over finite instances: a call that meets
// itself under way holds when a member or an item was entered since it
// began (the instance got smaller on every turn of the cycle). A true
// result that used such an assumption of an outer call is provisional
// until that outer call ends: kept in prov, reused by later calls under
// the same outer call (mutually recursive definitions are then proved once
// each, not once per path through them), made final when the outer call
// proves true without outer assumptions, and dropped when any call under
// way since it was made proves false. A provisional result is reused only
// when every assumption it used was reached through a member or an item
// entered inside it (slack ≥ 1), so that a cycle closed through the reuse
// still enters one.
func (e *engine) prove(a conj, b sref) bool {
	if e.stop() {
		return false
	}
	b = b.deref()
	if trivialS(b) {
		return true
	}
	k := a.key() + "|" + b.key()
	if v, ok := e.memo[k]; ok {
		return v
	}
	if pv, ok := e.prov[k]; ok && pv.slack >= 1 {
		e.minDep = min(e.minDep, pv.dep)
		e.hit(pv.dep, e.descents+pv.slack)
		return true
	}
	if p, ok := e.inProgress[k]; ok {
		// coinduction over finite instances: a cycle that moved into a
		// member or an item holds; one that did not proves nothing
		e.minDep = min(e.minDep, p.level)
		if e.descents > p.descents {
			e.hit(p.level, e.descents)
			return true
		}
		return false
	}
	if e.depth > maxDepth {
		return false
	}
	e.proofs++
	outer := e.minDep
	e.minDep = math.MaxInt
	e.level++
	my := e.level
	e.inProgress[k] = progress{descents: e.descents, level: my}
	e.frames = append(e.frames, frame{level: my, start: e.descents, minHit: math.MaxInt})
	logStart := len(e.provLog)
	e.depth++
	res := e.proveUncached(a, b)
	e.depth--
	e.level--
	f := e.frames[len(e.frames)-1]
	e.frames = e.frames[:len(e.frames)-1]
	delete(e.inProgress, k)
	switch {
	case e.err != nil || !res:
		// false always holds; what was assumed under this call may not
		for _, pk := range e.provLog[logStart:] {
			delete(e.prov, pk)
		}
		e.provLog = e.provLog[:logStart]
		if e.err == nil {
			e.memo[k] = false
		}
	case e.minDep >= my:
		// no outer assumption: this call and every provisional result
		// made under it hold
		for _, pk := range e.provLog[logStart:] {
			if _, ok := e.prov[pk]; ok {
				delete(e.prov, pk)
				e.memo[pk] = true
			}
		}
		e.provLog = e.provLog[:logStart]
		e.memo[k] = true
	default:
		slack := 0
		if f.minHit != math.MaxInt {
			slack = f.minHit - f.start
		}
		e.prov[k] = provisional{dep: e.minDep, slack: slack}
		e.provLog = append(e.provLog, k)
	}
	dep := e.minDep
	if dep >= my {
		dep = math.MaxInt
	}
	e.minDep = min(outer, dep)
	return res
}

type progress struct{ descents, level int }

// frame is one prove call under way: its level, the descents when it
// began, and the least descent count (absolute, plus the slack of a
// reused provisional result) at which a call inside it relied on an
// assumption of a call outside it.
type frame struct{ level, start, minHit int }

// provisional is a true result resting on the assumption of the call
// under way at level dep; slack is how many members or items were
// entered inside it, at least, before any of its assumptions was met.
type provisional struct{ dep, slack int }

// hit records that an assumption of the call at level was relied on at
// descent count h: every call under way inside that one depends on it.
func (e *engine) hit(level, h int) {
	for i := len(e.frames) - 1; i >= 0 && e.frames[i].level > level; i-- {
		e.frames[i].minHit = min(e.frames[i].minHit, h)
	}
}

func (e *engine) proveUncached(a conj, b sref) bool {
	if _, isFalse := b.m(); isFalse {
		return e.empty(a)
	}
	for _, s := range a.atoms {
		if e.eqS(s, b) {
			return true
		}
	}
	alts, ok := e.expand(a)
	if !ok {
		return false
	}
	for _, c := range alts {
		if !e.proveFlat(c, b) {
			return false
		}
	}
	return true
}

// proveFlat: a has no disjunctions left.
func (e *engine) proveFlat(a conj, b sref) bool {
	f := e.factsOf(a)
	if f.types == 0 {
		return true
	}
	if f.finite && b.d != nil && b.view == "" && !(b.d.tr != nil && b.d.tr.dialect == draft04 && f.types&tInt != 0) {
		all := true
		for _, v := range f.vals {
			ok, known := e.valid(b, v)
			if !known {
				all = false
				break
			}
			if !ok {
				return false
			}
		}
		if all {
			return true
		}
	}
	for _, s := range a.atoms {
		if e.eqS(s, b) {
			return true
		}
	}
	if e.emptyFlat(a) {
		return true
	}
	batoms, bneg, bdisj, bEmpty := e.flatten(conj{atoms: []sref{b}})
	if bEmpty {
		return false
	}
	for _, x := range batoms {
		if !e.atomImplied(a, f, x) {
			return false
		}
	}
	for _, n := range bneg {
		if !e.empty(a.with(n)) {
			return false
		}
	}
	for _, d := range bdisj {
		if !e.proveDisj(a, f, d) {
			return false
		}
	}
	return true
}

// disjunction proves a ⊆ one of the alternatives of d (an anyOf, a oneOf
// with disjointness, or an if/then/else).
func (e *engine) proveDisj(a conj, f facts, dj disjunction) bool {
	d := dj.alts
	isOne := dj.kind == "oneOf"
	if dj.kind == "if" {
		i, th, el := d[0].pos[0], d[0].pos[1], d[1].pos[0]
		return e.prove(a.with(i), th) && e.prove(a.withNeg(i), el)
	}
	branch := func(x alt) sref { return x.pos[0] }
	provePart := func(p conj) bool {
		for i := range d {
			if !e.prove(p, branch(d[i])) {
				continue
			}
			if !isOne {
				return true
			}
			disjoint := true
			for j := range d {
				if j != i && !e.empty(p.with(branch(d[j]))) {
					disjoint = false
					break
				}
			}
			if disjoint {
				return true
			}
		}
		return false
	}
	if provePart(a) {
		return true
	}
	// split by type, then by value
	var parts []conj
	for _, b := range []tmask{tNull, tBool, tObj, tArr, tStr, tInt} {
		if f.types&b != 0 {
			parts = append(parts, a.with(typeAtom(b)))
		}
	}
	if f.types&tFrac != 0 {
		parts = append(parts, a.with(typeAtom(tNum)).withNeg(typeAtom(tInt)))
	}
	if len(parts) > 1 {
		all := true
		for _, p := range parts {
			if !provePart(p) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	if f.finite && len(f.vals) > 1 && len(f.vals) <= 64 {
		for _, v := range f.vals {
			if !provePart(a.with(constAtom(v))) {
				return false
			}
		}
		return true
	}
	return false
}

// atomImplied proves that a satisfies the non-combinator keywords of the
// atom b.
func (e *engine) atomImplied(a conj, f facts, b sref) bool {
	for _, s := range a.atoms {
		if e.eqS(s, b) {
			return true
		}
	}
	m, isFalse := b.m()
	if isFalse {
		return f.types == 0
	}
	if f.types&^maskOf(m) != 0 {
		return false
	}
	if strictInteger(b) && f.types&tInt != 0 && !f.strictInt {
		return false // 1.0 is a number of a that draft-04's integer rejects
	}
	for _, kw := range sortedKeys(m) {
		v := m[kw]
		if isAnnotation(kw) {
			continue
		}
		switch kw {
		case "type", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref":
			continue // handled by flatten and the caller
		case "const", "enum":
			if !e.valuesImplied(f, m) {
				return false
			}
		case "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf":
			if f.types&tNum != 0 && !numImplied(f, kw, v) {
				return false
			}
		case "minLength", "maxLength", "pattern", "format":
			if f.types&tStr != 0 && !e.strImplied(a, f, kw, v) {
				return false
			}
		case "minItems", "maxItems", "uniqueItems":
			if f.types&tArr != 0 && !countImplied(f, kw, v) {
				return false
			}
		case "prefixItems", "items", "unevaluatedItems":
			if kw == "unevaluatedItems" && f.types&tArr != 0 && (hasInPlace(m) || m["contains"] != nil) && !trivialS(b.sub(v, kw)) {
				return false // what it leaves to the rest depends on what the applicators evaluated
			}
			if f.types&tArr != 0 && !e.arrayImplied(a, f, b, m) {
				return false
			}
		case "contains", "minContains", "maxContains":
			if f.types&tArr != 0 && !e.containsImplied(a, b, m) {
				return false
			}
		case "minProperties", "maxProperties", "required":
			if f.types&tObj != 0 && !countImplied(f, kw, v) {
				return false
			}
		case "properties", "patternProperties", "additionalProperties", "unevaluatedProperties":
			if kw == "unevaluatedProperties" && hasInPlace(m) && !trivialS(b.sub(v, kw)) {
				return false
			}
			if f.types&tObj != 0 && !e.objImplied(a, b, m) {
				return false
			}
		case "propertyNames":
			if f.types&tObj != 0 && !e.namesImplied(a, b.sub(v, kw)) {
				return false
			}
		case "dependentRequired":
			if f.types&tObj != 0 && !e.depReqImplied(a, f, v) {
				return false
			}
		case "dependentSchemas":
			if f.types&tObj != 0 && !e.depSchImplied(a, b, v) {
				return false
			}
		default:
			// a keyword of no 2020-12 vocabulary the validator asserts
			// (legacy forms are translated first): validators ignore it
			if assertedKeyword(kw) {
				return false
			}
		}
	}
	return true
}

func (e *engine) valuesImplied(f facts, m map[string]any) bool {
	bv, _ := valueList(m)
	in := func(v any) bool {
		for _, w := range bv {
			if jsonText(v) == jsonText(w) {
				return true
			}
		}
		return false
	}
	if f.finite {
		for _, v := range f.vals {
			if !in(v) {
				return false
			}
		}
		return true
	}
	// a domain with finitely many values fully listed: null, booleans
	if f.types&^(tNull|tBool) != 0 {
		return false
	}
	if f.types&tNull != 0 && !in(nil) {
		return false
	}
	if f.types&tBool != 0 && (!in(true) || !in(false)) {
		return false
	}
	return true
}

func numImplied(f facts, kw string, v any) bool {
	r, ok := rat(v)
	if !ok {
		return true // not a number: ignored by validators
	}
	intOnly := f.types&tFrac == 0
	switch kw {
	case "minimum", "exclusiveMinimum":
		ex := kw == "exclusiveMinimum"
		if f.lo == nil {
			return false
		}
		if intOnly {
			lo := new(big.Rat).SetInt(intLo(f.lo, f.loEx))
			c := lo.Cmp(r)
			return c > 0 || (c == 0 && !ex)
		}
		c := f.lo.Cmp(r)
		return c > 0 || (c == 0 && (!ex || f.loEx))
	case "maximum", "exclusiveMaximum":
		ex := kw == "exclusiveMaximum"
		if f.hi == nil {
			return false
		}
		if intOnly {
			hi := new(big.Rat).SetInt(intHi(f.hi, f.hiEx))
			c := hi.Cmp(r)
			return c < 0 || (c == 0 && !ex)
		}
		c := f.hi.Cmp(r)
		return c < 0 || (c == 0 && (!ex || f.hiEx))
	case "multipleOf":
		if r.Sign() <= 0 {
			return true
		}
		for _, m := range f.mults {
			if new(big.Rat).Quo(m, r).IsInt() {
				return true
			}
		}
		if intOnly && new(big.Rat).Quo(big.NewRat(1, 1), r).IsInt() {
			return true
		}
		return false
	}
	return false
}

func (e *engine) strImplied(a conj, f facts, kw string, v any) bool {
	switch kw {
	case "minLength":
		n, ok := intOf(v)
		return !ok || f.minLen >= n
	case "maxLength":
		n, ok := intOf(v)
		return !ok || (f.maxLen >= 0 && f.maxLen <= n)
	case "pattern":
		p, ok := v.(string)
		return !ok || f.patterns[p] || universalPattern(p) || (f.maxLen == 0 && e.regex(p) != nil && e.regex(p).MatchString(""))
	case "format":
		fm, ok := v.(string)
		return !ok || e.opt.FormatAnnotation || f.formats[fm] || !knownFormat(fm)
	}
	return false
}

// knownFormat reports whether the validator asserts format name (unknown
// formats are ignored by jsonschema v6).
func knownFormat(name string) bool {
	switch name {
	case "regex", "ipv4", "ipv6", "hostname", "email", "date", "time", "date-time", "duration", "period",
		"json-pointer", "relative-json-pointer", "uuid", "uri", "iri", "uri-reference", "iri-reference",
		"uri-template", "semver", "idn-email", "idn-hostname":
		return true
	}
	return false
}

func countImplied(f facts, kw string, v any) bool {
	switch kw {
	case "uniqueItems":
		u, ok := v.(bool)
		return !ok || !u || f.unique || (f.maxItems >= 0 && f.maxItems <= 1)
	case "required":
		for r := range stringSet(v) {
			if !f.required[r] {
				return false
			}
		}
		return true
	}
	n, ok := intOf(v)
	if !ok {
		return true
	}
	switch kw {
	case "minItems":
		return f.minItems >= n
	case "maxItems":
		return f.maxItems >= 0 && f.maxItems <= n
	case "minProperties":
		return f.minProps >= n || int64(len(f.required)) >= n
	case "maxProperties":
		return f.maxProps >= 0 && f.maxProps <= n
	}
	return false
}

// objImplied proves b's properties/patternProperties/additionalProperties
// (and unevaluatedProperties without in-place applicators) for every member
// of every object of a.
// proveIn is prove for a member or an item (one level down the instance).
func (e *engine) proveIn(a conj, b sref) bool {
	e.descents++
	defer func() { e.descents-- }()
	return e.prove(a, b)
}

func (e *engine) objImplied(a conj, b sref, m map[string]any) bool {
	bprops, _ := m["properties"].(map[string]any)
	bpat, _ := m["patternProperties"].(map[string]any)
	var badd sref
	hasAdd := false
	if v, ok := m["additionalProperties"]; ok {
		badd, hasAdd = b.sub(v, "additionalProperties"), true
	} else if v, ok := m["unevaluatedProperties"]; ok && !hasInPlace(m) {
		badd, hasAdd = b.sub(v, "unevaluatedProperties"), true
	}
	// every name explicit on either side
	names := map[string]bool{}
	for n := range bprops {
		names[n] = true
	}
	for _, s := range a.atoms {
		sm, _ := s.m()
		if p, ok := sm["properties"].(map[string]any); ok {
			for n := range p {
				names[n] = true
			}
		}
	}
	for _, n := range sortedKeys(names) {
		req, _ := e.applicableAtom(b, n, false)
		if len(req) == 0 {
			continue
		}
		if e.nameRefused(a, n) {
			continue // no instance of a has a member n
		}
		an := e.applicable(a, n)
		for _, r := range req {
			if trivialS(r) {
				continue
			}
			if !e.proveIn(an, r) {
				return false
			}
		}
	}
	// a whose propertyNames list its names: the members b's patterns and
	// additionalProperties would govern are those listed names that are
	// not explicit, each proved by name
	if listed, ok := e.listedNames(a); ok {
		for _, n := range listed {
			if names[n] || e.nameRefused(a, n) {
				continue
			}
			req, known := e.applicableAtom(b, n, false)
			if !known {
				return false
			}
			an := e.applicable(a, n)
			for _, r := range req {
				if !trivialS(r) && !e.proveIn(an, r) {
					return false
				}
			}
		}
		return true
	}
	// names matching a pattern of b, not explicit anywhere
	for _, q := range sortedKeys(bpat) {
		s := b.sub(bpat[q], "patternProperties", q)
		if trivialS(s) {
			continue
		}
		// the same pattern on a's side governs exactly those names
		same := false
		for _, x := range a.atoms {
			xm, _ := x.m()
			if pp, ok := xm["patternProperties"].(map[string]any); ok {
				if ps, ok := pp[q]; ok && e.proveIn(conj{atoms: []sref{x.sub(ps, "patternProperties", q)}}, s) {
					same = true
					break
				}
			}
		}
		if same {
			continue
		}
		if !e.regionImplied(a, s, func(p string) bool { return false }) {
			return false
		}
	}
	// names b leaves to additionalProperties
	if hasAdd && !trivialS(badd) {
		covered := func(p string) bool { _, ok := bpat[p]; return ok }
		if !e.regionImplied(a, badd, covered) {
			return false
		}
	}
	return true
}

// nameRefused reports whether some atom of a has a propertyNames schema
// that the validator proves rejects the string name: then no instance of
// a has a member of that name (JSON Schema 2020-12 Core §10.3.2.4).
func (e *engine) nameRefused(a conj, name string) bool {
	for _, s := range a.atoms {
		sm, _ := s.m()
		pn, ok := sm["propertyNames"]
		if !ok {
			continue
		}
		if ok, known := e.valid(s.sub(pn, "propertyNames"), name); known && !ok {
			return true
		}
	}
	return false
}

// listedNames returns the names an instance of a may have when one atom's
// propertyNames is a const or enum (after $ref): its string values, in
// order (other values match no name). ok is false when no atom lists
// them.
func (e *engine) listedNames(a conj) ([]string, bool) {
	for _, s := range a.atoms {
		sm, _ := s.m()
		pn, ok := sm["propertyNames"]
		if !ok {
			continue
		}
		pm, isFalse := s.sub(pn, "propertyNames").deref().m()
		if isFalse {
			return nil, true // no member at all
		}
		vals, ok := valueList(pm)
		if !ok {
			continue
		}
		var out []string
		for _, v := range vals {
			if str, ok := v.(string); ok {
				out = append(out, str)
			}
		}
		sort.Strings(out)
		return out, true
	}
	return nil, false
}

// regionImplied proves that every member of a whose name is not explicit
// satisfies target, using one atom of a: its patternProperties entries
// (except those whose names are excluded) and its additionalProperties.
func (e *engine) regionImplied(a conj, target sref, excluded func(pattern string) bool) bool {
	for _, s := range a.atoms {
		sm, _ := s.m()
		add, hasAdd := sm["additionalProperties"]
		addLoc := "additionalProperties"
		if !hasAdd {
			if up, ok := sm["unevaluatedProperties"]; ok && !hasInPlace(sm) {
				add, hasAdd, addLoc = up, true, "unevaluatedProperties"
			}
		}
		if !hasAdd {
			continue
		}
		ok := e.proveIn(conj{atoms: []sref{s.sub(add, addLoc)}}, target)
		if pp, has := sm["patternProperties"].(map[string]any); ok && has {
			for _, p := range sortedKeys(pp) {
				if excluded(p) {
					continue
				}
				if !e.proveIn(conj{atoms: []sref{s.sub(pp[p], "patternProperties", p)}}, target) {
					ok = false
					break
				}
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func (e *engine) namesImplied(a conj, p sref) bool {
	if e.proveIn(conj{atoms: []sref{typeAtom(tStr)}}, p) {
		return true
	}
	for _, s := range a.atoms {
		sm, _ := s.m()
		if pn, ok := sm["propertyNames"]; ok && e.proveIn(conj{atoms: []sref{s.sub(pn, "propertyNames")}}, p) {
			return true
		}
	}
	// a closed atom: its names are its properties
	for _, s := range a.atoms {
		sm, _ := s.m()
		add, ok := sm["additionalProperties"]
		if !ok {
			continue
		}
		if _, isFalse := asMap(add); !isFalse {
			continue
		}
		if _, hasPat := sm["patternProperties"]; hasPat {
			continue
		}
		props, _ := sm["properties"].(map[string]any)
		all := true
		for n := range props {
			if ok, known := e.valid(p, n); !known || !ok {
				if _, isFalse := asMap(props[n]); !isFalse {
					all = false
					break
				}
			}
		}
		if all {
			return true
		}
	}
	return false
}

func (e *engine) depReqImplied(a conj, f facts, v any) bool {
	deps, _ := v.(map[string]any)
	for _, k := range sortedKeys(deps) {
		need := stringSet(deps[k])
		if e.forbids(a, k) {
			continue
		}
		ok := true
		for r := range need {
			if !f.required[r] {
				ok = false
			}
		}
		if ok {
			continue
		}
		found := false
		for _, s := range a.atoms {
			sm, _ := s.m()
			dr, _ := sm["dependentRequired"].(map[string]any)
			have := stringSet(dr[k])
			all := len(need) > 0
			for r := range need {
				if !have[r] && !f.required[r] {
					all = false
				}
			}
			if all {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func (e *engine) depSchImplied(a conj, b sref, v any) bool {
	deps, _ := v.(map[string]any)
	for _, k := range sortedKeys(deps) {
		target := b.sub(deps[k], "dependentSchemas", k)
		if trivialS(target) || e.forbids(a, k) {
			continue
		}
		ok := false
		for _, s := range a.atoms {
			sm, _ := s.m()
			ds, _ := sm["dependentSchemas"].(map[string]any)
			if x, has := ds[k]; has && e.prove(conj{atoms: []sref{s.sub(x, "dependentSchemas", k)}}, target) {
				ok = true
				break
			}
		}
		if !ok && !e.prove(a, target) {
			return false
		}
	}
	return true
}

func (e *engine) arrayImplied(a conj, f facts, b sref, m map[string]any) bool {
	k := 0
	if pre, ok := m["prefixItems"].([]any); ok {
		k = len(pre)
	}
	for _, s := range a.atoms {
		sm, _ := s.m()
		if pre, ok := sm["prefixItems"].([]any); ok && len(pre) > k {
			k = len(pre)
		}
	}
	for i := 0; i <= k; i++ {
		if f.maxItems >= 0 && int64(i) >= f.maxItems {
			return true
		}
		bi, ok := itemAtom(b, i)
		if !ok || trivialS(bi) {
			continue
		}
		ai := e.item(a, i)
		if !e.proveIn(ai, bi) {
			return false
		}
		if e.empty(ai) {
			return true // no array of a is this long
		}
	}
	return true
}

func (e *engine) containsImplied(a conj, b sref, m map[string]any) bool {
	cv, ok := m["contains"]
	if !ok {
		return true // minContains/maxContains without contains are ignored
	}
	minC := int64(1)
	if n, ok := intOf(m["minContains"]); ok {
		minC = n
	}
	_, hasMax := m["maxContains"]
	if minC == 0 && !hasMax {
		return true
	}
	for _, s := range a.atoms {
		sm, _ := s.m()
		ac, ok := sm["contains"]
		if !ok {
			continue
		}
		amin := int64(1)
		if n, ok := intOf(sm["minContains"]); ok {
			amin = n
		}
		bc := b.sub(cv, "contains")
		if hasMax {
			amax, okA := intOf(sm["maxContains"])
			bmax, _ := intOf(m["maxContains"])
			if okA && amax <= bmax && amin >= minC && e.eqS(s.sub(ac, "contains"), bc) {
				return true
			}
			continue
		}
		if amin >= minC && e.proveIn(conj{atoms: []sref{s.sub(ac, "contains")}}, bc) {
			return true
		}
	}
	return false
}

// assertedKeyword reports whether kw is an assertion or applicator of draft
// 2020-12 that the prover has no rule for (so it cannot be ignored).
func assertedKeyword(kw string) bool {
	switch kw {
	case "$dynamicRef", "$recursiveRef", "dependencies", "additionalItems":
		return true
	}
	return false
}
