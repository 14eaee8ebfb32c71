package runner

import (
	"encoding/json"
	"testing"
)

// idKey is key's shortcut: the same canonical text for every request_id.
func TestIDKeyIsKey(t *testing.T) {
	t.Parallel()
	for _, id := range []any{
		"req-1", "", "a\"b", `back\slash`, "tab\t", "\x7f", "<>&", "é😀", "\u2028\u2029",
		json.Number("1"), json.Number("1.0"), json.Number("-0"), json.Number("1e2"), nil, true,
		map[string]any{"b": 1, "a": "x"}, []any{"x", json.Number("2")},
	} {
		if got, want := idKey(id), key(id); got != want {
			t.Errorf("idKey(%#v) = %s, key = %s", id, got, want)
		}
	}
}
