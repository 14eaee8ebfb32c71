package schema

import (
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/message"

	"github.com/conform-kit/conform/internal/canon"
)

// collect turns a validation error tree into leaf violations, reporting a
// oneOf or anyOf by the branches its discriminator selects: a branch whose
// errors include a failed const or enum on a discriminator member (one of
// discriminators, which the suite's envelope names) is
// one the instance does not even claim to be, so its
// other errors are noise. The selected branches' leaves are reported, and
// the deselected ones as one grouped violation. When no branch is selected,
// the one violation says which discriminator values the branches want.
func collect(ve *jsonschema.ValidationError, p *message.Printer, discriminators []string) []Violation {
	d := disc(discriminators)
	var out []Violation
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, leaf(e, p))
			return
		}
		switch e.ErrorKind.(type) {
		case *kind.OneOf, *kind.AnyOf:
			var selected, other []*jsonschema.ValidationError
			for _, c := range e.Causes {
				if d.deselected(c) {
					other = append(other, c)
				} else {
					selected = append(selected, c)
				}
			}
			if len(other) == 0 {
				break // no discriminator decides: every branch is reported
			}
			for _, c := range selected {
				walk(c)
			}
			out = append(out, d.grouped(e, other, len(selected) == 0))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

func instance(e *jsonschema.ValidationError) string {
	var b strings.Builder
	for _, tok := range e.InstanceLocation {
		b.WriteString("/" + canon.EscapePointer(tok))
	}
	return b.String()
}

func keyword(e *jsonschema.ValidationError) string {
	kw, ok := strings.CutPrefix(e.SchemaURL, BaseURL)
	if !ok {
		kw = strings.TrimPrefix(e.SchemaURL, checkedBaseURL)
	}
	for _, tok := range e.ErrorKind.KeywordPath() {
		kw += "/" + canon.EscapePointer(tok)
	}
	return kw
}

// leaf is one violation. The library lists the member names of an
// additionalProperties failure in the order it iterates the instance's
// map (v6.0.3 validator.go), which differs from run to run; they are
// sorted here so that a report on the same frame is the same text.
func leaf(e *jsonschema.ValidationError, p *message.Printer) Violation {
	if k, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
		slices.Sort(k.Properties)
	}
	return Violation{Instance: instance(e), Keyword: keyword(e), Message: e.ErrorKind.LocalizedString(p)}
}

// disc is the discriminator member names of one validation.
type disc []string

// discriminatorLeaf reports whether e is a failed const or enum on a
// discriminator member.
func (d disc) discriminatorLeaf(e *jsonschema.ValidationError) bool {
	n := len(e.InstanceLocation)
	if n == 0 || !slices.Contains(d, e.InstanceLocation[n-1]) {
		return false
	}
	switch e.ErrorKind.(type) {
	case *kind.Const, *kind.Enum:
		return true
	}
	return false
}

// deselected reports whether a branch failed on a discriminator.
func (d disc) deselected(branch *jsonschema.ValidationError) bool {
	if d.discriminatorLeaf(branch) {
		return true
	}
	for _, c := range branch.Causes {
		if d.deselected(c) {
			return true
		}
	}
	return false
}

// grouped is one violation standing for the branches other. With none
// selected, it names the discriminator values the branches want.
func (d disc) grouped(e *jsonschema.ValidationError, other []*jsonschema.ValidationError, none bool) Violation {
	if !none {
		return Violation{Instance: instance(e), Keyword: keyword(e), group: true,
			Message: fmt.Sprintf("%d other branch(es) do not apply: their %s differs (not listed)", len(other), strings.Join(d, ", "))}
	}
	wants := map[string][]string{}
	var members []string
	for _, c := range other {
		var find func(x *jsonschema.ValidationError)
		find = func(x *jsonschema.ValidationError) {
			if d.discriminatorLeaf(x) {
				ptr := instance(x)
				if _, ok := wants[ptr]; !ok {
					members = append(members, ptr)
				}
				switch k := x.ErrorKind.(type) {
				case *kind.Const:
					wants[ptr] = appendJSON(wants[ptr], k.Want)
				case *kind.Enum:
					for _, w := range k.Want {
						wants[ptr] = appendJSON(wants[ptr], w)
					}
				}
				return
			}
			for _, y := range x.Causes {
				find(y)
			}
		}
		find(c)
	}
	var parts []string
	for _, m := range members {
		parts = append(parts, fmt.Sprintf("%s must be one of %s", m, strings.Join(wants[m], ", ")))
	}
	return Violation{Instance: instance(e), Keyword: keyword(e),
		Message: fmt.Sprintf("no branch applies: %s", strings.Join(parts, "; "))}
}

func appendJSON(list []string, v any) []string {
	b, err := canon.Canonical(v)
	if err != nil {
		b = []byte(fmt.Sprint(v))
	}
	if !slices.Contains(list, string(b)) {
		list = append(list, string(b))
	}
	return list
}
