package compat

import (
	"encoding/json"
	"github.com/conform-kit/conform/internal/canon"
	"testing"
)

// TestJSONTextFast: the fast paths of jsonText write what canon.Canonical
// writes.
func TestJSONTextFast(t *testing.T) {
	for _, v := range []any{nil, true, false, "", "a b", "é", "a\"b", "a\\b", "\n", json.Number("0"), json.Number("-0"), json.Number("12"), json.Number("-12"), json.Number("012"), json.Number("1.0"), json.Number("1e2"), json.Number("123456789012345"), json.Number("1234567890123456789")} {
		b, err := canon.Canonical(v)
		want := string(b)
		if err != nil {
			continue
		}
		if got := jsonText(v); got != want {
			t.Errorf("%#v: %s, want %s", v, got, want)
		}
	}
}
