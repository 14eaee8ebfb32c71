package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// visible spells s so that every character the IUT wrote is shown and none
// acts: a graphic character (letters, marks, numbers, punctuation,
// symbols, spaces; unicode.IsGraphic) is itself, U+FFFD written by the IUT
// included; every other one is an escape: \n, \r, \t, \uXXXX (control and
// format characters such as U+007F, U+0080, U+00AD, U+200B, U+202E, U+FEFF,
// the separators U+2028 and U+2029, private-use and unassigned code
// points), \UXXXXXXXX above U+FFFF, and \xXX for each byte that is not
// UTF-8. With lines, LF and TAB are kept as they are (a stderr block, a
// multi-line message), so the text still reads as lines; a CR is always
// escaped, since it would move the cursor back over what is shown.
func visible(s string, lines bool) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || needsEscape(r, lines) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !needsEscape(r, lines):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r > 0xFFFF:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// needsEscape reports whether visible spells r as an escape.
func needsEscape(r rune, lines bool) bool {
	if lines && (r == '\n' || r == '\t') {
		return false
	}
	return !unicode.IsGraphic(r)
}

// inert is visible for one line: LF and TAB are escaped too (a table
// cell, a code span, a page).
func inert(s string) string { return visible(s, false) }

// sanitize is visible for text that may span lines (stderr, messages).
func sanitize(s string) string { return visible(s, true) }
