package canon

import (
	"encoding/json"
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
// error. It may also refuse a text Parse accepts (an object of more than
// [MaxTapeMembers] members): a caller falls back to Parse.
type Tape struct {
	Nodes []Node
}

// MaxTapeMembers is the most members of one object the tape reader
// accepts; duplicate names are found by comparing with the earlier names.
const MaxTapeMembers = 256

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
// followed by its elements or its members' values, each of which carries
// its member name in Key.
type Node struct {
	Kind Kind
	// Str is a string's value, or a number's literal text.
	Str string
	// Key is the member name when the node is a member's value.
	Key string
	// Len is the number of elements or members of a container.
	Len int32
	// Next is the index of the node after this one and everything inside
	// it.
	Next int32
}

// Append reads the JSON text src onto the tape and returns the index of its
// root node. ok is false, and the tape is as before, when the text is not
// read (see [Tape]). Strings and number literals without escapes share
// src's memory.
func (t *Tape) Append(src string) (root int, ok bool) {
	start := len(t.Nodes)
	if !utf8.ValidString(src) {
		return 0, false
	}
	if len(src) >= presizeFrom {
		n, fits := nodeBound(src)
		if !fits {
			return 0, false
		}
		t.Nodes = slices.Grow(t.Nodes, n)
	}
	r := tapeReader{t: t, src: src}
	r.space()
	if !r.value(0, "") {
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

// presizeFrom is the text length, in bytes, from which [Tape.Append]
// counts a text's nodes first ([nodeBound]) and grows the tape once: a
// large text appended node by node grew the slice a quarter at a time,
// which allocated about four times its final size (an array of a million
// small objects: 400 MB of garbage for a 100 MB tape, and a collector
// working through it).
const presizeFrom = 256 << 10

// nodeBound returns an upper bound on the nodes a well-formed src puts on
// the tape (one for the root, one per comma and one per bracket or brace
// outside strings), and fits false when src, if well formed, has an object
// of more than [MaxTapeMembers] members, which the tape refuses: a caller
// then goes to Parse without reading the text twice. For a text that is
// not well formed the bound is only a capacity and fits false only where
// the tape reader refuses it too.
func nodeBound(src string) (n int, fits bool) {
	// members[d] counts the commas of the container open at depth d, or is
	// -1 for an array; deeper than MaxDepth the reader refuses the text.
	var members [MaxDepth + 1]int32
	depth := 0
	n = 1
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			n++
			if depth++; depth > MaxDepth {
				return 0, false
			}
			members[depth] = 0
			if src[i] == '[' {
				members[depth] = -1
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		case ',':
			n++
			if depth > 0 && members[depth] >= 0 {
				// A comma ends a member: this one is member +2.
				if members[depth]++; members[depth]+1 > MaxTapeMembers {
					return 0, false
				}
			}
		}
	}
	return n, true
}

// Reset empties the tape, keeping its storage.
func (t *Tape) Reset() {
	clear(t.Nodes) // drop references to strings
	t.Nodes = t.Nodes[:0]
}

// Member returns the index of the value of member name of the object at
// i, or -1.
func (t *Tape) Member(i int, name string) int {
	n := &t.Nodes[i]
	if n.Kind != Object {
		return -1
	}
	j := i + 1
	for range n.Len {
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
	n := &t.Nodes[i]
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
		j := i + 1
		for k := range out {
			out[k] = t.Value(j)
			j = int(t.Nodes[j].Next)
		}
		return out
	}
	out := make(map[string]any, n.Len)
	j := i + 1
	for range n.Len {
		out[t.Nodes[j].Key] = t.Value(j)
		j = int(t.Nodes[j].Next)
	}
	return out
}

type tapeReader struct {
	t   *Tape
	src string
	i   int
	buf []byte
}

func (r *tapeReader) space() {
	for r.i < len(r.src) && isSpace(r.src[r.i]) {
		r.i++
	}
}

// value reads the value at r.i (space skipped) as a node with key.
func (r *tapeReader) value(depth int, key string) bool {
	if r.i >= len(r.src) {
		return false
	}
	at := len(r.t.Nodes)
	r.t.Nodes = append(r.t.Nodes, Node{Key: key})
	switch c := r.src[r.i]; c {
	case '{':
		if depth >= MaxDepth {
			return false
		}
		return r.object(at, depth)
	case '[':
		if depth >= MaxDepth {
			return false
		}
		return r.array(at, depth)
	case '"':
		s, ok := r.string()
		if !ok {
			return false
		}
		r.t.Nodes[at].Kind, r.t.Nodes[at].Str = String, s
	case 't':
		if !r.literal("true") {
			return false
		}
		r.t.Nodes[at].Kind = True
	case 'f':
		if !r.literal("false") {
			return false
		}
		r.t.Nodes[at].Kind = False
	case 'n':
		if !r.literal("null") {
			return false
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		s, ok := r.number()
		if !ok {
			return false
		}
		r.t.Nodes[at].Kind, r.t.Nodes[at].Str = Number, s
	default:
		return false
	}
	r.t.Nodes[at].Next = int32(len(r.t.Nodes))
	return true
}

func (r *tapeReader) literal(lit string) bool {
	if len(r.src)-r.i < len(lit) || r.src[r.i:r.i+len(lit)] != lit {
		return false
	}
	r.i += len(lit)
	return true
}

func (r *tapeReader) object(at, depth int) bool {
	r.i++ // '{'
	r.space()
	n := int32(0)
	if r.i < len(r.src) && r.src[r.i] == '}' {
		r.i++
	} else {
		for {
			if r.i >= len(r.src) || r.src[r.i] != '"' {
				return false
			}
			key, ok := r.string()
			if !ok {
				return false
			}
			// Duplicate names: compare with the earlier members.
			j := at + 1
			for range n {
				if r.t.Nodes[j].Key == key {
					return false
				}
				j = int(r.t.Nodes[j].Next)
			}
			if n++; n > MaxTapeMembers {
				return false
			}
			r.space()
			if r.i >= len(r.src) || r.src[r.i] != ':' {
				return false
			}
			r.i++
			r.space()
			if !r.value(depth+1, key) {
				return false
			}
			r.space()
			if r.i >= len(r.src) {
				return false
			}
			if r.src[r.i] == ',' {
				r.i++
				r.space()
				continue
			}
			if r.src[r.i] != '}' {
				return false
			}
			r.i++
			break
		}
	}
	r.t.Nodes[at].Kind, r.t.Nodes[at].Len, r.t.Nodes[at].Next = Object, n, int32(len(r.t.Nodes))
	return true
}

func (r *tapeReader) array(at, depth int) bool {
	r.i++ // '['
	r.space()
	n := int32(0)
	if r.i < len(r.src) && r.src[r.i] == ']' {
		r.i++
	} else {
		for {
			if !r.value(depth+1, "") {
				return false
			}
			n++
			r.space()
			if r.i >= len(r.src) {
				return false
			}
			if r.src[r.i] == ',' {
				r.i++
				r.space()
				continue
			}
			if r.src[r.i] != ']' {
				return false
			}
			r.i++
			break
		}
	}
	r.t.Nodes[at].Kind, r.t.Nodes[at].Len, r.t.Nodes[at].Next = Array, n, int32(len(r.t.Nodes))
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

// string reads the string at r.i ('"'); src is valid UTF-8 already.
func (r *tapeReader) string() (string, bool) {
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
			return r.escaped(start, i)
		case c < 0x20:
			return "", false
		}
		i++
	}
	return "", false
}

// escaped finishes a string that has an escape at i, unescaping into r.buf.
func (r *tapeReader) escaped(start, i int) (string, bool) {
	s := r.src
	r.buf = append(r.buf[:0], s[start:i]...)
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			r.i = i + 1
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
