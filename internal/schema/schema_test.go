package schema_test

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/schema"
)

// dirFS returns os.DirFS(dir) after checking the fixture exists.
func dirFS(t *testing.T, dir string) fs.FS {
	t.Helper()
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("fixture directory %s missing: %v", dir, err)
	}
	return os.DirFS(dir)
}

func parse(t *testing.T, s string) any {
	t.Helper()
	v, err := canon.Parse([]byte(s))
	if err != nil {
		t.Fatalf("canon.Parse(%q): %v", s, err)
	}
	return v
}

func TestCompileRealSchemas(t *testing.T) {
	t.Parallel()
	set := schema.NewSet(dirFS(t, "../.."))
	for _, loc := range []string{
		"schemas/control.v1.json",
		"schemas/control.v1.json#/$defs/AllowBody",
		"schemas/control.v1.json#/$defs/ControlRequest",
		"schemas/suite.schema.json",
		"schemas/vector.schema.json",
	} {
		t.Run(loc, func(t *testing.T) {
			t.Parallel()
			sch, err := set.Compile(loc)
			if err != nil {
				t.Fatalf("Compile(%q): %v", loc, err)
			}
			if sch.Loc != loc {
				t.Errorf("Loc = %q, want %q", sch.Loc, loc)
			}
			again, err := set.Compile(loc)
			if err != nil {
				t.Fatalf("second Compile(%q): %v", loc, err)
			}
			if again != sch {
				t.Errorf("second Compile(%q) returned a different *Schema; want the cached one", loc)
			}
		})
	}
}

func TestValidateControlFrames(t *testing.T) {
	t.Parallel()
	set := schema.NewSet(dirFS(t, "../.."))
	tests := []struct {
		name          string
		loc           string
		frame         string
		valid         bool
		wantInstances []string // instance locations that must appear among the violations
	}{
		{
			name:  "interrupt request",
			loc:   "schemas/control.v1.json",
			frame: `{"type":"control_request","request_id":"req-1","request":{"subtype":"interrupt"}}`,
			valid: true,
		},
		{
			name:  "success response",
			loc:   "schemas/control.v1.json",
			frame: `{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{}}}`,
			valid: true,
		},
		{
			name:  "request without request_id",
			loc:   "schemas/control.v1.json",
			frame: `{"type":"control_request","request":{"subtype":"interrupt"}}`,
		},
		{
			name:  "unknown type",
			loc:   "schemas/control.v1.json",
			frame: `{"type":"control_frobnicate","request_id":"req-1"}`,
		},
		{
			name:  "not an object",
			loc:   "schemas/control.v1.json",
			frame: `[]`,
		},
		{
			name:  "allow body",
			loc:   "schemas/control.v1.json#/$defs/AllowBody",
			frame: `{"behavior":"allow","updatedInput":{}}`,
			valid: true,
		},
		{
			name:          "allow body with string updatedInput",
			loc:           "schemas/control.v1.json#/$defs/AllowBody",
			frame:         `{"behavior":"allow","updatedInput":"x"}`,
			wantInstances: []string{"/updatedInput"},
		},
		{
			name:  "allow body without updatedInput",
			loc:   "schemas/control.v1.json#/$defs/AllowBody",
			frame: `{"behavior":"allow"}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sch, err := set.Compile(tc.loc)
			if err != nil {
				t.Fatalf("Compile(%q): %v", tc.loc, err)
			}
			vs := sch.Validate(parse(t, tc.frame))
			if tc.valid {
				if vs != nil {
					t.Fatalf("Validate(%s) = %v, want valid", tc.frame, vs)
				}
				return
			}
			if len(vs) == 0 {
				t.Fatalf("Validate(%s) = valid, want violations", tc.frame)
			}
			var insts []string
			for _, v := range vs {
				insts = append(insts, v.Instance)
				if v.Message == "" {
					t.Errorf("violation %+v has no message", v)
				}
				if strings.HasPrefix(v.Keyword, schema.BaseURL) || !strings.HasPrefix(v.Keyword, "schemas/control.v1.json#") {
					t.Errorf("keyword %q is not suite-relative", v.Keyword)
				}
			}
			for _, want := range tc.wantInstances {
				if !slices.Contains(insts, want) {
					t.Errorf("violations %v do not name instance %q", vs, want)
				}
			}
		})
	}
}

// TestRealMessageVectors validates every message vector of the real suite
// with the schema package and checks the outcome against the vector's valid.
func TestRealMessageVectors(t *testing.T) {
	t.Parallel()
	fsys := dirFS(t, "../..")
	names, err := fs.Glob(fsys, "vectors/v1/message/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 10 {
		t.Fatalf("found %d message vectors under vectors/v1/message, want >= 10", len(names))
	}
	set := schema.NewSet(fsys)
	var valid, invalid int
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		raw := parse(t, string(data))
		vec := raw.(map[string]any)
		def, _ := vec["definition"].(string)
		want, _ := vec["valid"].(bool)
		loc := "schemas/control.v1.json" + def
		if def == "#" {
			loc = "schemas/control.v1.json"
		}
		sch, err := set.Compile(loc)
		if err != nil {
			t.Errorf("%s: Compile(%q): %v", name, loc, err)
			continue
		}
		vs := sch.Validate(vec["message"])
		if got := vs == nil; got != want {
			t.Errorf("%s: valid = %v, want %v (violations %v)", name, got, want, vs)
		}
		if want {
			valid++
		} else {
			invalid++
		}
	}
	if valid == 0 || invalid == 0 {
		t.Errorf("real message vectors: %d valid, %d invalid; want both kinds", valid, invalid)
	}
}

// wideFS builds a schema whose n properties must each be strings.
func wideFS(n int) fstest.MapFS {
	var props []string
	for i := range n {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"string"}`, i))
	}
	return fstest.MapFS{
		"schemas/wide.json": {Data: []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{` + strings.Join(props, ",") + `}}`)},
	}
}

func TestValidateSortedAndCapped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		n    int
	}{
		{"below cap", 5},
		{"at cap", schema.MaxViolations},
		{"above cap", 3 * schema.MaxViolations},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sch, err := schema.NewSet(wideFS(tc.n)).Compile("schemas/wide.json")
			if err != nil {
				t.Fatal(err)
			}
			inst := map[string]any{}
			var all []string
			for i := range tc.n {
				inst[fmt.Sprintf("p%d", i)] = 1
				all = append(all, fmt.Sprintf("/p%d", i))
			}
			vs := sch.Validate(inst)
			slices.Sort(all) // "/p10" < "/p2": string order, as documented
			if len(all) > schema.MaxViolations {
				all = all[:schema.MaxViolations]
			}
			var got []string
			for _, v := range vs {
				got = append(got, v.Instance)
				if want := fmt.Sprintf("schemas/wide.json#/properties/%s/type", v.Instance[1:]); v.Keyword != want {
					t.Errorf("Keyword = %q, want %q", v.Keyword, want)
				}
			}
			if diff := cmp.Diff(all, got); diff != "" {
				t.Errorf("violation instances (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateSortsByKeywordWithinInstance(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"s.json": {Data: []byte(`{"properties":{"a":{"type":"integer","minimum":3,"multipleOf":2,"allOf":[{"maximum":0},{"type":"boolean"}]}}}`)},
	}
	sch, err := schema.NewSet(fsys).Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	vs := sch.Validate(parse(t, `{"a":1,"b":"x"}`))
	if len(vs) < 2 {
		t.Fatalf("violations = %v, want several", vs)
	}
	sorted := slices.IsSortedFunc(vs, func(x, y schema.Violation) int {
		if c := strings.Compare(x.Instance, y.Instance); c != 0 {
			return c
		}
		return strings.Compare(x.Keyword, y.Keyword)
	})
	if !sorted {
		t.Errorf("violations not sorted by instance then keyword: %v", vs)
	}
	var kws []string
	for _, v := range vs {
		if v.Instance != "/a" {
			t.Errorf("violation at %q, want /a only: %v", v.Instance, v)
		}
		kws = append(kws, v.Keyword)
	}
	// The Keyword is the location of the failing keyword itself, relative
	// to the suite root, so two keywords of one subschema stay apart.
	want := []string{"s.json#/properties/a/allOf/0/maximum", "s.json#/properties/a/allOf/1/type", "s.json#/properties/a/minimum", "s.json#/properties/a/multipleOf"}
	if diff := cmp.Diff(want, kws); diff != "" {
		t.Errorf("keywords (-want +got):\n%s", diff)
	}
}

// TestViolationKeywordNamesKeyword: Violation's doc says Keyword is "which
// keyword"; two failing keywords of one subschema should not look alike.
func TestViolationKeywordNamesKeyword(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"s.json": {Data: []byte(`{"properties":{"a":{"type":"integer","minimum":3,"multipleOf":2}}}`)}}
	sch, err := schema.NewSet(fsys).Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	var kws []string
	for _, v := range sch.Validate(parse(t, `{"a":1}`)) {
		kws = append(kws, v.Keyword)
	}
	want := []string{"s.json#/properties/a/minimum", "s.json#/properties/a/multipleOf"}
	if diff := cmp.Diff(want, kws); diff != "" {
		t.Errorf("keywords (-want +got):\n%s", diff)
	}
}

func TestViolationString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    schema.Violation
		want string
	}{
		{schema.Violation{Instance: "/a~1b/0", Keyword: "s.json#/type", Message: "got number, want string"}, "at /a~1b/0: got number, want string (s.json#/type)"},
		{schema.Violation{Instance: "", Keyword: "s.json#/required", Message: "missing x"}, "at /: missing x (s.json#/required)"},
	}
	for _, tc := range tests {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestValidateEscapesInstancePointer(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"s.json": {Data: []byte(`{"additionalProperties":{"type":"string"}}`)}}
	sch, err := schema.NewSet(fsys).Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	vs := sch.Validate(parse(t, `{"a/b":{"c~d":1}}`))
	if len(vs) != 1 || vs[0].Instance != "/a~1b" {
		t.Errorf("violations = %v, want one at /a~1b", vs)
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	refs := dirFS(t, "testdata/refs")
	tests := []struct {
		name     string
		fsys     fs.FS
		loc      string
		code     kiterr.Code
		fragment string
	}{
		{"remote ref", refs, "schemas/remote.json", kiterr.SchemaRefRemote, "https://example.com/x.json"},
		{"ref climbing out of the suite", refs, "schemas/outside.json", kiterr.SchemaRefOutside, "outside.json"},
		{"absolute file ref", refs, "schemas/absolute-file.json", kiterr.SchemaRefOutside, "/etc/passwd"},
		{"invalid schema", refs, "schemas/invalid.json", kiterr.SchemaInvalid, "schemas/invalid.json"},
		{"duplicate key in schema", refs, "schemas/duplicate-key.json", kiterr.SchemaInvalid, "duplicate"},
		{"ref to a missing file", refs, "schemas/missing-ref.json", kiterr.SuiteNotFound, "does-not-exist.json"},
		{"missing schema", refs, "schemas/nope.json", kiterr.SuiteNotFound, "nope.json"},
		{"location with dot-dot", refs, "schemas/../../x.json", kiterr.SchemaRefOutside, ""},
		{"fragment naming nothing", refs, "schemas/local-ref.json#/$defs/nope", kiterr.SchemaInvalid, ""},
		{"invalid in MapFS", fstest.MapFS{"s.json": {Data: []byte(`{"minLength":-1}`)}}, "s.json", kiterr.SchemaInvalid, ""},
		{"not JSON in MapFS", fstest.MapFS{"s.json": {Data: []byte(`{`)}}, "s.json", kiterr.SchemaInvalid, "JSON_SYNTAX"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sch, err := schema.NewSet(tc.fsys).Compile(tc.loc)
			if err == nil {
				t.Fatalf("Compile(%q) = %v, want error %s", tc.loc, sch, tc.code)
			}
			if got := kiterr.CodeOf(err); got != tc.code {
				t.Errorf("CodeOf(%v) = %q, want %q", err, got, tc.code)
			}
			if !strings.Contains(err.Error(), tc.fragment) {
				t.Errorf("error %q does not contain %q", err, tc.fragment)
			}
		})
	}
}

func TestCompileLocalRef(t *testing.T) {
	t.Parallel()
	sch, err := schema.NewSet(dirFS(t, "testdata/refs")).Compile("schemas/local-ref.json")
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	if vs := sch.Validate("x"); vs != nil {
		t.Errorf("Validate(\"x\") = %v, want valid", vs)
	}
	vs := sch.Validate("")
	if len(vs) != 1 {
		t.Fatalf("Validate(\"\") = %v, want one violation", vs)
	}
	if want := "shared/name.json#/minLength"; vs[0].Keyword != want {
		t.Errorf("Keyword = %q, want %q", vs[0].Keyword, want)
	}
}

// TestCompileConcurrent exercises the documented concurrency safety (run
// with -race).
func TestCompileConcurrent(t *testing.T) {
	t.Parallel()
	set := schema.NewSet(dirFS(t, "../.."))
	locs := []string{"schemas/control.v1.json", "schemas/control.v1.json#/$defs/AllowBody", "schemas/vector.schema.json"}
	frame := parse(t, `{"type":"control_request","request_id":"r","request":{"subtype":"interrupt"}}`)
	var wg sync.WaitGroup
	errs := make(chan error, 24)
	for i := range 24 {
		wg.Go(func() {
			sch, err := set.Compile(locs[i%len(locs)])
			if err != nil {
				errs <- err
				return
			}
			sch.Validate(frame)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestLoaderNeverReadsOutsideFS: a schema under a sub-FS cannot reach a
// sibling of the root even when the file exists on disk.
func TestLoaderNeverReadsOutsideFS(t *testing.T) {
	t.Parallel()
	sub, err := fs.Sub(dirFS(t, "testdata/refs"), "schemas")
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, n := range []string{"local-ref.json"} {
		data, err := fs.ReadFile(sub, n)
		if err != nil {
			t.Fatal(err)
		}
		fsys[path.Join("schemas", n)] = &fstest.MapFile{Data: data}
	}
	// local-ref.json refers to ../shared/name.json, absent from this FS.
	_, err = schema.NewSet(fsys).Compile("schemas/local-ref.json")
	if got := kiterr.CodeOf(err); got != kiterr.SuiteNotFound {
		t.Errorf("CodeOf(%v) = %q, want %q", err, got, kiterr.SuiteNotFound)
	}
}
