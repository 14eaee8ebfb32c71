// Package levels holds the rule that ties an LSP vector's level to the
// specification text it cites: a vector's `source` quotes, in double
// quotes, the sentence it rests on, and the strongest requirement keyword
// among its quoted phrases gives the level:
//
//	must, must not, required, shall, shall not      -> required
//	should, should not, recommended, not recommended -> recommended
//	may, optional, or no quoted keyword              -> informational
//
// LSP 3.17 writes its requirements in lower case ("it must error the
// request", "those requests should error with InvalidRequest"), so unlike
// the MCP suite's rule (suites/mcp/levels, RFC 8174 capitals only) the
// keywords are read in any case; JSON-RPC 2.0's capitals count the same.
// When the level rests on something else (the quoted rule binds the
// client, the server declared the capability, the schema), the source says
// so with an explicit marker, "level: <level> because <reason>", and the
// marker's level is the level. levels_test.go holds every vector of
// suites/lsp to it.
package levels

import (
	"fmt"
	"regexp"
	"strings"
)

// Level names, as in a vector's "level" member.
const (
	Required      = "required"
	Recommended   = "recommended"
	Informational = "informational"
)

// Basis is what a source's text says its level is.
type Basis struct {
	// Level is Required, Recommended or Informational.
	Level string
	// Marker is the reason of a "level: <level> because <reason>" marker,
	// empty when the level comes from the quoted keywords.
	Marker string
	// Keyword is the strongest keyword quoted, lower case ("must not"),
	// empty when no quoted phrase holds one.
	Keyword string
}

var (
	quoteRE  = regexp.MustCompile(`"([^"]*)"`)
	markerRE = regexp.MustCompile(`level: (required|recommended|informational) because `)
	// keywordRE lists the longer forms first so that "must not" is not
	// read as "must"; \b keeps "mustard" or "mayor" out.
	keywordRE = regexp.MustCompile(`(?i)\b(must not|must|required|shall not|shall|should not|should|not recommended|recommended|may|optional)\b`)
)

// minReason is the shortest reason (bytes) a marker may give.
const minReason = 20

var strength = map[string]int{Informational: 0, Recommended: 1, Required: 2}

// KeywordLevel is the level a keyword (any case) gives, "" for a word
// that is none.
func KeywordLevel(keyword string) string {
	switch strings.ToLower(keyword) {
	case "must", "must not", "required", "shall", "shall not":
		return Required
	case "should", "should not", "recommended", "not recommended":
		return Recommended
	case "may", "optional":
		return Informational
	}
	return ""
}

// Derive reads a vector's source and returns the level it rests on.
// Errors: an odd number of double quotes, more than one marker, or a
// marker whose reason is shorter than 20 bytes.
func Derive(source string) (Basis, error) {
	if n := strings.Count(source, `"`); n%2 != 0 {
		return Basis{}, fmt.Errorf("source has %d double quotes: a quoted phrase is left open", n)
	}
	var b Basis
	if ms := markerRE.FindAllStringSubmatchIndex(source, -1); len(ms) > 1 {
		return Basis{}, fmt.Errorf("source has %d level markers, want at most one", len(ms))
	} else if len(ms) == 1 {
		reason := strings.TrimSpace(source[ms[0][1]:])
		if len(reason) < minReason {
			return Basis{}, fmt.Errorf("level marker gives no reason (%q)", reason)
		}
		b.Level, b.Marker = source[ms[0][2]:ms[0][3]], reason
	}
	best := -1
	for _, q := range quoteRE.FindAllStringSubmatch(source, -1) {
		for _, k := range keywordRE.FindAllString(q[1], -1) {
			if s := strength[KeywordLevel(k)]; s > best {
				best, b.Keyword = s, strings.ToLower(k)
			}
		}
	}
	if b.Marker != "" {
		return b, nil
	}
	b.Level = Informational
	if b.Keyword != "" {
		b.Level = KeywordLevel(b.Keyword)
	}
	return b, nil
}
