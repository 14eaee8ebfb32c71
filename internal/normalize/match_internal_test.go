package normalize

import (
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// TestLiteralTailSound holds matchPath's filter to doublestar: every path
// doublestar matches ends with the pattern's literal tail, and matchPath
// answers what doublestar answers, for the pattern shapes of the
// repository's suites (and harder ones) over pointers of up to four tokens,
// empty tokens and escaped ones included.
func TestLiteralTailSound(t *testing.T) {
	patterns := []string{
		"**/uuid", "**/session_id", "**/_meta", "**/ts", "**/error/message", "**/response/response/buildTime",
		"response/response/buildTime", "type", "message", "result/capabilities/*", "result/content/*/text",
		"**", "a/**", "**/a/**", "*/uuid", "a/*", "**/", "**//x", "a/**/b", "{a,b}/x", "[ab]x", "x[ab]",
		"**/*.x", "a?", "**/ab", "a*/uuid", "*", "/x", "x/", "a\\*b", "**/a~1b", "{uuid,ts}", "**/{a,b}",
		"a]b", "a}b", "**/[!a]", "[", "{a", "a/{b,**/c}",
	}
	tokens := []string{"", "x", "uuid", "a", "b", "ab", "ts", "a~1b", "~0", "y.x", "a*b", "error", "message", "_meta"}
	var paths []string
	var gen func(prefix string, depth int)
	gen = func(prefix string, depth int) {
		if depth > 0 {
			paths = append(paths, prefix)
		}
		if depth == 4 {
			return
		}
		for _, tok := range tokens {
			if depth == 0 {
				gen(tok, 1)
			} else {
				gen(prefix+"/"+tok, depth+1)
			}
		}
	}
	gen("", 0)
	for _, p := range patterns {
		tail := literalTail(p)
		for _, path := range paths {
			ok, err := doublestar.Match(p, path)
			want := err == nil && ok
			if want && !strings.HasSuffix(path, tail) {
				t.Errorf("%q matches %q, which does not end with its literal tail %q", p, path, tail)
			}
			if got := matchPath(p, path); got != want {
				t.Errorf("matchPath(%q, %q) = %v, doublestar says %v", p, path, got, want)
			}
		}
	}
}
