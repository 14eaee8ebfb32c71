// Package canon reads JSON strictly and writes its canonical form (RFC 8785,
// JSON Canonicalization Scheme, through github.com/gowebpki/jcs).
//
// Values are the decoded shapes of encoding/json with UseNumber: nil, bool,
// string, json.Number, []any and map[string]any. The strict reader refuses
// what would make two implementations' bytes ambiguous once canonicalized:
// duplicate member names, invalid UTF-8, lone surrogates, integers that
// IEEE 754 binary64 cannot hold exactly, and trailing data.
package canon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// MaxDepth is the deepest nesting of arrays and objects [Parse] accepts.
const MaxDepth = 512

// maxExact is 2^53, the largest magnitude below which every integer is
// exactly representable in IEEE 754 binary64 (RFC 8785 §3.2.2.3, RFC 7493 §2.2).
const maxExact = 1 << 53

// CheckNumber reports an error when the integer literal n (no fraction or
// exponent) of magnitude 2^53 or more names a value that neither binary64
// holds exactly nor is written in the RFC 8785 (ECMAScript) form of its
// nearest binary64. So 18446744073709551616 (2^64, exact) and
// 12345678901234567000 (the ECMAScript rendering of a binary64, what
// JavaScript writes) pass, while 12345678901234567890 and 9007199254740993
// (2^53+1) carry digits binary64 drops and are refused: two readers would
// silently disagree about them. A literal that overflows binary64 (1e400)
// is an error too. Fractions are not checked: a JSON number is a binary64
// value (RFC 7493 §2.2) and a fraction's nearest binary64 is the value both
// sides canonicalize.
func CheckNumber(n json.Number) error {
	s := string(n)
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) {
		return fmt.Errorf("%s overflows IEEE 754 binary64", s)
	}
	if strings.ContainsAny(s, ".eE") || math.Abs(f) < maxExact {
		return nil
	}
	es6, err := jcs.NumberToJSON(f)
	if err != nil {
		return fmt.Errorf("%s: %w", s, err)
	}
	if strings.TrimPrefix(s, "-") == strings.TrimPrefix(es6, "-") {
		return nil
	}
	want, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return fmt.Errorf("%s is not an integer literal", s)
	}
	if got, _ := big.NewFloat(f).Int(nil); want.Cmp(got) == 0 {
		return nil
	}
	return fmt.Errorf("integer %s is not exactly representable in IEEE 754 binary64 (its canonical form is %s)", s, es6)
}

// Canonical returns the RFC 8785 canonical bytes of v (a value as returned by
// [Parse], or any value encoding/json can marshal): members sorted by UTF-16
// code units, no insignificant whitespace, ECMAScript number form, minimal
// string escaping. No trailing newline.
func Canonical(v any) ([]byte, error) {
	if b, ok := appendCanonical(make([]byte, 0, 256), v, 0); ok {
		return b, nil
	}
	return canonicalReference(v)
}

// canonicalReference is [Canonical] by the reference path:
// encoding/json's Marshal, then jcs.Transform. The direct writer
// (write.go) hands it every value it does not take.
func canonicalReference(v any) ([]byte, error) {
	raw, err := marshal(v)
	if err != nil {
		return nil, err
	}
	out, err := jcs.Transform(raw)
	if err != nil {
		return nil, fmt.Errorf("canonicalize: %w", err)
	}
	return out, nil
}

// CanonicalBytes parses data with [Parse] and returns [Canonical] of it.
func CanonicalBytes(data []byte) ([]byte, error) {
	v, err := Parse(data)
	if err != nil {
		return nil, err
	}
	if b, ok := appendCanonical(make([]byte, 0, len(data)), v, 0); ok {
		return b, nil
	}
	out, err := jcs.Transform(data)
	if err != nil {
		return nil, fmt.Errorf("canonicalize: %w", err)
	}
	return out, nil
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("marshal: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// EscapePointer escapes one JSON Pointer reference token (RFC 6901 §3):
// "~" becomes "~0" and "/" becomes "~1".
func EscapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// UnescapePointer undoes [EscapePointer] on one reference token (RFC 6901
// §4: "~1" becomes "/", then "~0" becomes "~").
func UnescapePointer(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

func ptrOrRoot(ptr string) string {
	if ptr == "" {
		return "/"
	}
	return ptr
}

// position returns the 1-based line and byte column of offset off in data.
func position(data []byte, off int) (line, col int) {
	if off > len(data) {
		off = len(data)
	}
	line = 1 + bytes.Count(data[:off], []byte{'\n'})
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

func invalidUTF8Offset(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// loneSurrogate finds a \uD800-\uDFFF escape inside a string that is not a
// high surrogate immediately followed by a low one. It returns its offset.
func loneSurrogate(data []byte) (int, bool) {
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if !inString {
			if c == '"' {
				inString = true
			}
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			if i+1 < len(data) && data[i+1] == 'u' {
				h, ok := hex4(data, i+2)
				if ok && h >= 0xD800 && h <= 0xDFFF {
					if h >= 0xDC00 {
						return i, true
					}
					l, ok := -1, false
					if i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
						l, ok = hex4(data, i+8)
					}
					if !ok || l < 0xDC00 || l > 0xDFFF {
						return i, true
					}
					i += 11
					continue
				}
				i += 5
				continue
			}
			i++
		}
	}
	return 0, false
}

func hex4(data []byte, at int) (int, bool) {
	if at+4 > len(data) {
		return 0, false
	}
	v := 0
	for _, c := range data[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			v = v*16 + int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v*16 + int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v*16 + int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
