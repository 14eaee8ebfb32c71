// Package conform embeds the conform suite: suite.json, MANIFEST.sha256, the
// versioned JSON Schemas (schemas/), the test vectors (vectors/v1, vectors/v2)
// and the golden summaries (golden/). The same plain files are in the
// repository for any language to read.
//
// It also embeds the kit's meta-schemas (schemas/suite.schema.json,
// schemas/vector.schema.json, schemas/profile.schema.json and the report
// schemas), which every suite's suite.json and vectors are validated against:
// a suite holds only its own files.
package conform

import (
	"embed"
	"io/fs"
)

//go:embed suite.json MANIFEST.sha256 schemas vectors golden
var files embed.FS

// Suite returns the embedded suite as an fs.FS rooted at the suite root.
func Suite() fs.FS { return files }

// Meta returns the kit's meta-schemas as an fs.FS in which they are at
// schemas/suite.schema.json and schemas/vector.schema.json (with the other
// kit schemas beside them), for suite.Options.Meta.
func Meta() fs.FS { return files }
