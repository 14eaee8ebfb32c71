package canon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/conform-kit/conform/internal/kiterr"
)

// Parse decodes exactly one JSON text from data with the strict rules of the
// package doc. Errors are *kiterr.Error with code JSON_SYNTAX (message gives
// line:column, 1-based, column in bytes), JSON_DUPLICATE_KEY (with the JSON
// Pointer of the object), JSON_INVALID_UTF8 (with the byte offset),
// JSON_LONE_SURROGATE, JSON_NUMBER_INEXACT or JSON_TOO_DEEP.
//
// When data has several faults, invalid UTF-8 anywhere is reported first,
// then a lone surrogate escape anywhere, then the first other fault in
// document order. Syntax messages are those of encoding/json's scanner
// ("invalid character ... looking for beginning of value"), or "unexpected
// end of input" at the end of data; a leading byte order mark, which RFC
// 8259 §8.1 forbids, is named as such.
//
// The grammar is RFC 8259's exactly, read in one pass over data. Strings
// without escapes and number literals of the result are substrings of one
// copy of data: data itself is not retained, but any such string kept from
// the result keeps the whole copy alive.
func Parse(data []byte) (any, error) {
	p := parser{data: data, src: string(data)}
	v, err := p.document()
	if err != nil {
		return nil, precede(data, err)
	}
	return v, nil
}

// precede returns the error Parse reports for data, whose first fault in
// document order is err: invalid UTF-8 and lone surrogate escapes anywhere
// in data come first. The one-pass reader checks both in the strings it
// reads, so a value it accepts never needs these passes.
func precede(data []byte, err error) error {
	if !utf8.Valid(data) {
		return kiterr.New(kiterr.JSONInvalidUTF8, "invalid UTF-8 at byte offset %d", invalidUTF8Offset(data))
	}
	if off, ok := loneSurrogate(data); ok {
		line, col := position(data, off)
		return kiterr.New(kiterr.JSONLoneSurrogate, "lone surrogate escape at %d:%d", line, col)
	}
	return err
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// smallObject is the member count up to which duplicate names are found by
// comparing with the earlier names of the object instead of a map lookup.
const smallObject = 16

// parser is the state of one Parse call.
type parser struct {
	data []byte
	src  string // string(data): unescaped strings and numbers are substrings
	i    int    // offset of the next unread byte
	buf  []byte // the unescaped bytes of the string being read

	// vals holds the elements of the open arrays and the values of the open
	// objects' members, keys the names of those members; a container owns
	// the tail it appended and removes it when it closes.
	vals []any
	keys []string
}

// stackCap is the first capacity of parser.vals and parser.keys.
const stackCap = 32

// located is a fault whose message names the JSON Pointer of where it
// happened. The reader keeps no path on the way down: while a located
// unwinds, each container around it adds its reference token, and
// document turns it into the error.
type located struct {
	tokens []string // unescaped reference tokens, innermost first
	err    func(ptr string) error
}

func (l *located) Error() string { return "unresolved " + l.err("").Error() }

// within adds the reference token of a container's member or element to
// err if it is a located fault.
func within(err error, token func() string) error {
	if l, ok := err.(*located); ok {
		l.tokens = append(l.tokens, token())
	}
	return err
}

func (p *parser) document() (any, error) {
	if bytes.HasPrefix(p.data, []byte("\xef\xbb\xbf")) {
		// RFC 8259 §8.1: JSON text must not begin with a byte order mark;
		// say so rather than "invalid character 'ï'".
		return nil, kiterr.New(kiterr.JSONSyntax, "at 1:1: byte order mark (U+FEFF) before the JSON value; JSON text must not begin with one (RFC 8259 §8.1)")
	}
	p.skipSpace()
	v, err := p.value(0)
	if l, ok := err.(*located); ok {
		var b strings.Builder
		for _, t := range slices.Backward(l.tokens) {
			b.WriteByte('/')
			b.WriteString(EscapePointer(t))
		}
		return nil, l.err(b.String())
	}
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i < len(p.data) {
		line, col := position(p.data, p.i)
		return nil, kiterr.New(kiterr.JSONSyntax, "trailing data after JSON value at %d:%d", line, col)
	}
	return v, nil
}

func (p *parser) skipSpace() {
	for p.i < len(p.data) && isSpace(p.data[p.i]) {
		p.i++
	}
}

// value reads the value that begins at p.i (whitespace already skipped);
// depth is the number of containers around it.
func (p *parser) value(depth int) (any, error) {
	if p.i >= len(p.data) {
		return nil, p.eof()
	}
	switch c := p.data[p.i]; c {
	case '{', '[':
		if depth >= MaxDepth {
			return nil, &located{err: func(ptr string) error {
				return kiterr.New(kiterr.JSONTooDeep, "nesting deeper than %d at %q", MaxDepth, ptr)
			}}
		}
		if c == '{' {
			return p.object(depth)
		}
		return p.array(depth)
	case '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return s, nil
	case 't':
		return true, p.literal("true")
	case 'f':
		return false, p.literal("false")
	case 'n':
		return nil, p.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n, err := p.number()
		if err != nil {
			return nil, err
		}
		return n, nil
	default:
		return nil, p.invalid(p.i, "looking for beginning of value")
	}
}

func (p *parser) object(depth int) (any, error) {
	p.i++ // '{'
	p.skipSpace()
	if p.i >= len(p.data) {
		return nil, p.eof()
	}
	if p.data[p.i] == '}' {
		p.i++
		return map[string]any{}, nil
	}
	if p.keys == nil {
		p.keys = make([]string, 0, stackCap)
	}
	if p.vals == nil {
		p.vals = make([]any, 0, stackCap)
	}
	base := len(p.keys)
	var m map[string]any // non-nil once the object has smallObject members
	for {
		if p.i >= len(p.data) {
			return nil, p.eof()
		}
		if p.data[p.i] != '"' {
			return nil, p.invalid(p.i, "looking for beginning of object key string")
		}
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		dup := false
		if m != nil {
			_, dup = m[key]
		} else {
			for _, k := range p.keys[base:] {
				if k == key {
					dup = true
					break
				}
			}
		}
		if dup {
			return nil, &located{err: func(ptr string) error {
				return kiterr.New(kiterr.JSONDuplicateKey, "duplicate member %q in object at %q", key, ptrOrRoot(ptr))
			}}
		}
		p.skipSpace()
		if p.i >= len(p.data) {
			return nil, p.eof()
		}
		if p.data[p.i] != ':' {
			return nil, p.invalid(p.i, "after object key")
		}
		p.i++
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, within(err, func() string { return key })
		}
		if m != nil {
			m[key] = v
		} else {
			p.keys = append(p.keys, key)
			p.vals = append(p.vals, v)
			if len(p.keys)-base == smallObject {
				m = make(map[string]any, 2*smallObject)
				p.flush(m, base)
			}
		}
		p.skipSpace()
		if p.i >= len(p.data) {
			return nil, p.eof()
		}
		switch p.data[p.i] {
		case ',':
			p.i++
			p.skipSpace()
		case '}':
			p.i++
			if m == nil {
				m = make(map[string]any, len(p.keys)-base)
				p.flush(m, base)
			}
			return m, nil
		default:
			return nil, p.invalid(p.i, "after object key:value pair")
		}
	}
}

// flush moves the members an object has on the stacks from base on into m.
func (p *parser) flush(m map[string]any, base int) {
	vbase := len(p.vals) - (len(p.keys) - base)
	for k, key := range p.keys[base:] {
		m[key] = p.vals[vbase+k]
	}
	clear(p.vals[vbase:])
	p.keys, p.vals = p.keys[:base], p.vals[:vbase]
}

func (p *parser) array(depth int) (any, error) {
	p.i++ // '['
	p.skipSpace()
	if p.i >= len(p.data) {
		return nil, p.eof()
	}
	if p.data[p.i] == ']' {
		p.i++
		return []any{}, nil
	}
	if p.vals == nil {
		p.vals = make([]any, 0, stackCap)
	}
	base := len(p.vals)
	for n := 0; ; n++ {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, within(err, func() string { return strconv.Itoa(n) })
		}
		p.vals = append(p.vals, v)
		p.skipSpace()
		if p.i >= len(p.data) {
			return nil, p.eof()
		}
		switch p.data[p.i] {
		case ',':
			p.i++
			p.skipSpace()
		case ']':
			p.i++
			arr := make([]any, len(p.vals)-base)
			copy(arr, p.vals[base:])
			clear(p.vals[base:])
			p.vals = p.vals[:base]
			return arr, nil
		default:
			return nil, p.invalid(p.i, "after array element")
		}
	}
}

// literal reads true, false or null, with the scanner's message for the
// first byte that differs.
func (p *parser) literal(lit string) error {
	for k := 1; k < len(lit); k++ {
		i := p.i + k
		if i >= len(p.data) {
			return p.eof()
		}
		if p.data[i] != lit[k] {
			return p.invalid(i, fmt.Sprintf("in literal %s (expecting %s)", lit, quoteChar(lit[k])))
		}
	}
	p.i += len(lit)
	return nil
}

// number reads an RFC 8259 number and checks it with [CheckNumber].
func (p *parser) number() (json.Number, error) {
	data, i := p.data, p.i
	start := i
	if data[i] == '-' {
		i++
		if i >= len(data) {
			return "", p.eof()
		}
		if !isDigit(data[i]) {
			return "", p.invalid(i, "in numeric literal")
		}
	}
	intStart := i
	if data[i] == '0' {
		i++
	} else {
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	intDigits := i - intStart
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) {
			return "", p.eof()
		}
		if !isDigit(data[i]) {
			return "", p.invalid(i, "after decimal point in numeric literal")
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	exp := false
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		exp = true
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) {
			return "", p.eof()
		}
		if !isDigit(data[i]) {
			return "", p.invalid(i, "in exponent of numeric literal")
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	p.i = i
	n := json.Number(p.src[start:i])
	// Without an exponent, at most 15 integer digits are below 2^53 and
	// cannot overflow: CheckNumber would accept n.
	if exp || intDigits > 15 {
		if err := CheckNumber(n); err != nil {
			return "", &located{err: func(ptr string) error {
				return kiterr.Wrap(kiterr.JSONNumberInexact, err, "number at %q", ptrOrRoot(ptr))
			}}
		}
	}
	return n, nil
}

// string reads the string that begins at p.i. Without escapes it is a
// substring of p.src; with escapes it is unescaped through p.buf.
func (p *parser) string() (string, error) {
	data := p.data
	i := p.i + 1
	start, lit := i, i // lit: start of the bytes not yet copied to p.buf
	escaped := false
	for {
		if i >= len(data) {
			return "", p.eof()
		}
		c := data[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return "", kiterr.New(kiterr.JSONInvalidUTF8, "invalid UTF-8 at byte offset %d", i)
			}
			i += size
			continue
		}
		switch {
		case c == '"':
			p.i = i + 1
			if !escaped {
				return p.src[start:i], nil
			}
			p.buf = append(p.buf, data[lit:i]...)
			return string(p.buf), nil
		case c == '\\':
			if !escaped {
				escaped = true
				p.buf = p.buf[:0]
			}
			p.buf = append(p.buf, data[lit:i]...)
			next, err := p.escape(i)
			if err != nil {
				return "", err
			}
			i, lit = next, next
		case c < 0x20:
			return "", p.invalid(i, "in string literal")
		default:
			i++
		}
	}
}

// escape appends the character of the escape at data[i] ('\\') to p.buf
// and returns the offset after it. A \u escape of a surrogate must be the
// high half immediately followed by an escape of the low half.
func (p *parser) escape(i int) (int, error) {
	data := p.data
	if i+1 >= len(data) {
		return 0, p.eof()
	}
	var c byte
	switch e := data[i+1]; e {
	case '"', '\\', '/':
		c = e
	case 'b':
		c = '\b'
	case 'f':
		c = '\f'
	case 'n':
		c = '\n'
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case 'u':
		r, err := p.hex(i + 2)
		if err != nil {
			return 0, err
		}
		next := i + 6
		if r >= 0xD800 && r <= 0xDFFF {
			lo := -1
			if r < 0xDC00 && next+1 < len(data) && data[next] == '\\' && data[next+1] == 'u' {
				lo, _ = hex4(data, next+2)
			}
			if lo < 0xDC00 || lo > 0xDFFF {
				line, col := position(data, i)
				return 0, kiterr.New(kiterr.JSONLoneSurrogate, "lone surrogate escape at %d:%d", line, col)
			}
			r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
			next += 6
		}
		p.buf = utf8.AppendRune(p.buf, rune(r))
		return next, nil
	default:
		return 0, p.invalid(i+1, "in string escape code")
	}
	p.buf = append(p.buf, c)
	return i + 2, nil
}

// hex reads the 4 hexadecimal digits of a \u escape at data[at:].
func (p *parser) hex(at int) (int, error) {
	v := 0
	for i := at; i < at+4; i++ {
		if i >= len(p.data) {
			return 0, p.eof()
		}
		switch c := p.data[i]; {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return 0, p.invalid(i, `in \u hexadecimal character escape`)
		}
	}
	return v, nil
}

// invalid is the JSON_SYNTAX error for the byte at data[off], worded as
// encoding/json's scanner words it.
func (p *parser) invalid(off int, context string) error {
	line, col := position(p.data, off)
	return &kiterr.Error{Code: kiterr.JSONSyntax, Msg: fmt.Sprintf("at %d:%d: invalid character %s %s", line, col, quoteChar(p.data[off]), context)}
}

// eof is the JSON_SYNTAX error for data that ends inside a value.
func (p *parser) eof() error {
	line, col := position(p.data, len(p.data))
	return &kiterr.Error{Code: kiterr.JSONSyntax, Msg: fmt.Sprintf("at %d:%d: unexpected end of input", line, col)}
}

// quoteChar formats c as encoding/json's scanner does in its messages.
func quoteChar(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}
