package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/conform-kit/conform/internal/drift"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/runner"
)

// cmdRecord implements `conform record (--profile DIR | -- CMD...) --out
// DIR`: it runs the suite like `conform run` and writes every vector's
// normalized canonical summary (the bytes run compares with the golden
// file) with the implementation's version and the suite digest
// (internal/drift, recording.json). Exit status: 0 when the recording was
// written, whatever the run's verdict (it is in recording.json; `conform
// run` certifies); 2 for usage or suite errors; 3 when the IUT cannot be
// started or the recording cannot be written; 130 when interrupted (nothing
// is written).
func cmdRecord(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("record", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("out", "", "recording `dir` to write (required; its earlier summaries are replaced)")
	suiteDir := fl.String("suite", "", "the suite: an embedded suite's `name` (control, mcp: conform suites) or a suite root dir (default: control, embedded)")
	version := fl.Int("version", 1, "control protocol `version` to record")
	role := fl.String("role", "", "`role` the IUT plays (default: the suite version's first)")
	prof := fl.String("profile", "", "IUT profile `dir` (impl/<name>) with profile.json")
	var filters multiFlag
	fl.Var(&filters, "filter", "record only vectors whose id matches this doublestar `glob` (repeatable)")
	jobs := fl.Int("j", 0, "vectors run at once (default: one per CPU, widened while the IUTs leave the CPUs idle; docs/running.md \"Parallelism and starts\")")
	timeout := fl.Duration("timeout", runner.DefaultTimeout, "per-vector wait for replies or exit (default: the profile's, else 10s)")
	label := fl.String("label", "", "`name` of the recording in drift reports (default: the implementation's name)")
	released := fl.String("released", "", "release `date` (YYYY-MM-DD) of the recorded version, for timelines")
	implVersion := fl.String("impl-version", "", "the implementation's `version` to record; \"auto\" runs the IUT's first word with --version and keeps the first line")
	if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
		return code
	}
	if *out == "" {
		return usageError(stderr, "record", "--out DIR is required")
	}
	if *released != "" {
		if _, err := time.Parse("2006-01-02", *released); err != nil {
			return usageError(stderr, "record", "--released must be a date YYYY-MM-DD, got %q", *released)
		}
	}
	if msg := checkBounds(*jobs, *timeout, runner.DefaultGrace, runner.DefaultKillAfter, 1, 1, 1); msg != "" {
		return usageError(stderr, "record", "%s", msg)
	}
	if *prof != "" && fl.NArg() > 0 {
		return fail(stderr, kiterr.New(kiterr.Usage, "give --profile or an IUT command after --, not both"))
	}
	if *prof != "" {
		d, r, err := implementation{Profile: *prof}.suiteOf()
		if err != nil {
			return fail(stderr, err)
		}
		if *suiteDir == "" {
			*suiteDir = d
		}
		if *role == "" {
			*role = r
		}
	}
	s, err := openSuite(*suiteDir, false)
	if err != nil {
		return fail(stderr, err)
	}
	if *role, err = resolveRole(s, *version, *role); err != nil {
		return usageError(stderr, "record", "%v", err)
	}
	cfg := runner.Config{Suite: s, Version: *version, Role: *role, Filters: filters, Jobs: *jobs, Timeout: *timeout}
	im := implementation{Profile: *prof, Command: fl.Args()}
	im.Reference = im.Profile == "" && len(im.Command) == 0
	if im.Reference && !isKitSuite(s) {
		return usageError(stderr, "record", "suite %q is not the kit's own: give --profile or the implementation's command after --", s.Manifest.Name)
	}
	if _, err := im.configure(&cfg, flagSet(fl, "timeout"), stderr); err != nil {
		return fail(stderr, err)
	}
	ver := *implVersion
	if im.Reference && ver == "auto" {
		ver = "conform " + runner.BuildKit().Version
	}
	if ver == "auto" {
		ver = probeVersion(ctx, cfg.Command, cfg.Env)
		if ver == "" {
			fmt.Fprintf(stderr, "conform record: note: %s --version printed no version; none recorded\n", cfg.Command[0])
		}
	}

	var mu sync.Mutex
	summaries, shapes := map[string][]byte{}, map[string][]byte{}
	cfg.Shapes = true
	cfg.Record = func(r runner.Result, summary []byte) {
		mu.Lock()
		defer mu.Unlock()
		summaries[r.ID] = append([]byte(nil), summary...)
		if r.Shapes != nil {
			shapes[r.ID] = r.Shapes
		}
	}
	if isTerminal(stderr) {
		cfg.Progress = func(r runner.Result) { report.Line(stderr, r) }
	}
	rep, err := runner.Run(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return exitInterrupted
		}
		return fail(stderr, err)
	}
	if rep.Interrupted {
		fmt.Fprintln(stderr, "conform record: interrupted; nothing written")
		return exitInterrupted
	}
	if len(summaries) == 0 {
		fmt.Fprintf(stderr, "conform record: %s: no vector produced a summary (%d results: %s); nothing written\n", kiterr.RecordEmpty, len(rep.Results), rep.Verdict)
		return exitFail
	}
	meta := drift.Meta{
		Label: *label, Released: *released,
		Implementation: cfg.Implementation, ImplementationVersion: ver, Command: cfg.Command,
		Suite:    drift.Suite{Name: rep.Suite.Name, Version: rep.Suite.Version, Role: rep.Suite.Role, Digest: rep.Suite.Digest, Framing: rep.Suite.Framing},
		Recorded: time.Now().UTC().Format(time.RFC3339),
		Verdict:  rep.Verdict,
		Counts: map[string]int{"total": rep.Summary.Total, "passed": rep.Summary.Passed, "failed": rep.Summary.Failed,
			"xfail": rep.Summary.XFail, "xpass": rep.Summary.XPass, "informational": rep.Summary.Informational,
			"invalid": rep.Summary.Invalid, "not_run": rep.Summary.NotRun},
	}
	if meta.Label == "" {
		meta.Label = cfg.Implementation
	}
	for _, r := range rep.Results {
		meta.Results = append(meta.Results, drift.Result{ID: r.ID, Level: r.Level, Status: string(r.Status)})
	}
	sort.Slice(meta.Results, func(i, j int) bool { return meta.Results[i].ID < meta.Results[j].ID })
	if err := drift.Write(*out, &drift.Recording{Meta: meta, Summaries: summaries, Shapes: shapes}); err != nil {
		fmt.Fprintf(stderr, "conform record: %v\n", err)
		return exitBroken
	}
	if err := report.Text(stdout, rep, false); err != nil {
		return fail(stderr, kiterr.Wrap(kiterr.IO, err, "write report"))
	}
	v := ver
	if v == "" {
		v = "no version recorded"
	}
	fmt.Fprintf(stdout, "recorded %d summaries of %s (%s) in %s\n", len(summaries), meta.Implementation, v, *out)
	return exitPass
}

// versionLike is what a --version line must look like to be recorded: it
// starts with a version number (the CLI prints "2.1.332 (Claude Code)").
var versionLike = regexp.MustCompile(`^v?[0-9]+\.[0-9]+`)

// probeVersion runs argv[0] --version (never through a shell) in a fresh
// temporary HOME with env, for at most 15 s, and returns the first line of
// its output when it starts with a version number, else "".
func probeVersion(ctx context.Context, argv []string, env map[string]string) string {
	home, err := os.MkdirTemp("", "conform-version-*")
	if err != nil {
		return ""
	}
	defer os.RemoveAll(home)
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], "--version")
	cmd.Dir = home
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + home, "LANG=C.UTF-8"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+strings.ReplaceAll(v, "${HOME}", home))
	}
	cmd.WaitDelay = time.Second
	var buf bytes.Buffer
	cmd.Stdout = &buf
	if err := cmd.Run(); err != nil {
		return ""
	}
	line := ""
	sc := bufio.NewScanner(bytes.NewReader(buf.Bytes()))
	if sc.Scan() {
		line = strings.TrimSpace(sc.Text())
	}
	if !versionLike.MatchString(line) || len(line) > 200 {
		return ""
	}
	return line
}
