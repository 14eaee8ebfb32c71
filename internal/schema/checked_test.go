package schema

import (
	"io/fs"
	"path"
	"reflect"
	"testing"
	"testing/fstest"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/suites/lsp"
	"github.com/conform-kit/conform/suites/mcp"
)

// TestCheckedSetSkipsMetaCheck pins the jsonschema v6 behaviour
// NewCheckedSet relies on: a file that fails its meta-schema (a "title"
// that is not a string, which the compiler itself ignores) is refused by
// NewSet and compiled by NewCheckedSet, whose violations are NewSet's.
func TestCheckedSetSkipsMetaCheck(t *testing.T) {
	fsys := fstest.MapFS{
		"bad.json":  {Data: []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": 5, "type": "object"}`)},
		"good.json": {Data: []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"n": {"type": "integer", "minimum": 2}}, "type": "object", "properties": {"a": {"$ref": "#/$defs/n"}}, "required": ["b"]}`)},
	}
	if _, err := NewSet(fsys).Compile("bad.json"); kiterr.CodeOf(err) != kiterr.SchemaInvalid {
		t.Fatalf("NewSet compiled a meta-schema violation: err = %v", err)
	}
	if _, err := NewCheckedSet(fsys).Compile("bad.json"); err != nil {
		t.Fatalf("NewCheckedSet repeated the meta-schema check: %v", err)
	}
	strict, err := NewSet(fsys).Compile("good.json")
	if err != nil {
		t.Fatal(err)
	}
	checked, err := NewCheckedSet(fsys).Compile("good.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := canon.Parse([]byte(`{"a": 1.5}`))
	if err != nil {
		t.Fatal(err)
	}
	want := strict.Validate(v)
	if len(want) < 2 {
		t.Fatalf("want two violations, got %v", want)
	}
	if got := checked.Validate(v); !reflect.DeepEqual(got, want) {
		t.Errorf("violations differ:\nchecked %v\nstrict  %v", got, want)
	}
}

// TestEmbeddedSchemasMetaValid is the check conform run skips for the
// embedded suite (suite.Options.SchemasChecked, MetaChecked): every schema
// file the binary embeds compiles under NewSet, meta-schema check included.
func TestEmbeddedSchemasMetaValid(t *testing.T) {
	// The control suite with the kit's schemas, the MCP suite (suites/mcp,
	// embedded for --suite mcp) and the LSP suite (suites/lsp, --suite lsp).
	for name, fsys := range map[string]fs.FS{"control": conform.Suite(), "mcp": mcp.Suite(), "lsp": lsp.Suite()} {
		files, err := fs.Glob(fsys, "schemas/*.json")
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no embedded schemas: %v", name, err)
		}
		for _, f := range files {
			if path.Ext(f) != ".json" {
				continue
			}
			if _, err := NewSet(fsys).Compile(f); err != nil {
				t.Errorf("%s: %s: %v", name, f, err)
			}
		}
	}
}
