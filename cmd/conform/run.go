package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/profile"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/internal/suggest"
	"github.com/conform-kit/conform/internal/suite"
	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/runner"
	"github.com/conform-kit/conform/suites"
)

// Exit statuses (STYLE.md): 0 pass, 1 findings or failures, 2 usage or
// invalid suite, 3 the harness or the IUT broke the run, 130 interrupted.
const (
	exitPass        = 0
	exitFail        = 1
	exitUsage       = 2
	exitBroken      = 3
	exitInterrupted = 130
)

const usage = `usage: conform <command> [flags]

commands:
  run       certify an IUT (default: the embedded Go reference) against the suite
  parity    run several implementations and gate on byte-for-byte agreement
  matrix    implementations by vectors (runs or saved reports) as Markdown, HTML or JSON
  validate  check vector files, golden files and JSONL recordings (default: the whole suite)
  golden    regenerate golden summaries from a reference implementation (--update [-- CMD])
  list      list the vectors of a suite version, or (with run's selection flags) those a run would run
  init      create a new suite for your own protocol in a directory
  manifest  rewrite a suite's MANIFEST.sha256 after editing its files
  compat    classify the changes between two JSON Schemas as additive or breaking
  report    merge the JSON reports of a sharded run, or print a JSON report in another format
  suite     export an embedded suite to a directory (suite export [--suite NAME] DIR)
  suites    list the suites embedded in conform (--suite NAME runs one from any directory)
  version   print conform's version, VCS revision, Go version and the embedded suites' digests
  record    run the suite and write each vector's normalized output (a recording)
  drift     classify the differences between recordings (or golden files)
  frozen    gate: the working v1 schema changed only additively since its published copy
  fidelity  compare the requests of the real CLI (with a Messages-API stand-in) with the host vectors

run 'conform <command> -h' for the flags of one command.
`

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "run":
		return cmdRun(ctx, rest, stdout, stderr)
	case "validate":
		return cmdValidate(ctx, rest, stdin, stdout, stderr)
	case "golden":
		return cmdGolden(ctx, rest, stdout, stderr)
	case "parity":
		return cmdParity(ctx, rest, stdout, stderr)
	case "matrix":
		return cmdMatrix(ctx, rest, stdout, stderr)
	case "list":
		return cmdList(rest, stdout, stderr)
	case "init":
		return cmdInit(rest, stdout, stderr)
	case "manifest":
		return cmdManifest(rest, stdout, stderr)
	case "compat":
		return cmdCompat(ctx, rest, stdout, stderr)
	case "report":
		return cmdReport(rest, stdout, stderr)
	case "suite":
		return cmdSuite(rest, stdout, stderr)
	case "suites":
		return cmdSuites(rest, stdout, stderr)
	case "record":
		return cmdRecord(ctx, rest, stdout, stderr)
	case "drift":
		return cmdDrift(ctx, rest, stdout, stderr)
	case "frozen":
		return cmdFrozen(ctx, rest, stdout, stderr)
	case "fidelity":
		return cmdFidelity(ctx, rest, stdout, stderr)
	case "agent-tap":
		return cmdAgentTap(ctx, rest, stdin, stdout, stderr)
	case "host-adapter":
		return cmdHostAdapter(ctx, rest, stdout, stderr)
	case "version":
		if len(rest) > 0 {
			return usageError(stderr, "version", "takes no arguments, got %q", rest[0])
		}
		return cmdVersion(stdout, stderr)
	case "reference":
		return cmdReference(ctx, rest, stdin, stdout, stderr)
	case "agent-double":
		return cmdAgentDouble(ctx, rest, stdin, stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage+helpTail)
		return exitPass
	}
	fmt.Fprintf(stderr, "conform: unknown command %q\n\n%s", cmd, usage)
	return exitUsage
}

// fail prints err with its stable code and returns the exit status for it.
func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "conform: %v\n", err)
	switch kiterr.CodeOf(err) {
	case kiterr.IUTStart, kiterr.ReferenceMismatch, kiterr.IO:
		return exitBroken
	case kiterr.Interrupted:
		return exitInterrupted
	}
	return exitUsage
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// applyProfile loads the profile in dir into cfg: command, environment,
// implementation name, (unless keepTimeout) its timeout and, for a spawned
// profile, the agent double this binary plays (Config.Spawn). Errors:
// PROFILE_INVALID, and IUT_START when the command is not installed.
func applyProfile(cfg *runner.Config, dir string, keepTimeout bool) (*profile.Profile, error) {
	p, err := profile.Load(dir)
	if err != nil {
		return nil, err
	}
	cfg.Command, cfg.Env, cfg.Implementation = p.Command, p.Env, p.Name
	if p.Implementation != "" {
		cfg.Implementation = p.Implementation
	}
	if d := p.TimeoutDuration(); d > 0 && !keepTimeout {
		cfg.Timeout = d
	}
	applyBounds(cfg, p)
	if _, err := exec.LookPath(p.Command[0]); err != nil && p.Install != "" {
		return nil, kiterr.New(kiterr.IUTStart, "%s is not installed; run %s first", p.Command[0], filepath.Join(p.Dir, p.Install))
	}
	if p.Mode == profile.ModeSpawned {
		if cfg.Spawn, err = agentDoubleCommand(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// applyProfileExpect is [applyProfile] plus the profile's expected-failure
// list (Profile.ExpectFailures, read inside the profile's folder), as
// parity, matrix and record use a profile. Errors: those of applyProfile
// and EXPECT_FILE_INVALID.
func applyProfileExpect(cfg *runner.Config, dir string, keepTimeout bool) (*profile.Profile, error) {
	p, err := applyProfile(cfg, dir, keepTimeout)
	if err != nil {
		return nil, err
	}
	if p.ExpectFail != "" {
		if cfg.ExpectFail, err = p.ExpectFailures(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// openSuite loads the suite at dir, or the embedded one when dir is "".
func openSuite(dir string, skipDigest bool) (*runner.Suite, error) {
	return loadSuite(dir, suite.Options{SkipDigest: skipDigest})
}

// indexCache returns where runs keep their suite index cache,
// ${CONFORM_CACHE:-<user cache dir>/conform}/index, and what identifies
// this binary for it (its path, size and modification time, and its build
// information); "" for both when either cannot be found.
func indexCache() (dir, kit string) {
	base := os.Getenv("CONFORM_CACHE")
	if base == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return "", ""
		}
		base = filepath.Join(d, "conform")
	}
	exe, err := os.Executable()
	if err != nil {
		return "", ""
	}
	st, err := os.Stat(exe)
	if err != nil {
		return "", ""
	}
	kit = fmt.Sprintf("%s %d %d", exe, st.Size(), st.ModTime().UnixNano())
	if bi, ok := debug.ReadBuildInfo(); ok {
		kit += " " + bi.Main.Path + "@" + bi.Main.Version
		for _, s := range bi.Settings {
			if strings.HasPrefix(s.Key, "vcs.") {
				kit += " " + s.Key + "=" + s.Value
			}
		}
	}
	return filepath.Join(base, "index"), kit
}

// loadSuite is openSuite with options (Meta is always the kit's). dir is
// a --suite value: "" or the name of an embedded suite ("mcp") is read
// from the binary, anything else is a folder (suites.Resolve).
func loadSuite(dir string, opt suite.Options) (*runner.Suite, error) {
	emb, embedded := suites.Resolve(dir)
	fsys := emb.FS
	if !embedded {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			if !suites.IsPath(dir) {
				return nil, kiterr.New(kiterr.SuiteNotFound, "no suite directory %q and no suite of that name embedded in conform (%s; conform suites lists them)", dir, strings.Join(suites.Names(), ", "))
			}
			return nil, kiterr.New(kiterr.SuiteNotFound, "suite directory %q does not exist or is not a directory", dir)
		}
		// Every read goes through an os.Root: nothing outside dir is read
		// (SUITE_PATH_OUTSIDE). Closed when the process ends.
		d, err := suite.OpenDir(dir)
		if err != nil {
			return nil, err
		}
		fsys = d
	}
	opt.Meta = conform.Meta()
	// The embedded files are fixed at build time and pass their
	// meta-schema check in the kit's tests (TestEmbeddedSchemasMetaValid):
	// compiling them need not repeat it. A --suite directory's are checked.
	opt.MetaChecked = true
	opt.SchemasChecked = embedded
	s, err := suite.Load(fsys, opt)
	if err != nil && dir != "" {
		code := kiterr.CodeOf(err)
		return nil, &kiterr.Error{Code: code, Msg: "suite " + dir + ": " + strings.TrimPrefix(err.Error(), string(code)+": ")}
	}
	return s, err
}

// referenceEnv names the environment variable that gives the built-in
// reference as a binary of its own: a conform-reference (cmd/conform-reference,
// reference.Main, the same code as `conform reference`), which starts in
// about 2 ms of CPU instead of 11 (no JSON Schema validator to
// initialize; bench/README.md). The commands that run the reference when
// given no IUT (run, golden --update, matrix, certify) start it instead of
// re-executing conform. Unset or empty: conform re-executes itself.
const referenceEnv = "CONFORM_REFERENCE"

// referenceCommand is the reference implementation's command for role and
// version: the binary referenceEnv names (an absolute path, or a name
// looked up on PATH), else this binary's `reference` command
// ([selfCommand]). Errors: IUT_START (referenceEnv names nothing that
// runs, or this binary cannot be found).
func referenceCommand(role string, version int) ([]string, error) {
	flags := []string{"--role", role, "--version", strconv.Itoa(version)}
	if ref := os.Getenv(referenceEnv); ref != "" {
		exe, err := exec.LookPath(ref)
		if err == nil {
			exe, err = filepath.Abs(exe)
		}
		if err != nil {
			return nil, kiterr.Wrap(kiterr.IUTStart, err, "%s=%q", referenceEnv, ref)
		}
		return append([]string{exe}, flags...), nil
	}
	exe, err := selfCommand()
	if err != nil {
		return nil, err
	}
	return append([]string{exe, "reference"}, flags...), nil
}

// selfCommand returns the path of this binary, for commands that
// re-execute it (the reference, the agent double, the host adapter). It
// uses argv[0] as invoked (resolved through PATH), so a binary reached
// through a link or a test harness re-executes as itself, then falls back
// to os.Executable. Errors: IUT_START.
func selfCommand() (string, error) {
	exe, err := exec.LookPath(os.Args[0])
	if err == nil {
		exe, err = filepath.Abs(exe)
	}
	if err != nil {
		if exe, err = os.Executable(); err != nil {
			return "", kiterr.Wrap(kiterr.IUTStart, err, "find the conform binary")
		}
	}
	return exe, nil
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("run", flag.ContinueOnError)
	fl.SetOutput(stderr)
	suiteDir := fl.String("suite", "", "the suite: an embedded suite's `name` (control, mcp: conform suites) or a suite root dir (default: control, embedded)")
	version := fl.Int("version", 1, "control protocol `version` to run")
	role := fl.String("role", "", "`role` the IUT plays, one the suite version declares (default: its first; the control suite: agent or host)")
	prof := fl.String("profile", "", "IUT profile `dir` (impl/<name>) with profile.json")
	mode := fl.String("mode", "", "how a host-role IUT meets the agent: direct (frames on its stdin) or spawned (it starts the agent double, claude on its PATH); default direct, or the profile's mode")
	noFailFast := fl.Bool("no-fail-fast", false, "run every vector even when the IUT cannot start or never answers the first request (default: stop with a run-level verdict naming the cause)")
	var filters, skips, levels multiFlag
	fl.Var(&filters, "filter", "run only vectors whose id matches this doublestar `glob` (repeatable: a vector runs when any glob matches it; each glob must match at least one vector)")
	fl.Var(&skips, "skip", "do not run vectors whose id matches this doublestar `glob` (repeatable; each glob must match at least one vector)")
	fl.Var(&levels, "level", "run only vectors of these `levels`: required, recommended, informational (repeatable or comma-separated)")
	rerun := fl.String("rerun-failed", "", "run only the vectors that did not pass in this JSON `report` (conform run --json-out or --format json): its failures, XPASS, INVALID and NOT_RUN results of required and recommended vectors; its role and version are the run's")
	name := fl.String("name", "", "the implementation's `name` in the report, for an IUT command given after -- (default: the command's base name; a profile names its own)")
	color := colorFlag(fl)
	expectFile := fl.String("expect-fail", "", "expected-failure `file`: one vector id per line with '# reason'")
	jobs := fl.Int("j", 0, "vectors run at once (default: number of CPUs)")
	timeout := fl.Duration("timeout", runner.DefaultTimeout, "per-vector wait for replies or exit")
	grace, quiet := boundFlags(fl)
	killAfter := fl.Duration("kill-after", runner.DefaultKillAfter, "wait between SIGTERM and SIGKILL")
	maxLine := fl.Int("max-line", runner.DefaultMaxLine, "largest stdout line accepted, in `bytes`")
	stderrMax := fl.Int("stderr-max", runner.DefaultStderrMax, "trailing stderr `bytes` kept per vector")
	maxFrames := fl.Int("max-frames", runner.DefaultMaxFrames, "most stdout `lines` read per vector")
	maxVector := fl.Int("max-vector-bytes", runner.DefaultMaxVectorBytes, "byte budget of one vector: its stderr tail, findings and the control frames kept for its summary (more is VECTOR_BUDGET_EXCEEDED)")
	maxProcs := fl.Int("max-procs", proc.DefaultProcs, "most processes and threads one IUT may have at once (a pids cgroup limit where the system offers one, else a count every 50 ms; docs/containment.md \"Containment\"); more is PROCESS_LIMIT")
	var maxMemory byteSize
	fl.Var(&maxMemory, "max-memory", "most memory one IUT may use, in `bytes` (or with KiB, MiB, GiB); a memory cgroup limit, where the system offers one (else a usage error); default: no bound")
	inherit := fl.Bool("inherit-env", false, "pass the caller's whole environment to the IUT (default: PATH, LANG, a temp HOME and the profile's env)")
	isolate := fl.Bool("isolate", false, "run each IUT as another user, in its own user and mount namespaces where the kernel allows (Linux, as root): it can then neither read conform's environment nor write the report")
	isolateUser := fl.String("isolate-user", "65533:65533", "`uid:gid` the IUT runs as with --isolate (pick an otherwise unused one)")
	format := fl.String("format", "text", "report format: text, compact (one line per failure), json, junit or github (the text report, GitHub Actions annotations on the vector files, and a Markdown summary appended to $GITHUB_STEP_SUMMARY when it is set)")
	out := fl.String("out", "", "write the report to `file` (default: stdout), atomically and only when the run produces one")
	jsonOut := fl.String("json-out", "", "also write the JSON report (schemas/report.schema.json) to `file`, whatever --format says (for conform matrix --from)")
	verbose := fl.Bool("v", false, "also show the findings (notes) of passing vectors, such as IUT_LINGERED and PARITY_DIFFERS")
	shard := fl.String("shard", "", "run only shard `i/n` of the selected vectors (vector k in id order goes to shard k mod n + 1); 'conform report merge' combines the JSON reports of all n shards")
	progressEvery := fl.Duration("progress", DefaultProgress, "when stderr is not a terminal, print a progress line this often (0: never)")
	exact := fl.Bool("exact", false, "exact parity decides: any byte difference from a golden file fails its vector (GOLDEN_MISMATCH), as ports of the reference must; default: conformance decides and allowed differences are PARITY_DIFFERS notes")
	agent := fl.String("agent", "", "host role: play the vectors through a real agent instead of the agent double: claude-code (impl/claude-code) or an agent profile `dir`; only the vectors it can produce run")
	if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
		return code
	}
	if !validFormat(*format) {
		return usageError(stderr, "run", "--format must be %s", reportFormats)
	}
	if msg := checkBounds(*jobs, *timeout, *grace, *killAfter, *maxLine, *stderrMax, *maxFrames); msg != "" {
		return usageError(stderr, "run", "%s", msg)
	}
	if *maxVector <= 0 {
		return usageError(stderr, "run", "--max-vector-bytes must be positive")
	}
	if *maxProcs <= 0 {
		return usageError(stderr, "run", "--max-procs must be positive")
	}
	if *progressEvery < 0 {
		return usageError(stderr, "run", "--progress must be 0 (never) or a positive duration")
	}
	o := output{format: *format, out: *out, verbose: *verbose, fileRoot: suiteFileRoot(*suiteDir)}
	if err := o.check(); err != nil {
		return fail(stderr, err)
	}
	var ok bool
	if o.color, ok = useColor(*color, *out, stdout); !ok {
		return usageError(stderr, "run", "--color must be auto, always or never")
	}
	levelList, err := listFlag(levels, "")
	if err != nil {
		return usageError(stderr, "run", "--level: %v", err)
	}
	if len(levels) == 0 {
		levelList = nil
	}
	if *name != "" && *prof != "" {
		return usageError(stderr, "run", "--name names an IUT command given after --; a profile names its implementation (%s)", filepath.Join(*prof, "profile.json"))
	}
	if *rerun != "" && len(filters) > 0 {
		return usageError(stderr, "run", "give --rerun-failed or --filter, not both (--skip and --level narrow either)")
	}
	if *jsonOut != "" {
		if _, err := reportTarget("--json-out", *jsonOut); err != nil {
			return fail(stderr, err)
		}
	}
	defer tuneRunGC()()
	if *prof != "" {
		// A profile names the suite it is certified against, and its role.
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
	// A run reads (and checks) every vector and golden file it uses: their
	// digests are checked then, not also at load; what the last run of
	// this suite by this binary found valid is not checked again (the
	// index cache, internal/suite/cache.go).
	cacheDir, kit := indexCache()
	_, embedded := suites.Resolve(*suiteDir)
	s, err := loadSuite(*suiteDir, suite.Options{DeferDigests: true, Cache: cacheDir, CacheKit: kit, Immutable: embedded})
	if err != nil {
		return fail(stderr, err)
	}
	if *rerun != "" {
		again, err := rerunFailed(stderr, s, *rerun, fl, role, version)
		if err != nil {
			return fail(stderr, err)
		}
		if len(again) == 0 {
			fmt.Fprintf(stderr, "conform run: nothing to rerun: %s has no failed, unexpectedly passing, invalid or unrun required or recommended vector\n", *rerun)
			return exitPass
		}
		filters = again
	}
	if *role, err = resolveRole(s, *version, *role); err != nil {
		return usageError(stderr, "run", "%v", err)
	}
	if *suiteDir != "" {
		warnDigest(stderr, s)
	}
	switch *mode {
	case "", profile.ModeDirect, profile.ModeSpawned:
	default:
		return usageError(stderr, "run", "--mode must be %s or %s", profile.ModeDirect, profile.ModeSpawned)
	}
	if *mode == profile.ModeSpawned && *role != "host" {
		return usageError(stderr, "run", "--mode spawned needs --role host (the IUT is a host that starts the agent)")
	}
	if *mode != "" && *prof != "" {
		// The mode is part of what a profile certifies.
		return usageError(stderr, "run", "--mode comes from the profile (%s); give --mode only with an IUT command after --", filepath.Join(*prof, "profile.json"))
	}
	cfg := runner.Config{
		Suite: s, Version: *version, Role: *role, Filters: filters, Skip: skips, Levels: levelList, Jobs: *jobs,
		Timeout: *timeout, Grace: *grace, KillAfter: *killAfter, MaxLine: *maxLine,
		StderrMax: *stderrMax, MaxFrames: *maxFrames, MaxVectorBytes: *maxVector, InheritEnv: *inherit, Exact: *exact,
		NoFailFast: *noFailFast, MaxProcs: *maxProcs, MaxMemory: int64(maxMemory),
	}
	if msg := setBounds(fl, &cfg, *grace, *quiet); msg != "" {
		return usageError(stderr, "run", "%s", msg)
	}
	if *isolate {
		iso, msg := isolation(*isolateUser)
		if msg != "" {
			return usageError(stderr, "run", "%s", msg)
		}
		cfg.Isolate = iso
	}
	if *shard != "" {
		sh, err := runner.ParseShard(*shard)
		if err != nil {
			return usageError(stderr, "run", "--shard: %s", strings.TrimPrefix(err.Error(), string(kiterr.Usage)+": "))
		}
		cfg.Shard = &sh
	}
	if *prof != "" && fl.NArg() > 0 {
		// A profile names one IUT (its command, env, timeout and
		// expected failures); certifying another command under its name
		// would be a false certificate.
		return fail(stderr, kiterr.New(kiterr.Usage, "give --profile or an IUT command after --, not both (the profile's command is in %s)", filepath.Join(*prof, "profile.json")))
	}
	// The implementation under test, named as every command names one.
	im := implementation{Name: *name, Profile: *prof, Command: fl.Args()}
	switch {
	case *name != "" && len(im.Command) == 0:
		return usageError(stderr, "run", "--name names an IUT command given after --")
	case *mode == profile.ModeSpawned && len(im.Command) == 0:
		return usageError(stderr, "run", "--mode spawned needs the host's command after -- (the reference host is direct only)")
	}
	im.Reference = im.Profile == "" && len(im.Command) == 0
	// A list given with --expect-fail replaces the profile's.
	expectPath := *expectFile
	prf, err := im.configure(&cfg, flagSet(fl, "timeout"), stderr)
	if err != nil {
		return fail(stderr, err)
	}
	if *mode == profile.ModeSpawned {
		if cfg.Spawn, err = agentDoubleCommand(); err != nil {
			return fail(stderr, err)
		}
	}
	isReference := im.Reference
	if *agent != "" {
		if err := useRealAgent(&cfg, agentProfileDir(*agent), stderr); err != nil {
			return fail(stderr, err)
		}
		if !flagSet(fl, "timeout") {
			cfg.Timeout = 60 * time.Second // the real CLI with a host takes seconds
		}
	}
	if expectPath != "" {
		ef, err := profile.ReadExpectFail(expectPath)
		if err != nil {
			return fail(stderr, err)
		}
		cfg.ExpectFail = ef
	}
	if *agent != "" && *prof != "" {
		if err := agentExpectations(&cfg, *prof, agentProfileDir(*agent)); err != nil {
			return fail(stderr, err)
		}
	}
	// On a terminal one status line that rewrites itself and is gone
	// before the report (terminalProgress), so each vector shows once; in
	// a log (CI) a progress line every --progress.
	var stopProgress func()
	if isTerminal(stderr) {
		stopProgress = terminalProgress(stdout, stderr, strings.TrimPrefix(*out, "-"), &cfg)
	} else {
		stopProgress = watch(ctx, stderr, *progressEvery, &cfg)
	}
	rep, err := runner.Run(ctx, cfg)
	stopProgress()
	if err != nil {
		if ctx.Err() != nil {
			return exitInterrupted
		}
		return fail(stderr, err)
	}
	rep.Invocation = runInvocation(fl)
	describe(rep, prf)
	if isReference && *agent == "" {
		describeReference(rep)
	}
	for _, id := range rep.Stale {
		if hint := suggestID(s, cfg.Role, cfg.Version, id); hint != "" {
			fmt.Fprintf(stderr, "conform: note: stale expected-failure entry %q%s\n", id, hint)
		}
	}
	if *jsonOut != "" {
		if err := writeJSONReport(*jsonOut, stdout, rep); err != nil {
			return fail(stderr, err)
		}
	}
	// The report file is written only now that there is a report: a run
	// that fails to start (a bad --filter) leaves the previous one as it was.
	if err := o.run(stdout, stderr, rep); err != nil {
		return fail(stderr, err)
	}
	if *out != "" {
		c := rep.Summary
		fmt.Fprintf(stderr, "%d passed, %d failed, %d xfail, %d xpass, %d informational, %d invalid, %d not run (of %d); report: %s\n%s\n",
			c.Passed, c.Failed, c.XFail, c.XPass, c.Informational, c.Invalid, c.NotRun, c.Total, *out, report.VerdictLine(rep))
	}
	return rep.ExitCode()
}

// runInvocation returns the arguments of a conform run that reproduces
// this one (runner.Report.Invocation): "run", --role and --version with
// their values, the other flags given that change results in name order,
// then "--" and the IUT command, if any. Left out: -j, -v, --filter (the
// matrix adds its own) and the output flags.
func runInvocation(fl *flag.FlagSet) []string {
	inv := []string{"run", "--role", fl.Lookup("role").Value.String(), "--version", fl.Lookup("version").Value.String()}
	fl.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "role", "version", "j", "v", "filter", "skip", "level", "rerun-failed", "format", "out", "json-out", "color", "progress":
			return
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			if f.Value.String() == "true" {
				inv = append(inv, "--"+f.Name)
			}
			return
		}
		inv = append(inv, "--"+f.Name, f.Value.String())
	})
	if fl.NArg() > 0 {
		inv = append(append(inv, "--"), fl.Args()...)
	}
	return inv
}

// describe copies what the profile p says about its implementation
// (version, language, source and issue tracker) into rep; nothing when p
// is nil.
func describe(rep *runner.Report, p *profile.Profile) {
	if p == nil {
		return
	}
	impl := &rep.Implementation
	impl.Version, impl.Language, impl.Source, impl.Issues = p.Version, p.Language, p.Source, p.Issues
}

// describeReference says what the reference is: conform's own Go
// implementation, with its source and issue tracker.
func describeReference(rep *runner.Report) {
	impl := &rep.Implementation
	impl.Language, impl.Source, impl.Issues = "Go", "https://"+runner.ModulePath+"/tree/main/reference", "https://"+runner.ModulePath+"/issues"
}

// rerunFailed reads the JSON report at path and returns the ids of its
// required and recommended vectors that did not pass (FAIL and the other
// failing statuses, XPASS, INVALID, NOT_RUN), that the suite still has for
// the report's role and version; it sets *role and *version to the
// report's, which a --role or --version flag must not contradict (USAGE).
// A vector the suite no longer has is named in a note and left out.
// Errors: PATH_NOT_FOUND, REPORT_INVALID, USAGE, and those of runner.Select.
func rerunFailed(stderr io.Writer, s *runner.Suite, path string, fl *flag.FlagSet, role *string, version *int) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.PathNotFound, err, "--rerun-failed report %q", path)
	}
	rep, err := runner.ReadReport(s, data)
	if err != nil {
		return nil, fmt.Errorf("--rerun-failed report %s: %w", path, err)
	}
	if flagSet(fl, "role") && *role != rep.Suite.Role || flagSet(fl, "version") && *version != rep.Suite.Version {
		return nil, kiterr.New(kiterr.Usage, "--rerun-failed: %s is a report of the %s role, protocol v%d, and --role %s --version %d asks for another",
			path, rep.Suite.Role, rep.Suite.Version, *role, *version)
	}
	*role, *version = rep.Suite.Role, rep.Suite.Version
	known := map[string]bool{}
	refs, err := runner.Select(runner.Config{Suite: s, Role: *role, Version: *version})
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		known[r.ID] = true
	}
	var ids []string
	for _, res := range rep.Results {
		if !res.Failed() {
			continue
		}
		if !known[res.ID] {
			fmt.Fprintf(stderr, "conform: note: %s names vector %q, which this suite has not for the %s role, v%d: not rerun\n", path, res.ID, *role, *version)
			continue
		}
		ids = append(ids, res.ID)
	}
	return ids, nil
}

// suggestID is a " (did you mean ...?)" for id among the session vectors
// of role and version, or "".
func suggestID(s *runner.Suite, role string, version int, id string) string {
	refs, err := runner.Select(runner.Config{Suite: s, Role: role, Version: version})
	if err != nil {
		return ""
	}
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = r.ID
	}
	return suggest.Phrase(id, ids)
}

// writeJSONReport writes rep as JSON to path, as --out is written
// ([reportTarget]). Errors: IO.
func writeJSONReport(path string, stdout io.Writer, rep *runner.Report) error {
	if err := writeReport("--json-out", path, stdout, func(w io.Writer) error { return report.JSON(w, rep) }); err != nil {
		return kiterr.Wrap(kiterr.IO, err, "write JSON report")
	}
	return nil
}

// resolveArgs makes the relative paths among the IUT arguments after the
// program absolute against the caller's working directory, since the IUT
// runs in a fresh empty one (the runner does the same for the program
// itself): "-- node agent.js" runs /caller/dir/agent.js. The rule (docs/running.md
// "How a run works"): an argument that names an existing file relative to
// here, or that is ".", "..", or starts with "./" or "../" and names an
// existing file or directory, is made absolute, with a note on stderr. An
// argument that starts with "./" or "../" and names nothing is refused:
// USAGE, since it could only name a file in the IUT's empty directory.
// Arguments that start with "-" or hold "=" ("--config=x.json",
// "FOO=bar") are passed as given: write such a path absolute, or as an
// argument of its own.
func resolveArgs(stderr io.Writer, cmd []string) ([]string, error) {
	out := slices.Clone(cmd)
	for i, a := range cmd {
		if i == 0 || a == "" || filepath.IsAbs(a) || strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
			continue
		}
		explicit := a == "." || a == ".." || strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../") ||
			(filepath.Separator != '/' && (strings.HasPrefix(a, "."+string(filepath.Separator)) || strings.HasPrefix(a, ".."+string(filepath.Separator))))
		st, err := os.Stat(a)
		switch {
		case err == nil && (st.Mode().IsRegular() || explicit):
			abs, err := filepath.Abs(a)
			if err != nil {
				return nil, kiterr.Wrap(kiterr.Usage, err, "IUT argument %q", a)
			}
			out[i] = abs
			fmt.Fprintf(stderr, "conform: note: IUT argument %q is %s (relative paths are resolved here: the IUT runs in a fresh empty working directory)\n", a, abs)
		case err != nil && explicit:
			return nil, kiterr.New(kiterr.Usage, "IUT argument %q names no file or directory here; relative paths are resolved against this directory, since the IUT runs in a fresh empty working directory", a)
		}
	}
	return out, nil
}

// isolation parses --isolate-user ("uid:gid") for --isolate, or returns a
// usage message: isolation switches the IUT to another user, which takes
// Linux and root.
func isolation(user string) (*runner.Isolation, string) {
	if runtime.GOOS != "linux" {
		return nil, "--isolate is only available on Linux"
	}
	if os.Geteuid() != 0 {
		return nil, "--isolate needs root (the IUT is switched to another user)"
	}
	u, g, ok := strings.Cut(user, ":")
	uid, err1 := strconv.ParseUint(u, 10, 32)
	gid, err2 := strconv.ParseUint(g, 10, 32)
	if !ok || err1 != nil || err2 != nil || uid == 0 || gid == 0 || uid == 1<<32-1 || gid == 1<<32-1 {
		return nil, fmt.Sprintf("--isolate-user %q must be uid:gid, neither 0 (root) nor 4294967295", user)
	}
	return &runner.Isolation{UID: uint32(uid), GID: uint32(gid), Namespaces: true}, ""
}

// checkBounds returns a usage message for a bound that makes no sense, or
// "". Zero jobs means one per CPU; every duration and size must be
// positive.
func checkBounds(jobs int, timeout, grace, killAfter time.Duration, maxLine, stderrMax, maxFrames int) string {
	switch {
	case jobs < 0:
		return "-j must be 0 (one per CPU) or more"
	case timeout <= 0 || grace <= 0 || killAfter <= 0:
		return "--timeout, --grace and --kill-after must be positive durations"
	case maxLine <= 0 || stderrMax <= 0 || maxFrames <= 0:
		return "--max-line, --stderr-max and --max-frames must be positive"
	}
	return ""
}

// colorFlag declares --color on fl.
func colorFlag(fl *flag.FlagSet) *string {
	return fl.String("color", "auto", "colour the text and compact reports: auto (when stdout is a terminal, no --out, NO_COLOR unset and TERM not dumb), always or never")
}

// useColor decides --color: "always", "never", or "auto", which colours
// only a report written to a terminal's stdout, and not when NO_COLOR is
// set to anything (no-color.org) or TERM is dumb. ok is false for any
// other value.
func useColor(value, out string, stdout io.Writer) (color, ok bool) {
	switch value {
	case "auto":
		return out == "" && isTerminal(stdout) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb", true
	case "always":
		return true, true
	case "never":
		return false, true
	}
	return false, false
}

// byteSize is a flag value in bytes: a number, or a number with one of
// the suffixes KiB, MiB, GiB (powers of 1024).
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Set(v string) error {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			v, mult = n, u.m
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return fmt.Errorf("%q is not a positive number of bytes (such as 536870912 or 512MiB)", v)
	}
	*b = byteSize(n * mult)
	return nil
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// warnDigest notes on stderr when a suite given with --suite is a copy of
// the one embedded in this binary (same name) that differs from it, so a
// modified copy is never mistaken for the published suite (the digest in
// every report tells them apart); another protocol's suite gets no note.
func warnDigest(stderr io.Writer, s *runner.Suite) {
	emb, err := openSuite("", false)
	if err == nil && emb.Manifest.Name == s.Manifest.Name && emb.Digest != s.Digest {
		fmt.Fprintf(stderr, "conform: note: this suite (%s) differs from the suite embedded in conform (%s)\n", s.Digest, emb.Digest)
	}
}

func flagSet(fl *flag.FlagSet, name string) bool {
	found := false
	fl.Visit(func(f *flag.Flag) {
		if f.Name == name {
			found = true
		}
	})
	return found
}

func cmdGolden(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("golden", flag.ContinueOnError)
	fl.SetOutput(stderr)
	update := fl.Bool("update", false, "regenerate golden files and MANIFEST.sha256 from the reference implementation")
	suiteDir := fl.String("suite", ".", "suite root `dir` on disk (a checkout)")
	jobs := fl.Int("j", 0, "vectors run at once (default: number of CPUs)")
	only := fl.Int("version", 0, "only this protocol `version` (default: every version)")
	role := fl.String("role", "", "only this `role` (default: every role with session vectors)")
	timeout := fl.Duration("timeout", runner.DefaultTimeout, "per-vector wait for replies or exit")
	grace, quiet := boundFlags(fl)
	if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
		return code
	}
	bounds := runner.Config{Timeout: *timeout}
	if *timeout <= 0 {
		return usageError(stderr, "golden", "--timeout must be a positive duration")
	}
	if msg := setBounds(fl, &bounds, *grace, *quiet); msg != "" {
		return usageError(stderr, "golden", "%s", msg)
	}
	if !*update {
		return usageError(stderr, "golden", "pass --update to regenerate golden files from the reference")
	}
	if !suites.IsPath(*suiteDir) {
		// Goldens and MANIFEST.sha256 are written into a folder, never
		// into the copy built into this binary.
		return usageError(stderr, "golden", "--suite %q names a suite embedded in conform, which cannot be written: give its folder (%s in a clone of conform)", *suiteDir, suiteFolderHint(*suiteDir))
	}
	command := fl.Args()
	s, err := openSuite(*suiteDir, true)
	if err != nil {
		return fail(stderr, err)
	}
	builtin := len(command) == 0
	if !builtin {
		// As conform run: the reference runs in a fresh empty working
		// directory, so a relative script argument is resolved here.
		if command, err = resolveArgs(stderr, command); err != nil {
			return fail(stderr, err)
		}
	}
	if builtin && !isKitSuite(s) {
		return usageError(stderr, "golden", "suite %q is not the kit's own: give its reference implementation's command after -- (conform golden --update --suite %s -- ./reference)", s.Manifest.Name, *suiteDir)
	}
	ran := 0
	for _, ver := range s.Manifest.Versions {
		if *only != 0 && ver.Version != *only {
			continue
		}
		for _, r := range roles(s, ver.Version) {
			if *role != "" && r != *role {
				continue
			}
			cmd := command
			if builtin {
				if cmd, err = referenceCommand(r, ver.Version); err != nil {
					return fail(stderr, err)
				}
			}
			up, err := runner.UpdateGolden(ctx, runner.Config{Suite: s, Version: ver.Version, Role: r, Command: cmd, Jobs: *jobs,
				Timeout: bounds.Timeout, Grace: bounds.Grace, Quiet: bounds.Quiet}, *suiteDir)
			if err != nil {
				return fail(stderr, err)
			}
			ran++
			fmt.Fprintf(stdout, "v%d %s: %d written, %d unchanged, %d removed", ver.Version, r, up.Written, up.Unchanged, len(up.Removed))
			if up.Fixtures > 0 {
				fmt.Fprintf(stdout, ", %d fixture vectors reproduced", up.Fixtures)
			}
			fmt.Fprintln(stdout)
			for _, f := range up.Added {
				fmt.Fprintf(stdout, "  new     %s\n", f)
			}
			for _, f := range up.Changed {
				fmt.Fprintf(stdout, "  changed %s\n", f)
			}
			for _, f := range up.Removed {
				fmt.Fprintf(stdout, "  removed %s\n", f)
			}
		}
	}
	if ran == 0 {
		return fail(stderr, kiterr.New(kiterr.FilterNoMatch, "suite %q has no session vectors for version %d and role %q", s.Manifest.Name, *only, *role))
	}
	digest, err := runner.WriteManifest(*suiteDir)
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "suite digest %s\nreview the golden diff before committing: git diff -- %s\n", digest, filepath.Join(*suiteDir, "golden"))
	return exitPass
}

// resolveRole returns role, or the default role of version n when role is
// empty; an error names the version's roles when role is not one of them
// (or the version does not exist).
func resolveRole(s *runner.Suite, n int, role string) (string, error) {
	ver, err := s.Version(n)
	if err != nil {
		return "", err
	}
	if role == "" {
		return ver.DefaultRole(), nil
	}
	if ver.Role(role) == nil {
		return "", fmt.Errorf("--role %q is not a role of suite version %d (%s)", role, n, strings.Join(ver.RoleNames(), ", "))
	}
	return role, nil
}

// isKitSuite reports whether s is the suite this binary embeds (by name),
// whose reference implementation is built in.
func isKitSuite(s *runner.Suite) bool {
	embedded, err := suite.Load(conform.Suite(), suite.Options{SkipDigest: true, Meta: conform.Meta()})
	return err == nil && embedded.Manifest.Name == s.Manifest.Name
}

// roles lists the roles of version n that have session vectors, in the
// order the suite declares them.
func roles(s *runner.Suite, n int) []string {
	ver, err := s.Version(n)
	if err != nil {
		return nil
	}
	vs, _, _ := s.Vectors(ver)
	used := map[string]bool{}
	for _, v := range vs {
		if v.Kind == suite.KindSession {
			used[v.Role] = true
		}
	}
	var out []string
	for _, r := range ver.RoleNames() {
		if used[r] {
			out = append(out, r)
		}
	}
	return out
}

// cmdList lists vectors. Without selection flags it lists every vector of
// a protocol version (kind, role, level, description). With any of --role,
// --filter, --skip, --level, --rerun-failed or --shard it is a dry run of
// conform run with the same flags: it lists the session vectors that run
// would run, in the order it would run them, and says how many on stderr;
// a glob that matches nothing is the same FILTER_NO_MATCH error, with the
// same "did you mean".
func cmdList(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("list", flag.ContinueOnError)
	fl.SetOutput(stderr)
	suiteDir := fl.String("suite", "", "the suite: an embedded suite's `name` (control, mcp: conform suites) or a suite root dir (default: control, embedded)")
	version := fl.Int("version", 1, "protocol `version`")
	role := fl.String("role", "", "dry run: list the session vectors of this `role` that conform run would run (default: the version's first)")
	var filters, skips, levels multiFlag
	fl.Var(&filters, "filter", "dry run: as conform run --filter (a doublestar `glob`; repeatable)")
	fl.Var(&skips, "skip", "dry run: as conform run --skip (a doublestar `glob`; repeatable)")
	fl.Var(&levels, "level", "dry run: as conform run --level (`levels`: required, recommended, informational)")
	rerun := fl.String("rerun-failed", "", "dry run: as conform run --rerun-failed (a JSON `report`)")
	shard := fl.String("shard", "", "dry run: as conform run --shard (`i/n`)")
	if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
		return code
	}
	if fl.NArg() > 0 {
		return usageError(stderr, "list", "unexpected argument %q (conform list -h lists the flags)", fl.Arg(0))
	}
	s, err := openSuite(*suiteDir, false)
	if err != nil {
		return fail(stderr, err)
	}
	ver, err := s.Version(*version)
	if err != nil {
		return fail(stderr, err)
	}
	vs, bad, err := s.Vectors(ver)
	if err != nil {
		return fail(stderr, err)
	}
	dry := false
	for _, f := range []string{"role", "filter", "skip", "level", "rerun-failed", "shard"} {
		dry = dry || flagSet(fl, f)
	}
	if !dry {
		for _, v := range vs {
			r := v.Role
			if v.Kind == suite.KindMessage {
				r = "-"
			}
			fmt.Fprintf(stdout, "%-44s %-8s %-6s %-13s %s\n", v.ID, v.Kind, r, v.Level, v.Description)
		}
		for _, b := range bad {
			fmt.Fprintf(stderr, "INVALID %s: %v\n", b.Path, b.Err)
		}
		if len(bad) > 0 {
			return exitUsage
		}
		return exitPass
	}
	levelList, err := listFlag(levels, "")
	if err != nil {
		return usageError(stderr, "list", "--level: %v", err)
	}
	if len(levels) == 0 {
		levelList = nil
	}
	if *rerun != "" {
		if len(filters) > 0 {
			return usageError(stderr, "list", "give --rerun-failed or --filter, not both (--skip and --level narrow either)")
		}
		again, err := rerunFailed(stderr, s, *rerun, fl, role, version)
		if err != nil {
			return fail(stderr, err)
		}
		if len(again) == 0 {
			fmt.Fprintf(stderr, "conform list: nothing to rerun: %s has no failed, unexpectedly passing, invalid or unrun required or recommended vector\n", *rerun)
			return exitPass
		}
		filters = again
		if ver, err = s.Version(*version); err != nil {
			return fail(stderr, err)
		}
		if vs, _, err = s.Vectors(ver); err != nil {
			return fail(stderr, err)
		}
	}
	if *role, err = resolveRole(s, *version, *role); err != nil {
		return usageError(stderr, "list", "%v", err)
	}
	cfg := runner.Config{Suite: s, Version: *version, Role: *role, Filters: filters, Skip: skips, Levels: levelList}
	if *shard != "" {
		sh, err := runner.ParseShard(*shard)
		if err != nil {
			return usageError(stderr, "list", "--shard: %s", strings.TrimPrefix(err.Error(), string(kiterr.Usage)+": "))
		}
		cfg.Shard = &sh
	}
	refs, err := runner.Select(cfg)
	if err != nil {
		return fail(stderr, err)
	}
	desc := map[string]string{}
	total := 0
	for _, v := range vs {
		if v.Kind == suite.KindSession && v.Role == *role {
			desc[v.ID] = v.Description
			total++
		}
	}
	for _, r := range refs {
		fmt.Fprintf(stdout, "%-44s %-13s %s\n", r.ID, r.Level, desc[r.ID])
	}
	fmt.Fprintf(stderr, "%d of %d %s-role vectors of protocol v%d would run\n", len(refs), total, *role, *version)
	return exitPass
}

// cmdVersion prints the module version, the VCS revision and time when
// the build recorded them (go build inside the git checkout does), the
// embedded suites and their digests (one "suite TITLE DIGEST" line each,
// in conform suites order), and the Go version and platform.
func cmdVersion(stdout, stderr io.Writer) int {
	kit := runner.BuildKit()
	var embedded []*runner.Suite
	for _, e := range suites.List() {
		s, err := openSuite(e.Name, false)
		if err != nil {
			return fail(stderr, err)
		}
		embedded = append(embedded, s)
	}
	fmt.Fprintf(stdout, "conform %s\n", kit.Version)
	if kit.Revision != "" {
		rev := kit.Revision
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, st := range bi.Settings {
				if st.Key == "vcs.time" {
					rev += " " + st.Value
				}
			}
		}
		if kit.Modified {
			rev += " (modified)"
		}
		fmt.Fprintf(stdout, "revision %s\n", rev)
	}
	for _, s := range embedded {
		fmt.Fprintf(stdout, "suite %s %s\n", s.Manifest.Name, s.Digest)
	}
	fmt.Fprintf(stdout, "go %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return exitPass
}

// cmdReference is `conform reference`: the reference IUT, re-executed by
// run, parity and golden when no IUT command is given. See [reference.Main].
func cmdReference(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return reference.Main(ctx, args, stdin, stdout, stderr, os.Getenv)
}

// expandPaths resolves path arguments and doublestar globs against the
// current directory: a path must exist (PATH_NOT_FOUND), a glob must match
// at least one file (FILTER_NO_MATCH).
func expandPaths(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if !strings.ContainsAny(a, "*?[{") {
			fi, err := os.Stat(a)
			if err != nil {
				return nil, kiterr.Wrap(kiterr.PathNotFound, err, "path %q", a)
			}
			if fi.IsDir() {
				return nil, kiterr.New(kiterr.Usage, "%q is a directory; give files, or a glob such as %q", a, filepath.Join(a, "**", "*.json"))
			}
			out = append(out, a)
			continue
		}
		matches, err := doublestar.FilepathGlob(a, doublestar.WithFilesOnly())
		if err != nil {
			return nil, kiterr.Wrap(kiterr.Usage, err, "glob %q", a)
		}
		if len(matches) == 0 {
			return nil, kiterr.New(kiterr.FilterNoMatch, "glob %q matches no file", a)
		}
		out = append(out, matches...)
	}
	return out, nil
}

// usageError prints "conform CMD: USAGE: message" (the stable code of a bad
// command line, like every other kit error's) and returns exit status 2.
func usageError(stderr io.Writer, cmd, format string, args ...any) int {
	fmt.Fprintf(stderr, "conform %s: %s: %s\n", cmd, kiterr.Usage, fmt.Sprintf(format, args...))
	return exitUsage
}

// parseFlags parses args into fl. -h and --help print the flags to stdout
// and return exit status 0; a bad flag is a USAGE error naming it, without
// the whole flag list (ok false either way).
func parseFlags(fl *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	fl.SetOutput(io.Discard)
	err := fl.Parse(args)
	switch {
	case err == nil:
		fl.SetOutput(stderr)
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		fl.SetOutput(stdout)
		fmt.Fprintf(stdout, "usage: conform %s [flags]%s\n", fl.Name(), usageTail(fl.Name()))
		fl.PrintDefaults()
		if fl.Name() == "run" {
			fmt.Fprint(stdout, runHelpTail)
		}
		return exitPass, false
	}
	return usageError(stderr, fl.Name(), "%v (conform %s -h lists the flags)", err, fl.Name()), false
}

// usageTail is what follows the flags on the command line of cmd.
func usageTail(cmd string) string {
	switch cmd {
	case "run":
		return " [-- IUT COMMAND [ARGS...]]"
	case "golden":
		return " --update [-- REFERENCE COMMAND [ARGS...]]"
	case "parity":
		return " --impl NAME=PROFILE_DIR|reference|COMMAND --impl ... (a COMMAND is split on spaces, never through a shell)"
	case "matrix":
		return " (--impl NAME=PROFILE_DIR|reference|COMMAND ... [--role R,...] [--version V,...] | --from [NAME=]REPORT.json ...)"
	case "validate":
		return " [FILES_OR_GLOBS...]"
	case "compat":
		return " OLD.json NEW.json"
	case "record":
		return " --out DIR [--profile DIR | -- IUT COMMAND [ARGS...]]"
	case "drift":
		return " OLD NEW [MORE...] (recording dirs, golden dirs, or \"golden\")"
	}
	return ""
}
