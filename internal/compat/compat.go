package compat

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/conform-kit/conform/internal/kiterr"
)

// Directions accepted by [Options].Direction and written in [Finding].Direction.
const (
	DirectionReader = "reader"
	DirectionWriter = "writer"
	DirectionBoth   = "both"
)

// Verdicts written in [Finding].Verdict.
const (
	VerdictAdditive = "ADDITIVE"
	VerdictBreaking = "BREAKING"
)

// Options tune [Compare]. The zero value is the documented default.
type Options struct {
	// Direction is the compatibility that must hold: "reader" (the new schema
	// reads every old message), "writer" (old consumers read every new
	// message) or "both". "" means "both". A finding whose rule breaks only
	// the other direction gets the verdict ADDITIVE.
	Direction string
	// StrictOpen makes PROPERTY_ADDED_OPEN and PROPERTY_REMOVED_OPEN BREAKING
	// when the property's schema constrains the value. Default false: they
	// are ADDITIVE (nobody is expected to send an undocumented member).
	StrictOpen bool
	// EnumAddedAdditive makes ENUM_VALUE_ADDED ADDITIVE. Default false: it is
	// BREAKING for writers, because readers with closed enums (generated
	// code, the old schema itself) reject the new value.
	EnumAddedAdditive bool
	// FormatAnnotation treats format as an annotation (the draft 2020-12
	// default vocabulary) and makes FORMAT_* findings ADDITIVE. Default
	// false: conform's validator asserts formats (internal/schema), so a
	// format change is BREAKING in the direction it narrows or widens.
	FormatAnnotation bool
	// RequiredDefaultAdditive makes REQUIRED_ADDED_WITH_DEFAULT ADDITIVE, for
	// readers that fill defaults before they validate. Default false:
	// default is an annotation and a validating reader rejects old messages.
	RequiredDefaultAdditive bool
}

// Finding is one difference between two schemas. Findings are data, never
// errors.
type Finding struct {
	// Rule is the stable id of the [Rule] that produced the finding.
	Rule string `json:"rule"`
	// Pointer is a JSON Pointer (RFC 6901) into the new schema, or into the
	// old one when the subject was removed; "" is the root. Below a local
	// $ref it is the location of the resolved target.
	Pointer string `json:"pointer"`
	// Direction is the rule's [Breaks] set as "reader", "writer" or "both"
	// ("both" also for rules that break no one).
	Direction string `json:"direction"`
	// Verdict is "BREAKING" when the rule breaks a direction selected by
	// [Options].Direction and no option lowers it, else "ADDITIVE".
	Verdict string `json:"verdict"`
	// Message says what changed, in the past tense, names quoted.
	Message string `json:"message"`
}

// Report is the result of [Compare].
type Report struct {
	// Findings are sorted by Pointer, then Rule, then Message; never nil.
	Findings []Finding `json:"findings"`
	// Breaking counts findings with the verdict BREAKING.
	Breaking int `json:"breaking"`
	// Additive counts findings with the verdict ADDITIVE.
	Additive int `json:"additive"`
}

// Compare classifies the changes from the JSON Schema old to new (draft
// 2020-12 documents decoded by canon.Parse or encoding/json: nil, bool,
// string, json.Number or float64, []any, map[string]any).
//
// Local $ref ("#" or "#/..." JSON Pointers, URI-escaped) are resolved inside
// each document, offline; each pair of locations is compared once, so
// recursive schemas terminate and a definition referenced from many places is
// reported once, at its own pointer. The output is deterministic.
//
// Errors (kit failures, not findings): SCHEMA_REF_REMOTE for a $ref to any
// other URL; SCHEMA_INVALID for a root that is not an object or boolean, a
// $ref that is not a string or does not resolve, a $ref cycle with no schema
// in between, or an anchor reference; USAGE for an unknown Direction;
// INTERRUPTED when ctx is done.
func Compare(ctx context.Context, old, new any, opt Options) (Report, error) {
	var filter Breaks
	switch opt.Direction {
	case DirectionReader:
		filter = BreaksReader
	case DirectionWriter:
		filter = BreaksWriter
	case DirectionBoth, "":
		filter = BreaksBoth
	default:
		return Report{}, kiterr.New(kiterr.Usage, "direction %q: want reader, writer or both", opt.Direction)
	}
	od, err := newDoc("old", old)
	if err != nil {
		return Report{}, err
	}
	nd, err := newDoc("new", new)
	if err != nil {
		return Report{}, err
	}
	rules := make(map[string]Rule)
	for _, r := range Rules() {
		rules[r.ID] = r
	}
	c := &comparer{
		ctx:    ctx,
		opt:    opt,
		filter: filter,
		rules:  rules,
		old:    od,
		new:    nd,
		seen:   make(map[string]bool),
	}
	c.schema(old, "", new, "", false)
	if c.err != nil {
		return Report{}, c.err
	}
	rep := Report{Findings: c.findings}
	if rep.Findings == nil {
		rep.Findings = []Finding{}
	}
	slices.SortFunc(rep.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Pointer, b.Pointer), cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Message, b.Message), cmp.Compare(a.Direction, b.Direction))
	})
	rep.Findings = slices.Compact(rep.Findings)
	for _, f := range rep.Findings {
		if f.Verdict == VerdictBreaking {
			rep.Breaking++
		} else {
			rep.Additive++
		}
	}
	return rep, nil
}

// add records a finding of rule at ptr. soft lowers the verdict to ADDITIVE
// (an option or the change's shape makes it harmless).
func (c *comparer) add(rule, ptr string, soft bool, format string, args ...any) {
	r, ok := c.rules[rule]
	if !ok {
		panic("compat: unregistered rule " + rule)
	}
	verdict := VerdictAdditive
	if !soft && r.Breaks&c.filter != 0 {
		verdict = VerdictBreaking
	}
	c.findings = append(c.findings, Finding{
		Rule:      rule,
		Pointer:   ptr,
		Direction: r.Breaks.String(),
		Verdict:   verdict,
		Message:   fmt.Sprintf(format, args...),
	})
}
