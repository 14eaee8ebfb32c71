package schema

import (
	"bytes"
	"embed"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/conform-kit/conform/internal/kiterr"
)

// published holds the draft-06 and draft-07 meta-schemas as
// json-schema.org publishes them, byte for byte (metaschema/SOURCE names
// the commits of json-schema-org/json-schema-spec they come from; a test
// pins their digests). jsonschema v6.0.3 bundles a draft-06 meta-schema
// older than the published one (it lacks the January 2019 rules that
// patternProperties names are regular expressions and that examples is
// an array), and it refuses to let a compiler replace a meta-schema under
// its json-schema.org URL; [Standalone.CheckMeta] validates documents of
// these drafts against these texts instead. An embed.FS is read-only.
//
//go:embed metaschema/draft-06.json metaschema/draft-07.json
var published embed.FS

// publishedURL maps the $schema URL of a draft (without "#", as
// [MetaSchemas.lookup] normalises it) to its file in published.
var publishedURL = map[string]string{
	"http://json-schema.org/draft-06/schema": "metaschema/draft-06.json",
	"http://json-schema.org/draft-07/schema": "metaschema/draft-07.json",
}

// publishedBase is where a published meta-schema is added to a compiler:
// under json-schema.org, so that the library does not validate it against
// its own (older) copy first, and at a path that names none of the
// library's meta-schemas (they are under draft-0N/ and draft/).
const publishedBase = "https://json-schema.org/conform-meta/"

// PublishedMetaSchema returns the published meta-schema text of draft
// ("draft-06" or "draft-07") that [Standalone.CheckMeta] validates
// documents of that draft against, byte for byte as json-schema.org
// serves it. ok is false for any other draft (their meta-schemas are
// jsonschema v6's own copies).
func PublishedMetaSchema(draft string) (text []byte, ok bool) {
	b, err := published.ReadFile("metaschema/" + draft + ".json")
	if err != nil {
		return nil, false
	}
	return b, true
}

// compileMeta compiles the meta-schema named by key (a $schema URL
// normalised by [MetaSchemas.lookup]) in c: the published text for
// draft-06 and draft-07 (added to c first, its $id taken out so that it
// is not confused with the library's copy under that URL), the library's
// own copy for the other drafts. Errors: those of the library, wrapped
// as SCHEMA_UNSUPPORTED by the caller.
func compileMeta(c *jsonschema.Compiler, key string) (*jsonschema.Schema, error) {
	file, ok := publishedURL[key]
	if !ok {
		return c.Compile(key)
	}
	text, err := published.ReadFile(file)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.SchemaUnsupported, err, "embedded meta-schema %s", file)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return nil, kiterr.Wrap(kiterr.SchemaUnsupported, err, "embedded meta-schema %s", file)
	}
	if m, ok := doc.(map[string]any); ok {
		delete(m, "$id")
	}
	u := publishedBase + strings.TrimPrefix(file, "metaschema/")
	if err := c.AddResource(u, doc); err != nil {
		return nil, err
	}
	return c.Compile(u)
}
