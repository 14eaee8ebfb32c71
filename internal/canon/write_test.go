package canon

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkDirect compares the direct writer with the reference path for v:
// when the writer takes v, the bytes must be the reference's; when it
// refuses v, Canonical must still give the reference's bytes or error.
// It returns whether the writer took v.
func checkDirect(t *testing.T, name string, v any) bool {
	t.Helper()
	want, wantErr := canonicalReference(v)
	got, ok := appendCanonical(nil, v, 0)
	if ok && (wantErr != nil || !bytes.Equal(got, want)) {
		t.Errorf("%s: direct %q; reference %q, %v", name, got, want, wantErr)
	}
	c, err := Canonical(v)
	if (err == nil) != (wantErr == nil) || !bytes.Equal(c, want) || (err != nil && err.Error() != wantErr.Error()) {
		t.Errorf("%s: Canonical %q, %v; reference %q, %v", name, c, err, want, wantErr)
	}
	return ok
}

// installed names the folders under impl/ that its install and build
// scripts fill (npm packages, Rust builds, Python environments): what is
// in them depends on the machine, not on the repository.
var installed = map[string]bool{"node_modules": true, "target": true, ".venv": true, "venv": true, "__pycache__": true}

// TestDirectWriterSuiteFiles: every JSON file of the repository (schemas,
// vectors, golden files, test data, the profiles' recordings), parsed, is
// written by the direct writer as the reference path writes it, and
// CanonicalBytes agrees.
func TestDirectWriterSuiteFiles(t *testing.T) {
	t.Parallel()
	n := 0
	for _, dir := range []string{"../../schemas", "../../vectors", "../../golden", "testdata", "../../impl"} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && installed[d.Name()] {
				return filepath.SkipDir
			}
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v, err := Parse(data)
			if err != nil {
				return nil // not strict JSON (test data of the reader)
			}
			n++
			if !checkDirect(t, p, v) {
				t.Errorf("%s: the direct writer refused a value Parse returned", p)
			}
			cb, err := CanonicalBytes(data)
			want, _ := canonicalReference(v)
			if err != nil || !bytes.Equal(cb, want) {
				t.Errorf("%s: CanonicalBytes %q, %v; want %q", p, cb, err, want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 500 {
		t.Fatalf("only %d JSON files compared", n)
	}
}

// TestDirectWriterEdges: the edges of RFC 8785 (member order by UTF-16 code
// units, escapes, numbers) and the values the writer must refuse.
func TestDirectWriterEdges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		v     any
		taken bool
	}{
		{"order by UTF-16 units", map[string]any{"\U0001F600": 1.0, "\uFB01": 2.0, "\u00e9": 3.0, "a": 4.0, "aa": 5.0, "": 6.0, "\U0001F601": 7.0, "\uE000": 8.0, "\uFFFF": 9.0, "\U00010000": 10.0, "\U0010FFFF": 11.0}, true},
		{"control characters", "\x00\x01\x08\t\n\x0b\x0c\r\x1f \"\\/\x7f\u2028\u2029\u00e9", true},
		{"names with escapes", map[string]any{"a\"b": true, "a\\b": false, "a\nb": nil, "\x00": json.Number("1")}, true},
		{"integers", []any{json.Number("0"), json.Number("-0"), json.Number("123456789012345"), json.Number("-999999999999999"), json.Number("1234567890123456"), json.Number("9007199254740993"), json.Number("18446744073709551616")}, true},
		{"fractions and exponents", []any{json.Number("0.1"), json.Number("-0.0"), json.Number("1e21"), json.Number("1E20"), json.Number("1e-7"), json.Number("0.000001"), json.Number("1.5e-320"), json.Number("123.456e+2"), json.Number("1e-400")}, true},
		{"float64", []any{0.1, -0.0, 1e21, 1e-7, 5e-324, math.MaxFloat64, 100.0}, true},
		{"literals and empties", []any{nil, true, false, []any{}, map[string]any{}, []any(nil), map[string]any(nil), ""}, true},
		{"nested", map[string]any{"b": []any{map[string]any{"z": 1.0, "y": []any{"x"}}}, "a": map[string]any{}}, true},
		{"number overflow", json.Number("1e400"), false},
		{"not a number", json.Number("01"), false},
		{"not a number either", json.Number("+1"), false},
		{"NaN", math.NaN(), false},
		{"infinity", []any{math.Inf(1)}, false},
		{"invalid UTF-8", "a\xffb", false},
		{"invalid UTF-8 name", map[string]any{"\xff": 1, "\xfe": 2}, false},
		{"another Go type", []string{"a"}, false},
		{"an int", 1, false},
		{"a struct", struct{ A int }{1}, false},
		{"too deep", deepArray(MaxDepth + 1), false},
		{"deep enough", deepArray(MaxDepth), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := checkDirect(t, tc.name, tc.v); got != tc.taken {
				t.Errorf("taken by the direct writer: %v, want %v", got, tc.taken)
			}
		})
	}
}

func deepArray(n int) any {
	var v any = "x"
	for range n {
		v = []any{v}
	}
	return v
}

// FuzzCanonicalDirect: for any input Parse accepts, the direct writer takes
// the value and writes the reference path's bytes; any input as a Go
// string, and as a number literal, is written as the reference writes it
// (or refused, and then Canonical gives the reference's answer).
func FuzzCanonicalDirect(f *testing.F) {
	for _, s := range rfc8259Edges() {
		f.Add([]byte(s))
	}
	for _, s := range corpusSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if v, err := Parse(data); err == nil {
			if !checkDirect(t, "parsed", v) {
				t.Errorf("the direct writer refused %q, which Parse accepts", data)
			}
		}
		checkDirect(t, "string", string(data))
		checkDirect(t, "number", json.Number(data))
		checkDirect(t, "name", map[string]any{string(data): string(data), "a": 1.5})
	})
}
