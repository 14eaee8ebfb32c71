// Package levels holds the rule that ties an LSP vector's level to the
// specification text it cites: a vector's `source` quotes, in double
// quotes, the sentence it rests on, and the strongest requirement keyword
// among its quoted phrases gives the level:
//
//	must, must not, required, shall, shall not      -> required
//	should, should not, recommended, not recommended -> recommended
//	may, optional, or no quoted keyword              -> informational
//
// LSP 3.17 writes its requirements in lower case ("it must error the
// request", "those requests should error with InvalidRequest"), so unlike
// the MCP suite's rule (suites/mcp/levels, RFC 8174 capitals only) the
// keywords are read in any case; JSON-RPC 2.0's capitals count the same.
// When the level rests on something else (the quoted rule binds the
// client, the server declared the capability, the schema), the source says
// so with an explicit marker, "level: <level> because <reason>", and the
// marker's level is the level. levels_test.go holds every vector of
// suites/lsp to it.
package levels

import mcplevels "github.com/conform-kit/conform/suites/mcp/levels"

// Level names, as in a vector's "level" member.
const (
	Required      = mcplevels.Required
	Recommended   = mcplevels.Recommended
	Informational = mcplevels.Informational
)

// Basis is what a source's text says its level is (Keyword in lower case).
type Basis = mcplevels.Basis

// Derive reads a vector's source and returns the level it rests on, with
// keywords read in any case (the rule of suites/mcp/levels otherwise).
// Errors: an odd number of double quotes, more than one marker, or a marker
// whose reason is shorter than 20 bytes.
func Derive(source string) (Basis, error) { return mcplevels.DeriveAnyCase(source) }
