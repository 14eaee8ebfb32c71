package schema_test

import (
	"os"
	"strings"
	"testing"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/schema"
)

// TestViolationsFollowTheDiscriminator: one wrong member gives findings
// about that member, from the branch the frame's type/subtype/behavior
// selects, not one per oneOf branch it never claimed to be.
func TestViolationsFollowTheDiscriminator(t *testing.T) {
	t.Parallel()
	set := schema.NewSet(os.DirFS("../.."))
	tests := []struct {
		name, loc, frame string
		max              int
		want             []string // substrings, each in some violation
	}{
		{"v2 reply with a wrong member type", "schemas/control.v2.json#/$defs/ReplyBySubtype/properties/can_use_tool",
			`{"type":"control_response","schemaVersion":2,"response":{"subtype":"success","request_id":"r","response":{"behavior":"allow","updatedInput":"oops"}}}`,
			3, []string{"/response/response/updatedInput"}},
		{"v2 envelope with a wrong schemaVersion", "schemas/control.v2.json",
			`{"type":"control_response","schemaVersion":"2","response":{"subtype":"success","request_id":"r","response":{}}}`,
			2, []string{"/schemaVersion", "other branch(es) do not apply"}},
		{"an unknown frame type", "schemas/control.v2.json",
			`{"type":"control_responze","schemaVersion":2,"response":{}}`,
			1, []string{`no branch applies: /type must be one of "control_request", "control_response"`}},
		{"v1 deny with a wrong message type", "schemas/control.v1.json#/$defs/ReplyBySubtype/properties/can_use_tool",
			`{"type":"control_response","response":{"subtype":"success","request_id":"r","response":{"behavior":"deny","message":7}}}`,
			3, []string{"/response/response/message"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sch, err := set.Compile(tc.loc)
			if err != nil {
				t.Fatal(err)
			}
			sch = sch.WithDiscriminators([]string{"type", "subtype", "behavior"})
			v, err := canon.Parse([]byte(tc.frame))
			if err != nil {
				t.Fatal(err)
			}
			vs := sch.Validate(v)
			if len(vs) == 0 || len(vs) > tc.max {
				t.Fatalf("%d violations, want 1..%d:\n%v", len(vs), tc.max, vs)
			}
			var all []string
			for _, x := range vs {
				all = append(all, x.String())
			}
			text := strings.Join(all, "\n")
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("violations lack %q:\n%s", w, text)
				}
			}
		})
	}
}

// TestViolationsAreReproducible: the same invalid frame gives the same
// violations every time. jsonschema v6 names the members an
// additionalProperties false refuses in its map iteration order; a
// report must not change between two runs of the same IUT output.
func TestViolationsAreReproducible(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
		`"properties":{"ok":{"type":"string"}},"additionalProperties":false}`
	if err := os.WriteFile(dir+"/s.json", []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	sch, err := schema.NewSet(os.DirFS(dir)).Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := canon.Parse([]byte(`{"ok":"x","h":1,"b":2,"g":3,"c":4,"f":5,"d":6,"e":7,"a":8}`))
	if err != nil {
		t.Fatal(err)
	}
	first := ""
	for i := range 30 {
		vs := sch.Validate(v)
		if len(vs) != 1 {
			t.Fatalf("%d violations, want 1: %v", len(vs), vs)
		}
		got := vs[0].String()
		if i == 0 {
			first = got
			if !strings.Contains(got, "'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'") {
				t.Fatalf("names not in order: %s", got)
			}
		} else if got != first {
			t.Fatalf("run %d: %s\nrun 0: %s", i, got, first)
		}
	}
}
