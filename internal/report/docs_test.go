package report_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/report"
)

// TestFindingsDocCoversEveryCode: every finding code the runner and the
// comparison can report, every error code of the kit and every warning of
// conform validate has its own section in docs/findings.md, whose anchor
// is the one report.DocLink prints, and the document has no section for a
// code that does not exist. The codes are read from the source (the
// Finding* constants of runner and internal/result, compare's difference
// kinds, internal/kiterr's codes, internal/profile's MetadataMissing), so
// a new code without documentation fails here (issue 32:
// NORMALIZER_UNMATCHED had none).
func TestFindingsDocCoversEveryCode(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	codes := map[string]bool{}
	for _, dir := range []string{"runner", filepath.Join("internal", "result")} {
		for _, c := range constants(t, filepath.Join(root, dir), "Finding") {
			codes[c] = true
		}
	}
	for _, c := range constants(t, filepath.Join(root, "internal", "compare"), "") {
		codes[c] = true
	}
	kit := constants(t, filepath.Join(root, "internal", "kiterr"), "")
	for _, c := range kit {
		codes[c] = true
	}
	for _, c := range constants(t, filepath.Join(root, "internal", "profile"), "MetadataMissing") {
		codes[c] = true
	}
	// kiterr's one-word codes (USAGE, IO) are UPPER_SNAKE without "_".
	if len(kit) < 50 || !slices.Contains(kit, "IO") || !slices.Contains(kit, "NORMALIZER_UNMATCHED") {
		t.Fatalf("found %d kit error codes (%v): the source scan is broken", len(kit), kit)
	}
	if len(codes) < 40 {
		t.Fatalf("found only %d codes: the source scan is broken", len(codes))
	}
	doc, err := os.ReadFile(filepath.Join(root, report.FindingsDoc))
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^### ([A-Z][A-Z0-9_]*)$`).FindAllStringSubmatch(string(doc), -1) {
		anchors[githubAnchor(m[1])] = true
		if !codes[m[1]] {
			t.Errorf("%s has a section for %s, which no source constant defines", report.FindingsDoc, m[1])
		}
	}
	var missing []string
	for c := range codes {
		link := report.DocLink(c)
		if !anchors[strings.TrimPrefix(link, report.FindingsDoc+"#")] {
			missing = append(missing, c)
		}
	}
	sort.Strings(missing)
	if diff := cmp.Diff([]string(nil), missing); diff != "" {
		t.Errorf("codes without a section in %s (-want +got):\n%s", report.FindingsDoc, diff)
	}
}

// githubAnchor is the fragment GitHub gives a heading: lower case, spaces
// as hyphens, punctuation other than hyphens and underscores removed.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// constants returns the values of the package-level string constants in
// the non-test files of dir whose names start with prefix and whose values
// are UPPER_SNAKE string literals.
func constants(t *testing.T, dir, prefix string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	code := regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$`)
	if strings.HasSuffix(dir, "kiterr") {
		code = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)
	}
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i >= len(vs.Values) || !strings.HasPrefix(name.Name, prefix) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					s, err := strconv.Unquote(lit.Value)
					if err == nil && code.MatchString(s) {
						out = append(out, s)
					}
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s* constants in %s", prefix, dir)
	}
	return out
}
