package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/normalize"
)

// Kinds of [Difference], stable public API (they appear in JSON reports and,
// for normative differences, as finding codes).
const (
	// ValueChanged: both sides have a value at the location and the values
	// differ (another scalar, another type).
	ValueChanged = "VALUE_CHANGED"
	// TextMismatch: a free-text location whose actual value does not satisfy
	// its text class (a pattern or a format such as "string").
	TextMismatch = "TEXT_MISMATCH"
	// MemberAbsent: the golden summary has an object member the actual one
	// lacks.
	MemberAbsent = "MEMBER_ABSENT"
	// MemberAdded: the actual summary has an object member the golden
	// one lacks.
	MemberAdded = "MEMBER_ADDED"
	// ItemAbsent and ItemAdded: an array is shorter or longer than the
	// golden one; the pointer names the first index that differs.
	ItemAbsent = "ITEM_ABSENT"
	ItemAdded  = "ITEM_ADDED"
	// FrameAbsent: a golden frame has no counterpart (the same identity:
	// class, correlation id and key, see [Framing]) among the actual
	// frames; FrameAdded: the reverse.
	FrameAbsent = "FRAME_ABSENT"
	FrameAdded  = "FRAME_ADDED"
	// ExitChanged: the summary's exit class differs.
	ExitChanged = "EXIT_CHANGED"
)

// Difference is one place where an actual summary differs from its golden
// summary. Values are canonical JSON (RFC 8785), so every language reads them
// the same way; Golden or Actual is absent where that side has nothing.
type Difference struct {
	// Frame names the frame by its identity ([Framing]: its class and
	// correlation id as JSON, `reply "r-1"`), with "#n" (the
	// n-th of that identity, from 1) when frames share it; "" for summary
	// members (exit).
	Frame string `json:"frame,omitempty"`
	// Pointer is the RFC 6901 JSON Pointer of the location inside the frame
	// ("" is the whole frame), or "/exit" for the summary's exit class.
	Pointer string `json:"pointer"`
	// Kind is one of the kinds above.
	Kind   string          `json:"kind"`
	Golden json.RawMessage `json:"golden,omitempty"`
	Actual json.RawMessage `json:"actual,omitempty"`
	// Normative is true when the difference fails conformance; false when
	// the protocol allows it (it still breaks exact parity).
	Normative bool `json:"normative"`
	// Rule says why the difference is or is not normative: the rule of
	// [Rules] that applied, with its reason.
	Rule string `json:"rule,omitempty"`
}

// Location is a doublestar pattern over the JSON Pointer tokens of a
// location inside one control frame ("/response/pending_permission_requests",
// "**/updatedInput"; the leading "/" is optional; tokens are matched in their
// escaped RFC 6901 form, as normalizers are) and why it is listed.
type Location struct {
	Path   string `json:"path"`
	Reason string `json:"reason,omitempty"`
}

// Spec is the conformance part of suite.json (per version) or of one vector;
// a vector's Spec is added to its version's. See COMPATIBILITY.md "Conformance
// and exact parity" for the rule it configures.
type Spec struct {
	// UserData lists subtrees that hold data the IUT echoes or passes through
	// (tool input, updatedInput, MCP payloads, hook input): compared exactly,
	// every member, and never entered by suite-level normalizers.
	UserData []Location `json:"userData,omitempty"`
	// Optional lists members that may be absent from the actual frame or
	// added to it although the schema declares them.
	Optional []Location `json:"optional,omitempty"`
	// Text lists free-text locations: the actual value must satisfy the
	// format (normalizer formats: "string", "regex:...", ...); its wording
	// is not compared. A vector's text rule is tried before the version's,
	// so a vector can ask more of a text (e.g. that it echoes a name), and
	// before the version's UserData, so a vector can say that a location
	// the version compares exactly holds free text here (a tool's error
	// message); only Pin comes before it.
	Text []normalize.Spec `json:"text,omitempty"`
	// Pin lists locations compared exactly whatever Optional, Text or the
	// schema would allow, absence included.
	Pin []Location `json:"pin,omitempty"`
}

// Rules is a compiled [Spec] (a version's, plus a vector's).
type Rules struct {
	userData, optional, pin []rule
	text                    []normalize.Rule
	// overriding is how many of text (the first ones) come from a
	// vector's spec: those are tried before user data, so a vector can say
	// that a location the version compares exactly is free text here.
	overriding int
}

type rule struct{ pattern, path, reason string }

// Declared reports whether the schema of the actual frame declares the member
// name on the object at pointer at (RFC 6901, "" for the frame itself). An
// undeclared member in an open object is one the protocol lets a writer
// add. A nil Declared treats every member as declared.
type Declared func(frame any, at, name string) bool

// Framing tells frames apart for the comparison: Identity gives the key
// that pairs a golden frame with an actual one and the label reports name
// it by; Discriminators are member names whose value selects an object's
// shape (an object whose discriminator differs is one difference). The
// suite's envelope (internal/envelope) is the Framing of a run. A nil
// Framing pairs frames by their canonical order alone and knows no
// discriminator.
type Framing interface {
	Identity(frame any) (key, label string)
	Discriminators() []string
}

// Compile compiles specs in order (the version's first, then the vector's).
// Errors: plain errors naming the bad pattern or text format (callers wrap
// them with VECTOR_INVALID or SUITE_INVALID).
func Compile(specs ...*Spec) (*Rules, error) {
	r := &Rules{}
	compile := func(kind string, locs []Location, into *[]rule) error {
		for _, l := range locs {
			p := strings.TrimPrefix(l.Path, "/")
			if p == "" || !doublestar.ValidatePattern(p) {
				return fmt.Errorf("conformance %s: invalid path pattern %q", kind, l.Path)
			}
			*into = append(*into, rule{pattern: p, path: l.Path, reason: l.Reason})
		}
		return nil
	}
	for i, s := range specs {
		if s == nil {
			continue
		}
		if err := compile("userData", s.UserData, &r.userData); err != nil {
			return nil, err
		}
		if err := compile("optional", s.Optional, &r.optional); err != nil {
			return nil, err
		}
		if err := compile("pin", s.Pin, &r.pin); err != nil {
			return nil, err
		}
		text, err := normalize.Compile(s.Text)
		if err != nil {
			return nil, fmt.Errorf("conformance text: %w", err)
		}
		// A later spec's text rule (a vector's) is tried first, so it can
		// narrow the version's class at the same location, or loosen a
		// location the version's user data compares exactly.
		r.text = append(text, r.text...)
		if i > 0 {
			r.overriding += len(text)
		}
	}
	return r, nil
}

// UserDataPatterns returns the compiled user-data patterns (leading "/"
// trimmed), which suite-level normalizers must not enter.
func (r *Rules) UserDataPatterns() []string {
	if r == nil {
		return nil
	}
	out := make([]string, len(r.userData))
	for i, u := range r.userData {
		out[i] = u.pattern
	}
	return out
}

func match(rules []rule, ptr string) *rule {
	for i := range rules {
		if ok, err := doublestar.Match(rules[i].pattern, strings.TrimPrefix(ptr, "/")); err == nil && ok {
			return &rules[i]
		}
	}
	return nil
}

func (r rule) String() string {
	if r.reason == "" {
		return r.path
	}
	return r.path + " (" + r.reason + ")"
}

// Summarized is a decoded summary: {"exit"?, "frames": [...], "vector"}.
type summarized struct {
	exit   any
	frames []any
}

func decodeSummary(b []byte) (summarized, error) {
	v, err := canon.Parse(b)
	if err != nil {
		return summarized{}, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return summarized{}, fmt.Errorf("summary is not an object")
	}
	frames, ok := m["frames"].([]any)
	if !ok {
		return summarized{}, fmt.Errorf("summary has no frames array")
	}
	return summarized{exit: m["exit"], frames: frames}, nil
}

// Differences compares an actual canonical summary with its golden summary
// and returns every difference, in golden frame order, then frames only the
// actual summary has. With rules nil every difference is normative (exact
// parity); otherwise the conformance rule decides (COMPATIBILITY.md
// "Conformance and exact parity"):
//
//   - a location under a UserData or Pin pattern is compared exactly;
//   - a Text location passes when the actual value satisfies its format;
//   - values present on both sides must be equal;
//   - a golden member the actual frame lacks fails unless Optional lists it
//     (the schema, checked separately, says whether it is required);
//   - an actual member the golden lacks passes when Optional lists it or the
//     schema does not declare it there (declared reports that; the schema
//     validation the runner does separately says whether it may be added);
//   - arrays are compared item by item and must have the same length;
//   - frames are paired by their identity (framing); a frame without a
//     partner fails.
//
// Equal byte strings give nil. Errors: a summary that is not canonical JSON
// (a plain error).
func Differences(golden, actual []byte, rules *Rules, declared Declared, framing Framing) ([]Difference, error) {
	if bytes.Equal(golden, actual) {
		return nil, nil
	}
	g, err := decodeSummary(golden)
	if err != nil {
		return nil, fmt.Errorf("golden summary: %w", err)
	}
	a, err := decodeSummary(actual)
	if err != nil {
		return nil, fmt.Errorf("actual summary: %w", err)
	}
	d := &differ{rules: rules, declared: declared}
	if framing != nil {
		d.discriminators = framing.Discriminators()
	}
	if !equalJSON(g.exit, a.exit) {
		d.add(Difference{Pointer: "/exit", Kind: ExitChanged, Golden: raw(g.exit, g.exit != nil), Actual: raw(a.exit, a.exit != nil), Normative: true})
	}
	for _, p := range pairFrames(g.frames, a.frames, framing) {
		switch {
		case p.a == nil:
			d.add(Difference{Frame: p.label, Kind: FrameAbsent, Golden: raw(p.g, true), Normative: true})
		case p.g == nil:
			d.add(Difference{Frame: p.label, Kind: FrameAdded, Actual: raw(p.a, true), Normative: true})
		default:
			d.frame, d.label = p.a, p.label
			d.value(p.g, p.a, "", rules == nil)
		}
	}
	return d.out, nil
}

// valueDifferences compares two JSON documents that are not summaries,
// exactly, from their roots.
func valueDifferences(golden, actual []byte) ([]Difference, error) {
	g, err := canon.Parse(golden)
	if err != nil {
		return nil, err
	}
	a, err := canon.Parse(actual)
	if err != nil {
		return nil, err
	}
	d := &differ{}
	d.value(g, a, "", true)
	return d.out, nil
}

type differ struct {
	rules          *Rules
	declared       Declared
	discriminators []string
	frame          any
	label          string
	out            []Difference
}

func (d *differ) add(x Difference) { d.out = append(d.out, x) }

func (d *differ) diff(ptr, kind string, g, a any, hasG, hasA, normative bool, why string) {
	d.add(Difference{Frame: d.label, Pointer: ptr, Kind: kind, Golden: raw(g, hasG), Actual: raw(a, hasA), Normative: normative, Rule: why})
}

// value compares g and a at ptr; exact means every difference is normative.
func (d *differ) value(g, a any, ptr string, exact bool) {
	if !exact && ptr != "" {
		if p := match(d.rules.pin, ptr); p != nil {
			d.exactly(g, a, ptr, "pinned: "+p.String())
			return
		}
		if t := d.textRule(ptr, true); t != nil {
			d.text(g, a, ptr, t)
			return
		}
		if u := match(d.rules.userData, ptr); u != nil {
			d.exactly(g, a, ptr, "user data, compared exactly: "+u.String())
			return
		}
		if t := d.textRule(ptr, false); t != nil {
			d.text(g, a, ptr, t)
			return
		}
	}
	if exact {
		d.exactly(g, a, ptr, "")
		return
	}
	switch gv := g.(type) {
	case map[string]any:
		av, ok := a.(map[string]any)
		if !ok {
			break
		}
		if k, ok := discriminatorDiffers(d.discriminators, gv, av); ok {
			// Another discriminator value is another shape: one
			// difference for the whole object says it, member by member
			// would bury it.
			d.diff(ptr, ValueChanged, g, a, true, true, true, fmt.Sprintf("%q differs: another kind of object", k))
			return
		}
		for _, k := range unionKeys(gv, av) {
			child := ptr + "/" + canon.EscapePointer(k)
			gc, inG := gv[k]
			ac, inA := av[k]
			switch {
			case inG && inA:
				d.value(gc, ac, child, false)
			case inG:
				d.member(child, gc, nil, true, false, ptr, k)
			default:
				d.member(child, nil, ac, false, true, ptr, k)
			}
		}
		return
	case []any:
		av, ok := a.([]any)
		if !ok {
			break
		}
		for i := range min(len(gv), len(av)) {
			d.value(gv[i], av[i], ptr+"/"+strconv.Itoa(i), false)
		}
		d.items(gv, av, ptr, "")
		return
	}
	if !equalJSON(g, a) {
		d.diff(ptr, ValueChanged, g, a, true, true, true, "")
	}
}

// member reports a member present on one side only, at child (parent at,
// name k).
func (d *differ) member(child string, g, a any, hasG, hasA bool, at, k string) {
	if p := match(d.rules.pin, child); p != nil {
		d.diff(child, missingOrUnexpected(hasG), g, a, hasG, hasA, true, "pinned: "+p.String())
		return
	}
	if u := d.underUserData(child); u != nil {
		d.diff(child, missingOrUnexpected(hasG), g, a, hasG, hasA, true, "user data, compared exactly: "+u.String())
		return
	}
	if o := match(d.rules.optional, child); o != nil {
		d.diff(child, missingOrUnexpected(hasG), g, a, hasG, hasA, false, "optional: "+o.String())
		return
	}
	if hasG {
		d.diff(child, MemberAbsent, g, a, true, false, true, "")
		return
	}
	if d.declared != nil && !d.declared(d.frame, at, k) {
		d.diff(child, MemberAdded, g, a, false, true, false, "not declared by the schema at "+orRoot(at)+", which is open there")
		return
	}
	d.diff(child, MemberAdded, g, a, false, true, true, "declared by the schema: adding it changes meaning; list it as optional where it does not")
}

// underUserData returns the user-data rule of a location that lies inside a
// user-data subtree (the subtree's root was compared exactly already; this
// catches a root that is itself missing or added).
func (d *differ) underUserData(ptr string) *rule { return match(d.rules.userData, ptr) }

func missingOrUnexpected(hasG bool) string {
	if hasG {
		return MemberAbsent
	}
	return MemberAdded
}

// exactly reports every difference below ptr as normative, with why.
// Values are compared at the leaves, so each is canonicalized once.
func (d *differ) exactly(g, a any, ptr, why string) {
	switch gv := g.(type) {
	case map[string]any:
		if av, ok := a.(map[string]any); ok {
			for _, k := range unionKeys(gv, av) {
				child := ptr + "/" + canon.EscapePointer(k)
				gc, inG := gv[k]
				ac, inA := av[k]
				switch {
				case inG && inA:
					d.exactly(gc, ac, child, why)
				default:
					d.diff(child, missingOrUnexpected(inG), gc, ac, inG, inA, true, why)
				}
			}
			return
		}
	case []any:
		if av, ok := a.([]any); ok {
			for i := range min(len(gv), len(av)) {
				d.exactly(gv[i], av[i], ptr+"/"+strconv.Itoa(i), why)
			}
			d.items(gv, av, ptr, why)
			return
		}
	}
	if !equalJSON(g, a) {
		d.diff(ptr, ValueChanged, g, a, true, true, true, why)
	}
}

// items reports the surplus of the longer array, from its first extra index.
func (d *differ) items(g, a []any, ptr, why string) {
	switch {
	case len(g) > len(a):
		d.diff(ptr+"/"+strconv.Itoa(len(a)), ItemAbsent, g[len(a):], nil, true, false, true, why)
	case len(a) > len(g):
		d.diff(ptr+"/"+strconv.Itoa(len(g)), ItemAdded, nil, a[len(g):], false, true, true, why)
	}
}

// textRule returns the first text rule that matches ptr: among the
// vector's only (overriding), or among all.
func (d *differ) textRule(ptr string, overriding bool) *normalize.Rule {
	n := len(d.rules.text)
	if overriding {
		n = d.rules.overriding
	}
	for i := range n {
		if d.rules.text[i].Matches(ptr) {
			return &d.rules.text[i]
		}
	}
	return nil
}

// text compares a free-text location: equal, or any value of the rule's
// format (allowed), or not of the format (normative).
func (d *differ) text(g, a any, ptr string, t *normalize.Rule) {
	if equalJSON(g, a) {
		return
	}
	if t.Check(a) {
		d.diff(ptr, ValueChanged, g, a, true, true, false, fmt.Sprintf("free text, class %s: %s", t.Format, t.Reason))
	} else {
		d.diff(ptr, TextMismatch, g, a, true, true, true, fmt.Sprintf("free text must be %s: %s", t.Format, t.Reason))
	}
}

// discriminatorDiffers returns the first of the discriminators both
// objects have as strings with different values.
func discriminatorDiffers(discriminators []string, g, a map[string]any) (string, bool) {
	for _, k := range discriminators {
		gv, inG := g[k].(string)
		av, inA := a[k].(string)
		if inG && inA && gv != av {
			return k, true
		}
	}
	return "", false
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "the frame's top level"
	}
	return ptr
}

func unionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func equalJSON(a, b any) bool {
	ab, aerr := canon.Canonical(a)
	bb, berr := canon.Canonical(b)
	return aerr == nil && berr == nil && bytes.Equal(ab, bb)
}

func raw(v any, present bool) json.RawMessage {
	if !present {
		return nil
	}
	b, err := canon.Canonical(v)
	if err != nil {
		return json.RawMessage(strconv.Quote(fmt.Sprint(v)))
	}
	return b
}

type framePair struct {
	label string
	g, a  any
}

// identity is framing's identity of f, or "frame" for every frame when
// framing is nil.
func identity(framing Framing, f any) (key, label string) {
	if framing == nil {
		return "frame", "frame"
	}
	return framing.Identity(f)
}

// pairFrames pairs golden and actual frames with the same identity: equal
// frames first, then the rest in canonical order. Unpaired frames come back
// with one side nil.
func pairFrames(golden, actual []any, framing Framing) []framePair {
	type side struct {
		idx   []int
		bytes [][]byte
	}
	var keys []string
	labels := map[string]string{}
	gs, as := map[string]*side{}, map[string]*side{}
	put := func(m map[string]*side, frames []any) {
		for i, f := range frames {
			k, l := identity(framing, f)
			if _, ok := labels[k]; !ok {
				labels[k] = l
				keys = append(keys, k)
			}
			if m[k] == nil {
				m[k] = &side{}
			}
			b, _ := canon.Canonical(f)
			m[k].idx = append(m[k].idx, i)
			m[k].bytes = append(m[k].bytes, b)
		}
	}
	put(gs, golden)
	put(as, actual)
	var out []framePair
	for _, k := range keys {
		g, a := gs[k], as[k]
		if g == nil {
			g = &side{}
		}
		if a == nil {
			a = &side{}
		}
		usedA := make([]bool, len(a.idx))
		pairOf := make([]int, len(g.idx))
		for i := range pairOf {
			pairOf[i] = -1
			for j := range a.idx {
				if !usedA[j] && bytes.Equal(g.bytes[i], a.bytes[j]) {
					pairOf[i], usedA[j] = j, true
					break
				}
			}
		}
		for i := range pairOf {
			if pairOf[i] >= 0 {
				continue
			}
			for j := range a.idx {
				if !usedA[j] {
					pairOf[i], usedA[j] = j, true
					break
				}
			}
		}
		label := func(i int) string {
			if len(g.idx) > 1 || len(a.idx) > 1 {
				return fmt.Sprintf("%s #%d", labels[k], i+1)
			}
			return labels[k]
		}
		for i, j := range pairOf {
			p := framePair{label: label(i), g: golden[g.idx[i]]}
			if j >= 0 {
				p.a = actual[a.idx[j]]
			}
			out = append(out, p)
		}
		extra := len(g.idx)
		for j := range a.idx {
			if !usedA[j] {
				out = append(out, framePair{label: label(extra), a: actual[a.idx[j]]})
				extra++
			}
		}
	}
	return out
}

// IsKind reports whether code is one of the kinds of [Difference] (which
// are also the finding codes of normative differences).
func IsKind(code string) bool {
	switch code {
	case ValueChanged, TextMismatch, MemberAbsent, MemberAdded, ItemAbsent, ItemAdded, FrameAbsent, FrameAdded, ExitChanged:
		return true
	}
	return false
}

// Canonical returns d with its Golden and Actual values in their RFC 8785
// form (as Differences makes them), e.g. after a JSON report was read back
// with re-indented, HTML-escaped values; a value that is not JSON is kept.
func (d Difference) Canonical() Difference {
	for _, v := range []*json.RawMessage{&d.Golden, &d.Actual} {
		if len(*v) == 0 {
			continue
		}
		if b, err := canon.CanonicalBytes(*v); err == nil {
			*v = b
		}
	}
	return d
}

// Normative returns the differences that fail conformance.
func Normative(ds []Difference) []Difference {
	var out []Difference
	for _, d := range ds {
		if d.Normative {
			out = append(out, d)
		}
	}
	return out
}
