// Package suggest finds the names a mistyped one most likely meant, for the
// "did you mean" of a vector id, a --filter or --skip glob, or an
// implementation name that matches nothing.
package suggest

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Max is how many names [Closest] returns at most.
const Max = 3

// Closest returns up to [Max] of candidates that word most likely meant,
// closest first (ties in candidates' order): those within an edit distance
// (Levenshtein, over code points, ignoring case) of a third of word's
// length, at least 1 and at most 4. A word with glob characters (* ? [ {)
// is compared by its literal text: a pattern ending in "*" with each
// candidate's prefix of that length, otherwise with the whole candidate.
// Exact matches are left out (they would have matched). The result is nil
// when nothing is close.
func Closest(word string, candidates []string) []string {
	lit, prefix := literal(strings.ToLower(word))
	if lit == "" {
		return nil
	}
	limit := min(4, max(1, utf8.RuneCountInString(lit)/3))
	type hit struct {
		name string
		d, i int
	}
	var hits []hit
	seen := map[string]bool{}
	for i, c := range candidates {
		if seen[c] || c == word {
			continue
		}
		seen[c] = true
		lc := strings.ToLower(c)
		d := distance(lit, lc)
		if prefix {
			if p := runePrefix(lc, utf8.RuneCountInString(lit)); p != lc {
				d = min(d, distance(lit, p))
			}
		}
		if d <= limit {
			hits = append(hits, hit{c, d, i})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.i, b.i)) })
	var out []string
	for _, h := range hits[:min(len(hits), Max)] {
		out = append(out, h.name)
	}
	return out
}

// Phrase is Closest as the end of a message: ` (did you mean "a" or "b"?)`,
// or "" when nothing is close.
func Phrase(word string, candidates []string) string {
	c := Closest(word, candidates)
	if len(c) == 0 {
		return ""
	}
	q := make([]string, len(c))
	for i, s := range c {
		q[i] = `"` + s + `"`
	}
	last := q[len(q)-1]
	if len(q) == 1 {
		return " (did you mean " + last + "?)"
	}
	return " (did you mean " + strings.Join(q[:len(q)-1], ", ") + " or " + last + "?)"
}

// literal removes glob syntax from a pattern: * and ? go, a [class] or
// {alternation} goes whole. prefix reports a pattern ending in a wildcard.
func literal(p string) (lit string, prefix bool) {
	var b strings.Builder
	depth := 0
	for _, r := range p {
		switch {
		case r == '[' || r == '{':
			depth++
		case (r == ']' || r == '}') && depth > 0:
			depth--
		case depth > 0:
		case r == '*' || r == '?':
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), strings.HasSuffix(p, "*") || strings.HasSuffix(p, "?")
}

func runePrefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// distance is the edit distance between a and b in code points: the
// fewest insertions, deletions, substitutions and swaps of two neighbours
// (optimal string alignment), so "clena" is one edit from "clean".
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	rows := make([][]int, len(ra)+1)
	for i := range rows {
		rows[i] = make([]int, len(rb)+1)
		rows[i][0] = i
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d := min(rows[i-1][j]+1, rows[i][j-1]+1, rows[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d = min(d, rows[i-2][j-2]+1)
			}
			rows[i][j] = d
		}
	}
	return rows[len(ra)][len(rb)]
}
