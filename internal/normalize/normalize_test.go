package normalize_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/envelope"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/normalize"
)

const (
	uuid1 = "123e4567-e89b-12d3-a456-426614174000"
	uuid2 = "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE"
)

// parse decodes a JSON fixture with the strict reader, as the runner does.
func parse(t *testing.T, s string) any {
	t.Helper()
	v, err := canon.Parse([]byte(s))
	if err != nil {
		t.Fatalf("canon.Parse(%q): %v", s, err)
	}
	return v
}

func compile(t *testing.T, specs ...normalize.Spec) []normalize.Rule {
	t.Helper()
	rules, err := normalize.Compile(specs)
	if err != nil {
		t.Fatalf("Compile(%+v): %v", specs, err)
	}
	return rules
}

// canonical renders v for comparison in messages and diffs.
func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := canon.Canonical(v)
	if err != nil {
		t.Fatalf("Canonical(%#v): %v", v, err)
	}
	return string(b)
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		specs    []normalize.Spec
		fragment string
	}{
		{"empty path", []normalize.Spec{{Path: "", Format: "any"}}, "invalid path pattern"},
		{"only a slash", []normalize.Spec{{Path: "/", Format: "any"}}, "invalid path pattern"},
		{"unclosed bracket", []normalize.Spec{{Path: "a/[b", Format: "any"}}, `"a/[b"`},
		{"unclosed brace", []normalize.Spec{{Path: "/a/{b,c", Format: "any"}}, "invalid path pattern"},
		{"unknown format", []normalize.Spec{{Path: "a", Format: "date"}}, `unknown format "date"`},
		{"empty format", []normalize.Spec{{Path: "a", Format: ""}}, "needs a format"},
		{"drop and keep", []normalize.Spec{{Path: "a", Drop: true, Keep: []string{"b"}}}, "exclude each other"},
		{"keep with a scalar format", []normalize.Spec{{Path: "a", Keep: []string{"b"}, Format: "string"}}, "keep applies to objects"},
		{"drop with a placeholder", []normalize.Spec{{Path: "a", Drop: true, Placeholder: []byte(`1`)}}, "placeholder"},
		{"format is case sensitive", []normalize.Spec{{Path: "a", Format: "UUID"}}, "unknown format"},
		{"bad regex", []normalize.Spec{{Path: "a", Format: "regex:("}}, `regex "("`},
		{"bad regex backreference", []normalize.Spec{{Path: "a", Format: `regex:(a)\1`}}, "regex"},
		{"second spec bad names its index", []normalize.Spec{{Path: "a", Format: "any"}, {Path: "b", Format: "nope"}}, "normalizer 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rules, err := normalize.Compile(tc.specs)
			if err == nil {
				t.Fatalf("Compile(%+v) = %d rules, want error", tc.specs, len(rules))
			}
			if rules != nil {
				t.Errorf("Compile returned rules with an error")
			}
			if got := kiterr.CodeOf(err); got != kiterr.NormalizerInvalid {
				t.Errorf("CodeOf(%v) = %q, want %q", err, got, kiterr.NormalizerInvalid)
			}
			if !strings.Contains(err.Error(), tc.fragment) {
				t.Errorf("error %q does not contain %q", err, tc.fragment)
			}
		})
	}
}

func TestCompileEmpty(t *testing.T) {
	t.Parallel()
	for _, specs := range [][]normalize.Spec{nil, {}} {
		rules, err := normalize.Compile(specs)
		if err != nil {
			t.Fatalf("Compile(%v): %v", specs, err)
		}
		if len(rules) != 0 {
			t.Errorf("Compile(%v) = %d rules, want 0", specs, len(rules))
		}
		res := normalize.Apply(parse(t, `{"a":1}`), rules)
		if diff := cmp.Diff(`{"a":1}`, canonical(t, res.Value)); diff != "" {
			t.Errorf("Apply without rules changed the value (-want +got):\n%s", diff)
		}
	}
}

// TestFormats checks every format against values it must accept and reject:
// an accepted value is replaced by the placeholder, a rejected one is left
// as it was and reported.
func TestFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		format string
		accept []string // JSON texts
		reject []string
	}{
		{
			format: "rfc3339",
			accept: []string{`"2024-01-02T03:04:05Z"`, `"2024-01-02T03:04:05.123456789+05:30"`, `"2024-01-02T03:04:05-08:00"`, `"2024-01-02T03:04:05.5Z"`, `"1999-12-31T23:59:59.000Z"`},
			reject: []string{`"2024-01-02 03:04:05Z"`, `"2024-01-02"`, `"2024-01-02T03:04:05"`, `"2024-02-30T00:00:00Z"`, `"2024-01-02T24:00:00Z"`, `"2024-01-02T03:04:05.Z"`, `""`, `1704164645`, `null`},
		},
		{
			format: "uuid",
			accept: []string{`"` + uuid1 + `"`, `"` + uuid2 + `"`, `"00000000-0000-0000-0000-000000000000"`},
			reject: []string{`"123e4567e89b12d3a456426614174000"`, `"{123e4567-e89b-12d3-a456-426614174000}"`, `"123e4567-e89b-12d3-a456-42661417400"`, `"123e4567-e89b-12d3-a456-4266141740000"`, `"g23e4567-e89b-12d3-a456-426614174000"`, `" 123e4567-e89b-12d3-a456-426614174000"`, `["` + uuid1 + `"]`, `1`},
		},
		{
			format: "semver",
			accept: []string{`"0.0.0"`, `"1.2.3"`, `"2.1.332"`, `"1.0.0-alpha"`, `"1.0.0-alpha.1"`, `"1.0.0-0.3.7"`, `"1.0.0-x-y-z.--"`, `"1.0.0+build.5"`, `"1.0.0-rc.1+sha.abc123"`, `"10.20.30"`},
			reject: []string{`"1.2"`, `"v1.2.3"`, `"01.2.3"`, `"1.02.3"`, `"1.2.3-01"`, `"1.2.3-"`, `"1.2.3+"`, `"1.2.3-a..b"`, `"1.2.3 "`, `"1.2.3.4"`, `123`},
		},
		{
			format: "integer",
			accept: []string{`0`, `42`, `-7`, `-0`, `9007199254740991`},
			reject: []string{`1.5`, `1e3`, `1E3`, `1.0`, `"42"`, `true`, `null`},
		},
		{
			format: "string",
			accept: []string{`""`, `"x"`, `"2024-01-02T03:04:05Z"`},
			reject: []string{`1`, `null`, `[]`, `{}`, `false`},
		},
		{
			format: "prefix:msg_",
			accept: []string{`"msg_"`, `"msg_01abc"`},
			reject: []string{`"msg"`, `"xmsg_1"`, `"MSG_1"`, `1`, `null`},
		},
		{
			format: "prefix:",
			accept: []string{`""`, `"anything"`},
			reject: []string{`0`, `{}`},
		},
		{
			format: "regex:[a-z]+",
			accept: []string{`"abc"`, `"z"`},
			reject: []string{`"abc1"`, `"1abc"`, `""`, `"ABC"`, `5`},
		},
		{
			// Anchoring wraps the whole pattern, so alternation cannot escape it.
			format: "regex:a|b",
			accept: []string{`"a"`, `"b"`},
			reject: []string{`"ab"`, `"xa"`, `"bx"`},
		},
		{
			format: `regex:^req-\d+$`,
			accept: []string{`"req-1"`},
			reject: []string{`"req-"`, `"req-1\n"`},
		},
		{
			format: "any-array",
			accept: []string{`[]`, `[1,"a",null]`},
			reject: []string{`{}`, `"[]"`, `null`},
		},
		{
			format: "any-object",
			accept: []string{`{}`, `{"a":[1]}`},
			reject: []string{`[]`, `"{}"`, `null`},
		},
		{
			format: "any",
			accept: []string{`null`, `0`, `""`, `[]`, `{}`, `true`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			t.Parallel()
			rules := compile(t, normalize.Spec{Path: "v", Format: tc.format})
			placeholder := canonical(t, "<"+tc.format+">")
			for _, in := range tc.accept {
				res := normalize.Apply(parse(t, `{"v":`+in+`}`), rules)
				if diff := cmp.Diff(`{"v":`+placeholder+`}`, canonical(t, res.Value)); diff != "" {
					t.Errorf("%s should accept %s (-want +got):\n%s", tc.format, in, diff)
				}
				if len(res.Mismatches) != 0 {
					t.Errorf("%s: %s reported as mismatch: %v", tc.format, in, res.Mismatches)
				}
			}
			for _, in := range tc.reject {
				v := parse(t, `{"v":`+in+`}`)
				res := normalize.Apply(v, rules)
				if diff := cmp.Diff(canonical(t, v), canonical(t, res.Value)); diff != "" {
					t.Errorf("%s should reject and keep %s (-want +got):\n%s", tc.format, in, diff)
				}
				want := []normalize.Mismatch{{Pointer: "/v", Path: "v", Format: tc.format, Value: canonical(t, parse(t, in))}}
				if diff := cmp.Diff(want, res.Mismatches); diff != "" {
					t.Errorf("%s: mismatches for %s (-want +got):\n%s", tc.format, in, diff)
				}
			}
		})
	}
}

// TestFormatRFC3339Strict checks the rfc3339 format against RFC 3339 §5.6
// date-time, which the package doc names as its definition.
func TestFormatRFC3339Strict(t *testing.T) {
	t.Parallel()
	rules := compile(t, normalize.Spec{Path: "v", Format: "rfc3339"})
	for _, tc := range []struct {
		in     string
		wantOK bool
	}{
		{"2024-01-02T3:04:05Z", false},
		{"2024-01-02T03:04:05,5Z", false},
		{"2024-01-02T03:04:05+24:00", false},
		{"2024-01-02t03:04:05z", true},
	} {
		res := normalize.Apply(map[string]any{"v": tc.in}, rules)
		if got := len(res.Mismatches) == 0; got != tc.wantOK {
			t.Errorf("rfc3339 accepts %q = %v, want %v", tc.in, got, tc.wantOK)
		}
	}
}

// TestFormatIntegerBeyondInt64: the doc says integer is "a JSON number
// without fraction or exponent"; canon.Parse accepts 9223372036854776000.
func TestFormatIntegerBeyondInt64(t *testing.T) {
	t.Parallel()
	rules := compile(t, normalize.Spec{Path: "v", Format: "integer"})
	for _, in := range []string{"9223372036854776000", "-9223372036854777856"} {
		res := normalize.Apply(parse(t, `{"v":`+in+`}`), rules)
		if len(res.Mismatches) != 0 {
			t.Errorf("integer rejects %s: %v", in, res.Mismatches)
		}
	}
}

func TestPlaceholders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		spec string // a Spec as JSON, as written in suite.json
		want string
	}{
		{"default uuid", `{"path":"v","format":"uuid"}`, `"<uuid>"`},
		{"default prefix", `{"path":"v","format":"prefix:123e"}`, `"<prefix:123e>"`},
		{"default regex", `{"path":"v","format":"regex:.*"}`, `"<regex:.*>"`},
		{"string", `{"path":"v","format":"any","placeholder":"X"}`, `"X"`},
		{"empty string", `{"path":"v","format":"any","placeholder":""}`, `""`},
		{"number", `{"path":"v","format":"any","placeholder":0}`, `0`},
		{"bool", `{"path":"v","format":"any","placeholder":false}`, `false`},
		{"array", `{"path":"v","format":"any","placeholder":[1,"a"]}`, `[1,"a"]`},
		{"object", `{"path":"v","format":"any","placeholder":{"k":{}}}`, `{"k":{}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var spec normalize.Spec
			if err := json.Unmarshal([]byte(tc.spec), &spec); err != nil {
				t.Fatal(err)
			}
			in := parse(t, `{"v":"`+uuid1+`","w":1}`)
			res := normalize.Apply(in, compile(t, spec))
			if diff := cmp.Diff(`{"v":`+tc.want+`,"w":1}`, canonical(t, res.Value)); diff != "" {
				t.Errorf("placeholder mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlaceholderNull: the vector schema says placeholder is "any JSON
// value", and null is one.
func TestPlaceholderNull(t *testing.T) {
	t.Parallel()
	var spec normalize.Spec
	if err := json.Unmarshal([]byte(`{"path":"v","format":"any","placeholder":null}`), &spec); err != nil {
		t.Fatal(err)
	}
	res := normalize.Apply(map[string]any{"v": "x"}, compile(t, spec))
	if diff := cmp.Diff(`{"v":null}`, canonical(t, res.Value)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestApply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		specs          []normalize.Spec
		in             string
		want           string
		wantMismatches []normalize.Mismatch
		wantMatched    []bool
	}{
		{
			name:  "doublestar uuid at several depths",
			specs: []normalize.Spec{{Path: "**/uuid", Format: "uuid"}},
			in: `{"uuid":"` + uuid1 + `","a":{"uuid":"` + uuid2 + `","b":[{"uuid":"` + uuid1 + `"},{"x":{"y":{"uuid":"` + uuid1 + `"}}}]},` +
				`"notuuid":"x","uuids":["x"]}`,
			want:        `{"a":{"b":[{"uuid":"<uuid>"},{"x":{"y":{"uuid":"<uuid>"}}}],"uuid":"<uuid>"},"notuuid":"x","uuid":"<uuid>","uuids":["x"]}`,
			wantMatched: []bool{true},
		},
		{
			name:        "doublestar with leading slash",
			specs:       []normalize.Spec{{Path: "/**/uuid", Format: "uuid"}},
			in:          `{"a":[{"uuid":"` + uuid1 + `"}]}`,
			want:        `{"a":[{"uuid":"<uuid>"}]}`,
			wantMatched: []bool{true},
		},
		{
			name:        "exact path with leading slash",
			specs:       []normalize.Spec{{Path: "/response/response/buildTime", Format: "rfc3339"}},
			in:          `{"response":{"response":{"buildTime":"2024-01-02T03:04:05Z","version":"1"},"buildTime":"x"},"buildTime":"y"}`,
			want:        `{"buildTime":"y","response":{"buildTime":"x","response":{"buildTime":"<rfc3339>","version":"1"}}}`,
			wantMatched: []bool{true},
		},
		{
			name:        "exact path without leading slash",
			specs:       []normalize.Spec{{Path: "response/response/buildTime", Format: "rfc3339"}},
			in:          `{"response":{"response":{"buildTime":"2024-01-02T03:04:05Z"}}}`,
			want:        `{"response":{"response":{"buildTime":"<rfc3339>"}}}`,
			wantMatched: []bool{true},
		},
		{
			name:        "exact path does not match at other depth",
			specs:       []normalize.Spec{{Path: "/buildTime", Format: "any"}},
			in:          `{"a":{"buildTime":"x"}}`,
			want:        `{"a":{"buildTime":"x"}}`,
			wantMatched: []bool{false},
		},
		{
			name:        "array index segment and star",
			specs:       []normalize.Spec{{Path: "/items/*/id", Format: "integer", Placeholder: json.RawMessage(`"N"`)}},
			in:          `{"items":[{"id":1},{"id":2,"k":3}],"id":4}`,
			want:        `{"id":4,"items":[{"id":"N"},{"id":"N","k":3}]}`,
			wantMatched: []bool{true},
		},
		{
			name: "first rule wins",
			specs: []normalize.Spec{
				{Path: "/a", Format: "string", Placeholder: json.RawMessage(`"first"`)},
				{Path: "**/a", Format: "string", Placeholder: json.RawMessage(`"second"`)},
			},
			in:          `{"a":"x","b":{"a":"y"}}`,
			want:        `{"a":"first","b":{"a":"second"}}`,
			wantMatched: []bool{true, true},
		},
		{
			name: "first matching rule wins even when its format fails",
			specs: []normalize.Spec{
				{Path: "/a", Format: "uuid"},
				{Path: "/a", Format: "any"},
			},
			in:             `{"a":"nope"}`,
			want:           `{"a":"nope"}`,
			wantMismatches: []normalize.Mismatch{{Pointer: "/a", Path: "/a", Format: "uuid", Value: `"nope"`}},
			wantMatched:    []bool{true, false},
		},
		{
			name: "subtree of a replaced value is not visited",
			specs: []normalize.Spec{
				{Path: "/a", Format: "any-object"},
				{Path: "/a/b", Format: "uuid"},
				{Path: "**/c", Format: "uuid"},
			},
			in:          `{"a":{"b":"not a uuid","c":"not a uuid"}}`,
			want:        `{"a":"<any-object>"}`,
			wantMatched: []bool{true, false, false},
		},
		{
			name:  "subtree of a mismatched value is not visited either",
			specs: []normalize.Spec{{Path: "/a", Format: "any-array"}, {Path: "**/b", Format: "any"}},
			in:    `{"a":{"b":1}}`,
			want:  `{"a":{"b":1}}`,
			wantMismatches: []normalize.Mismatch{
				{Pointer: "/a", Path: "/a", Format: "any-array", Value: `{"b":1}`},
			},
			wantMatched: []bool{true, false},
		},
		{
			name:  "mismatches in document order with pointers",
			specs: []normalize.Spec{{Path: "**/session_id", Format: "uuid"}},
			in:    `{"z":{"session_id":"bad2"},"a":[{"session_id":"bad1"},{"session_id":"` + uuid1 + `"}],"session_id":42}`,
			want:  `{"a":[{"session_id":"bad1"},{"session_id":"<uuid>"}],"session_id":42,"z":{"session_id":"bad2"}}`,
			wantMismatches: []normalize.Mismatch{
				{Pointer: "/a/0/session_id", Path: "**/session_id", Format: "uuid", Value: `"bad1"`},
				{Pointer: "/session_id", Path: "**/session_id", Format: "uuid", Value: `42`},
				{Pointer: "/z/session_id", Path: "**/session_id", Format: "uuid", Value: `"bad2"`},
			},
			wantMatched: []bool{true},
		},
		{
			name: "matched flags per rule",
			specs: []normalize.Spec{
				{Path: "/x", Format: "any"},
				{Path: "/nope", Format: "any"},
				{Path: "**/y", Format: "uuid"},
			},
			in:             `{"x":1,"y":"bad"}`,
			want:           `{"x":"<any>","y":"bad"}`,
			wantMismatches: []normalize.Mismatch{{Pointer: "/y", Path: "**/y", Format: "uuid", Value: `"bad"`}},
			wantMatched:    []bool{true, false, true},
		},
		{
			name:        "key with slash matched in escaped form",
			specs:       []normalize.Spec{{Path: "/a~1b", Format: "any"}},
			in:          `{"a/b":1,"a":{"b":2}}`,
			want:        `{"a":{"b":2},"a/b":"<any>"}`,
			wantMatched: []bool{true},
		},
		{
			name:        "unescaped slash pattern names the nested member",
			specs:       []normalize.Spec{{Path: "/a/b", Format: "any"}},
			in:          `{"a/b":1,"a":{"b":2}}`,
			want:        `{"a":{"b":"<any>"},"a/b":1}`,
			wantMatched: []bool{true},
		},
		{
			name:        "key with tilde matched in escaped form",
			specs:       []normalize.Spec{{Path: "**/x~0y", Format: "any"}},
			in:          `{"q":{"x~y":1,"x~0y":2}}`,
			want:        `{"q":{"x~0y":2,"x~y":"<any>"}}`,
			wantMatched: []bool{true},
		},
		{
			name:           "mismatch pointer escapes slash and tilde",
			specs:          []normalize.Spec{{Path: "**/id", Format: "integer"}},
			in:             `{"a/b":{"c~d":{"id":"s"}}}`,
			want:           `{"a/b":{"c~d":{"id":"s"}}}`,
			wantMismatches: []normalize.Mismatch{{Pointer: "/a~1b/c~0d/id", Path: "**/id", Format: "integer", Value: `"s"`}},
			wantMatched:    []bool{true},
		},
		{
			name:        "root value itself is never matched",
			specs:       []normalize.Spec{{Path: "**", Format: "string"}},
			in:          `"top"`,
			want:        `"top"`,
			wantMatched: []bool{false},
		},
		{
			name:        "double star alone replaces top-level members",
			specs:       []normalize.Spec{{Path: "**", Format: "any"}},
			in:          `{"a":{"b":1},"c":[2]}`,
			want:        `{"a":"<any>","c":"<any>"}`,
			wantMatched: []bool{true},
		},
		{
			name:        "no rules matched leaves value equal",
			specs:       []normalize.Spec{{Path: "**/uuid", Format: "uuid"}},
			in:          `[1,{"a":[true,null]}]`,
			want:        `[1,{"a":[true,null]}]`,
			wantMatched: []bool{false},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rules := compile(t, tc.specs...)
			in := parse(t, tc.in)
			before := canonical(t, in)
			res := normalize.Apply(in, rules)
			if diff := cmp.Diff(tc.want, canonical(t, res.Value)); diff != "" {
				t.Errorf("Value mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantMismatches, res.Mismatches, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Mismatches (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantMatched, res.Matched); diff != "" {
				t.Errorf("Matched (-want +got):\n%s", diff)
			}
			if after := canonical(t, in); after != before {
				t.Errorf("input modified: before %s, after %s", before, after)
			}
		})
	}
}

// TestApplyDoesNotAliasInput checks that the result is a copy: changing the
// result's containers does not reach the input.
func TestApplyDoesNotAliasInput(t *testing.T) {
	t.Parallel()
	in := parse(t, `{"a":{"b":[1,2]},"uuid":"`+uuid1+`"}`)
	res := normalize.Apply(in, compile(t, normalize.Spec{Path: "**/uuid", Format: "uuid"}))
	out := res.Value.(map[string]any)
	out["a"].(map[string]any)["b"].([]any)[0] = "changed"
	out["a"].(map[string]any)["new"] = true
	if diff := cmp.Diff(`{"a":{"b":[1,2]},"uuid":"`+uuid1+`"}`, canonical(t, in)); diff != "" {
		t.Errorf("input changed through the result (-want +got):\n%s", diff)
	}
}

func TestMismatchSummaryAndString(t *testing.T) {
	t.Parallel()
	// A value up to 480 bytes of JSON is shown whole; a longer one by its
	// head and tail, so the end of a long value is never hidden.
	whole := strings.Repeat("x", 478)
	res := normalize.Apply(map[string]any{"v": whole}, compile(t, normalize.Spec{Path: "**/v", Format: "uuid"}))
	if diff := cmp.Diff(`"`+whole+`"`, res.Mismatches[0].Value); diff != "" {
		t.Errorf("Value of a 480-byte value (-want +got):\n%s", diff)
	}
	long := strings.Repeat("x", 600) + "-END"
	res = normalize.Apply(map[string]any{"v": long}, compile(t, normalize.Spec{Path: "**/v", Format: "uuid"}))
	if len(res.Mismatches) != 1 {
		t.Fatalf("Mismatches = %v, want 1", res.Mismatches)
	}
	m := res.Mismatches[0]
	wantValue := `"` + strings.Repeat("x", 319) + "…(166 of 606 bytes left out)…" + strings.Repeat("x", 115) + `-END"`
	if diff := cmp.Diff(wantValue, m.Value); diff != "" {
		t.Errorf("Value summary (-want +got):\n%s", diff)
	}
	want := `/v: ` + wantValue + ` is not uuid (normalizer "**/v")`
	if diff := cmp.Diff(want, m.String()); diff != "" {
		t.Errorf("String (-want +got):\n%s", diff)
	}
}

func TestSpecJSON(t *testing.T) {
	t.Parallel()
	var s normalize.Spec
	if err := json.Unmarshal([]byte(`{"path":"**/uuid","format":"uuid","placeholder":7,"reason":"fresh"}`), &s); err != nil {
		t.Fatal(err)
	}
	want := normalize.Spec{Path: "**/uuid", Format: "uuid", Placeholder: json.RawMessage(`7`), Reason: "fresh"}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("Spec (-want +got):\n%s", diff)
	}
	rules := compile(t, s)
	if diff := cmp.Diff(s, rules[0].Spec); diff != "" {
		t.Errorf("Rule.Spec (-want +got):\n%s", diff)
	}
}

// TestDropAndKeep: a drop rule removes a member (an array item too), after
// its format is checked; a keep rule leaves an object only the named
// members, which are normalized further; a keep rule on a non-object is a
// mismatch and leaves the value as it was.
func TestDropAndKeep(t *testing.T) {
	t.Parallel()
	parse := func(s string) any {
		v, err := canon.Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		name  string
		specs []normalize.Spec
		in    string
		want  string
		bad   int
	}{
		{"drop a member", []normalize.Spec{{Path: "/a/b", Drop: true}}, `{"a":{"b":1,"c":2}}`, `{"a":{"c":2}}`, 0},
		{"drop anywhere", []normalize.Spec{{Path: "**/t", Drop: true}}, `{"t":1,"x":[{"t":2,"u":3}]}`, `{"x":[{"u":3}]}`, 0},
		{"drop checks its format", []normalize.Spec{{Path: "/t", Drop: true, Format: "string"}}, `{"t":1}`, `{"t":1}`, 1},
		{"drop an array item", []normalize.Spec{{Path: "/a/0", Drop: true}}, `{"a":[1,2]}`, `{"a":[2]}`, 0},
		{"keep named members", []normalize.Spec{{Path: "/caps", Keep: []string{"tools"}}}, `{"caps":{"logging":{},"tools":{"x":1}}}`, `{"caps":{"tools":{"x":1}}}`, 0},
		{"keep then normalize inside", []normalize.Spec{{Path: "/o", Keep: []string{"id"}}, {Path: "/o/id", Format: "integer"}}, `{"o":{"id":7,"z":1}}`, `{"o":{"id":"<integer>"}}`, 0},
		{"keep on a scalar", []normalize.Spec{{Path: "/o", Keep: []string{"a"}}}, `{"o":3}`, `{"o":3}`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules, err := normalize.Compile(tc.specs)
			if err != nil {
				t.Fatal(err)
			}
			res := normalize.Apply(parse(tc.in), rules)
			got, err := canon.Canonical(res.Value)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			if len(res.Mismatches) != tc.bad {
				t.Errorf("got %d mismatches (%v), want %d", len(res.Mismatches), res.Mismatches, tc.bad)
			}
		})
	}
}

// TestShapes: with Scope.Shapes, each replaced or dropped value's shape
// (member names and JSON types, never values) is kept by its pointer; an
// array's shape lists its distinct item shapes.
func TestShapes(t *testing.T) {
	t.Parallel()
	rules, err := normalize.Compile([]normalize.Spec{{Path: "/body", Format: "any-object"}, {Path: "/gone", Drop: true}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := canon.Parse([]byte(`{"body":{"a":"secret","n":1,"list":[{"x":true},{"x":false},{"y":null}]},"gone":[1,2],"kept":"k"}`))
	if err != nil {
		t.Fatal(err)
	}
	res := normalize.ApplyScoped(v, rules, normalize.Scope{Shapes: true})
	got, err := canon.Canonical(res.Shapes)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"/body":{"a":"string","list":[{"x":"boolean"},{"y":"null"}],"n":"number"},"/gone":["number"]}`
	if string(got) != want {
		t.Errorf("shapes %s, want %s", got, want)
	}
	if res := normalize.Apply(v, rules); res.Shapes != nil {
		t.Errorf("shapes kept without Scope.Shapes: %v", res.Shapes)
	}
}

// TestDefaultAndWhen: a default-valued member is dropped and any other
// value kept; a rule with when applies only to frames it holds for.
func TestDefaultAndWhen(t *testing.T) {
	t.Parallel()
	rules, err := normalize.Compile([]normalize.Spec{
		{Path: "/result/isError", Default: []byte("false")},
		{Path: "/id", Format: "string", Placeholder: []byte(`"<server id>"`), When: []envelope.Predicate{{Path: "/method", Present: true}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"id":1,"result":{"isError":false,"x":1}}`, `{"id":1,"result":{"x":1}}`},
		{`{"id":1,"result":{"isError":true}}`, `{"id":1,"result":{"isError":true}}`},
		{`{"id":"s-9","method":"roots/list"}`, `{"id":"<server id>","method":"roots/list"}`},
		{`{"id":"s-9","result":{}}`, `{"id":"s-9","result":{}}`},
	} {
		v, err := canon.Parse([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := canon.Canonical(normalize.Apply(v, rules).Value)
		if string(got) != tc.want {
			t.Errorf("%s: got %s, want %s", tc.in, got, tc.want)
		}
	}
	if _, err := normalize.Compile([]normalize.Spec{{Path: "/a", Default: []byte("1"), Format: "string"}}); err == nil {
		t.Error("default with a format compiled")
	}
}
