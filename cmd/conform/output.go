package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/runner"
)

// reportFormats are the values of --format for run, parity and report.
const reportFormats = "text, compact, json, junit or github"

func validFormat(f string) bool {
	return f == "text" || f == "compact" || f == "json" || f == "junit" || f == "github"
}

// output says how and where a command writes its report.
type output struct {
	// format is text, json, junit or github.
	format string
	// out is the report file ("" for stdout); it is written atomically
	// (see writeAtomic), and only once there is a report.
	out     string
	verbose bool
	// color marks the text and compact reports with ANSI colours.
	color bool
	// fileRoot is joined before vector paths in GitHub annotations.
	fileRoot string
}

// check fails early, before a run, when --out names a file in a directory
// that does not exist, so a long run is not lost at the end. Errors: IO.
func (o output) check() error {
	if o.out == "" {
		return nil
	}
	dir := filepath.Dir(o.out)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return kiterr.New(kiterr.IO, "--out %s: directory %s does not exist", o.out, dir)
	}
	return nil
}

// run writes a run's report, and with --format github appends its
// Markdown summary to $GITHUB_STEP_SUMMARY when that is set.
func (o output) run(stdout, stderr io.Writer, rep *runner.Report) error {
	err := o.write(stdout, func(w io.Writer) error {
		switch o.format {
		case "json":
			return report.JSON(w, rep)
		case "junit":
			return report.JUnit(w, rep)
		case "github":
			return report.GitHub(w, rep, o.verbose, report.GitHubOptions{FileRoot: o.fileRoot})
		case "compact":
			return report.Compact(w, rep, report.TextOptions{Verbose: o.verbose, Color: o.color})
		}
		return report.TextWith(w, rep, report.TextOptions{Verbose: o.verbose, Color: o.color})
	})
	if err == nil && o.format == "github" {
		stepSummary(stderr, func(w io.Writer) error { return report.GitHubSummary(w, rep) })
	}
	return err
}

// parity writes a parity run's report, and its step summary as run does.
func (o output) parity(stdout, stderr io.Writer, pr *runner.ParityReport) error {
	err := o.write(stdout, func(w io.Writer) error {
		switch o.format {
		case "json":
			return report.ParityJSON(w, pr)
		case "junit":
			return report.ParityJUnit(w, pr)
		case "github":
			return report.ParityGitHub(w, pr, report.GitHubOptions{FileRoot: o.fileRoot})
		}
		return report.ParityText(w, pr)
	})
	if err == nil && o.format == "github" {
		stepSummary(stderr, func(w io.Writer) error { return report.ParityGitHubSummary(w, pr) })
	}
	return err
}

// write sends the report to stdout, or to the file o.out atomically.
// Errors: IO.
func (o output) write(stdout io.Writer, print func(io.Writer) error) error {
	if o.out == "" {
		return kiterr.Wrap(kiterr.IO, print(stdout), "write report")
	}
	return writeAtomic(o.out, print)
}

// writeAtomic writes a file through a temporary file in the same directory
// that is renamed over name once it is complete: a reader never sees a
// half-written report, and when print fails (or conform is killed) the
// previous file is left as it was. The file gets mode 0644 (or the mode of
// the file it replaces). Errors: IO.
func writeAtomic(name string, print func(io.Writer) error) (err error) {
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return kiterr.Wrap(kiterr.IO, err, "write report %s", name)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriter(f)
	if err = print(bw); err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	mode := os.FileMode(0o644)
	if st, serr := os.Stat(name); serr == nil && st.Mode().IsRegular() {
		mode = st.Mode().Perm()
	}
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Close()
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	return kiterr.Wrap(kiterr.IO, err, "write report %s", name)
}

// stepSummary appends what print writes to the file named by
// $GITHUB_STEP_SUMMARY, when that is set (GitHub Actions sets it for every
// step). A failure is a warning on stderr: the report itself is written.
func stepSummary(stderr io.Writer, print func(io.Writer) error) {
	name := os.Getenv("GITHUB_STEP_SUMMARY")
	if name == "" {
		return
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		bw := bufio.NewWriter(f)
		err = print(bw)
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "conform: warning: step summary not written to $GITHUB_STEP_SUMMARY: %v\n", err)
	}
}
