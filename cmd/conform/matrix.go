package main

import (
	"bytes"
	"context"
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
	"time"

	"github.com/conform-kit/conform/internal/drift"
	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/profile"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/runner"
)

// cmdMatrix runs `conform matrix`: implementations by vectors, for one or
// more roles and protocol versions, from runs it makes (--impl, as parity
// takes them, run for every --role and --version) and from saved JSON
// reports (--from, as conform run --json-out or --format json writes them),
// printed as Markdown, HTML or JSON. It reports and does not gate: exit 0
// when the matrix was written whatever the verdicts in it, 2 for a usage
// error or an invalid report, 3 when an IUT cannot be started.
func cmdMatrix(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("matrix", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var impls, from, roles, versions, filters multiFlag
	fl.Var(&impls, "impl", "`NAME=PROFILE_DIR|reference|COMMAND` to run for every --role and --version (repeatable; a COMMAND is split on white space, never run through a shell)")
	fl.Var(&from, "from", "a saved JSON report, `[NAME=]FILE` (repeatable; NAME defaults to FILE's base name up to its first dot: reports/python.agent-v1.json is python)")
	fl.Var(&roles, "role", "`roles` the --impl implementations play (repeatable or comma-separated; default agent)")
	fl.Var(&versions, "version", "protocol `versions` to run --impl implementations against (repeatable or comma-separated; default 1)")
	fl.Var(&filters, "filter", "--impl runs run only vectors whose id matches this doublestar `glob` (repeatable; each must match; the columns are PASSED_PARTIAL at best)")
	suiteDir := fl.String("suite", "", "the suite: an embedded suite's `name` (control, mcp: conform suites) or a suite root dir (default: control, embedded)")
	jobs := fl.Int("j", 0, "vectors run at once per run (default: number of CPUs)")
	timeout := fl.Duration("timeout", runner.DefaultTimeout, "per-vector wait for replies or exit")
	grace := fl.Duration("grace", runner.DefaultGrace, "time an IUT gets to exit after stdin closes, before SIGTERM")
	killAfter := fl.Duration("kill-after", runner.DefaultKillAfter, "wait between SIGTERM and SIGKILL")
	format := fl.String("format", "markdown", "matrix format: markdown, html or json (schemas/matrix.schema.json)")
	out := fl.String("out", "", "write the matrix to `file` (default: stdout)")
	pages := fl.String("pages", "", "write a page per implementation (NAME.md or NAME.html, as --format says) and its badges (NAME.svg, NAME.ROLE-vN.svg) into `dir`, and link the overview to them (markdown and html)")
	readmes := fl.Bool("readmes", false, "also rewrite the generated block of README.md in each implementation's profile folder (the --profile of its runs), between its marker lines, from this matrix (scripts/matrix.sh does)")
	var trends multiFlag
	fl.Var(&trends, "trend", "`NAME=DIR`: the releases of implementation NAME, from the recordings (conform record --out) in DIR's subfolders, shown on its page (repeatable)")
	if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
		return code
	}
	if fl.NArg() > 0 {
		return usageError(stderr, "matrix", "unexpected argument %q (give reports with --from)", fl.Arg(0))
	}
	if msg := checkBounds(*jobs, *timeout, *grace, *killAfter, runner.DefaultMaxLine, runner.DefaultStderrMax, runner.DefaultMaxFrames); msg != "" {
		return usageError(stderr, "matrix", "%s", msg)
	}
	switch *format {
	case "markdown", "md", "html", "json":
	default:
		return usageError(stderr, "matrix", "--format must be markdown, html or json")
	}
	if *pages != "" && *format == "json" {
		return usageError(stderr, "matrix", "--pages writes Markdown or HTML pages: give --format markdown or html (the JSON matrix holds everything the pages show)")
	}
	if len(impls) == 0 && len(from) == 0 {
		return usageError(stderr, "matrix", "name implementations with --impl NAME=PROFILE_DIR|reference|COMMAND or saved reports with --from FILE")
	}
	roleList, err := listFlag(roles, "")
	if err != nil {
		return usageError(stderr, "matrix", "--role: %v", err)
	}
	versionStrs, err := listFlag(versions, "1")
	if err != nil {
		return usageError(stderr, "matrix", "--version: %v", err)
	}
	var versionList []int
	for _, v := range versionStrs {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return usageError(stderr, "matrix", "--version %q is not a protocol version", v)
		}
		versionList = append(versionList, n)
	}
	if len(impls) == 0 && (flagSet(fl, "role") || flagSet(fl, "version") || flagSet(fl, "filter")) {
		return usageError(stderr, "matrix", "--role, --version and --filter choose what --impl runs; a saved report (--from) names its own")
	}
	list, dir, err := suiteOfAll(impls, *suiteDir)
	if err != nil {
		return fail(stderr, err)
	}
	s, err := openSuite(dir, false)
	if err != nil {
		return fail(stderr, err)
	}
	for i, r := range roleList {
		for _, v := range versionList {
			if roleList[i], err = resolveRole(s, v, r); err != nil {
				return usageError(stderr, "matrix", "%v", err)
			}
		}
	}
	var inputs []runner.MatrixInput
	for _, spec := range from {
		name, file := fromSpec(spec)
		data, err := input.ReadFile(file, input.MaxReport, "--from report")
		if err != nil {
			return fail(stderr, err)
		}
		rep, err := runner.ReadReport(s, data)
		if err != nil {
			return fail(stderr, fmt.Errorf("report %s: %w", file, err))
		}
		inputs = append(inputs, runner.MatrixInput{Name: name, Report: rep})
	}
	start := time.Now()
	for _, im := range list {
		name := im.Name
		var prf *profile.Profile
		for _, role := range roleList {
			for _, version := range versionList {
				cfg := runner.Config{Suite: s, Role: role, Version: version, Filters: filters, Jobs: *jobs, Timeout: *timeout, Grace: *grace, KillAfter: *killAfter, Implementation: name}
				inv := []string{"run", "--role", role, "--version", strconv.Itoa(version)}
				for _, f := range []string{"grace", "kill-after"} {
					if flagSet(fl, f) {
						inv = append(inv, "--"+f, fl.Lookup(f).Value.String())
					}
				}
				if prf, err = im.configure(&cfg, flagSet(fl, "timeout"), stderr); err != nil {
					return fail(stderr, err)
				}
				if im.Profile != "" {
					inv = append(inv, "--profile", im.Profile)
				} else if !im.Reference {
					cfg.Implementation = filepath.Base(cfg.Command[0])
				}
				if *suiteDir != "" {
					inv = append(inv, "--suite", *suiteDir)
				}
				if flagSet(fl, "timeout") {
					inv = append(inv, "--timeout", timeout.String())
				}
				if im.Command != nil {
					inv = append(inv, im.invocation(cfg.Command)...)
				}
				began := time.Now()
				rep, err := runner.Run(ctx, cfg)
				if err != nil {
					if ctx.Err() != nil {
						return exitInterrupted
					}
					return fail(stderr, err)
				}
				if rep.Interrupted {
					return exitInterrupted
				}
				rep.Invocation = inv
				describe(rep, prf)
				if im.Reference {
					describeReference(rep)
				}
				fmt.Fprintf(stderr, "%s, %s role, v%d: %s (%s)\n", name, role, version, rep.Verdict, time.Since(began).Round(time.Millisecond))
				inputs = append(inputs, runner.MatrixInput{Name: name, Report: rep})
			}
		}
	}
	m, err := runner.BuildMatrix(inputs)
	if err != nil {
		return fail(stderr, err)
	}
	for _, spec := range trends {
		name, dir, ok := strings.Cut(spec, "=")
		if !ok || name == "" || dir == "" {
			return usageError(stderr, "matrix", "--trend %q: want NAME=DIR", spec)
		}
		points, err := readTrend(dir)
		if err != nil {
			return fail(stderr, err)
		}
		if err := m.SetTrend(name, points); err != nil {
			return fail(stderr, err)
		}
	}
	if *suiteDir == "" && m.Suite.Digest != s.Digest {
		fmt.Fprintf(stderr, "conform: note: the reports were made with suite %s, not the suite embedded in conform (%s)\n", m.Suite.Digest, s.Digest)
	}
	if *readmes {
		if err := writeReadmes(stderr, m, *pages); err != nil {
			return fail(stderr, err)
		}
	}
	var opt report.MatrixOptions
	if *pages != "" {
		if opt, err = pageLinks(*out, *pages); err != nil {
			return fail(stderr, err)
		}
		if err := writePages(m, *pages, *format, opt); err != nil {
			return fail(stderr, err)
		}
	}
	err = output{out: *out}.write(stdout, func(w io.Writer) error {
		switch *format {
		case "html":
			return report.MatrixHTMLWith(w, m, opt)
		case "json":
			return report.MatrixJSON(w, m)
		}
		return report.MatrixMarkdownWith(w, m, opt)
	})
	if err != nil {
		return fail(stderr, kiterr.Wrap(kiterr.IO, err, "write matrix"))
	}
	if len(impls) > 0 {
		fmt.Fprintf(stderr, "matrix of %d implementations in %s\n", len(m.Implementations), time.Since(start).Round(time.Millisecond))
	}
	return exitPass
}

// listFlag splits each value at commas; no value gives def. An empty item
// is an error.
func listFlag(values []string, def string) ([]string, error) {
	if len(values) == 0 {
		return []string{def}, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				return nil, fmt.Errorf("empty item in %q", v)
			}
			if !seen[item] {
				seen[item] = true
				out = append(out, item)
			}
		}
	}
	return out, nil
}

// fromSpec splits NAME=FILE; a spec without "=" is FILE, named by its base
// name up to the first dot.
func fromSpec(spec string) (name, file string) {
	if n, f, ok := strings.Cut(spec, "="); ok && n != "" && !strings.ContainsAny(n, `/\`) {
		return n, f
	}
	base := filepath.Base(spec)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base, spec
}

// pageLinks returns how the overview written to out (stdout when "") and
// the pages in dir refer to each other: dir relative to out's folder, and
// out relative to dir (without its extension; no link back when the
// overview goes to stdout). Errors: IO when the paths cannot be related.
func pageLinks(out, dir string) (report.MatrixOptions, error) {
	if out == "" {
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

// writePages writes into dir (made if needed) one page per implementation
// of m in format (NAME.md or NAME.html), its badge NAME.svg and one badge
// per section it ran, NAME.ROLE-vN.svg, each atomically. Files of an
// earlier matrix that this one does not write are left as they are.
// Errors: IO.
func writePages(m *runner.Matrix, dir, format string, opt report.MatrixOptions) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return kiterr.Wrap(kiterr.IO, err, "--pages %s", dir)
	}
	ext, page := ".md", report.MatrixPageMarkdown
	if format == "html" {
		ext, page = ".html", report.MatrixPageHTML
	}
	for _, impl := range m.Implementations {
		name := impl.Name
		if err := writeAtomic(filepath.Join(dir, name+ext), func(w io.Writer) error { return page(w, m, name, opt) }); err != nil {
			return err
		}
		if err := writeAtomic(filepath.Join(dir, name+".svg"), func(w io.Writer) error { return report.MatrixBadge(w, m, name, "") }); err != nil {
			return err
		}
		for _, sec := range m.Sections {
			if !slices.ContainsFunc(sec.Columns, func(c runner.MatrixColumn) bool { return c.Name == name }) {
				continue
			}
			key := fmt.Sprintf("%s-v%d", sec.Role, sec.Version)
			if err := writeAtomic(filepath.Join(dir, name+"."+key+".svg"), func(w io.Writer) error { return report.MatrixBadge(w, m, name, key) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// readTrend reads the recordings in the subfolders of dir (each with a
// recording.json, as conform record writes them) as the releases of one
// implementation. Errors: PATH_NOT_FOUND (dir), RECORDING_INVALID and IO
// (internal/drift), USAGE when dir holds no recording.
func readTrend(dir string) ([]runner.TrendPoint, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.PathNotFound, err, "--trend %s", dir)
	}
	var points []runner.TrendPoint
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name(), drift.MetaFile)); err != nil {
			continue
		}
		rec, err := drift.Read(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		mt := rec.Meta
		label := mt.Label
		if label == "" {
			label = e.Name()
		}
		c := mt.Counts
		points = append(points, runner.TrendPoint{Label: label, Released: mt.Released, Role: mt.Suite.Role, Version: mt.Suite.Version, Verdict: mt.Verdict,
			Passed: c["passed"], Failed: c["failed"], XFail: c["xfail"], XPass: c["xpass"], Informational: c["informational"], NotRun: c["not_run"]})
	}
	if len(points) == 0 {
		return nil, kiterr.New(kiterr.Usage, "--trend %s: no recording (a folder with %s) in it", dir, drift.MetaFile)
	}
	return points, nil
}

// Marker lines of the generated block of a profile's README.md.
const (
	readmeBegin = "<!-- conform:results begin: generated by `conform matrix --readmes` (scripts/matrix.sh) from the last CI run of this profile; do not edit -->"
	readmeEnd   = "<!-- conform:results end -->"
)

// writeReadmes rewrites, for each implementation of m whose runs name one
// profile folder (--profile DIR in their invocation), the generated block
// of DIR/README.md: the lines between readmeBegin and readmeEnd become
// report.MatrixReadme's, linked to the implementation's page in pages
// (when given). A folder without README.md is passed over with a note.
// Errors: USAGE (runs of one implementation with different profiles, a
// README without both marker lines), IO.
func writeReadmes(stderr io.Writer, m *runner.Matrix, pages string) error {
	for _, impl := range m.Implementations {
		dir := ""
		for _, sec := range m.Sections {
			for _, c := range sec.Columns {
				if c.Name != impl.Name {
					continue
				}
				p := profileOf(c.Invocation)
				if dir != "" && p != dir {
					return kiterr.New(kiterr.Usage, "--readmes: the runs of %q name two profiles, %s and %s", impl.Name, dir, p)
				}
				dir = p
			}
		}
		if dir == "" {
			continue
		}
		file := filepath.Join(dir, "README.md")
		data, err := os.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "conform: note: %s has no README.md; no results block written\n", dir)
			continue
		}
		if err != nil {
			return kiterr.Wrap(kiterr.IO, err, "--readmes")
		}
		page := ""
		if pages != "" {
			if rel, err := filepath.Rel(dir, filepath.Join(pages, impl.Name+".md")); err == nil {
				page = filepath.ToSlash(rel)
			}
		}
		var block bytes.Buffer
		if err := report.MatrixReadme(&block, m, impl.Name, page); err != nil {
			return err
		}
		out, err := replaceBlock(string(data), block.String())
		if err != nil {
			return kiterr.New(kiterr.Usage, "--readmes: %s: %v", file, err)
		}
		if out == string(data) {
			continue
		}
		if err := writeAtomic(file, func(w io.Writer) error { _, err := io.WriteString(w, out); return err }); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "matrix: wrote the results block of %s\n", file)
	}
	return nil
}

// profileOf returns the value of --profile in a run's invocation, or "".
func profileOf(invocation []string) string {
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

// replaceBlock returns doc with the lines between its readmeBegin and
// readmeEnd lines replaced by block. Errors: a marker missing, twice, or
// out of order.
func replaceBlock(doc, block string) (string, error) {
	lines := strings.SplitAfter(doc, "\n")
	begin, end := -1, -1
	for i, ln := range lines {
		switch strings.TrimRight(ln, "\r\n") {
		case readmeBegin:
			if begin >= 0 {
				return "", errors.New("two begin marker lines")
			}
			begin = i
		case readmeEnd:
			if end >= 0 {
				return "", errors.New("two end marker lines")
			}
			end = i
		}
	}
	if begin < 0 || end < begin {
		return "", fmt.Errorf("no generated results block: add the lines %q and %q where the results go", readmeBegin, readmeEnd)
	}
	return strings.Join(lines[:begin+1], "") + block + strings.Join(lines[end:], ""), nil
}
