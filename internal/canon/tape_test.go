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
