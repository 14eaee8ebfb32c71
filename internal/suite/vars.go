package suite

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/kiterr"
)

// Var is one variable a suite declares (suite.json "vars"): a value the
// implementation's profile may set (profile.json "vars", conform run
// --var NAME=JSON), Default when it sets none. Vectors use it as
// ${var:NAME} in their frames, peer replies, args and env
// (docs/suite-format.md "Vars").
type Var struct {
	// Default is the JSON value used when nothing sets the var (any JSON
	// type; as decoded, numbers are json.Number).
	Default     any    `json:"default"`
	Description string `json:"description,omitempty"`
}

// The placeholders of vector strings.
const (
	// WorkPlaceholder is replaced by the IUT's working directory (an
	// absolute path) in frame strings, peer replies, args and env.
	WorkPlaceholder = "${work}"
	varPrefix       = "${var:"
)

// ResolveVars returns the value of every var the suite declares: the
// value in set when it has one, else the declared default. Errors:
// VECTOR_VAR_UNKNOWN for a name in set the suite does not declare (a
// profile's or --var's typo never silently leaves the default).
func (s *Suite) ResolveVars(set map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(s.Manifest.Vars))
	for k, d := range s.Manifest.Vars {
		out[k] = d.Default
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if _, ok := s.Manifest.Vars[k]; !ok {
			return nil, kiterr.New(kiterr.VectorVarUnknown, "var %q is not declared by suite %q (%s)", k, s.Manifest.Name, declared(s.Manifest.Vars))
		}
		out[k] = set[k]
	}
	return out, nil
}

// declared says which vars decl holds, for messages.
func declared(decl map[string]Var) string {
	if len(decl) == 0 {
		return "its suite.json declares no vars"
	}
	return "it declares " + strings.Join(slices.Sorted(maps.Keys(decl)), ", ")
}

// VarRefs returns the names of the ${var:NAME} placeholders in s, in
// order (a name without its closing brace runs to the end of s).
func VarRefs(s string) []string {
	var out []string
	for {
		i := strings.Index(s, varPrefix)
		if i < 0 {
			return out
		}
		s = s[i+len(varPrefix):]
		j := strings.IndexByte(s, '}')
		if j < 0 {
			return append(out, s)
		}
		out = append(out, s[:j])
		s = s[j+1:]
	}
}

// ValueVarRefs returns the names of the ${var:NAME} placeholders in the
// strings of the JSON value v (members' values and array elements, never
// member names), in document order with object members by name.
func ValueVarRefs(v any) []string {
	var out []string
	walkStrings(v, func(s string) { out = append(out, VarRefs(s)...) })
	return out
}

// HasWork reports whether a string of the JSON value v holds ${work}.
func HasWork(v any) bool {
	found := false
	walkStrings(v, func(s string) { found = found || strings.Contains(s, WorkPlaceholder) })
	return found
}

func walkStrings(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case []any:
		for _, e := range x {
			walkStrings(e, f)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			walkStrings(x[k], f)
		}
	}
}

// checkVarRefs checks that every ${var:NAME} the vector's frames, peer
// replies, args and env name is declared by the suite. Errors:
// VECTOR_VAR_UNKNOWN.
func (v *Vector) checkVarRefs(ver *Version) error {
	check := func(where string, names []string) error {
		for _, n := range names {
			if !ver.vars[n] {
				return kiterr.New(kiterr.VectorVarUnknown, "%s: %s: ${var:%s} names a var suite.json does not declare (declared: %s)", v.Path, where, n, strings.Join(slices.Sorted(maps.Keys(ver.vars)), ", "))
			}
		}
		return nil
	}
	for i, it := range v.Send {
		if err := check(fmt.Sprintf("send[%d]", i), ValueVarRefs(it.Frame)); err != nil {
			return err
		}
	}
	for i, p := range v.Peer {
		if err := check(fmt.Sprintf("peer[%d].reply", i), ValueVarRefs(p.Reply)); err != nil {
			return err
		}
	}
	for i, a := range v.Args {
		if err := check(fmt.Sprintf("args[%d]", i), VarRefs(a)); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(v.Env)) {
		if err := check("env "+k, VarRefs(v.Env[k])); err != nil {
			return err
		}
	}
	return nil
}

// ExpandValue returns a copy of the JSON value v with its ${var:NAME}
// placeholders replaced from vars (as [Suite.ResolveVars] returns them),
// and, when work is not "", ${work} replaced by work. A string that is
// exactly "${var:NAME}" becomes the var's value, of any JSON type; in a
// longer string, ${var:NAME} is replaced by the var's text, which only a
// string var has. ${work} inside a var's value is expanded too, so a
// default "file://${work}/doc.txt" names the IUT's own directory. Member
// names are never expanded; v is not modified (a value without "${" is
// returned as it is, any other is copied). Errors: VECTOR_VAR_UNKNOWN (a
// name vars lacks), VECTOR_INVALID (a var that is not a string inside a
// longer string).
func ExpandValue(v any, vars map[string]any, work string) (any, error) {
	if !hasPlaceholder(v) {
		return v, nil
	}
	return expandValue(v, vars, work)
}

// hasPlaceholder reports whether a string of v holds "${".
func hasPlaceholder(v any) bool {
	found := false
	walkStrings(v, func(s string) { found = found || strings.Contains(s, "${") })
	return found
}

func expandValue(v any, vars map[string]any, work string) (any, error) {
	switch x := v.(type) {
	case string:
		return expandString(x, vars, work, true)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := expandValue(e, vars, work)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			n, err := expandValue(e, vars, work)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	}
	return v, nil
}

// ExpandString is [ExpandValue] for an argument or environment value: a
// var of any type is replaced by its text (a string's own text, else its
// RFC 8785 form). Errors: VECTOR_VAR_UNKNOWN.
func ExpandString(s string, vars map[string]any, work string) (string, error) {
	out, err := expandString(s, vars, work, false)
	if err != nil {
		return "", err
	}
	if str, ok := out.(string); ok {
		return str, nil
	}
	b, err := canon.Canonical(out)
	if err != nil {
		return "", kiterr.Wrap(kiterr.VectorInvalid, err, "expand %q", s)
	}
	return string(b), nil
}

func expandString(s string, vars map[string]any, work string, typed bool) (any, error) {
	if !strings.Contains(s, varPrefix) {
		return expandWork(s, work), nil
	}
	if strings.HasPrefix(s, varPrefix) && strings.IndexByte(s, '}') == len(s)-1 {
		name := s[len(varPrefix) : len(s)-1]
		val, ok := vars[name]
		if !ok {
			return nil, kiterr.New(kiterr.VectorVarUnknown, "${var:%s}: no such var", name)
		}
		if str, isStr := val.(string); isStr {
			return expandWork(str, work), nil
		}
		if typed {
			// Strings inside an object or array var may hold ${work}.
			return ExpandValue(val, nil, work)
		}
		return val, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, varPrefix)
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		rest := s[i+len(varPrefix):]
		j := strings.IndexByte(rest, '}')
		if j < 0 {
			return nil, kiterr.New(kiterr.VectorInvalid, "%q: ${var: without its closing brace", s)
		}
		name := rest[:j]
		val, ok := vars[name]
		if !ok {
			return nil, kiterr.New(kiterr.VectorVarUnknown, "${var:%s}: no such var", name)
		}
		str, isStr := val.(string)
		if !isStr {
			if typed {
				return nil, kiterr.New(kiterr.VectorInvalid, "${var:%s} is inside a longer string, where only a string var may be (its value is %s)", name, describe(val))
			}
			c, err := canon.Canonical(val)
			if err != nil {
				return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "${var:%s}", name)
			}
			str = string(c)
		}
		b.WriteString(str)
		s = rest[j+1:]
	}
	return expandWork(b.String(), work), nil
}

func expandWork(s, work string) string {
	if work == "" || !strings.Contains(s, WorkPlaceholder) {
		return s
	}
	return strings.ReplaceAll(s, WorkPlaceholder, work)
}

// describe names a JSON value's type for messages.
func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case string:
		return "a string"
	}
	return "a number"
}
