package compat

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/conform-kit/conform/internal/canon"
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

// TestMemberKey: an object's text composed from its members' texts is
// what jsonText writes, or "" for names whose UTF-16 order is not Go's.
func TestMemberKey(t *testing.T) {
	for _, o := range []map[string]any{
		{},
		{"a": json.Number("1")},
		{"b": []any{"x", map[string]any{"z": nil, "y": true}}, "a": "é", "A": map[string]any{}, "a b": json.Number("1.5")},
		{"\u00e9": json.Number("1"), "e": false, "\n": "q\"", "~": nil},
		{"\ue000": json.Number("1"), "\U0001f600": json.Number("2")},
		{"\uffff": json.Number("1"), "a": json.Number("2")},
	} {
		mt := map[string]string{}
		for k, v := range o {
			mt[k] = jsonText(v)
		}
		got := memberKey(mt)
		// memberOrder.key gives memberKey's answer, over a superset of
		// the names, over the names themselves, and over too few
		all := append(sortedKeys(mt), "x-conform-extra", "\u00e9\u00e9")
		for _, names := range [][]string{all, sortedKeys(mt), sortedKeys(mt)[:len(mt)/2]} {
			slices.Sort(names)
			if k := newMemberOrder(names).key(mt); k != got {
				t.Errorf("%v: memberOrder(%q).key = %s, want %s", o, names, k, got)
			}
		}
		if got == "" {
			late := false // a name with a code point from U+E000
			for k := range o {
				late = late || strings.ContainsFunc(k, func(r rune) bool { return r >= 0xe000 })
			}
			if !late {
				t.Errorf("%v: memberKey gave up on names Go orders as UTF-16 does", o)
			}
			continue
		}
		if want := jsonText(o); got != want {
			t.Errorf("%v: %s, want %s", o, got, want)
		}
	}
}
