package schema

import (
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

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

// TestStandaloneCheckedBase pins what Standalone relies on to skip the
// compiler's own meta-schema pass: jsonschema v6 loads a document under
// checkedBase without validating it against its meta-schema, and under
// uncheckedBase with. And a document CheckMeta refuses keeps the
// compiler's check.
func TestStandaloneCheckedBase(t *testing.T) {
	t.Parallel()
	bad, _ := canon.Parse([]byte(`{"type":"stringg"}`)) // not valid against the 2020-12 meta-schema
	for _, tc := range []struct {
		base    string
		wantErr bool
	}{{uncheckedBase, true}, {checkedBase, false}} {
		c := jsonschema.NewCompiler()
		c.UseLoader(refuseLoader{})
		if err := c.AddResource(tc.base+"x.json", bad); err != nil {
			t.Fatal(err)
		}
		_, err := c.Compile(tc.base + "x.json")
		if (err != nil) != tc.wantErr {
			t.Errorf("compile under %s: %v, want an error: %v", tc.base, err, tc.wantErr)
		}
	}
	s, err := NewStandalone("old", bad, true, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckMeta(nil); kiterr.CodeOf(err) != kiterr.SchemaInvalid {
		t.Fatalf("CheckMeta: %v, want SCHEMA_INVALID", err)
	}
	if _, err := s.Valid("", "x"); kiterr.CodeOf(err) != kiterr.SchemaInvalid {
		t.Errorf("Valid after a failed CheckMeta: %v, want SCHEMA_INVALID from the compiler's own check", err)
	}
	good, _ := canon.Parse([]byte(`{"type":"string"}`))
	s, _ = NewStandalone("old", good, true, "")
	if err := s.CheckMeta(nil); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Valid("", "x"); !ok || err != nil {
		t.Errorf("Valid after CheckMeta = %v, %v, want true", ok, err)
	}
	if s.url != checkedBase+"old.json" {
		t.Errorf("url after CheckMeta = %s, want it under %s", s.url, checkedBase)
	}
}
