package main

import (
	"context"
	"encoding/json"
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
	"github.com/conform-kit/conform/internal/command/certify"
	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/profile"
	"github.com/conform-kit/conform/internal/report"
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
  attest    verify that an in-toto attestation (run --attest) matches a JSON report

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
	case "attest":
		return cmdAttest(rest, stdout, stderr)
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
	cfg.Claims = p.Claims
	cfg.Vars = p.Vars
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

// cmdRun is `conform run`: its flags ([runFlags]) become a
// [certify.Request], which [certify.Run] checks, resolves and runs with
// this binary's ports ([runPorts]); the report is then written as the
// output flags say ([runFlags.write]).
func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("run", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var f runFlags
	f.bind(fl)
	if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
		return code
	}
	o, err := f.output(stdout)
	if err != nil {
		return runFail(stderr, err)
	}
	req, err := f.request(fl)
	if err != nil {
		return runFail(stderr, err)
	}
	defer tuneRunGC()()
	_, rep, err := certify.Run(ctx, req, runPorts(ctx, stdout, stderr, f.out, f.progress))
	switch {
	case err != nil && ctx.Err() != nil:
		return exitInterrupted
	case err != nil:
		return runFail(stderr, err)
	case rep == nil:
		return exitPass // --rerun-failed: nothing to rerun
	}
	// The report files are written only now that there is a report: a run
	// that fails to start (a bad --filter) leaves the previous ones as
	// they were.
	if err := f.write(stdout, stderr, o, rep); err != nil {
		return fail(stderr, err)
	}
	return rep.ExitCode()
}

// runFail prints an error of conform run and returns its exit status: a
// USAGE error as "conform run: USAGE: ...", as [usageError] prints one,
// any other as [fail] does.
func runFail(stderr io.Writer, err error) int {
	if kiterr.CodeOf(err) == kiterr.Usage {
		fmt.Fprintf(stderr, "conform run: %v\n", err)
		return exitUsage
	}
	return fail(stderr, err)
}

// runFlags are the flags of conform run: the request's, bound in place,
// and the output flags, which only this command uses.
type runFlags struct {
	req                    certify.Request
	filters, skips, levels multiFlag
	claims                 multiFlag
	vars                   multiFlag
	maxMemory              byteSize
	format, out, jsonOut   string
	attest                 string
	color                  *string
	verbose                bool
	progress               time.Duration
	grace, quiet           *time.Duration
}

// bind declares the flags of conform run on fl.
func (f *runFlags) bind(fl *flag.FlagSet) {
	r := &f.req
	fl.StringVar(&r.SuiteDir, "suite", "", "the suite: an embedded suite's `name` (control, mcp: conform suites) or a suite root dir (default: control, embedded)")
	fl.IntVar(&r.Version, "version", 1, "control protocol `version` to run")
	fl.StringVar(&r.Role, "role", "", "`role` the IUT plays, one the suite version declares (default: its first; the control suite: agent or host)")
	fl.StringVar(&r.Profile, "profile", "", "IUT profile `dir` (impl/<name>) with profile.json")
	fl.StringVar(&r.Mode, "mode", "", "how a host-role IUT meets the agent: direct (frames on its stdin) or spawned (it starts the agent double, claude on its PATH); default direct, or the profile's mode")
	fl.BoolVar(&r.NoFailFast, "no-fail-fast", false, "run every vector even when the IUT cannot start or never answers the first request (default: stop with a run-level verdict naming the cause)")
	fl.Var(&f.filters, "filter", "run only vectors whose id matches this doublestar `glob` (repeatable: a vector runs when any glob matches it; each glob must match at least one vector)")
	fl.Var(&f.skips, "skip", "do not run vectors whose id matches this doublestar `glob` (repeatable; each glob must match at least one vector)")
	fl.Var(&f.levels, "level", "run only vectors of these `levels`: required, recommended, informational (repeatable or comma-separated)")
	fl.Var(&f.claims, "claim", "judge these conformance `classes` of the suite version and role (repeatable or comma-separated; overrides the profile's claims): the rest are SKIPPED (CLASS_NOT_CLAIMED), always-judged classes are judged anyway (docs/running.md \"Conformance classes\")")
	fl.Var(&f.vars, "var", "set a var the suite declares (suite.json vars) to a JSON value, as `NAME=JSON` (repeatable; over the profile's vars): --var languageId='\"go\"' --var hoverLine=3")
	fl.StringVar(&r.Rerun, "rerun-failed", "", "run only the vectors that did not pass in this JSON `report` (conform run --json-out or --format json): its failures, XPASS, INVALID and NOT_RUN results of required and recommended vectors; its role and version are the run's")
	fl.StringVar(&r.Name, "name", "", "the implementation's `name` in the report, for an IUT command given after -- (default: the command's base name; a profile names its own)")
	f.color = colorFlag(fl)
	fl.StringVar(&r.ExpectFile, "expect-fail", "", "expected-failure `file`: one vector id per line with '# reason'")
	fl.IntVar(&r.Jobs, "j", 0, "vectors run at once (default: one per CPU, widened while the IUTs leave the CPUs idle, up to 4 per CPU capped by memory and a pids limit; docs/running.md \"Parallelism and starts\")")
	fl.IntVar(&r.Starts, "starts", 0, "IUTs that may be starting (between exec and their first stdout line) at once; waiting for a start is not counted in a vector's --timeout (default: number of CPUs)")
	fl.DurationVar(&r.Timeout, "timeout", runner.DefaultTimeout, "per-vector wait for replies or exit")
	f.grace, f.quiet = boundFlags(fl)
	fl.DurationVar(&r.KillAfter, "kill-after", runner.DefaultKillAfter, "wait between SIGTERM and SIGKILL")
	fl.IntVar(&r.MaxLine, "max-line", runner.DefaultMaxLine, "largest stdout line accepted, in `bytes`")
	fl.IntVar(&r.StderrMax, "stderr-max", runner.DefaultStderrMax, "trailing stderr `bytes` kept per vector")
	fl.IntVar(&r.MaxFrames, "max-frames", runner.DefaultMaxFrames, "most stdout `lines` read per vector")
	fl.IntVar(&r.MaxVectorBytes, "max-vector-bytes", runner.DefaultMaxVectorBytes, "byte budget of one vector: its stderr tail, findings and the control frames kept for its summary (more is VECTOR_BUDGET_EXCEEDED)")
	fl.IntVar(&r.MaxProcs, "max-procs", proc.DefaultProcs, "most processes and threads one IUT may have at once (a pids cgroup limit where the system offers one, else a count every 50 ms; docs/containment.md \"Containment\"); more is PROCESS_LIMIT")
	fl.Var(&f.maxMemory, "max-memory", "most memory one IUT may use, in `bytes` (or with KiB, MiB, GiB); a memory cgroup limit, where the system offers one (else a usage error); default: no bound")
	fl.BoolVar(&r.InheritEnv, "inherit-env", false, "pass the caller's whole environment to the IUT (default: PATH, LANG, a temp HOME and the profile's env)")
	fl.BoolVar(&r.Isolate, "isolate", false, "run each IUT as another user, in its own user and mount namespaces where the kernel allows (Linux, as root): it can then neither read conform's environment nor write the report")
	fl.StringVar(&r.IsolateUser, "isolate-user", "65533:65533", "`uid:gid` the IUT runs as with --isolate (pick an otherwise unused one)")
	fl.StringVar(&f.format, "format", "text", "report format: text, compact (one line per failure), json, junit or github (the text report, GitHub Actions annotations on the vector files, and a Markdown summary appended to $GITHUB_STEP_SUMMARY when it is set)")
	fl.StringVar(&f.out, "out", "", "write the report to `file` (default: stdout), atomically and only when the run produces one")
	fl.StringVar(&f.jsonOut, "json-out", "", "also write the JSON report (schemas/report.schema.json) to `file`, whatever --format says (for conform matrix --from)")
	fl.StringVar(&f.attest, "attest", "", "also write an in-toto attestation of the run to `file`: a Statement v1 with the test-result predicate, whose subject is the JSON report file (--json-out, or --format json --out); sign it with cosign or ssh-keygen -Y sign (docs/certification.md \"Attestation\")")
	fl.BoolVar(&f.verbose, "v", false, "also show the findings (notes) of passing vectors, such as IUT_LINGERED and PARITY_DIFFERS")
	fl.StringVar(&r.Shard, "shard", "", "run only shard `i/n` of the selected vectors (vector k in id order goes to shard k mod n + 1); 'conform report merge' combines the JSON reports of all n shards")
	fl.DurationVar(&f.progress, "progress", DefaultProgress, "when stderr is not a terminal, print a progress line this often (0: never)")
	fl.BoolVar(&r.Exact, "exact", false, "exact parity decides: any byte difference from a golden file fails its vector (GOLDEN_MISMATCH), as ports of the reference must; default: conformance decides and allowed differences are PARITY_DIFFERS notes")
	fl.StringVar(&r.Agent, "agent", "", "host role: play the vectors through a real agent instead of the agent double: claude-code (impl/claude-code) or an agent profile `dir`; only the vectors it can produce run")
}

// request completes the request once fl is parsed: the repeatable flags,
// which flags were given, --grace and --quiet (0 when not given: the
// profile's or the suite's apply), the IUT command and the invocation.
// Errors: USAGE (a bound out of range).
func (f *runFlags) request(fl *flag.FlagSet) (certify.Request, error) {
	r := f.req
	var b runner.Config
	if msg := setBounds(fl, &b, *f.grace, *f.quiet); msg != "" {
		return r, kiterr.New(kiterr.Usage, "%s", msg)
	}
	r.Grace, r.Quiet = b.Grace, b.Quiet
	r.Filters, r.Skips, r.Levels = f.filters, f.skips, f.levels
	r.Claims, r.ClaimsGiven = f.claims, flagSet(fl, "claim")
	vars, err := parseVars(f.vars)
	if err != nil {
		return r, err
	}
	r.Vars = vars
	r.MaxMemory = int64(f.maxMemory)
	r.RoleGiven, r.VersionGiven, r.TimeoutGiven = flagSet(fl, "role"), flagSet(fl, "version"), flagSet(fl, "timeout")
	r.Command = fl.Args()
	r.Invocation = runInvocation(fl)
	return r, nil
}

// parseVars reads --var NAME=JSON items into a map. Errors: USAGE (no
// "=", an empty name, a value that is not one JSON value, a name given
// twice).
func parseVars(items []string) (map[string]any, error) {
	if len(items) == 0 {
		return nil, nil
	}
	out := map[string]any{}
	for _, it := range items {
		name, val, ok := strings.Cut(it, "=")
		if !ok || name == "" {
			return nil, kiterr.New(kiterr.Usage, "--var %q: give NAME=JSON", it)
		}
		if _, dup := out[name]; dup {
			return nil, kiterr.New(kiterr.Usage, "--var: %s is given twice", name)
		}
		dec := json.NewDecoder(strings.NewReader(val))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, kiterr.New(kiterr.Usage, "--var %s: %q is not a JSON value (a string is quoted: %s='\"text\"')", name, val, name)
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, kiterr.New(kiterr.Usage, "--var %s: %q is more than one JSON value", name, val)
		}
		out[name] = v
	}
	return out, nil
}

// output checks the output flags before the run, so that a long run is
// not lost at the end: --format, --progress, --color, and that --out and
// --json-out name files a report can be written to. Errors: USAGE, IO.
func (f *runFlags) output(stdout io.Writer) (output, error) {
	o := output{format: f.format, out: f.out, verbose: f.verbose, fileRoot: suiteFileRoot(f.req.SuiteDir)}
	var ok bool
	o.color, ok = useColor(*f.color, f.out, stdout)
	switch {
	case !validFormat(f.format):
		return o, kiterr.New(kiterr.Usage, "--format must be %s", reportFormats)
	case f.progress < 0:
		return o, kiterr.New(kiterr.Usage, "--progress must be 0 (never) or a positive duration")
	case !ok:
		return o, kiterr.New(kiterr.Usage, "--color must be auto, always or never")
	}
	if err := o.check(); err != nil {
		return o, err
	}
	if f.jsonOut != "" {
		if _, err := reportTarget("--json-out", f.jsonOut); err != nil {
			return o, err
		}
	}
	return o, f.checkAttest()
}

// write writes the run's reports: the JSON report (--json-out), the
// report in its format (--out or stdout), the attestation (--attest, last:
// it attests the JSON report file written before it) and, when the report
// went to a file, the counts and verdict line on stderr. Errors: IO.
func (f *runFlags) write(stdout, stderr io.Writer, o output, rep *runner.Report) error {
	var js []byte
	if f.jsonOut != "" || f.attest != "" {
		var err error
		if js, err = jsonReport(rep); err != nil {
			return err
		}
	}
	if f.jsonOut != "" {
		if err := writeReport("--json-out", f.jsonOut, stdout, func(w io.Writer) error { _, err := w.Write(js); return err }); err != nil {
			return kiterr.Wrap(kiterr.IO, err, "write JSON report")
		}
	}
	if err := o.run(stdout, stderr, rep); err != nil {
		return err
	}
	if f.attest != "" {
		if err := f.writeAttestation(stdout, stderr, rep, js); err != nil {
			return err
		}
	}
	if f.out != "" {
		c := rep.Summary
		fmt.Fprintf(stderr, "%d passed, %d failed, %d xfail, %d xpass, %d informational, %d invalid, %d not run (of %d); report: %s\n%s\n",
			c.Passed, c.Failed, c.XFail, c.XPass, c.Informational, c.Invalid, c.NotRun, c.Total, f.out, report.VerdictLine(rep))
	}
	return nil
}

// runPorts are this binary's [certify.Ports]: suites loaded with the index
// cache, the embedded suite, implementations configured as every command
// configures one ([implementation.configure]), the agent double and the
// real agent this binary plays, and progress on stderr (a status line on a
// terminal, else a line every interval).
func runPorts(ctx context.Context, stdout, stderr io.Writer, out string, interval time.Duration) certify.Ports {
	// A run reads (and checks) every vector and golden file it uses: their
	// digests are checked then, not also at load; what the last run of
	// this suite by this binary found valid is not checked again (the
	// index cache, internal/suite/cache.go).
	cacheDir, kit := indexCache()
	preflightDir := ""
	if cacheDir != "" {
		// Beside the index cache: the preflight frames a partial run
		// reuses (runner/preflightcache.go).
		preflightDir = filepath.Join(filepath.Dir(cacheDir), "preflight")
	}
	return certify.Ports{
		Stderr:         stderr,
		PreflightCache: preflightDir,
		PreflightKit:   kit,
		LoadSuite: func(dir string) (*runner.Suite, error) {
			_, embedded := suites.Resolve(dir)
			return loadSuite(dir, suite.Options{DeferDigests: true, Cache: cacheDir, CacheKit: kit, Immutable: embedded})
		},
		SuiteOf: func(dir string) (string, string, error) {
			return implementation{Profile: dir}.suiteOf()
		},
		Embedded: func() (*runner.Suite, error) { return openSuite("", false) },
		ReadFile: readRerunReport,
		Configure: func(cfg *runner.Config, iut certify.IUT, keepTimeout bool) (*profile.Profile, error) {
			return implementation(iut).configure(cfg, keepTimeout, stderr)
		},
		AgentDouble: agentDoubleCommand,
		UseAgent: func(cfg *runner.Config, agent string) error {
			return useRealAgent(cfg, agentProfileDir(agent), stderr)
		},
		AgentExpect: func(cfg *runner.Config, profileDir, agent string) error {
			return agentExpectations(cfg, profileDir, agentProfileDir(agent))
		},
		// On a terminal one status line that rewrites itself and is gone
		// before the report (terminalProgress), so each vector shows once;
		// in a log (CI) a progress line every --progress.
		Progress: func(cfg *runner.Config) func() {
			if isTerminal(stderr) {
				return terminalProgress(stdout, stderr, strings.TrimPrefix(out, "-"), cfg)
			}
			return watch(ctx, stderr, interval, cfg)
		},
	}
}

// runInvocation returns what follows "run --role R --version V" in the
// arguments of a conform run that reproduces this one
// (runner.Report.Invocation, completed by [certify.Complete] with the
// run's resolved role and version): the other flags given that change
// results in name order, then "--" and the IUT command, if any. Left out:
// -j, -v, --filter (the matrix adds its own) and the output flags.
func runInvocation(fl *flag.FlagSet) []string {
	var inv []string
	fl.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "role", "version", "j", "starts", "v", "filter", "skip", "level", "rerun-failed", "format", "out", "json-out", "color", "progress", "attest":
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

// describe is [certify.Describe] (conform matrix uses it too).
func describe(rep *runner.Report, p *profile.Profile) { certify.Describe(rep, p) }

// describeReference is [certify.DescribeReference].
func describeReference(rep *runner.Report) { certify.DescribeReference(rep) }

// readRerunReport reads the --rerun-failed report of run and list.
func readRerunReport(path string) ([]byte, error) {
	return input.ReadFile(path, input.MaxReport, "--rerun-failed report")
}

// rerunFailed is [certify.Rerun] for conform list: it reads the report at
// path, sets *role and *version to the report's (which the --role and
// --version flags of fl must not contradict) and returns the vectors to
// rerun.
func rerunFailed(stderr io.Writer, s *runner.Suite, path string, fl *flag.FlagSet, role *string, version *int) ([]string, error) {
	sel := certify.Selection{Role: *role, Version: *version, RoleGiven: flagSet(fl, "role"), VersionGiven: flagSet(fl, "version")}
	ids, err := certify.Rerun(stderr, s, path, readRerunReport, &sel)
	if err != nil {
		return nil, err
	}
	*role, *version = sel.Role, sel.Version
	return ids, nil
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

// checkBounds is [certify.Bounds] (parity, matrix and record check
// their bounds with it too).
func checkBounds(jobs int, timeout, grace, killAfter time.Duration, maxLine, stderrMax, maxFrames int) string {
	return certify.Bounds(jobs, timeout, grace, killAfter, maxLine, stderrMax, maxFrames)
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
	jobs := fl.Int("j", 0, "vectors run at once (default: one per CPU, widened while the IUTs leave the CPUs idle; docs/running.md \"Parallelism and starts\")")
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

// resolveRole is [certify.ResolveRole]: role, or the default role of
// version n when role is empty.
func resolveRole(s *runner.Suite, n int, role string) (string, error) {
	return certify.ResolveRole(s, n, role)
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
	case "attest verify":
		return " ATTESTATION.json REPORT.json"
	case "record":
		return " --out DIR [--profile DIR | -- IUT COMMAND [ARGS...]]"
	case "drift":
		return " OLD NEW [MORE...] (recording dirs, golden dirs, or \"golden\")"
	}
	return ""
}
