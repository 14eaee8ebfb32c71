package runner

import (
	"strings"
	"testing"

	"github.com/conform-kit/conform/internal/canon"
)

// TestQuoteShowsTheFault: a long line that is not JSON is quoted around
// the byte the strict reader names, so the fault is always in view.
func TestQuoteShowsTheFault(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, line, want string
	}{
		{"short line, whole", `{"a":1,}`, `"{\"a\":1,}"`},
		{"syntax error late in a long line", `{"a":"` + strings.Repeat("x", 1000) + `",}`, `x\",}"`},
		{"invalid UTF-8 late in a long line", `{"a":"` + strings.Repeat("x", 1000) + "\xff\"}", `x\xff\"}"`},
		{"syntax error early in a long line", `{"a":tru ` + strings.Repeat("x", 1000) + `}`, `"{\"a\":tru x`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := canon.Parse([]byte(tc.line))
			if err == nil {
				t.Fatalf("%q parsed", tc.line)
			}
			got := quoteAt([]byte(tc.line), errorOffset(err))
			if !strings.Contains(got, tc.want) {
				t.Errorf("quoteAt = %s (error %v), want it to show %s", got, err, tc.want)
			}
			if len(got) > maxQuoted*2 {
				t.Errorf("quoteAt = %d bytes, want about %d", len(got), maxQuoted)
			}
		})
	}
}
