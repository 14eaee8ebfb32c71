package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/suite"
	"github.com/conform-kit/conform/suites"
)

const suiteUsage = `usage: conform suite export [--suite NAME] DIR

  export   write a suite embedded in this binary (suite.json, MANIFEST.sha256,
           schemas, vectors, golden files) to DIR, byte for byte, for a runner
           in another language; DIR must not exist or be empty. --suite names
           the suite (default: control; conform suites lists them).
           Check it with: (cd DIR && sha256sum -c MANIFEST.sha256)
`

// cmdSuite is `conform suite export [--suite NAME] DIR`.
func cmdSuite(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, suiteUsage)
		return exitUsage
	}
	switch args[0] {
	case "export":
	case "-h", "--help", "help":
		fmt.Fprint(stdout, suiteUsage)
		return exitPass
	default:
		return usageError(stderr, "suite", "unknown command %q (export)", args[0])
	}
	fl := flag.NewFlagSet("suite export", flag.ContinueOnError)
	name := fl.String("suite", suites.Control, "the embedded suite's `name` (conform suites lists them)")
	if code, ok := parseFlags(fl, args[1:], stdout, stderr); !ok {
		return code
	}
	if fl.NArg() != 1 {
		return usageError(stderr, "suite export", "give one directory to export the suite to")
	}
	emb, ok := suites.Lookup(*name)
	if !ok {
		return usageError(stderr, "suite export", "no suite named %q is embedded in conform (%s)", *name, strings.Join(suites.Names(), ", "))
	}
	dir := fl.Arg(0)
	n, err := exportSuite(emb.FS, dir)
	if err != nil {
		return fail(stderr, err)
	}
	// Read the copy back as a suite: every file it lists must verify.
	s, err := openSuite(dir, false)
	if err != nil {
		return fail(stderr, kiterr.Wrap(kiterr.IO, err, "exported suite does not verify"))
	}
	fmt.Fprintf(stdout, "exported %d files of suite %s (%s) to %s\ncheck: (cd %s && sha256sum -c MANIFEST.sha256)\n", n, s.Manifest.Name, s.Digest, dir, dir)
	return exitPass
}

// exportSuite writes every file of fsys under dir, byte for byte, with
// directories 0755 and files 0644, and returns how many files it wrote.
// dir must not exist or be an empty directory; a file is never
// overwritten. Errors: USAGE (dir not empty or not a directory), IO.
func exportSuite(fsys fs.FS, dir string) (int, error) {
	if st, err := os.Stat(dir); err == nil {
		if !st.IsDir() {
			return 0, kiterr.New(kiterr.Usage, "%s exists and is not a directory", dir)
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return 0, kiterr.Wrap(kiterr.IO, err, "read %s", dir)
		}
		if len(ents) > 0 {
			return 0, kiterr.New(kiterr.Usage, "%s is not empty: export into a new or empty directory", dir)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return 0, kiterr.Wrap(kiterr.IO, err, "stat %s", dir)
	}
	n := 0
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(name))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return err
		}
		n++
		return f.Close()
	})
	if err != nil {
		return n, kiterr.Wrap(kiterr.IO, err, "export suite to %s", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, suite.ManifestFile)); err != nil {
		return n, kiterr.Wrap(kiterr.IO, err, "export suite to %s: no %s", dir, suite.ManifestFile)
	}
	return n, nil
}

const suitesUsage = `usage: conform suites

List the suites embedded in this binary: the name --suite takes (and a
profile's "suite"), the title, each version (its label and status), the
roles, and the suite digest every report of it carries. A --suite value
with a path separator, or naming a directory that exists, is read from that
directory instead; any other value names an embedded suite.
`

// cmdSuites is `conform suites`: one line per embedded suite, with a
// header, columns aligned with spaces:
//
//	NAME     TITLE                           VERSIONS             ROLES               DIGEST
//	control  conform control-protocol suite  1 (stable), 2 (...)  agent, host         sha256:...
//
// Each suite is loaded and its MANIFEST.sha256 verified first. Errors: a
// suite that does not load (a broken build).
func cmdSuites(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprint(stdout, suitesUsage)
		return exitPass
	}
	fl := flag.NewFlagSet("suites", flag.ContinueOnError)
	if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
		return code
	}
	if fl.NArg() > 0 {
		return usageError(stderr, "suites", "takes no arguments, got %q", fl.Arg(0))
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTITLE\tVERSIONS\tROLES\tDIGEST")
	for _, e := range suites.List() {
		s, err := openSuite(e.Name, false)
		if err != nil {
			return fail(stderr, err)
		}
		var vers, roles []string
		for _, v := range s.Manifest.Versions {
			label := strconv.Itoa(v.Version)
			if v.Label != "" {
				label += " " + v.Label
			}
			vers = append(vers, fmt.Sprintf("%s (%s)", label, v.Status))
			for _, r := range v.Roles {
				if !slices.Contains(roles, r.Name) {
					roles = append(roles, r.Name)
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Name, s.Manifest.Name, strings.Join(vers, ", "), strings.Join(roles, ", "), s.Digest)
	}
	if err := tw.Flush(); err != nil {
		return fail(stderr, kiterr.Wrap(kiterr.IO, err, "write"))
	}
	return exitPass
}

// suiteFolderHint is the folder, relative to a clone's root, of the
// embedded suite named name ("suites/mcp"), or "its folder" for a name
// that is none; for messages.
func suiteFolderHint(name string) string {
	if e, ok := suites.Lookup(name); ok {
		return e.Dir
	}
	return "its folder"
}

// suiteFileRoot is what GitHub annotations join before a vector's path
// for the --suite value v: the folder itself, or for an embedded suite
// its folder in the conform repository ("suites/mcp"; "" for the control
// suite at the root), where a workflow running in a clone finds the file.
func suiteFileRoot(v string) string {
	e, ok := suites.Resolve(v)
	switch {
	case !ok:
		return v
	case e.Dir == ".":
		return ""
	}
	return e.Dir
}
