package reference

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWellFormed checks the WHATWG "maximal subpart" replacement against
// what the CLI 2.1.332 wrote for the same bytes.
func TestWellFormed(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"abc", "abc"},
		{"u\xe2\x82x", "u\uFFFDx"},                 // truncated 3-byte sequence: one
		{"x\xf0\x9f\x98y", "x\uFFFDy"},             // truncated 4-byte sequence: one
		{"y\xed\xa0\x80z", "y\uFFFD\uFFFD\uFFFDz"}, // surrogate encoding: three
		{"\xff\xfe", "\uFFFD\uFFFD"},
		{"\xc0\xaf", "\uFFFD\uFFFD"},                     // overlong: each byte
		{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"}, // above U+10FFFF
		{"é😀", "é😀"},
	}
	for _, tc := range tests {
		if got := string(wellFormed([]byte(tc.in))); got != tc.want {
			t.Errorf("wellFormed(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestJSText checks String() renderings the CLI 2.1.332 showed in
// "Unsupported control request subtype: <subtype>".
func TestJSText(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`[1,null,2,[3,4]]`, "1,,2,3,4"},
		{`{"a":1}`, "[object Object]"},
		{`true`, "true"},
		{`null`, "null"},
		{`1e21`, "1e+21"},
		{`0.000001`, "0.000001"},
		{`1e-7`, "1e-7"},
		{`42`, "42"},
		{`-0`, "0"},
		{`"x"`, "x"},
	}
	for _, tc := range tests {
		var v any
		dec := json.NewDecoder(strings.NewReader(tc.in))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if got := jsText(v, false); got != tc.want {
			t.Errorf("jsText(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCleanText checks the error-text cleaning the CLI 2.1.332 applies.
func TestCleanText(t *testing.T) {
	t.Parallel()
	in := "a\tb\nc\u00a0d\u3000e\u2028f\u200dg\ufeffh\u00adi\u202ej \ue000\u0378\uffffe\u0301🏻"
	want := "abcdefghij \ue000\u0378\uffffe\u0301🏻"
	if diff := cmp.Diff(want, cleanText(in)); diff != "" {
		t.Errorf("cleanText (-want +got):\n%s", diff)
	}
}
