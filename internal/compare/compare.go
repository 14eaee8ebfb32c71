// Package compare compares a normalized summary with its golden summary two
// ways: exact parity (canonical RFC 8785 bytes equal, [Equal]) and
// conformance ([Differences] with [Rules]: what the protocol requires), and
// renders differences for people in a language-neutral form: JSON Pointers
// with both values as JSON ([Render], [Diff]).
package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Equal reports whether two canonical byte strings are identical. Canonical
// form makes byte equality the same as JSON value equality (RFC 8785 §1).
func Equal(golden, actual []byte) bool { return bytes.Equal(golden, actual) }

// Diff renders every difference between two canonical summaries (exact
// parity: all of them normative), frames paired by framing (see
// [Differences]), one [Render] line each, or "" when they are equal.
// Inputs that are not JSON are shown whole.
func Diff(golden, actual []byte, framing Framing) string {
	if Equal(golden, actual) {
		return ""
	}
	ds, err := Differences(golden, actual, nil, nil, framing)
	if err != nil {
		ds, err = valueDifferences(golden, actual)
	}
	if err != nil {
		return "golden: " + string(golden) + "\nactual: " + string(actual) + "\n"
	}
	return RenderAll(ds)
}

// RenderAll renders differences one [Render] line each.
func RenderAll(ds []Difference) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(Render(d))
		b.WriteByte('\n')
	}
	return b.String()
}

// Render renders one difference on one line (plus a line of escapes for
// look-alike strings):
//
//	reply "r-1" /error/message: golden "a", actual "b" [VALUE_CHANGED]
//
// Values are canonical JSON, never cut where they differ: a long string is
// shown around its first differing character. When two strings differ only
// in characters that print alike (another Unicode normalization form,
// invisible or non-ASCII characters), a second line spells both with \u
// escapes and says whether they are equal after NFC normalization.
func Render(d Difference) string { return render(d, shown) }

// RenderWhole is [Render] with both values whole, however long (a
// report's values are already bounded: result.MaxValueBytes), for a
// verbose report.
func RenderWhole(d Difference) string {
	return render(d, func(g, a json.RawMessage) (string, string) { return string(g), string(a) })
}

func render(d Difference, shown func(g, a json.RawMessage) (string, string)) string {
	var b strings.Builder
	if d.Frame != "" {
		b.WriteString(d.Frame)
		b.WriteByte(' ')
	}
	if d.Pointer == "" {
		b.WriteString("(whole frame)")
	} else {
		b.WriteString(d.Pointer)
	}
	b.WriteString(": ")
	g, a := shown(d.Golden, d.Actual)
	switch {
	case d.Golden == nil:
		fmt.Fprintf(&b, "golden has nothing, actual %s", a)
	case d.Actual == nil:
		fmt.Fprintf(&b, "golden %s, actual has nothing", g)
	default:
		fmt.Fprintf(&b, "golden %s, actual %s", g, a)
	}
	fmt.Fprintf(&b, " [%s", d.Kind)
	if !d.Normative {
		b.WriteString(", allowed")
	}
	b.WriteByte(']')
	if d.Rule != "" {
		b.WriteString(" (" + d.Rule + ")")
	}
	if note := lookAlike(d.Golden, d.Actual); note != "" {
		b.WriteString("\n    " + note)
	}
	return b.String()
}

// maxShown is the longest value text [Render] prints whole, in bytes.
const maxShown = 240

// shown returns the two values as printed: whole when short, else a window
// around the first byte where they differ, so the difference is always
// visible.
func shown(g, a json.RawMessage) (string, string) {
	if len(g) <= maxShown && len(a) <= maxShown {
		return string(g), string(a)
	}
	at := 0
	for at < len(g) && at < len(a) && g[at] == a[at] {
		at++
	}
	return window(g, at), window(a, at)
}

func window(v []byte, at int) string {
	if len(v) <= maxShown {
		return string(v)
	}
	from := max(0, at-maxShown/3)
	for from > 0 && !utf8.RuneStart(v[from]) {
		from--
	}
	to := min(len(v), from+maxShown)
	for to < len(v) && !utf8.RuneStart(v[to]) {
		to++
	}
	s := string(v[from:to])
	if from > 0 {
		s = fmt.Sprintf("…(%d bytes)…", from) + s
	}
	if to < len(v) {
		s += fmt.Sprintf("…(%d more bytes)", len(v)-to)
	}
	return s
}

// lookAlike explains two strings that differ but may print alike.
func lookAlike(g, a json.RawMessage) string {
	var gs, as string
	if json.Unmarshal(g, &gs) != nil || json.Unmarshal(a, &as) != nil || gs == as {
		return ""
	}
	if !tricky(gs) && !tricky(as) {
		return ""
	}
	gr, ar := []rune(gs), []rune(as)
	at := 0
	for at < len(gr) && at < len(ar) && gr[at] == ar[at] {
		at++
	}
	note := "as code points: golden " + escapeAround(gr, at) + ", actual " + escapeAround(ar, at)
	if norm.NFC.String(gs) == norm.NFC.String(as) {
		note += " (equal after Unicode NFC normalization: they differ only in normalization form)"
	}
	return note
}

// tricky reports whether s holds characters that can print alike or not at
// all: anything outside printable ASCII.
func tricky(s string) bool {
	for _, r := range s {
		if r > unicode.MaxASCII || !unicode.IsPrint(r) {
			return true
		}
	}
	return false
}

// maxEscaped is how many code points of a string the look-alike line
// spells whole; a longer string is spelled around the first code point
// where the two differ.
const maxEscaped = 80

// escapeAround spells rs with escape, whole when short, else a window of
// maxEscaped code points that starts a little before index at, so the
// difference is always visible.
func escapeAround(rs []rune, at int) string {
	if len(rs) <= maxEscaped {
		return escape(string(rs))
	}
	from := max(0, min(at-maxEscaped/4, len(rs)-maxEscaped))
	to := min(len(rs), from+maxEscaped)
	s := escape(string(rs[from:to]))
	if from > 0 {
		s = fmt.Sprintf("…(%d code points)…", from) + s
	}
	if to < len(rs) {
		s += fmt.Sprintf("…(%d more code points)", len(rs)-to)
	}
	return s
}

// escape spells s as a JSON string with every character outside printable
// ASCII as \uXXXX (surrogate pairs above U+FFFF).
func escape(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x80 && unicode.IsPrint(r):
			b.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
