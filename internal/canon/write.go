package canon

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// The direct writer: RFC 8785 bytes of the values [Parse] returns, written
// in one pass. The reference path, encoding/json's Marshal then
// jcs.Transform, serializes the value, parses the text again, converts each
// member name to UTF-16 to sort it, and serializes once more; it was the
// largest part of the runner's work per frame after validation
// (bench/README.md). The direct writer gives the same bytes for every value
// it accepts (differential tests over the suite's files and
// FuzzCanonicalDirect) and accepts only what it can write exactly as the
// reference path would: nil, bool, string and json.Number, float64, []any
// and map[string]any, with valid UTF-8 and at most MaxDepth levels of
// nesting. Anything else (another Go type, invalid UTF-8, which Marshal
// replaces, a json.Number that is not a JSON number or that binary64 cannot
// hold, which are errors there) goes to the reference path, whose bytes or
// error are the answer.

// appendCanonical appends the RFC 8785 form of v to b, or reports false
// when v is not one the direct writer takes (b is then garbage).
func appendCanonical(b []byte, v any, depth int) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		if x {
			return append(b, "true"...), true
		}
		return append(b, "false"...), true
	case string:
		return appendString(b, x)
	case json.Number:
		return appendNumber(b, string(x))
	case float64:
		s, err := jcs.NumberToJSON(x)
		if err != nil {
			return b, false
		}
		return append(b, s...), true
	case []any:
		if x == nil {
			return append(b, "null"...), true
		}
		if depth >= MaxDepth {
			return b, false
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendCanonical(b, e, depth+1); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if x == nil {
			return append(b, "null"...), true
		}
		if depth >= MaxDepth {
			return b, false
		}
		return appendObject(b, x, depth)
	}
	return b, false
}

// appendObject writes the members of m sorted by the UTF-16 code units of
// their names (RFC 8785 §3.2.3).
func appendObject(b []byte, m map[string]any, depth int) ([]byte, bool) {
	var small [16]string
	names := small[:0]
	for k := range m {
		names = append(names, k)
	}
	slices.SortFunc(names, compareUTF16)
	b = append(b, '{')
	for i, k := range names {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendString(b, k); !ok {
			return b, false
		}
		b = append(b, ':')
		if b, ok = appendCanonical(b, m[k], depth+1); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// compareUTF16 orders two valid UTF-8 strings by their UTF-16 code units:
// as bytes, except that a code point above U+FFFF (a surrogate pair, its
// first unit from 0xD800) sorts before U+E000 to U+FFFF. Names that are not
// valid UTF-8 never get here: appendString refuses them.
func compareUTF16(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	if a[i] < utf8.RuneSelf && b[i] < utf8.RuneSelf {
		return int(a[i]) - int(b[i])
	}
	// The code points that differ start at the same offset: the bytes
	// before i are equal, so are the code points they begin.
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	return int(unit(ra)) - int(unit(rb))
}

// unit returns the first UTF-16 code unit of r, widened so that the second
// unit of a pair decides between two code points that share the first.
func unit(r rune) uint32 {
	if r < 0x10000 {
		return uint32(r) << 10
	}
	r -= 0x10000
	hi := 0xD800 + uint32(r>>10)
	return hi<<10 | uint32(r&0x3FF)
}

// appendString writes s as an RFC 8785 string: '"' and '\' escaped, the
// control characters as \b \t \n \f \r or \u00xx, everything else as it
// is. It refuses invalid UTF-8.
func appendString(b []byte, s string) ([]byte, bool) {
	if !utf8.ValidString(s) {
		return b, false
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			const hex = "0123456789abcdef"
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"'), true
}

// appendNumber writes the JSON number literal s in its ECMAScript form
// (RFC 8785 §3.2.2.3). A literal of at most 15 digits without fraction or
// exponent is that integer, written as it is ("-0" as "0"); any other goes
// through strconv.ParseFloat and jcs.NumberToJSON, as jcs.Transform does.
// It refuses a literal that is not a JSON number or that overflows
// binary64.
func appendNumber(b []byte, s string) ([]byte, bool) {
	if !validNumber(s) {
		return b, false
	}
	digits := s
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) <= 15 && !strings.ContainsAny(digits, ".eE") {
		if s == "-0" {
			return append(b, '0'), true
		}
		return append(b, s...), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return b, false
	}
	out, err := jcs.NumberToJSON(f)
	if err != nil {
		return b, false
	}
	return append(b, out...), true
}

// validNumber reports whether s is a JSON number (RFC 8259 §6):
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i == len(s) || !isDigit(s[i]) {
			return false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i == len(s) || !isDigit(s[i]) {
			return false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	return i == len(s)
}
