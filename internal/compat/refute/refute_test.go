package refute_test

import (
	"context"
	"testing"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compat/refute"
)

func parse(t *testing.T, s string) any {
	t.Helper()
	v, err := canon.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSearch: a false inclusion is refuted with an instance the validator
// confirms; a true one is not, within the budget; the same seed gives the
// same instance.
func TestSearch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		sub, sup string
		ptr      string
		want     bool
	}{
		{"nullable", `{"type":["string","null"]}`, `{"type":"string"}`, "", true},
		{"allOf sibling closes", `{"properties":{"a":{"type":"string"}}}`, `{"allOf":[{"properties":{"a":{}}}],"additionalProperties":false}`, "", true},
		{"oneOf overlap", `{"type":["string","null"]}`, `{"oneOf":[{"type":"null"},{"type":["string","null"]}]}`, "", true},
		{"bound", `{"type":"integer","minimum":3}`, `{"type":"integer","minimum":4}`, "", true},
		{"pattern", `{"type":"string","pattern":"^ab+$"}`, `{"type":"string","maxLength":2}`, "", true},
		{"deep member", `{"properties":{"a":{"properties":{"b":{"type":"integer"}}}}}`, `{"properties":{"a":{"properties":{"b":{"type":"integer","maximum":50}}}}}`, "", true},
		{"at a pointer", `{"$defs":{"A":{"type":"integer"}}}`, `{"$defs":{"A":{"type":"string"}}}`, "/$defs/A", true},
		{"true inclusion", `{"type":"integer","minimum":4}`, `{"type":"number","minimum":3}`, "", false},
		{"true inclusion of objects", `{"type":"object","required":["a"],"properties":{"a":{"const":1}}}`, `{"type":"object","properties":{"a":{"type":"integer"}}}`, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sub, sup := parse(t, c.sub), parse(t, c.sup)
			res, err := refute.Search(context.Background(), sub, c.ptr, sup, c.ptr, refute.Options{Seed: 3, Budget: 3000})
			if err != nil {
				t.Fatal(err)
			}
			if res.Found != c.want {
				t.Fatalf("found = %v (instance %v after %d), want %v", res.Found, res.Instance, res.Tried, c.want)
			}
			if !res.Found {
				if res.Tried != 3000 {
					t.Errorf("tried %d candidates, want the whole budget", res.Tried)
				}
				return
			}
			again, err := refute.Search(context.Background(), sub, c.ptr, sup, c.ptr, refute.Options{Seed: 3, Budget: 3000})
			if err != nil {
				t.Fatal(err)
			}
			a, _ := canon.Canonical(res.Instance)
			b, _ := canon.Canonical(again.Instance)
			if string(a) != string(b) || again.Tried != res.Tried {
				t.Errorf("not deterministic: %s after %d, then %s after %d", a, res.Tried, b, again.Tried)
			}
		})
	}
}
