// Package envelope is a protocol's envelope as suite data: which frames are
// requests, replies, notifications and cancels, where a frame's
// correlation id and method are, which replies are successes and which
// errors, and which frames a runner passes over or tolerates. It knows no
// member name of any protocol: suite.json declares them
// (docs/suite-format.md "The envelope"), and every other package asks this
// one.
//
// Frames are the values canon.Parse returns (map[string]any, []any,
// json.Number, string, bool, nil). Locations are RFC 6901 JSON Pointers.
package envelope

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
)

// Frame kinds ([ClassSpec.Kind]).
const (
	// Request expects one reply carrying the same correlation id.
	Request = "request"
	// Reply answers the request whose correlation id it carries.
	Reply = "reply"
	// Notification expects no reply.
	Notification = "notification"
	// Cancel withdraws the request whose correlation id it carries.
	Cancel = "cancel"
	// Other is any other frame of the protocol.
	Other = "other"
)

// Outcomes of a reply ([Class.Outcome]).
const (
	Success = "success"
	Error   = "error"
)

// Spec is the envelope block of one suite version in suite.json.
//
//	{"frames": [{"name": "response", "kind": "reply", "when": [...], "id": "/id",
//	             "success": [...], "error": [...]}, ...],
//	 "replyBody": "#/$defs/ResultByMethod/properties",
//	 "discriminators": ["kind"]}
type Spec struct {
	// Frames are the frame classes, tried in order: a frame belongs to the
	// first whose When holds.
	Frames []ClassSpec `json:"frames"`
	// ReplyBody, when set, is a JSON Pointer fragment ("#/...") into the
	// version's schema to an object keyed by method name: a success reply
	// to a request of that method must validate against that member.
	ReplyBody string `json:"replyBody,omitempty"`
	// Discriminators are member names whose value selects a shape (a
	// frame's kind, a body's shape): objects that differ there are
	// another kind of object, reported once.
	Discriminators []string `json:"discriminators,omitempty"`
	// Codes are member names whose string values are machine-readable
	// codes from an open set (an error code): drift calls a new value
	// additive, not free text.
	Codes []string `json:"codes,omitempty"`
}

// ClassSpec is one frame class of a [Spec].
type ClassSpec struct {
	// Name labels frames of the class in reports ("response").
	Name string `json:"name"`
	// Kind is one of Request, Reply, Notification, Cancel, Other.
	Kind string      `json:"kind"`
	When []Predicate `json:"when"`
	// ID is the pointer to the correlation id (required for requests,
	// replies and cancels).
	ID string `json:"id,omitempty"`
	// Method is the pointer to the method (required for requests).
	Method string `json:"method,omitempty"`
	// Success and Error tell a reply's outcome.
	Success []Predicate `json:"success,omitempty"`
	Error   []Predicate `json:"error,omitempty"`
	// Key lists more pointers whose values tell frames of the class apart
	// when frames are paired ([Envelope.Identity]).
	Key []string `json:"key,omitempty"`
}

// Predicate tests one location of a frame; exactly one test is set.
//
//	{"path": "/kind", "equals": "request"}
//	{"path": "/type", "in": ["system", "assistant"]}
//	{"path": "/method", "prefix": "notifications/"}
//	{"path": "/id", "present": true}
//	{"path": "/id", "absent": true}
//	{"path": "/result/tools", "some": [{"path": "/name", "equals": "echo"}]}
//	{"path": "/result", "not": [{"path": "/isError", "equals": true}]}
//
// Equals and In compare RFC 8785 forms, so 1 and 1.0 are equal and "1" and
// 1 are not. Present holds for any value, null included. Some holds when
// the value is an array with an element for which every nested predicate
// holds (their paths relative to the element); Not when the value is
// present and not every nested predicate holds for it.
type Predicate struct {
	Path    string            `json:"path"`
	Equals  json.RawMessage   `json:"equals,omitempty"`
	In      []json.RawMessage `json:"in,omitempty"`
	Prefix  *string           `json:"prefix,omitempty"`
	Present bool              `json:"present,omitempty"`
	Absent  bool              `json:"absent,omitempty"`
	Some    []Predicate       `json:"some,omitempty"`
	Not     []Predicate       `json:"not,omitempty"`
}

// Envelope is a compiled [Spec]. Its methods are safe for concurrent use.
type Envelope struct {
	classes        []*Class
	reply          *Class
	replyBody      string
	discriminators []string
	codes          []string
	locations      []Location
}

// Location is a place a reader of frames must look at: its pointer tokens,
// and whether the value there is read (Value) or only its presence.
type Location struct {
	Tokens []string
	Value  bool
}

// Opaque stands for a value that is present but was not read (see
// [Location]): present and absent tests see it; it equals nothing.
type Opaque struct{}

// Class is a compiled [ClassSpec].
type Class struct {
	Name string
	Kind string

	when            Match
	id, method      []string
	hasID, hasMeth  bool
	success, errorP Match
	key             [][]string
}

// Match is a compiled list of predicates: it holds when every predicate
// holds (an empty Match always holds).
type Match []pred

type pred struct {
	path   string
	tokens []string
	test   int
	// want holds the RFC 8785 forms of equals (one) or in (several).
	want   []string
	prefix string
	// sub is the nested match of some and not.
	sub Match
}

const (
	testEquals = iota
	testIn
	testPrefix
	testPresent
	testAbsent
	testSome
	testNot
)

var nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// Compile checks and compiles spec. Errors (plain, for the caller to wrap
// with SUITE_INVALID): no frame class, a class without a name or with an
// unknown kind, a duplicate name, a request, reply or cancel class without
// an id pointer, a request class without a method pointer, a bad pointer
// or predicate.
func Compile(spec Spec) (*Envelope, error) {
	if len(spec.Frames) == 0 {
		return nil, fmt.Errorf("envelope: no frame classes")
	}
	e := &Envelope{replyBody: spec.ReplyBody, discriminators: spec.Discriminators, codes: spec.Codes}
	seen := map[string]bool{}
	for i, cs := range spec.Frames {
		where := fmt.Sprintf("envelope frames[%d]", i)
		if !nameRE.MatchString(cs.Name) {
			return nil, fmt.Errorf("%s: name %q is not a name (letters, digits, _ . -)", where, cs.Name)
		}
		if seen[cs.Name] {
			return nil, fmt.Errorf("%s: name %q is used twice", where, cs.Name)
		}
		seen[cs.Name] = true
		c := &Class{Name: cs.Name, Kind: cs.Kind}
		switch cs.Kind {
		case Request, Reply, Cancel:
			if cs.ID == "" {
				return nil, fmt.Errorf("%s (%s): a %s class needs an id pointer", where, cs.Name, cs.Kind)
			}
		case Notification, Other:
		default:
			return nil, fmt.Errorf("%s (%s): kind %q is not request, reply, notification, cancel or other", where, cs.Name, cs.Kind)
		}
		if cs.Kind == Request && cs.Method == "" {
			return nil, fmt.Errorf("%s (%s): a request class needs a method pointer", where, cs.Name)
		}
		if cs.Kind != Reply && (len(cs.Success) > 0 || len(cs.Error) > 0) {
			return nil, fmt.Errorf("%s (%s): success and error are for reply classes", where, cs.Name)
		}
		var err error
		if c.when, err = CompileMatch(cs.When); err != nil {
			return nil, fmt.Errorf("%s (%s) when: %w", where, cs.Name, err)
		}
		if c.success, err = CompileMatch(cs.Success); err != nil {
			return nil, fmt.Errorf("%s (%s) success: %w", where, cs.Name, err)
		}
		if c.errorP, err = CompileMatch(cs.Error); err != nil {
			return nil, fmt.Errorf("%s (%s) error: %w", where, cs.Name, err)
		}
		if cs.ID != "" {
			if c.id, err = Tokens(cs.ID); err != nil {
				return nil, fmt.Errorf("%s (%s) id: %w", where, cs.Name, err)
			}
			c.hasID = true
		}
		if cs.Method != "" {
			if c.method, err = Tokens(cs.Method); err != nil {
				return nil, fmt.Errorf("%s (%s) method: %w", where, cs.Name, err)
			}
			c.hasMeth = true
		}
		for _, k := range cs.Key {
			t, err := Tokens(k)
			if err != nil {
				return nil, fmt.Errorf("%s (%s) key: %w", where, cs.Name, err)
			}
			c.key = append(c.key, t)
		}
		if c.Kind == Reply && e.reply == nil {
			e.reply = c
		}
		e.classes = append(e.classes, c)
		e.locations = append(e.locations, c.locations()...)
	}
	return e, nil
}

// CompileMatch compiles a list of predicates. Errors: a bad pointer, a
// predicate with no test or more than one, an equals or in value that is not
// JSON.
func CompileMatch(ps []Predicate) (Match, error) {
	out := make(Match, 0, len(ps))
	for i, p := range ps {
		toks, err := Tokens(p.Path)
		if err != nil {
			return nil, fmt.Errorf("predicate %d: %w", i, err)
		}
		c := pred{path: p.Path, tokens: toks}
		n := 0
		if p.Equals != nil {
			n++
			c.test = testEquals
			k, err := canon.CanonicalBytes(p.Equals)
			if err != nil {
				return nil, fmt.Errorf("predicate %d (%s): equals: %w", i, p.Path, err)
			}
			c.want = []string{string(k)}
		}
		if p.In != nil {
			n++
			c.test = testIn
			for _, v := range p.In {
				k, err := canon.CanonicalBytes(v)
				if err != nil {
					return nil, fmt.Errorf("predicate %d (%s): in: %w", i, p.Path, err)
				}
				c.want = append(c.want, string(k))
			}
		}
		if p.Prefix != nil {
			n++
			c.test, c.prefix = testPrefix, *p.Prefix
		}
		if p.Present {
			n++
			c.test = testPresent
		}
		if p.Absent {
			n++
			c.test = testAbsent
		}
		for _, nested := range []struct {
			list []Predicate
			test int
			name string
		}{{p.Some, testSome, "some"}, {p.Not, testNot, "not"}} {
			if nested.list == nil {
				continue
			}
			n++
			c.test = nested.test
			if len(nested.list) == 0 {
				return nil, fmt.Errorf("predicate %d (%s): %s has no predicate", i, p.Path, nested.name)
			}
			sub, err := CompileMatch(nested.list)
			if err != nil {
				return nil, fmt.Errorf("predicate %d (%s) %s: %w", i, p.Path, nested.name, err)
			}
			c.sub = sub
		}
		if n != 1 {
			return nil, fmt.Errorf("predicate %d (%s): needs exactly one of equals, in, prefix, present, absent, some, not (has %d)", i, p.Path, n)
		}
		out = append(out, c)
	}
	return out, nil
}

// Tokens splits an RFC 6901 JSON Pointer ("/a/b~1c") into its unescaped
// reference tokens; "" (the whole value) gives none. Errors: a non-empty
// pointer that does not start with "/", or a "~" not followed by 0 or 1.
func Tokens(ptr string) ([]string, error) {
	if ptr == "" {
		return nil, nil
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("%q is not a JSON Pointer (RFC 6901: it starts with \"/\")", ptr)
	}
	toks := strings.Split(ptr[1:], "/")
	for i, t := range toks {
		for j := 0; j < len(t); j++ {
			if t[j] == '~' && (j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1')) {
				return nil, fmt.Errorf("%q: \"~\" must be followed by 0 or 1 (RFC 6901 §3)", ptr)
			}
		}
		toks[i] = canon.UnescapePointer(t)
	}
	return toks, nil
}

// Lookup returns the value at the pointer tokens of v, and whether there is
// one. An array index is a decimal token without leading zeros.
func Lookup(v any, tokens []string) (any, bool) {
	for _, t := range tokens {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[t]; !ok {
				return nil, false
			}
		case Opaque:
			return nil, false
		case []any:
			i, ok := index(t)
			if !ok || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func index(t string) (int, bool) {
	if t == "" || len(t) > 9 || (len(t) > 1 && t[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return 0, false
		}
		n = n*10 + int(t[i]-'0')
	}
	return n, true
}

// Holds reports whether every predicate of m holds for frame.
func (m Match) Holds(frame any) bool {
	for i := range m {
		if !m[i].holds(frame) {
			return false
		}
	}
	return true
}

// Failing returns the first predicate of m that does not hold for frame,
// written as in suite.json, or "" when all hold.
func (m Match) Failing(frame any) string {
	for i := range m {
		if !m[i].holds(frame) {
			return m[i].String()
		}
	}
	return ""
}

// String renders the predicate as it is written in suite.json.
func (p pred) String() string {
	var test string
	switch p.test {
	case testEquals:
		test = `"equals": ` + p.want[0]
	case testIn:
		test = `"in": [` + strings.Join(p.want, ", ") + `]`
	case testPrefix:
		b, _ := canon.Canonical(p.prefix)
		test = `"prefix": ` + string(b)
	case testPresent:
		test = `"present": true`
	case testAbsent:
		test = `"absent": true`
	case testSome, testNot:
		parts := make([]string, len(p.sub))
		for i, q := range p.sub {
			parts[i] = q.String()
		}
		name := "some"
		if p.test == testNot {
			name = "not"
		}
		test = `"` + name + `": [` + strings.Join(parts, ", ") + `]`
	}
	b, _ := canon.Canonical(p.path)
	return `{"path": ` + string(b) + ", " + test + "}"
}

func (p *pred) holds(frame any) bool {
	v, ok := Lookup(frame, p.tokens)
	switch p.test {
	case testPresent:
		return ok
	case testAbsent:
		return !ok
	case testPrefix:
		s, isStr := v.(string)
		return ok && isStr && strings.HasPrefix(s, p.prefix)
	case testSome:
		arr, isArr := v.([]any)
		for _, e := range arr {
			if isArr && p.sub.Holds(e) {
				return true
			}
		}
		return false
	case testNot:
		return ok && !p.sub.Holds(v)
	}
	if !ok {
		return false
	}
	if x, isStr := v.(string); isStr && plain(x) {
		// Key(x) is x quoted: compare without building it (a frame is
		// classified by a few of these each).
		for _, w := range p.want {
			if len(w) == len(x)+2 && w[0] == '"' && w[len(w)-1] == '"' && w[1:len(w)-1] == x {
				return true
			}
		}
		return false
	}
	k := Key(v)
	for _, w := range p.want {
		if k == w {
			return true
		}
	}
	return false
}

// Key returns the RFC 8785 text of a JSON value: the form correlation ids
// are compared and tracked by, so "1" and 1 are different ids and 1 and
// 1.0 the same. A value without an RFC 8785 form (an inexact number)
// gives its Go rendering after a NUL byte, which never equals a canonical
// text.
func Key(v any) string {
	switch x := v.(type) {
	case string:
		if plain(x) {
			return `"` + x + `"`
		}
	case Opaque:
		return "\x00opaque"
	}
	b, err := canon.Canonical(v)
	if err != nil {
		return fmt.Sprintf("\x00%#v", v)
	}
	return string(b)
}

// StringKey is [Key] of the string s, without boxing s in an interface
// (conform validate makes one for each line's correlation id).
func StringKey(s string) string {
	if plain(s) {
		return `"` + s + `"`
	}
	return Key(s)
}

// plain reports whether s is written as itself between quotes in RFC 8785
// form: printable ASCII without '"' and '\\'.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// Classify returns the class of frame (the first whose When holds), or nil.
func (e *Envelope) Classify(frame any) *Class {
	for _, c := range e.classes {
		if c.when.Holds(frame) {
			return c
		}
	}
	return nil
}

// Classes returns the frame classes in the order they are tried.
func (e *Envelope) Classes() []*Class { return e.classes }

// ReplyClass returns the first class of kind Reply, or nil: the class
// whose id pointer a scripted peer's reply gets the request's id at.
func (e *Envelope) ReplyClass() *Class { return e.reply }

// ReplyBody returns the Spec's ReplyBody fragment ("" when unset).
func (e *Envelope) ReplyBody() string { return e.replyBody }

// Discriminators returns the Spec's discriminator member names.
func (e *Envelope) Discriminators() []string { return e.discriminators }

// Codes returns the Spec's code member names.
func (e *Envelope) Codes() []string { return e.codes }

// Locations returns every location the envelope reads (class predicates,
// ids, methods, keys) and, after them, those of rules: what a reader that
// does not build a whole frame (a 64 MiB line, a tape) must capture so
// that [Envelope.Classify], the classes' methods and the rules' matches
// give on its [Skeleton] what they give on the frame.
func (e *Envelope) Locations(rules ...[]Rule) []Location {
	out := e.locations
	for _, rs := range rules {
		for _, r := range rs {
			out = append(slices.Clip(out), r.Match.locations()...)
		}
	}
	return out
}

func (c *Class) locations() []Location {
	var out []Location
	for _, m := range []Match{c.when, c.success, c.errorP} {
		out = append(out, m.locations()...)
	}
	if c.hasID {
		out = append(out, Location{Tokens: c.id, Value: true})
	}
	if c.hasMeth {
		out = append(out, Location{Tokens: c.method, Value: true})
	}
	for _, k := range c.key {
		out = append(out, Location{Tokens: k, Value: true})
	}
	return out
}

func (m Match) locations() []Location {
	out := make([]Location, len(m))
	for i, p := range m {
		out[i] = Location{Tokens: p.tokens, Value: p.test != testPresent && p.test != testAbsent}
	}
	return out
}

// SetAt sets v at the pointer tokens of skel, making objects on the way
// (an array index is kept as an object member, which [Lookup] finds the
// same way): how a reader builds a skeleton of a frame from its
// [Location]s. A location whose parent was set to a non-object value is
// left alone, and Opaque never replaces a value already set.
func SetAt(skel map[string]any, tokens []string, v any) {
	cur := skel
	for i, t := range tokens {
		if i == len(tokens)-1 {
			if _, set := cur[t]; !set || v != (Opaque{}) {
				cur[t] = v // Opaque never hides what was read
			}
			return
		}
		next, ok := cur[t]
		if _, opaque := next.(Opaque); !ok || opaque {
			m := map[string]any{}
			cur[t] = m
			cur = m
			continue
		}
		m, isObj := next.(map[string]any)
		if !isObj {
			return
		}
		cur = m
	}
}

// ID returns the frame's correlation id and whether it has one (a class
// without an id pointer has none).
func (c *Class) ID(frame any) (any, bool) {
	if !c.hasID {
		return nil, false
	}
	return Lookup(frame, c.id)
}

// IDPointer returns the class's id pointer tokens (nil when it has none).
func (c *Class) IDPointer() []string { return c.id }

// Method returns the frame's method: the string at the method pointer, or
// "" when there is none or it is not a string.
func (c *Class) Method(frame any) string {
	if !c.hasMeth {
		return ""
	}
	v, _ := Lookup(frame, c.method)
	s, _ := v.(string)
	return s
}

// Outcome returns Success or Error for a reply whose success or error
// predicates hold (success is tried first), or "".
func (c *Class) Outcome(frame any) string {
	switch {
	case len(c.success) > 0 && c.success.Holds(frame):
		return Success
	case len(c.errorP) > 0 && c.errorP.Holds(frame):
		return Error
	}
	return ""
}

// Identity returns a frame's pairing key and its label: its class name,
// then its correlation id (RFC 8785 text) and the values at the class's key
// pointers, space-separated (`response "r-1"`, `notification
// "notifications/progress"`). Frames that match no class are "frame".
func (e *Envelope) Identity(frame any) (key, label string) {
	var c *Class
	if e != nil {
		c = e.Classify(frame)
	}
	if c == nil {
		return "frame", "frame"
	}
	parts := []string{c.Name}
	if id, ok := c.ID(frame); ok {
		parts = append(parts, Key(id))
	}
	for _, k := range c.key {
		if v, ok := Lookup(frame, k); ok {
			if s, isStr := v.(string); isStr {
				parts = append(parts, s)
			} else {
				parts = append(parts, Key(v))
			}
		}
	}
	s := strings.Join(parts, " ")
	return s, s
}

// EnvelopeMember reports whether the member at pointer tokens of a frame is
// part of the frame's envelope: a member of the frame itself, or a member
// of an object on the way to the locations that make the frame what it is
// and correlate it (its class's when predicates, id, and success and error
// predicates: for a reply that wraps its body, the members of that body's
// wrapper). The method and key locations do not count: a request's
// parameters beside its method are its payload.
func (e *Envelope) EnvelopeMember(frame any, tokens []string) bool {
	if len(tokens) <= 1 {
		return true
	}
	c := e.Classify(frame)
	if c == nil {
		return false
	}
	parent := tokens[:len(tokens)-1]
	var locs [][]string
	for _, m := range []Match{c.when, c.success, c.errorP} {
		for _, p := range m {
			locs = append(locs, p.tokens)
		}
	}
	if c.hasID {
		locs = append(locs, c.id)
	}
	for _, l := range locs {
		if len(l) > len(parent) && prefixOf(parent, l) {
			return true
		}
	}
	return false
}

func prefixOf(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// WithID returns a deep copy of template with id set at the class's id
// pointer, objects made on the way where needed (a scripted peer's reply
// to a request of the IUT). A template whose path to the id goes through a
// non-object is returned with the id not set and ok false.
func (c *Class) WithID(template, id any) (frame any, ok bool) {
	return Set(template, c.id, id)
}

// Set returns a deep copy of v with x set at the pointer tokens, objects
// made on the way where a member is missing (a frame built from a
// template: a peer's reply, a send frame with bindings). With no tokens it
// returns x. A path through a non-object (an array, a scalar) leaves the
// copy unchanged there, and ok is false.
func Set(v any, tokens []string, x any) (out any, ok bool) {
	out = deepCopy(v)
	if len(tokens) == 0 {
		return x, true
	}
	if out == nil {
		out = map[string]any{}
	}
	cur, isObj := out.(map[string]any)
	if !isObj {
		return out, false
	}
	for i, t := range tokens {
		if i == len(tokens)-1 {
			cur[t] = x
			return out, true
		}
		next, exists := cur[t]
		if !exists {
			next = map[string]any{}
			cur[t] = next
		}
		if cur, isObj = next.(map[string]any); !isObj {
			return out, false
		}
	}
	return out, true
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	}
	return v
}
