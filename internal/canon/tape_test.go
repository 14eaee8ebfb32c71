package canon

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testSizes are the tape reader's sizes checkTape reads each text with:
// the real ones, then every text folded with every container (names in a
// set from the third member), then containers of 6 bytes or more folded
// (sets from the second).
var testSizes = []readSizes{
	{foldFrom, foldSpan, dupLinear},
	{0, 0, 2},
	{0, 6, 1},
}

// checkTape fails when the tape reader, with each of testSizes, accepts
// data that Parse refuses, refuses what Parse accepts, or reads a
// different value: through Value, member by member (Member and First,
// which unfold what is folded; a second time, unfolding nothing).
func checkTape(t *testing.T, data []byte) {
	t.Helper()
	want, err := Parse(data)
	for _, sz := range testSizes {
		var tp Tape
		tp.Nodes = append(tp.Nodes, Node{Kind: String, Str: "before"}) // texts share a tape
		root, ok := tp.append(string(data), sz)
		switch {
		case ok && err != nil:
			t.Fatalf("tape (sizes %v) reads %.200q, Parse refuses it: %v", sz, data, err)
		case !ok && err == nil:
			t.Fatalf("tape (sizes %v) refuses %.200q, Parse reads it", sz, data)
		case ok:
			if root != 1 || tp.Nodes[0].Str != "before" || int(tp.Nodes[root].Next) != len(tp.Nodes) {
				t.Fatalf("tape of %.200q: root %d, %d nodes, next %d", data, root, len(tp.Nodes), tp.Nodes[root].Next)
			}
			if got := tp.Value(root); !reflect.DeepEqual(want, got) {
				t.Fatalf("tape (sizes %v) of %.200q (-Parse +tape):\n%s", sz, data, cmp.Diff(want, got))
			}
			// Value unfolded everything: reading again unfolds nothing.
			n := len(tp.Nodes)
			checkNodes(t, &tp, root, want)
			if len(tp.Nodes) != n {
				t.Fatalf("tape (sizes %v) of %.200q: read again, %d nodes became %d", sz, data, n, len(tp.Nodes))
			}
		default:
			if len(tp.Nodes) != 1 || len(tp.folds) != 0 {
				t.Fatalf("a refused text left %d nodes and %d fold records on the tape", len(tp.Nodes)-1, len(tp.folds))
			}
		}
	}
}

// checkNodes compares the node at i with v member by member: each
// member through Member, each element through First and Next.
func checkNodes(t *testing.T, tp *Tape, i int, v any) {
	switch x := v.(type) {
	case map[string]any:
		if n := tp.Nodes[i]; n.Kind != Object || int(n.Len) != len(x) {
			t.Fatalf("node %d: kind %d, %d members, want an object of %d", i, n.Kind, n.Len, len(x))
		}
		j := tp.First(i)
		for range len(x) {
			e, ok := x[tp.Nodes[j].Key]
			if !ok {
				t.Fatalf("node %d: member %q is not in the object", j, tp.Nodes[j].Key)
			}
			checkNodes(t, tp, j, e)
			j = int(tp.Nodes[j].Next)
		}
		looked := 0
		for k, e := range x {
			if looked++; looked > 8 {
				break // Member is linear: a large object would take n^2
			}
			if j := tp.Member(i, k); j < 0 || !reflect.DeepEqual(e, tp.Value(j)) {
				t.Fatalf("member %q: node %d", k, j)
			}
		}
		if tp.Member(i, "\x00not a member") >= 0 {
			t.Fatal("found a member that is not there")
		}
	case []any:
		if n := tp.Nodes[i]; n.Kind != Array || int(n.Len) != len(x) {
			t.Fatalf("node %d: kind %d, %d elements, want an array of %d", i, n.Kind, n.Len, len(x))
		}
		j := tp.First(i)
		for _, e := range x {
			checkNodes(t, tp, j, e)
			j = int(tp.Nodes[j].Next)
		}
	default:
		if got := tp.Value(i); !reflect.DeepEqual(v, got) {
			t.Fatalf("node %d: %#v, want %#v", i, got, v)
		}
	}
}

// bigObject returns a text of one object of n members, each named from
// i and holding value.
func bigObject(n int, name func(i int) string, value string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + name(i) + `":` + value)
	}
	b.WriteString("}")
	return b.String()
}

func TestTapeAgreesWithParse(t *testing.T) {
	t.Parallel()
	inputs := corpusSeeds(t)
	for _, s := range rfc8259Edges() {
		inputs = append(inputs, []byte(s))
	}
	// Objects of more members than are compared one by one: names in a
	// set, duplicates there found (also one written with an escape).
	name := func(i int) string { return fmt.Sprintf("k%d", i) }
	big := bigObject(3*dupLinear, name, `[1,{"a":2}]`)
	dupLast := bigObject(3*dupLinear, func(i int) string { return name(i % (3*dupLinear - 1)) }, "0")
	dupEscaped := strings.TrimSuffix(big, "}") + `,"k\u0031":0}`
	for _, s := range []string{
		`{"a":1,"b":{"c":[1,2,{"d":null}],"e":"\u00e9\ud83d\ude00\n"},"f":true,"g":false}`,
		`{"a":1,"a":2}`, `{"a":{"x":1},"b":{"x":1}}`, `{"":1,"\u0000":2}`, `["\u0000"]`,
		` {"a" : [ ] , "b" : { } } `, `1e400`, `9007199254740993`, `-`, `-0`, `01`, `1.`, `.5`,
		"\xef\xbb\xbf{}", `"\ud800\u0041"`, `"\udc00"`, `"a\zb"`, "\"\x01\"", `tru`, `nul`, `[1,]`, `{"a":1,}`,
		strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
		strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
		big, dupLast, dupEscaped, "[" + big + "," + dupEscaped + "]",
		`{"a":1,"b":2,"c":3,"\u0061":4}`, `{"a":{"a":1,"b":{"a":2,"a":3}}}`,
	} {
		inputs = append(inputs, []byte(s))
	}
	for _, in := range inputs {
		checkTape(t, in)
	}
}

// Member finds a member's value, and nothing in a non-object.
func TestTapeMember(t *testing.T) {
	t.Parallel()
	var tp Tape
	root, ok := tp.Append(`{"a":[1,{"b":2}],"c":"x"}`)
	if !ok {
		t.Fatal("not read")
	}
	if c := tp.Member(root, "c"); c < 0 || tp.Nodes[c].Str != "x" {
		t.Errorf("Member c = %d", c)
	}
	a := tp.Member(root, "a")
	if tp.Member(root, "z") != -1 || tp.Member(a, "b") != -1 {
		t.Error("found a member that is not there")
	}
	tp.Reset()
	if len(tp.Nodes) != 0 {
		t.Error("Reset left nodes")
	}
}

// FuzzTape compares the tape reader with Parse, reading each input as it
// is and folded (see checkTape).
func FuzzTape(f *testing.F) {
	for _, s := range corpusSeeds(f) {
		f.Add(s)
	}
	for _, s := range rfc8259Edges() {
		f.Add([]byte(s))
	}
	// Objects past dupLinear members (names in a set), with and without a
	// duplicate (plain, escaped, nested), for the mutator to start from;
	// checkTape also reads every input folded (testSizes).
	name := func(i int) string { return fmt.Sprintf("k%d", i) }
	big := bigObject(dupLinear+8, name, `{"a":[1,"\u00e9"]}`)
	for _, s := range []string{
		big,
		strings.TrimSuffix(big, "}") + `,"k3":0}`,
		strings.TrimSuffix(big, "}") + `,"k\u0033":0}`,
		`[` + big + `,{"x":` + big + `}]`,
		`{"a":{"b":[{"c":1,"c":2}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkTape(t, data)
	})
}

// Texts from foldFrom bytes on are folded: the tape still agrees with
// Parse on them (checkTape unfolds everything), duplicate names are still
// found in their large objects, and their faults are still refused.
func TestTapeLargeTexts(t *testing.T) {
	t.Parallel()
	repeat := func(head, item, sep, tail string) string {
		var b strings.Builder
		b.WriteString(head)
		for i := 0; b.Len() < foldFrom+1024; i++ {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(item)
		}
		b.WriteString(tail)
		return b.String()
	}
	members := func(n int) string {
		return bigObject(n, func(i int) string { return "k" + strings.Repeat("x", 1100) + strings.Repeat("y", i) }, "[1,{}]")
	}
	name := func(i int) string { return fmt.Sprintf("k%d", i) }
	// many spans more than foldSpan; with pad a text is past foldFrom.
	many := bigObject(12000, name, `0`)
	pad := `"` + strings.Repeat("p", foldFrom) + `"`
	inputs := []string{
		repeat("[", `{"a":1}`, ",", "]"),
		repeat("[", `{"s":"a,b{[\"\\,]}","t":[]}`, ",", "]"),
		repeat(`{"a":[`, `"\u00e9,\"",[[]],{}`, ",", `]}`),
		members(256),
		members(257),
		"[" + members(257) + "]",
		`[` + many + `,` + pad + `]`,
		`[` + strings.TrimSuffix(many, "}") + `,"k11999":1},` + pad + `]`,
		`[` + strings.TrimSuffix(many, "}") + `,"k1199\u0039":1},` + pad + `]`,
		`{"a":` + many + `,"b":[` + many + `,{"x":` + many + `}],"c":` + pad + "}",
		`{"a":` + many + `,"b":[` + many + `,{"x":` + strings.Replace(many, `"k7"`, `"k8"`, 1) + `}]}`,
		strings.Repeat("[", MaxDepth-1) + pad + strings.Repeat("]", MaxDepth-1),
		strings.Repeat("[", MaxDepth) + pad + strings.Repeat("]", MaxDepth),
		strings.Repeat("[", MaxDepth+1) + pad + strings.Repeat("]", MaxDepth+1),
		repeat("[", "1", ",", ",]"),
		repeat("[", `"a"`, ",", `,"unterminated]`),
		repeat("[", "1", ",", ",1e999]"),
		repeat("[", `"\ud800"`, ",", "]"),
		repeat("[", `"\x"`, ",", "]"),
		repeat("{", `"a":1`, ",", "}"),
		repeat("[", "[]", ",", "]]]"),
		pad, " " + pad + " ", pad + ",",
		" " + repeat("[", "{}", " , ", "]") + "\n",
	}
	for _, in := range inputs {
		checkTape(t, []byte(in))
	}
}

// A large text costs its nodes only where a reader looks: the members of
// the frame on the way to a value, not the 2 nodes of each of the array's
// objects or each of the object's members; an unfolded container grows the
// tape once, and a second look unfolds nothing.
func TestTapeFoldsLargeTexts(t *testing.T) {
	t.Parallel()
	arr := smallObjects(1 << 20)
	obj := bigObject(100000, func(i int) string { return fmt.Sprintf("k%d", i) }, "0")
	for _, content := range []string{arr, obj} {
		frame := `{"type":"user","message":{"role":"user","content":` + content + `}}`
		var tp Tape
		root, ok := tp.Append(frame)
		if !ok || len(tp.Nodes) != 1 {
			t.Fatalf("%.40q...: read %v, %d nodes (want the folded root alone)", frame, ok, len(tp.Nodes))
		}
		typ := tp.Member(root, "type")
		if typ < 0 || tp.Nodes[typ].Str != "user" {
			t.Fatalf("type: node %d", typ)
		}
		msg := tp.Member(root, "message")
		c := tp.Member(msg, "content")
		if c < 0 || tp.Nodes[c].Str != content {
			t.Fatalf("content: node %d is not the folded content", c)
		}
		if len(tp.Nodes) > 8 {
			t.Errorf("%d nodes after reading down to the content, want at most 8", len(tp.Nodes))
		}
		before := len(tp.Nodes)
		if tp.Member(root, "message") != msg || tp.First(msg) != tp.First(msg) || len(tp.Nodes) != before {
			t.Errorf("reading again unfolded again: %d nodes, then %d", before, len(tp.Nodes))
		}
		tp.First(c)
		perItem := 1 // the object's members
		if tp.Nodes[c].Kind == Array {
			perItem = 2 // each {"a":1}
		}
		if n := len(tp.Nodes) - before; n != 1+perItem*int(tp.Nodes[c].Len) || cap(tp.Nodes)-len(tp.Nodes) > len(tp.Nodes)/64 {
			t.Errorf("unfolding the content: %d nodes, capacity %d (want 1 spare + %d a member, grown once)", n, cap(tp.Nodes), perItem)
		}
		// Cut back to before the content was unfolded: read again, it is
		// unfolded again (its record's first is stale).
		tp.Nodes = tp.Nodes[:before]
		if v, ok := tp.Value(c).([]any); ok && len(v) != int(tp.Nodes[c].Len) {
			t.Errorf("content read again after a cut: %d elements, want %d", len(v), tp.Nodes[c].Len)
		}
		if tp.Member(c, "k99999") < 0 && tp.Nodes[c].Kind == Object {
			t.Error("k99999 not found after a cut")
		}
	}
}

// A folded text costs the tape a few allocations, not one per node.
// Not parallel: AllocsPerRun counts the whole process's allocations.
func TestTapeLargeTextAllocs(t *testing.T) {
	arrayOfObjects := smallObjects(1 << 20)
	allocs := testing.AllocsPerRun(3, func() {
		var tp Tape
		if _, ok := tp.Append(arrayOfObjects); !ok {
			t.Fatal("array of objects not read")
		}
	})
	// The Tape (it escapes through Append), its one node, its one fold
	// record, the two stacks of the names of the open objects, and what
	// ordering the records takes; node by node it was 34.
	if allocs > 6 {
		t.Errorf("a %d-byte array of small objects: %v allocations, want at most 6", len(arrayOfObjects), allocs)
	}
}

// smallObjects returns an array of {"a":1} of at least n bytes.
func smallObjects(n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"a":1}`)
	}
	b.WriteString("]")
	return b.String()
}
