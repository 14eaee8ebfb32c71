package compare_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/conform-kit/conform/internal/compare"
)

func TestDiff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, golden, actual string
		want                 []string // substrings the diff must show
	}{
		{"equal", `{"a":1}`, `{"a":1}`, nil},
		{"value", `{"a":1}`, `{"a":2}`, []string{"/a: golden 1, actual 2 [VALUE_CHANGED]"}},
		{"multibyte strings stay whole", `{"e":"frobnicate-ü-😀\u2028-x"}`, `{"e":"frobnicate-ü-😀-x"}`, []string{"😀"}},
		{"not json", `{`, `}`, []string{"golden: {", "actual: }"}},
		{"long strings are shown where they differ", `{"e":"` + strings.Repeat("a", 2000) + `golden-end"}`, `{"e":"` + strings.Repeat("a", 2000) + `actual-end"}`,
			[]string{`golden-end"`, `actual-end"`, "…(1921 bytes)…"}},
		{"long look-alikes are spelled where they differ", `{"e":"` + strings.Repeat("é", 300) + `\u00e9-end"}`, `{"e":"` + strings.Repeat("é", 300) + `e\u0301-end"}`,
			[]string{`\u00e9-end"`, `e\u0301-end"`, "…(225 code points)…", "equal after Unicode NFC normalization"}},
		{"summary frames by request_id", `{"frames":[{"response":{"request_id":"a","subtype":"success"},"type":"control_response"}],"vector":"v"}`,
			`{"frames":[{"response":{"request_id":"a","subtype":"error"},"type":"control_response"}],"vector":"v"}`,
			[]string{`control_response "a" /response/subtype: golden "success", actual "error" [VALUE_CHANGED]`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := compare.Diff([]byte(tc.golden), []byte(tc.actual), framing)
			if tc.want == nil {
				if d != "" || !compare.Equal([]byte(tc.golden), []byte(tc.actual)) {
					t.Errorf("equal inputs gave diff %q", d)
				}
				return
			}
			if d == "" {
				t.Fatal("different inputs gave no diff")
			}
			for _, w := range tc.want {
				if !strings.Contains(d, w) {
					t.Errorf("diff lacks %q:\n%s", w, d)
				}
			}
			if !utf8.ValidString(d) {
				t.Errorf("diff is not valid UTF-8:\n%q", d)
			}
			if strings.Contains(d, "map[string]any") || strings.Contains(d, "json.Number") {
				t.Errorf("diff is in Go syntax:\n%s", d)
			}
		})
	}
}
