package normalize_test

import (
	"testing"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/normalize"
)

// FuzzApply checks that Compile and Apply never panic on arbitrary JSON,
// path patterns and formats, that Apply leaves its input as it was, and that
// every Mismatch pointer and Matched flag is consistent.
func FuzzApply(f *testing.F) {
	f.Add([]byte(`{"uuid":"123e4567-e89b-12d3-a456-426614174000","a":[{"uuid":"x"}]}`), "**/uuid", "uuid")
	f.Add([]byte(`{"response":{"response":{"buildTime":"2024-01-02T03:04:05Z"}}}`), "/response/response/buildTime", "rfc3339")
	f.Add([]byte(`{"a/b":{"c~d":1}}`), "a~1b/*", "integer")
	f.Add([]byte(`[1,2,[3]]`), "**", "any-array")
	f.Add([]byte(`{"v":"abc"}`), "{v,w}", "regex:[a-c]+")
	f.Add([]byte(`{"v":"1.2.3-rc.1+b"}`), "v", "semver")
	f.Add([]byte(`{"v":"x"}`), "[", "prefix:")
	f.Fuzz(func(t *testing.T, data []byte, path, format string) {
		v, err := canon.Parse(data)
		if err != nil {
			return
		}
		rules, err := normalize.Compile([]normalize.Spec{{Path: path, Format: format}, {Path: "**", Format: "any"}})
		if err != nil {
			return
		}
		before, err := canon.Canonical(v)
		if err != nil {
			t.Fatalf("Canonical: %v", err)
		}
		res := normalize.Apply(v, rules)
		after, err := canon.Canonical(v)
		if err != nil || string(after) != string(before) {
			t.Fatalf("Apply modified its input: %s -> %s (%v)", before, after, err)
		}
		if _, err := canon.Canonical(res.Value); err != nil {
			t.Fatalf("Canonical(result): %v", err)
		}
		if len(res.Matched) != len(rules) {
			t.Fatalf("len(Matched) = %d, want %d", len(res.Matched), len(rules))
		}
		for _, m := range res.Mismatches {
			if m.Pointer == "" || m.Pointer[0] != '/' {
				t.Fatalf("mismatch pointer %q is not a non-root JSON Pointer", m.Pointer)
			}
			if m.Path != path || m.Format != format {
				t.Fatalf("mismatch %+v names a rule that cannot fail (the second accepts anything)", m)
			}
			if !res.Matched[0] {
				t.Fatalf("mismatch %+v but Matched[0] is false", m)
			}
		}
	})
}
