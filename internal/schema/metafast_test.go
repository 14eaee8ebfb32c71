package schema

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/testtool"
)

// TestMetaFastAgrees is the differential test of the 2020-12 meta-schema's
// fast evaluator (buildRooted, which resolves its $dynamicRef "#meta" to
// the meta-schema's root): on every JSON document under schemas/,
// internal/compat/testdata (the SchemaStore documents included) and
// vectors/, and on seeded mutants of the schema documents (a keyword of a
// subschema at any depth replaced by a value of the wrong shape, or a
// member added), the fast evaluator says "valid" exactly when jsonschema
// v6 validating against the meta-schema does. [Standalone.CheckMeta]
// relies on the "valid" half.
func TestMetaFastAgrees(t *testing.T) {
	t.Parallel()
	ms := NewMetaSchemas()
	const u = "https://json-schema.org/draft/2020-12/schema"
	sch, fast := ms.byURL[u], ms.fast[u]
	if sch == nil || fast == nil {
		t.Fatalf("2020-12 meta-schema: compiled %v, fast evaluator %v; want both", sch != nil, fast != nil)
	}
	var docs []any
	var names []string
	var schemaDocs []int
	for _, dir := range []string{"../../schemas", "../../suites/mcp/schemas", "../compat/testdata", "../../vectors"} {
		var files []string
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".json.gz")) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walk %s: %v", dir, err)
		}
		sort.Strings(files)
		for _, p := range files {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(p, ".gz") {
				zr, err := gzip.NewReader(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				if data, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			v, err := canon.Parse(data)
			if err != nil {
				continue // not JSON (a fixture of a parse error)
			}
			if dir != "../../vectors" {
				schemaDocs = append(schemaDocs, len(docs))
			}
			docs = append(docs, v)
			names = append(names, p)
		}
	}
	if len(schemaDocs) < 40 {
		t.Fatalf("found %d schema documents, want at least 40", len(schemaDocs))
	}
	// seeded mutants of the schema documents
	bad := []any{"strnig", json.Number("-1"), json.Number("1.5"), true, false, nil, []any{}, []any{json.Number("1")},
		[]any{"a", "a"}, map[string]any{}, map[string]any{"a": json.Number("1")}, map[string]any{"type": "strnig"}, "(", "oops"}
	keywords := []string{"type", "items", "properties", "additionalProperties", "required", "enum", "minimum",
		"exclusiveMinimum", "maxLength", "pattern", "$ref", "$defs", "allOf", "anyOf", "not", "if", "const",
		"prefixItems", "dependentRequired", "dependentSchemas", "propertyNames", "unevaluatedProperties",
		"contains", "minContains", "$vocabulary", "$schema", "$id", "$anchor", "$dynamicRef", "deprecated",
		"examples", "definitions", "dependencies", "$recursiveAnchor", "format", "contentSchema", "uniqueItems"}
	r := rand.New(rand.NewPCG(23, 4))
	for _, i := range schemaDocs {
		var all []map[string]any
		collectObjects(docs[i], &all)
		n := 20
		if len(all) > 2000 {
			n = 3 // the SchemaStore documents: each validation costs milliseconds
		}
		if !testtool.Deep() {
			n = max(1, n/2) // the full sample: CONFORM_TEST_DEEP=1 (CI stage 80)
		}
		for k := 0; k < n && len(all) > 0; k++ {
			m := deepCopy(docs[i])
			var objs []map[string]any
			collectObjects(m, &objs)
			o := objs[r.IntN(len(objs))]
			o[keywords[r.IntN(len(keywords))]] = deepCopy(bad[r.IntN(len(bad))])
			docs = append(docs, m)
			names = append(names, names[i]+" (mutant)")
		}
	}
	valid, invalid := 0, 0
	for i, d := range docs {
		want := sch.Validate(d) == nil
		if got := fast.ok(d); got != want {
			t.Errorf("%s: fast evaluator says valid=%v, jsonschema v6 valid=%v", names[i], got, want)
		}
		if want {
			valid++
		} else {
			invalid++
		}
	}
	t.Logf("%d documents: %d valid, %d invalid", len(docs), valid, invalid)
	if valid < 100 || invalid < 100 {
		t.Fatalf("want at least 100 valid and 100 invalid documents, got %d and %d", valid, invalid)
	}
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, c := range x {
			out[k] = deepCopy(c)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, c := range x {
			out[i] = deepCopy(c)
		}
		return out
	}
	return v
}

// collectObjects appends every object in v, in a fixed order.
func collectObjects(v any, out *[]map[string]any) {
	switch x := v.(type) {
	case map[string]any:
		*out = append(*out, x)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			collectObjects(x[k], out)
		}
	case []any:
		for _, c := range x {
			collectObjects(c, out)
		}
	}
}
