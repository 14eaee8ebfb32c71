package envelope_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/envelope"
)

// jsonrpc is the envelope of JSON-RPC 2.0 (as an MCP suite declares it).
const jsonrpc = `{"frames": [
  {"name": "response", "kind": "reply", "when": [{"path": "/method", "absent": true}, {"path": "/id", "present": true}],
   "id": "/id", "success": [{"path": "/result", "present": true}], "error": [{"path": "/error", "present": true}]},
  {"name": "cancelled", "kind": "cancel", "when": [{"path": "/method", "equals": "notifications/cancelled"}], "id": "/params/requestId", "method": "/method"},
  {"name": "request", "kind": "request", "when": [{"path": "/method", "present": true}, {"path": "/id", "present": true}], "id": "/id", "method": "/method"},
  {"name": "notification", "kind": "notification", "when": [{"path": "/method", "present": true}, {"path": "/id", "absent": true}], "method": "/method", "key": ["/method"]}
], "discriminators": ["type"]}`

// nested is an envelope whose correlation id and outcome are one object
// down (the shape of a reply that wraps its body).
const nested = `{"frames": [
  {"name": "ask", "kind": "request", "when": [{"path": "/kind", "equals": "ask"}], "id": "/ref", "method": "/body/op"},
  {"name": "answer", "kind": "reply", "when": [{"path": "/kind", "equals": "answer"}], "id": "/body/ref",
   "success": [{"path": "/body/ok", "equals": true}], "error": [{"path": "/body/ok", "equals": false}]},
  {"name": "note", "kind": "other", "when": [{"path": "/kind", "in": ["note", "warning"]}], "id": "/ref", "key": ["/code"]}
]}`

func compile(t *testing.T, spec string) *envelope.Envelope {
	t.Helper()
	var s envelope.Spec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		t.Fatal(err)
	}
	e, err := envelope.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func parse(t *testing.T, s string) any {
	t.Helper()
	v, err := canon.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestClassify: frames go to the first class whose predicates hold; ids,
// methods, outcomes and identities are read where the class says.
func TestClassify(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env, frame              string
		class, kind, id, method string
		outcome, identity       string
	}{
		{jsonrpc, `{"jsonrpc":"2.0","id":1,"result":{}}`, "response", envelope.Reply, "1", "", envelope.Success, "response 1"},
		{jsonrpc, `{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"x"}}`, "response", envelope.Reply, `"a"`, "", envelope.Error, `response "a"`},
		{jsonrpc, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, "response", envelope.Reply, "null", "", envelope.Error, "response null"},
		{jsonrpc, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, "request", envelope.Request, "7", "tools/list", "", "request 7"},
		{jsonrpc, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, "cancelled", envelope.Cancel, "7", "notifications/cancelled", "", "cancelled 7"},
		{jsonrpc, `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, "notification", envelope.Notification, "", "notifications/progress", "", "notification notifications/progress"},
		{jsonrpc, `{"jsonrpc":"2.0"}`, "", "", "", "", "", "frame"},
		{nested, `{"kind":"ask","ref":"r1","body":{"op":"go"}}`, "ask", envelope.Request, `"r1"`, "go", "", `ask "r1"`},
		{nested, `{"kind":"answer","body":{"ref":"r1","ok":true}}`, "answer", envelope.Reply, `"r1"`, "", envelope.Success, `answer "r1"`},
		{nested, `{"kind":"answer","body":{"ref":"r1","ok":false}}`, "answer", envelope.Reply, `"r1"`, "", envelope.Error, `answer "r1"`},
		{nested, `{"kind":"answer","body":{"ref":"r1"}}`, "answer", envelope.Reply, `"r1"`, "", "", `answer "r1"`},
		{nested, `{"kind":"warning","ref":2,"code":"late"}`, "note", envelope.Other, "2", "", "", "note 2 late"},
		{nested, `{"kind":"ask","body":{"op":7}}`, "ask", envelope.Request, "", "", "", "ask"},
	} {
		e := compile(t, tc.env)
		f := parse(t, tc.frame)
		c := e.Classify(f)
		got := struct{ Class, Kind, ID, Method, Outcome, Identity string }{}
		if c != nil {
			got.Class, got.Kind, got.Method, got.Outcome = c.Name, c.Kind, c.Method(f), c.Outcome(f)
			if id, ok := c.ID(f); ok {
				got.ID = envelope.Key(id)
			}
		}
		got.Identity, _ = e.Identity(f)
		want := struct{ Class, Kind, ID, Method, Outcome, Identity string }{tc.class, tc.kind, tc.id, tc.method, tc.outcome, tc.identity}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.frame, diff)
		}
	}
}

// TestPredicates: equals and in compare RFC 8785 forms (1 and 1.0 equal,
// "1" and 1 not), prefix needs a string, present counts null, absent is
// its opposite; a pointer reaches into arrays by index.
func TestPredicates(t *testing.T) {
	t.Parallel()
	frame := `{"a":1.0,"s":"notifications/x","n":null,"arr":[{"k":"v"}],"o":{"~/":true}}`
	for _, tc := range []struct {
		pred string
		want bool
	}{
		{`{"path":"/a","equals":1}`, true},
		{`{"path":"/a","equals":"1"}`, false},
		{`{"path":"/a","in":["x",1e0]}`, true},
		{`{"path":"/s","prefix":"notifications/"}`, true},
		{`{"path":"/a","prefix":"1"}`, false},
		{`{"path":"/n","present":true}`, true},
		{`{"path":"/n","absent":true}`, false},
		{`{"path":"/missing","absent":true}`, true},
		{`{"path":"/arr/0/k","equals":"v"}`, true},
		{`{"path":"/arr/1/k","present":true}`, false},
		{`{"path":"/arr/01/k","present":true}`, false},
		{`{"path":"/o/~0~1","equals":true}`, true},
		{`{"path":"","present":true}`, true},
	} {
		var p envelope.Predicate
		if err := json.Unmarshal([]byte(tc.pred), &p); err != nil {
			t.Fatal(err)
		}
		m, err := envelope.CompileMatch([]envelope.Predicate{p})
		if err != nil {
			t.Fatalf("%s: %v", tc.pred, err)
		}
		if got := m.Holds(parse(t, frame)); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.pred, got, tc.want)
		}
	}
}

// TestCompileErrors: each way a suite can get an envelope wrong is refused
// with a message that names the class.
func TestCompileErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ spec, want string }{
		{`{"frames":[]}`, "no frame classes"},
		{`{"frames":[{"name":"a b","kind":"other","when":[]}]}`, "is not a name"},
		{`{"frames":[{"name":"a","kind":"other","when":[]},{"name":"a","kind":"other","when":[]}]}`, "used twice"},
		{`{"frames":[{"name":"a","kind":"reply","when":[]}]}`, "needs an id pointer"},
		{`{"frames":[{"name":"a","kind":"request","when":[],"id":"/id"}]}`, "needs a method pointer"},
		{`{"frames":[{"name":"a","kind":"bogus","when":[]}]}`, "is not request, reply"},
		{`{"frames":[{"name":"a","kind":"other","when":[],"success":[{"path":"/x","present":true}]}]}`, "for reply classes"},
		{`{"frames":[{"name":"a","kind":"other","when":[{"path":"x","present":true}]}]}`, "is not a JSON Pointer"},
		{`{"frames":[{"name":"a","kind":"other","when":[{"path":"/x~2","present":true}]}]}`, "followed by 0 or 1"},
		{`{"frames":[{"name":"a","kind":"other","when":[{"path":"/x"}]}]}`, "exactly one of"},
		{`{"frames":[{"name":"a","kind":"other","when":[{"path":"/x","present":true,"equals":1}]}]}`, "exactly one of"},
	} {
		var s envelope.Spec
		if err := json.Unmarshal([]byte(tc.spec), &s); err != nil {
			t.Fatal(err)
		}
		_, err := envelope.Compile(s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.spec, err, tc.want)
		}
	}
}

// TestKey: the fast path for plain strings gives the RFC 8785 text, as the
// canonicalizer does for every value; a value without one never collides
// with a canonical text.
func TestKey(t *testing.T) {
	t.Parallel()
	for _, id := range []any{
		"req-1", "", "a\"b", `back\slash`, "tab\t", "\x7f", "<>&", "é😀", "\u2028\u2029",
		json.Number("1"), json.Number("1.0"), json.Number("-0"), json.Number("1e2"), nil, true,
		map[string]any{"b": json.Number("1"), "a": "x"}, []any{"x", json.Number("2")},
	} {
		want, err := canon.Canonical(id)
		if err != nil {
			t.Fatal(err)
		}
		if got := envelope.Key(id); got != string(want) {
			t.Errorf("Key(%#v) = %s, want %s", id, got, want)
		}
	}
	if k := envelope.Key(envelope.Opaque{}); k[0] != 0 {
		t.Errorf("Key(Opaque{}) = %q, want a NUL-prefixed text", k)
	}
}

// TestWithID: a scripted peer's reply gets the request's id at the reply
// class's id pointer, objects made on the way, the template untouched.
func TestWithID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ env, template, want string }{
		{jsonrpc, `{"jsonrpc":"2.0","result":{"roots":[]}}`, `{"id":"s-1","jsonrpc":"2.0","result":{"roots":[]}}`},
		{nested, `{"kind":"answer","body":{"ok":true}}`, `{"body":{"ok":true,"ref":"s-1"},"kind":"answer"}`},
		{nested, `{"kind":"answer"}`, `{"body":{"ref":"s-1"},"kind":"answer"}`},
	} {
		e := compile(t, tc.env)
		tmpl := parse(t, tc.template)
		got, ok := e.ReplyClass().WithID(tmpl, "s-1")
		b, _ := canon.Canonical(got)
		if !ok || string(b) != tc.want {
			t.Errorf("WithID(%s) = %s, %v; want %s", tc.template, b, ok, tc.want)
		}
		if b, _ := canon.Canonical(tmpl); string(b) != string(mustCanon(t, tc.template)) {
			t.Errorf("template changed: %s", b)
		}
	}
	e := compile(t, nested)
	if _, ok := e.ReplyClass().WithID(parse(t, `{"kind":"answer","body":3}`), "x"); ok {
		t.Error("WithID set an id through a number")
	}
}

func mustCanon(t *testing.T, s string) []byte {
	b, err := canon.CanonicalBytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSkeleton: a skeleton built from the envelope's locations (values
// where read, Opaque where only presence counts) classifies as the whole
// frame does.
func TestSkeleton(t *testing.T) {
	t.Parallel()
	e := compile(t, jsonrpc)
	for _, frame := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"big":[1,2,3]}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		`{"jsonrpc":"2.0","method":"notifications/message"}`,
	} {
		f := parse(t, frame)
		skel := map[string]any{}
		for _, l := range e.Locations() {
			v, ok := envelope.Lookup(f, l.Tokens)
			if !ok {
				continue
			}
			if !l.Value {
				v = envelope.Opaque{}
			}
			envelope.SetAt(skel, l.Tokens, v)
		}
		whole, part := e.Classify(f), e.Classify(skel)
		if whole != part {
			t.Errorf("%s: classified %v whole, %v as a skeleton", frame, whole.Name, part)
			continue
		}
		wk, _ := e.Identity(f)
		sk, _ := e.Identity(skel)
		if wk != sk || whole.Method(f) != part.Method(skel) || whole.Outcome(f) != part.Outcome(skel) {
			t.Errorf("%s: identity %q/%q, method %q/%q", frame, wk, sk, whole.Method(f), part.Method(skel))
		}
	}
}

// TestEnvelopeMember: the envelope's members are the frame's own and those
// of objects on the way to its id, method or outcome.
func TestEnvelopeMember(t *testing.T) {
	t.Parallel()
	e := compile(t, nested)
	f := parse(t, `{"kind":"answer","body":{"ref":"r","ok":true,"data":{"x":1}}}`)
	for _, tc := range []struct {
		ptr  []string
		want bool
	}{
		{[]string{"kind"}, true}, {[]string{"body"}, true}, {[]string{"body", "ok"}, true},
		{[]string{"body", "data"}, true}, {[]string{"body", "data", "x"}, false},
	} {
		if got := e.EnvelopeMember(f, tc.ptr); got != tc.want {
			t.Errorf("EnvelopeMember(%v) = %v, want %v", tc.ptr, got, tc.want)
		}
	}
	// A request's parameters beside its method are payload, not envelope.
	ask := parse(t, `{"kind":"ask","ref":"r","body":{"op":"go","arg":1}}`)
	if e.EnvelopeMember(ask, []string{"body", "arg"}) {
		t.Error("a member beside the method counted as envelope")
	}
}

// TestRules: passOver rules take no max or before; tolerate rules do; an
// empty when is refused.
func TestRules(t *testing.T) {
	t.Parallel()
	when := []envelope.Predicate{{Path: "/method", Present: true}}
	if _, err := envelope.CompileRules("passOver", []envelope.RuleSpec{{When: when, Max: 1}}, false); err == nil {
		t.Error("passOver with max compiled")
	}
	if _, err := envelope.CompileRules("tolerate", []envelope.RuleSpec{{When: nil}}, true); err == nil {
		t.Error("a rule without predicates compiled")
	}
	rs, err := envelope.CompileRules("tolerate", []envelope.RuleSpec{{When: when, Max: 2, Before: json.RawMessage(`"x"`)}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Before != `"x"` || rs[0].Max != 2 {
		t.Errorf("compiled %+v", rs[0])
	}
	if envelope.First(rs, parse(t, `{"method":"m"}`)) != 0 || envelope.First(rs, parse(t, `{"id":1}`)) != -1 {
		t.Error("First does not match as the predicates say")
	}
}

// TestSomeAndNot: some looks for an array element the nested predicates
// hold for; not holds when they do not all hold for a present value.
func TestSomeAndNot(t *testing.T) {
	t.Parallel()
	frame := parse(t, `{"result":{"tools":[{"name":"echo"},{"name":"add","x":1}],"isError":false}}`)
	for _, tc := range []struct {
		pred string
		want bool
	}{
		{`{"path":"/result/tools","some":[{"path":"/name","equals":"add"},{"path":"/x","present":true}]}`, true},
		{`{"path":"/result/tools","some":[{"path":"/name","equals":"echo"},{"path":"/x","present":true}]}`, false},
		{`{"path":"/result/isError","some":[{"path":"","present":true}]}`, false},
		{`{"path":"/result","not":[{"path":"/isError","equals":true}]}`, true},
		{`{"path":"/result","not":[{"path":"/isError","equals":false}]}`, false},
		{`{"path":"/missing","not":[{"path":"/a","present":true}]}`, false},
	} {
		var p envelope.Predicate
		if err := json.Unmarshal([]byte(tc.pred), &p); err != nil {
			t.Fatal(err)
		}
		m, err := envelope.CompileMatch([]envelope.Predicate{p})
		if err != nil {
			t.Fatalf("%s: %v", tc.pred, err)
		}
		if got := m.Holds(frame); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.pred, got, tc.want)
		}
	}
	if _, err := envelope.CompileMatch([]envelope.Predicate{{Path: "/a", Some: []envelope.Predicate{}}}); err == nil {
		t.Error("an empty some compiled")
	}
}
