package matrix

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/internal/result"
)

// write writes the READMEs, the pages and the overview of m.
func (c *Config) write(m *result.Matrix) error {
	if c.Readmes {
		if err := c.writeReadmes(m); err != nil {
			return err
		}
	}
	var opt report.MatrixOptions
	if c.Pages != "" {
		var err error
		if opt, err = PageLinks(c.Out, c.Pages); err != nil {
			return err
		}
		opt.Suite = c.suiteLink(m, c.Pages)
		if err := c.writePages(m, opt); err != nil {
			return err
		}
	}
	print := func(w io.Writer) error {
		switch c.Format {
		case FormatHTML:
			return report.MatrixHTMLWith(w, m, opt)
		case FormatJSON:
			return report.MatrixJSON(w, m)
		}
		return report.MatrixMarkdownWith(w, m, opt)
	}
	var err error
	if c.WriteOut != nil {
		err = c.WriteOut(print)
	} else {
		err = print(c.Stdout)
	}
	if err != nil && kiterr.CodeOf(err) == "" {
		err = kiterr.Wrap(kiterr.IO, err, "write matrix")
	}
	return err
}

// suiteLink is where the pages in dir find the suite's files: a path
// relative to dir when both are inside the working directory and the
// suite is a folder there (a path that climbs out of it would spell the
// machine's folders), the kit's
// repository on the web for the embedded suite; "" (vector files shown
// unlinked) otherwise, and when the reports were made with another suite
// than the one at hand.
func (c *Config) suiteLink(m *result.Matrix, dir string) string {
	switch {
	case m.Suite.Digest != c.Suite.Digest:
		return ""
	case c.SuiteDir == "":
		return report.DocsURL
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	absDir, err1 := filepath.Abs(dir)
	absSuite, err2 := filepath.Abs(c.SuiteDir)
	if err1 != nil || err2 != nil || !inside(wd, absDir) || !inside(wd, absSuite) || !isDir(absSuite) {
		return ""
	}
	rel, err := filepath.Rel(absDir, absSuite)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel) + "/"
}

// isDir reports whether p is a directory (a --suite that names an
// embedded suite is not one: its files are not at hand to link to).
func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// inside reports whether the absolute path p is root or below it.
func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// PageLinks returns how the overview written to out (stdout when "") and
// the pages in dir refer to each other: dir relative to out's folder, and
// out relative to dir (without its extension; no link back when the
// overview goes to stdout; an absolute dir is then made relative to the
// working directory). Errors: IO when the paths cannot be related.
func PageLinks(out, dir string) (report.MatrixOptions, error) {
	if out == "" {
		if filepath.IsAbs(dir) {
			if wd, err := os.Getwd(); err == nil {
				if rel, err := filepath.Rel(wd, dir); err == nil {
					dir = rel
				}
			}
		}
		return report.MatrixOptions{Pages: filepath.ToSlash(filepath.Clean(dir)) + "/"}, nil
	}
	absOut, err := filepath.Abs(out)
	if err == nil {
		var absDir string
		if absDir, err = filepath.Abs(dir); err == nil {
			var toPages, toOverview string
			if toPages, err = filepath.Rel(filepath.Dir(absOut), absDir); err == nil {
				if toOverview, err = filepath.Rel(absDir, absOut); err == nil {
					toOverview = strings.TrimSuffix(toOverview, filepath.Ext(toOverview))
					return report.MatrixOptions{Pages: filepath.ToSlash(toPages) + "/", Overview: filepath.ToSlash(toOverview)}, nil
				}
			}
		}
	}
	return report.MatrixOptions{}, kiterr.Wrap(kiterr.IO, err, "--pages %s beside --out %s", dir, out)
}

// writePages writes into c.Pages (made if needed) one page per
// implementation of m in c.Format (NAME.md or NAME.html), its badge
// NAME.svg and one badge per section it ran, NAME.ROLE-vN.svg, each
// atomically. Files of an earlier matrix that this one does not write are
// left as they are. Errors: IO.
func (c *Config) writePages(m *result.Matrix, opt report.MatrixOptions) error {
	dir := c.Pages
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return kiterr.Wrap(kiterr.IO, err, "--pages %s", dir)
	}
	ext, page := ".md", report.MatrixPageMarkdown
	if c.Format == FormatHTML {
		ext, page = ".html", report.MatrixPageHTML
	}
	for _, impl := range m.Implementations {
		name := impl.Name
		if err := c.WriteFile(filepath.Join(dir, name+ext), func(w io.Writer) error { return page(w, m, name, opt) }); err != nil {
			return err
		}
		if err := c.WriteFile(filepath.Join(dir, name+".svg"), func(w io.Writer) error { return report.MatrixBadge(w, m, name, "") }); err != nil {
			return err
		}
		for _, sec := range m.Sections {
			if !slices.ContainsFunc(sec.Columns, func(col result.MatrixColumn) bool { return col.Name == name }) {
				continue
			}
			key := fmt.Sprintf("%s-v%d", sec.Role, sec.Version)
			if err := c.WriteFile(filepath.Join(dir, name+"."+key+".svg"), func(w io.Writer) error { return report.MatrixBadge(w, m, name, key) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// Marker lines of the generated block of a profile's README.md.
const (
	ReadmeBegin = "<!-- conform:results begin: generated by `conform matrix --readmes` (scripts/matrix.sh) from the last CI run of this profile; do not edit -->"
	ReadmeEnd   = "<!-- conform:results end -->"
)

// writeReadmes rewrites, for each implementation of m whose runs name one
// profile folder (--profile DIR in their invocation), the generated block
// of DIR/README.md: the lines between ReadmeBegin and ReadmeEnd become
// report.MatrixReadme's, linked to the implementation's page in c.Pages
// (when given). A folder without README.md is passed over with a note.
// Errors: USAGE (runs of one implementation with different profiles, a
// README without both marker lines), IO.
func (c *Config) writeReadmes(m *result.Matrix) error {
	for _, impl := range m.Implementations {
		dir, err := profileDir(m, impl.Name)
		if err != nil {
			return err
		}
		if dir == "" {
			continue
		}
		if err := c.writeReadme(m, impl.Name, dir); err != nil {
			return err
		}
	}
	return nil
}

// profileDir is the one profile folder the runs of name name, or "".
// Errors: USAGE when they name two.
func profileDir(m *result.Matrix, name string) (string, error) {
	dir := ""
	for _, sec := range m.Sections {
		for _, col := range sec.Columns {
			if col.Name != name {
				continue
			}
			p := ProfileOf(col.Invocation)
			if dir != "" && p != dir {
				return "", kiterr.New(kiterr.Usage, "--readmes: the runs of %q name two profiles, %s and %s", name, dir, p)
			}
			dir = p
		}
	}
	return dir, nil
}

// writeReadme rewrites the generated block of dir/README.md for the
// implementation name.
func (c *Config) writeReadme(m *result.Matrix, name, dir string) error {
	file := filepath.Join(dir, "README.md")
	data, err := input.ReadFile(file, input.MaxText, "README")
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(c.Stderr, "conform: note: %s has no README.md; no results block written\n", dir)
		return nil
	}
	if err != nil {
		return kiterr.Wrap(kiterr.IO, err, "--readmes")
	}
	page := ""
	if c.Pages != "" {
		if rel, err := filepath.Rel(dir, filepath.Join(c.Pages, name+".md")); err == nil {
			page = filepath.ToSlash(rel)
		}
	}
	var block bytes.Buffer
	if err := report.MatrixReadme(&block, m, name, page); err != nil {
		return err
	}
	out, err := ReplaceBlock(string(data), block.String())
	if err != nil {
		return kiterr.New(kiterr.Usage, "--readmes: %s: %v", file, err)
	}
	if out == string(data) {
		return nil
	}
	if err := c.WriteFile(file, func(w io.Writer) error { _, err := io.WriteString(w, out); return err }); err != nil {
		return err
	}
	fmt.Fprintf(c.Stderr, "matrix: wrote the results block of %s\n", file)
	return nil
}

// ProfileOf returns the value of --profile in a run's invocation, or "".
func ProfileOf(invocation []string) string {
	for i, a := range invocation {
		if a == "--" {
			break
		}
		if a == "--profile" && i+1 < len(invocation) {
			return invocation[i+1]
		}
	}
	return ""
}

// ReplaceBlock returns doc with the lines between its ReadmeBegin and
// ReadmeEnd lines replaced by block. Errors: a marker missing, twice, or
// out of order.
func ReplaceBlock(doc, block string) (string, error) {
	lines := strings.SplitAfter(doc, "\n")
	begin, end := -1, -1
	for i, ln := range lines {
		switch strings.TrimRight(ln, "\r\n") {
		case ReadmeBegin:
			if begin >= 0 {
				return "", errors.New("two begin marker lines")
			}
			begin = i
		case ReadmeEnd:
			if end >= 0 {
				return "", errors.New("two end marker lines")
			}
			end = i
		}
	}
	if begin < 0 || end < begin {
		return "", fmt.Errorf("no generated results block: add the lines %q and %q where the results go", ReadmeBegin, ReadmeEnd)
	}
	return strings.Join(lines[:begin+1], "") + block + strings.Join(lines[end:], ""), nil
}
