package schema_test

import (
	"os"
	"testing"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/schema"
)

// BenchmarkValidate measures validation of one reply, with the schema
// compiled once outside the loop: against the root Message (every control
// line) and against ReplyBySubtype/set_model (every success reply).
func BenchmarkValidate(b *testing.B) {
	set := schema.NewSet(os.DirFS("../.."))
	reply := []byte(`{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"model":"claude-sonnet-5-5"}}}`)
	v, err := canon.Parse(reply)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, loc string }{
		{"root", "schemas/control.v1.json"},
		{"set_model", "schemas/control.v1.json#/$defs/ReplyBySubtype/properties/set_model"},
	} {
		sch, err := set.Compile(bc.loc)
		if err != nil {
			b.Fatal(err)
		}
		if vi := sch.Validate(v); vi != nil {
			b.Fatalf("%s: reply does not validate: %v", bc.name, vi)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(reply)))
			for b.Loop() {
				if vi := sch.Validate(v); vi != nil {
					b.Fatal(vi)
				}
			}
		})
	}
}

// BenchmarkValidateInvalid measures the failure path (violations collected,
// localized and sorted): a reply whose model is a number.
func BenchmarkValidateInvalid(b *testing.B) {
	set := schema.NewSet(os.DirFS("../.."))
	v, err := canon.Parse([]byte(`{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"model":5}}}`))
	if err != nil {
		b.Fatal(err)
	}
	sch, err := set.Compile("schemas/control.v1.json#/$defs/ReplyBySubtype/properties/set_model")
	if err != nil {
		b.Fatal(err)
	}
	if vi := sch.Validate(v); vi == nil {
		b.Fatal("want violations")
	}
	b.ReportAllocs()
	for b.Loop() {
		sch.Validate(v)
	}
}
