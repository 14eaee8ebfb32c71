// Package conform embeds the conform suite: suite.json, MANIFEST.sha256, the
// versioned JSON Schemas (schemas/), the test vectors (vectors/v1, vectors/v2)
// and the golden summaries (golden/). The same plain files are in the
// repository for any language to read.
package conform

import (
	"embed"
	"io/fs"
)

//go:embed suite.json MANIFEST.sha256 schemas vectors golden
var files embed.FS

// Suite returns the embedded suite as an fs.FS rooted at the suite root.
func Suite() fs.FS { return files }
