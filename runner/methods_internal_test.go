package runner

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/suite"
)

// The embedded suite's reply-body schemas are compiled on first use, and
// every one of every version compiles: the error methodSchemas.get would
// turn into a finding is not reached for it.
func TestMethodSchemasEmbedded(t *testing.T) {
	t.Parallel()
	s, err := suite.Load(conform.Suite(), suite.Options{SkipDigest: true, Meta: conform.Meta(), SchemasChecked: true, MetaChecked: true})
	if err != nil {
		t.Fatal(err)
	}
	methods := 0
	for i := range s.Manifest.Versions {
		ver := &s.Manifest.Versions[i]
		m, err := newMethodSchemas(s, ver)
		if err != nil {
			t.Fatalf("v%d: %v", ver.Version, err)
		}
		if m == nil {
			continue
		}
		for name, e := range m.byName {
			if e.sch != nil {
				t.Errorf("v%d %s: compiled before first use", ver.Version, name)
			}
			sch, err := m.get(name)
			if err != nil || sch == nil {
				t.Errorf("v%d %s: get = %v, %v; want a schema", ver.Version, name, sch, err)
			}
			methods++
		}
		if sch, err := m.get("no-such-method"); sch != nil || err != nil {
			t.Errorf("v%d: an undeclared method gives %v, %v; want neither", ver.Version, sch, err)
		}
	}
	if methods < 18 {
		t.Errorf("%d methods compiled, want every replyBody entry of v1 and v2 (18 in v1 alone)", methods)
	}
}

// A suite the user supplies compiles every reply-body schema before any
// vector runs: one that does not compile is SCHEMA_INVALID there, not a
// finding later.
func TestMethodSchemasUserSuiteEager(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{}
	err := fs.WalkDir(conform.Suite(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(p == "suite.json" || strings.HasPrefix(p, "schemas/")) {
			return err
		}
		data, err := fs.ReadFile(conform.Suite(), p)
		fsys[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	doc := string(fsys["schemas/control.v1.json"].Data)
	const entry = `"ReplyBySubtype": {`
	at := strings.Index(doc, entry)
	props := strings.Index(doc[at:], `"properties": {`)
	if at < 0 || props < 0 {
		t.Fatal("no ReplyBySubtype properties in control.v1.json")
	}
	cut := at + props + len(`"properties": {`)
	fsys["schemas/control.v1.json"] = &fstest.MapFile{Data: []byte(doc[:cut] + `"zz_broken": {"$ref": "#/$defs/NoSuchDefinition"},` + doc[cut:])}
	s, err := suite.Load(fsys, suite.Options{SkipDigest: true, Meta: conform.Meta()})
	if err != nil {
		t.Fatal(err)
	}
	ver, err := s.Version(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newMethodSchemas(s, ver); kiterr.CodeOf(err) != kiterr.SchemaInvalid {
		t.Errorf("newMethodSchemas = %v, want SCHEMA_INVALID for the broken entry", err)
	}
}
