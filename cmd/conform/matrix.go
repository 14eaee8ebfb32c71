package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/conform-kit/conform/internal/command/matrix"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/result"
	"github.com/conform-kit/conform/runner"
)

// matrixFlags are the flags of conform matrix.
type matrixFlags struct {
	impls, from, roles, versions, filters, trends, histories multiFlag

	suiteDir, format, out, pages string
	jobs                         int
	timeout, grace, killAfter    time.Duration
	readmes                      bool
}

// bind declares the flags on fl.
func (f *matrixFlags) bind(fl *flag.FlagSet) {
	fl.Var(&f.impls, "impl", "`NAME=PROFILE_DIR|reference|COMMAND` to run for every --role and --version (repeatable; a COMMAND is split on white space, never run through a shell)")
	fl.Var(&f.from, "from", "a saved JSON report, `[NAME=]FILE` (repeatable; NAME defaults to FILE's base name up to its first dot: reports/python.agent-v1.json is python)")
	fl.Var(&f.roles, "role", "`roles` the --impl implementations play (repeatable or comma-separated; default agent)")
	fl.Var(&f.versions, "version", "protocol `versions` to run --impl implementations against (repeatable or comma-separated; default 1)")
	fl.Var(&f.filters, "filter", "--impl runs run only vectors whose id matches this doublestar `glob` (repeatable; each must match; the columns are PASSED_PARTIAL at best)")
	fl.StringVar(&f.suiteDir, "suite", "", "the suite: an embedded suite's `name` (control, mcp: conform suites) or a suite root dir (default: control, embedded)")
	fl.IntVar(&f.jobs, "j", 0, "vectors run at once per run (default: one per CPU, widened while the IUTs leave the CPUs idle; docs/running.md \"Parallelism and starts\")")
	fl.DurationVar(&f.timeout, "timeout", runner.DefaultTimeout, "per-vector wait for replies or exit")
	fl.DurationVar(&f.grace, "grace", runner.DefaultGrace, "time an IUT gets to exit after stdin closes, before SIGTERM")
	fl.DurationVar(&f.killAfter, "kill-after", runner.DefaultKillAfter, "wait between SIGTERM and SIGKILL")
	fl.StringVar(&f.format, "format", "markdown", "matrix format: markdown, html or json (schemas/matrix.schema.json)")
	fl.StringVar(&f.out, "out", "", "write the matrix to `file` (default: stdout)")
	fl.StringVar(&f.pages, "pages", "", "write a page per implementation (NAME.md or NAME.html, as --format says) and its badges (NAME.svg, NAME.ROLE-vN.svg) into `dir`, and link the overview to them (markdown and html)")
	fl.BoolVar(&f.readmes, "readmes", false, "also rewrite the generated block of README.md in each implementation's profile folder (the --profile of its runs), between its marker lines, from this matrix (scripts/matrix.sh does)")
	fl.Var(&f.trends, "trend", "`NAME=DIR`: the releases of implementation NAME, from the recordings (conform record --out) in DIR's subfolders, shown on its page (repeatable)")
	fl.Var(&f.histories, "history", "a `DIR` of saved JSON reports (NAME.*.json or NAME/*.json, as conform run --json-out writes them): each implementation's page shows its history, verdict and counts per version, oldest first (repeatable)")
}

// cmdMatrix runs `conform matrix`: implementations by vectors, for one or
// more roles and protocol versions, from runs it makes (--impl, as parity
// takes them, run for every --role and --version) and from saved JSON
// reports (--from, as conform run --json-out or --format json writes them),
// printed as Markdown, HTML or JSON (internal/command/matrix does the
// work). It reports and does not gate: exit 0 when the matrix was written
// whatever the verdicts in it, 2 for a usage error or an invalid report, 3
// when an IUT cannot be started, 130 when interrupted.
func cmdMatrix(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("matrix", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var f matrixFlags
	f.bind(fl)
	if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
		return code
	}
	cfg, err := f.config(fl, stdout, stderr)
	if err == nil {
		_, err = matrix.Make(ctx, cfg)
	}
	switch {
	case err == nil:
		return exitPass
	case kiterr.CodeOf(err) == kiterr.Interrupted:
		return exitInterrupted
	case kiterr.CodeOf(err) == kiterr.Usage:
		return usageError(stderr, "matrix", "%s", strings.TrimPrefix(err.Error(), string(kiterr.Usage)+": "))
	}
	return fail(stderr, err)
}

// config turns the parsed flags into the matrix's Config: it checks the
// bounds and lists, opens the suite, resolves the roles and wires each
// --impl to the way every command configures an implementation.
// Errors: USAGE, and those of the suite and the profiles.
func (f *matrixFlags) config(fl *flag.FlagSet, stdout, stderr io.Writer) (matrix.Config, error) {
	if fl.NArg() > 0 {
		return matrix.Config{}, kiterr.New(kiterr.Usage, "unexpected argument %q (give reports with --from)", fl.Arg(0))
	}
	if msg := checkBounds(f.jobs, f.timeout, f.grace, f.killAfter, runner.DefaultMaxLine, runner.DefaultStderrMax, runner.DefaultMaxFrames); msg != "" {
		return matrix.Config{}, kiterr.New(kiterr.Usage, "%s", msg)
	}
	format := f.format
	if format == "md" {
		format = matrix.FormatMarkdown
	}
	cfg := matrix.Config{SuiteDir: f.suiteDir, Format: format, Out: f.out, Pages: f.pages, Readmes: f.readmes,
		Stdout: stdout, Stderr: stderr, WriteFile: writeAtomic,
		WriteOut: func(print func(io.Writer) error) error { return output{out: f.out}.write(stdout, print) },
		Run:      matrix.RunOptions{Filters: f.filters, Jobs: f.jobs, Timeout: f.timeout, Grace: f.grace, KillAfter: f.killAfter}}
	for _, name := range []string{"timeout", "grace", "kill-after"} {
		if flagSet(fl, name) {
			cfg.Run.Recorded = append(cfg.Run.Recorded, name)
		}
	}
	if err := f.lists(&cfg); err != nil {
		return cfg, err
	}
	list, dir, err := suiteOfAll(f.impls, f.suiteDir)
	if err != nil {
		return cfg, err
	}
	for _, im := range list {
		cfg.Impls = append(cfg.Impls, matrixImpl(im, flagSet(fl, "timeout"), stderr))
	}
	if err := cfg.Check(); err != nil {
		return cfg, err
	}
	if len(f.impls) == 0 && (flagSet(fl, "role") || flagSet(fl, "version") || flagSet(fl, "filter")) {
		return cfg, kiterr.New(kiterr.Usage, "--role, --version and --filter choose what --impl runs; a saved report (--from) names its own")
	}
	if cfg.Suite, err = openSuite(dir, false); err != nil {
		return cfg, err
	}
	for i, r := range cfg.Roles {
		for _, v := range cfg.Versions {
			if cfg.Roles[i], err = resolveRole(cfg.Suite, v, r); err != nil {
				return cfg, kiterr.New(kiterr.Usage, "%v", err)
			}
		}
	}
	return cfg, nil
}

// lists reads the repeatable flags into cfg: roles, versions, reports,
// trends and histories. Errors: USAGE.
func (f *matrixFlags) lists(cfg *matrix.Config) error {
	var err error
	if cfg.Roles, err = listFlag(f.roles, ""); err != nil {
		return kiterr.New(kiterr.Usage, "--role: %v", err)
	}
	versions, err := listFlag(f.versions, "1")
	if err != nil {
		return kiterr.New(kiterr.Usage, "--version: %v", err)
	}
	for _, v := range versions {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return kiterr.New(kiterr.Usage, "--version %q is not a protocol version", v)
		}
		cfg.Versions = append(cfg.Versions, n)
	}
	for _, spec := range f.from {
		cfg.From = append(cfg.From, matrix.ParseSource(spec))
	}
	for _, spec := range f.trends {
		tr, err := matrix.ParseTrend(spec)
		if err != nil {
			return err
		}
		cfg.Trends = append(cfg.Trends, tr)
	}
	cfg.Histories = f.histories
	return nil
}

// matrixImpl is im as the matrix runs it: configured as every command
// configures an implementation, named in the run's invocation by its
// profile or command, its report described by its profile (or as the
// reference).
func matrixImpl(im implementation, keepTimeout bool, stderr io.Writer) matrix.Impl {
	return matrix.Impl{Name: im.Name, Configure: func(cfg *runner.Config) (matrix.Setup, error) {
		prf, err := im.configure(cfg, keepTimeout, stderr)
		if err != nil {
			return matrix.Setup{}, err
		}
		var s matrix.Setup
		switch {
		case im.Profile != "":
			s.Profile = im.invocation(cfg.Command)
		case im.Reference:
			s.Describe = describeReference
			return s, nil
		default:
			cfg.Implementation = filepath.Base(cfg.Command[0])
			s.Command = im.invocation(cfg.Command)[1:]
		}
		s.Describe = func(rep *result.Report) { describe(rep, prf) }
		return s, nil
	}}
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
