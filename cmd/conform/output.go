package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
	// out is the report file ("" or "-" for stdout), written as
	// [reportTarget] decides, and only once there is a report.
	out     string
	verbose bool
	// color marks the text and compact reports with ANSI colours.
	color bool
	// fileRoot is joined before vector paths in GitHub annotations.
	fileRoot string
}

// check fails early, before a run, when --out names a path the report
// cannot be written to (see [reportTarget]): a missing directory, a
// directory, a socket, a block device, a dangling symbolic link. A long
// run is then not lost at the end. Errors: IO.
func (o output) check() error {
	if o.out == "" {
		return nil
	}
	_, err := reportTarget("--out", o.out)
	return err
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

// write sends the report to stdout, or to o.out as [writeReport] writes
// it. Errors: IO.
func (o output) write(stdout io.Writer, print func(io.Writer) error) error {
	if o.out == "" {
		return kiterr.Wrap(kiterr.IO, print(stdout), "write report")
	}
	return writeReport("--out", o.out, stdout, print)
}

// Kinds of [target]: how a report reaches the path it is given.
const (
	// targetReplace: a regular file, or nothing yet, at Path (the file a
	// symbolic link names, when the name is one): replaced atomically.
	targetReplace = iota
	// targetStdout: the name "-", conform's standard output.
	targetStdout
	// targetDirect: a character device (/dev/null, a terminal), a FIFO or
	// pipe, or a link to an open descriptor (/dev/stdout, /dev/fd/N,
	// /proc/self/fd/N): written in place, as a shell's > would, never
	// replaced.
	targetDirect
)

// target is where a report file goes, decided by [reportTarget].
type target struct {
	kind int
	// path is the file written: the name given, or for targetReplace the
	// regular file a symbolic link leads to.
	path string
}

// reportTarget decides how the report file name is written (flag names
// the option, for messages):
//
//   - "-" is standard output;
//   - a path that does not exist yet, in an existing directory, and a
//     regular file are replaced atomically (a temporary file in the same
//     directory, renamed over it), so a reader never sees half a report;
//   - a symbolic link is followed: to a regular file, that file is
//     replaced (the link stays); through /proc or /dev/fd (a descriptor,
//     as /dev/stdout is), it is written in place;
//   - a character device or a FIFO is written in place (opened, never
//     created, renamed over or truncated), so /dev/null, a terminal or the
//     reader of a FIFO gets the report and the node stays as it was.
//
// Anything else is refused before the run: a directory, a socket, a block
// device, a dangling link, a missing directory. Errors: IO.
func reportTarget(flag, name string) (target, error) {
	if name == "-" {
		return target{kind: targetStdout}, nil
	}
	path, viaFD, err := followLinks(name)
	if err != nil {
		return target{}, kiterr.New(kiterr.IO, "%s %s: %v", flag, name, err)
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && path == name:
		dir := filepath.Dir(name)
		if dst, derr := os.Stat(dir); derr != nil || !dst.IsDir() {
			return target{}, kiterr.New(kiterr.IO, "%s %s: directory %s does not exist", flag, name, dir)
		}
		return target{kind: targetReplace, path: name}, nil
	case errors.Is(err, fs.ErrNotExist):
		return target{}, kiterr.New(kiterr.IO, "%s %s: it is a symbolic link to %s, which does not exist", flag, name, path)
	case err != nil:
		return target{}, kiterr.Wrap(kiterr.IO, err, "%s %s", flag, name)
	}
	m := st.Mode()
	switch {
	case m.IsRegular() && !viaFD:
		return target{kind: targetReplace, path: path}, nil
	case m.IsRegular(), m&fs.ModeCharDevice != 0, m&fs.ModeNamedPipe != 0:
		return target{kind: targetDirect, path: name}, nil
	case m.IsDir():
		return target{}, kiterr.New(kiterr.IO, "%s %s is a directory; give a file name", flag, name)
	}
	return target{}, kiterr.New(kiterr.IO, "%s %s is a %s, which a report cannot be written to (a regular file, a character device, a FIFO or - can)", flag, name, fileKind(m))
}

// followLinks resolves the symbolic links of name's last element, one at a
// time (at most 40), and returns the path they end at, or name itself when
// it is no link. viaFD is set when a link leads through /proc or /dev/fd:
// an open descriptor (/dev/stdout -> /proc/self/fd/1), whose target the
// kernel resolves and a path name does not describe.
func followLinks(name string) (path string, viaFD bool, err error) {
	path = name
	for range 40 {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, viaFD, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", false, err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = filepath.Clean(dest)
		slash := filepath.ToSlash(path)
		if strings.HasPrefix(slash, "/proc/") || strings.HasPrefix(slash, "/dev/fd/") {
			return name, true, nil
		}
	}
	return "", false, errors.New("too many levels of symbolic links")
}

// fileKind names the type of a file that is neither regular, a
// directory, a character device nor a FIFO.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeIrregular != 0:
		return "file of an unknown type"
	}
	return "special file"
}

// writeReport writes what print writes to the report file name, as
// [reportTarget] decides (decided again now: the path may have changed
// during the run). Errors: IO.
func writeReport(flag, name string, stdout io.Writer, print func(io.Writer) error) error {
	t, err := reportTarget(flag, name)
	if err != nil {
		return err
	}
	switch t.kind {
	case targetStdout:
		return kiterr.Wrap(kiterr.IO, print(stdout), "write report")
	case targetDirect:
		return writeDirect(t.path, print)
	}
	return writeAtomic(t.path, print)
}

// writeDirect writes a report into an existing character device, FIFO or
// descriptor link, in place: opened for writing (appending, for a file
// behind a descriptor, as the shell opened it), never created, truncated
// or renamed over. A FIFO is opened without waiting: when no process has
// it open for reading, the report cannot be delivered and that is the
// error. Errors: IO.
func writeDirect(name string, print func(io.Writer) error) error {
	flags := os.O_WRONLY | os.O_APPEND
	if st, err := os.Stat(name); err == nil && st.Mode()&fs.ModeNamedPipe != 0 {
		flags |= nonBlockingOpen
	}
	f, err := os.OpenFile(name, flags, 0)
	if err != nil {
		if noReader(err) {
			return kiterr.New(kiterr.IO, "write report %s: it is a FIFO that no process has open for reading", name)
		}
		return kiterr.Wrap(kiterr.IO, err, "write report %s", name)
	}
	bw := bufio.NewWriter(f)
	err = print(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return kiterr.Wrap(kiterr.IO, err, "write report %s", name)
}

// writeAtomic writes a file through a temporary file in the same directory
// that is renamed over name once it is complete: a reader never sees a
// half-written report, and when print fails (or conform is killed) the
// previous file is left as it was. The file gets mode 0644 (or the mode of
// the file it replaces). Only a regular file, or a name where nothing is
// yet, is replaced so ([reportTarget]). Errors: IO.
func writeAtomic(name string, print func(io.Writer) error) (err error) {
	// A command ended by a stop signal waits for this write to finish
	// (awaitCommand): no temporary file is left behind.
	outputGate.RLock()
	defer outputGate.RUnlock()
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
	if st, serr := os.Lstat(name); serr == nil && st.Mode().IsRegular() {
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
