package compat_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compat"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/schema"
)

// publishedMeta are the meta-schemas json-schema.org publishes, committed
// byte for byte under testdata/metaschema (SOURCE says from where), with
// their digests.
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
	`{"examples": [1]}`,
	`{"required": []}`,
	`{"required": ["a", "a"]}`,
	`{"items": [{"type": "string"}], "additionalItems": false}`,
	`{"properties": {"a": {"$ref": "#"}}, "minLength": -1}`,
	`{"contains": {"const": 1}, "propertyNames": {"maxLength": 3}}`,
}

// knownStricterPublished are the probes the published meta-schema of a
// draft refuses and compat accepts: jsonschema v6.0.3 bundles an older
// draft-06 meta-schema (without the regex format of patternProperties
// names and without examples, both added to the published text in
// January 2019). compat reaches the bundled meta-schemas only through
// internal/schema; replacing them there is issue 33 item 4's remaining
// step. The test fails when this list is no longer exact.
var knownStricterPublished = map[string]bool{
	"draft-06 " + `{"patternProperties": {"(": {}}}`: true,
	"draft-06 " + `{"examples": 1}`:                  true,
}

// TestBundledMetaSchemas: the committed copies are the published texts
// (their digests), and compat accepts a schema (no SCHEMA_INVALID) exactly
// when the published meta-schema of its draft does, on every probe, but
// for the known differences above. The published text is validated with
// the real validator as an ordinary schema (its $id taken out, so that the
// library's own copy under that URL is not used instead).
func TestBundledMetaSchemas(t *testing.T) {
	for _, pm := range publishedMeta {
		t.Run(pm.draft, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "metaschema", pm.file))
			if err != nil {
				t.Fatalf("read the published copy: %v", err)
			}
			sum := sha256.Sum256(data)
			if got := hex.EncodeToString(sum[:]); got != pm.sha256 {
				t.Fatalf("testdata/metaschema/%s: sha256 %s, want %s (the published text, SOURCE)", pm.file, got, pm.sha256)
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
				known := knownStricterPublished[pm.draft+" "+probe]
				switch {
				case accepted == published && known:
					t.Errorf("%s %s: compat and the published meta-schema agree now (accepted %v): take it out of knownStricterPublished", pm.draft, probe, accepted)
				case accepted != published && !(known && accepted && !published):
					t.Errorf("%s %s: compat accepted %v (%v), the published meta-schema %v", pm.draft, probe, accepted, cerr, published)
				}
			}
		})
	}
}
