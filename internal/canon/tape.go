package canon

import (
	"cmp"
	"encoding/json"
	"hash/maphash"
	"math"
	"slices"
	"unicode/utf8"
)

// Tape holds JSON texts read strictly into one flat slice of nodes, for
// readers that only look at values (a schema check) and read many small
// texts (a recording's lines): no map or interface per value, and the
// nodes of many texts share one allocation.
//
// A text is on the tape only when [Parse] accepts it, and its nodes hold
// exactly the values Parse returns ([Tape.Value] builds them). The tape
// reader has no error messages: when it refuses a text, Parse gives the
// error. It accepts every text Parse accepts of less than 2 GiB (an object
// of any number of members: duplicate names are found by comparing with
// the earlier names up to dupLinear members, then in a hash set of them).
//
// A large text is folded. A text of foldFrom (256 KiB) bytes or more is
// read in one pass that checks it exactly as strictly but puts no nodes on
// the tape: the root and each container spanning foldSpan (64 KiB) bytes
// or more is kept as a fold record (its span, its count of elements or
// members, the nodes its insides take), and the root's node is folded. A
// folded container's node has its Kind, Len, Key and Next (its index + 1),
// and Str holds its source text; its elements or members are put on the
// tape, at the end, the first time a reader asks for them ([Tape.First],
// [Tape.Member], [Tape.Value]), the large containers among them folded in
// turn. A large frame of which a reader looks at a few members (a
// pass-over message, of which only the type is classified; a control
// request whose input need only be an object) then costs its text and a
// few nodes, where a node for each value cost 48 bytes for each (an array
// of a million {"a":1}: 96 MB of nodes for an 8 MB text). Each byte is read
// at most twice: once to check the text, once when the container around
// it is unfolded.
//
// Readers reach the elements or members of a container only through
// [Tape.First] (or Member, Value), which may append to Nodes: a *Node
// taken before keeps its Kind, Len, Str, Key and Next, but points into the
// old array. A caller may cut Nodes back to a length it had between two
// calls of the tape's methods (before an Append, say), which drops what
// was put on the tape since: a folded container unfolded since is unfolded
// again when it is read (its fold record's spare node tells).
type Tape struct {
	Nodes []Node
	// folds are the fold records of the folded texts on the tape, per text
	// in document order (by start).
	folds  []fold
	seed   maphash.Seed // for name sets, made with the first
	seeded bool
}

// Kind is the JSON type of a [Node].
type Kind uint8

// Node kinds.
const (
	Null Kind = iota
	False
	True
	Number
	String
	Array
	Object
)

// Node is one value on a [Tape], in document order: a container is
// followed by its elements or its members' values (unless it is folded:
// see [Tape]), each of which carries its member name in Key.
type Node struct {
	Kind Kind
	// Len is the number of elements or members of a container.
	Len int32
	// Str is a string's value, or a number's literal text; for a folded
	// container, its source text.
	Str string
	// Key is the member name when the node is a member's value.
	Key string
	// Next is the index of the node after this one and everything inside
	// it.
	Next int32
	// fold is 0, or for a folded container its fold record's index + 1.
	fold int32
}

// fold is the record of a folded container (see [Tape]).
type fold struct {
	// start and end are the container's span in its text, in bytes.
	start, end int32
	// len is its number of elements or members; nodes how many nodes its
	// insides take on the tape (a folded container among them is one).
	len, nodes int32
	// after is the index of the first record after start that is not
	// inside the container.
	after int32
	// first is, once the container is unfolded, the index of its first
	// element or member: the node before it is a spare with Len -1 and
	// Next the folded node's index, which tells a stale first (Nodes were
	// cut back since) from a live one.
	first int32
	kind  Kind
}

// Sizes of the tape reader.
const (
	// foldFrom is the text length, in bytes, from which a text is folded.
	foldFrom = 256 << 10
	// foldSpan is the span, in bytes, from which a container of a folded
	// text stays folded until it is read.
	foldSpan = 64 << 10
	// dupLinear is the member count up to which duplicate names are found
	// by comparing with the earlier names, not in a hash set.
	dupLinear = 32
)

// readSizes are the tape reader's sizes (foldFrom, foldSpan, dupLinear),
// small ones in tests so that short texts take every path.
type readSizes struct{ foldFrom, foldSpan, linear int }

// Append reads the JSON text src onto the tape and returns the index of its
// root node. ok is false, and the tape is as before, when the text is not
// read (see [Tape]). Strings and number literals without escapes share
// src's memory, and so do folded containers.
func (t *Tape) Append(src string) (root int, ok bool) {
	return t.append(src, readSizes{foldFrom, foldSpan, dupLinear})
}

func (t *Tape) append(src string, sz readSizes) (root int, ok bool) {
	start := len(t.Nodes)
	if len(src) > math.MaxInt32-1 || !utf8.ValidString(src) {
		return 0, false
	}
	r := tapeReader{t: t, src: src, linear: sz.linear}
	if len(src) < sz.foldFrom {
		r.space()
		if _, ok := r.value(0, ""); !ok {
			t.Nodes = t.Nodes[:start]
			return 0, false
		}
		r.space()
		if r.i != len(src) {
			t.Nodes = t.Nodes[:start]
			return 0, false
		}
		return start, true
	}
	// Check the whole text without nodes, keeping fold records.
	f0 := len(t.folds)
	r.skim, r.foldSpan = true, sz.foldSpan
	r.space()
	at := r.i
	_, ok = r.value(0, "")
	r.space()
	if !ok || r.i != len(src) {
		t.folds = t.folds[:f0]
		return 0, false
	}
	if len(t.folds) == f0 {
		// A scalar root (a long string): its one node.
		r = tapeReader{t: t, src: src, i: at}
		r.value(0, "")
		return start, true
	}
	t.order(f0)
	f := &t.folds[f0]
	t.Nodes = append(t.Nodes, Node{Kind: f.kind, Len: f.len, Str: src[f.start:f.end], Next: int32(start + 1), fold: int32(f0 + 1)})
	return start, true
}

// order sorts the fold records from f0 on (a text's, made as each
// container closed) by start, and sets their after.
func (t *Tape) order(f0 int) {
	fs := t.folds[f0:]
	slices.SortFunc(fs, func(a, b fold) int { return cmp.Compare(a.start, b.start) })
	var open []int // records whose container is open at fs[k].start
	for k := range fs {
		for len(open) > 0 && fs[open[len(open)-1]].end <= fs[k].start {
			fs[open[len(open)-1]].after = int32(f0 + k)
			open = open[:len(open)-1]
		}
		open = append(open, k)
	}
	for _, k := range open {
		fs[k].after = int32(len(t.folds))
	}
}

// First returns the index of the first element or member of the
// container at i (i + 1, unless it is folded: then its elements or members
// are put on the tape, once). Its Len elements follow one another through
// Next.
func (t *Tape) First(i int) int {
	if t.Nodes[i].fold == 0 {
		return i + 1
	}
	return t.unfold(i)
}

// unfold puts the insides of the folded container at i on the tape: a
// spare node, then its elements or members, whose first index it returns.
func (t *Tape) unfold(i int) int {
	k := int(t.Nodes[i].fold - 1)
	f := &t.folds[k]
	if p := int(f.first); p > 0 && p <= len(t.Nodes) && t.Nodes[p-1].Len == -1 && int(t.Nodes[p-1].Next) == i {
		return p
	}
	span := t.Nodes[i].Str
	spare := len(t.Nodes)
	t.Nodes = slices.Grow(t.Nodes, int(f.nodes)+1)
	r := tapeReader{t: t, src: span, unfold: true, next: k + 1, after: int(f.after), base: f.start}
	if _, ok := r.value(0, ""); !ok || r.i != len(span) {
		panic("canon: a folded container does not read again")
	}
	t.Nodes[spare].Len, t.Nodes[spare].Next = -1, int32(i)
	f.first = int32(spare + 1)
	return spare + 1
}

// Reset empties the tape, keeping its storage.
func (t *Tape) Reset() {
	clear(t.Nodes) // drop references to strings
	t.Nodes = t.Nodes[:0]
	t.folds = t.folds[:0]
}

// Member returns the index of the value of member name of the object at
// i, or -1. A reader that looks up several names in one object takes
// [Tape.First] once and asks [Tape.MemberIn].
func (t *Tape) Member(i int, name string) int {
	n := &t.Nodes[i]
	if n.Kind != Object {
		return -1
	}
	return t.MemberIn(t.First(i), n.Len, name)
}

// MemberIn returns the index of the value of member name among the n
// members of an object that start at first (what [Tape.First] returned for
// it; n is its Len), or -1. It unfolds nothing, so it is cheap enough to
// be inlined into the schema evaluator's loops, which look up several
// names in each object (calling Member for each, with its fold check, was
// a tenth of conform validate's CPU: bench/README.md, issue 31 item 5).
func (t *Tape) MemberIn(first int, n int32, name string) int {
	j := first
	for range n {
		if t.Nodes[j].Key == name {
			return j
		}
		j = int(t.Nodes[j].Next)
	}
	return -1
}

// Value returns the node at i and everything inside it as [Parse] returns
// it: nil, bool, json.Number, string, []any, map[string]any.
func (t *Tape) Value(i int) any {
	n := t.Nodes[i]
	switch n.Kind {
	case Null:
		return nil
	case False:
		return false
	case True:
		return true
	case Number:
		return json.Number(n.Str)
	case String:
		return n.Str
	case Array:
		out := make([]any, n.Len)
		j := t.First(i)
		for k := range out {
			out[k] = t.Value(j)
			j = int(t.Nodes[j].Next)
		}
		return out
	}
	out := make(map[string]any, n.Len)
	j := t.First(i)
	for range n.Len {
		out[t.Nodes[j].Key] = t.Value(j)
		j = int(t.Nodes[j].Next)
	}
	return out
}

func (t *Tape) seedOf() maphash.Seed {
	if !t.seeded {
		t.seed, t.seeded = maphash.MakeSeed(), true
	}
	return t.seed
}

// tapeReader is one read of a text: onto the tape (nodes), a check
// without nodes (skim: a folded text), or the unfolding of a folded
// container (unfold: checked already, so no duplicate names are looked
// for, and the fold records from next to after are folded again).
type tapeReader struct {
	t   *Tape
	src string
	i   int
	buf []byte

	linear int // dupLinear

	skim     bool
	foldSpan int
	// keys and offs are the names, and their offsets, of the members of
	// the open objects with at most linear members (skim); each object
	// owns the tail it appended.
	keys []string
	offs []int32

	unfold      bool
	next, after int
	base        int32 // the unfolded container's start in its text
}

func (r *tapeReader) space() {
	for r.i < len(r.src) && isSpace(r.src[r.i]) {
		r.i++
	}
}

// value reads the value at r.i (space skipped) as a node with key, and
// returns how many nodes it took (in a skim: will take when its parent is
// unfolded, a folded container being one).
func (r *tapeReader) value(depth int, key string) (int, bool) {
	if r.i >= len(r.src) {
		return 0, false
	}
	if r.skim {
		return r.skimValue(depth)
	}
	c := r.src[r.i]
	if r.unfold && (c == '{' || c == '[') && r.next < r.after && int(r.t.folds[r.next].start-r.base) == r.i {
		return r.folded(key), true
	}
	at := len(r.t.Nodes)
	r.t.Nodes = append(r.t.Nodes, Node{Key: key})
	switch c {
	case '{':
		if depth >= MaxDepth {
			return 0, false
		}
		return r.object(at, depth)
	case '[':
		if depth >= MaxDepth {
			return 0, false
		}
		return r.array(at, depth)
	case '"':
		s, ok := r.string(true)
		if !ok {
			return 0, false
		}
		r.t.Nodes[at].Kind, r.t.Nodes[at].Str = String, s
	case 't':
		if !r.literal("true") {
			return 0, false
		}
		r.t.Nodes[at].Kind = True
	case 'f':
		if !r.literal("false") {
			return 0, false
		}
		r.t.Nodes[at].Kind = False
	case 'n':
		if !r.literal("null") {
			return 0, false
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		s, ok := r.number()
		if !ok {
			return 0, false
		}
		r.t.Nodes[at].Kind, r.t.Nodes[at].Str = Number, s
	default:
		return 0, false
	}
	r.t.Nodes[at].Next = int32(len(r.t.Nodes))
	return 1, true
}

// folded puts the folded node of the container at r.i, record r.next, on
// the tape and moves past it and the records inside it.
func (r *tapeReader) folded(key string) int {
	k := r.next
	f := &r.t.folds[k]
	end := int(f.end - r.base)
	r.t.Nodes = append(r.t.Nodes, Node{Kind: f.kind, Len: f.len, Str: r.src[r.i:end], Key: key, Next: int32(len(r.t.Nodes) + 1), fold: int32(k + 1)})
	r.i = end
	r.next = int(f.after)
	return 1
}

// skimValue is value in a skim.
func (r *tapeReader) skimValue(depth int) (int, bool) {
	switch r.src[r.i] {
	case '{':
		if depth >= MaxDepth {
			return 0, false
		}
		return r.object(-1, depth)
	case '[':
		if depth >= MaxDepth {
			return 0, false
		}
		return r.array(-1, depth)
	case '"':
		_, ok := r.string(false)
		return 1, ok
	case 't':
		return 1, r.literal("true")
	case 'f':
		return 1, r.literal("false")
	case 'n':
		return 1, r.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		_, ok := r.number()
		return 1, ok
	}
	return 0, false
}

// closed ends the container read from start to r.i, at node at (none in
// a skim), with n elements or members whose nodes took nodes; it returns
// the container's nodes. In a skim, the root and a container of foldSpan
// bytes or more get a fold record and count as one node.
func (r *tapeReader) closed(at int, kind Kind, n int32, start, nodes, depth int) (int, bool) {
	if r.skim {
		if depth > 0 && r.i-start < r.foldSpan {
			return 1 + nodes, true
		}
		r.t.folds = append(r.t.folds, fold{start: int32(start), end: int32(r.i), len: n, nodes: int32(nodes), kind: kind})
		return 1, true
	}
	r.t.Nodes[at].Kind, r.t.Nodes[at].Len, r.t.Nodes[at].Next = kind, n, int32(len(r.t.Nodes))
	return 1 + nodes, true
}

func (r *tapeReader) object(at, depth int) (int, bool) {
	start := r.i
	r.i++ // '{'
	r.space()
	n, nodes := int32(0), 0
	base := len(r.keys)
	var set *nameSet // once the object has more than linear members
	if r.i < len(r.src) && r.src[r.i] == '}' {
		r.i++
	} else {
		for {
			if r.i >= len(r.src) || r.src[r.i] != '"' {
				return 0, false
			}
			off := r.i
			key, ok := r.string(true)
			if !ok {
				return 0, false
			}
			if r.unfold {
				// Checked when the text was read.
			} else if set == nil && !r.skim && int(n) < r.linear {
				// Compare with the earlier members (a small object).
				j := at + 1
				for range n {
					if r.t.Nodes[j].Key == key {
						return 0, false
					}
					j = int(r.t.Nodes[j].Next)
				}
			} else if r.duplicate(at, base, n, &set, key, off) {
				return 0, false
			}
			n++
			r.space()
			if r.i >= len(r.src) || r.src[r.i] != ':' {
				return 0, false
			}
			r.i++
			r.space()
			c, ok := r.value(depth+1, key)
			if !ok {
				return 0, false
			}
			nodes += c
			r.space()
			if r.i >= len(r.src) {
				return 0, false
			}
			if r.src[r.i] == ',' {
				r.i++
				r.space()
				continue
			}
			if r.src[r.i] != '}' {
				return 0, false
			}
			r.i++
			break
		}
	}
	if r.skim {
		r.keys, r.offs = r.keys[:base], r.offs[:base]
	}
	return r.closed(at, Object, n, start, nodes, depth)
}

// duplicate reports whether key (at offset off) names one of the n
// members read so far of the object at node at (in a skim: whose names
// are r.keys[base:]), and records it, for an object past linear members
// or in a skim: up to linear members it compares with each; then the
// names go into *set.
func (r *tapeReader) duplicate(at, base int, n int32, set **nameSet, key string, off int) bool {
	ref := int32(len(r.t.Nodes)) // the node the member's value gets
	if r.skim {
		ref = int32(off)
	}
	if *set != nil {
		return r.add(*set, key, ref)
	}
	if int(n) < r.linear {
		// A small object in a skim (object compares the nodes itself).
		for _, k := range r.keys[base:] {
			if k == key {
				return true
			}
		}
		r.keys, r.offs = append(r.keys, key), append(r.offs, int32(off))
		return false
	}
	s := &nameSet{slots: make([]uint64, 4*max(r.linear, 16))}
	if r.skim {
		for k, name := range r.keys[base:] {
			r.add(s, name, r.offs[base+k])
		}
		r.keys, r.offs = r.keys[:base], r.offs[:base]
	} else {
		j := at + 1
		for range n {
			r.add(s, r.t.Nodes[j].Key, int32(j))
			j = int(r.t.Nodes[j].Next)
		}
	}
	*set = s
	return r.add(s, key, ref)
}

// nameSet is a set of the member names of one object, open addressing
// with linear probing: a slot holds the upper 32 bits of the name's hash
// (which also place it) and its ref + 1 (0 is empty): a node index, or in
// a skim the offset of the name in the text. 8 bytes a slot, at most 7/8
// full: a million names take 16 MiB (a map of strings took about 80).
type nameSet struct {
	slots []uint64
	n     int
}

// add puts name (at ref) in s and reports whether it was there already.
func (r *tapeReader) add(s *nameSet, name string, ref int32) (dup bool) {
	if (s.n+1)*8 > len(s.slots)*7 {
		s.grow()
	}
	tag := uint32(maphash.String(r.t.seedOf(), name) >> 32)
	mask := uint32(len(s.slots) - 1)
	for p := tag & mask; ; p = (p + 1) & mask {
		sl := s.slots[p]
		if sl == 0 {
			s.slots[p] = uint64(tag)<<32 | uint64(uint32(ref)+1)
			s.n++
			return false
		}
		if uint32(sl>>32) == tag && r.nameOf(int32(uint32(sl)-1)) == name {
			return true
		}
	}
}

// nameOf is the member name at ref (see nameSet).
func (r *tapeReader) nameOf(ref int32) string {
	if !r.skim {
		return r.t.Nodes[ref].Key
	}
	q := tapeReader{src: r.src, i: int(ref)}
	s, _ := q.string(true)
	return s
}

// grow doubles s, placing each slot again by its hash.
func (s *nameSet) grow() {
	old := s.slots
	s.slots = make([]uint64, 2*len(old))
	mask := uint32(len(s.slots) - 1)
	for _, sl := range old {
		if sl == 0 {
			continue
		}
		p := uint32(sl>>32) & mask
		for s.slots[p] != 0 {
			p = (p + 1) & mask
		}
		s.slots[p] = sl
	}
}

func (r *tapeReader) array(at, depth int) (int, bool) {
	start := r.i
	r.i++ // '['
	r.space()
	n, nodes := int32(0), 0
	if r.i < len(r.src) && r.src[r.i] == ']' {
		r.i++
	} else {
		for {
			c, ok := r.value(depth+1, "")
			if !ok {
				return 0, false
			}
			nodes += c
			n++
			r.space()
			if r.i >= len(r.src) {
				return 0, false
			}
			if r.src[r.i] == ',' {
				r.i++
				r.space()
				continue
			}
			if r.src[r.i] != ']' {
				return 0, false
			}
			r.i++
			break
		}
	}
	return r.closed(at, Array, n, start, nodes, depth)
}

func (r *tapeReader) literal(lit string) bool {
	if len(r.src)-r.i < len(lit) || r.src[r.i:r.i+len(lit)] != lit {
		return false
	}
	r.i += len(lit)
	return true
}

// number reads an RFC 8259 number; literals [Parse] checks with
// [CheckNumber] must pass it.
func (r *tapeReader) number() (string, bool) {
	s, i := r.src, r.i
	start := i
	if s[i] == '-' {
		i++
	}
	intStart := i
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return "", false
	}
	intDigits := i - intStart
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || !isDigit(s[i]) {
			return "", false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	exp := false
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		exp = true
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			return "", false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	r.i = i
	lit := s[start:i]
	if (exp || intDigits > 15) && CheckNumber(json.Number(lit)) != nil {
		return "", false
	}
	return lit, true
}

// string reads the string at r.i ('"'); src is valid UTF-8 already. With
// keep false an escaped string is checked but not built ("" is returned).
func (r *tapeReader) string(keep bool) (string, bool) {
	s := r.src
	i := r.i + 1
	start := i
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			r.i = i + 1
			return s[start:i], true
		case c == '\\':
			return r.escaped(start, i, keep)
		case c < 0x20:
			return "", false
		}
		i++
	}
	return "", false
}

// escaped finishes a string that has an escape at i, unescaping into r.buf.
func (r *tapeReader) escaped(start, i int, keep bool) (string, bool) {
	s := r.src
	r.buf = append(r.buf[:0], s[start:i]...)
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			r.i = i + 1
			if !keep {
				return "", true
			}
			return string(r.buf), true
		case c < 0x20:
			return "", false
		case c != '\\':
			r.buf = append(r.buf, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		switch e := s[i+1]; e {
		case '"', '\\', '/':
			r.buf = append(r.buf, e)
		case 'b':
			r.buf = append(r.buf, '\b')
		case 'f':
			r.buf = append(r.buf, '\f')
		case 'n':
			r.buf = append(r.buf, '\n')
		case 'r':
			r.buf = append(r.buf, '\r')
		case 't':
			r.buf = append(r.buf, '\t')
		case 'u':
			cp, ok := hex4s(s, i+2)
			if !ok {
				return "", false
			}
			i += 6
			if cp >= 0xD800 && cp <= 0xDFFF {
				if cp >= 0xDC00 || i+1 >= len(s) || s[i] != '\\' || s[i+1] != 'u' {
					return "", false
				}
				lo, ok := hex4s(s, i+2)
				if !ok || lo < 0xDC00 || lo > 0xDFFF {
					return "", false
				}
				cp = 0x10000 + (cp-0xD800)<<10 + (lo - 0xDC00)
				i += 6
			}
			r.buf = utf8.AppendRune(r.buf, rune(cp))
			continue
		default:
			return "", false
		}
		i += 2
	}
	return "", false
}

func hex4s(s string, at int) (int, bool) {
	if at+4 > len(s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(s[at : at+4]) {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
