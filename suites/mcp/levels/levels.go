// Package levels holds the rule that ties an MCP vector's level to the
// specification text it cites (issue 30, item 6): a vector's `source` quotes,
// in double quotes, the sentence it rests on, and the strongest RFC 2119
// keyword (capitals only, RFC 8174) among its quoted phrases gives the level:
//
//	MUST, MUST NOT, REQUIRED, SHALL, SHALL NOT      -> required
//	SHOULD, SHOULD NOT, RECOMMENDED, NOT RECOMMENDED -> recommended
//	MAY, OPTIONAL, or no quoted keyword              -> informational
//
// When the level rests on something else (the quoted MUST binds the other
// party, a JSON-RPC 2.0 rule, the schema, the suite's own tool contract), the
// source says so with an explicit marker, "level: <level> because <reason>",
// and the marker's level is the level. suites/mcp/README.md documents the
// rule; levels_test.go holds every vector of suites/mcp to it.
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
	// Keyword is the strongest keyword quoted ("MUST NOT", "SHOULD", ...),
	// empty when no quoted phrase holds one.
	Keyword string
	// Quote is the quoted phrase that holds Keyword.
	Quote string
}

var (
	quoteRE  = regexp.MustCompile(`"([^"]*)"`)
	markerRE = regexp.MustCompile(`level: (required|recommended|informational) because `)
	// keywordRE lists the longer forms first so that "MUST NOT" is not read
	// as "MUST"; \b keeps URL_ELICITATION_REQUIRED or "MUSTER" out.
	keywordRE = regexp.MustCompile(`\b(MUST NOT|MUST|REQUIRED|SHALL NOT|SHALL|SHOULD NOT|SHOULD|NOT RECOMMENDED|RECOMMENDED|MAY|OPTIONAL)\b`)
	// keywordAnyCaseRE is keywordRE in any case, for specifications that
	// write their requirements in lower case (LSP 3.17, DAP).
	keywordAnyCaseRE = regexp.MustCompile(`(?i)` + keywordRE.String())
)

// minReason is the shortest reason (bytes) a marker may give: "because it
// is" says nothing.
const minReason = 20

// strength orders the levels: a stronger keyword wins.
var strength = map[string]int{Informational: 0, Recommended: 1, Required: 2}

// KeywordLevel is the level an RFC 2119 keyword gives, "" for a word that
// is none.
func KeywordLevel(keyword string) string {
	switch keyword {
	case "MUST", "MUST NOT", "REQUIRED", "SHALL", "SHALL NOT":
		return Required
	case "SHOULD", "SHOULD NOT", "RECOMMENDED", "NOT RECOMMENDED":
		return Recommended
	case "MAY", "OPTIONAL":
		return Informational
	}
	return ""
}

// Derive reads a vector's source and returns the level it rests on. Errors:
// an odd number of double quotes (a quote left open), more than one marker,
// or a marker whose reason is shorter than 20 bytes.
func Derive(source string) (Basis, error) { return derive(source, keywordRE) }

// DeriveAnyCase is [Derive] for a specification that writes its
// requirements in lower case ("it must error the request": LSP 3.17, DAP
// 1.71): keywords count in any case, and Basis.Keyword is given in lower
// case ("must not"). suites/lsp/levels uses it.
func DeriveAnyCase(source string) (Basis, error) {
	b, err := derive(source, keywordAnyCaseRE)
	b.Keyword = strings.ToLower(b.Keyword)
	return b, err
}

func derive(source string, keywords *regexp.Regexp) (Basis, error) {
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
		for _, k := range keywords.FindAllString(q[1], -1) {
			if s := strength[KeywordLevel(strings.ToUpper(k))]; s > best {
				best, b.Keyword, b.Quote = s, k, q[1]
			}
		}
	}
	if b.Marker != "" {
		return b, nil
	}
	b.Level = Informational
	if b.Keyword != "" {
		b.Level = KeywordLevel(strings.ToUpper(b.Keyword))
	}
	return b, nil
}
