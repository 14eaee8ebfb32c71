package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/suite"
)

const suiteUsage = `usage: conform suite export DIR

  export   write the suite embedded in this binary (suite.json, MANIFEST.sha256,
           schemas, vectors, golden files) to DIR, byte for byte, for a runner
           in another language; DIR must not exist or be empty.
           Check it with: (cd DIR && sha256sum -c MANIFEST.sha256)
`

// cmdSuite is `conform suite export DIR`.
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
	if code, ok := parseFlags(fl, args[1:], stdout, stderr); !ok {
		return code
	}
	if fl.NArg() != 1 {
		return usageError(stderr, "suite export", "give one directory to export the suite to")
	}
	dir := fl.Arg(0)
	n, err := exportSuite(conform.Suite(), dir)
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
