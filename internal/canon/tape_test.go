package canon

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkTape fails when the tape reader accepts data that Parse refuses,
// reads a different value, or refuses what Parse accepts (other than an
// object over MaxTapeMembers).
func checkTape(t *testing.T, data []byte) {
	t.Helper()
	want, err := Parse(data)
	var tp Tape
	tp.Nodes = append(tp.Nodes, Node{Kind: String, Str: "before"}) // texts share a tape
	root, ok := tp.Append(string(data))
	switch {
	case ok && err != nil:
		t.Fatalf("tape reads %q, Parse refuses it: %v", data, err)
	case !ok && err == nil:
		if !bigObject(want) {
			t.Fatalf("tape refuses %q, Parse reads it", data)
		}
	case ok:
		if root != 1 || tp.Nodes[0].Str != "before" || int(tp.Nodes[root].Next) != len(tp.Nodes) {
			t.Fatalf("tape of %q: root %d, %d nodes, next %d", data, root, len(tp.Nodes), tp.Nodes[root].Next)
		}
		if got := tp.Value(root); !reflect.DeepEqual(want, got) {
			t.Fatalf("tape of %q (-Parse +tape):\n%s", data, cmp.Diff(want, got))
		}
	default:
		if len(tp.Nodes) != 1 {
			t.Fatalf("a refused text left %d nodes on the tape", len(tp.Nodes)-1)
		}
	}
}

func bigObject(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if len(x) > MaxTapeMembers {
			return true
		}
		for _, e := range x {
			if bigObject(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if bigObject(e) {
				return true
			}
		}
	}
	return false
}

func TestTapeAgreesWithParse(t *testing.T) {
	t.Parallel()
	inputs := corpusSeeds(t)
	for _, s := range rfc8259Edges() {
		inputs = append(inputs, []byte(s))
	}
	var big strings.Builder
	big.WriteString("{")
	for i := range MaxTapeMembers + 1 {
		if i > 0 {
			big.WriteString(",")
		}
		big.WriteString(`"k` + strings.Repeat("x", i) + `":1`)
	}
	big.WriteString("}")
	for _, s := range []string{
		`{"a":1,"b":{"c":[1,2,{"d":null}],"e":"\u00e9\ud83d\ude00\n"},"f":true,"g":false}`,
		`{"a":1,"a":2}`, `{"a":{"x":1},"b":{"x":1}}`, `{"":1,"\u0000":2}`, `["\u0000"]`,
		` {"a" : [ ] , "b" : { } } `, `1e400`, `9007199254740993`, `-`, `-0`, `01`, `1.`, `.5`,
		"\xef\xbb\xbf{}", `"\ud800\u0041"`, `"\udc00"`, `"a\zb"`, "\"\x01\"", `tru`, `nul`, `[1,]`, `{"a":1,}`,
		strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
		strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
		big.String(),
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

// FuzzTape compares the tape reader with Parse.
func FuzzTape(f *testing.F) {
	for _, s := range corpusSeeds(f) {
		f.Add(s)
	}
	for _, s := range rfc8259Edges() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkTape(t, data)
	})
}

// Texts from presizeFrom bytes on are counted before they are read
// (nodeBound): the tape still agrees with Parse on them, their nodes fit
// the count, and a large text costs one allocation, not one per growth
// of the slice.
func TestTapeLargeTexts(t *testing.T) {
	t.Parallel()
	repeat := func(head, item, sep, tail string) string {
		var b strings.Builder
		b.WriteString(head)
		for i := 0; b.Len() < presizeFrom+1024; i++ {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(item)
		}
		b.WriteString(tail)
		return b.String()
	}
	members := func(n int) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"k` + strings.Repeat("x", 1100) + strings.Repeat("y", i) + `":[1,{}]`)
		}
		b.WriteString("}")
		return b.String()
	}
	pad := `"` + strings.Repeat("p", presizeFrom) + `"`
	arrayOfObjects := repeat("[", `{"a":1}`, ",", "]")
	inputs := []string{
		arrayOfObjects,
		repeat("[", `{"s":"a,b{[\"\\,]}","t":[]}`, ",", "]"),
		repeat(`{"a":[`, `"\u00e9,\"",[[]],{}`, ",", `]}`),
		members(MaxTapeMembers),
		members(MaxTapeMembers + 1),
		"[" + members(MaxTapeMembers+1) + "]",
		strings.Repeat("[", MaxDepth-1) + pad + strings.Repeat("]", MaxDepth-1),
		strings.Repeat("[", MaxDepth) + pad + strings.Repeat("]", MaxDepth),
		strings.Repeat("[", MaxDepth+1) + pad + strings.Repeat("]", MaxDepth+1),
		repeat("[", "1", ",", ",]"),
		repeat("[", `"a"`, ",", `,"unterminated]`),
		repeat("{", `"a":1`, ",", "}"),
		repeat("[", "[]", ",", "]]]"),
		pad + ",",
	}
	for _, in := range inputs {
		checkTape(t, []byte(in))
		var tp Tape
		if _, ok := tp.Append(in); ok {
			if n, _ := nodeBound(in); len(tp.Nodes) > n {
				t.Errorf("%.40q...: %d nodes, nodeBound %d", in, len(tp.Nodes), n)
			}
		}
	}
}

// A large text costs the tape one allocation for its nodes (counted
// first), not one per growth of the slice. Not parallel: AllocsPerRun counts the
// whole process's allocations.
func TestTapeLargeTextGrowsOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; b.Len() < 1<<20; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"a":1}`)
	}
	b.WriteString("]")
	arrayOfObjects := b.String()
	allocs := testing.AllocsPerRun(3, func() {
		var tp Tape
		if _, ok := tp.Append(arrayOfObjects); !ok {
			t.Fatal("array of objects not read")
		}
	})
	// Two: the Tape (it escapes through Append) and its nodes, once; node
	// by node it was 34.
	if allocs != 2 {
		t.Errorf("a %d-byte array of small objects: %v allocations, want 2 (the tape, and its nodes once)", len(arrayOfObjects), allocs)
	}
}
