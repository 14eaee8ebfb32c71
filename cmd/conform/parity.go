package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/conform-kit/conform/internal/profile"
	"github.com/conform-kit/conform/runner"
)

// cmdParity runs `conform parity --impl NAME=PROFILE_OR_COMMAND ...`: the
// suite against several implementations in parallel, a matrix of vectors
// by implementations, and a gate that fails (exit 1) when any
// implementation's canonical bytes differ from the golden or from each
// other on a required or recommended vector. NAME=reference is the embedded
// Go reference; NAME=DIR with DIR/profile.json is a profile (its expected
// failures apply); anything else is a command split on white space (never
// run through a shell).
func cmdParity(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("parity", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var impls, filters multiFlag
	fl.Var(&impls, "impl", "`NAME=PROFILE_DIR|reference|COMMAND` (repeatable, at least two; a COMMAND is split on white space, never run through a shell, so no quoting)")
	fl.Var(&filters, "filter", "run only vectors whose id matches this doublestar `glob` (repeatable: any glob may match; each must match at least one vector)")
	suiteDir := fl.String("suite", "", "the suite: an embedded suite's `name` (control, mcp: conform suites) or a suite root dir (default: control, embedded)")
	version := fl.Int("version", 1, "control protocol `version`")
	role := fl.String("role", "", "`role` the implementations play (default: the suite version's first)")
	jobs := fl.Int("j", 0, "vectors run at once per implementation (default: one per CPU, widened while the IUTs leave the CPUs idle; docs/running.md \"Parallelism and starts\")")
	timeout := fl.Duration("timeout", runner.DefaultTimeout, "per-vector wait for replies or exit")
	grace := fl.Duration("grace", runner.DefaultGrace, "time an IUT gets to exit after stdin closes, before SIGTERM")
	killAfter := fl.Duration("kill-after", runner.DefaultKillAfter, "wait between SIGTERM and SIGKILL")
	format := fl.String("format", "text", "report format: text, json, junit or github (the parity report, GitHub Actions annotations on the vector files, and a Markdown summary appended to $GITHUB_STEP_SUMMARY when it is set)")
	out := fl.String("out", "", "write the report to `file` (default: stdout), atomically and only when the run produces one")
	progressEvery := fl.Duration("progress", DefaultProgress, "when stderr is not a terminal, print a progress line this often (0: never)")
	if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
		return code
	}
	if msg := checkBounds(*jobs, *timeout, *grace, *killAfter, runner.DefaultMaxLine, runner.DefaultStderrMax, runner.DefaultMaxFrames); msg != "" {
		return usageError(stderr, "parity", "%s", msg)
	}
	if len(impls) < 2 {
		return usageError(stderr, "parity", "name at least two implementations with --impl NAME=PROFILE_OR_COMMAND")
	}
	if !validFormat(*format) {
		return usageError(stderr, "parity", "--format must be %s", reportFormats)
	}
	if *progressEvery < 0 {
		return usageError(stderr, "parity", "--progress must be 0 (never) or a positive duration")
	}
	o := output{format: *format, out: *out, fileRoot: suiteFileRoot(*suiteDir)}
	if err := o.check(); err != nil {
		return fail(stderr, err)
	}
	list, dir, err := suiteOfAll(impls, *suiteDir)
	if err != nil {
		return fail(stderr, err)
	}
	s, err := openSuite(dir, false)
	if err != nil {
		return fail(stderr, err)
	}
	if *role == "" {
		for _, im := range list {
			if _, r, _ := im.suiteOf(); r != "" {
				*role = r
			}
		}
	}
	if *role, err = resolveRole(s, *version, *role); err != nil {
		return usageError(stderr, "parity", "%v", err)
	}
	base := runner.Config{Suite: s, Version: *version, Role: *role, Filters: filters, Jobs: *jobs}
	var targets []runner.Target
	for _, im := range list {
		cfg := runner.Config{Timeout: *timeout, Grace: *grace, KillAfter: *killAfter, Role: *role, Version: *version}
		if _, err := im.configure(&cfg, flagSet(fl, "timeout"), stderr); err != nil {
			return fail(stderr, err)
		}
		cfg.Implementation = im.Name
		targets = append(targets, runner.Target{Name: im.Name, Config: cfg})
	}
	start := time.Now()
	cfgs := make([]*runner.Config, len(targets))
	for i := range targets {
		cfgs[i] = &targets[i].Config
	}
	stopProgress := watch(ctx, stderr, *progressEvery, cfgs...)
	pr, err := runner.Parity(ctx, base, targets)
	stopProgress()
	if err != nil {
		if ctx.Err() != nil {
			return exitInterrupted
		}
		return fail(stderr, err)
	}
	if err := o.parity(stdout, stderr, pr); err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stderr, "parity of %d implementations over %d vectors in %s\n", len(targets), len(pr.Vectors), time.Since(start).Round(time.Millisecond))
	for _, rep := range pr.Reports {
		if code := rep.ExitCode(); code == exitUsage || code == exitInterrupted {
			return code
		}
	}
	if !pr.Passed {
		return exitFail
	}
	return exitPass
}

func isProfileDir(p string) bool {
	_, err := os.Stat(filepath.Join(p, profile.File))
	return err == nil
}
