package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/kiterr/kiterrtest"
)

// FileDigests answers as the map from path to hex sum it replaced: the
// last line of a path listed twice counts, and a sum that is not lowercase
// hex is kept as written and matches no file.
func TestFileDigests(t *testing.T) {
	t.Parallel()
	sumOf := func(s string) string { b := sha256.Sum256([]byte(s)); return hex.EncodeToString(b[:]) }
	a, b, c := sumOf("a"), sumOf("b"), sumOf("c")
	upper := strings.ToUpper(c)
	manifest := strings.Join([]string{
		b + "  vectors/v1/b.json",
		a + "  golden/v1/a.json",
		a + "  vectors/v1/b.json", // listed twice: this line counts
		upper + "  vectors/v1/c.json",
		c + "  suite.json",
	}, "\n") + "\n"
	d, err := parseDigests([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"golden/v1/a.json": a, "vectors/v1/b.json": a, "vectors/v1/c.json": upper, "suite.json": c}
	if diff := cmp.Diff(want, maps.Collect(d.All())); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
	var order []string
	for name := range d.All() {
		order = append(order, name)
	}
	if diff := cmp.Diff([]string{"golden/v1/a.json", "suite.json", "vectors/v1/b.json", "vectors/v1/c.json"}, order); diff != "" {
		t.Errorf("All order (-want +got):\n%s", diff)
	}
	tests := []struct {
		name, content string
		listed, match bool
	}{
		{"golden/v1/a.json", "a", true, true},
		{"vectors/v1/b.json", "a", true, true},
		{"vectors/v1/b.json", "b", true, false}, // the earlier line
		{"vectors/v1/c.json", "c", true, false}, // uppercase hex never matched
		{"suite.json", "c", true, true},
		{"vectors/v1/d.json", "a", false, false},
		{"", "a", false, false},
		{"zzz", "a", false, false},
	}
	for _, tc := range tests {
		i, ok := d.index(tc.name)
		sum := sha256.Sum256([]byte(tc.content))
		if ok != tc.listed || (ok && d.matches(i, &sum) != tc.match) {
			t.Errorf("%s with %q: listed %v, want %v; matches %v, want %v", tc.name, tc.content, ok, tc.listed, ok && d.matches(i, &sum), tc.match)
		}
	}
}

func TestParseDigestsMalformed(t *testing.T) {
	t.Parallel()
	for _, m := range []string{"abc  x\n", strings.Repeat("a", 64) + " x\n", strings.Repeat("a", 64) + "  \n", "\n"} {
		_, err := parseDigests([]byte(m))
		kiterrtest.WantCode(t, err, kiterr.SuiteInvalid)
	}
}
