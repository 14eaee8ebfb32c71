package schema

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/testtool"
)

// suiteFS is the repository root, the suite as files.
func suiteFS(t testing.TB) fs.FS {
	t.Helper()
	if _, err := os.Stat("../../suite.json"); err != nil {
		t.Fatalf("suite root missing: %v", err)
	}
	return os.DirFS("../..")
}

// checkAgrees fails when the fast path and the library disagree on v.
// (Validate returns nil when the fast path says valid and the library's
// violations otherwise, so agreement here is agreement there.)
//
// The same value is also read onto a canon.Tape (through encoding/json,
// which writes json.Number literals as they are) and the tape evaluator
// must agree too.
func checkAgrees(t testing.TB, sch *Schema, v any, what string) {
	t.Helper()
	checkAgreesTaped(t, sch, newTaped(v), what)
}

// taped is a value and the same value read onto a canon.Tape (through
// encoding/json), as checkAgrees reads it. A test that checks one value
// against many schemas makes it once (newTaped) and hands it to
// checkAgreesTaped for each: the evaluators only read the tape.
type taped struct {
	v    any
	err  error // from json.Marshal
	tp   canon.Tape
	root int
	ok   bool // the marshalled value was read onto tp
}

func newTaped(v any) *taped {
	x := &taped{v: v}
	b, err := json.Marshal(v)
	if err != nil {
		x.err = err
		return x
	}
	x.root, x.ok = x.tp.Append(string(b))
	return x
}

// checkAgreesTaped is checkAgrees for a value made by newTaped.
func checkAgreesTaped(t testing.TB, sch *Schema, x *taped, what string) {
	t.Helper()
	lib, err := sch.libSchema()
	if err != nil {
		t.Fatal(err)
	}
	checkFastAnswers(t, sch, x, what, lib.Validate(x.v) == nil)
}

// checkFastAnswers checks that sch's fast evaluator, on the value and on
// its tape, and ValidTape, all answer full: the library's verdict on x.
func checkFastAnswers(t testing.TB, sch *Schema, x *taped, what string, full bool) {
	t.Helper()
	if sch.fast == nil {
		return
	}
	if fast := sch.fast.ok(x.v); fast != full {
		t.Fatalf("%s: %s: fast path says valid=%v, library %v", sch.Loc, what, fast, full)
	}
	if x.err != nil {
		t.Fatal(x.err)
	}
	if !x.ok {
		t.Fatalf("%s: %s: not read onto a tape", sch.Loc, what)
	}
	if fast := sch.fast.okT(&x.tp, x.root); fast != full {
		t.Fatalf("%s: %s: tape fast path says valid=%v, library %v", sch.Loc, what, fast, full)
	}
	if sch.ValidTape(&x.tp, x.root) != full {
		t.Fatalf("%s: %s: ValidTape disagrees with the library", sch.Loc, what)
	}
}

// values returns v and every value inside it.
func values(v any, out []any) []any {
	out = append(out, v)
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			out = values(x[k], out)
		}
	case []any:
		for _, e := range x {
			out = values(e, out)
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// clone deep-copies a decoded JSON value.
func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = clone(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = clone(e)
		}
		return s
	}
	return v
}

// replacements are what a mutation puts in place of a value: one of each
// JSON type, numbers that are integers by value but not by spelling, and
// the strings the suite's consts use most.
var replacements = []any{
	nil, true, false, json.Number("1"), json.Number("1.0"), json.Number("-1"), json.Number("1.5"),
	json.Number("1e2"), "", "x", "success", "error", "allow", "deny", "control_request", "control_response",
	map[string]any{}, []any{}, []any{"x"}, map[string]any{"type": "object"},
}

// mutate returns variants of v: each value inside it (at most maxPaths of
// them, chosen by rng) deleted or replaced by each of replacements.
func mutate(v any, rng *rand.Rand, maxPaths int) []any {
	type path []any // string member names and int indexes
	var paths []path
	var walk func(x any, p path)
	walk = func(x any, p path) {
		switch y := x.(type) {
		case map[string]any:
			for _, k := range sortedKeys(y) {
				walk(y[k], append(slices.Clip(p), k))
			}
		case []any:
			for i, e := range y {
				walk(e, append(slices.Clip(p), i))
			}
		}
		if len(p) > 0 {
			paths = append(paths, p)
		}
	}
	walk(v, nil)
	rng.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	if len(paths) > maxPaths {
		paths = paths[:maxPaths]
	}
	var out []any
	for _, p := range paths {
		for r := -1; r < len(replacements); r++ {
			c := clone(v)
			cur := c
			for _, tok := range p[:len(p)-1] {
				switch k := tok.(type) {
				case string:
					cur = cur.(map[string]any)[k]
				case int:
					cur = cur.([]any)[k]
				}
			}
			switch k := p[len(p)-1].(type) {
			case string:
				m := cur.(map[string]any)
				if r < 0 {
					delete(m, k)
				} else {
					m[k] = clone(replacements[r])
				}
			case int:
				a := cur.([]any)
				if r < 0 {
					continue // deleting an element is a replacement too
				}
				a[k] = clone(replacements[r])
			}
			out = append(out, c)
		}
	}
	return out
}

// suiteFrames returns every distinct object with a "type" member in the
// suite's vector and golden files (sent frames, replies, message vectors
// valid or not).
func suiteFrames(t testing.TB, fsys fs.FS) []any {
	t.Helper()
	seen := map[string]bool{}
	var frames []any
	for _, dir := range []string{"vectors", "golden"} {
		err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
				return err
			}
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			v, err := canon.Parse(data)
			if err != nil {
				return err
			}
			for _, x := range values(v, nil) {
				if m, ok := x.(map[string]any); ok && m["type"] != nil {
					b, err := canon.Canonical(m)
					if err != nil {
						return err
					}
					if !seen[string(b)] {
						seen[string(b)] = true
						frames = append(frames, m)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(frames) < 300 {
		t.Fatalf("only %d distinct frames found in the suite", len(frames))
	}
	return frames
}

// The fast path decides every suite frame, and mutations of them, as the
// library does: against the v1 and v2 roots and every ReplyBySubtype entry
// (what run and validate use), and every value inside a frame against every
// $defs entry.
func TestFastAgreesOnSuiteFrames(t *testing.T) {
	// Most of this test's CPU is the library's validation of values that
	// fail (hundreds of thousands of them), which allocates its errors:
	// with the collector's default target, a fifth of the CPU went to
	// collecting them. The heap stays near 100 MiB with 400. Restored
	// when the subtests are done (no other test runs beside this one: it
	// is not parallel).
	gcPercent := debug.SetGCPercent(400)
	t.Cleanup(func() { debug.SetGCPercent(gcPercent) })
	fsys := suiteFS(t)
	set := NewSet(fsys)
	frames := suiteFrames(t, fsys)
	var inner []any
	seen := map[string]bool{}
	for _, f := range frames {
		for _, x := range values(f, nil)[1:] {
			b, _ := canon.Canonical(x)
			if !seen[string(b)] {
				seen[string(b)] = true
				inner = append(inner, x)
			}
		}
	}
	// Each frame and inner value is checked against many schemas: its
	// tape is made once and shared (read only) by both subtests.
	framesT := make([]*taped, len(frames))
	for i, f := range frames {
		framesT[i] = newTaped(f)
	}
	innerT := make([]*taped, len(inner))
	for i, x := range inner {
		innerT[i] = newTaped(x)
	}
	// How many mutations: each mutated frame is checked against the
	// library, the costly part. The mutations are drawn from a fixed seed,
	// so each depth checks the same frames every run. CI stage 80 sets
	// CONFORM_TEST_DEEP=1 (4 paths of every root frame, a 24th of the
	// frames for each subtype: about 11 s of CPU); plain go test checks a
	// quarter as many, 1 path of a 96th (issue 31: go test ./... within a
	// minute warm; docs/maintaining.md).
	maxPaths, sample := 1, 96
	if testtool.Deep() {
		maxPaths, sample = 4, 24
	}
	for _, file := range []string{"schemas/control.v1.json", "schemas/control.v2.json"} {
		hot, defs := rootAndReplyBodies(t, fsys, file)
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(1, 2))
			for _, loc := range hot {
				sch, err := set.Compile(loc)
				if err != nil {
					t.Fatal(err)
				}
				if sch.fast == nil {
					t.Fatalf("%s: no fast path", loc)
				}
				if libs := libNodes(sch.fast); len(libs) > 0 {
					t.Errorf("%s: library nodes on the fast path: %v", loc, libs)
				}
				valid := 0
				for i, f := range frames {
					checkAgreesTaped(t, sch, framesT[i], "suite frame")
					if sch.fast.ok(f) {
						valid++
					}
					// Mutations of the root are the costly part: every
					// frame for the root, a sample for each subtype.
					if loc == file || rng.IntN(sample) == 0 {
						for _, m := range mutate(f, rng, maxPaths) {
							checkAgrees(t, sch, m, "mutated suite frame")
						}
					}
				}
				if loc == file && valid < len(frames)/3 {
					t.Errorf("%s: only %d of %d suite frames valid", loc, valid, len(frames))
				}
			}
			for _, def := range defs {
				sch, err := set.Compile(file + "#/$defs/" + canon.EscapePointer(def))
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range innerT {
					checkAgreesTaped(t, sch, x, "value inside a suite frame")
				}
			}
		})
	}
}

// The tape evaluator decides every suite frame as the library does when
// the frame's tape is folded: each frame spread with 64 KiB of spaces after
// every '{' and '[' (so that each container is folded, canon's foldSpan)
// and after the value (so that the text is, foldFrom), then checked
// against the v1 and v2 roots and every ReplyBySubtype entry, all on one
// tape, which each check unfolds as far as it reads.
func TestFastAgreesOnFoldedFrames(t *testing.T) {
	t.Parallel()
	fsys := suiteFS(t)
	set := NewSet(fsys)
	var hot []*Schema
	for _, file := range []string{"schemas/control.v1.json", "schemas/control.v2.json"} {
		locs, _ := rootAndReplyBodies(t, fsys, file)
		for _, loc := range locs {
			sch, err := set.Compile(loc)
			if err != nil {
				t.Fatal(err)
			}
			hot = append(hot, sch)
		}
	}
	pad := strings.Repeat(" ", 64<<10)
	checked := 0
	for _, f := range suiteFrames(t, fsys) {
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		var spread strings.Builder
		in, esc := false, false // in a string; after its backslash
		for _, c := range b {
			spread.WriteByte(c)
			switch {
			case esc:
				esc = false
			case in && c == '\\':
				esc = true
			case c == '"':
				in = !in
			case !in && (c == '{' || c == '['):
				spread.WriteString(pad)
			}
		}
		spread.WriteString(strings.Repeat(pad, 4))
		var tp canon.Tape
		root, ok := tp.Append(spread.String())
		if !ok {
			t.Fatalf("spread frame %.200s not read onto a tape", b)
		}
		if len(tp.Nodes) != 1 {
			t.Fatalf("spread frame %.200s: %d nodes, want the folded root alone", b, len(tp.Nodes))
		}
		for _, sch := range hot {
			lib, err := sch.libSchema()
			if err != nil {
				t.Fatal(err)
			}
			full := lib.Validate(f) == nil
			if sch.fast != nil && sch.fast.okT(&tp, root) != full {
				t.Fatalf("%s: folded frame %.200s: tape fast path says valid=%v, library %v", sch.Loc, b, !full, full)
			}
			checked++
		}
		if !reflect.DeepEqual(tp.Value(root), f) {
			t.Fatalf("folded frame %.200s: Value differs", b)
		}
	}
	if checked < 100 {
		t.Errorf("checked %d frame and schema pairs: the suite's frames were not found", checked)
	}
}

// The fast path decides every vector file of the suite against the kit's
// vector schema (its unevaluatedProperties included) as the library does,
// with no library node on the way, and mutations of them, and each with an
// unknown member added at the top and inside every object.
func TestFastAgreesOnVectors(t *testing.T) {
	t.Parallel()
	fsys := suiteFS(t)
	sch, err := NewSet(fsys).Compile("schemas/vector.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if sch.fast == nil {
		t.Fatal("no fast path for the vector schema")
	}
	if libs := libNodes(sch.fast); len(libs) > 0 {
		t.Errorf("library nodes on the fast path: %v", libs)
	}
	var vectors []any
	err = fs.WalkDir(fsys, "vectors", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		data, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		v, err := canon.Parse(data)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		vectors = append(vectors, v)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(vectors) < 300 {
		t.Fatalf("only %d vector files", len(vectors))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	// Mutations (each checked by the library too) of every fourth file.
	maxPaths, every := 2, 4
	if testing.Short() {
		maxPaths, every = 1, 16
	}
	valid := 0
	for i, v := range vectors {
		checkAgrees(t, sch, v, "vector file")
		if sch.fast.ok(v) {
			valid++
		}
		if i%every == 0 {
			for _, m := range mutate(v, rng, maxPaths) {
				checkAgrees(t, sch, m, "mutated vector file")
			}
		}
		for _, x := range values(v, nil) {
			obj, ok := x.(map[string]any)
			if !ok {
				continue
			}
			obj["sneaky"] = true
			checkAgrees(t, sch, v, "vector file with an unknown member")
			delete(obj, "sneaky")
		}
	}
	if valid != len(vectors) {
		t.Errorf("%d of %d vector files valid, want all", valid, len(vectors))
	}
}

// unevaluatedProperties is on the fast path only over a static set of
// names: properties reached through $ref and allOf; any applicator whose
// annotations depend on the instance keeps it a library node. Both decide
// as the library does.
func TestFastUnevaluated(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		schema string
		fast   bool
	}{
		{"properties only", `{` + hdr + `"properties":{"a":{}},"unevaluatedProperties":false}`, true},
		{"through allOf and $ref", `{` + hdr + `"$defs":{"C":{"properties":{"b":{"type":"string"}},"not":{"required":["z"]}}},"allOf":[{"$ref":"#/$defs/C"}],"properties":{"a":{}},"unevaluatedProperties":false}`, true},
		{"a schema for the rest", `{` + hdr + `"properties":{"a":{}},"unevaluatedProperties":{"type":"integer"}}`, true},
		{"anyOf", `{` + hdr + `"anyOf":[{"properties":{"b":{}}},true],"properties":{"a":{}},"unevaluatedProperties":false}`, false},
		{"if then", `{` + hdr + `"if":{"required":["a"]},"then":{"properties":{"b":{}}},"unevaluatedProperties":false}`, false},
		{"patternProperties", `{` + hdr + `"patternProperties":{"^x":{}},"unevaluatedProperties":false}`, false},
		{"additionalProperties in allOf", `{` + hdr + `"allOf":[{"additionalProperties":true}],"unevaluatedProperties":false}`, false},
		{"nested unevaluatedProperties", `{` + hdr + `"allOf":[{"properties":{"b":{}},"unevaluatedProperties":false}],"properties":{"a":{}},"unevaluatedProperties":false}`, false},
		{"propertyNames", `{` + hdr + `"propertyNames":{"pattern":"^[a-z]+$","maxLength":1},"additionalProperties":{"type":"integer"}}`, true},
		{"dependentRequired", `{` + hdr + `"dependentRequired":{"a":["b"],"c":[]},"properties":{"b":{"type":"string"}}}`, true},
	}
	instances := []string{`{}`, `{"a":1}`, `{"b":"x"}`, `{"b":1}`, `{"a":1,"b":"x"}`, `{"c":1}`, `{"c":"x"}`, `{"x1":1}`, `{"z":1}`, `{"a":1,"c":2}`, `{"A":1}`, `[]`, `1`}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sch := compileMap(t, map[string]string{"s.json": tc.schema}, "s.json")
			if got := sch.fast != nil; got != tc.fast {
				t.Errorf("on the fast path: %v, want %v", got, tc.fast)
			}
			for _, in := range instances {
				v, err := canon.Parse([]byte(in))
				if err != nil {
					t.Fatal(err)
				}
				checkAgrees(t, sch, v, in)
			}
		})
	}
}

// libNodes lists the locations of library nodes reachable from n.
func libNodes(n *fastNode) []string {
	seen := map[*fastNode]bool{}
	var out []string
	var walk func(n *fastNode)
	walk = func(n *fastNode) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if n.lib {
			out = append(out, n.s.Location)
			return
		}
		kids := []*fastNode{n.ref, n.not, n.ifN, n.thenN, n.elseN, n.additional, n.items, n.uneval, n.propNames}
		kids = append(kids, n.allOf...)
		kids = append(kids, n.prefix...)
		for _, g := range n.ifGroups {
			kids = append(kids, g.all...)
		}
		for _, c := range []*choice{n.anyOf, n.oneOf} {
			if c != nil {
				kids = append(kids, c.branches...)
			}
		}
		for _, p := range n.props {
			kids = append(kids, p.n)
		}
		for _, p := range n.patternProps {
			kids = append(kids, p.n)
		}
		for _, k := range kids {
			walk(k)
		}
	}
	walk(n)
	return out
}

func compileMap(t *testing.T, files map[string]string, loc string) *Schema {
	t.Helper()
	m := fstest.MapFS{}
	for name, body := range files {
		m[name] = &fstest.MapFile{Data: []byte(body)}
	}
	sch, err := NewSet(m).Compile(loc)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

const hdr = `"$schema":"https://json-schema.org/draft/2020-12/schema",`

// Each keyword the fast path implements, on instances chosen at its edges:
// the verdict is the one expected and the library's.
func TestFastKeywords(t *testing.T) {
	t.Parallel()
	type inst struct {
		json  string
		valid bool
	}
	tests := []struct {
		name   string
		schema string
		insts  []inst
	}{
		{"type integer by value", `{"type":"integer"}`, []inst{{`1`, true}, {`1.0`, true}, {`1e2`, true}, {`-0`, true}, {`1.5`, false}, {`"1"`, false}, {`100000000000000000000`, true}, {`1.00000000000000000001e1`, false}}},
		{"type list", `{"type":["string","null"]}`, []inst{{`null`, true}, {`"x"`, true}, {`0`, false}, {`{}`, false}}},
		{"const number by value", `{"const":1}`, []inst{{`1`, true}, {`1.0`, true}, {`10e-1`, true}, {`"1"`, false}, {`true`, false}}},
		{"const object", `{"const":{"a":[1,"x",null]}}`, []inst{{`{"a":[1.0,"x",null]}`, true}, {`{"a":[1,"x"]}`, false}, {`{"a":[1,"x",null],"b":1}`, false}}},
		{"const string", `{"const":"x"}`, []inst{{`"x"`, true}, {`"y"`, false}, {`1`, false}}},
		{"enum", `{"enum":["a",2,null,{"k":[]}]}`, []inst{{`"a"`, true}, {`2.0`, true}, {`null`, true}, {`{"k":[]}`, true}, {`"b"`, false}, {`false`, false}, {`{"k":{}}`, false}}},
		{"required and properties", `{"required":["a"],"properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`, []inst{{`{"a":"x"}`, true}, {`{"a":"x","b":1,"c":{}}`, true}, {`{"b":1}`, false}, {`{"a":1}`, false}, {`{"a":"x","b":"y"}`, false}, {`[]`, true}, {`"x"`, true}}},
		{"many properties, small object", `{"properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"},"d":{"type":"string"}}}`, []inst{{`{"a":"x"}`, true}, {`{"d":1}`, false}, {`{"z":1}`, true}}},
		{"additionalProperties false", `{"properties":{"a":{}},"additionalProperties":false}`, []inst{{`{"a":1}`, true}, {`{}`, true}, {`{"b":1}`, false}}},
		{"additionalProperties schema", `{"properties":{"a":{}},"additionalProperties":{"type":"string"}}`, []inst{{`{"a":1,"b":"x"}`, true}, {`{"b":1}`, false}}},
		{"additionalProperties true", `{"properties":{"a":{"type":"null"}},"additionalProperties":true}`, []inst{{`{"a":null,"b":1}`, true}, {`{"a":1}`, false}}},
		{"patternProperties", `{"patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`, []inst{{`{"x-a":"s"}`, true}, {`{"x-a":1}`, false}, {`{"y":1}`, false}}},
		{"min and max properties", `{"minProperties":1,"maxProperties":2}`, []inst{{`{}`, false}, {`{"a":1}`, true}, {`{"a":1,"b":2,"c":3}`, false}}},
		{"items and prefixItems", `{"prefixItems":[{"type":"string"}],"items":{"type":"integer"},"minItems":1,"maxItems":3}`, []inst{{`["x"]`, true}, {`["x",1,2]`, true}, {`[1]`, false}, {`["x","y"]`, false}, {`[]`, false}, {`["x",1,2,3]`, false}}},
		{"uniqueItems by value", `{"uniqueItems":true}`, []inst{{`[1,2]`, true}, {`[1,1.0]`, false}, {`[{"a":1},{"a":1}]`, false}, {`[{"a":1},{"a":2}]`, true}, {`[]`, true}}},
		{"string lengths count code points", `{"minLength":2,"maxLength":3}`, []inst{{`"ab"`, true}, {`"é"`, false}, {`"éé"`, true}, {`"abcd"`, false}, {`"😀😀"`, true}, {`5`, true}}},
		{"pattern", `{"pattern":"^req-[0-9]+$"}`, []inst{{`"req-1"`, true}, {`"req-"`, false}, {`1`, true}}},
		{"format date-time asserted", `{"format":"date-time"}`, []inst{{`"2026-01-02T03:04:05Z"`, true}, {`"yesterday"`, false}, {`1`, true}}},
		{"number bounds", `{"minimum":0,"maximum":10,"exclusiveMaximum":10,"multipleOf":0.5}`, []inst{{`0`, true}, {`9.5`, true}, {`10`, false}, {`-1`, false}, {`0.25`, false}, {`1e0`, true}, {`-0.0`, true}}},
		{"exclusiveMinimum", `{"exclusiveMinimum":1}`, []inst{{`1`, false}, {`1.0000001`, true}}},
		{"not", `{"not":{"type":"string"}}`, []inst{{`1`, true}, {`"x"`, false}}},
		{"allOf", `{"allOf":[{"type":"object"},{"required":["a"]}]}`, []inst{{`{"a":1}`, true}, {`{}`, false}, {`[]`, false}}},
		{"anyOf", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, []inst{{`"x"`, true}, {`1`, true}, {`1.5`, false}}},
		{"oneOf counts", `{"oneOf":[{"type":"integer"},{"minimum":2}]}`, []inst{{`1`, true}, {`3`, false}, {`2.5`, true}, {`1.5`, false}}},
		{"if then else", `{"if":{"properties":{"k":{"const":"a"}}},"then":{"required":["n"]},"else":{"required":["m"]}}`, []inst{{`{"k":"a","n":1}`, true}, {`{"k":"a"}`, false}, {`{"k":"b","m":1}`, true}, {`{"k":"b"}`, false}, {`{"m":1}`, false}, {`{"n":1}`, true}}},
		{"boolean schemas", `{"properties":{"a":true,"b":false}}`, []inst{{`{"a":1}`, true}, {`{"b":1}`, false}}},
		{"$ref beside keywords", `{"$ref":"#/$defs/S","maxLength":2,"$defs":{"S":{"type":"string"}}}`, []inst{{`"ab"`, true}, {`"abc"`, false}, {`1`, false}}},
		{"recursive through members", `{"$ref":"#/$defs/T","$defs":{"T":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/T"}}},"additionalProperties":false}}}`, []inst{{`{"kids":[{"kids":[]},{}]}`, true}, {`{"kids":[{"kids":[{"x":1}]}]}`, false}}},
		{"unimplemented keyword goes to the library", `{"properties":{"a":{"contains":{"const":1}},"b":{"dependentRequired":{"x":["y"]}}}}`, []inst{{`{"a":[0,1]}`, true}, {`{"a":[0]}`, false}, {`{"b":{"x":1,"y":2}}`, true}, {`{"b":{"x":1}}`, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sch := compileMap(t, map[string]string{"s.json": `{` + hdr + tt.schema[1:]}, "s.json")
			if sch.fast == nil {
				t.Fatal("no fast path")
			}
			for _, in := range tt.insts {
				v, err := canon.Parse([]byte(in.json))
				if err != nil {
					t.Fatal(err)
				}
				checkAgrees(t, sch, v, in.json)
				if got := sch.Validate(v) == nil; got != in.valid {
					t.Errorf("%s: valid = %v, want %v", in.json, got, in.valid)
				}
			}
		})
	}
}

// The fast path is not built where its reasoning would not hold, and it is
// where it does.
func TestFastOnlyWhenSound(t *testing.T) {
	t.Parallel()
	a := `{"type":"object","required":["k"],"properties":{"k":{"const":"a"},"n":{"type":"integer"}}}`
	b := `{"type":"object","required":["k"],"properties":{"k":{"const":"b"},"n":{"type":"string"}}}`
	tests := []struct {
		name  string
		body  string
		built bool
	}{
		{"pure oneOf", `{` + hdr + `"oneOf":[` + a + `,` + b + `]}`, true},
		{"behind $ref", `{` + hdr + `"$ref":"#/$defs/M","$defs":{"M":{"description":"x","oneOf":[{"$ref":"#/$defs/A"},{"$ref":"#/$defs/B"}]},"A":` + a + `,"B":` + b + `}}`, true},
		{"recursion through a member", `{` + hdr + `"type":"object","properties":{"next":{"$ref":"#"}}}`, true},
		{"dynamicRef in a branch", `{` + hdr + `"$dynamicAnchor":"node","oneOf":[` + a + `,{"type":"object","properties":{"k":{"const":"b"},"c":{"$dynamicRef":"#node"}}}]}`, false},
		// An in-place cycle is refused before a fast path is considered
		// (SCHEMA_REF_CYCLE, TestRefCycleRefused).
		{"root the fast path does not implement", `{` + hdr + `"contains":{"const":1}}`, false},
		{"draft-07 root", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sch := compileMap(t, map[string]string{"s.json": tt.body}, "s.json")
			if got := sch.fast != nil; got != tt.built {
				t.Fatalf("fast path built = %v, want %v", got, tt.built)
			}
			for _, in := range []string{`{"k":"a","n":1}`, `{"k":"b","n":"x"}`, `"x"`, `{"next":{"next":1}}`, `[1]`} {
				checkAgrees(t, sch, parse(t, in), in)
			}
		})
	}
}

func parse(t testing.TB, s string) any {
	t.Helper()
	v, err := canon.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Branches without a const, or sharing one, are evaluated; an instance two
// branches accept fails the oneOf; the index is taken only on objects
// that have the key member.
func TestFastChoiceIndex(t *testing.T) {
	t.Parallel()
	body := `{` + hdr + `"oneOf":[
		{"type":"object","required":["k"],"properties":{"k":{"const":"a"},"n":{"type":"integer"}}},
		{"type":"object","required":["k"],"properties":{"k":{"const":"a"},"m":{"type":"integer"}}},
		{"type":"object","required":["k"],"properties":{"k":{"const":"b"}}},
		{"type":"object","required":["z"]}]}`
	sch := compileMap(t, map[string]string{"s.json": body}, "s.json")
	if sch.fast == nil || sch.fast.oneOf == nil || sch.fast.oneOf.key != "k" || !slices.Equal(sch.fast.oneOf.unpinned, []int{3}) {
		t.Fatalf("no index on k: %+v", sch.fast)
	}
	tests := []struct {
		inst  string
		valid bool
	}{
		{`{"k":"a","n":1,"m":"x"}`, true}, // only branch 0
		{`{"k":"a","n":1,"m":1}`, false},  // branches 0 and 1
		{`{"k":"b"}`, true},               // branch 2
		{`{"k":"b","z":1}`, false},        // branches 2 and 3
		{`{"k":"c","z":1}`, true},         // branch 3, no const
		{`{"k":"c"}`, false},              // none
		{`{"z":1}`, true},                 // no key: every branch; branch 3
		{`{"k":1,"z":1}`, true},           // key not a string: only unpinned branches; branch 3
		{`{"k":1}`, false},
	}
	for _, tt := range tests {
		v := parse(t, tt.inst)
		checkAgrees(t, sch, v, tt.inst)
		if got := sch.Validate(v) == nil; got != tt.valid {
			t.Errorf("%s: valid = %v, want %v (%v)", tt.inst, got, tt.valid, sch.Validate(v))
		}
	}
}

// allOf entries {"if": path == const, "then": ...} share one walk; the
// walk's edge cases (a level that is not an object, a missing member with
// and without "required", a value that is not a string) decide as the
// library does.
func TestFastIfGroups(t *testing.T) {
	t.Parallel()
	entry := func(c, then string) string {
		return `{"if":{"required":["request"],"properties":{"request":{"properties":{"subtype":{"const":"` + c + `"}}}}},"then":` + then + `}`
	}
	body := `{` + hdr + `"allOf":[` +
		entry("a", `{"properties":{"request":{"required":["x"]}}}`) + `,` +
		entry("b", `{"properties":{"request":{"required":["y"]}}}`) + `,` +
		entry("b", `{"properties":{"request":{"required":["z"]}}}`) + `,` +
		entry("c", `{"required":["never"]}`) + `,` +
		`{"type":["object","string"]}]}`
	sch := compileMap(t, map[string]string{"s.json": body}, "s.json")
	if sch.fast == nil || len(sch.fast.ifGroups) != 1 || len(sch.fast.allOf) != 1 {
		t.Fatalf("want one if-group and one plain entry: %+v", sch.fast)
	}
	tests := []struct {
		inst  string
		valid bool
	}{
		{`{"request":{"subtype":"a","x":1}}`, true},
		{`{"request":{"subtype":"a"}}`, false},
		{`{"request":{"subtype":"b","y":1,"z":1}}`, true},
		{`{"request":{"subtype":"b","y":1}}`, false},
		{`{"request":{"subtype":"d"}}`, true},
		{`{"request":{"subtype":1}}`, true},
		{`{"request":{}}`, false},  // subtype absent, not required: every if holds, x, y, z and never needed
		{`{"request":"s"}`, false}, // not an object: every if holds; "never" is required
		{`{}`, true},               // request absent and required by the if: no if holds
		{`"s"`, true},              // not an object: every if holds, and no then asserts on a string
	}
	for _, tt := range tests {
		v := parse(t, tt.inst)
		checkAgrees(t, sch, v, tt.inst)
		if got := sch.fast.ok(v); got != tt.valid {
			t.Errorf("%s: valid = %v, want %v", tt.inst, got, tt.valid)
		}
	}
}

// FuzzDispatch compares the fast path with the library on arbitrary frames
// against the v1 and v2 roots and the v1 can_use_tool and initialize reply
// schemas.
func FuzzDispatch(f *testing.F) {
	for _, s := range []string{
		`{"type":"control_request","request_id":"r1","request":{"subtype":"interrupt"}}`,
		`{"type":"control_response","response":{"subtype":"success","request_id":"r1"}}`,
		`{"type":"control_response","response":{"subtype":"error","request_id":"r1","error":"x"}}`,
		`{"type":"control_cancel_request","request_id":"r1"}`,
		`{"type":"control_request","request_id":1,"request":{"subtype":"set_model","model":"x"}}`,
		`{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{"behavior":"allow","updatedInput":{}}}}`,
		`{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"}}}`,
	} {
		f.Add([]byte(s))
	}
	set := NewSet(suiteFS(f))
	var schs []*Schema
	for _, loc := range []string{
		"schemas/control.v1.json", "schemas/control.v2.json",
		"schemas/control.v1.json#/$defs/ReplyBySubtype/properties/can_use_tool",
		"schemas/control.v1.json#/$defs/ReplyBySubtype/properties/initialize",
	} {
		sch, err := set.Compile(loc)
		if err != nil {
			f.Fatal(err)
		}
		schs = append(schs, sch)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := canon.Parse(data)
		if err != nil {
			return
		}
		for _, sch := range schs {
			checkAgrees(t, sch, v, fmt.Sprintf("%q", data))
		}
	})
}

// Every exported field of the library's Schema is known to keywords (a
// newer library's new field would be treated as an unimplemented
// assertion: sound, but slower; this test says so).
func TestKeywordsKnowEveryField(t *testing.T) {
	t.Parallel()
	if len(unknownFields) > 0 {
		t.Errorf("jsonschema.Schema has fields keywords does not know: %v", unknownFields)
	}
}

// rootAndReplyBodies returns, sorted, the root of the schema file file and
// every entry of its ReplyBySubtype table (the locations the runner
// validates against), and the names of its $defs entries.
func rootAndReplyBodies(t *testing.T, fsys fs.FS, file string) (locs, defs []string) {
	t.Helper()
	doc, err := fs.ReadFile(fsys, file)
	if err != nil {
		t.Fatal(err)
	}
	var top struct {
		Defs map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(doc, &top); err != nil {
		t.Fatal(err)
	}
	locs = []string{file}
	for st := range top.Defs["ReplyBySubtype"].Properties {
		locs = append(locs, file+"#/$defs/ReplyBySubtype/properties/"+canon.EscapePointer(st))
	}
	slices.Sort(locs)
	for def := range top.Defs {
		defs = append(defs, def)
	}
	slices.Sort(defs)
	return locs, defs
}
