// Package lsp embeds the conform LSP suite (the Language Server Protocol
// 3.17 over stdio with Content-Length framing, server role): suite.json,
// MANIFEST.sha256, the JSON Schema (schemas/), the test vectors
// (vectors/v1) and the golden summaries (golden/v1) of this folder, so
// that a conform binary runs it from any directory (`conform run --suite
// lsp`). The reference server (reference/), the level rule (levels/) and
// the notes stay out of the binary: they make and check the suite in a
// clone.
package lsp

import (
	"embed"
	"io/fs"
)

//go:embed suite.json MANIFEST.sha256 schemas vectors golden
var files embed.FS

// Suite returns the embedded LSP suite as an fs.FS rooted at the suite
// root (suite.json at its top), for suite.Load with the kit's
// meta-schemas (conform.Meta).
func Suite() fs.FS { return files }
