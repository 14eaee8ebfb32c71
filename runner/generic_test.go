package runner_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The generic core knows frames, ids, methods and levels; a protocol's
// member names, method names and role names live in its suite (issue 20).
// This test reads every string literal of the core's non-test Go files and
// fails on one that names a member, method, role or program of the control
// protocol (the embedded suite), so such a name cannot come back as code.
// Comments may still use the control protocol as an example.
func TestCoreNamesNoProtocolMember(t *testing.T) {
	t.Parallel()
	core := []string{".", "../internal/compare", "../internal/drift", "../internal/schema",
		"../internal/suite", "../internal/report", "../internal/result", "../internal/normalize",
		"../internal/envelope", "../internal/canon", "../internal/proc"}
	// Words of the control protocol (seeds "stream-json control protocol"):
	// frame types, the correlation member, the method member, a method, the
	// CLI and the variable its double is found by.
	word := regexp.MustCompile(`(?i)\b(control_request|control_response|control_cancel_request|control_diagnostic|request_id|subtype|can_use_tool|claude|CONFORM_AGENT)\b`)
	// Its role names, as whole literals (a role is suite data: roles[]).
	roles := map[string]bool{"agent": true, "host": true}
	files := 0
	for _, dir := range core {
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			files++
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					s = lit.Value
				}
				if m := word.FindString(s); m != "" {
					t.Errorf("%s: string literal names the control protocol's %q: %.80q", fset.Position(lit.Pos()), m, s)
				}
				if roles[strings.ToLower(s)] {
					t.Errorf("%s: string literal is the control protocol's role %q", fset.Position(lit.Pos()), s)
				}
				return true
			})
		}
	}
	if files < 40 {
		t.Fatalf("read only %d files of the core: the package list is wrong", files)
	}
}
