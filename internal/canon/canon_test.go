package canon_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/kiterr"
)

// wantErr checks that err is a *kiterr.Error with code and that its message
// contains every fragment.
func wantErr(t *testing.T, err error, code kiterr.Code, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("error = nil, want %s", code)
	}
	var ke *kiterr.Error
	if !errors.As(err, &ke) {
		t.Fatalf("error %v (%T) is not a *kiterr.Error", err, err)
	}
	if got := kiterr.CodeOf(err); got != code {
		t.Fatalf("CodeOf(%v) = %q, want %q", err, got, code)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not contain %q", err.Error(), f)
		}
	}
}

func TestParseValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want any
	}{
		{"null", "null", nil},
		{"true", " true ", true},
		{"false", "\tfalse\n", false},
		{"string", `"a"`, "a"},
		{"number kept as literal", "1.50", json.Number("1.50")},
		{"negative zero kept", "-0", json.Number("-0")},
		{"empty array is non-nil", "[]", []any{}},
		{"empty object", "{}", map[string]any{}},
		{"nested", `{"a":[1,{"b":null}],"c":"d"}`, map[string]any{
			"a": []any{json.Number("1"), map[string]any{"b": nil}},
			"c": "d",
		}},
		{"same key in sibling objects", `{"a":{"k":1},"b":{"k":2}}`, map[string]any{"a": map[string]any{"k": json.Number("1")}, "b": map[string]any{"k": json.Number("2")}}},
		{"valid surrogate pair", `"\ud83d\ude00"`, "\U0001F600"},
		{"valid surrogate pair upper hex", `"\uD83D\uDE00"`, "\U0001F600"},
		{"escaped backslash before u is not an escape", `"\\ud800"`, `\ud800`},
		{"BMP escape", `"\u00e9\u20ac"`, "é€"},
		{"raw non-ASCII", `"é€😀"`, "é€😀"},
		{"trailing whitespace allowed", "{}\n\n \t", map[string]any{}},
		{"2^53 exactly", "9007199254740992", json.Number("9007199254740992")},
		{"2^53-1", "9007199254740991", json.Number("9007199254740991")},
		{"-(2^53)", "-9007199254740992", json.Number("-9007199254740992")},
		// CheckNumber: an integer literal >= 2^53 already in its RFC 8785 form passes.
		{"exact rendering of nearest binary64", "12345678901234567000", json.Number("12345678901234567000")},
		{"negative exact rendering", "-12345678901234567000", json.Number("-12345678901234567000")},
		{"big integer in ES form", "295147905179352830000", json.Number("295147905179352830000")},
		// Fractions and exponents are not checked (package doc of CheckNumber).
		{"fraction beyond 2^53 not checked", "9007199254740993.0", json.Number("9007199254740993.0")},
		{"exponent not checked", "1e21", json.Number("1e21")},
		{"underflow is the nearest binary64 (0)", "1e-400", json.Number("1e-400")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := canon.Parse([]byte(tc.in))
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        string
		code      kiterr.Code
		fragments []string
	}{
		{"duplicate at root", `{"a":1,"a":2}`, kiterr.JSONDuplicateKey, []string{`"a"`, `at "/"`}},
		{"duplicate after unescaping", `{"a":1,"\u0061":2}`, kiterr.JSONDuplicateKey, []string{`"a"`}},
		{"duplicate nested with escaped pointer", `{"x":{"a/b":[{"k~":1,"k~":2}]}}`, kiterr.JSONDuplicateKey, []string{`"k~"`, `"/x/a~1b/0"`}},
		{"duplicate in array element", `[0,{"q":1,"q":1}]`, kiterr.JSONDuplicateKey, []string{`"/1"`}},
		{"duplicate in second sibling object", `{"a":{"b":1},"c":{"b":1,"b":2}}`, kiterr.JSONDuplicateKey, []string{`"/c"`}},

		{"invalid UTF-8 offset", "\"é\xff\"", kiterr.JSONInvalidUTF8, []string{"byte offset 3"}},
		{"invalid UTF-8 at start", "\xff", kiterr.JSONInvalidUTF8, []string{"byte offset 0"}},
		{"truncated UTF-8 sequence", "[\"ab\xe2\x82\"]", kiterr.JSONInvalidUTF8, []string{"byte offset 4"}},
		{"UTF-8 encoded surrogate", "\"\xed\xa0\x80\"", kiterr.JSONInvalidUTF8, []string{"byte offset 1"}},
		{"invalid UTF-8 outside string", "[1]\xc0", kiterr.JSONInvalidUTF8, []string{"byte offset 3"}},

		{"lone high surrogate", `"\ud800"`, kiterr.JSONLoneSurrogate, []string{"1:2"}},
		{"lone low surrogate", `"\udc00"`, kiterr.JSONLoneSurrogate, []string{"1:2"}},
		{"reversed pair", `"\udc00\ud800"`, kiterr.JSONLoneSurrogate, []string{"1:2"}},
		{"high followed by BMP escape", `"\ud800\u0041"`, kiterr.JSONLoneSurrogate, nil},
		{"high followed by high then low", `"\ud800\ud800\udc00"`, kiterr.JSONLoneSurrogate, nil},
		{"high at end of string", `"x\uDBFF"`, kiterr.JSONLoneSurrogate, []string{"1:3"}},
		{"lone surrogate in key on line 2", "{\n \"\\udfff\": 1}", kiterr.JSONLoneSurrogate, []string{"2:3"}},
		{"after escaped quote", `["\"", "\ud800"]`, kiterr.JSONLoneSurrogate, []string{"1:9"}},

		{"trailing value", "{}{}", kiterr.JSONSyntax, []string{"trailing data"}},
		{"trailing garbage", "{} x", kiterr.JSONSyntax, []string{"trailing data", "1:4"}},
		{"two scalars", "1 2", kiterr.JSONSyntax, []string{"trailing data"}},
		{"syntax error line:column", "{\n  \"a\": ,\n}", kiterr.JSONSyntax, []string{"at 2:8"}},
		{"double comma in array", "[1,\n 2,,]", kiterr.JSONSyntax, []string{"at 2:4"}},
		{"trailing comma", "[1,]", kiterr.JSONSyntax, []string{"at 1:4"}},
		{"missing colon", `{"a" 1}`, kiterr.JSONSyntax, []string{"at 1:6"}},
		{"non-string key", `{1:2}`, kiterr.JSONSyntax, []string{"at 1:2"}},
		{"control char in string", "\"a\x01\"", kiterr.JSONSyntax, []string{"in string literal"}},
		{"bad escape", `["\x"]`, kiterr.JSONSyntax, []string{"string escape code"}},
		{"empty input", "", kiterr.JSONSyntax, []string{"unexpected end of input"}},
		{"only whitespace", " \n ", kiterr.JSONSyntax, []string{"unexpected end of input"}},
		{"unclosed array", "[1", kiterr.JSONSyntax, []string{"1:3", "unexpected end of input"}},
		{"unclosed string", `"abc`, kiterr.JSONSyntax, []string{"unexpected end of input"}},
		{"truncated literal", "nul", kiterr.JSONSyntax, nil},
		{"NaN", "NaN", kiterr.JSONSyntax, nil},
		{"leading zero", "01", kiterr.JSONSyntax, nil},
		{"single quotes", "{'a':1}", kiterr.JSONSyntax, nil},

		// CheckNumber: integers >= 2^53 whose digits differ from the ES form.
		{"20 digit integer inexact", "12345678901234567890", kiterr.JSONNumberInexact, []string{"12345678901234567000", `at "/"`}},
		{"2^53+1", "9007199254740993", kiterr.JSONNumberInexact, []string{"9007199254740992"}},
		{"-(2^53+1)", "-9007199254740993", kiterr.JSONNumberInexact, nil},
		{"inexact number pointer", `{"a":[0,12345678901234567890]}`, kiterr.JSONNumberInexact, []string{`"/a/1"`}},
		{"overflow", "1e400", kiterr.JSONNumberInexact, []string{"overflows"}},
		{"negative overflow", "-1e400", kiterr.JSONNumberInexact, []string{"overflows"}},
		{"overflow with fraction", "1.5e99999", kiterr.JSONNumberInexact, []string{"overflows"}},
		{"huge integer literal overflows", strings.Repeat("9", 400), kiterr.JSONNumberInexact, []string{"overflows"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, err := canon.Parse([]byte(tc.in))
			if err == nil {
				t.Fatalf("Parse(%q) = %#v, want error %s", tc.in, v, tc.code)
			}
			if v != nil {
				t.Errorf("Parse(%q) returned value %#v together with an error", tc.in, v)
			}
			wantErr(t, err, tc.code, tc.fragments...)
		})
	}
}

// TestParseTrailingDataPosition checks that the line:column of a trailing
// value names where the trailing value begins.
func TestParseTrailingDataPosition(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"{}{}", "at 1:3"},
		{`{} "abcdef"`, "at 1:4"},
		{"{}\n\n  [1]", "at 3:3"},
		{"1 2", "at 1:3"},
	}
	for _, tc := range tests {
		_, err := canon.Parse([]byte(tc.in))
		wantErr(t, err, kiterr.JSONSyntax, tc.want)
	}
}

// TestParseSyntaxErrorPositionInsideValue checks line:column for errors the
// decoder's scanner finds inside one string, number or literal token.
func TestParseSyntaxErrorPositionInsideValue(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"\"a\x01\"", "at 1:3:"},
		{"[\"ok\",\n \"a\x01\"]", "at 2:4:"},
		{`[1, 2, "\q"]`, "at 1:10:"},
		{"[1,\n 2,\n -x]", "at 3:3:"},
	}
	for _, tc := range tests {
		_, err := canon.Parse([]byte(tc.in))
		wantErr(t, err, kiterr.JSONSyntax, tc.want)
	}
}

func TestParseMaxDepth(t *testing.T) {
	t.Parallel()
	nest := func(n int, open, close string) []byte {
		return []byte(strings.Repeat(open, n) + strings.Repeat(close, n))
	}
	tests := []struct {
		name string
		in   []byte
		ok   bool
	}{
		{"arrays at limit", nest(canon.MaxDepth, "[", "]"), true},
		{"arrays over limit", nest(canon.MaxDepth+1, "[", "]"), false},
		{"objects at limit", []byte(strings.Repeat(`{"a":`, canon.MaxDepth-1) + "{}" + strings.Repeat("}", canon.MaxDepth-1)), true},
		{"objects over limit", []byte(strings.Repeat(`{"a":`, canon.MaxDepth) + "{}" + strings.Repeat("}", canon.MaxDepth)), false},
		{"very deep", nest(100000, "[", "]"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := canon.Parse(tc.in)
			if tc.ok {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				return
			}
			wantErr(t, err, kiterr.JSONTooDeep, "512")
		})
	}
}

func TestCheckNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		wantOK bool
	}{
		{"0", true},
		{"-0", true},
		{"9007199254740991", true},
		{"9007199254740992", true},
		{"9007199254740993", false},
		{"-9007199254740993", false},
		{"12345678901234567890", false},
		{"12345678901234567000", true},
		{"1.5", true},
		{"9007199254740993.0", true},
		{"9007199254740993e0", true},
		{"1e308", true},
		{"1e309", false},
		{"1e400", false},
		{"-1e400", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			err := canon.CheckNumber(json.Number(tc.in))
			if (err == nil) != tc.wantOK {
				t.Errorf("CheckNumber(%s) = %v, want ok=%v", tc.in, err, tc.wantOK)
			}
		})
	}
}

// TestCheckNumberExactIntegers: CheckNumber's first sentence and
// kiterr.JSONNumberInexact say only integers binary64 "cannot hold exactly"
// are refused, and the message claims "is not exactly representable".
func TestCheckNumberExactIntegers(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"18446744073709551616", "1000000000000000000000"} {
		if err := canon.CheckNumber(json.Number(in)); err != nil {
			t.Errorf("CheckNumber(%s) = %v, want nil (exactly representable)", in, err)
		}
	}
}

func TestCanonicalBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		// RFC 8785 §3.2.2 sample.
		{
			"RFC 8785 sample",
			`{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}`,
			`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
		},
		// RFC 8785 §3.2.3 sorting sample: UTF-16 code units, so U+1F600
		// (D83D DE00) sorts before U+FB33 although its code point is larger.
		{
			"RFC 8785 key order",
			`{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}`,
			"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}",
		},
		{"euro before emoji", `{"\ud83d\ude00":2,"\u20ac":1}`, `{"€":1,"😀":2}`},
		{"U+FB01 after emoji (UTF-16, not code point order)", `{"\ufb01":1,"\ud83d\ude00":2}`, "{\"😀\":2,\"\ufb01\":1}"},
		{"nested keys sorted", `{"b":{"d":1,"c":2},"a":[{"z":0,"y":1}]}`, `{"a":[{"y":1,"z":0}],"b":{"c":2,"d":1}}`},
		{"whitespace removed", " [ 1 , { \"a\" : true } ] ", `[1,{"a":true}]`},

		{"1.0 -> 1", "1.0", "1"},
		{"-0 -> 0", "-0", "0"},
		{"-0.0 -> 0", "-0.0", "0"},
		{"1e21 -> 1e+21", "1e21", "1e+21"},
		{"1e20 in full", "1e20", "100000000000000000000"},
		{"0.000001 stays", "0.000001", "0.000001"},
		{"1e-7 exponent", "0.0000001", "1e-7"},
		{"1E-7", "1E-7", "1e-7"},
		{"1E+2", "1E+2", "100"},
		{"100e-2", "100e-2", "1"},
		{"4.50", "4.50", "4.5"},
		{"min subnormal", "5e-324", "5e-324"},
		{"max double", "1.7976931348623157e308", "1.7976931348623157e+308"},
		{"1e23", "1e23", "1e+23"},
		{"2^53", "9007199254740992", "9007199254740992"},
		{"exact big rendering kept", "12345678901234567000", "12345678901234567000"},
		{"fraction beyond 2^53 rounds", "9007199254740993.0", "9007199254740992"},
		{"underflow to 0", "1e-400", "0"},
		{"333333333.33333329", "333333333.33333329", "333333333.3333333"},
		{"1424953923781206.2", "1424953923781206.2", "1424953923781206.2"},

		{"short escapes", `"\b\f\n\r\t"`, `"\b\f\n\r\t"`},
		{"other controls as \\u00xx lowercase", `"\u0000\u0001\u001F\u000b"`, `"\u0000\u0001\u001f\u000b"`},
		{"quote and backslash", `"\"\\"`, `"\"\\"`},
		{"solidus unescaped", `"\/"`, `"/"`},
		{"DEL raw", `"\u007f"`, "\"\x7f\""},
		{"U+2028 and U+2029 left unescaped", `"\u2028\u2029"`, "\"\u2028\u2029\""},
		{"HTML characters raw", `"<>&"`, `"<>&"`},
		{"non-ASCII raw UTF-8", `"\u00e9\u20ac\ud83d\ude00"`, `"é€😀"`},
		{"escaped ASCII unescaped", `"\u0041\u0062"`, `"Ab"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := canon.CanonicalBytes([]byte(tc.in))
			if err != nil {
				t.Fatalf("CanonicalBytes(%q): %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("CanonicalBytes(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
			// Canonical bytes are a fixed point.
			again, err := canon.CanonicalBytes(got)
			if err != nil {
				t.Fatalf("CanonicalBytes(canonical %q): %v", got, err)
			}
			if !bytes.Equal(again, got) {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestCanonicalBytesPropagatesParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		code kiterr.Code
	}{
		{`{"a":1,"a":1}`, kiterr.JSONDuplicateKey},
		{"[", kiterr.JSONSyntax},
		{`"\ud800"`, kiterr.JSONLoneSurrogate},
		{"12345678901234567890", kiterr.JSONNumberInexact},
		{"\"\xff\"", kiterr.JSONInvalidUTF8},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := canon.CanonicalBytes([]byte(tc.in))
			if got != nil {
				t.Errorf("CanonicalBytes(%q) = %q, want nil", tc.in, got)
			}
			wantErr(t, err, tc.code)
		})
	}
}

func TestCanonicalGoValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"nil", nil, "null"},
		{"map sorted", map[string]any{"b": 1, "a": "x"}, `{"a":"x","b":1}`},
		{"float64", 1.0, "1"},
		{"float64 1e21", 1e21, "1e+21"},
		{"int", 42, "42"},
		{"struct", struct {
			Z string `json:"z"`
			A int    `json:"a"`
		}{"q", 1}, `{"a":1,"z":"q"}`},
		{"no HTML escaping", "<&>", `"<&>"`},
		{"no trailing newline", []any{}, "[]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := canon.Canonical(tc.in)
			if err != nil {
				t.Fatalf("Canonical: %v", err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("Canonical mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCanonicalErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   any
	}{
		{"channel", make(chan int)},
		{"invalid json.Number", json.Number("1x")},
		{"function", func() {}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got, err := canon.Canonical(tc.in); err == nil {
				t.Errorf("Canonical(%v) = %q, want error", tc.name, got)
			}
		})
	}
}

func TestEscapePointer(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		{"a/b", "a~1b"},
		{"a~b", "a~0b"},
		{"~1", "~01"},  // "~" first, so "~1" is not read back as "/"
		{"/~", "~1~0"}, // both, order preserved
		{"~/", "~0~1"},
		{"//", "~1~1"},
		{"é/€", "é~1€"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			if got := canon.EscapePointer(tc.in); got != tc.want {
				t.Errorf("EscapePointer(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if back := canon.UnescapePointer(tc.want); back != tc.in {
				t.Errorf("UnescapePointer(%q) = %q, want %q", tc.want, back, tc.in)
			}
		})
	}
}

// A leading byte order mark is named, not shown as "invalid character 'ï'";
// invalid UTF-8 later in the text still comes first.
func TestParseByteOrderMark(t *testing.T) {
	_, err := canon.Parse([]byte("\xef\xbb\xbf{}"))
	if err == nil || !strings.Contains(err.Error(), "byte order mark") || !strings.HasPrefix(err.Error(), "JSON_SYNTAX") {
		t.Errorf("Parse(BOM {}) error = %v, want JSON_SYNTAX naming the byte order mark", err)
	}
	_, err = canon.Parse([]byte("\xef\xbb\xbf{\"a\":\"\xff\"}"))
	if err == nil || !strings.HasPrefix(err.Error(), "JSON_INVALID_UTF8") {
		t.Errorf("Parse(BOM, invalid UTF-8) error = %v, want JSON_INVALID_UTF8 first", err)
	}
}
