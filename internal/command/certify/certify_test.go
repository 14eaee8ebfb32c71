package certify_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/command/certify"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/profile"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/runner"
)

// embedded opens the suite the kit embeds.
func embedded(t *testing.T) *runner.Suite {
	t.Helper()
	s, err := runner.Open(conform.Suite())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// request is a valid request with the runner's default bounds.
func request() certify.Request {
	return certify.Request{
		Version: 1, Timeout: runner.DefaultTimeout, Grace: runner.DefaultGrace, KillAfter: runner.DefaultKillAfter,
		MaxLine: runner.DefaultMaxLine, StderrMax: runner.DefaultStderrMax, MaxFrames: runner.DefaultMaxFrames,
		MaxVectorBytes: runner.DefaultMaxVectorBytes, MaxProcs: 64, IsolateUser: "65533:65533",
	}
}

// fake records what a run asked of its ports.
type fake struct {
	suite      *runner.Suite
	dirs       []string // LoadSuite's arguments
	iut        certify.IUT
	keep       bool
	profile    *profile.Profile
	usedAgent  string
	expectWith [2]string
	stderr     bytes.Buffer
	ran        *runner.Config
}

func (f *fake) ports() certify.Ports {
	return certify.Ports{
		Stderr: &f.stderr,
		LoadSuite: func(dir string) (*runner.Suite, error) {
			f.dirs = append(f.dirs, dir)
			return f.suite, nil
		},
		Configure: func(cfg *runner.Config, iut certify.IUT, keep bool) (*profile.Profile, error) {
			f.iut, f.keep = iut, keep
			cfg.Command, cfg.Implementation = []string{"iut"}, "iut"
			if f.profile != nil {
				cfg.ExpectFail = map[string]string{"from-profile": "r"}
				cfg.Claims = f.profile.Claims
			}
			return f.profile, nil
		},
		AgentDouble: func() (*runner.Spawn, error) { return &runner.Spawn{Argv: []string{"double"}}, nil },
		UseAgent: func(cfg *runner.Config, agent string) error {
			f.usedAgent = agent
			return nil
		},
		AgentExpect: func(cfg *runner.Config, prof, agent string) error {
			f.expectWith = [2]string{prof, agent}
			return nil
		},
		Run: func(ctx context.Context, cfg runner.Config) (*runner.Report, error) {
			f.ran = &cfg
			rep := &runner.Report{
				Suite:          runner.SuiteInfo{Name: cfg.Suite.Manifest.Name, Version: cfg.Version, Role: cfg.Role, Digest: cfg.Suite.Digest},
				Implementation: runner.Implementation{Name: cfg.Implementation, Command: cfg.Command},
			}
			for id := range cfg.ExpectFail {
				rep.Stale = append(rep.Stale, id)
			}
			slices.Sort(rep.Stale)
			rep.Recount()
			return rep, nil
		},
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(*certify.Request)
		want string // "" passes; else a substring of the USAGE error
	}{
		{"valid", func(*certify.Request) {}, ""},
		{"negative jobs", func(r *certify.Request) { r.Jobs = -1 }, "-j must be 0"},
		{"zero timeout", func(r *certify.Request) { r.Timeout = 0 }, "must be positive durations"},
		{"zero max-line", func(r *certify.Request) { r.MaxLine = 0 }, "--max-line, --stderr-max and --max-frames must be positive"},
		{"zero vector budget", func(r *certify.Request) { r.MaxVectorBytes = 0 }, "--max-vector-bytes must be positive"},
		{"zero procs", func(r *certify.Request) { r.MaxProcs = 0 }, "--max-procs must be positive"},
		{"empty level item", func(r *certify.Request) { r.Levels = []string{"required,,informational"} }, `--level: empty item in "required,,informational"`},
		{"empty claim item", func(r *certify.Request) { r.Claims, r.ClaimsGiven = []string{"core,"}, true }, `--claim: empty item in "core,"`},
		{"name with profile", func(r *certify.Request) { r.Name, r.Profile = "x", "impl/x" }, "--name names an IUT command given after --; a profile names its implementation"},
		{"rerun with filter", func(r *certify.Request) { r.Rerun, r.Filters = "r.json", []string{"a*"} }, "give --rerun-failed or --filter, not both"},
		{"unknown mode", func(r *certify.Request) { r.Mode = "sideways" }, "--mode must be direct or spawned"},
		{"mode with profile", func(r *certify.Request) { r.Mode, r.Profile = "direct", "impl/x" }, "--mode comes from the profile"},
		{"profile and command", func(r *certify.Request) { r.Profile, r.Command = "impl/x", []string{"./iut"} }, "give --profile or an IUT command after --, not both"},
		{"name without command", func(r *certify.Request) { r.Name = "x" }, "--name names an IUT command given after --"},
		{"name with command", func(r *certify.Request) { r.Name, r.Command = "x", []string{"./iut"} }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := request()
			tt.edit(&req)
			err := certify.Check(req)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Check: %v, want nil", err)
				}
				return
			}
			if kiterr.CodeOf(err) != kiterr.Usage || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Check: %v, want USAGE with %q", err, tt.want)
			}
		})
	}
}

func TestPrepareReference(t *testing.T) {
	t.Parallel()
	f := &fake{suite: embedded(t)}
	req := request()
	req.Levels = []string{"required, recommended", "required"}
	plan, err := certify.Prepare(req, f.ports())
	if err != nil {
		t.Fatal(err)
	}
	if !plan.Reference || !f.iut.Reference || plan.Profile != nil {
		t.Errorf("reference run: plan.Reference %v, iut %+v, profile %v", plan.Reference, f.iut, plan.Profile)
	}
	cfg := plan.Config
	if cfg.Role != "agent" || cfg.Version != 1 {
		t.Errorf("role and version %q v%d, want the version's first role, agent v1", cfg.Role, cfg.Version)
	}
	if diff := cmp.Diff([]string{"required", "recommended"}, cfg.Levels); diff != "" {
		t.Errorf("levels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{""}, f.dirs); diff != "" {
		t.Errorf("suites loaded (-want +got):\n%s", diff)
	}
	if f.keep || cfg.Spawn != nil || f.usedAgent != "" {
		t.Errorf("keepTimeout %v, spawn %v, agent %q: want none", f.keep, cfg.Spawn, f.usedAgent)
	}
}

func TestPrepareRefuses(t *testing.T) {
	t.Parallel()
	s := embedded(t)
	tests := []struct {
		name string
		edit func(*certify.Request)
		code kiterr.Code
		want string
	}{
		{"unknown role", func(r *certify.Request) { r.Role = "banana" }, kiterr.Usage, `--role "banana" is not a role of suite version 1 (agent, host)`},
		{"spawned agent role", func(r *certify.Request) { r.Mode, r.Command = "spawned", []string{"./h"} }, kiterr.Usage, "--mode spawned needs --role host"},
		{"spawned without command", func(r *certify.Request) { r.Mode, r.Role = "spawned", "host" }, kiterr.Usage, "--mode spawned needs the host's command after --"},
		{"bad shard", func(r *certify.Request) { r.Shard = "0/3" }, kiterr.Usage, `--shard: shard "0/3"`},
		{"missing expect file", func(r *certify.Request) { r.ExpectFile = filepath.Join(t.TempDir(), "none.txt") }, kiterr.ExpectFileInvalid, ""},
		{"missing profile", func(r *certify.Request) { r.Profile = filepath.Join(t.TempDir(), "none") }, kiterr.ProfileInvalid, ""},
		{"missing rerun report", func(r *certify.Request) { r.Rerun = filepath.Join(t.TempDir(), "none.json") }, kiterr.PathNotFound, "--rerun-failed report"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &fake{suite: s}
			req := request()
			tt.edit(&req)
			_, err := certify.Prepare(req, f.ports())
			if kiterr.CodeOf(err) != tt.code || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Prepare: %v, want %s with %q", err, tt.code, tt.want)
			}
		})
	}
}

// writeProfile writes a profile folder naming suite and role, with an
// expected-failure list, and returns its path.
func writeProfile(t *testing.T, suiteDir, role string) string {
	t.Helper()
	dir := t.TempDir()
	js := `{"name": "tiny", "command": ["tiny"], "version": "0.4", "language": "Python", "source": "https://example.org/tiny",` +
		` "issues": "https://example.org/tiny/issues", "suite": "` + suiteDir + `", "role": "` + role + `"}`
	if err := os.WriteFile(filepath.Join(dir, "profile.json"), []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPrepareSuiteOfPort(t *testing.T) {
	t.Parallel()
	f := &fake{suite: embedded(t)}
	p := f.ports()
	p.SuiteOf = func(dir string) (string, string, error) { return "mcp", "server-" + dir, nil }
	req := request()
	req.Profile = "x"
	if _, err := certify.Prepare(req, p); err == nil || !strings.Contains(err.Error(), `--role "server-x"`) {
		t.Errorf("Prepare: %v, want the role the SuiteOf port gives, refused by the suite", err)
	}
	if diff := cmp.Diff([]string{"mcp"}, f.dirs); diff != "" {
		t.Errorf("suites loaded (-want +got):\n%s", diff)
	}
}

func TestRerunReaderCode(t *testing.T) {
	t.Parallel()
	sel := certify.Selection{Version: 1}
	coded := func(string) ([]byte, error) { return nil, kiterr.New(kiterr.IO, "too large") }
	if _, err := certify.Rerun(nil, embedded(t), "r.json", coded, &sel); kiterr.CodeOf(err) != kiterr.IO {
		t.Errorf("a reader's own code: %v, want IO kept", err)
	}
	plain := func(string) ([]byte, error) { return nil, errors.New("no such file") }
	if _, err := certify.Rerun(nil, embedded(t), "r.json", plain, &sel); kiterr.CodeOf(err) != kiterr.PathNotFound {
		t.Errorf("a plain read error: %v, want PATH_NOT_FOUND", err)
	}
}

func TestPrepareProfileNamesSuiteAndRole(t *testing.T) {
	t.Parallel()
	dir := writeProfile(t, "suites/x", "host")
	f := &fake{suite: embedded(t)}
	req := request()
	req.Profile = dir
	plan, err := certify.Prepare(req, f.ports())
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "suites", "x"); len(f.dirs) != 1 || f.dirs[0] != want {
		t.Errorf("suite loaded from %q, want the profile's %q", f.dirs, want)
	}
	if plan.Config.Role != "host" || plan.Reference || f.iut.Profile != dir {
		t.Errorf("role %q, reference %v, iut %+v: want the profile's host role", plan.Config.Role, plan.Reference, f.iut)
	}
	// A --suite and a --role given win over the profile's.
	req.SuiteDir, req.Role = "given", "agent"
	f.dirs = nil
	if plan, err = certify.Prepare(req, f.ports()); err != nil {
		t.Fatal(err)
	}
	if f.dirs[0] != "given" || plan.Config.Role != "agent" {
		t.Errorf("suite %q role %q, want the flags' given, agent", f.dirs[0], plan.Config.Role)
	}
}

func TestPrepareAgents(t *testing.T) {
	t.Parallel()
	s := embedded(t)
	expect := filepath.Join(t.TempDir(), "expect.txt")
	if err := os.WriteFile(expect, []byte("from-flag # reason\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prof := writeProfile(t, "", "host")

	// Spawned: the agent double.
	f := &fake{suite: s}
	req := request()
	req.Mode, req.Role, req.Command = profile.ModeSpawned, "host", []string{"./host"}
	plan, err := certify.Prepare(req, f.ports())
	if err != nil {
		t.Fatal(err)
	}
	if plan.Config.Spawn == nil || plan.Config.Spawn.Argv[0] != "double" {
		t.Errorf("spawned: Spawn %+v, want the agent double", plan.Config.Spawn)
	}

	// A real agent: its timeout unless one is given, the profile's
	// expectations with it, and --expect-fail replacing the profile's list.
	f = &fake{suite: s, profile: &profile.Profile{Name: "tiny"}}
	req = request()
	req.Profile, req.Agent, req.ExpectFile = prof, "claude-code", expect
	if plan, err = certify.Prepare(req, f.ports()); err != nil {
		t.Fatal(err)
	}
	if f.usedAgent != "claude-code" || f.expectWith != [2]string{prof, "claude-code"} {
		t.Errorf("agent %q, expectations %q: want claude-code for %s", f.usedAgent, f.expectWith, prof)
	}
	if plan.Config.Timeout != certify.RealAgentTimeout {
		t.Errorf("timeout %v, want %v", plan.Config.Timeout, certify.RealAgentTimeout)
	}
	if diff := cmp.Diff(map[string]string{"from-flag": "reason"}, plan.Config.ExpectFail); diff != "" {
		t.Errorf("expected failures (-want +got):\n%s", diff)
	}
	req.TimeoutGiven, req.Timeout = true, 7*time.Second
	if plan, err = certify.Prepare(req, f.ports()); err != nil {
		t.Fatal(err)
	}
	if plan.Config.Timeout != 7*time.Second || !f.keep {
		t.Errorf("timeout %v (keep %v), want the given 7s", plan.Config.Timeout, f.keep)
	}

	// Without the ports, --agent and --mode spawned are refused.
	p := f.ports()
	p.UseAgent, p.AgentDouble = nil, nil
	if _, err := certify.Prepare(req, p); kiterr.CodeOf(err) != kiterr.Usage {
		t.Errorf("--agent without its port: %v, want USAGE", err)
	}
}

// savedReport writes a JSON report of s's agent role, v1, in which ids
// failed, and returns its path.
func savedReport(t *testing.T, s *runner.Suite, ids ...string) string {
	t.Helper()
	rep := &runner.Report{Suite: runner.SuiteInfo{Name: s.Manifest.Name, Version: 1, Role: "agent", Digest: s.Digest},
		Implementation: runner.Implementation{Name: "x", Command: []string{"x"}}}
	rep.Results = append(rep.Results, runner.Result{ID: "initialize-minimal", Level: "required", Status: runner.Pass})
	for _, id := range ids {
		rep.Results = append(rep.Results, runner.Result{ID: id, Level: "required", Status: runner.Fail,
			Findings: []runner.Finding{{Code: "GOLDEN_MISMATCH", Status: runner.Fail, Message: "differs"}}})
	}
	rep.Recount()
	var b bytes.Buffer
	if err := report.JSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPrepareRerun(t *testing.T) {
	t.Parallel()
	s := embedded(t)
	failed := savedReport(t, s, "interrupt-idle", "no-such-vector")
	f := &fake{suite: s}
	req := request()
	req.Rerun, req.Role = failed, "host" // the report's role wins over a default
	plan, err := certify.Prepare(req, f.ports())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"interrupt-idle"}, plan.Config.Filters); diff != "" {
		t.Errorf("rerun filters (-want +got):\n%s", diff)
	}
	if plan.Config.Role != "agent" {
		t.Errorf("role %q, want the report's agent", plan.Config.Role)
	}
	if !strings.Contains(f.stderr.String(), `names vector "no-such-vector", which this suite has not`) {
		t.Errorf("stderr %q: want a note on the vector the suite has not", f.stderr.String())
	}

	req.RoleGiven = true
	if _, err := certify.Prepare(req, f.ports()); kiterr.CodeOf(err) != kiterr.Usage || !strings.Contains(err.Error(), "is a report of the agent role") {
		t.Errorf("--role contradicting the report: %v, want USAGE", err)
	}

	f = &fake{suite: s}
	req = request()
	req.Rerun = savedReport(t, s)
	plan, err = certify.Prepare(req, f.ports())
	if err != nil || !plan.Nothing {
		t.Fatalf("nothing to rerun: plan %+v, err %v", plan, err)
	}
	if !strings.Contains(f.stderr.String(), "nothing to rerun") {
		t.Errorf("stderr %q: want the nothing-to-rerun note", f.stderr.String())
	}
	ran := false
	p := f.ports()
	p.Run = func(context.Context, runner.Config) (*runner.Report, error) {
		ran = true
		return nil, errors.New("ran")
	}
	if _, rep, err := certify.Run(context.Background(), req, p); rep != nil || err != nil || ran {
		t.Errorf("Run with nothing to rerun: report %v, err %v, ran %v: want no run", rep, err, ran)
	}
}

func TestPrepareNotesDigest(t *testing.T) {
	t.Parallel()
	s := embedded(t)
	other := *s
	other.Digest = "sha256:0000"
	f := &fake{suite: &other}
	p := f.ports()
	p.Embedded = func() (*runner.Suite, error) { return s, nil }
	req := request()
	if _, err := certify.Prepare(req, p); err != nil {
		t.Fatal(err)
	}
	if f.stderr.Len() != 0 {
		t.Errorf("the embedded suite: note %q, want none", f.stderr.String())
	}
	req.SuiteDir = "copy"
	if _, err := certify.Prepare(req, p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.stderr.String(), "this suite (sha256:0000) differs from the suite embedded") {
		t.Errorf("stderr %q: want the digest note", f.stderr.String())
	}
}

func TestRunCompletesReport(t *testing.T) {
	t.Parallel()
	s := embedded(t)
	prof := writeProfile(t, "", "")
	p, err := profile.Load(prof)
	if err != nil {
		t.Fatal(err)
	}
	f := &fake{suite: s, profile: p}
	req := request()
	req.Profile = prof
	req.Invocation = []string{"--profile", prof}
	req.ExpectFile = filepath.Join(t.TempDir(), "x.txt")
	if err := os.WriteFile(req.ExpectFile, []byte("interupt-idle # typo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stopped := false
	ports := f.ports()
	ports.Progress = func(cfg *runner.Config) func() {
		return func() { stopped = true }
	}
	_, rep, err := certify.Run(context.Background(), req, ports)
	if err != nil {
		t.Fatal(err)
	}
	if !stopped {
		t.Error("progress was not stopped")
	}
	if diff := cmp.Diff([]string{"run", "--role", "agent", "--version", "1", "--profile", prof}, rep.Invocation); diff != "" {
		t.Errorf("invocation (-want +got):\n%s", diff)
	}
	im := rep.Implementation
	if im.Version != "0.4" || im.Language != "Python" || im.Source != "https://example.org/tiny" || im.Issues != "https://example.org/tiny/issues" {
		t.Errorf("implementation %+v: want the profile's description", im)
	}
	if !strings.Contains(f.stderr.String(), `stale expected-failure entry "interupt-idle" (did you mean "interrupt-idle"?)`) {
		t.Errorf("stderr %q: want the stale entry's suggestion", f.stderr.String())
	}

	// The reference describes itself; a run error is returned.
	f = &fake{suite: s}
	_, rep, err = certify.Run(context.Background(), request(), f.ports())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Implementation.Language != "Go" || !strings.HasSuffix(rep.Implementation.Source, "/reference") {
		t.Errorf("reference described as %+v", rep.Implementation)
	}
	ports = f.ports()
	ports.Run = func(context.Context, runner.Config) (*runner.Report, error) {
		return nil, kiterr.New(kiterr.IUTStart, "cannot start")
	}
	if _, _, err := certify.Run(context.Background(), request(), ports); kiterr.CodeOf(err) != kiterr.IUTStart {
		t.Errorf("run error: %v, want IUT_START", err)
	}
}

func TestIsolationUser(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		user string
		ok   bool
	}{
		{"65533:65533", true}, {"1000:1000", true},
		{"0:1", false}, {"1:0", false}, {"4294967295:1", false}, {"65533", false}, {"a:b", false}, {"-1:5", false},
	} {
		iso, msg := certify.ParseIsolateUser(tt.user)
		if (msg == "") != tt.ok || (iso != nil) != tt.ok {
			t.Errorf("ParseIsolateUser(%q) = %+v, %q; want ok %v", tt.user, iso, msg, tt.ok)
		}
	}
}

func TestPrepareClaims(t *testing.T) {
	t.Parallel()
	f := &fake{suite: embedded(t), profile: &profile.Profile{Name: "tiny", Claims: []string{"core"}}}
	req := request()
	req.Profile = writeProfile(t, "", "")
	plan, err := certify.Prepare(req, f.ports())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"core"}, plan.Config.Claims); diff != "" {
		t.Errorf("the profile's claims (-want +got):\n%s", diff)
	}
	req.Claims, req.ClaimsGiven = []string{"core, tools", "tools"}, true
	if plan, err = certify.Prepare(req, f.ports()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"core", "tools"}, plan.Config.Claims); diff != "" {
		t.Errorf("--claim replaces the profile's claims (-want +got):\n%s", diff)
	}
}
