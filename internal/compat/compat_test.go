package compat_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compat"
	"github.com/conform-kit/conform/internal/kiterr"
)

func parse(t *testing.T, s string) any {
	t.Helper()
	v, err := canon.Parse([]byte(s))
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return v
}

// noWitness leaves the witness instance out of a comparison; checkWitnesses
// checks it instead.
var noWitness = cmpopts.IgnoreFields(compat.Finding{}, "Witness")

// checkWitnesses checks that every BREAKING finding with evidence "witness"
// has a witness the schemas disagree on in its direction.
func checkWitnesses(t *testing.T, rep compat.Report) {
	t.Helper()
	for _, f := range rep.Findings {
		if f.Evidence != compat.EvidenceWitness {
			continue
		}
		w := f.Witness
		if w == nil || w.OldAccepts == w.NewAccepts || (w.Direction == "reader") != w.OldAccepts {
			t.Errorf("finding %s %s: evidence witness with witness %+v", f.Rule, f.Pointer, w)
		}
	}
}

// brief renders a finding as "VERDICT direction RULE pointer".
func brief(fs []compat.Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.Verdict+" "+f.Direction+" "+f.Rule+" "+f.Pointer)
	}
	return out
}

func TestCompareRules(t *testing.T) {
	t.Parallel()
	obj := func(props, extra string) string {
		return `{"type":"object","properties":{` + props + `}` + extra + `}`
	}
	tests := []struct {
		name     string
		old, new string
		opt      compat.Options
		want     []string
	}{
		{"identical", `{"type":"string"}`, `{"type":"string","description":"d"}`, compat.Options{}, nil},
		// properties
		{"property added to open object is additive", obj(`"a":{"type":"string"}`, ``), obj(`"a":{"type":"string"},"b":{"type":"integer"}`, ``), compat.Options{},
			[]string{"ADDITIVE reader PROPERTY_ADDED_OPEN /properties/b"}},
		{"property added to open object, strict", obj(``, ``), obj(`"b":{"type":"integer"}`, ``), compat.Options{StrictOpen: true},
			[]string{"BREAKING reader PROPERTY_ADDED_OPEN /properties/b"}},
		{"unconstrained property added, strict", obj(``, ``), obj(`"b":{"description":"any"}`, ``), compat.Options{StrictOpen: true},
			[]string{"ADDITIVE reader PROPERTY_ADDED_OPEN /properties/b"}},
		{"property added to closed object", obj(``, `,"additionalProperties":false`), obj(`"b":{"type":"integer"}`, `,"additionalProperties":false`), compat.Options{},
			[]string{"BREAKING writer PROPERTY_ADDED_CLOSED /properties/b"}},
		{"property added to closed object, reader only", obj(``, `,"additionalProperties":false`), obj(`"b":{}`, `,"additionalProperties":false`), compat.Options{Direction: "reader"},
			[]string{"ADDITIVE writer PROPERTY_ADDED_CLOSED /properties/b"}},
		{"property added to unevaluatedProperties:false object", obj(``, `,"unevaluatedProperties":false`), obj(`"b":{}`, `,"unevaluatedProperties":false`), compat.Options{},
			[]string{"BREAKING writer PROPERTY_ADDED_CLOSED /properties/b"}},
		{"property added to partial object compares with additionalProperties", obj(``, `,"additionalProperties":{"type":"string"}`), obj(`"b":{"type":"string","maxLength":3}`, `,"additionalProperties":{"type":"string"}`), compat.Options{},
			[]string{"BREAKING reader BOUND_TIGHTENED /properties/b", "ADDITIVE both PROPERTY_ADDED_PARTIAL /properties/b"}},
		{"property added under patternProperties", obj(``, `,"patternProperties":{"^x-":{"type":"string"}}`), obj(`"x-a":{"type":"integer"}`, `,"patternProperties":{"^x-":{"type":"string"}}`), compat.Options{},
			[]string{"ADDITIVE both PROPERTY_ADDED_PARTIAL /properties/x-a", "BREAKING reader TYPE_CHANGED /properties/x-a"}},
		{"property removed from open object", obj(`"a":{"type":"string"}`, ``), obj(``, ``), compat.Options{},
			[]string{"ADDITIVE writer PROPERTY_REMOVED_OPEN /properties/a"}},
		{"property removed from open object, strict", obj(`"a":{"type":"string"}`, ``), obj(``, ``), compat.Options{StrictOpen: true},
			[]string{"BREAKING writer PROPERTY_REMOVED_OPEN /properties/a"}},
		{"property removed from closed object", obj(`"a":{"type":"string"}`, `,"additionalProperties":false`), obj(``, `,"additionalProperties":false`), compat.Options{},
			[]string{"BREAKING reader PROPERTY_REMOVED_CLOSED /properties/a"}},
		{"property removed from partial object", obj(`"a":{"type":"string"}`, `,"additionalProperties":{"type":"string"}`), obj(``, `,"additionalProperties":{"type":"string"}`), compat.Options{},
			[]string{"ADDITIVE both PROPERTY_REMOVED_PARTIAL /properties/a"}},
		{"property type narrowed", obj(`"x":{"type":"number"}`, ``), obj(`"x":{"type":"integer"}`, ``), compat.Options{},
			[]string{"BREAKING reader TYPE_NARROWED /properties/x"}},
		{"pointer escaping", obj(`"a/b~":{"type":"number"}`, ``), obj(`"a/b~":{"type":"integer"}`, ``), compat.Options{},
			[]string{"BREAKING reader TYPE_NARROWED /properties/a~1b~0"}},
		{"pattern property added", obj(``, ``), obj(``, `,"patternProperties":{"^x":{"type":"string"}}`), compat.Options{},
			[]string{"BREAKING reader PATTERN_PROPERTY_ADDED /patternProperties/^x"}},
		{"pattern property removed", obj(``, `,"patternProperties":{"^x":{"type":"string"}}`), obj(``, ``), compat.Options{},
			[]string{"BREAKING writer PATTERN_PROPERTY_REMOVED /patternProperties/^x"}},
		{"pattern property added to a closed object only widens", obj(``, `,"additionalProperties":false`), obj(``, `,"additionalProperties":false,"patternProperties":{"^x":{"type":"string"}}`), compat.Options{},
			[]string{"BREAKING writer PATTERN_PROPERTY_ADDED /patternProperties/^x"}},
		{"pattern property added to a closed object, reader", obj(``, `,"additionalProperties":false`), obj(``, `,"additionalProperties":false,"patternProperties":{"^x":{"type":"string"}}`), compat.Options{Direction: "reader"},
			[]string{"ADDITIVE both PATTERN_PROPERTY_ADDED /patternProperties/^x"}},
		{"trivial pattern property added changes nothing", obj(``, ``), obj(``, `,"patternProperties":{"^x":{}}`), compat.Options{},
			[]string{"ADDITIVE both PATTERN_PROPERTY_ADDED /patternProperties/^x"}},
		{"false property removed from a closed object", obj(`"a":false`, `,"additionalProperties":false`), obj(``, `,"additionalProperties":false`), compat.Options{},
			[]string{"ADDITIVE reader PROPERTY_REMOVED_CLOSED /properties/a"}},
		// required
		{"required added", obj(`"a":{}`, ``), obj(`"a":{}`, `,"required":["a"]`), compat.Options{},
			[]string{"BREAKING reader REQUIRED_ADDED /required"}},
		{"required added, writer only", obj(`"a":{}`, ``), obj(`"a":{}`, `,"required":["a"]`), compat.Options{Direction: "writer"},
			[]string{"ADDITIVE reader REQUIRED_ADDED /required"}},
		{"required removed", obj(`"a":{}`, `,"required":["a"]`), obj(`"a":{}`, ``), compat.Options{},
			[]string{"BREAKING writer REQUIRED_REMOVED /required"}},
		{"required added with default", obj(`"a":{"default":1}`, ``), obj(`"a":{"default":1}`, `,"required":["a"]`), compat.Options{},
			[]string{"BREAKING reader REQUIRED_ADDED_WITH_DEFAULT /required"}},
		{"required added with default, option", obj(`"a":{"default":1}`, ``), obj(`"a":{"default":1}`, `,"required":["a"]`), compat.Options{RequiredDefaultAdditive: true},
			[]string{"ADDITIVE reader REQUIRED_ADDED_WITH_DEFAULT /required"}},
		{"dependentRequired added", `{"dependentRequired":{"a":["b"]}}`, `{"dependentRequired":{"a":["b","c"]}}`, compat.Options{},
			[]string{"BREAKING reader DEPENDENT_REQUIRED_ADDED /dependentRequired/a"}},
		{"dependentRequired removed", `{"dependentRequired":{"a":["b"]}}`, `{}`, compat.Options{},
			[]string{"BREAKING writer DEPENDENT_REQUIRED_REMOVED /dependentRequired/a"}},
		// types
		{"type changed", `{"type":"string"}`, `{"type":"integer"}`, compat.Options{}, []string{"BREAKING both TYPE_CHANGED "}},
		{"type widened", `{"type":"integer"}`, `{"type":["integer","string"]}`, compat.Options{}, []string{"BREAKING writer TYPE_WIDENED "}},
		{"integer to number widens", `{"type":"integer"}`, `{"type":"number"}`, compat.Options{}, []string{"BREAKING writer TYPE_WIDENED "}},
		{"type narrowed", `{"type":["integer","string"]}`, `{"type":"string"}`, compat.Options{}, []string{"BREAKING reader TYPE_NARROWED "}},
		{"type added", `{}`, `{"type":"string"}`, compat.Options{}, []string{"BREAKING reader TYPE_NARROWED "}},
		{"type removed", `{"type":"string"}`, `true`, compat.Options{}, []string{"BREAKING writer TYPE_WIDENED "}},
		{"schema became false", `{"type":"string"}`, `false`, compat.Options{}, []string{"BREAKING reader TYPE_NARROWED "}},
		{"schema false opened", `false`, `{"type":"string"}`, compat.Options{}, []string{"BREAKING writer TYPE_WIDENED "}},
		{"nullable added", `{"type":"string"}`, `{"type":["string","null"]}`, compat.Options{}, []string{"BREAKING writer NULLABLE_ADDED "}},
		{"nullable removed", `{"type":["string","null"]}`, `{"type":"string"}`, compat.Options{}, []string{"BREAKING reader NULLABLE_REMOVED "}},
		{"null branch added", `{"anyOf":[{"type":"string"}]}`, `{"anyOf":[{"type":"string"},{"type":"null"}]}`, compat.Options{}, []string{"BREAKING writer NULLABLE_ADDED /anyOf/1"}},
		// enum and const
		{"enum value added", `{"enum":["a"]}`, `{"enum":["a","b"]}`, compat.Options{}, []string{"BREAKING writer ENUM_VALUE_ADDED "}},
		{"enum value added, additive option", `{"enum":["a"]}`, `{"enum":["a","b"]}`, compat.Options{EnumAddedAdditive: true}, []string{"ADDITIVE writer ENUM_VALUE_ADDED "}},
		{"enum value removed", `{"enum":["a","b"]}`, `{"enum":["a"]}`, compat.Options{}, []string{"BREAKING reader ENUM_VALUE_REMOVED "}},
		{"enum reordered", `{"enum":["a","b"]}`, `{"enum":["b","a"]}`, compat.Options{}, nil},
		{"enum added", `{"type":"string"}`, `{"type":"string","enum":["a"]}`, compat.Options{}, []string{"BREAKING reader ENUM_ADDED "}},
		{"enum removed", `{"enum":["a"]}`, `{}`, compat.Options{}, []string{"BREAKING writer ENUM_REMOVED "}},
		{"const to enum", `{"const":"a"}`, `{"enum":["a","b"]}`, compat.Options{}, []string{"BREAKING writer ENUM_VALUE_ADDED "}},
		{"const added", `{}`, `{"const":1}`, compat.Options{}, []string{"BREAKING reader CONST_ADDED "}},
		{"const changed", `{"const":1}`, `{"const":2}`, compat.Options{}, []string{"BREAKING both CONST_CHANGED "}},
		{"const number spelling is not a change", `{"const":1.0}`, `{"const":1}`, compat.Options{}, nil},
		{"const removed", `{"const":1}`, `{}`, compat.Options{}, []string{"BREAKING writer CONST_REMOVED "}},
		{"discriminator changed", obj(`"subtype":{"const":"a"}`, `,"required":["subtype"]`), obj(`"subtype":{"const":"b"}`, `,"required":["subtype"]`), compat.Options{},
			[]string{"BREAKING both DISCRIMINATOR_CHANGED /properties/subtype"}},
		// bounds
		{"maxLength tightened", `{"maxLength":10}`, `{"maxLength":5}`, compat.Options{}, []string{"BREAKING reader BOUND_TIGHTENED "}},
		{"maxLength loosened", `{"maxLength":5}`, `{"maxLength":10}`, compat.Options{}, []string{"BREAKING writer BOUND_LOOSENED "}},
		{"minimum added", `{}`, `{"minimum":0}`, compat.Options{}, []string{"BREAKING reader BOUND_TIGHTENED "}},
		{"exclusiveMaximum removed", `{"exclusiveMaximum":1e3}`, `{}`, compat.Options{}, []string{"BREAKING writer BOUND_LOOSENED "}},
		{"minItems tightened", `{"minItems":0}`, `{"minItems":1}`, compat.Options{}, []string{"BREAKING reader BOUND_TIGHTENED "}},
		{"maxProperties loosened", `{"maxProperties":1}`, `{"maxProperties":2}`, compat.Options{}, []string{"BREAKING writer BOUND_LOOSENED "}},
		{"same bound, other spelling", `{"minimum":1.50}`, `{"minimum":1.5}`, compat.Options{}, nil},
		{"multipleOf tightened", `{"multipleOf":2}`, `{"multipleOf":4}`, compat.Options{}, []string{"BREAKING reader BOUND_TIGHTENED "}},
		{"multipleOf loosened", `{"multipleOf":0.5}`, `{"multipleOf":0.25}`, compat.Options{}, []string{"BREAKING writer BOUND_LOOSENED "}},
		{"multipleOf changed", `{"multipleOf":2}`, `{"multipleOf":3}`, compat.Options{}, []string{"BREAKING both BOUND_CHANGED "}},
		{"uniqueItems set", `{}`, `{"uniqueItems":true}`, compat.Options{}, []string{"BREAKING reader BOUND_TIGHTENED "}},
		// strings
		{"pattern added", `{}`, `{"pattern":"^a"}`, compat.Options{}, []string{"BREAKING reader PATTERN_ADDED "}},
		{"pattern changed", `{"pattern":"^a"}`, `{"pattern":"^b"}`, compat.Options{}, []string{"BREAKING both PATTERN_CHANGED "}},
		{"pattern removed", `{"pattern":"^a"}`, `{}`, compat.Options{}, []string{"BREAKING writer PATTERN_REMOVED "}},
		{"format added", `{}`, `{"format":"uuid"}`, compat.Options{}, []string{"BREAKING reader FORMAT_ADDED "}},
		{"format changed", `{"format":"uuid"}`, `{"format":"date-time"}`, compat.Options{}, []string{"BREAKING both FORMAT_CHANGED "}},
		{"format changed, annotation", `{"format":"uuid"}`, `{"format":"date-time"}`, compat.Options{FormatAnnotation: true}, []string{"ADDITIVE both FORMAT_CHANGED "}},
		{"format removed", `{"format":"uuid"}`, `{}`, compat.Options{}, []string{"BREAKING writer FORMAT_REMOVED "}},
		// additionalProperties / unevaluatedProperties
		{"additionalProperties closed", `{}`, `{"additionalProperties":false}`, compat.Options{}, []string{"BREAKING reader ADDITIONAL_PROPERTIES_CLOSED /additionalProperties"}},
		{"additionalProperties opened", `{"additionalProperties":false}`, `{"additionalProperties":true}`, compat.Options{}, []string{"BREAKING writer ADDITIONAL_PROPERTIES_OPENED /additionalProperties"}},
		{"additionalProperties opened by removal", `{"additionalProperties":false}`, `{}`, compat.Options{}, []string{"BREAKING writer ADDITIONAL_PROPERTIES_OPENED "}},
		{"additionalProperties narrowed", `{}`, `{"additionalProperties":{"type":"string"}}`, compat.Options{}, []string{"BREAKING reader ADDITIONAL_PROPERTIES_NARROWED /additionalProperties"}},
		{"additionalProperties widened", `{"additionalProperties":{"type":"string"}}`, `{"additionalProperties":{}}`, compat.Options{}, []string{"BREAKING writer ADDITIONAL_PROPERTIES_WIDENED /additionalProperties"}},
		{"additionalProperties schema to subschema", `{"additionalProperties":{"type":"string"}}`, `{"additionalProperties":{"type":"string","maxLength":2}}`, compat.Options{}, []string{"BREAKING reader BOUND_TIGHTENED /additionalProperties"}},
		{"unevaluatedProperties closed", `{}`, `{"unevaluatedProperties":false}`, compat.Options{}, []string{"BREAKING reader UNEVALUATED_PROPERTIES_CLOSED /unevaluatedProperties"}},
		{"unevaluatedProperties opened", `{"unevaluatedProperties":false}`, `{}`, compat.Options{}, []string{"BREAKING writer UNEVALUATED_PROPERTIES_OPENED "}},
		// combinators
		{"branch added", `{"oneOf":[{"type":"string"}]}`, `{"oneOf":[{"type":"string"},{"type":"integer"}]}`, compat.Options{}, []string{"BREAKING writer BRANCH_ADDED /oneOf/1"}},
		{"branch removed", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `{"anyOf":[{"type":"integer"}]}`, compat.Options{}, []string{"BREAKING reader BRANCH_REMOVED /anyOf/0"}},
		{"branches reordered", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `{"anyOf":[{"type":"integer"},{"type":"string"}]}`, compat.Options{}, nil},
		{"branch matched by discriminator", `{"oneOf":[{"properties":{"t":{"const":"a"}}},{"properties":{"t":{"const":"b"},"x":{"type":"string"}}}]}`,
			`{"oneOf":[{"properties":{"t":{"const":"b"},"x":{"type":"integer"}}},{"properties":{"t":{"const":"a"}}},{"properties":{"t":{"const":"c"}}}]}`, compat.Options{},
			[]string{"BREAKING reader ONEOF_OVERLAP /oneOf", "BREAKING both TYPE_CHANGED /oneOf/0/properties/x", "BREAKING writer BRANCH_ADDED /oneOf/2"}},
		{"single-branch combinator changed means nothing", `{"anyOf":[{"type":"string"}]}`, `{"oneOf":[{"type":"string"}]}`, compat.Options{}, []string{"ADDITIVE both COMBINATOR_CHANGED /oneOf"}},
		{"combinator changed", `{"anyOf":[{"type":"string"},{"maxLength":3}]}`, `{"oneOf":[{"type":"string"},{"maxLength":3}]}`, compat.Options{}, []string{"BREAKING reader COMBINATOR_CHANGED /oneOf"}},
		{"conjunct added", `{"allOf":[{"type":"object"}]}`, `{"allOf":[{"type":"object"},{"required":["a"]}]}`, compat.Options{}, []string{"BREAKING reader CONJUNCT_ADDED /allOf/1"}},
		{"conditional added in allOf", `{"allOf":[{"required":["z"]}]}`, `{"allOf":[{"required":["z"]},{"if":{"required":["a"]},"then":{"required":["b"]}}]}`, compat.Options{}, []string{"BREAKING reader CONDITIONAL_ADDED /allOf/1"}},
		{"conditional added", `{}`, `{"if":{"required":["a"]},"then":{"required":["b"]}}`, compat.Options{}, []string{"BREAKING reader CONDITIONAL_ADDED "}},
		{"conditional removed", `{"if":{"required":["a"]},"then":{"required":["b"]}}`, `{}`, compat.Options{}, []string{"BREAKING writer CONDITIONAL_REMOVED "}},
		{"conditional changed", `{"if":{"required":["a"]},"then":{"required":["b"]}}`, `{"if":{"required":["c"]},"then":{"required":["b"]}}`, compat.Options{}, []string{"BREAKING both CONDITIONAL_CHANGED /if"}},
		{"conditional then compared", `{"if":{"required":["a"]},"then":{"required":["b"]}}`, `{"if":{"required":["a"]},"then":{"required":["b","c"]}}`, compat.Options{}, []string{"BREAKING reader REQUIRED_ADDED /then/required"}},
		{"other keyword changed", `{"not":{"type":"string"}}`, `{"not":{"type":"integer"}}`, compat.Options{}, []string{"BREAKING both KEYWORD_CHANGED /not"}},
		// arrays
		{"items narrowed", `{"items":{"type":"number"}}`, `{"items":{"type":"integer"}}`, compat.Options{}, []string{"BREAKING reader TYPE_NARROWED /items"}},
		{"prefixItems added", `{"prefixItems":[{"type":"string"}]}`, `{"prefixItems":[{"type":"string"},{"type":"integer"}]}`, compat.Options{}, []string{"BREAKING reader TYPE_NARROWED /prefixItems/1"}},
		// definitions and refs
		{"definition added", `{"$defs":{"A":{}}}`, `{"$defs":{"A":{},"B":{}}}`, compat.Options{}, []string{"ADDITIVE both DEFINITION_ADDED /$defs/B"}},
		{"definition removed", `{"$defs":{"A":{},"B":{}}}`, `{"$defs":{"A":{}}}`, compat.Options{}, []string{"BREAKING both DEFINITION_REMOVED /$defs/B"}},
		{"definition changed through a ref", `{"$ref":"#/$defs/A","$defs":{"A":{"type":"string"}}}`, `{"$ref":"#/$defs/A","$defs":{"A":{"type":"integer"}}}`, compat.Options{},
			[]string{"BREAKING both TYPE_CHANGED /$defs/A"}},
		{"ref retargeted to an identical schema", `{"properties":{"x":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"},"B":{"type":"string","description":"same"}}}`,
			`{"properties":{"x":{"$ref":"#/$defs/B"}},"$defs":{"A":{"type":"string"},"B":{"type":"string"}}}`, compat.Options{}, nil},
		{"ref retargeted to another schema", `{"properties":{"x":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"},"B":{"type":"integer"}}}`,
			`{"properties":{"x":{"$ref":"#/$defs/B"}},"$defs":{"A":{"type":"string"},"B":{"type":"integer"}}}`, compat.Options{},
			[]string{"BREAKING both TYPE_CHANGED /$defs/B", "ADDITIVE both REF_RETARGETED /properties/x"}},
		{"inline schema moved to a definition", `{"properties":{"x":{"type":"string"}}}`, `{"properties":{"x":{"$ref":"#/$defs/X"}},"$defs":{"X":{"type":"string"}}}`, compat.Options{},
			[]string{"ADDITIVE both DEFINITION_ADDED /$defs/X"}},
		{"ref beside other keywords added", `{"type":"object"}`, `{"type":"object","$ref":"#/$defs/A","$defs":{"A":{}}}`, compat.Options{},
			[]string{"ADDITIVE reader CONJUNCT_ADDED ", "ADDITIVE both DEFINITION_ADDED /$defs/A"}},
		{"constraining ref beside other keywords added", `{"type":"object"}`, `{"type":"object","$ref":"#/$defs/A","$defs":{"A":{"required":["a"]}}}`, compat.Options{},
			[]string{"BREAKING reader CONJUNCT_ADDED ", "ADDITIVE both DEFINITION_ADDED /$defs/A"}},
		{"recursive schema terminates", `{"$defs":{"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N"},"v":{"type":"string"}}}},"$ref":"#/$defs/N"}`,
			`{"$defs":{"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N"},"v":{"type":"integer"}}}},"$ref":"#/$defs/N"}`, compat.Options{},
			[]string{"BREAKING both TYPE_CHANGED /$defs/N/properties/v"}},
		{"mutually recursive refs terminate", `{"$defs":{"A":{"properties":{"b":{"$ref":"#/$defs/B"}}},"B":{"properties":{"a":{"$ref":"#/$defs/A"}}}},"$ref":"#/$defs/A"}`,
			`{"$defs":{"A":{"properties":{"b":{"$ref":"#/$defs/B"}}},"B":{"properties":{"a":{"$ref":"#/$defs/A"}},"required":["a"]}},"$ref":"#/$defs/A"}`, compat.Options{},
			[]string{"BREAKING reader REQUIRED_ADDED /$defs/B/required"}},
		{"annotations ignored", `{"title":"a","x-note":1,"examples":[1]}`, `{"title":"b","deprecated":true}`, compat.Options{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			old := parse(t, tc.old)
			nw := parse(t, tc.new)
			rep, err := compat.Compare(context.Background(), old, nw, tc.opt)
			if err != nil {
				t.Fatalf("Compare: %v", err)
			}
			want := tc.want
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, brief(rep.Findings)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\nall: %+v", diff, rep.Findings)
			}
		})
	}
}

func TestCompareErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		old, new string
		opt      compat.Options
		code     kiterr.Code
	}{
		{"remote ref in new", `{}`, `{"$ref":"https://example.com/s.json"}`, compat.Options{}, kiterr.SchemaRefRemote},
		{"relative file ref in old", `{"properties":{"a":{"$ref":"other.json#/x"}}}`, `{}`, compat.Options{}, kiterr.SchemaRefRemote},
		{"dangling ref", `{"$ref":"#/$defs/Nope"}`, `{}`, compat.Options{}, kiterr.SchemaInvalid},
		{"anchor ref", `{"$ref":"#node"}`, `{}`, compat.Options{}, kiterr.SchemaInvalid},
		{"ref-only cycle", `{"$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}},"$ref":"#/$defs/A"}`, `{}`, compat.Options{}, kiterr.SchemaInvalid},
		{"non-string ref", `{"$ref":1}`, `{}`, compat.Options{}, kiterr.SchemaInvalid},
		{"root not a schema", `[]`, `{}`, compat.Options{}, kiterr.SchemaInvalid},
		{"bad direction", `{}`, `{}`, compat.Options{Direction: "sideways"}, kiterr.Usage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := compat.Compare(context.Background(), parse(t, tc.old), parse(t, tc.new), tc.opt)
			if got := kiterr.CodeOf(err); got != tc.code {
				t.Fatalf("Compare error = %v (code %q), want code %q", err, got, tc.code)
			}
		})
	}
}

func TestCompareCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := compat.Compare(ctx, parse(t, `{}`), parse(t, `{}`), compat.Options{})
	if kiterr.CodeOf(err) != kiterr.Interrupted || !errors.Is(err, context.Canceled) {
		t.Fatalf("Compare on a cancelled context = %v, want INTERRUPTED wrapping context.Canceled", err)
	}
}

func TestCompareMessagesAndOrder(t *testing.T) {
	t.Parallel()
	old := parse(t, `{"type":"object","properties":{"b":{"type":"string"},"a":{"enum":["x"]}},"required":["b"],"additionalProperties":false}`)
	nw := parse(t, `{"type":"object","properties":{"a":{"enum":["x","y"]},"c":{}},"required":["c"],"additionalProperties":false}`)
	want := []compat.Finding{
		{Rule: "ENUM_VALUE_ADDED", Pointer: "/properties/a", In: "new", Direction: "writer", Verdict: "BREAKING", Message: `enum value "y" was added`, Evidence: "witness", Severity: "error"},
		{Rule: "PROPERTY_REMOVED_CLOSED", Pointer: "/properties/b", In: "old", Direction: "reader", Verdict: "BREAKING", Message: `property "b" was removed from a closed object`, Evidence: "witness", Severity: "error"},
		{Rule: "PROPERTY_ADDED_CLOSED", Pointer: "/properties/c", In: "new", Direction: "writer", Verdict: "BREAKING", Message: `property "c" was added to a closed object`, Evidence: "witness", Severity: "error"},
		{Rule: "REQUIRED_ADDED", Pointer: "/required", In: "new", Direction: "reader", Verdict: "BREAKING", Message: `property "c" became required`, Evidence: "witness", Severity: "error"},
		{Rule: "REQUIRED_REMOVED", Pointer: "/required", In: "old", Direction: "writer", Verdict: "BREAKING", Message: `property "b" is no longer required`, Evidence: "witness", Severity: "error"},
	}
	for range 5 {
		rep, err := compat.Compare(context.Background(), old, nw, compat.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, rep.Findings, noWitness); diff != "" {
			t.Fatalf("findings (-want +got):\n%s", diff)
		}
		checkWitnesses(t, rep)
		if rep.Breaking != 5 || rep.Additive != 0 {
			t.Fatalf("Breaking, Additive = %d, %d, want 5, 0", rep.Breaking, rep.Additive)
		}
	}
}

// controlSchema reads schemas/control.v1.json of the repository.
func controlSchema(t *testing.T) ([]byte, any) {
	t.Helper()
	data, err := os.ReadFile("../../schemas/control.v1.json")
	if err != nil {
		t.Fatalf("read control schema: %v", err)
	}
	return data, parse(t, string(data))
}

func TestCompareControlSchema(t *testing.T) {
	t.Parallel()
	data, old := controlSchema(t)
	rep, err := compat.Compare(context.Background(), old, parse(t, string(data)), compat.Options{})
	if err != nil {
		t.Fatalf("Compare(control.v1, itself): %v", err)
	}
	if len(rep.Findings) != 0 {
		t.Fatalf("Compare(control.v1, itself) = %+v, want no findings", rep.Findings)
	}

	mutated := parse(t, string(data)).(map[string]any)
	defs := mutated["$defs"].(map[string]any)
	defs["RequestId"].(map[string]any)["type"] = "integer"
	rep, err = compat.Compare(context.Background(), old, mutated, compat.Options{})
	if err != nil {
		t.Fatalf("Compare(control.v1, mutated): %v", err)
	}
	want := []compat.Finding{{Rule: "TYPE_CHANGED", Pointer: "/$defs/RequestId", In: "new", Direction: "both", Verdict: "BREAKING", Message: `type changed from "string" to "integer"`, Evidence: "witness", Severity: "error"}}
	if diff := cmp.Diff(want, rep.Findings, noWitness); diff != "" {
		t.Fatalf("findings (-want +got):\n%s", diff)
	}

	// Removing a definition that ReplyBySubtype points at breaks by pointer.
	removed := parse(t, string(data)).(map[string]any)
	delete(removed["$defs"].(map[string]any), "SideQuestionResponseBody")
	if _, err := compat.Compare(context.Background(), old, removed, compat.Options{}); kiterr.CodeOf(err) != kiterr.SchemaInvalid {
		t.Fatalf("Compare with a dangling $ref: %v, want SCHEMA_INVALID", err)
	}
}

func TestRules(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range compat.Rules() {
		if seen[r.ID] {
			t.Errorf("rule %s registered twice", r.ID)
		}
		seen[r.ID] = true
		if r.ID != strings.ToUpper(r.ID) || strings.ContainsAny(r.ID, " -") || !strings.Contains(r.ID, "_") {
			t.Errorf("rule id %q is not UPPER_SNAKE <SUBJECT>_<INVARIANT>", r.ID)
		}
		if !strings.HasPrefix(r.Purpose, "Checks that ") || !strings.HasSuffix(r.Purpose, ".") {
			t.Errorf("rule %s: purpose %q does not read \"Checks that ....\"", r.ID, r.Purpose)
		}
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile("../../docs/compat.md")
	if err != nil {
		t.Fatal(err)
	}
	for id := range seen {
		if !strings.Contains(string(doc), id) {
			t.Errorf("rule %s is not documented in doc.go", id)
		}
		if !strings.Contains(string(md), "`"+id+"`") {
			t.Errorf("rule %s is not in docs/compat.md", id)
		}
	}
}

func TestFindingJSON(t *testing.T) {
	t.Parallel()
	rep, err := compat.Compare(context.Background(), parse(t, `{}`), parse(t, `{}`), compat.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"findings":[],"breaking":0,"additive":0,"checks":[` +
		`{"direction":"reader","holds":true,"evidence":"proof","proof":"proved: the new schema at # accepts every instance the old schema at # accepts"},` +
		`{"direction":"writer","holds":true,"evidence":"proof","proof":"proved: the old schema at # accepts every instance the new schema at # accepts"}],` +
		`"drafts":["2020-12","2020-12"]}`
	if got := string(b); got != want {
		t.Errorf("json = %s, want %s", got, want)
	}
}
