// Package certify is what `conform run` does between its command line and
// its report: it checks a run [Request] (the run's flags as plain values),
// resolves it against a suite into a [runner.Config] ([Prepare]: the suite
// a profile names, the role and version a --rerun-failed report gives,
// the implementation, its mode, its expected failures), runs it and
// completes the report ([Run]: the invocation that reproduces the run,
// what the profile says about the implementation, notes on stale
// expected-failure entries).
//
// What only the conform binary can do (load a suite with its index cache,
// find the reference or the agent double, show progress on a terminal) it
// asks of the caller through [Ports], so that a test drives the whole
// decision without a command line. Writing the report is the caller's.
package certify

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/profile"
	"github.com/conform-kit/conform/runner"
)

// RealAgentTimeout is the per-vector timeout of a run through a real agent
// (--agent) when the request sets none: the real CLI with a host takes
// seconds per vector.
const RealAgentTimeout = 60 * time.Second

// Request is one `conform run`: its flags as plain values. The zero value
// of a field is the flag's absence, except where a field says otherwise;
// the bounds (Jobs ... MaxMemory) are taken as given, so a caller fills
// them with the runner's defaults (runner.DefaultTimeout, ...).
type Request struct {
	// SuiteDir is the suite root on disk; "" is the suite the binary
	// embeds, or the one Profile names.
	SuiteDir string
	// Version is the protocol version; Role the role the IUT plays (""
	// the version's first, or the profile's). VersionGiven and RoleGiven
	// say they were given on the command line (--rerun-failed must not
	// contradict them).
	Version      int
	Role         string
	VersionGiven bool
	RoleGiven    bool
	// The implementation: Profile (a folder with profile.json) or Command
	// (argv, after --), neither for the built-in reference. Name labels a
	// Command ("" its base name).
	Profile string
	Command []string
	Name    string
	// Mode is how a host-role IUT meets the agent: "" (the profile's, or
	// direct), profile.ModeDirect or profile.ModeSpawned.
	Mode string
	// Agent plays host vectors through a real agent: "claude-code" or an
	// agent profile folder; "" the agent double.
	Agent string
	// Selection: doublestar globs of vector ids to run and to skip, levels
	// (each item may hold several, comma-separated), a JSON report whose
	// failures are rerun, and a shard "i/n".
	Filters, Skips, Levels []string
	Rerun                  string
	Shard                  string
	// Claims are the conformance classes the IUT claims (--claim; each
	// item may hold several, comma-separated), which replace the
	// profile's when ClaimsGiven; the runner refuses a name that is no
	// class of the version and role.
	Claims      []string
	ClaimsGiven bool
	// Vars set vars of the suite (--var NAME=JSON, parsed), over the
	// profile's (runner.Config.Vars).
	Vars map[string]any
	// ExpectFile is an expected-failure list that replaces the profile's.
	ExpectFile string
	// Bounds, as runner.Config has them. TimeoutGiven says Timeout was
	// given (else a profile's timeout, or RealAgentTimeout, applies).
	// Grace and Quiet are 0 when not given: the profile's, else the suite
	// version's, else runner.DefaultGrace and runner.DefaultQuiet apply;
	// Quiet runner.NoQuiet is no quiet bound.
	// Starts is runner.Config.Starts (0: one per CPU).
	Jobs, Starts                  int
	Timeout, Grace, KillAfter     time.Duration
	Quiet                         time.Duration
	TimeoutGiven                  bool
	MaxLine, StderrMax, MaxFrames int
	MaxVectorBytes, MaxProcs      int
	MaxMemory                     int64
	// InheritEnv, Exact and NoFailFast are runner.Config's.
	InheritEnv, Exact, NoFailFast bool
	// Isolate runs the IUT as IsolateUser ("uid:gid").
	Isolate     bool
	IsolateUser string
	// Invocation is what follows "run --role R --version V" in the
	// arguments that reproduce the run (report.Invocation): the other
	// flags that change results, then "--" and the IUT command. Role and
	// version are the run's, once resolved.
	Invocation []string
}

// IUT is the implementation a run tests, as the caller's
// [Ports.Configure] receives it: exactly one of Reference, Profile and
// Command is set.
type IUT struct {
	Name      string
	Reference bool
	Profile   string
	Command   []string
}

// Ports are what a run asks of the binary that runs it. LoadSuite and
// Configure are required; every other nil port has the default its
// comment gives.
type Ports struct {
	// Stderr receives notes ("conform: note: ..."); nil discards them.
	Stderr io.Writer
	// LoadSuite loads the suite at dir ("" the embedded one).
	LoadSuite func(dir string) (*runner.Suite, error)
	// SuiteOf returns the suite (a LoadSuite argument) and role the
	// profile in dir names ("" for either when it names none); nil reads
	// profile.json "suite", relative to the profile's folder, and "role".
	SuiteOf func(profileDir string) (suiteDir, role string, err error)
	// Embedded returns the suite the binary embeds, to note that a suite
	// of the same name loaded from a directory differs from it; nil: no
	// note.
	Embedded func() (*runner.Suite, error)
	// Configure sets cfg's command, environment, implementation name,
	// timeout (unless keepTimeout), spawned mode and expected failures for
	// iut, and returns its profile (nil for a command or the reference).
	Configure func(cfg *runner.Config, iut IUT, keepTimeout bool) (*profile.Profile, error)
	// AgentDouble is the agent a spawned host starts (--mode spawned);
	// nil: --mode spawned is refused.
	AgentDouble func() (*runner.Spawn, error)
	// UseAgent switches cfg to a real agent (Request.Agent) and selects
	// the vectors it can produce; AgentExpect adds the profile's expected
	// failures with that agent. nil: --agent is refused.
	UseAgent    func(cfg *runner.Config, agent string) error
	AgentExpect func(cfg *runner.Config, profileDir, agent string) error
	// Progress sets how cfg reports progress and returns the function
	// that ends it, called when the run is over; nil: none.
	Progress func(cfg *runner.Config) (stop func())
	// PreflightCache is the directory of the runner's preflight cache
	// (runner.Config.PreflightCache): a partial run reuses the preflight
	// frames an earlier run of the same IUT wrote; "" none. PreflightKit
	// identifies the running binary in its keys.
	PreflightCache, PreflightKit string
	// Run runs cfg; nil: [runner.Run].
	Run func(ctx context.Context, cfg runner.Config) (*runner.Report, error)
	// ReadFile reads the --rerun-failed report; nil: [os.ReadFile].
	ReadFile func(path string) ([]byte, error)
}

// Plan is a checked, resolved request: what [Run] runs.
type Plan struct {
	// Config is the run, its role and version resolved.
	Config runner.Config
	// Profile is the implementation's profile, nil for a command or the
	// reference; Reference is set for the built-in reference.
	Profile   *profile.Profile
	Reference bool
	// Nothing is set when --rerun-failed found nothing to rerun: there is
	// no run, and the command passes (a note on Ports.Stderr says why).
	Nothing bool
}

// Run prepares req ([Prepare]) and runs it, and completes the report
// ([Complete]). It returns the plan and the report; a nil report with a
// nil error is a plan with Nothing to run. Errors: those of Prepare and
// of runner.Run (USAGE, FILTER_NO_MATCH, IUT_START, ...); a run whose ctx
// is cancelled returns its report with Interrupted set, no error.
func Run(ctx context.Context, req Request, p Ports) (*Plan, *runner.Report, error) {
	plan, err := Prepare(req, p)
	if err != nil || plan.Nothing {
		return plan, nil, err
	}
	stop := func() {}
	if p.Progress != nil {
		stop = p.Progress(&plan.Config)
	}
	run := p.Run
	if run == nil {
		run = runner.Run
	}
	rep, err := run(ctx, plan.Config)
	stop()
	if err != nil {
		return plan, nil, err
	}
	Complete(rep, plan, req, p.Stderr)
	return plan, rep, nil
}

// Prepare checks req ([Check]), loads the suite, and resolves the role,
// version and selection ([resolve]) and the implementation ([configure]).
// Errors: USAGE (a flag that contradicts another or the suite), those of
// the suite's loading, of the profile (PROFILE_INVALID,
// EXPECT_FILE_INVALID), of the --rerun-failed report (PATH_NOT_FOUND,
// REPORT_INVALID) and of the ports (IUT_START, FILTER_NO_MATCH).
func Prepare(req Request, p Ports) (*Plan, error) {
	if err := Check(req); err != nil {
		return nil, err
	}
	plan := &Plan{}
	s, err := resolve(&req, p, plan)
	if err != nil || plan.Nothing {
		return plan, err
	}
	return plan, configure(req, p, s, plan)
}

// Check refuses a request whose flags make no sense by themselves or
// together (USAGE): bounds that are not positive ([Bounds]), an empty
// level item, --name with a profile, --rerun-failed with --filter, an
// unknown --mode, --mode with a profile, a profile and a command, --name
// or --mode spawned without a command.
func Check(req Request) error {
	grace := req.Grace
	if grace == 0 {
		grace = runner.DefaultGrace // not given: the profile's or the suite's, checked where they are read
	}
	if msg := Bounds(req.Jobs, req.Timeout, grace, req.KillAfter, req.MaxLine, req.StderrMax, req.MaxFrames); msg != "" {
		return kiterr.New(kiterr.Usage, "%s", msg)
	}
	if _, err := splitList("--level", req.Levels); err != nil {
		return err
	}
	if _, err := splitList("--claim", req.Claims); err != nil {
		return err
	}
	switch {
	case req.MaxVectorBytes <= 0:
		return kiterr.New(kiterr.Usage, "--max-vector-bytes must be positive")
	case req.MaxProcs <= 0:
		return kiterr.New(kiterr.Usage, "--max-procs must be positive")
	case req.Name != "" && req.Profile != "":
		return kiterr.New(kiterr.Usage, "--name names an IUT command given after --; a profile names its implementation (%s)", filepath.Join(req.Profile, "profile.json"))
	case req.Rerun != "" && len(req.Filters) > 0:
		return kiterr.New(kiterr.Usage, "give --rerun-failed or --filter, not both (--skip and --level narrow either)")
	}
	return checkIUT(req)
}

// checkIUT is the part of [Check] about the implementation and its mode.
func checkIUT(req Request) error {
	profileFile := filepath.Join(req.Profile, "profile.json")
	switch {
	case req.Mode != "" && req.Mode != profile.ModeDirect && req.Mode != profile.ModeSpawned:
		return kiterr.New(kiterr.Usage, "--mode must be %s or %s", profile.ModeDirect, profile.ModeSpawned)
	case req.Mode != "" && req.Profile != "":
		// The mode is part of what a profile certifies.
		return kiterr.New(kiterr.Usage, "--mode comes from the profile (%s); give --mode only with an IUT command after --", profileFile)
	case req.Profile != "" && len(req.Command) > 0:
		// A profile names one IUT (its command, env, timeout and expected
		// failures); certifying another command under its name would be a
		// false certificate.
		return kiterr.New(kiterr.Usage, "give --profile or an IUT command after --, not both (the profile's command is in %s)", profileFile)
	case req.Name != "" && len(req.Command) == 0:
		return kiterr.New(kiterr.Usage, "--name names an IUT command given after --")
	}
	return nil
}

// resolve loads the suite (the request's, else the one the profile
// names) and sets req's role and version: the profile's role, a
// --rerun-failed report's role, version and failures (as Filters), the
// version's first role. It notes when a suite directory differs from the
// embedded suite of the same name. plan.Nothing is set when there is
// nothing to rerun.
func resolve(req *Request, p Ports, plan *Plan) (*runner.Suite, error) {
	if req.Profile != "" {
		// A profile names the suite it is certified against, and its role.
		dir, role, err := suiteOf(p)(req.Profile)
		if err != nil {
			return nil, err
		}
		if req.SuiteDir == "" {
			req.SuiteDir = dir
		}
		if req.Role == "" {
			req.Role = role
		}
	}
	s, err := p.LoadSuite(req.SuiteDir)
	if err != nil {
		return nil, err
	}
	if req.Rerun != "" {
		sel := Selection{Role: req.Role, Version: req.Version, RoleGiven: req.RoleGiven, VersionGiven: req.VersionGiven}
		again, err := Rerun(stderrOf(p), s, req.Rerun, p.ReadFile, &sel)
		if err != nil {
			return nil, err
		}
		if len(again) == 0 {
			fmt.Fprintf(stderrOf(p), "conform run: nothing to rerun: %s has no failed, unexpectedly passing, invalid or unrun required or recommended vector\n", req.Rerun)
			plan.Nothing = true
			return s, nil
		}
		req.Filters, req.Role, req.Version = again, sel.Role, sel.Version
	}
	if req.Role, err = ResolveRole(s, req.Version, req.Role); err != nil {
		return nil, kiterr.New(kiterr.Usage, "%v", err)
	}
	if req.SuiteDir != "" {
		noteDigest(stderrOf(p), p.Embedded, s)
	}
	return s, nil
}

// configure builds plan.Config from req and the suite s: the selection,
// the bounds, isolation and shard, then the implementation through the
// ports (its profile, the spawned agent double, a real agent) and the
// expected failures (--expect-fail replaces the profile's list).
func configure(req Request, p Ports, s *runner.Suite, plan *Plan) error {
	if req.Mode == profile.ModeSpawned && req.Role != "host" {
		return kiterr.New(kiterr.Usage, "--mode spawned needs --role host (the IUT is a host that starts the agent)")
	}
	if req.Mode == profile.ModeSpawned && len(req.Command) == 0 {
		return kiterr.New(kiterr.Usage, "--mode spawned needs the host's command after -- (the reference host is direct only)")
	}
	lv, _ := splitList("--level", req.Levels)
	cfg := runner.Config{
		Suite: s, Version: req.Version, Role: req.Role, Filters: req.Filters, Skip: req.Skips, Levels: lv, Jobs: req.Jobs, Starts: req.Starts,
		Timeout: req.Timeout, Grace: req.Grace, Quiet: req.Quiet, KillAfter: req.KillAfter, MaxLine: req.MaxLine,
		StderrMax: req.StderrMax, MaxFrames: req.MaxFrames, MaxVectorBytes: req.MaxVectorBytes, InheritEnv: req.InheritEnv,
		Exact: req.Exact, NoFailFast: req.NoFailFast, MaxProcs: req.MaxProcs, MaxMemory: req.MaxMemory,
	}
	if req.Isolate {
		iso, msg := Isolation(req.IsolateUser)
		if msg != "" {
			return kiterr.New(kiterr.Usage, "%s", msg)
		}
		cfg.Isolate = iso
	}
	if req.Shard != "" {
		sh, err := runner.ParseShard(req.Shard)
		if err != nil {
			return kiterr.New(kiterr.Usage, "--shard: %s", strings.TrimPrefix(err.Error(), string(kiterr.Usage)+": "))
		}
		cfg.Shard = &sh
	}
	iut := IUT{Name: req.Name, Profile: req.Profile, Command: req.Command}
	iut.Reference = iut.Profile == "" && len(iut.Command) == 0
	plan.Reference = iut.Reference
	var err error
	if plan.Profile, err = p.Configure(&cfg, iut, req.TimeoutGiven); err != nil {
		return err
	}
	if req.ClaimsGiven {
		cfg.Claims, _ = splitList("--claim", req.Claims)
	}
	if len(req.Vars) > 0 {
		vars := maps.Clone(cfg.Vars)
		if vars == nil {
			vars = map[string]any{}
		}
		maps.Copy(vars, req.Vars)
		cfg.Vars = vars
	}
	if err := configureAgent(&cfg, req, p); err != nil {
		return err
	}
	if p.PreflightCache != "" && req.Agent == "" {
		cfg.PreflightCache = p.PreflightCache
		cfg.IUTDigest = iutDigest(p.PreflightKit, req.Profile)
		stderr := stderrOf(p)
		cfg.Note = func(msg string) { fmt.Fprintf(stderr, "conform: note: %s\n", msg) }
	}
	plan.Config = cfg
	return nil
}

// configureAgent sets what plays the agent for a host: the agent double
// for --mode spawned, a real agent for --agent (with its timeout unless
// one was given, and the profile's expected failures with that agent),
// and reads --expect-fail.
func configureAgent(cfg *runner.Config, req Request, p Ports) error {
	if req.Mode == profile.ModeSpawned {
		if p.AgentDouble == nil {
			return kiterr.New(kiterr.Usage, "--mode spawned is not available here")
		}
		spawn, err := p.AgentDouble()
		if err != nil {
			return err
		}
		cfg.Spawn = spawn
	}
	if req.Agent != "" {
		if p.UseAgent == nil || p.AgentExpect == nil {
			return kiterr.New(kiterr.Usage, "--agent is not available here")
		}
		if err := p.UseAgent(cfg, req.Agent); err != nil {
			return err
		}
		if !req.TimeoutGiven {
			cfg.Timeout = RealAgentTimeout
		}
	}
	if req.ExpectFile != "" {
		ef, err := profile.ReadExpectFail(req.ExpectFile)
		if err != nil {
			return err
		}
		cfg.ExpectFail = ef
	}
	if req.Agent != "" && req.Profile != "" {
		return p.AgentExpect(cfg, req.Profile, req.Agent)
	}
	return nil
}

// Complete fills in what a run's report says beyond the runner's results:
// the invocation that reproduces it ("run", "--role", R, "--version", V,
// then req.Invocation), what the profile says about the implementation
// ([Describe]) or, for the reference run with the agent double, what the
// reference is ([DescribeReference]); and it notes on stderr (nil: none)
// each stale expected-failure entry that looks like a vector id of the
// run, with a "did you mean".
func Complete(rep *runner.Report, plan *Plan, req Request, stderr io.Writer) {
	cfg := plan.Config
	rep.Invocation = append([]string{"run", "--role", cfg.Role, "--version", strconv.Itoa(cfg.Version)}, req.Invocation...)
	Describe(rep, plan.Profile)
	if plan.Reference && req.Agent == "" {
		DescribeReference(rep)
	}
	if stderr == nil {
		return
	}
	for _, id := range rep.Stale {
		if hint := SuggestID(cfg.Suite, cfg.Role, cfg.Version, id); hint != "" {
			fmt.Fprintf(stderr, "conform: note: stale expected-failure entry %q%s\n", id, hint)
		}
	}
}

// suiteOf is p.SuiteOf, or the reading of profile.json it defaults to.
func suiteOf(p Ports) func(string) (string, string, error) {
	if p.SuiteOf != nil {
		return p.SuiteOf
	}
	return func(dir string) (string, string, error) {
		prf, err := profile.Load(dir)
		if err != nil {
			return "", "", err
		}
		suiteDir := ""
		if prf.Suite != "" {
			suiteDir = filepath.Join(prf.Dir, filepath.FromSlash(prf.Suite))
		}
		return suiteDir, prf.Role, nil
	}
}

// stderrOf is p.Stderr, or a writer that discards.
func stderrOf(p Ports) io.Writer {
	if p.Stderr == nil {
		return io.Discard
	}
	return p.Stderr
}

// readFileOf is read, or os.ReadFile.
func readFileOf(read func(string) ([]byte, error)) func(string) ([]byte, error) {
	if read == nil {
		return os.ReadFile
	}
	return read
}
