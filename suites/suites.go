// Package suites names the suites embedded in conform, so that a command
// or a profile can give a suite by name ("mcp") from any directory, as
// well as by its folder.
//
// A --suite value (or a profile's "suite") is resolved by [Resolve]: empty
// is the control suite; a value holding a path separator, or naming a
// directory that exists, is a folder; any other value is the name of an
// embedded suite ([List]). So `--suite suites/mcp` in a clone reads the
// folder (the copy golden --update writes), and `--suite mcp` anywhere
// reads the copy built into the binary; both have one digest as long as
// the binary was built from that tree (TestEmbeddedMatchesFolder).
package suites

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/suites/lsp"
	"github.com/conform-kit/conform/suites/mcp"
)

// Control, MCP and LSP are the names of the embedded suites.
const (
	Control = "control"
	MCP     = "mcp"
	LSP     = "lsp"
)

// Embedded is one suite built into conform.
type Embedded struct {
	// Name is what --suite and a profile's "suite" accept ("mcp").
	Name string
	// Dir is where the suite's files are in the conform repository,
	// slash-separated and relative to its root ("." for the control
	// suite, "suites/mcp"): what a clone's --suite would name.
	Dir string
	// FS holds the suite's files rooted at its suite.json.
	FS fs.FS
}

// List returns the embedded suites, the default (the control suite) first.
func List() []Embedded {
	return []Embedded{
		{Name: Control, Dir: ".", FS: conform.Suite()},
		{Name: MCP, Dir: "suites/mcp", FS: mcp.Suite()},
		{Name: LSP, Dir: "suites/lsp", FS: lsp.Suite()},
	}
}

// Names returns the names of the embedded suites, in [List] order.
func Names() []string {
	var out []string
	for _, e := range List() {
		out = append(out, e.Name)
	}
	return out
}

// Lookup returns the embedded suite named name.
func Lookup(name string) (Embedded, bool) {
	for _, e := range List() {
		if e.Name == name {
			return e, true
		}
	}
	return Embedded{}, false
}

// IsPath reports whether the --suite value v names a folder rather than an
// embedded suite: it holds a path separator ('/', or the system's), starts
// with '.', or names a directory that exists in the working directory.
// The empty value is no path.
func IsPath(v string) bool { return IsPathIn(".", v) }

// IsPathIn is [IsPath] for a value given relative to the folder base
// rather than the working directory (a profile's "suite", relative to the
// profile's folder).
func IsPathIn(base, v string) bool {
	if v == "" {
		return false
	}
	if strings.ContainsRune(v, '/') || strings.ContainsRune(v, filepath.Separator) || strings.HasPrefix(v, ".") {
		return true
	}
	st, err := os.Stat(filepath.Join(base, v))
	return err == nil && st.IsDir()
}

// Resolve returns the embedded suite the --suite value v names, and true;
// or false when v is a folder to read ([IsPath]) or names no embedded
// suite (the caller then reports the folder missing). The empty value is
// the control suite.
func Resolve(v string) (Embedded, bool) {
	if v == "" {
		return Lookup(Control)
	}
	if IsPath(v) {
		return Embedded{}, false
	}
	return Lookup(v)
}
