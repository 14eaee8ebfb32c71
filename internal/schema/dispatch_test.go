package schema

import (
	"encoding/json"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/conform-kit/conform/internal/canon"
)

// suiteFS is the repository root, the suite as files.
func suiteFS(t testing.TB) fs.FS {
	t.Helper()
	if _, err := os.Stat("../../suite.json"); err != nil {
		t.Fatalf("suite root missing: %v", err)
	}
	return os.DirFS("../..")
}

// checkAgrees fails when the dispatch decides differently from the library
// on v: a decision must be the library's verdict, and every instance the
// library finds valid whose key member is a string must be decided.
func checkAgrees(t testing.TB, sch *Schema, v any, what string) {
	t.Helper()
	full := sch.s.Validate(v) == nil
	valid, decided := sch.fast.valid(v)
	if decided && valid != full {
		t.Fatalf("%s: dispatch says valid=%v, library %v", what, valid, full)
	}
	if obj, ok := v.(map[string]any); ok {
		if _, ok := obj[sch.fast.key].(string); ok && full && !decided {
			t.Fatalf("%s: valid per the library but the dispatch did not decide", what)
		}
	}
	if got := sch.Validate(v) == nil; got != full {
		t.Fatalf("%s: Validate valid=%v, library %v", what, got, full)
	}
}

// objects returns every JSON object inside v that has a "type" member.
func objects(v any, out []any) []any {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["type"]; ok {
			out = append(out, x)
		}
		for _, e := range x {
			out = objects(e, out)
		}
	case []any:
		for _, e := range x {
			out = objects(e, out)
		}
	}
	return out
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

// Every frame of the suite (message vectors, sent frames, golden
// summaries, valid or not), and mutations that swap its type, drop it, or
// flip a response subtype, gets the same verdict with and without the
// dispatch, for the v1 and v2 roots.
func TestDispatchAgreesOnSuiteFrames(t *testing.T) {
	fsys := suiteFS(t)
	set := NewSet(fsys)
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
			frames = objects(v, frames)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(frames) < 500 {
		t.Fatalf("only %d frames found in the suite", len(frames))
	}
	types := []any{"control_request", "control_response", "control_cancel_request", "system", "", json.Number("1"), nil}
	for _, root := range []string{"schemas/control.v1.json", "schemas/control.v2.json"} {
		sch, err := set.Compile(root)
		if err != nil {
			t.Fatal(err)
		}
		if sch.fast == nil || sch.fast.key != "type" {
			t.Fatalf("%s: no dispatch on type (%+v)", root, sch.fast)
		}
		decided := 0
		for _, f := range frames {
			checkAgrees(t, sch, f, root)
			if _, d := sch.fast.valid(f); d {
				decided++
			}
			for _, ty := range types {
				m := clone(f).(map[string]any)
				m["type"] = ty
				checkAgrees(t, sch, m, root+" with type swapped")
			}
			m := clone(f).(map[string]any)
			delete(m, "type")
			checkAgrees(t, sch, m, root+" without type")
			if r, ok := m["response"].(map[string]any); ok {
				for _, st := range []string{"success", "error"} {
					m := clone(f).(map[string]any)
					r = m["response"].(map[string]any)
					r["subtype"] = st
					checkAgrees(t, sch, m, root+" with response subtype flipped")
				}
			}
		}
		if decided < len(frames)/4 {
			t.Errorf("%s: the dispatch decided only %d of %d frames", root, decided, len(frames))
		}
	}
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

func TestDispatchOnlyWhenSound(t *testing.T) {
	a := `{"type":"object","required":["k"],"properties":{"k":{"const":"a"},"n":{"type":"integer"}}}`
	b := `{"type":"object","required":["k"],"properties":{"k":{"const":"b"},"n":{"type":"string"}}}`
	tests := []struct {
		name  string
		body  string
		built bool
	}{
		{"pure oneOf", `{` + hdr + `"oneOf":[` + a + `,` + b + `]}`, true},
		{"behind $ref", `{` + hdr + `"$ref":"#/$defs/M","$defs":{"M":{"description":"x","oneOf":[{"$ref":"#/$defs/A"},{"$ref":"#/$defs/B"}]},"A":` + a + `,"B":` + b + `}}`, true},
		{"root also asserts", `{` + hdr + `"required":["n"],"oneOf":[` + a + `,` + b + `]}`, false},
		{"$ref sibling asserts", `{` + hdr + `"$ref":"#/$defs/M","type":"object","$defs":{"M":{"oneOf":[` + a + `,` + b + `]}}}`, false},
		{"no shared const", `{` + hdr + `"oneOf":[` + a + `,{"type":"object"}]}`, false},
		{"same const only", `{` + hdr + `"oneOf":[` + a + `,` + a + `]}`, false},
		{"dynamicRef in a branch", `{` + hdr + `"$dynamicAnchor":"node","oneOf":[` + a + `,{"type":"object","properties":{"k":{"const":"b"},"c":{"$dynamicRef":"#node"}}}]}`, false},
		{"anyOf, not oneOf", `{` + hdr + `"anyOf":[` + a + `,` + b + `]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sch := compileMap(t, map[string]string{"s.json": tt.body}, "s.json")
			if got := sch.fast != nil; got != tt.built {
				t.Fatalf("dispatch built = %v, want %v", got, tt.built)
			}
		})
	}
}

// Branches without a const, or sharing one, are evaluated; an instance two
// branches accept fails the oneOf with the library's own violation.
func TestDispatchKeepsOneOfSemantics(t *testing.T) {
	body := `{` + hdr + `"oneOf":[
		{"type":"object","required":["k"],"properties":{"k":{"const":"a"},"n":{"type":"integer"}}},
		{"type":"object","required":["k"],"properties":{"k":{"const":"a"},"m":{"type":"integer"}}},
		{"type":"object","required":["k"],"properties":{"k":{"const":"b"}}},
		{"type":"object","required":["z"]}]}`
	sch := compileMap(t, map[string]string{"s.json": body}, "s.json")
	if sch.fast == nil || sch.fast.key != "k" || sch.fast.consts[3] != nil {
		t.Fatalf("dispatch %+v", sch.fast)
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
		{`{"z":1}`, true},                 // no key: undecided; the library finds branch 3
		{`{"k":1,"z":1}`, true},           // key not a string: undecided; branch 3
	}
	for _, tt := range tests {
		v, err := canon.Parse([]byte(tt.inst))
		if err != nil {
			t.Fatal(err)
		}
		checkAgrees(t, sch, v, tt.inst)
		if got := sch.Validate(v) == nil; got != tt.valid {
			t.Errorf("%s: valid = %v, want %v (%v)", tt.inst, got, tt.valid, sch.Validate(v))
		}
	}
}

// FuzzDispatch compares the dispatch with the library on arbitrary frames
// against the v1 root.
func FuzzDispatch(f *testing.F) {
	for _, s := range []string{
		`{"type":"control_request","request_id":"r1","request":{"subtype":"interrupt"}}`,
		`{"type":"control_response","response":{"subtype":"success","request_id":"r1"}}`,
		`{"type":"control_response","response":{"subtype":"error","request_id":"r1","error":"x"}}`,
		`{"type":"control_cancel_request","request_id":"r1"}`,
		`{"type":"control_request","request_id":1,"request":{"subtype":"set_model","model":"x"}}`,
	} {
		f.Add([]byte(s))
	}
	sch, err := NewSet(suiteFS(f)).Compile("schemas/control.v1.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := canon.Parse(data)
		if err != nil {
			return
		}
		checkAgrees(t, sch, v, string(data))
	})
}
