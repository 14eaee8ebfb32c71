package suites_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/suite"
	"github.com/conform-kit/conform/suites"
)

// TestEmbeddedMatchesFolder: each embedded suite loads (every file its
// MANIFEST.sha256 lists is embedded and verifies), and its manifest and
// digest are those of its folder in the repository, so `--suite mcp` and
// `--suite suites/mcp` run one suite.
func TestEmbeddedMatchesFolder(t *testing.T) {
	t.Parallel()
	if got, want := suites.Names(), []string{suites.Control, suites.MCP, suites.LSP}; !cmp.Equal(want, got) {
		t.Fatalf("names (-want +got):\n%s", cmp.Diff(want, got))
	}
	for _, e := range suites.List() {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			emb, err := suite.Load(e.FS, suite.Options{Meta: conform.Meta()})
			if err != nil {
				t.Fatalf("embedded suite %s does not load: %v", e.Name, err)
			}
			dir := filepath.Join("..", filepath.FromSlash(e.Dir))
			d, err := suite.OpenDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			onDisk, err := suite.Load(d, suite.Options{Meta: conform.Meta()})
			if err != nil {
				t.Fatalf("folder %s does not load: %v", dir, err)
			}
			if emb.Digest != onDisk.Digest {
				t.Errorf("embedded %s digest %s, folder %s digest %s", e.Name, emb.Digest, dir, onDisk.Digest)
			}
			a, err := fs.ReadFile(e.FS, suite.ManifestFile)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, suite.ManifestFile))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("embedded %s %s differs from %s's", e.Name, suite.ManifestFile, dir)
			}
		})
	}
}

// TestResolve: which --suite values name an embedded suite and which a
// folder (docs/commands.md "The suite").
func TestResolve(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "mine"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "afile"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, tc := range []struct {
		value string
		want  string // the embedded suite's name, or "" for a folder
	}{
		{"", suites.Control},
		{"control", suites.Control},
		{"mcp", suites.MCP},
		{"lsp", suites.LSP},
		{"suites/lsp", ""},
		{"suites/mcp", ""},
		{"./mcp", ""},
		{".", ""},
		{"mine", ""},  // a directory here wins
		{"afile", ""}, // neither a directory nor a name: not found
		{"nope", ""},
		{filepath.Join(dir, "mcp"), ""},
	} {
		e, ok := suites.Resolve(tc.value)
		if ok != (tc.want != "") || e.Name != tc.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tc.value, e.Name, ok, tc.want)
		}
	}
	if !suites.IsPathIn(dir, "mine") || suites.IsPathIn(dir, "mcp") || !suites.IsPathIn(dir, "../x") {
		t.Error("IsPathIn: a folder beside the base is a path, a bare name is not, a relative path is")
	}
}
