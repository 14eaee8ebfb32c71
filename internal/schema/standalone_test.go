package schema

import (
	"testing"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/kiterr"
)

func TestStandalone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc, draft, ptr, inst string
		want                        bool
	}{
		{"draft-07 anchor ref", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"h":{"$ref":"#A"}},"definitions":{"A":{"$id":"#A","required":["s"]}}}`, "", "", `{"h":{}}`, false},
		{"draft-04 exclusive minimum", `{"$schema":"http://json-schema.org/draft-04/schema#","minimum":10,"exclusiveMinimum":true}`, "", "", `10`, false},
		{"draft-07 tuple by default draft", `{"items":[{"type":"string"}]}`, "draft-07", "", `[1]`, false},
		{"location inside the document", `{"$defs":{"S":{"type":"string"}}}`, "", "/$defs/S", `"x"`, true},
		{"format asserted", `{"format":"date"}`, "", "", `"x"`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc, err := canon.Parse([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewStandalone("old", doc, true, tc.draft)
			if err != nil {
				t.Fatal(err)
			}
			inst, _ := canon.Parse([]byte(tc.inst))
			got, err := s.Valid(tc.ptr, inst)
			if err != nil || got != tc.want {
				t.Fatalf("Valid(%s) = %v, %v, want %v", tc.inst, got, err, tc.want)
			}
		})
	}
	doc, _ := canon.Parse([]byte(`{"$ref":"https://example.com/x.json"}`))
	s, err := NewStandalone("old", doc, true, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Valid("", nil); kiterr.CodeOf(err) != kiterr.SchemaRefRemote {
		t.Errorf("remote $ref: %v, want SCHEMA_REF_REMOTE", err)
	}
	if _, err := NewStandalone("old", doc, true, "draft-99"); kiterr.CodeOf(err) != kiterr.Usage {
		t.Errorf("unknown draft: %v, want USAGE", err)
	}
}
