package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/cliplay"
	"github.com/conform-kit/conform/internal/double"
	"github.com/conform-kit/conform/internal/drift"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/profile"
	"github.com/conform-kit/conform/internal/suite"
	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/runner"
)

// agentProfileDir resolves --agent: "claude-code" is impl/claude-code
// (relative to the working directory, as README's commands are run from
// the repository root); anything else is a profile directory of an agent
// (a CLI release).
func agentProfileDir(agent string) string {
	if agent == "claude-code" {
		return filepath.Join("impl", "claude-code")
	}
	return agent
}

// loadAgent loads the profile of the real CLI used as the agent. Errors:
// PROFILE_INVALID, IUT_START when its command is not installed.
func loadAgent(dir string) (*profile.Profile, error) {
	p, err := profile.Load(dir)
	if err != nil {
		return nil, err
	}
	if _, err := exec.LookPath(p.Command[0]); err != nil {
		return nil, kiterr.New(kiterr.IUTStart, "%s is not installed; run %s first", p.Command[0], filepath.Join(p.Dir, p.Install))
	}
	return p, nil
}

// cliEnv is the real CLI's environment: base, then the agent profile's env
// (ANTHROPIC_API_KEY, DISABLE_*, ...); the tap adds ANTHROPIC_BASE_URL.
func cliEnv(base []string, p *profile.Profile, home string) []string {
	m := map[string]string{}
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	for k, v := range p.Env {
		m[k] = strings.ReplaceAll(v, "${HOME}", home)
	}
	delete(m, "ANTHROPIC_BASE_URL")
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// cmdAgentTap is the hidden "agent-tap" command: the agent of spawned host
// runs with --agent (runner.Config.Spawn). The host starts it as it would
// start the CLI; it plays the vector of the runner's plan through the real
// CLI at --cli (with the --env variables of its profile, resolved by the
// caller) and the Messages-API stand-in (internal/cliplay.Tap),
// writing the host's answers to --transcript and the host's own requests to
// --observed, as the agent double does. Flags it does not know are the
// host's flags for the CLI and are passed on. Exit status: the CLI's; 2 for
// a bad plan or profile; 3 when the CLI cannot be started or the vector
// cannot be played.
func cmdAgentTap(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var cliPath, planPath, transcriptPath, observedPath, argvPath, endPath string
	var cliArgs []string
	env := map[string]string{}
	for i := 0; i < len(args); i++ {
		var dst *string
		switch args[i] {
		case "--cli":
			dst = &cliPath
		case "--plan":
			dst = &planPath
		case "--transcript":
			dst = &transcriptPath
		case "--observed":
			dst = &observedPath
		case "--argv":
			dst = &argvPath
		case "--end":
			dst = &endPath
		case "--max-line":
			// The double's line bound; the CLI applies its own.
			i++
			continue
		case "--":
			// The runner's options end here; the host's argv for the CLI
			// follows.
			cliArgs = append(cliArgs, args[i+1:]...)
			i = len(args)
			continue
		case "--env":
			if i+1 >= len(args) || !strings.Contains(args[i+1], "=") {
				return usageError(stderr, "agent-tap", "--env needs NAME=VALUE")
			}
			k, v, _ := strings.Cut(args[i+1], "=")
			env[k] = v
			i++
			continue
		default:
			cliArgs = append(cliArgs, args[i])
			continue
		}
		if i+1 >= len(args) {
			return usageError(stderr, "agent-tap", "%s needs a value", args[i])
		}
		*dst = args[i+1]
		i++
	}
	if cliPath == "" || planPath == "" || transcriptPath == "" || observedPath == "" {
		fmt.Fprintln(stderr, "usage: conform agent-tap --cli PATH [--env NAME=VALUE...] --plan FILE --transcript FILE --observed FILE [--argv FILE] [--end FILE] [CLI flags...]")
		return exitUsage
	}
	if argvPath != "" {
		// The runner's session records, as the agent double keeps them.
		if err := double.RecordArgv(argvPath, cliArgs); err != nil {
			fmt.Fprintf(stderr, "conform agent-tap: %v\n", err)
			return exitBroken
		}
	}
	prof := &profile.Profile{Command: []string{cliPath}, Env: env}
	pl, err := double.ReadPlan(planPath)
	if err != nil {
		fmt.Fprintf(stderr, "conform agent-tap: %v\n", err)
		return exitUsage
	}
	send := make([][]byte, len(pl.Send))
	for i, s := range pl.Send {
		send[i], _ = base64.StdEncoding.DecodeString(s) // checked by ReadPlan
	}
	play, err := cliplay.Derive(send, []byte(os.Getenv("CONFORM_POLICY")))
	if err != nil {
		fmt.Fprintf(stderr, "conform agent-tap: the real CLI cannot play this vector: %v\n", err)
		return exitBroken
	}
	open := func(p string) (*os.File, error) {
		return os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	}
	tf, err := open(transcriptPath)
	if err != nil {
		fmt.Fprintf(stderr, "conform agent-tap: %v\n", err)
		return exitBroken
	}
	defer tf.Close()
	of, err := open(observedPath)
	if err != nil {
		fmt.Fprintf(stderr, "conform agent-tap: %v\n", err)
		return exitBroken
	}
	defer of.Close()
	timeout := time.Duration(pl.TimeoutMS) * time.Millisecond
	if timeout <= 0 {
		timeout = runner.DefaultTimeout
	}
	// Leave the runner a margin, as the double does, so a missing reply
	// ends the session before the runner gives up on the host.
	timeout -= min(timeout/5, 2*time.Second)
	wd, _ := os.Getwd()
	obs, err := cliplay.Tap(ctx, cliplay.TapConfig{
		Play: play, CLI: append([]string{prof.Command[0]}, cliArgs...), Env: cliEnv(os.Environ(), prof, os.Getenv("HOME")), Dir: wd,
		HostIn: stdin, HostOut: stdout, Transcript: tf, Observed: of, Stderr: stderr, Timeout: timeout,
	})
	if err != nil {
		fmt.Fprintf(stderr, "conform agent-tap: %v\n", err)
		return exitBroken
	}
	for i, s := range obs.Sent {
		if s == nil {
			fmt.Fprintf(stderr, "conform agent-tap: the CLI never sent the request standing for send[%d]\n", i)
		}
	}
	if endPath != "" {
		// The session ran: the runner judges the replies it saw in the
		// transcript; one it waits for in vain is a missing reply.
		if err := double.WriteEnd(endPath, &double.Stats{Played: true, End: double.EndTimeout}); err != nil {
			fmt.Fprintf(stderr, "conform agent-tap: %v\n", err)
			return exitBroken
		}
	}
	if obs.Exit < 0 {
		return exitBroken
	}
	return obs.Exit
}

// cmdHostAdapter is the hidden "host-adapter" command: it turns the
// direct-mode host given after -- (one that reads agent frames on stdin,
// such as the reference) into a spawned host, for --agent runs: it starts
// the agent in CONFORM_AGENT with the CLI flags the Agent SDKs use and
// drives it as they do (internal/cliplay.Adapter). Exit status: 0 when the
// session ended and the host exited 0; 1 when the host exited nonzero; 2
// usage; 3 when the agent or the host cannot be started.
func cmdHostAdapter(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 || args[0] != "--" {
		fmt.Fprintln(stderr, "usage: conform host-adapter -- HOST COMMAND [ARGS...] (with CONFORM_AGENT set)")
		return exitUsage
	}
	agentPath := os.Getenv("CONFORM_AGENT")
	if agentPath == "" {
		return usageError(stderr, "host-adapter", "CONFORM_AGENT is not set (run me through a spawned run)")
	}
	agent := exec.CommandContext(ctx, agentPath, cliplay.AgentFlags...)
	agent.Stderr = stderr
	agent.WaitDelay = 2 * time.Second
	host := exec.CommandContext(ctx, args[1], args[2:]...)
	host.Stderr = stderr
	host.WaitDelay = 2 * time.Second
	toAgent, err1 := agent.StdinPipe()
	fromAgent, err2 := agent.StdoutPipe()
	toHost, err3 := host.StdinPipe()
	fromHost, err4 := host.StdoutPipe()
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			fmt.Fprintf(stderr, "conform host-adapter: %v\n", err)
			return exitBroken
		}
	}
	if err := host.Start(); err != nil {
		fmt.Fprintf(stderr, "conform host-adapter: start the host: %v\n", err)
		return exitBroken
	}
	if err := agent.Start(); err != nil {
		fmt.Fprintf(stderr, "conform host-adapter: start the agent: %v\n", err)
		_ = host.Process.Kill()
		_ = host.Wait()
		return exitBroken
	}
	aerr := cliplay.Adapter(ctx, cliplay.AdapterConfig{Policy: []byte(os.Getenv("CONFORM_POLICY")),
		FromAgent: fromAgent, ToAgent: toAgent, FromHost: fromHost, ToHost: toHost})
	_ = agent.Wait()
	herr := host.Wait()
	if aerr != nil {
		fmt.Fprintf(stderr, "conform host-adapter: %v\n", aerr)
		return exitBroken
	}
	if herr != nil {
		fmt.Fprintf(stderr, "conform host-adapter: the host: %v\n", herr)
		return exitFail
	}
	return exitPass
}

// producibleHostVectors returns, of the v1 host vectors of s that match
// filters (all when none), the ids the real CLI can be made to send, and
// for the others why not. Errors: FILTER_NO_MATCH when a filter matches no
// host vector; the suite's load errors.
func producibleHostVectors(s *runner.Suite, version int, filters []string) ([]*suite.Vector, map[string]string, error) {
	ver, err := s.Version(version)
	if err != nil {
		return nil, nil, err
	}
	all, _, err := s.Vectors(ver)
	if err != nil {
		return nil, nil, err
	}
	var hosts []*suite.Vector
	for _, v := range all {
		if v.Kind == suite.KindSession && v.Role == "host" {
			hosts = append(hosts, v)
		}
	}
	if hosts, err = suite.Select(hosts, filters); err != nil {
		return nil, nil, err
	}
	var ok []*suite.Vector
	skipped := map[string]string{}
	for _, v := range hosts {
		send, err := sendLines(v)
		if err != nil {
			return nil, nil, kiterr.Wrap(kiterr.VectorInvalid, err, "%s", v.Path)
		}
		pol, err := canon.Canonical(v.Policy)
		if err != nil {
			return nil, nil, kiterr.Wrap(kiterr.VectorInvalid, err, "%s: policy", v.Path)
		}
		if _, err := cliplay.Derive(send, pol); err != nil {
			skipped[v.ID] = err.Error()
			continue
		}
		ok = append(ok, v)
	}
	return ok, skipped, nil
}

// globQuote escapes the doublestar metacharacters of an id.
func globQuote(id string) string {
	var b strings.Builder
	for _, r := range id {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// useRealAgent switches cfg to --agent mode: the spawned agent is the
// agent-tap over the agent profile at dir, a direct-mode IUT is wrapped in
// host-adapter, and only the vectors the CLI can produce are selected (the
// others are listed on stderr). Errors: USAGE (not v1 host), the profile's,
// FILTER_NO_MATCH.
func useRealAgent(cfg *runner.Config, dir string, stderr io.Writer) error {
	if cfg.Role != "host" || cfg.Version != 1 {
		return kiterr.New(kiterr.Usage, "--agent plays v1 host-role vectors through a real agent: give --role host (and --version 1)")
	}
	prof, err := loadAgent(dir)
	if err != nil {
		return err
	}
	self, err := selfCommand()
	if err != nil {
		return err
	}
	if cfg.Spawn == nil {
		cmd := append([]string{}, cfg.Command...)
		if strings.Contains(cmd[0], "/") && !filepath.IsAbs(cmd[0]) {
			// The runner makes only its own first word absolute.
			if abs, err := filepath.Abs(cmd[0]); err == nil {
				cmd[0] = abs
			}
		}
		cfg.Command = append([]string{self, "host-adapter", "--"}, cmd...)
	}
	cfg.Spawn = &runner.Spawn{Argv: []string{self, "agent-tap", "--cli", prof.Command[0]}, Name: double.Command, Env: double.EnvVar}
	// Fail fast reads the agent double's session records, which the tap in
	// front of the real CLI does not write: every vector runs.
	cfg.NoFailFast = true
	names := make([]string, 0, len(prof.Env))
	for k := range prof.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		cfg.Spawn.Argv = append(cfg.Spawn.Argv, "--env", k+"="+prof.Env[k])
	}
	what := prof.Implementation
	if what == "" {
		what = prof.Name
	}
	cfg.Implementation += " (agent: " + what + ", with the Messages-API stand-in)"
	vs, skipped, err := producibleHostVectors(cfg.Suite, cfg.Version, cfg.Filters)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(skipped))
	for id := range skipped {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Fprintf(stderr, "conform: --agent: %s not run: %s\n", id, skipped[id])
	}
	if len(vs) == 0 {
		return kiterr.New(kiterr.FilterNoMatch, "the real agent can produce none of the selected host vectors")
	}
	cfg.Filters = nil
	for _, v := range vs {
		cfg.Filters = append(cfg.Filters, globQuote(v.ID))
	}
	return nil
}

// agentExpectations adds to cfg.ExpectFail the entries of
// expected-failures.<agent>.txt in the IUT's profile directory, if there is
// one: what the host gets wrong only with that real agent (<agent> is the
// base name of the agent profile directory, e.g. claude-code). Errors:
// EXPECT_FILE_INVALID.
func agentExpectations(cfg *runner.Config, profDir, agentDir string) error {
	ef, err := profile.ReadExpectFileIn(profDir, "expected-failures."+filepath.Base(filepath.Clean(agentDir))+".txt")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if cfg.ExpectFail == nil {
		cfg.ExpectFail = map[string]string{}
	}
	for id, reason := range ef {
		cfg.ExpectFail[id] = reason
	}
	return nil
}

// fidelityResult is one vector of `conform fidelity`.
type fidelityResult struct {
	ID          string            `json:"id"`
	Status      string            `json:"status"`
	Reason      string            `json:"reason,omitempty"`
	Differences []fidelityDiff    `json:"differences,omitempty"`
	Outcomes    []cliplay.Outcome `json:"outcomes,omitempty"`
	Replies     []string          `json:"replies,omitempty"`
	// Adoptable holds, per item, the CLI's request as the vector would
	// hold it (cliplay.Adoptable), for maintainers who update a vector.
	Adoptable []map[string]any `json:"adoptable,omitempty"`
}

type fidelityDiff struct {
	drift.Finding
	Decision string `json:"decision,omitempty"`
	// line is the decision's line in the decisions file (0: undecided).
	line int
}

// Fidelity statuses.
const (
	fidSame         = "SAME"
	fidDecided      = "DIFFERENT_DECIDED"
	fidDifferent    = "DIFFERENT"
	fidNotSent      = "NOT_SENT"
	fidUnproducible = "UNPRODUCIBLE"
	fidBroken       = "BROKEN"
)

// cmdFidelity implements `conform fidelity --agent DIR`: for every v1 host
// vector the real CLI can produce, it runs the CLI against the stand-in
// with the reference host answering (through the adapter, as an SDK would
// drive it), records the requests the CLI sends and compares each, after
// normalization, with the vector's frame (what the agent double sends).
// Differences are listed with the decision that covers them (--decisions);
// what the CLI did with each reply is evidence (--evidence writes it as
// Markdown). Exit status: 0 when every producible vector matches or its
// differences are decided and no decision is stale; 1 otherwise; 2 usage;
// 3 the CLI cannot be started.
func cmdFidelity(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("fidelity", flag.ContinueOnError)
	fl.SetOutput(stderr)
	agent := fl.String("agent", "claude-code", "the real agent: claude-code (impl/claude-code) or an agent profile `dir`")
	decisionsFile := fl.String("decisions", "", "decisions `file` (default: fidelity-decisions.txt in the agent profile)")
	evidence := fl.String("evidence", "", "write the evidence (what the CLI did with each reply) as Markdown to `file`")
	var filters multiFlag
	fl.Var(&filters, "filter", "only host vectors whose id matches this doublestar `glob` (repeatable)")
	jobs := fl.Int("j", 2, "vectors played at once")
	timeout := fl.Duration("timeout", 60*time.Second, "per-vector bound on the CLI session")
	format := fl.String("format", "text", "output format: text or json")
	suiteDir := fl.String("suite", "", "the suite: an embedded suite's `name` (control, mcp: conform suites) or a suite root dir (default: control, embedded)")
	if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
		return code
	}
	if fl.NArg() > 0 {
		return usageError(stderr, "fidelity", "unexpected argument %q", fl.Arg(0))
	}
	if *format != "text" && *format != "json" {
		return usageError(stderr, "fidelity", "--format must be text or json")
	}
	if *jobs <= 0 || *timeout <= 0 {
		return usageError(stderr, "fidelity", "-j and --timeout must be positive")
	}
	dir := agentProfileDir(*agent)
	prof, err := loadAgent(dir)
	if err != nil {
		return fail(stderr, err)
	}
	if *decisionsFile == "" {
		*decisionsFile = filepath.Join(prof.Dir, "fidelity-decisions.txt")
	}
	decisions, err := cliplay.ReadDecisions(*decisionsFile)
	if err != nil {
		return fail(stderr, err)
	}
	s, err := openSuite(*suiteDir, false)
	if err != nil {
		return fail(stderr, err)
	}
	ver, err := s.Version(1)
	if err != nil {
		return fail(stderr, err)
	}
	schemaData, err := fs.ReadFile(s.FS, ver.Schema)
	if err != nil {
		return fail(stderr, kiterr.Wrap(kiterr.IO, err, "read schema"))
	}
	schemaDoc, err := canon.Parse(schemaData)
	if err != nil {
		return fail(stderr, err)
	}
	dopt := drift.Options{EnumValues: drift.EnumValues(schemaDoc, ver.Env().Discriminators()), Envelope: ver.Env()}
	vs, skipped, err := producibleHostVectors(s, 1, filters)
	if err != nil {
		return fail(stderr, err)
	}
	results := make([]fidelityResult, len(vs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, *jobs)
	for i, v := range vs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = fidelityVector(ctx, v, prof, *timeout, dopt, decisions)
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return exitInterrupted
	}
	for id, why := range skipped {
		results = append(results, fidelityResult{ID: id, Status: fidUnproducible, Reason: why})
	}
	sort.Slice(results, func(i, j int) bool { return results[i].ID < results[j].ID })
	used := map[int]bool{}
	failed := 0
	for _, r := range results {
		for _, d := range r.Differences {
			if d.line > 0 {
				used[d.line] = true
			}
		}
		switch r.Status {
		case fidDifferent, fidNotSent, fidBroken:
			failed++
		}
	}
	var stale []cliplay.Decision
	for _, d := range decisions {
		if !used[d.Line] {
			stale = append(stale, d)
		}
	}
	version := probeVersion(ctx, prof.Command, prof.Env)
	if *evidence != "" {
		if err := writeEvidence(*evidence, version, results); err != nil {
			return fail(stderr, kiterr.Wrap(kiterr.IO, err, "write evidence"))
		}
	}
	if *format == "json" {
		if err := writeJSONIndent(stdout, map[string]any{"agent": version, "results": results, "stale_decisions": stale}); err != nil {
			return fail(stderr, kiterr.Wrap(kiterr.IO, err, "write report"))
		}
	} else {
		counts := map[string]int{}
		for _, r := range results {
			counts[r.Status]++
			line := fmt.Sprintf("%-18s %s", r.Status, r.ID)
			if r.Reason != "" {
				line += ": " + r.Reason
			}
			fmt.Fprintln(stdout, line)
			for _, d := range r.Differences {
				note := "  [UNDECIDED]"
				if d.Decision != "" {
					note = "  [decided: " + cut(d.Decision, 90) + "]"
				}
				fmt.Fprintf(stdout, "    %-22s %s: %s%s\n", d.Rule, d.Pointer, d.Message, note)
			}
		}
		for _, d := range stale {
			fmt.Fprintf(stdout, "STALE DECISION %s:%d %s %s %s (covers no difference)\n", *decisionsFile, d.Line, d.Vector, d.Rule, d.Pointer)
		}
		fmt.Fprintf(stdout, "fidelity of the agent double against %s: %d same, %d different with decisions, %d different, %d not sent, %d unproducible, %d broken; %d stale decisions\n",
			version, counts[fidSame], counts[fidDecided], counts[fidDifferent], counts[fidNotSent], counts[fidUnproducible], counts[fidBroken], len(stale))
	}
	if failed > 0 || len(stale) > 0 {
		return exitFail
	}
	return exitPass
}

// cut shortens s to at most n bytes, at a character boundary, marking the
// cut with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// fidelityVector plays v through the CLI with the reference host answering.
func fidelityVector(ctx context.Context, v *suite.Vector, prof *profile.Profile, timeout time.Duration, dopt drift.Options, decisions []cliplay.Decision) fidelityResult {
	res := fidelityResult{ID: v.ID}
	broken := func(err error) fidelityResult {
		res.Status, res.Reason = fidBroken, err.Error()
		return res
	}
	send, err := sendLines(v)
	if err != nil {
		return broken(err)
	}
	pol, err := canon.Canonical(v.Policy)
	if err != nil {
		return broken(err)
	}
	play, err := cliplay.Derive(send, pol)
	if err != nil {
		return broken(err)
	}
	host, err := reference.NewHost(pol)
	if err != nil {
		return broken(err)
	}
	home, err := os.MkdirTemp("", "conform-fidelity-*")
	if err != nil {
		return broken(err)
	}
	defer os.RemoveAll(home)
	work := filepath.Join(home, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		return broken(err)
	}
	// work's real path: the CLI reports paths resolved (TMPDIR may be a
	// link).
	if real, err := filepath.EvalSymlinks(work); err == nil {
		work = real
	}
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + home, "LANG=C.UTF-8", "CONFORM_POLICY=" + string(pol)}
	env := cliEnv(base, prof, home)

	agentInR, agentInW := io.Pipe()   // adapter -> tap (host side of the CLI)
	agentOutR, agentOutW := io.Pipe() // tap -> adapter
	hostInR, hostInW := io.Pipe()     // adapter -> reference host
	hostOutR, hostOutW := io.Pipe()   // reference host -> adapter
	go func() {
		_ = host.Serve(ctx, hostInR, hostOutW)
		_ = hostOutW.Close()
	}()
	adapterDone := make(chan error, 1)
	go func() {
		adapterDone <- cliplay.Adapter(ctx, cliplay.AdapterConfig{Policy: pol, FromAgent: agentOutR, ToAgent: agentInW, FromHost: hostOutR, ToHost: hostInW})
	}()
	argv := append([]string{prof.Command[0]}, cliplay.AgentFlags...)
	obs, err := cliplay.Tap(ctx, cliplay.TapConfig{Play: play, CLI: argv, Env: env, Dir: work, HostIn: agentInR, HostOut: agentOutW, Timeout: timeout})
	_ = agentOutW.Close()
	_ = agentInR.Close()
	if err != nil {
		return broken(err)
	}
	<-adapterDone
	res.Outcomes = cliplay.Outcomes(play, obs)
	for i := range res.Outcomes {
		// The CLI's temporary working directory, as the vectors write it.
		res.Outcomes[i].Result = strings.ReplaceAll(res.Outcomes[i].Result, work, cliplay.VectorCwd)
	}
	for i, r := range obs.Replies {
		res.Replies = append(res.Replies, string(r))
		var a map[string]any
		if obs.Sent[i] != nil {
			a, _ = cliplay.Adoptable(play.Items[i], obs.Sent[i], work)
		}
		res.Adoptable = append(res.Adoptable, a)
	}
	diffs, err := cliplay.Differences(v.ID, play, obs, work, dopt)
	if err != nil {
		return broken(err)
	}
	res.Status = fidSame
	for i, s := range obs.Sent {
		if s == nil {
			res.Status = fidNotSent
			res.Reason = fmt.Sprintf("the CLI never sent the request standing for send[%d] (%s)", i, play.Items[i].Subtype)
			if obs.TimedOut {
				res.Reason += "; the session timed out"
			}
		}
	}
	undecided := 0
	for _, f := range diffs {
		d := fidelityDiff{Finding: f}
		if dc := cliplay.Decide(decisions, f); dc != nil {
			d.Decision, d.line = dc.Reason, dc.Line
		} else {
			undecided++
		}
		res.Differences = append(res.Differences, d)
	}
	if res.Status == fidSame && len(diffs) > 0 {
		res.Status = fidDecided
		if undecided > 0 {
			res.Status = fidDifferent
		}
	}
	return res
}

// writeEvidence writes what the CLI did with each host reply, per vector.
func writeEvidence(path, version string, results []fidelityResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# What the real CLI does with each host reply\n\n")
	fmt.Fprintf(&b, "Generated by `conform fidelity --evidence impl/claude-code/host-evidence.md` against %s (do not edit by hand).\n", version)
	b.WriteString("For every v1 host vector the CLI can be made to send, the CLI ran offline against the Messages-API stand-in\n" +
		"(`internal/standin`), scripted from the vector (one model turn per request), and the reference host answered through\n" +
		"the adapter (`internal/cliplay`), as an Agent SDK would drive the CLI. The reply is the vector's golden reply (the\n" +
		"reference passes every host vector). \"What the CLI did\" is read from the tool result the CLI sent the model next.\n" +
		"Vectors the CLI cannot be made to send are listed at the end with the reason.\n\n")
	b.WriteString("| vector | request | host's decision | what the CLI did | tool result (excerpt) |\n|---|---|---|---|---|\n")
	var unproducible []fidelityResult
	for _, r := range results {
		if r.Status == fidUnproducible {
			unproducible = append(unproducible, r)
			continue
		}
		if r.Status == fidBroken {
			fmt.Fprintf(&b, "| `%s` | – | – | not played: %s | |\n", r.ID, mdCell(r.Reason))
			continue
		}
		for _, o := range r.Outcomes {
			req := o.Subtype
			if o.Tool != "" {
				req += " " + o.Tool
			}
			result := o.Result
			if o.ResultError {
				result = "(error) " + result
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.ID, mdCell(req), mdCell(o.Decision), mdCell(o.Effect), mdCell(cut(result, 120)))
		}
	}
	b.WriteString("\n## Not produced by the real CLI\n\n| vector | why |\n|---|---|\n")
	for _, r := range unproducible {
		fmt.Fprintf(&b, "| `%s` | %s |\n", r.ID, mdCell(r.Reason))
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r", " ")
	return strings.ReplaceAll(s, "\n", " ")
}

// writeJSONIndent writes v as indented JSON without HTML escaping.
func writeJSONIndent(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// sendLines returns the lines v writes, LF included, without its await
// items: the real CLI decides its own timing (cliplay derives the turn it
// plays from the lines alone).
func sendLines(v *suite.Vector) ([][]byte, error) {
	var send [][]byte
	for _, it := range v.Send {
		if _, await := it.AwaitKey(); await {
			continue
		}
		b, err := it.Bytes()
		if err != nil {
			return nil, err
		}
		send = append(send, b)
	}
	return send, nil
}
