package canon_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/kiterr"
)

// parseCodes are the codes Parse documents.
var parseCodes = map[kiterr.Code]bool{
	kiterr.JSONSyntax:        true,
	kiterr.JSONDuplicateKey:  true,
	kiterr.JSONInvalidUTF8:   true,
	kiterr.JSONLoneSurrogate: true,
	kiterr.JSONNumberInexact: true,
	kiterr.JSONTooDeep:       true,
}

func addSeeds(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, `[1.0,-0,1e21,1e-7,12345678901234567000]`, `"\ud83d\ude00\u2028"`,
		`{"\u20ac":1,"\ud83d\ude00":2,"\ufb33":3}`, `{"a":1,"a":2}`, `"\ud800"`, "\xff",
		"{}{}", "[", "12345678901234567890", "1e400", `{"a/b~":[null,true,false,""]}`,
	} {
		f.Add([]byte(s))
	}
}

// FuzzParse checks that Parse never panics, that it fails only with a
// documented code, and that whatever it accepts is also valid JSON for
// encoding/json and canonicalizes to a fixed point.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := canon.Parse(data)
		if err != nil {
			if code := kiterr.CodeOf(err); !parseCodes[code] {
				t.Fatalf("Parse(%q): error %v has undocumented code %q", data, err, code)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("Parse accepted %q, which encoding/json rejects", data)
		}
		c, err := canon.Canonical(v)
		if err != nil {
			t.Fatalf("Canonical(Parse(%q)): %v", data, err)
		}
		c2, err := canon.CanonicalBytes(c)
		if err != nil {
			t.Fatalf("CanonicalBytes(%q) (canonical of %q): %v", c, data, err)
		}
		if !bytes.Equal(c, c2) {
			t.Fatalf("canonical form not a fixed point: %q -> %q -> %q", data, c, c2)
		}
	})
}

// FuzzCanonical checks Canonical(Parse(Canonical(x))) == Canonical(x) for
// every x that Parse accepts, and that Parse never panics.
func FuzzCanonical(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := canon.Parse(data)
		if err != nil {
			return
		}
		c1, err := canon.Canonical(v)
		if err != nil {
			t.Fatalf("Canonical(Parse(%q)): %v", data, err)
		}
		v2, err := canon.Parse(c1)
		if err != nil {
			t.Fatalf("Parse(Canonical(%q) = %q): %v", data, c1, err)
		}
		c2, err := canon.Canonical(v2)
		if err != nil {
			t.Fatalf("Canonical(Parse(%q)): %v", c1, err)
		}
		if !bytes.Equal(c1, c2) {
			t.Fatalf("not idempotent for %q: %q then %q", data, c1, c2)
		}
		// Canonical output has no insignificant whitespace and no newline.
		if bytes.ContainsAny(c1, "\n\r\t") {
			t.Fatalf("canonical %q contains raw whitespace", c1)
		}
	})
}
