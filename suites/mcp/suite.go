// Package mcp embeds the conform MCP suite (the Model Context Protocol
// over stdio, revision 2025-11-25, server and client roles): suite.json,
// MANIFEST.sha256, the JSON Schema (schemas/), the test vectors
// (vectors/v1) and the golden summaries (golden/v1) of this folder, so
// that a conform binary runs it from any directory (`conform run --suite
// mcp`). The reference server and client (reference/,
// reference-client/), the probes and the notes stay out of the binary:
// they make the goldens and are read in a clone. The same plain files are
// in the repository for any language to read.
package mcp

import (
	"embed"
	"io/fs"
)

//go:embed suite.json MANIFEST.sha256 schemas vectors golden
var files embed.FS

// Suite returns the embedded MCP suite as an fs.FS rooted at the suite
// root (suite.json at its top), for suite.Load with the kit's
// meta-schemas (conform.Meta).
func Suite() fs.FS { return files }
