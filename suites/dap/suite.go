// Package dap embeds the conform DAP suite (the Debug Adapter Protocol
// over stdio, specification 1.71, adapter role): suite.json,
// MANIFEST.sha256, the JSON Schema (schemas/), the test vectors
// (vectors/v1) and the golden summaries (golden/v1) of this folder, so
// that a conform binary runs it from any directory (`conform run --suite
// dap`). The reference adapter (reference/) and the notes stay out of the
// binary: they make the goldens and are read in a clone. The same plain
// files are in the repository for any language to read.
package dap

import (
	"embed"
	"io/fs"
)

//go:embed suite.json MANIFEST.sha256 schemas vectors golden
var files embed.FS

// Suite returns the embedded DAP suite as an fs.FS rooted at the suite
// root (suite.json at its top), for suite.Load with the kit's
// meta-schemas (conform.Meta).
func Suite() fs.FS { return files }
