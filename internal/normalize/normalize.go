// Package normalize applies declarative normalizers to control frames: every
// value whose JSON Pointer matches a rule's path must satisfy the rule's
// format and is then replaced by the rule's placeholder. A value that fails
// its format is reported as a [Mismatch] and left as it was, never silently
// replaced (seed 004: "asserted by format ... and then normalized").
//
// Paths are doublestar patterns (github.com/bmatcuk/doublestar/v4) over JSON
// Pointer reference tokens (RFC 6901): "**/uuid" matches a "uuid" member at any
// depth, "/response/response/buildTime" one exact location. The leading "/"
// is optional. Tokens are matched in their escaped RFC 6901 form.
package normalize

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/envelope"
	"github.com/conform-kit/conform/internal/kiterr"
)

// Spec is a normalizer as written in suite.json or a vector file: with
// Format (and Placeholder), a matching value that satisfies Format is
// replaced; with Drop, a matching member is removed (after its Format is
// checked, when one is given); with Keep, a matching value must be an
// object and only the named members are kept (and normalized further).
type Spec struct {
	Path   string `json:"path"`
	Format string `json:"format,omitempty"`
	// Drop removes the member.
	Drop bool `json:"drop,omitempty"`
	// Keep lists the members an object keeps.
	Keep []string `json:"keep,omitempty"`
	// Default, when set, drops a value equal to it (RFC 8785 forms) as if
	// it were absent (a member whose absence means the default, such as
	// isError false); any other value is kept and normalized further.
	Default json.RawMessage `json:"default,omitempty"`
	// When limits the rule to frames for which every predicate holds (the
	// IUT's own requests, say).
	When []envelope.Predicate `json:"when,omitempty"`
	// Placeholder is the replacement (any JSON value, null included);
	// absent means the string "<" + Format + ">".
	Placeholder json.RawMessage `json:"placeholder,omitempty"`
	Reason      string          `json:"reason,omitempty"`
}

// Rule is a compiled [Spec].
type Rule struct {
	Spec
	pattern     string
	check       func(v any) bool
	placeholder any
	keep        map[string]bool
	// def is the RFC 8785 form of Default ("" when unset); when the
	// compiled When.
	def  string
	when envelope.Match
}

// The patterns are compiled on first use: compiled in the package's
// initialisation they cost every conform process 0.4 ms, a few percent of
// a one-vector run (bench/README.md, issue 25 item 2).
var (
	uuidRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	})
	integerRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`) })
	// dateTimeRE is RFC 3339 §5.6 date-time; "T" and "Z" may be lower case
	// (§5.6 NOTE).
	dateTimeRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$`)
	})
	semverRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)
	})
)

// Compile checks and compiles specs in order. Errors: NORMALIZER_INVALID
// (a bad doublestar pattern, an unknown format, a regex that does not compile).
// Formats: rfc3339 (RFC 3339 §5.6 date-time), uuid (RFC 9562 text form, any
// case), semver (SemVer 2.0.0), integer (a JSON number without fraction or
// exponent), string, any-array, any-object, any, prefix:<text> (a string
// starting with text), regex:<RE2> (a string the pattern matches in full).
func Compile(specs []Spec) ([]Rule, error) {
	rules := make([]Rule, 0, len(specs))
	for i, s := range specs {
		r := Rule{Spec: s, pattern: strings.TrimPrefix(s.Path, "/")}
		if r.pattern == "" || !doublestar.ValidatePattern(r.pattern) {
			return nil, kiterr.New(kiterr.NormalizerInvalid, "normalizer %d: invalid path pattern %q", i, s.Path)
		}
		if s.Default != nil {
			if s.Drop || s.Keep != nil || len(s.Placeholder) > 0 || s.Format != "" {
				return nil, kiterr.New(kiterr.NormalizerInvalid, "normalizer %d (%s): default stands alone (no format, placeholder, drop or keep)", i, s.Path)
			}
			d, err := canon.CanonicalBytes(s.Default)
			if err != nil {
				return nil, kiterr.Wrap(kiterr.NormalizerInvalid, err, "normalizer %d (%s): default", i, s.Path)
			}
			r.def = string(d)
			s.Format = "any"
		}
		if s.When != nil {
			m, err := envelope.CompileMatch(s.When)
			if err != nil {
				return nil, kiterr.Wrap(kiterr.NormalizerInvalid, err, "normalizer %d (%s): when", i, s.Path)
			}
			r.when = m
		}
		if s.Drop && s.Keep != nil {
			return nil, kiterr.New(kiterr.NormalizerInvalid, "normalizer %d (%s): drop and keep exclude each other", i, s.Path)
		}
		if (s.Drop || s.Keep != nil) && len(s.Placeholder) > 0 {
			return nil, kiterr.New(kiterr.NormalizerInvalid, "normalizer %d (%s): a placeholder is for replacing normalizers, not drop or keep", i, s.Path)
		}
		format := s.Format
		switch {
		case s.Keep != nil && format == "":
			format = "any-object"
		case s.Keep != nil && format != "any-object":
			return nil, kiterr.New(kiterr.NormalizerInvalid, "normalizer %d (%s): keep applies to objects (format any-object or none)", i, s.Path)
		case s.Drop && format == "":
			format = "any"
		case format == "":
			return nil, kiterr.New(kiterr.NormalizerInvalid, "normalizer %d (%s): needs a format (or drop or keep)", i, s.Path)
		}
		r.Format = format
		check, err := checker(format)
		if err != nil {
			return nil, kiterr.Wrap(kiterr.NormalizerInvalid, err, "normalizer %d (%s)", i, s.Path)
		}
		r.check = check
		if s.Keep != nil {
			r.keep = make(map[string]bool, len(s.Keep))
			for _, k := range s.Keep {
				r.keep[k] = true
			}
		}
		r.placeholder = "<" + s.Format + ">"
		if len(s.Placeholder) > 0 {
			pv, err := canon.Parse(s.Placeholder)
			if err != nil {
				return nil, kiterr.Wrap(kiterr.NormalizerInvalid, err, "normalizer %d (%s): placeholder", i, s.Path)
			}
			r.placeholder = pv
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// Check reports whether v satisfies the rule's format.
func (r *Rule) Check(v any) bool { return r.check(v) }

// Matches reports whether the rule's path pattern matches ptr, an RFC 6901
// JSON Pointer with its leading "/" ("/response/error").
func (r *Rule) Matches(ptr string) bool {
	return ptr != "" && matchPath(r.pattern, strings.TrimPrefix(ptr, "/"))
}

func isString(v any) (string, bool) { s, ok := v.(string); return s, ok }

func checker(format string) (func(any) bool, error) {
	switch format {
	case "rfc3339":
		return func(v any) bool { s, ok := isString(v); return ok && isRFC3339(s) }, nil
	case "uuid":
		return func(v any) bool { s, ok := isString(v); return ok && uuidRE().MatchString(s) }, nil
	case "semver":
		return func(v any) bool { s, ok := isString(v); return ok && semverRE().MatchString(s) }, nil
	case "integer":
		return func(v any) bool { n, ok := v.(json.Number); return ok && integerRE().MatchString(string(n)) }, nil
	case "string":
		return func(v any) bool { _, ok := isString(v); return ok }, nil
	case "any-array":
		return func(v any) bool { _, ok := v.([]any); return ok }, nil
	case "any-object":
		return func(v any) bool { _, ok := v.(map[string]any); return ok }, nil
	case "any":
		return func(any) bool { return true }, nil
	}
	if p, ok := strings.CutPrefix(format, "prefix:"); ok {
		return func(v any) bool { s, ok := isString(v); return ok && strings.HasPrefix(s, p) }, nil
	}
	if p, ok := strings.CutPrefix(format, "regex:"); ok {
		re, err := regexp.Compile(`^(?:` + p + `)$`)
		if err != nil {
			return nil, fmt.Errorf("regex %q: %w", p, err)
		}
		return func(v any) bool { s, ok := isString(v); return ok && re.MatchString(s) }, nil
	}
	return nil, fmt.Errorf("unknown format %q", format)
}

// Mismatch is a value at a normalized path that failed its format.
type Mismatch struct {
	Pointer string `json:"pointer"`
	Path    string `json:"path"`
	Format  string `json:"format"`
	Value   string `json:"value"`
}

// String renders `/a/b: "x" is not rfc3339 (rule "**/ts")`.
func (m Mismatch) String() string {
	return fmt.Sprintf("%s: %s is not %s (normalizer %q)", m.Pointer, m.Value, m.Format, m.Path)
}

// Result is what [Apply] did to one value.
type Result struct {
	// Value is a normalized copy; the input is never modified.
	Value any
	// Mismatches lists values that failed their format, in document order
	// (object members by sorted name).
	Mismatches []Mismatch
	// Matched[i] is true when rules[i] matched at least one location.
	Matched []bool
	// Shapes holds, when Scope.Shapes asked for them, the [Shape] of each
	// value a rule replaced or dropped (and of each object a keep rule
	// cut), keyed by its JSON Pointer: what a recording keeps of what
	// normalizing hid, so drift can see a member added inside it.
	Shapes map[string]any
}

// Shape is the structure of a value without its values: an object's
// member names with their shapes (map[string]any), an array's distinct
// item shapes in first-seen order ([]any, at most [MaxShapeItems]), or the
// JSON type of a scalar ("string", "number", "boolean", "null"), to a depth
// of [MaxShapeDepth] (deeper values are "..."). Two values with the same
// members and types have equal shapes whatever they hold.
func Shape(v any) any { return shape(v, 0) }

// Bounds of a [Shape].
const (
	MaxShapeDepth = 16
	MaxShapeItems = 8
)

func shape(v any, depth int) any {
	if depth >= MaxShapeDepth {
		return "..."
	}
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = shape(e, depth+1)
		}
		return m
	case []any:
		var items []any
		seen := map[string]bool{}
		for _, e := range x {
			sh := shape(e, depth+1)
			b, _ := canon.Canonical(sh)
			if !seen[string(b)] && len(items) < MaxShapeItems {
				seen[string(b)] = true
				items = append(items, sh)
			}
		}
		if items == nil {
			items = []any{}
		}
		return items
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}

// Apply normalizes v with rules. At each location the first matching rule
// wins and its subtree is not visited further.
func Apply(v any, rules []Rule) Result {
	return ApplyScoped(v, rules, Scope{})
}

// Scope keeps general rules out of user data: inside a subtree whose pointer
// matches one of UserData (doublestar patterns over pointer tokens, leading
// "/" trimmed), the first General rules are not applied, so a suite-level
// "**/session_id" never rewrites a session_id inside echoed tool input. Rules
// from index General on (a vector's own) apply everywhere.
type Scope struct {
	UserData []string
	General  int
	// Shapes asks for Result.Shapes.
	Shapes bool
}

// ApplyScoped is [Apply] with a [Scope].
func ApplyScoped(v any, rules []Rule, scope Scope) Result {
	res := Result{Matched: make([]bool, len(rules))}
	if scope.Shapes {
		res.Shapes = map[string]any{}
	}
	w := walker{rules: rules, scope: scope, res: &res}
	for i := range rules {
		if rules[i].when != nil && !rules[i].when.Holds(v) {
			if w.off == nil {
				w.off = make([]bool, len(rules))
			}
			w.off[i] = true // not for this frame
		}
	}
	res.Value, _ = w.walk(v, "", false)
	return res
}

type walker struct {
	rules []Rule
	scope Scope
	res   *Result
	// off[i] is true when rules[i]'s When does not hold for the frame.
	off []bool
}

// walk returns the normalized v, and false when a drop rule removes it.
func (w *walker) walk(v any, ptr string, inUser bool) (any, bool) {
	rules, res := w.rules, w.res
	if ptr != "" {
		if !inUser {
			for _, u := range w.scope.UserData {
				if matchPath(u, ptr[1:]) {
					inUser = true
					break
				}
			}
		}
		for i := range rules {
			r := &rules[i]
			if inUser && i < w.scope.General || w.off != nil && w.off[i] {
				continue
			}
			if !matchPath(r.pattern, ptr[1:]) {
				continue
			}
			res.Matched[i] = true
			if r.def != "" {
				if b, err := canon.Canonical(v); err == nil && string(b) == r.def {
					return nil, false // the default: as if absent
				}
				break // another value: kept, and normalized further
			}
			if !r.check(v) {
				res.Mismatches = append(res.Mismatches, Mismatch{Pointer: ptr, Path: r.Path, Format: r.Format, Value: summarize(v)})
				return v, true
			}
			if res.Shapes != nil {
				res.Shapes[ptr] = Shape(v)
			}
			switch {
			case r.Drop:
				return nil, false
			case r.keep != nil:
				return w.object(v.(map[string]any), ptr, inUser, r.keep), true
			}
			return r.placeholder, true
		}
	}
	switch t := v.(type) {
	case map[string]any:
		return w.object(t, ptr, inUser, nil), true
	case []any:
		out := make([]any, 0, len(t))
		for i, e := range t {
			if n, ok := w.walk(e, ptr+"/"+strconv.Itoa(i), inUser); ok {
				out = append(out, n)
			}
		}
		return out, true
	}
	return v, true
}

// object normalizes the members of t (only those keep names, when keep is
// not nil), leaving out the members a drop rule removes.
func (w *walker) object(t map[string]any, ptr string, inUser bool, keep map[string]bool) map[string]any {
	out := make(map[string]any, len(t))
	for _, k := range sortedKeys(t) {
		if keep != nil && !keep[k] {
			continue
		}
		if n, ok := w.walk(t[k], ptr+"/"+canon.EscapePointer(k), inUser); ok {
			out[k] = n
		}
	}
	return out
}

func matchPath(pattern, path string) bool {
	if !strings.HasSuffix(path, literalTail(pattern)) {
		return false
	}
	ok, err := doublestar.Match(pattern, path)
	return err == nil && ok
}

// literalTail returns a text every path that pattern matches ends with:
// what follows the pattern's last meta character (* ? [ ] { }), without a
// "/" right after it ("**/uuid" also matches "uuid"); the whole pattern
// when it has none; "" for a pattern with an escape. matchPath tries
// doublestar only for paths that end with it: most of a frame's pointers
// match no rule, and doublestar.Match (which also validates the pattern
// each time) was about half of normalizing a frame (bench/README.md, issue 25
// item 1). TestLiteralTailSound holds it to doublestar over every pattern
// shape the suites use.
func literalTail(pattern string) string {
	if strings.IndexByte(pattern, '\\') >= 0 {
		return ""
	}
	i := strings.LastIndexAny(pattern, "*?[]{}")
	if i < 0 {
		return pattern
	}
	return strings.TrimPrefix(pattern[i+1:], "/")
}

// Bounds of [Mismatch.Value], in bytes: a value up to maxSummary bytes of
// canonical JSON is shown whole; a longer one by its first summaryHead and
// last summaryTail bytes, so a finding stays readable (and under the
// runner's 1 KiB per finding) while both ends of the value are seen.
const (
	maxSummary  = 480
	summaryHead = 320
	summaryTail = 120
)

// summarize renders v as canonical JSON: whole up to maxSummary bytes,
// else its head and tail around "…(N bytes)…", cut at rune boundaries.
func summarize(v any) string {
	b, err := canon.Canonical(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	if len(b) <= maxSummary {
		return string(b)
	}
	head, tail := summaryHead, len(b)-summaryTail
	for head > 0 && !utf8.RuneStart(b[head]) {
		head--
	}
	for tail < len(b) && !utf8.RuneStart(b[tail]) {
		tail++
	}
	return fmt.Sprintf("%s…(%d of %d bytes left out)…%s", b[:head], tail-head, len(b), b[tail:])
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

func sortStrings(s []string) { slices.Sort(s) }

// isRFC3339 reports whether s is an RFC 3339 §5.6 date-time with valid
// ranges (month, day of month, leap years, hour 00-23, minute 00-59, second
// 00-60, offset hour 00-23).
func isRFC3339(s string) bool {
	m := dateTimeRE().FindStringSubmatch(s)
	if m == nil {
		return false
	}
	atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
	year, month, day := atoi(m[1]), atoi(m[2]), atoi(m[3])
	if month < 1 || month > 12 || day < 1 || day > time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
		return false
	}
	if atoi(m[4]) > 23 || atoi(m[5]) > 59 || atoi(m[6]) > 60 {
		return false
	}
	if m[9] != "" && (atoi(m[10]) > 23 || atoi(m[11]) > 59) {
		return false
	}
	return true
}
