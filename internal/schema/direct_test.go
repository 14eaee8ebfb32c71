package schema

import (
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"math/rand/v2"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/santhosh-tekuri/jsonschema/v6"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/testtool"
)

// directSuite is a suite root and the schema files direct is compared on.
type directSuite struct {
	name  string
	fsys  fs.FS
	files []string
	// inside: every file must be inside the direct subset (the kit's own
	// schemas: a file falling out would silently lose the speed-up).
	inside bool
}

func directSuites(t testing.TB) []directSuite {
	t.Helper()
	var out []directSuite
	add := func(name string, fsys fs.FS, inside bool) {
		files, err := fs.Glob(fsys, "schemas/*.json")
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no schema files (%v)", name, err)
		}
		out = append(out, directSuite{name, fsys, files, inside})
	}
	add("embedded", conform.Suite(), true)
	add("suites/mcp", os.DirFS("../../suites/mcp"), false)
	dirs, err := fs.Glob(os.DirFS("../../examples/suites"), "*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no example suites: %v", err)
	}
	for _, d := range dirs {
		add("examples/suites/"+d, os.DirFS("../../examples/suites/"+d), false)
	}
	return out
}

// positions marks ptr and every subschema position under v as the
// library's collectResources does for draft 2020-12 (roots.go, draft.go:
// Draft2020.subschemas): the reference isPosition is tested against, and
// the enumeration of the locations the tests compile.
func positions(v any, ptr string, out map[string]bool) {
	out[ptr] = true
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	for _, k := range []string{"not", "additionalProperties", "items", "additionalItems", "propertyNames", "contains",
		"if", "then", "else", "unevaluatedProperties", "unevaluatedItems", "contentSchema"} {
		if sub, has := obj[k]; has {
			positions(sub, ptr+"/"+canon.EscapePointer(k), out)
		}
	}
	for _, k := range []string{"definitions", "properties", "patternProperties", "dependencies", "$defs", "dependentSchemas"} {
		if m, ok := obj[k].(map[string]any); ok {
			for name, sub := range m {
				positions(sub, ptr+"/"+canon.EscapePointer(k)+"/"+canon.EscapePointer(name), out)
			}
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "items", "prefixItems"} {
		if arr, ok := obj[k].([]any); ok {
			for i, sub := range arr {
				positions(sub, ptr+"/"+canon.EscapePointer(k)+"/"+strconv.Itoa(i), out)
			}
		}
	}
}

// location is the library's urlPtr.String: the pointer's tokens
// path-escaped, slashes kept.
func location(u, ptr string) string {
	toks := strings.Split(ptr, "/")
	for i, t := range toks {
		toks[i] = url.PathEscape(t)
	}
	return u + "#" + strings.Join(toks, "/")
}

// parsedFile returns the file of fsys as canon.Parse reads it.
func parsedFile(t testing.TB, fsys fs.FS, file string) any {
	t.Helper()
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := canon.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// schemaLocations returns loc for every subschema position of the file (its
// root, every $defs entry, every member schema, ...) whose value is a schema
// (an object or a boolean), as Set.Compile takes them.
func schemaLocations(t testing.TB, fsys fs.FS, file string) []string {
	t.Helper()
	doc := parsedFile(t, fsys, file)
	pos := map[string]bool{}
	positions(doc, "", pos)
	var out []string
	for p := range pos {
		v, _ := lookup(doc, p)
		switch v.(type) {
		case bool, map[string]any:
			loc := file
			if p != "" {
				loc += "#" + strings.ReplaceAll(p, "%", "%25")
			}
			out = append(out, loc)
		}
	}
	slices.Sort(out)
	return out
}

// graphCompare compares two schema graphs field by field: every exported
// field of jsonschema.Schema, schemas by a bijection kept across calls
// (the same direct node must always stand for the same library schema),
// regexps by their source, formats by identity, numbers by value.
type graphCompare struct {
	fwd, rev map[*jsonschema.Schema]*jsonschema.Schema
	nodes    int
	// d built the graphs compared: a node's Location, which direct
	// leaves empty, is compared from where d built it.
	d *direct
}

func newGraphCompare(d *direct) *graphCompare {
	return &graphCompare{fwd: map[*jsonschema.Schema]*jsonschema.Schema{}, rev: map[*jsonschema.Schema]*jsonschema.Schema{}, d: d}
}

var (
	schemaPtrType = reflect.TypeFor[*jsonschema.Schema]()
	regexpType    = reflect.TypeFor[jsonschema.Regexp]()
	ratPtrType    = reflect.TypeFor[*big.Rat]()
	formatPtrType = reflect.TypeFor[*jsonschema.Format]()
)

func (g *graphCompare) schema(a, b *jsonschema.Schema, at string) error {
	if (a == nil) != (b == nil) {
		return fmt.Errorf("%s: direct %v, library %v", at, a != nil, b != nil)
	}
	if a == nil {
		return nil
	}
	if x, ok := g.fwd[a]; ok {
		if x != b {
			return fmt.Errorf("%s: direct node %s stands for library %s and %s", at, a.Location, x.Location, b.Location)
		}
		return nil
	}
	if y, ok := g.rev[b]; ok && y != a {
		return fmt.Errorf("%s: library node %s has two direct nodes", at, b.Location)
	}
	g.fwd[a], g.rev[b] = b, a
	g.nodes++
	l, ok := g.d.locs[a]
	if !ok {
		return fmt.Errorf("%s: a node direct did not build", at)
	}
	if a.Location != "" || location(l.u, l.ptr) != b.Location {
		return fmt.Errorf("%s: built from %s, library's %s", at, location(l.u, l.ptr), b.Location)
	}
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := range va.NumField() {
		f := va.Type().Field(i)
		if !f.IsExported() || f.Name == "Location" {
			continue
		}
		if err := g.value(va.Field(i), vb.Field(i), b.Location+" "+f.Name); err != nil {
			return err
		}
	}
	return nil
}

func (g *graphCompare) value(a, b reflect.Value, at string) error {
	if a.Type() != b.Type() {
		return fmt.Errorf("%s: types %s and %s", at, a.Type(), b.Type())
	}
	switch a.Type() {
	case schemaPtrType:
		return g.schema(a.Interface().(*jsonschema.Schema), b.Interface().(*jsonschema.Schema), at)
	case ratPtrType:
		x, y := a.Interface().(*big.Rat), b.Interface().(*big.Rat)
		if (x == nil) != (y == nil) || x != nil && x.Cmp(y) != 0 {
			return fmt.Errorf("%s: %v and %v", at, x, y)
		}
		return nil
	case formatPtrType:
		// The library's own format values, except "regex", which it makes
		// per schema around its regexp engine (Go's regexp in both).
		x, y := a.Interface().(*jsonschema.Format), b.Interface().(*jsonschema.Format)
		if x != y && (x == nil || y == nil || x.Name != "regex" || y.Name != "regex") {
			return fmt.Errorf("%s: different formats", at)
		}
		return nil
	case regexpType:
		if a.IsNil() != b.IsNil() || !a.IsNil() && a.Interface().(jsonschema.Regexp).String() != b.Interface().(jsonschema.Regexp).String() {
			return fmt.Errorf("%s: regexps differ", at)
		}
		return nil
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() != b.IsNil() {
			return fmt.Errorf("%s: direct nil=%v, library nil=%v", at, a.IsNil(), b.IsNil())
		}
		if a.IsNil() {
			return nil
		}
		return g.value(a.Elem(), b.Elem(), at)
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Errorf("%s: slices of %d (nil %v) and %d (nil %v)", at, a.Len(), a.IsNil(), b.Len(), b.IsNil())
		}
		for i := range a.Len() {
			if err := g.value(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Errorf("%s: maps of %d and %d", at, a.Len(), b.Len())
		}
		key := func(k reflect.Value) string {
			if k.Type() == regexpType {
				return k.Interface().(jsonschema.Regexp).String()
			}
			return fmt.Sprint(k.Interface())
		}
		bk := map[string]reflect.Value{}
		for _, k := range b.MapKeys() {
			bk[key(k)] = k
		}
		for _, k := range a.MapKeys() {
			kb, ok := bk[key(k)]
			if !ok {
				return fmt.Errorf("%s: key %q only in direct", at, key(k))
			}
			if err := g.value(a.MapIndex(k), b.MapIndex(kb), at+"["+key(k)+"]"); err != nil {
				return err
			}
		}
		return nil
	case reflect.Struct:
		// Types, Enum, DynamicRef: their exported fields (Enum's type
		// set is unexported, derived from Values, and read only by the
		// library's validator, which never sees a direct node).
		for i := range a.NumField() {
			if !a.Type().Field(i).IsExported() {
				continue
			}
			if err := g.value(a.Field(i), b.Field(i), at+"."+a.Type().Field(i).Name); err != nil {
				return err
			}
		}
		return nil
	case reflect.Func:
		return fmt.Errorf("%s: cannot compare a func", at)
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return fmt.Errorf("%s: %#v and %#v", at, a.Interface(), b.Interface())
	}
	return nil
}

// libraryOnly is a checked Set without the direct path: the library's
// compilation, as every Set made before direct existed.
func libraryOnly(fsys fs.FS) *Set {
	s := NewCheckedSet(fsys)
	s.direct, s.fast.set = nil, nil
	return s
}

// TestDirectMatchesLibrary: for every subschema location of every schema
// file of the embedded suite, suites/mcp and the example suites, the graph
// direct builds has exactly the exported fields of the library's
// compilation of that location (so fastBuilder, which reads only those,
// builds the same evaluator from either, and Declares answers the same),
// or direct refuses it. The kit's own files are all inside the subset.
func TestDirectMatchesLibrary(t *testing.T) {
	t.Parallel()
	for _, ds := range directSuites(t) {
		t.Run(ds.name, func(t *testing.T) {
			t.Parallel()
			lib := libraryOnly(ds.fsys)
			d := newDirect(loader{fsys: ds.fsys, base: checkedBaseURL})
			g := newGraphCompare(d)
			built, refused := 0, 0
			for _, file := range ds.files {
				for _, loc := range schemaLocations(t, ds.fsys, file) {
					want, err := lib.compiler.Compile(checkedBaseURL + loc)
					got, derr := d.build(checkedBaseURL + loc)
					if derr != nil {
						var o errOutside
						if !errors.As(derr, &o) {
							t.Fatalf("%s: direct error is not errOutside: %v", loc, derr)
						}
						if ds.inside {
							t.Errorf("%s: outside the direct subset: %v", loc, derr)
						}
						refused++
						continue
					}
					if err != nil {
						t.Fatalf("%s: direct built what the library refuses: %v", loc, err)
					}
					if err := g.schema(got, want, loc); err != nil {
						t.Fatalf("%s: %v", loc, err)
					}
					built++
				}
			}
			t.Logf("%d locations built directly (%d distinct schemas compared), %d refused", built, g.nodes, refused)
			if built == 0 {
				t.Errorf("no location built directly")
			}
		})
	}
}

// framesIn returns every distinct object inside the JSON files under dirs
// of fsys (frames, bodies, vector files), sorted by canonical form.
func framesIn(t testing.TB, fsys fs.FS, dirs ...string) []any {
	t.Helper()
	seen := map[string]any{}
	for _, dir := range dirs {
		if _, err := fs.Stat(fsys, dir); err != nil {
			continue
		}
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
				return nil // not every .json under golden/ is one value
			}
			for _, x := range values(v, nil) {
				if m, ok := x.(map[string]any); ok {
					b, err := canon.Canonical(m)
					if err != nil {
						return err
					}
					seen[string(b)] = m
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = seen[k]
	}
	return out
}

// checkSame fails unless the direct Set's schema and the library Set's
// give the same violations (nil: valid) on v, and the direct schema's fast
// evaluator agrees with the library (checkAgrees).
func checkSame(t testing.TB, direct, lib *Schema, x *taped, what string) {
	t.Helper()
	vs := lib.Validate(x.v)
	want := normalizeViolations(vs)
	if got := normalizeViolations(direct.Validate(x.v)); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: %s: violations differ\ndirect  %v\nlibrary %v", direct.Loc, what, got, want)
	}
	// The fast evaluator against the library's verdict (lib is the
	// library's own compilation: NewSet, or libraryOnly).
	checkFastAnswers(t, direct, x, what, vs == nil)
}

// notAllowed is the library's message for members additionalProperties
// or unevaluatedProperties refuse, which lists them in the instance map's
// iteration order (v6.0.3 validator.go: for pname := range obj), so two
// validations of one value by one schema may word it differently.
var notAllowed = regexp.MustCompile(`^((?:additional|unevaluated) properties )(.*)( not allowed)$`)

// normalizeViolations sorts the member list of notAllowed messages; every
// other message, instance and keyword is kept as it is.
func normalizeViolations(vs []Violation) []Violation {
	out := slices.Clone(vs)
	for i, v := range out {
		if m := notAllowed.FindStringSubmatch(v.Message); m != nil {
			names := strings.Split(m[2], ", ")
			slices.Sort(names)
			out[i].Message = m[1] + strings.Join(names, ", ") + m[3]
		}
	}
	return out
}

// TestDirectAgreesOnSuiteFrames: schemas compiled through the direct path
// validate every object found in the suites' vector and golden files, and
// mutations of them, with exactly the violations of the library's own
// compilation, at every root and $defs entry and every member schema of a
// $defs entry (the runner's reply-body locations among them).
func TestDirectAgreesOnSuiteFrames(t *testing.T) {
	t.Parallel()
	// Mutations from a fixed seed: CI stage 80 sets CONFORM_TEST_DEEP=1
	// for 2 paths of a 32nd of the frames; plain go test checks a quarter
	// as many, 1 path of a 128th (issue 31: go test ./... within a minute
	// warm; docs/maintaining.md).
	maxPaths, sample := 1, 128
	if testtool.Deep() {
		maxPaths, sample = 2, 32
	}
	for _, ds := range directSuites(t) {
		t.Run(ds.name, func(t *testing.T) {
			t.Parallel()
			frames := framesIn(t, ds.fsys, "vectors", "golden")
			if len(frames) == 0 {
				t.Fatal("no frames")
			}
			direct, lib := NewCheckedSet(ds.fsys), libraryOnly(ds.fsys)
			// Each frame read onto a tape once, for every location.
			taped := make([]*taped, len(frames))
			for i, f := range frames {
				taped[i] = newTaped(f)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			checked, deferred := 0, 0
			for _, file := range ds.files {
				for _, loc := range schemaLocations(t, ds.fsys, file) {
					// The roots, every $defs entry and every member of a
					// by-name table (the runner's reply bodies); the
					// structural test covers every other location.
					rest, isDef := strings.CutPrefix(loc, file+"#/$defs/")
					table := strings.Contains(rest, "By") && strings.Count(rest, "/") == 2 && strings.Contains(rest, "/properties/")
					if loc != file && !(isDef && (!strings.Contains(rest, "/") || table)) {
						continue
					}
					dsch, err := direct.Compile(loc)
					if err != nil {
						t.Fatal(err)
					}
					ls, err := lib.Compile(loc)
					if err != nil {
						t.Fatal(err)
					}
					if dsch.lib.set != nil {
						deferred++
					}
					// The deferred compilation compiles, wherever it is
					// first needed.
					if _, err := dsch.libSchema(); err != nil {
						t.Fatal(err)
					}
					for i, f := range frames {
						// Every object at a root, with mutations of a
						// sample; a sample of objects elsewhere.
						if loc != file && i%sample != 0 {
							continue
						}
						checkSame(t, dsch, ls, taped[i], "frame")
						checked++
						if loc == file && rng.IntN(sample) == 0 {
							for _, m := range mutate(f, rng, maxPaths) {
								checkSame(t, dsch, ls, newTaped(m), "mutated frame")
								checked++
							}
						}
					}
				}
			}
			t.Logf("%d frames, %d validations compared, %d locations deferred", len(frames), checked, deferred)
			if ds.name == "embedded" && deferred == 0 {
				t.Error("no location took the direct path")
			}
		})
	}
}

// TestDirectDefersLibrary: a checked Set's Compile of a schema inside the
// subset does not compile it with the library; a valid value does not
// either; the first invalid one does, once, and its violations are the
// library's.
func TestDirectDefersLibrary(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"s.json": {Data: []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object", "required": ["a"], "properties": {"a": {"$ref": "#/$defs/n"}, "t": {"type": "string", "format": "date-time"}},
		"$defs": {"n": {"type": "integer", "minimum": 2}}}`)}}
	set := NewCheckedSet(fsys)
	sch, err := set.Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	if sch.lib.set == nil || sch.fast == nil {
		t.Fatal("not on the direct path")
	}
	if v := sch.Validate(parse(t, `{"a": 3, "t": "2026-12-01T10:00:00Z"}`)); v != nil {
		t.Fatalf("valid value: %v", v)
	}
	if sch.lib.s != nil {
		t.Fatal("the library compiled on a valid value")
	}
	got := sch.Validate(parse(t, `{"a": 1.5, "t": "later"}`))
	want := libraryOnly(fsys)
	wsch, err := want.Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	if w := wsch.Validate(parse(t, `{"a": 1.5, "t": "later"}`)); !reflect.DeepEqual(got, w) || len(w) != 2 {
		t.Fatalf("violations\ndirect  %v\nlibrary %v", got, w)
	}
	if sch.lib.s == nil {
		t.Fatal("no library schema after an invalid value")
	}
}

// TestDirectFallsBack: documents outside the subset compile with the
// library at Compile, as before (their errors included), and validate as
// it does.
func TestDirectFallsBack(t *testing.T) {
	t.Parallel()
	const hdr = `"$schema": "https://json-schema.org/draft/2020-12/schema", `
	tests := []struct {
		name, doc, inst string
	}{
		{"$id", `{` + hdr + `"$id": "https://example.com/x", "type": "string"}`, `1`},
		{"$anchor target", `{` + hdr + `"$ref": "#a", "$defs": {"a": {"$anchor": "a", "type": "string"}}}`, `1`},
		{"contains", `{` + hdr + `"contains": {"const": 1}}`, `[2]`},
		{"dependentSchemas", `{` + hdr + `"dependentSchemas": {"a": {"required": ["b"]}}}`, `{"a": 1}`},
		{"items array", `{` + hdr + `"type": "array", "items": [{"type": "string"}]}`, `{}`},
		{"nested $schema", `{` + hdr + `"properties": {"a": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}}}`, `{"a": 1}`},
		{"draft-07", `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}`, `1`},
		{"ref to a non-subschema", `{` + hdr + `"$ref": "#/x/y", "x": {"y": {"type": "string"}}}`, `1`},
		{"dynamicRef", `{` + hdr + `"$dynamicAnchor": "n", "type": "object", "properties": {"k": {"$dynamicRef": "#n"}}}`, `{"k": 1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fsys := fstest.MapFS{"s.json": {Data: []byte(tt.doc)}}
			sch, err := NewCheckedSet(fsys).Compile("s.json")
			if err != nil {
				t.Fatal(err)
			}
			if sch.lib.set != nil {
				t.Fatal("took the direct path")
			}
			lsch, err := libraryOnly(fsys).Compile("s.json")
			if err != nil {
				t.Fatal(err)
			}
			v := parse(t, tt.inst)
			if got, want := sch.Validate(v), lsch.Validate(v); !reflect.DeepEqual(got, want) || want == nil {
				t.Fatalf("got %v, want %v (invalid)", got, want)
			}
		})
	}
	for _, tt := range []struct{ name, doc string }{
		{"bad pattern", `{` + hdr + `"pattern": "("}`},
		{"bad patternProperties", `{` + hdr + `"patternProperties": {"(": true}}`},
		{"missing $ref target", `{` + hdr + `"$ref": "#/$defs/none"}`},
		{"$ref to a missing file", `{` + hdr + `"$ref": "other.json"}`},
		{"$ref outside the root", `{` + hdr + `"$ref": "../up.json"}`},
		{"remote $ref", `{` + hdr + `"$ref": "https://example.com/s.json"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fsys := fstest.MapFS{"s.json": {Data: []byte(tt.doc)}}
			_, err := NewCheckedSet(fsys).Compile("s.json")
			_, want := libraryOnly(fsys).Compile("s.json")
			if err == nil || want == nil || err.Error() != want.Error() || kiterr.CodeOf(err) != kiterr.CodeOf(want) {
				t.Fatalf("err = %v, want %v", err, want)
			}
		})
	}
}

// TestDirectConcurrent: the deferred compilation is made once under
// concurrent first use (run with -race).
func TestDirectConcurrent(t *testing.T) {
	t.Parallel()
	set := NewCheckedSet(conform.Suite())
	var schs []*Schema
	for _, loc := range []string{"schemas/control.v1.json", "schemas/control.v1.json#/$defs/ReplyBySubtype/properties/initialize"} {
		sch, err := set.Compile(loc)
		if err != nil {
			t.Fatal(err)
		}
		schs = append(schs, sch)
	}
	bad := parse(t, `{"type": "control_request", "request_id": 1, "request": {"subtype": "initialize", "hooks": 5}}`)
	var wg sync.WaitGroup
	out := make([][]Violation, 8)
	for i := range out {
		wg.Go(func() { out[i] = schs[i%2].Validate(bad) })
	}
	wg.Wait()
	for i := range out {
		if len(out[i]) == 0 || !reflect.DeepEqual(out[i], out[i%2]) {
			t.Fatalf("run %d: %v, want %v", i, out[i], out[i%2])
		}
	}
}

// FuzzDirect compares the direct path's violations with the library's on
// arbitrary values against the v1 and v2 roots and two reply bodies.
func FuzzDirect(f *testing.F) {
	for _, s := range []string{
		`{"type":"control_request","request_id":"r1","request":{"subtype":"interrupt"}}`,
		`{"type":"control_response","response":{"subtype":"success","request_id":"r1"}}`,
		`{"type":"control_request","request_id":1,"request":{"subtype":"set_model","model":"x"}}`,
		`{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{"behavior":"allow","updatedInput":{}}}}`,
		`{"behavior":"deny","message":"m"}`,
		`{"t":"2026-01-01T00:00:00Z"}`,
	} {
		f.Add([]byte(s))
	}
	direct, lib := NewCheckedSet(conform.Suite()), libraryOnly(conform.Suite())
	var pairs [][2]*Schema
	for _, loc := range []string{
		"schemas/control.v1.json", "schemas/control.v2.json",
		"schemas/control.v1.json#/$defs/ReplyBySubtype/properties/can_use_tool",
		"schemas/control.v1.json#/$defs/ReplyBySubtype/properties/initialize",
	} {
		d, err := direct.Compile(loc)
		if err != nil {
			f.Fatal(err)
		}
		l, err := lib.Compile(loc)
		if err != nil {
			f.Fatal(err)
		}
		pairs = append(pairs, [2]*Schema{d, l})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := canon.Parse(data)
		if err != nil {
			return
		}
		x := newTaped(v)
		for _, p := range pairs {
			checkSame(t, p[0], p[1], x, fmt.Sprintf("%q", data))
		}
	})
}

// TestDirectMatchesLibraryOnEdgeForms is TestDirectMatchesLibrary on
// keyword forms the suites do not use: values the library's compiler
// quietly drops or reinterprets, boolean if, escaped and cross-file
// references, regex and unknown formats.
func TestDirectMatchesLibraryOnEdgeForms(t *testing.T) {
	t.Parallel()
	const hdr = `"$schema": "https://json-schema.org/draft/2020-12/schema", `
	fsys := fstest.MapFS{
		"a.json": {Data: []byte(`{` + hdr + `
			"$comment": "c", "title": 5, "description": "d", "default": {"x": 1}, "examples": [1, "two"], "deprecated": true,
			"readOnly": true, "writeOnly": false, "x-unknown": {"type": "string"},
			"type": ["object", "nonsense", 3], "minProperties": 1.0, "maxProperties": 2.5, "required": ["a", 3, "b"],
			"dependentRequired": {"a": ["b", 1], "c": "not an array"},
			"properties": {
				"bif": {"if": true, "then": {"type": "string"}, "else": {"type": "integer"}},
				"bifF": {"if": false, "then": {"type": "string"}, "else": {"type": "integer"}},
				"thenAlone": {"then": {"type": "string"}},
				"exMax": {"maximum": 5, "exclusiveMaximum": true, "minimum": 1, "exclusiveMinimum": false},
				"nums": {"multipleOf": 0.1, "exclusiveMaximum": 1e2, "minimum": -0.0, "maxLength": "3"},
				"empty": {}, "t": true, "f": false,
				"enum0": {"enum": []}, "enumX": {"enum": "no"}, "c": {"const": null},
				"fmt": {"format": "regex"}, "fmtU": {"format": "no-such-format"}, "fmtN": {"format": 5},
				"pat": {"pattern": "^a+$", "minLength": 1, "maxLength": 3},
				"arr": {"prefixItems": [{"type": "string"}, true], "items": {"$ref": "#/$defs/a~1b"}, "uniqueItems": true, "minItems": 0, "maxItems": 2},
				"names": {"propertyNames": {"pattern": "^x"}, "patternProperties": {"^y": {"type": "null"}}, "additionalProperties": {"type": "boolean"}},
				"closed": {"additionalProperties": false},
				"ev": {"allOf": [{"$ref": "#/$defs/p"}], "properties": {"q": true}, "unevaluatedProperties": false},
				"pct": {"$ref": "#/$defs/%70"},
				"tilde": {"$ref": "#/$defs/t~0x"},
				"other": {"$ref": "b.json#/$defs/n"},
				"otherRoot": {"$ref": "sub/c.json"},
				"self": {"$ref": "a.json#/properties/pat"},
				"root": {"$ref": "#"},
				"ignored": {"additionalItems": false, "contentEncoding": "base64", "contentMediaType": "application/json", "contentSchema": {"type": "string"}},
				"choice": {"oneOf": [{"properties": {"k": {"const": "a"}}}, {"properties": {"k": {"const": "b"}}}], "anyOf": [true], "not": {"type": "null"}}
			},
			"$defs": {"a/b": {"type": "integer"}, "p": {"properties": {"p": {"type": "string"}}}, "t~x": {"type": "string"}},
			"definitions": {"old": {"type": "string"}}}`)},
		"b.json":     {Data: []byte(`{"$defs": {"n": {"type": "number", "$ref": "#/$defs/m"}, "m": {"minimum": 0}}}`)},
		"sub/c.json": {Data: []byte(`{"type": "object", "properties": {"up": {"$ref": "../b.json#/$defs/m"}}}`)},
	}
	lib := libraryOnly(fsys)
	d := newDirect(loader{fsys: fsys, base: checkedBaseURL})
	g := newGraphCompare(d)
	for _, file := range []string{"a.json", "b.json", "sub/c.json"} {
		for _, loc := range schemaLocations(t, fsys, file) {
			want, err := lib.compiler.Compile(checkedBaseURL + loc)
			if err != nil {
				t.Fatalf("%s: library: %v", loc, err)
			}
			got, err := d.build(checkedBaseURL + loc)
			if err != nil {
				t.Fatalf("%s: direct: %v", loc, err)
			}
			if err := g.schema(got, want, loc); err != nil {
				t.Fatalf("%s: %v", loc, err)
			}
		}
	}
	if g.nodes < 60 {
		t.Errorf("only %d schemas compared", g.nodes)
	}
}

// isPosition agrees with the library's collection of subschema positions
// (positions) on every pointer of every suite schema file, and on each
// with one more token.
func TestIsPosition(t *testing.T) {
	t.Parallel()
	n := 0
	for _, ds := range directSuites(t) {
		for _, file := range ds.files {
			doc := parsedFile(t, ds.fsys, file)
			pos := map[string]bool{}
			positions(doc, "", pos)
			var all []string
			var walk func(v any, p string)
			walk = func(v any, p string) {
				all = append(all, p, p+"/x", p+"/01", p+"/0")
				switch x := v.(type) {
				case map[string]any:
					for k, e := range x {
						walk(e, p+"/"+canon.EscapePointer(k))
					}
				case []any:
					for i, e := range x {
						walk(e, p+"/"+strconv.Itoa(i))
					}
				}
			}
			walk(doc, "")
			for _, p := range all {
				if got := isPosition(doc, p); got != pos[p] {
					t.Fatalf("%s#%s: isPosition = %v, library %v", file, p, got, pos[p])
				}
				n++
			}
		}
	}
	t.Logf("%d pointers", n)
}

// Parsed serves the document direct read, the same value canon.Parse makes
// of the file, and nothing before a Compile read it or for a library Set.
func TestParsed(t *testing.T) {
	t.Parallel()
	fsys := conform.Suite()
	set := NewCheckedSet(fsys)
	if _, ok := set.Parsed("schemas/control.v1.json"); ok {
		t.Fatal("parsed before any Compile")
	}
	if _, err := set.Compile("schemas/control.v1.json"); err != nil {
		t.Fatal(err)
	}
	got, ok := set.Parsed("schemas/control.v1.json")
	if !ok {
		t.Fatal("not parsed after Compile")
	}
	data, err := fs.ReadFile(fsys, "schemas/control.v1.json")
	if err != nil {
		t.Fatal(err)
	}
	if want := parse(t, string(data)); !reflect.DeepEqual(got, want) {
		t.Fatal("Parsed differs from canon.Parse of the file")
	}
	lib := NewSet(fsys)
	if _, err := lib.Compile("schemas/control.v1.json"); err != nil {
		t.Fatal(err)
	}
	if _, ok := lib.Parsed("schemas/control.v1.json"); ok {
		t.Fatal("a library Set served a document")
	}
}
