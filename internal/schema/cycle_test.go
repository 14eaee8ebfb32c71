package schema

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/kiterr/kiterrtest"
)

// TestRefCycleRefused: a schema that reaches itself without descending into
// the instance, in one file or across two (issue 33), does not compile:
// SCHEMA_REF_CYCLE names the cycle, for the library's compilation and for
// the direct path alike. Recursion through a member is no cycle.
func TestRefCycleRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		loc   string
		// cycle is the locations named, in order; empty: it compiles.
		cycle []string
	}{
		{"across two files", map[string]string{
			"a.json": `{` + hdr + `"$ref":"#/$defs/Body","$defs":{"Body":{"$ref":"b.json#/$defs/A"}}}`,
			"b.json": `{` + hdr + `"$defs":{"A":{"$ref":"a.json#/$defs/Body"}}}`,
		}, "a.json", []string{"a.json#/$defs/Body", "b.json#/$defs/A", "a.json#/$defs/Body"}},
		{"through allOf and anyOf", map[string]string{
			"s.json": `{` + hdr + `"$ref":"#/$defs/A","$defs":{"A":{"allOf":[{"$ref":"#/$defs/B"}]},"B":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/A"}]}}}`,
		}, "s.json", []string{"#/$defs/A", "#/$defs/B", "#/$defs/A"}},
		{"through dependentSchemas", map[string]string{
			"s.json": `{` + hdr + `"$ref":"#/$defs/A","$defs":{"A":{"dependentSchemas":{"x":{"$ref":"#/$defs/A"}}}}}`,
		}, "s.json", []string{"#/$defs/A"}},
		{"draft-07 (the library's compilation)", map[string]string{
			"s.json": `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"A":{"not":{"$ref":"#/definitions/A"}}},"$ref":"#/definitions/A"}`,
		}, "s.json", []string{"#/definitions/A"}},
		{"recursion through a member", map[string]string{
			"s.json": `{` + hdr + `"type":"object","properties":{"next":{"$ref":"#"}}}`,
		}, "s.json", nil},
		{"mutual recursion through items", map[string]string{
			"a.json": `{` + hdr + `"type":"array","items":{"$ref":"b.json"}}`,
			"b.json": `{` + hdr + `"anyOf":[{"type":"string"},{"$ref":"a.json"}]}`,
		}, "a.json", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := fstest.MapFS{}
			for name, body := range tt.files {
				m[name] = &fstest.MapFile{Data: []byte(body)}
			}
			for _, set := range []*Set{NewSet(m), NewCheckedSet(m)} {
				_, err := set.Compile(tt.loc)
				if tt.cycle == nil {
					if err != nil {
						t.Fatalf("Compile: %v, want no error", err)
					}
					continue
				}
				kiterrtest.WantCode(t, err, kiterr.SchemaRefCycle, tt.cycle...)
				if err != nil && !strings.Contains(err.Error(), strings.Join(tt.cycle[len(tt.cycle)-1:], "")) {
					t.Errorf("error %q does not name the cycle", err)
				}
			}
		})
	}
}
