package compat_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compat"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/schema"
)

// publishedMeta are the meta-schemas json-schema.org publishes, committed
// byte for byte under internal/schema/metaschema (SOURCE says from where)
// and embedded there ([schema.PublishedMetaSchema]), with their digests.
var publishedMeta = []struct {
	draft, file, sha256 string
}{
	{"draft-07", "draft-07.json", "692e1d165e47afcb5f11b2ce1c639635ffa834035d6ecb6bcf3087481dae8404"},
	{"draft-06", "draft-06.json", "0064e880ba214bff1cee511e678fbe48c9826dd359e91e2423fc36de67b2ebe1"},
}

// metaProbes are schemas on which meta-schemas of draft-06 and -07 may
// disagree: empty and repeated enums (issue 33 says the published draft-07
// accepts them; its text says minItems 1 and uniqueItems), pattern and
// patternProperties names that are not regular expressions, examples
// that are not arrays, and ordinary schemas.
var metaProbes = []string{
	`{"enum": []}`,
	`{"enum": [1, 1]}`,
	`{"enum": [1, 2]}`,
	`{"type": "strnig"}`,
	`{"type": "string", "pattern": "("}`,
	`{"patternProperties": {"(": {}}}`,
	`{"patternProperties": {"^a": {}}}`,
	`{"examples": 1}`,
	`{"$schema": "http://json-schema.org/draft-06/schema#", "examples": 1}`,
	`{"$schema": "https://json-schema.org/draft-06/schema", "patternProperties": {"(": {}}}`,
	`{"examples": [1]}`,
	`{"required": []}`,
	`{"required": ["a", "a"]}`,
	`{"items": [{"type": "string"}], "additionalItems": false}`,
	`{"properties": {"a": {"$ref": "#"}}, "minLength": -1}`,
	`{"contains": {"const": 1}, "propertyNames": {"maxLength": 3}}`,
}

// TestBundledMetaSchemas: the embedded copies are the published texts
// (their digests), and compat accepts a schema (no SCHEMA_INVALID) exactly
// when the published meta-schema of its draft does, on every probe (the
// two rules jsonschema v6's own draft-06 copy lacks among them). The
// published text is validated with
// the real validator as an ordinary schema (its $id taken out, so that the
// library's own copy under that URL is not used instead).
func TestBundledMetaSchemas(t *testing.T) {
	for _, pm := range publishedMeta {
		t.Run(pm.draft, func(t *testing.T) {
			data, ok := schema.PublishedMetaSchema(pm.draft)
			if !ok {
				t.Fatalf("no embedded meta-schema for %s", pm.draft)
			}
			sum := sha256.Sum256(data)
			if got := hex.EncodeToString(sum[:]); got != pm.sha256 {
				t.Fatalf("internal/schema/metaschema/%s: sha256 %s, want %s (the published text, SOURCE)", pm.file, got, pm.sha256)
			}
			doc, err := canon.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			m := doc.(map[string]any)
			delete(m, "$id")
			std, err := schema.NewStandalone("published", m, true, pm.draft)
			if err != nil {
				t.Fatal(err)
			}
			for _, probe := range metaProbes {
				v, err := canon.Parse([]byte(probe))
				if err != nil {
					t.Fatalf("probe %s: %v", probe, err)
				}
				published, err := std.Valid("", v)
				if err != nil {
					t.Fatalf("validate %s against the published %s meta-schema: %v", probe, pm.draft, err)
				}
				_, cerr := compat.Compare(context.Background(), v, v, compat.Options{DefaultDraft: pm.draft})
				accepted := kiterr.CodeOf(cerr) != kiterr.SchemaInvalid
				t.Logf("%s: published accepts %v, compat accepts %v", probe, published, accepted)
				if accepted != published {
					t.Errorf("%s %s: compat accepted %v (%v), the published meta-schema %v", pm.draft, probe, accepted, cerr, published)
				}
			}
		})
	}
}
