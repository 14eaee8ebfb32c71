package drift

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/envelope"
)

// Verdicts of a [Finding].
const (
	// VerdictBreaking: a consumer written against the old output can break
	// on the new one (a member gone, a type changed, a frame gone, the
	// envelope restructured, a known value changed).
	VerdictBreaking = "BREAKING"
	// VerdictAdditive: the new output says more (a new member, frame, array
	// item, error_code or enum value) and keeps everything the old said.
	VerdictAdditive = "ADDITIVE"
	// VerdictInfo: free text changed (an error message, a description), or
	// the recordings cover different vectors.
	VerdictInfo = "INFO"
	// VerdictUnchanged is a [Report]'s verdict when there is no finding.
	VerdictUnchanged = "UNCHANGED"
)

// Rule is one entry of the drift rule registry ([Rules]).
type Rule struct {
	// ID is the stable UPPER_SNAKE code; where a difference between two
	// frames means what an internal/compat rule means for two schemas, the
	// compat id is reused (Compat is true).
	ID string
	// Purpose is one sentence: "Checks that ...".
	Purpose string
	// Verdict is the rule's verdict.
	Verdict string
	// Compat is true when ID is also an internal/compat rule id.
	Compat bool
}

// Rules returns the registry in a fixed order. Each call returns a fresh
// slice; the registry is a literal. Source: issue 13 (a new member,
// error_code or enum value ADDITIVE; a missing member, a changed type, a
// restructured envelope BREAKING; text only INFO) and COMPATIBILITY.md's
// versioning policy (seed 000).
func Rules() []Rule {
	return []Rule{
		{ID: "PROPERTY_ADDED_OPEN", Verdict: VerdictAdditive, Compat: true, Purpose: "Checks for a member the new output has and the old did not (anywhere but a discriminator): additive, v1 envelopes and bodies are open."},
		{ID: "REQUIRED_REMOVED", Verdict: VerdictBreaking, Compat: true, Purpose: "Checks for a member below the envelope that the old output had and the new one lacks: a consumer that read it breaks."},
		{ID: "ENVELOPE_RESTRUCTURED", Verdict: VerdictBreaking, Purpose: "Checks for a member of a frame's envelope (the frame's own members, and the members of the objects on the way to its correlation id, method or outcome, as the suite's envelope declares them) that is gone or changed type."},
		{ID: "TYPE_CHANGED", Verdict: VerdictBreaking, Compat: true, Purpose: "Checks for a value whose JSON type changed (string, number, boolean, null, object, array)."},
		{ID: "DISCRIMINATOR_CHANGED", Verdict: VerdictBreaking, Compat: true, Purpose: "Checks for a discriminator member (the envelope's discriminators) that changed value, or a reply that changed from success to error or back (one finding for the reply, not one per member)."},
		{ID: "ENUM_VALUE_ADDED", Verdict: VerdictAdditive, Compat: true, Purpose: "Checks for a code member (the envelope's codes: an open set of machine-readable values) that changed or appeared with a new value, or an enum member (one whose schema gives enum or const values) whose new value the schema does not list: a new code or value."},
		{ID: "VALUE_CHANGED", Verdict: VerdictBreaking, Purpose: "Checks for a number, boolean, or an enum member's value the schema lists, that changed: the same question now gets another answer."},
		{ID: "TEXT_CHANGED", Verdict: VerdictInfo, Purpose: "Checks for a free-text string (anything but a discriminator, code or enum member) that changed: for people, not programs."},
		{ID: "FRAME_ADDED", Verdict: VerdictAdditive, Purpose: "Checks for a frame the new output has and the old did not (a reply where there was none, a new request)."},
		{ID: "FRAME_REMOVED", Verdict: VerdictBreaking, Purpose: "Checks for a frame the old output had and the new one lacks (a reply no longer sent)."},
		{ID: "ITEM_ADDED", Verdict: VerdictAdditive, Purpose: "Checks for array items the new output has beyond the old ones."},
		{ID: "ITEM_REMOVED", Verdict: VerdictBreaking, Purpose: "Checks for array items the old output had beyond the new ones."},
		{ID: "EXIT_CHANGED", Verdict: VerdictBreaking, Purpose: "Checks that the way the implementation ended (exit zero, nonzero, by a signal, or not by itself) did not change."},
		{ID: "VECTOR_ADDED", Verdict: VerdictInfo, Purpose: "Checks for a vector only the new recording has (a newer suite or a filtered run)."},
		{ID: "VECTOR_MISSING", Verdict: VerdictInfo, Purpose: "Checks for a vector only the old recording has (an older suite or a filtered run)."},
	}
}

// Finding is one difference between two recordings. Findings are data.
type Finding struct {
	// Vector is the vector id.
	Vector string `json:"vector"`
	// Pointer is a JSON Pointer (RFC 6901) into the vector's summary in the
	// new recording, or in the old one when In is "old" (the subject is
	// gone); "" is the whole summary.
	Pointer string `json:"pointer"`
	// In is "new" or "old": the summary Pointer points into.
	In string `json:"in"`
	// Rule is a [Rule] id; Verdict its verdict.
	Rule    string `json:"rule"`
	Verdict string `json:"verdict"`
	// Message says what changed, past tense, names quoted.
	Message string `json:"message"`
	// Old and New are the values' RFC 8785 forms, each cut to 200 bytes
	// (absent for a side that has none).
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
}

// Report is the outcome of [Compare].
type Report struct {
	Old Meta `json:"old"`
	New Meta `json:"new"`
	// Compared counts the vectors both recordings have.
	Compared int `json:"compared"`
	// Changed counts the vectors with at least one finding.
	Changed int `json:"changed"`
	// Findings are sorted by vector, pointer, rule; never nil.
	Findings []Finding `json:"findings"`
	// Breaking, Additive and Info count findings by verdict.
	Breaking int `json:"breaking"`
	Additive int `json:"additive"`
	Info     int `json:"info"`
	// Verdict is BREAKING when any finding is, else ADDITIVE, else INFO,
	// else UNCHANGED.
	Verdict string `json:"verdict"`
	// SuiteChanged is true when the recordings were made with different
	// suites (digests).
	SuiteChanged bool `json:"suiteChanged,omitempty"`
}

// Options tune [Compare].
type Options struct {
	// EnumValues maps a member name to the string values a schema gives it
	// (enum or const), as [EnumValues] returns; a changed value of such a
	// member is VALUE_CHANGED when the schema lists the new value, else
	// ENUM_VALUE_ADDED. Names not listed are free text.
	EnumValues map[string][]string
	// Envelope is the suite version's envelope: frames are paired by their
	// identity in it (class and correlation id), its discriminators and
	// codes say which strings are not free text, and its classes say
	// which members are the envelope's. Without one, frames are paired by
	// position.
	Envelope *envelope.Envelope
}

// Compare lists every difference from recording old to recording new. Frames
// are paired by what they answer or ask (their class and correlation id in
// the envelope: a reply by the id of the request it answers; frames without
// an id by class, key and position), never by their sorted position, so one
// changed reply does not shift the others. The output is deterministic.
func Compare(old, new *Recording, opt Options) Report {
	rep := Report{Old: old.Meta, New: new.Meta, Findings: []Finding{}}
	rep.SuiteChanged = old.Meta.Suite.Digest != "" && new.Meta.Suite.Digest != "" && old.Meta.Suite.Digest != new.Meta.Suite.Digest
	ids := map[string]bool{}
	for id := range old.Summaries {
		ids[id] = true
	}
	for id := range new.Summaries {
		ids[id] = true
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	slices.Sort(sorted)
	d := &differ{enums: map[string]map[string]bool{}, env: opt.Envelope}
	if opt.Envelope != nil {
		d.discriminators = opt.Envelope.Discriminators()
		d.codes = opt.Envelope.Codes()
	}
	for name, vals := range opt.EnumValues {
		d.enums[name] = map[string]bool{}
		for _, v := range vals {
			d.enums[name][v] = true
		}
	}
	for _, id := range sorted {
		ob, inOld := old.Summaries[id]
		nb, inNew := new.Summaries[id]
		d.vector = id
		before := len(d.findings)
		switch {
		case !inOld:
			d.add("VECTOR_ADDED", "", "new", nil, nil, "vector %q is only in the new recording", id)
		case !inNew:
			d.add("VECTOR_MISSING", "", "old", nil, nil, "vector %q is only in the old recording", id)
		default:
			rep.Compared++
			d.oldShapes, d.newShapes = frameShapes(old.Shapes[id]), frameShapes(new.Shapes[id])
			d.summaries(ob, nb)
			if len(d.findings) > before {
				rep.Changed++
			}
		}
	}
	rep.Findings = append(rep.Findings, d.findings...)
	slices.SortStableFunc(rep.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Vector, b.Vector), cmp.Compare(a.Pointer, b.Pointer), cmp.Compare(a.Rule, b.Rule))
	})
	for _, f := range rep.Findings {
		switch f.Verdict {
		case VerdictBreaking:
			rep.Breaking++
		case VerdictAdditive:
			rep.Additive++
		default:
			rep.Info++
		}
	}
	switch {
	case rep.Breaking > 0:
		rep.Verdict = VerdictBreaking
	case rep.Additive > 0:
		rep.Verdict = VerdictAdditive
	case rep.Info > 0:
		rep.Verdict = VerdictInfo
	default:
		rep.Verdict = VerdictUnchanged
	}
	return rep
}

type differ struct {
	// oldShapes and newShapes are the current vector's shapes by frame
	// index (nil when a recording kept none).
	oldShapes, newShapes []map[string]any
	enums                map[string]map[string]bool
	env                  *envelope.Envelope
	discriminators       []string
	codes                []string
	vector               string
	findings             []Finding
	verdicts             map[string]string
}

func (d *differ) add(rule, ptr, in string, old, new any, format string, args ...any) {
	if d.verdicts == nil {
		d.verdicts = map[string]string{}
		for _, r := range Rules() {
			d.verdicts[r.ID] = r.Verdict
		}
	}
	verdict, ok := d.verdicts[rule]
	if !ok {
		panic("drift: unregistered rule " + rule)
	}
	d.findings = append(d.findings, Finding{Vector: d.vector, Pointer: ptr, In: in, Rule: rule, Verdict: verdict,
		Message: fmt.Sprintf(format, args...), Old: excerpt(old), New: excerpt(new)})
}

// excerpt is v's canonical JSON cut to 200 bytes ("" for nil, which stands
// for "no value": a JSON null is passed as jsonNull).
func excerpt(v any) string {
	if v == nil {
		return ""
	}
	if _, ok := v.(jsonNull); ok {
		return "null"
	}
	b, err := canon.Canonical(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

// jsonNull stands for a JSON null in a finding's old or new value.
type jsonNull struct{}

func orNull(v any) any {
	if v == nil {
		return jsonNull{}
	}
	return v
}

// summaries compares two summaries that were checked when read.
func (d *differ) summaries(ob, nb []byte) {
	olds, err1 := parseSummary(ob)
	ns, err2 := parseSummary(nb)
	if err1 != nil || err2 != nil {
		panic("drift: summary not checked when read")
	}
	if olds.Exit != ns.Exit {
		ptr, in := "/exit", "new"
		if ns.Exit == "" {
			in = "old"
		}
		d.add("EXIT_CHANGED", ptr, in, strOrNil(olds.Exit), strOrNil(ns.Exit), "the way the implementation ended changed from %s to %s", exitWords(olds.Exit), exitWords(ns.Exit))
	}
	okeys, nkeys := d.frameKeys(olds.Frames), d.frameKeys(ns.Frames)
	oldAt := map[string]int{}
	for i, k := range okeys {
		oldAt[k] = i
	}
	newAt := map[string]int{}
	for j, k := range nkeys {
		newAt[k] = j
	}
	for i, k := range okeys {
		if _, paired := newAt[k]; !paired {
			d.add("FRAME_REMOVED", "/frames/"+strconv.Itoa(i), "old", olds.Frames[i], nil, "the %s is no longer written", k)
		}
	}
	for j, k := range nkeys {
		i, paired := oldAt[k]
		if !paired {
			d.add("FRAME_ADDED", "/frames/"+strconv.Itoa(j), "new", nil, ns.Frames[j], "the %s is new", k)
			continue
		}
		of, nf := olds.Frames[i], ns.Frames[j]
		if oo, no := d.outcome(of), d.outcome(nf); oo != "" && no != "" && oo != no {
			// A success that became an error (or back) is one change of
			// the reply, not one per member of its two shapes.
			d.add("DISCRIMINATOR_CHANGED", "/frames/"+strconv.Itoa(j), "new", of, nf, "the %s changed from %s to %s", k, oo, no)
			continue
		}
		c := frameCtx{oldBase: "/frames/" + strconv.Itoa(i), newBase: "/frames/" + strconv.Itoa(j), frame: nf}
		d.value(of, nf, c, nil)
		d.shapes(i, j, c)
	}
}

// frameShapes decodes a shapes document ({"frames": [{ptr: shape}]}).
func frameShapes(doc []byte) []map[string]any {
	if doc == nil {
		return nil
	}
	v, err := canon.Parse(doc)
	if err != nil {
		return nil
	}
	m, _ := v.(map[string]any)
	fs, _ := m["frames"].([]any)
	out := make([]map[string]any, len(fs))
	for i, f := range fs {
		out[i], _ = f.(map[string]any)
	}
	return out
}

// shapes compares the shapes of what normalizers replaced in old frame i
// and new frame j, at each location both replaced: a member added inside a
// normalized object is PROPERTY_ADDED_OPEN, one gone REQUIRED_REMOVED, a
// member whose JSON type changed TYPE_CHANGED, though the normalized bytes
// are equal.
func (d *differ) shapes(i, j int, c frameCtx) {
	if i >= len(d.oldShapes) || j >= len(d.newShapes) {
		return
	}
	olds, news := d.oldShapes[i], d.newShapes[j]
	ptrs := make([]string, 0, len(news))
	for p := range news {
		if _, ok := olds[p]; ok {
			ptrs = append(ptrs, p)
		}
	}
	slices.Sort(ptrs)
	for _, p := range ptrs {
		toks, err := envelope.Tokens(p)
		if err != nil {
			continue
		}
		d.shape(olds[p], news[p], c, toks)
	}
}

// shape compares two normalize.Shape values at toks.
func (d *differ) shape(a, b any, c frameCtx, toks []string) {
	if a == "..." || b == "..." {
		return // cut at normalize.MaxShapeDepth on a side: nothing known
	}
	if ai, ok := a.([]any); ok {
		if bi, ok := b.([]any); ok && (len(ai) == 0 || len(bi) == 0) {
			return // an empty array says nothing about its items
		}
	}
	a, b = mergedItems(a), mergedItems(b)
	am, aObj := a.(map[string]any)
	bm, bObj := b.(map[string]any)
	if !aObj || !bObj {
		ka, kb := shapeKind(a), shapeKind(b)
		if ka != kb {
			d.add("TYPE_CHANGED", ptr(c.newBase, toks), "new", nil, nil, "%s changed type from %s to %s inside a normalized value", name(toks), ka, kb)
		}
		return
	}
	keys := make([]string, 0, len(am)+len(bm))
	for k := range am {
		keys = append(keys, k)
	}
	for k := range bm {
		if _, ok := am[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		sub := append(slices.Clip(toks), k)
		x, inA := am[k]
		y, inB := bm[k]
		switch {
		case !inA:
			d.add("PROPERTY_ADDED_OPEN", ptr(c.newBase, sub), "new", nil, nil, "member %s (%s) was added inside a normalized value", name(sub), shapeKind(y))
		case !inB:
			d.add("REQUIRED_REMOVED", ptr(c.oldBase, sub), "old", nil, nil, "member %s (%s) is gone from inside a normalized value", name(sub), shapeKind(x))
		default:
			d.shape(x, y, c, sub)
		}
	}
}

// mergedItems turns an array shape (its distinct item shapes) whose items
// are all objects into one object shape with every member any item has, so
// arrays of records compare member by member; other shapes are returned as
// they are.
func mergedItems(s any) any {
	items, ok := s.([]any)
	if !ok || len(items) == 0 {
		return s
	}
	merged := map[string]any{}
	for _, it := range items {
		m, isObj := it.(map[string]any)
		if !isObj {
			return s
		}
		for k, v := range m {
			if _, seen := merged[k]; !seen {
				merged[k] = v
			}
		}
	}
	return merged
}

// shapeKind names a shape's JSON type.
func shapeKind(s any) string {
	switch x := s.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return x
	}
	return "value"
}

// outcome is a reply frame's outcome in the envelope (success or error),
// or "".
func (d *differ) outcome(f any) string {
	if d.env == nil {
		return ""
	}
	if c := d.env.Classify(f); c != nil && c.Kind == envelope.Reply {
		return c.Outcome(f)
	}
	return ""
}

func strOrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func exitWords(e string) string {
	if e == "" {
		return "not ending by itself"
	}
	return "exit " + strconv.Quote(e)
}

// frameKeys names each frame by what it answers or asks, so frames pair
// across recordings whatever their sorted position: its identity in the
// envelope (`reply to "req-1"`, `request 7`, `cancel of "a"`, or the
// class, id and keys and " frame": `notification notifications/progress
// frame`), or "frame" without an envelope; a repeated name gets " (#2)", " (#3)", ...
// in sorted order.
func (d *differ) frameKeys(frames []any) []string {
	keys := make([]string, len(frames))
	seen := map[string]int{}
	for i, f := range frames {
		k := "frame"
		if d.env != nil {
			c := d.env.Classify(f)
			id, hasID := any(nil), false
			if c != nil {
				id, hasID = c.ID(f)
			}
			switch {
			case c == nil:
			case hasID && c.Kind == envelope.Reply:
				k = "reply to " + envelope.Key(id)
			case hasID && c.Kind == envelope.Request:
				k = "request " + envelope.Key(id)
			case hasID && c.Kind == envelope.Cancel:
				k = "cancel of " + envelope.Key(id)
			default:
				k, _ = d.env.Identity(f)
				k += " frame"
			}
		}
		seen[k]++
		if n := seen[k]; n > 1 {
			k += fmt.Sprintf(" (#%d)", n)
		}
		keys[i] = k
	}
	return keys
}

// frameCtx locates a value inside a frame: the frame's pointer in each
// summary, and the (new) frame itself (for the envelope rule).
type frameCtx struct {
	oldBase, newBase string
	frame            any
}

// envelopeMember reports whether the member at toks (relative to the
// frame) is part of the frame's envelope: a member of the frame itself, or
// of an object on the way to its correlation id, method or outcome.
func (d *differ) envelopeMember(c frameCtx, toks []string) bool {
	if d.env == nil {
		return len(toks) == 1
	}
	return d.env.EnvelopeMember(c.frame, toks)
}

func ptr(base string, toks []string) string {
	var b strings.Builder
	b.WriteString(base)
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(canon.EscapePointer(t))
	}
	return b.String()
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "number"
}

// value compares a and b at toks (relative to the frame).
func (d *differ) value(a, b any, c frameCtx, toks []string) {
	ka, kb := kind(a), kind(b)
	if ka != kb {
		rule := "TYPE_CHANGED"
		if d.envelopeMember(c, toks) {
			rule = "ENVELOPE_RESTRUCTURED"
		}
		d.add(rule, ptr(c.newBase, toks), "new", orNull(a), orNull(b), "%s changed type from %s to %s", name(toks), ka, kb)
		return
	}
	switch av := a.(type) {
	case map[string]any:
		bv := b.(map[string]any)
		keys := make([]string, 0, len(av)+len(bv))
		for k := range av {
			keys = append(keys, k)
		}
		for k := range bv {
			if _, ok := av[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			sub := append(slices.Clip(toks), k)
			x, inA := av[k]
			y, inB := bv[k]
			switch {
			case !inA:
				d.add("PROPERTY_ADDED_OPEN", ptr(c.newBase, sub), "new", nil, orNull(y), "member %s was added", name(sub))
			case !inB:
				rule := "REQUIRED_REMOVED"
				if d.envelopeMember(c, sub) {
					rule = "ENVELOPE_RESTRUCTURED"
				}
				d.add(rule, ptr(c.oldBase, sub), "old", orNull(x), nil, "member %s is gone", name(sub))
			default:
				d.value(x, y, c, sub)
			}
		}
	case []any:
		bv := b.([]any)
		for i := range min(len(av), len(bv)) {
			d.value(av[i], bv[i], c, append(slices.Clip(toks), strconv.Itoa(i)))
		}
		for i := len(av); i < len(bv); i++ {
			sub := append(slices.Clip(toks), strconv.Itoa(i))
			d.add("ITEM_ADDED", ptr(c.newBase, sub), "new", nil, orNull(bv[i]), "array %s has a new item %d", name(toks), i)
		}
		for i := len(bv); i < len(av); i++ {
			sub := append(slices.Clip(toks), strconv.Itoa(i))
			d.add("ITEM_REMOVED", ptr(c.oldBase, sub), "old", orNull(av[i]), nil, "array %s lost item %d", name(toks), i)
		}
	case string:
		bs := b.(string)
		if av == bs {
			return
		}
		member := ""
		if len(toks) > 0 {
			member = toks[len(toks)-1]
		}
		rule := "TEXT_CHANGED"
		switch {
		case slices.Contains(d.discriminators, member):
			rule = "DISCRIMINATOR_CHANGED"
		case slices.Contains(d.codes, member):
			rule = "ENUM_VALUE_ADDED"
		case d.enums[member] != nil:
			rule = "ENUM_VALUE_ADDED"
			if d.enums[member][bs] {
				rule = "VALUE_CHANGED"
			}
		}
		d.add(rule, ptr(c.newBase, toks), "new", a, b, "%s changed from %q to %q", name(toks), av, bs)
	default:
		ca, _ := canon.Canonical(orNull(a))
		cb, _ := canon.Canonical(orNull(b))
		if string(ca) != string(cb) {
			d.add("VALUE_CHANGED", ptr(c.newBase, toks), "new", orNull(a), orNull(b), "%s changed from %s to %s", name(toks), ca, cb)
		}
	}
}

// name is a member's path for messages, e.g. "response.error_code".
func name(toks []string) string {
	if len(toks) == 0 {
		return "the frame"
	}
	return strconv.Quote(strings.Join(toks, "."))
}

// EnumValues collects, from a JSON Schema document (decoded JSON), every
// property name whose schema gives string values by enum or const,
// following local $ref and anyOf/oneOf/allOf branches, with those values;
// the names in skip (the envelope's discriminators) are left out. The
// result feeds [Options].EnumValues.
func EnumValues(schema any, skip []string) map[string][]string {
	out := map[string][]string{}
	seen := map[string]map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if props, ok := x["properties"].(map[string]any); ok {
				for name, sub := range props {
					if slices.Contains(skip, name) {
						continue
					}
					for _, val := range stringValues(schema, sub, 0) {
						if seen[name] == nil {
							seen[name] = map[string]bool{}
						}
						if !seen[name][val] {
							seen[name][val] = true
							out[name] = append(out[name], val)
						}
					}
				}
			}
			for _, sub := range x {
				walk(sub)
			}
		case []any:
			for _, sub := range x {
				walk(sub)
			}
		}
	}
	walk(schema)
	for k := range out {
		slices.Sort(out[k])
	}
	return out
}

// stringValues returns the enum and const strings of the schema s (and of
// its local $ref target and combinator branches, to a small depth).
func stringValues(root, s any, depth int) []string {
	m, ok := s.(map[string]any)
	if !ok || depth > 8 {
		return nil
	}
	var vals []string
	if c, ok := m["const"].(string); ok {
		vals = append(vals, c)
	}
	if e, ok := m["enum"].([]any); ok {
		for _, x := range e {
			if s, ok := x.(string); ok {
				vals = append(vals, s)
			}
		}
	}
	if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#/") {
		vals = append(vals, stringValues(root, resolve(root, ref), depth+1)...)
	}
	for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
		if bs, ok := m[kw].([]any); ok {
			for _, b := range bs {
				vals = append(vals, stringValues(root, b, depth+1)...)
			}
		}
	}
	return vals
}

func resolve(root any, ref string) any {
	cur := root
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		tok = canon.UnescapePointer(tok)
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	return cur
}
