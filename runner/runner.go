// Package runner certifies an implementation under test (IUT) against a
// conform suite: it loads every vector of one protocol version and role,
// starts the IUT once per vector, drives it over stdin/stdout, validates and
// normalizes what it writes, canonicalizes it (RFC 8785) and compares the
// bytes with the golden summary.
//
// Conformance failures are data ([Result], [Finding]); Go errors returned
// here are failures of the kit itself and carry a stable code
// (see [Code] and [CodeOf]).
package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/envelope"
	"github.com/conform-kit/conform/internal/frame"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/normalize"
	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/schema"
	"github.com/conform-kit/conform/internal/suite"
)

// Suite is a loaded suite (see [Open]).
type Suite = suite.Suite

// Vector is one test vector.
type Vector = suite.Vector

// Isolation says which user an isolated IUT runs as (see Config.Isolate).
type Isolation = proc.Isolation

// Error is the kit's error type; Code is stable.
type Error = kiterr.Error

// Code is a stable error code such as "FILTER_NO_MATCH".
type Code = kiterr.Code

// CodeOf returns the stable code of err, or "".
func CodeOf(err error) Code { return kiterr.CodeOf(err) }

// Open loads the suite rooted at fsys and verifies MANIFEST.sha256; its
// suite.json and vectors are validated against the kit's own meta-schemas
// (served by this package, not read from the suite). Errors:
// SUITE_NOT_FOUND, SUITE_INVALID, SCHEMA_INVALID, SUITE_DIGEST_MISMATCH.
func Open(fsys fs.FS) (*Suite, error) {
	return suite.Load(fsys, suite.Options{Meta: conform.Meta()})
}

// Defaults for [Config] fields left zero.
const (
	DefaultTimeout   = 10 * time.Second
	DefaultGrace     = 3 * time.Second
	DefaultKillAfter = 1 * time.Second
	DefaultMaxLine   = 1 << 20  // bytes
	DefaultStderrMax = 16 << 10 // bytes
	DefaultMaxFrames = 10000    // stdout lines per vector
	// DefaultMaxVectorBytes is the default per-vector byte budget
	// (Config.MaxVectorBytes): 16 MiB, 80 times the largest golden
	// summary of the suite (205 KB), so a conforming IUT never meets it,
	// while -j vectors at once hold at most this much each.
	DefaultMaxVectorBytes = 16 << 20
)

// Config says what to run. Zero values take the documented defaults.
type Config struct {
	Suite *Suite
	// Version is the protocol version (default 1).
	Version int
	// Role is the role the IUT plays, one of the version's roles (default:
	// the first, suite.json versions[].roles).
	Role string
	// Implementation names the IUT in reports (default: the command's base name).
	Implementation string
	// Command is the IUT's argv (required); it is never run through a shell.
	// A relative path with a slash ("./iut", or `.\iut.exe` on Windows)
	// is made absolute against the caller's working directory, since the
	// IUT runs in a fresh one.
	Command []string
	// Env adds variables to the IUT's minimal environment (PATH from the
	// caller, HOME set to a fresh temporary directory). With InheritEnv the
	// caller's whole environment is passed first.
	Env        map[string]string
	InheritEnv bool
	// Filters are doublestar globs over vector ids: a vector runs when any
	// matches it; each must match one.
	Filters []string
	// Skip are doublestar globs over vector ids: a vector any of them
	// matches does not run; each must match one (a typo never passes
	// silently).
	Skip []string
	// Levels, when set, runs only the vectors of these levels (required,
	// recommended, informational). A run that Filters, Skip or Levels
	// narrows is partial: it certifies nothing.
	Levels []string
	// ExpectFail maps vector id to the reason it is expected to fail.
	ExpectFail map[string]string
	// Claims are the conformance classes the IUT claims (profile.json
	// claims, conform run --claim): class names of the suite, of which
	// those of the run's version and role are judged (with the classes
	// they require and the always-judged ones). Nil derives the classes
	// judged from the frames of the preflight and discover vectors
	// (docs/running.md "Conformance classes"). A name that is a class of
	// no version and role of the suite is CLAIM_UNKNOWN.
	Claims []string
	// Vars set values of the vars the suite declares (suite.json vars;
	// profile.json vars, conform run --var): a vector's ${var:NAME} takes
	// them, the suite's defaults otherwise. A name the suite does not
	// declare is VECTOR_VAR_UNKNOWN. Values are JSON values as
	// encoding/json decodes them (numbers float64 or json.Number).
	Vars map[string]any
	// Jobs is how many vectors run at once. Default: Starts at first,
	// widened by one every half second in which the machine's CPUs were
	// at least a quarter idle, up to 4 x Starts, capped so that each can
	// have 256 MiB of the memory available and no IUT gets a smaller
	// share of a pids limit than at -j Starts (see [defaultJobs] and
	// widen.go).
	Jobs int
	// PreflightCache, when not "", is the directory of the preflight
	// cache: a partial run that is not a shard reuses the frames an
	// earlier run of the same IUT wrote in the preflight and discover
	// vectors instead of starting it for them, and says so through Note;
	// a run that ran them writes them there (preflightcache.go).
	// IUTDigest is what identifies the IUT beyond Command, Env and the
	// files they name (the profile file's digest, the kit's identity),
	// part of the entry's key.
	PreflightCache, IUTDigest string
	// Note, if set, is called with a note for the user (a reused
	// preflight).
	Note func(msg string)
	// Starts is how many IUTs may be between their exec and their first
	// stdout line at once (default: number of CPUs): the start gate, which
	// keeps a wide Jobs from starving starts of CPU. Waiting for a slot is
	// not counted in the vector's Timeout. See startgate.go.
	Starts int
	// Timeout bounds the wait for a vector's replies or expected exit
	// (default 10 s): the start-up and whole-vector bound. Grace is how
	// long the IUT gets to exit after stdin is closed (default: the suite
	// version's grace, else 3 s); KillAfter is the wait between SIGTERM and
	// SIGKILL (default 1 s).
	Timeout, Grace, KillAfter time.Duration
	// Quiet is the quiet bound: once the IUT has written its first line,
	// a wait for replies (or awaited frames) it owes ends when it writes
	// nothing, to stdout or stderr, and is sent nothing for this long,
	// with the findings the timeout gives (their message says the quiet
	// bound ended the wait). 0: the suite version's quiet, else
	// DefaultQuiet (2 s); NoQuiet (any negative): none. A vector's
	// expect.quiet raises it for that vector. See quiet.go and
	// docs/running.md "Bounds".
	Quiet time.Duration
	// MaxLine is the longest stdout line accepted, in bytes (default 1 MiB).
	MaxLine int
	// StderrMax is how many trailing bytes of stderr are kept (default 16 KiB).
	StderrMax int
	// MaxFrames is the most stdout lines read per vector (default 10000);
	// more is FRAME_LIMIT (PROTOCOL_ERROR) and the IUT is stopped.
	MaxFrames int
	// MaxVectorBytes is the byte budget of one vector (default 16 MiB):
	// everything the runner keeps of it while it runs. The stderr tail
	// (StderrMax) and the findings (at most MaxFindings of
	// MaxFindingBytes, and the truncation notes) are set aside first; the
	// control frames kept for the summary, as normalized canonical bytes
	// with the work of comparing them (2 KiB for each JSON value), get the
	// rest, and a line is decoded only when its bytes and that work fit in
	// what is left (work.go). A line or frame that does not fit ends the
	// vector: VECTOR_BUDGET_EXCEEDED (PROTOCOL_ERROR), and the IUT is
	// stopped. One vector so holds at most 2 x MaxVectorBytes + 16 MiB +
	// 3 x MaxLine (docs/running.md "Bounds").
	// What the result reports is bounded apart from it (MaxExcerptBytes,
	// MaxDifferences, MaxValueBytes). The budget must leave room for
	// frames (USAGE otherwise).
	MaxVectorBytes int
	// Progress, if set, is called once per finished vector, from one
	// goroutine at a time.
	Progress func(Result)
	// Planned, if set, is called once by [Run] with the number of vectors
	// it is about to run (after --filter and Shard), before the first one
	// starts.
	Planned func(vectors int)
	// Shard, if set, runs only that shard of the selected vectors (see
	// [Shard]); the report then carries Report.Shard and certifies nothing
	// until [Merge] combines it with the other shards.
	Shard *Shard
	// Now is the clock of Report.Started and Report.ElapsedMS (default
	// time.Now).
	Now func() time.Time
	// Record, if set, is called once per vector that ran (not for INVALID
	// or NOT_RUN results) with its result, before expected failures are
	// applied, and its normalized canonical summary: the bytes compared with
	// the golden file (see [Summary]). It may be called from several
	// goroutines at once; a version's preflight vector (v2) is reported once
	// more when it passes. conform record writes the summaries.
	Record func(r Result, summary []byte)
	// Shapes keeps, for Record, the shape (member names and JSON types,
	// not values) of every value a normalizer replaced: Result.Shapes,
	// which conform record writes beside each summary so drift sees a
	// member added inside a normalized object.
	Shapes bool
	// Spawn, when not nil, selects spawned mode: the IUT starts its peer
	// itself, and the runner hands it a double of that peer that plays the
	// vector (see [Spawn], [Plan] and docs/double.md).
	Spawn *Spawn
	// NoFailFast runs every vector even when the IUT is dead or silent on
	// the first vectors (see [Report.Preflight]); by default the run stops
	// there with a verdict that names the cause.
	NoFailFast bool
	// TempDir is where per-vector HOME directories (each with its working
	// directory, work) are made, named conform-iut-*, and removed at the
	// end of the run (default os.TempDir()). A directory its IUT left
	// exactly as made is handed to a later vector (see iutDirs).
	TempDir string
	// Isolate, when not nil, runs every IUT as another user (Linux only,
	// and only as root), with its HOME and working directory given to that
	// user: the IUT can then neither read this process's environment or
	// memory nor write what only this process's user may (such as the
	// report). See docs/containment.md "Environment hygiene and untrusted IUTs".
	Isolate *Isolation

	// MaxProcs is the most processes and threads one IUT may have at once
	// (default proc.DefaultProcs, 1024): a pids cgroup limit where the
	// system offers a pids controller, a count every 50 ms otherwise; an
	// IUT that reaches it is killed (PROCESS_LIMIT). Where conform itself
	// runs under a pids limit, each IUT gets at most an even share of what
	// it leaves (docs/containment.md "Containment").
	MaxProcs int
	// MaxMemory, when positive, is the most bytes of memory one IUT may
	// use (a memory cgroup limit; MEMORY_LIMIT when the kernel kills a
	// process of it there). USAGE when the system offers no memory
	// controller.
	MaxMemory int64

	// Exact makes exact parity decide: any byte difference from the golden
	// summary fails the vector (GOLDEN_MISMATCH), as the ports' parity gates
	// require. By default conformance decides and a difference the protocol
	// allows is a PARITY_DIFFERS note (COMPATIBILITY.md "Conformance and
	// exact parity").
	Exact bool

	// keepSummaries keeps every result's canonical summary, which Parity
	// compares across implementations; a plain Run keeps only those of
	// vectors that did not pass (as Result.Actual), so its memory does not
	// grow by a summary per vector.
	keepSummaries bool
}

func (c *Config) defaults() {
	if c.Version == 0 {
		c.Version = 1
	}
	if c.Role == "" && c.Suite != nil {
		if v, err := c.Suite.Version(c.Version); err == nil {
			c.Role = v.DefaultRole()
		}
	}
	if c.Starts <= 0 {
		c.Starts = defaultStarts()
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.KillAfter <= 0 {
		c.KillAfter = DefaultKillAfter
	}
	if c.MaxLine <= 0 {
		c.MaxLine = DefaultMaxLine
	}
	if c.StderrMax <= 0 {
		c.StderrMax = DefaultStderrMax
	}
	if c.MaxFrames <= 0 {
		c.MaxFrames = DefaultMaxFrames
	}
	if c.MaxVectorBytes <= 0 {
		c.MaxVectorBytes = DefaultMaxVectorBytes
	}
	if len(c.Command) > 0 && strings.ContainsAny(c.Command[0], "/"+string(filepath.Separator)) && !filepath.IsAbs(c.Command[0]) {
		// The IUT runs in a fresh directory: a relative path names a file
		// relative to the caller's working directory.
		if abs, err := filepath.Abs(c.Command[0]); err == nil {
			c.Command = append([]string{abs}, c.Command[1:]...)
		}
	}
	if c.Implementation == "" && len(c.Command) > 0 {
		c.Implementation = path.Base(c.Command[0])
	}
	if c.TempDir == "" {
		c.TempDir = os.TempDir()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// findingsReserve is what a vector's findings may take of its budget:
// MaxFindings messages from the session and MaxFindings normative
// differences, each of at most MaxFindingBytes (plus the "... (N bytes)"
// of a cut one), and room for the notes added after them.
const findingsReserve = (2*MaxFindings + 8) * (MaxFindingBytes + 32)

// frameBudget is what Config.MaxVectorBytes leaves for the control frames
// of one vector, in bytes, once the stderr tail and the findings are set
// aside; not positive when it leaves nothing.
func (c *Config) frameBudget() int {
	return c.MaxVectorBytes - c.StderrMax - findingsReserve
}

// plan is what a run needs, prepared once: compiled schemas, normalizers
// and the vectors with their golden bytes.
type plan struct {
	cfg Config
	// starts is the start gate (Config.Starts).
	starts startGate
	// widen: Jobs is the default, a ceiling the run widens to while the
	// machine is idle (widen.go).
	widen bool
	ver   *suite.Version
	env   *envelope.Envelope
	root  *schema.Schema
	// byMethod holds the replyBody schema of each method (envelope
	// replyBody), which a success reply to a request of that method must
	// satisfy.
	byMethod *methodSchemas
	rules    []normalize.Rule
	conf     *compare.Rules
	// passOver and tolerate are the version's frame rules, peer its
	// scripted peer.
	passOver, tolerate []envelope.Rule
	peer               []peerRule
	// vars are the values of the suite's vars for this run
	// (suite.Suite.ResolveVars).
	vars    map[string]any
	vectors []suite.Ref
	// sessions are all session vectors of the role, before filtering.
	sessions []suite.Ref
	problems []Problem
	// preflightFrames are the frames the IUT wrote in the version's
	// preflight vector and its discover vectors (vectors' requires and
	// classes' derive predicates are checked against them).
	preflightFrames []any
	// preflightPassed: the preflight vector ran here and passed (only
	// then are its frames kept in the preflight cache).
	preflightPassed bool
	// classes are the role's conformance classes; judged is nil until
	// [plan.judge] decides which are judged (every vector runs), then
	// holds the judged class names.
	classes []suite.Class
	judged  map[string]bool
	// dirs hands out IUT directories and procs what IUTs share (their
	// cgroups on Linux); whoever called prepare closes both (plan.close).
	dirs  *iutDirs
	procs *proc.Pool
	// framing is the suite's framing: how stdout is read and what is
	// written to stdin is framed (frame.Lines or frame.ContentLength).
	framing frame.Framing
}

// close removes the pooled IUT directories and cgroups.
func (p *plan) close() {
	p.dirs.close()
	p.procs.Close()
}

// prepare loads and compiles everything a run of cfg needs. Vector files
// that fail to load become Problems (other vectors still run).
func prepare(cfg Config) (*plan, error) {
	if cfg.Suite == nil {
		return nil, kiterr.New(kiterr.Usage, "no suite")
	}
	if cfg.frameBudget() <= 0 {
		return nil, kiterr.New(kiterr.Usage, "the per-vector budget of %d bytes leaves no room for frames: it must exceed the stderr tail (%d bytes) plus %d bytes for findings", cfg.MaxVectorBytes, cfg.StderrMax, findingsReserve)
	}
	if sp := cfg.Spawn; sp != nil && (len(sp.Argv) == 0 || sp.Name == "" || strings.ContainsAny(sp.Name, `/\`) || sp.Name == "." || sp.Name == "..") {
		return nil, kiterr.New(kiterr.Usage, "spawned mode needs the double's argv and a plain command name for its wrapper (got argv %q, name %q)", sp.Argv, sp.Name)
	}
	s := cfg.Suite
	ver, err := s.Version(cfg.Version)
	if err != nil {
		return nil, err
	}
	if ver.Role(cfg.Role) == nil {
		return nil, kiterr.New(kiterr.Usage, "role %q is not a role of suite version %d (%s)", cfg.Role, cfg.Version, strings.Join(ver.RoleNames(), ", "))
	}
	if cfg.Spawn != nil && s.Framing == frame.ContentLength {
		return nil, kiterr.New(kiterr.Usage, "spawned mode plays suites framed as lines only (the suite's framing is %s)", s.Framing)
	}
	p := &plan{cfg: cfg, ver: ver, env: ver.Env(), dirs: newIUTDirs(cfg.TempDir, cfg.Isolate), procs: proc.NewPool(),
		starts: newStartGate(cfg.Starts), passOver: ver.PassOverRules(), tolerate: ver.TolerateRules(), framing: s.Framing.Or()}
	p.cfg.Grace, p.cfg.Quiet = bounds(cfg, ver)
	if p.cfg.Jobs <= 0 {
		p.cfg.Jobs = defaultJobs(p.cfg.Starts, p.cfg.MaxProcs, p.procs.Supports().Room)
		p.widen = true
	}
	if err := checkLimits(cfg, p.procs); err != nil {
		p.close()
		return nil, err
	}
	if p.vars, err = s.ResolveVars(cfg.Vars); err != nil {
		p.close()
		return nil, err
	}
	for i, r := range ver.Peer {
		m, _ := envelope.CompileMatch(r.Match) // the suite's load checked it
		pr, err := newPeerRule(m, r, p.vars)
		if err != nil {
			p.close()
			return nil, kiterr.Wrap(kiterr.CodeOf(err), err, "%s: version %d: peer[%d]", suite.ManifestFile, ver.Version, i)
		}
		p.peer = append(p.peer, pr)
	}
	if p.root, p.byMethod, err = compileSchemas(s, ver); err != nil {
		return nil, err
	}
	if p.rules, err = normalize.Compile(ver.Normalize); err != nil {
		return nil, err
	}
	if p.conf, err = compare.Compile(&ver.Conformance); err != nil {
		return nil, kiterr.Wrap(kiterr.SuiteInvalid, err, "version %d", ver.Version)
	}
	// Only an index of each vector is kept; sessions reload the file and
	// read its golden file as they run, so a run's memory does not grow
	// with the suite (bench row b: peak RSS at 10k vectors over 1k).
	sessions, bad, err := s.VectorIndex(ver, cfg.Role)
	if err != nil {
		return nil, err
	}
	for _, b := range bad {
		p.problems = append(p.problems, Problem{Path: b.Path, Code: codeOr(b.Err, kiterr.VectorInvalid), Message: messageOf(b.Err)})
	}
	// A vector file the manifest lists but that is gone was never loaded:
	// it is a problem too, not a silently shorter suite.
	for _, name := range s.MissingFiles(ver.Vectors) {
		prob := s.Problems[name]
		p.problems = append(p.problems, Problem{Path: name, Code: codeOr(prob, kiterr.SuiteFileUnlisted), Message: messageOf(prob)})
	}
	if len(sessions) == 0 && len(bad) == 0 {
		return nil, kiterr.New(kiterr.FilterNoMatch, "suite version %d has no %s-role session vectors", cfg.Version, cfg.Role)
	}
	p.sessions = sessions
	p.classes = ver.RoleClasses(cfg.Role)
	if err := p.checkClaims(); err != nil {
		return nil, err
	}
	if p.vectors, err = selectVectors(sessions, cfg.Filters, cfg.Skip, cfg.Levels, cfg.Role, cfg.Version); err != nil {
		if kiterr.CodeOf(err) == kiterr.FilterNoMatch && len(p.problems) > 0 {
			paths := make([]string, len(p.problems))
			for i, pr := range p.problems {
				paths[i] = pr.Path + " (" + pr.Code + ")"
			}
			return nil, kiterr.New(kiterr.FilterNoMatch, "%s; %d vector file(s) did not load and could not be matched: %s", messageOf(err), len(paths), strings.Join(paths, ", "))
		}
		return nil, err
	}
	return p, nil
}

// loaded is a vector ready to run: the whole vector, its normalizers (the
// suite's, then its own), its send items (one line each) and its own frame
// rules, peer rules and order constraints, compiled.
type loaded struct {
	v     *suite.Vector
	rules []normalize.Rule
	// conf is the version's conformance rules plus the vector's.
	conf  *compare.Rules
	lines []sendLine
	// reqs are the requests lines carry (reqs[i] of lines[i]).
	reqs []sentRequest
	// gates are the vector's await items, in order.
	gates []gate
	// passOver and tolerate are the vector's own frame rules.
	passOver, tolerate []envelope.Rule
	peer               []peerRule
	// order is expect.order compiled; orderMatches its match elements.
	order        [][]orderElement
	orderMatches []envelope.Match
	// orphans are the ids expect.replies lists that no send line's request
	// carries: a reply with one is expected, not unsolicited.
	orphans []string
	// refs are the suite files ${suite:PATH} names in args and env;
	// suiteRefs is true when there is one.
	refs      []string
	suiteRefs bool
	// keepRaw keeps the frames the IUT writes (the preflight vector's).
	keepRaw bool
	// unframed holds, by line index, the base64 items of a suite framed
	// by content-length: they are written as they are, unframed.
	unframed map[int]bool
	// binds holds, by line index, the frames with bindings, built when
	// written; bindIDs the ids of the replies they take values from.
	binds   map[int]bindLine
	bindIDs map[string]bool
	// bindMatches are the match predicates of bindings that take a value
	// from a frame the IUT wrote (bindLine.matches indexes them).
	bindMatches []envelope.Match
	// named maps a send item's name to the index of its line (peer rules'
	// after).
	named map[string]int
	// consistent is expect.consistent compiled.
	consistent []consistency
	// work: a frame or peer reply names ${work}; the IUT's working
	// directory in the frames it writes is then ${work} in the summary.
	work bool
}

// bindLine is a send frame whose bindings are set when it is written,
// or (binds empty) whose strings name ${work}, built for each session.
type bindLine struct {
	frame any
	binds []suite.Binding
	// matches is, per binding, the index in loaded.bindMatches of its
	// match, or -1 for a binding that takes a reply.
	matches []int
}

// consistency is a compiled expect.consistent rule.
type consistency struct {
	first, then         envelope.Match
	firstPath, thenPath []string
	rule                suite.Consistency
}

// peerRule is a compiled rule of the vector's scripted peer. work: its
// reply names ${work}, expanded as it is written.
type peerRule struct {
	match  envelope.Match
	reply  any
	reason string
	work   bool
	// after is the index of the send line the reply waits for (-1:
	// none).
	after int
}

// newPeerRule compiles a peer rule whose match m compiled, its reply's
// vars expanded. Errors: VECTOR_VAR_UNKNOWN, VECTOR_INVALID.
func newPeerRule(m envelope.Match, r suite.PeerRule, vars map[string]any) (peerRule, error) {
	reply, err := suite.ExpandValue(r.Reply, vars, "")
	if err != nil {
		return peerRule{}, err
	}
	return peerRule{match: m, reply: reply, reason: r.Reason, work: suite.HasWork(reply), after: -1}, nil
}

// orderElement is one element of an expect.order sequence: the reply to
// the request with id key, or (match >= 0) the first frame that
// loaded.orderMatches[match] holds for; name is how messages say it.
type orderElement struct {
	key   string
	match int
	name  string
}

// gate is one await send item: lines[before:] are written once the IUT's
// reply to the request with id key (RFC 8785 form) has been read, or, when
// match is set, once the IUT has written a frame match holds for (key is
// then the await's RFC 8785 text, for messages).
type gate struct {
	before int
	key    string
	match  envelope.Match
}

// sendLine is one line sent to the IUT, LF included, as the pieces
// [suite.SendItem.Chunks] gives: a generated line is a shared block given
// many times, so it is streamed to the IUT without being built.
type sendLine [][]byte

// segment returns the lines written before gate g (g = 0: at start) and
// up to the next gate, as the pieces proc writes, and tracks their requests
// in s.sent. A frame with bindings is built now, from the replies the
// IUT wrote to the awaited requests it names.
func (s *session) segment(g int) [][]byte {
	l := s.l
	from, to := 0, len(l.lines)
	if g > 0 {
		from = l.gates[g-1].before
	}
	if g < len(l.gates) {
		to = l.gates[g].before
	}
	var out [][]byte
	for i, ln := range l.lines[from:to] {
		r := l.reqs[from+i]
		s.written = from + i + 1
		if b, ok := l.binds[from+i]; ok {
			var write bool
			if ln, write = s.bound(b); !write {
				// Left out: its reply is not expected either.
				if r.ok {
					delete(s.expected, r.key)
				}
				out = append(out, s.heldAfter(from+i)...)
				continue
			}
			// The bound frame may carry a bound id: read it again.
			r = s.p.request(ln)
		}
		track(s.sent, r)
		out = appendFramed(out, s.p.framing, ln, l.unframed[from+i])
		out = append(out, s.heldAfter(from+i)...)
	}
	return out
}

// appendFramed appends line ln (pieces whose last ends with the line's
// LF) to out as the framing f writes it: as it is for lines; for
// content-length, the body (the line without its LF) after its header,
// or, when raw (a base64 item), the body alone, unframed.
func appendFramed(out [][]byte, f frame.Framing, ln sendLine, raw bool) [][]byte {
	if f != frame.ContentLength || len(ln) == 0 {
		return append(out, ln...)
	}
	last := len(ln) - 1
	body := ln[last][:len(ln[last])-1]
	if !raw {
		n := len(body)
		for _, c := range ln[:last] {
			n += len(c)
		}
		out = append(out, frame.Header(n))
	}
	out = append(out, ln[:last]...)
	if len(body) > 0 {
		out = append(out, body)
	}
	return out
}

// heldAfter returns, and forgets, the scripted replies held until send
// line i was written (peer rules' after).
func (s *session) heldAfter(i int) [][]byte {
	h := s.held[i]
	if h != nil {
		delete(s.held, i)
	}
	return h
}

// bound builds a send frame with bindings: the frame with each binding's
// value from the reply it names (null when that reply or location is
// missing: the golden comparison shows what came of it), or write false
// when a WhenPresent binding finds no value.
func (s *session) bound(b bindLine) (ln sendLine, write bool) {
	frame, _ := suite.ExpandValue(b.frame, nil, s.work) // only ${work} is left
	for j, bd := range b.binds {
		var val any
		found := false
		src, ok := s.bindReplies[envelope.Key(bd.Reply)]
		if j < len(b.matches) && b.matches[j] >= 0 {
			src = s.bindFrames[b.matches[j]]
			ok = src != nil
		}
		if ok {
			toks, _ := envelope.Tokens(bd.Path)
			val, found = envelope.Lookup(src, toks)
		}
		if !found && bd.WhenPresent {
			return nil, false
		}
		toks, _ := envelope.Tokens(bd.At)
		frame, _ = envelope.Set(frame, toks, val)
	}
	c, err := canon.Canonical(frame)
	if err != nil {
		c = []byte("null")
	}
	return sendLine{append(c, '\n')}, true
}

// load gets the whole of the indexed vector v back ([suite.Suite.Reload])
// and prepares it. Errors: VECTOR_INVALID, VECTOR_ID_MISMATCH (the file
// changed during the run) and the other load errors of Reload.
func (p *plan) load(v suite.Ref) (*loaded, error) {
	full, err := p.cfg.Suite.Reload(p.ver, v.Path)
	if err != nil {
		return nil, err
	}
	if full.ID != v.ID {
		return nil, kiterr.New(kiterr.VectorIDMismatch, "%s: id changed from %q to %q during the run", v.Path, v.ID, full.ID)
	}
	l := &loaded{v: full, rules: p.rules, conf: p.conf, lines: make([]sendLine, 0, len(full.Send))}
	invalid := func(err error) (*loaded, error) { return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "%s", v.Path) }
	if full.Conformance != nil {
		if l.conf, err = compare.Compile(&p.ver.Conformance, full.Conformance); err != nil {
			return invalid(err)
		}
	}
	if len(full.Normalize) > 0 {
		own, err := normalize.Compile(full.Normalize)
		if err != nil {
			return invalid(err)
		}
		l.rules = append(slices.Clip(p.rules), own...)
	}
	for i, it := range full.Send {
		if m, isMatch, err := it.AwaitMatch(); isMatch {
			if err != nil {
				return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "%s: send[%d]", v.Path, i)
			}
			k, _ := it.AwaitKey()
			l.gates = append(l.gates, gate{before: len(l.lines), key: k, match: m})
			continue
		}
		if k, ok := it.AwaitKey(); ok {
			// The loader checked that a line follows.
			l.gates = append(l.gates, gate{before: len(l.lines), key: k})
			continue
		}
		if it.Frame != nil {
			if it.Frame, err = suite.ExpandValue(it.Frame, p.vars, ""); err != nil {
				return nil, kiterr.Wrap(kiterr.CodeOf(err), err, "%s: send[%d]", v.Path, i)
			}
		}
		ln, err := it.Chunks()
		if err != nil {
			return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "%s: send[%d]", v.Path, i)
		}
		hasWork := it.Frame != nil && suite.HasWork(it.Frame)
		l.work = l.work || hasWork
		if len(it.Bind) > 0 || hasWork {
			if l.binds == nil {
				l.binds, l.bindIDs = map[int]bindLine{}, map[string]bool{}
			}
			bl := bindLine{frame: it.Frame, binds: it.Bind}
			for j, b := range it.Bind {
				if b.Match == nil {
					l.bindIDs[envelope.Key(b.Reply)] = true
					bl.matches = append(bl.matches, -1)
					continue
				}
				m, err := envelope.CompileMatch(b.Match)
				if err != nil {
					return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "%s: send[%d].bind[%d]", v.Path, i, j)
				}
				bl.matches = append(bl.matches, len(l.bindMatches))
				l.bindMatches = append(l.bindMatches, m)
			}
			l.binds[len(l.lines)] = bl
		}
		if it.Name != "" {
			if l.named == nil {
				l.named = map[string]int{}
			}
			l.named[it.Name] = len(l.lines)
		}
		if it.Base64 != nil && p.framing == frame.ContentLength {
			if l.unframed == nil {
				l.unframed = map[int]bool{}
			}
			l.unframed[len(l.lines)] = true
		}
		l.lines = append(l.lines, ln)
		if it.Frame != nil {
			l.reqs = append(l.reqs, p.requestOf(it.Frame))
		} else {
			l.reqs = append(l.reqs, p.request(ln))
		}
	}
	if l.passOver, err = envelope.CompileRules("passOver", full.PassOver, false); err != nil {
		return invalid(err)
	}
	if l.tolerate, err = envelope.CompileRules("tolerate", full.Tolerate, true); err != nil {
		return invalid(err)
	}
	for i, r := range full.Peer {
		m, err := envelope.CompileMatch(r.Match)
		if err != nil {
			return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "%s: peer[%d]", v.Path, i)
		}
		pr, err := newPeerRule(m, r, p.vars)
		if err != nil {
			return nil, kiterr.Wrap(kiterr.CodeOf(err), err, "%s: peer[%d]", v.Path, i)
		}
		if r.After != "" {
			at, ok := l.named[r.After]
			if !ok {
				return nil, kiterr.New(kiterr.VectorInvalid, "%s: peer[%d]: after %q names no send item", v.Path, i, r.After)
			}
			pr.after = at
		}
		l.peer = append(l.peer, pr)
	}
	l.peer = append(l.peer, p.peer...)
	for _, r := range l.peer {
		l.work = l.work || r.work
	}
	for i, c := range full.Expect.Consistent {
		first, err1 := envelope.CompileMatch(c.First.Match)
		then, err2 := envelope.CompileMatch(c.Then.Match)
		fp, err3 := envelope.Tokens(c.First.Path)
		tp, err4 := envelope.Tokens(c.Then.Path)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "%s: expect.consistent[%d]", v.Path, i)
		}
		l.consistent = append(l.consistent, consistency{first: first, then: then, firstPath: fp, thenPath: tp, rule: c})
	}
	for i, seq := range full.Expect.Order {
		var els []orderElement
		for j, x := range seq {
			k, m, err := suite.OrderElement(x)
			if err != nil {
				return nil, kiterr.Wrap(kiterr.VectorInvalid, err, "%s: expect.order[%d][%d]", v.Path, i, j)
			}
			el := orderElement{key: k, match: -1, name: "the reply to " + k}
			if m != nil {
				el.match = len(l.orderMatches)
				l.orderMatches = append(l.orderMatches, m)
				b, _ := canon.Canonical(x)
				el.name = "the first frame matching " + string(b)
			}
			els = append(els, el)
		}
		l.order = append(l.order, els)
	}
	if len(full.Expect.Replies) > 0 {
		carried := map[string]*request{}
		for _, r := range l.reqs {
			track(carried, r)
		}
		for _, id := range full.Expect.Replies {
			if k := envelope.Key(id); carried[k] == nil && !slices.Contains(l.orphans, k) {
				l.orphans = append(l.orphans, k)
			}
		}
	}
	for _, x := range append(slices.Clone(full.Args), envValues(full.Env)...) {
		for _, ref := range suite.SuiteRefs(x) {
			if !slices.Contains(l.refs, ref) {
				l.refs = append(l.refs, ref)
			}
		}
	}
	l.suiteRefs = len(l.refs) > 0
	return l, nil
}

func envValues(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for _, k := range sortedKeys(env) {
		out = append(out, env[k])
	}
	return out
}

// compileSchemas compiles the version's root schema (every kept or
// tolerated frame) and gives its replyBody entries (a success reply, by the
// method of the request it answers; see methodSchemas for when each is
// compiled), as run and validate check them, with the envelope's
// discriminators. Errors: those of schema.Set.Compile, SUITE_NOT_FOUND and
// SCHEMA_INVALID.
func compileSchemas(s *Suite, ver *suite.Version) (root *schema.Schema, byMethod *methodSchemas, err error) {
	if root, err = s.Schemas.Compile(ver.Schema); err != nil {
		return nil, nil, err
	}
	root = root.WithDiscriminators(ver.Env().Discriminators())
	if byMethod, err = newMethodSchemas(s, ver); err != nil {
		return nil, nil, err
	}
	return root, byMethod, nil
}

// memberNamesIn is memberNames over s.FS, reading the document the suite's
// schema set has already parsed when it has (the same bytes, parsed the
// same way: schema.Set.Parsed).
func memberNamesIn(s *Suite, file, ptr string) ([]string, error) {
	if doc, ok := s.Schemas.Parsed(file); ok {
		return memberNamesOf(doc, file, ptr)
	}
	return memberNames(s.FS, file, ptr)
}

// memberNames returns the member names of the object at fragment ptr
// ("#/a/b") in the JSON file at file.
func memberNames(fsys fs.FS, file, ptr string) ([]string, error) {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.SuiteNotFound, err, "read %s", file)
	}
	doc, err := canon.Parse(data)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.SchemaInvalid, err, "parse %s", file)
	}
	return memberNamesOf(doc, file, ptr)
}

// memberNamesOf is memberNames on doc, the parsed file; doc is not changed.
func memberNamesOf(doc any, file, ptr string) ([]string, error) {
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "#/"), "/") {
		tok = canon.UnescapePointer(tok)
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, kiterr.New(kiterr.SchemaInvalid, "%s%s: not an object", file, ptr)
		}
		if cur, ok = m[tok]; !ok {
			return nil, kiterr.New(kiterr.SchemaInvalid, "%s%s: no member %q", file, ptr, tok)
		}
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return nil, kiterr.New(kiterr.SchemaInvalid, "%s%s: not an object", file, ptr)
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names, nil
}

// Run runs every selected session vector of cfg.Suite against cfg.Command
// and returns the report. Results are in vector id order whatever Jobs is.
// When ctx is cancelled, running IUTs are killed, finished results are kept
// and the rest are NOT_RUN, and Report.Interrupted is set (no error).
// Errors: USAGE (also a Shard with more shards than selected vectors),
// VERSION_UNKNOWN, SCHEMA_INVALID, FILTER_NO_MATCH (a filter that matches
// nothing, or no vectors at all), EXPECT_FILE_INVALID, IUT_START (the
// command cannot be started: exit 3).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg.defaults()
	if len(cfg.Command) == 0 {
		return nil, kiterr.New(kiterr.Usage, "no IUT command")
	}
	start := cfg.Now()
	p, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	defer p.close()
	framing := ""
	if p.framing != frame.Lines {
		framing = string(p.framing)
	}
	rep := &Report{
		Suite: SuiteInfo{Name: cfg.Suite.Manifest.Name, Version: cfg.Version, Role: cfg.Role, Digest: cfg.Suite.Digest,
			Title: cfg.Suite.Manifest.Title, Label: p.ver.Label, Framing: framing},
		Implementation: Implementation{Name: cfg.Implementation, Command: cfg.Command},
		Problems:       p.problems,
		Partial:        len(p.vectors) < len(p.sessions),
		Kit:            BuildKit(),
		Started:        start.UTC().Truncate(time.Millisecond),
	}
	defer func() { rep.ElapsedMS = cfg.Now().Sub(start).Milliseconds() }()
	if cfg.Shard != nil {
		if p.vectors, rep.Shard, err = shardVectors(p.vectors, *cfg.Shard); err != nil {
			return nil, err
		}
	}
	if cfg.Planned != nil {
		cfg.Planned(len(p.vectors))
	}
	known := map[string]suite.Ref{}
	for _, v := range p.sessions {
		known[v.ID] = v
	}
	for id := range cfg.ExpectFail {
		if v, ok := known[id]; !ok || v.Level == suite.LevelInformational {
			rep.Stale = append(rep.Stale, id)
		}
	}
	slices.Sort(rep.Stale)

	key := p.preflightKey()
	reused := false
	if key != "" && rep.Partial && cfg.Shard == nil {
		// A partial run certifies nothing: the frames of an earlier
		// preflight of the same IUT decide what applies (preflightcache.go).
		p.preflightFrames, reused = p.loadPreflight(key)
		if reused && cfg.Note != nil {
			what := p.ver.Preflight
			if len(p.ver.Discover) > 0 {
				what += ", " + strings.Join(p.ver.Discover, ", ")
			}
			cfg.Note(fmt.Sprintf("preflight reused: the frames the same IUT wrote in %s in an earlier run (%s) decide what applies; the IUT was not started for them (only in a partial run, which certifies nothing; a full run always runs the preflight)", what, p.preflightFile(key)))
		}
	}
	var ahead *alongside
	if !reused && rep.Partial && cfg.Shard == nil {
		ahead = p.runAlongside(ctx)
	}
	var pre Result
	ok := true
	if !reused {
		if pre, ok, err = p.preflight(ctx); err != nil {
			// The IUT could not be started (or the kit could not write its
			// directory): an error of the run, whether or not another
			// vector would have started it (a --filter of a class the
			// failed preflight left unjudged starts no other).
			ahead.discard()
			return nil, err
		}
	}
	if !ok {
		ahead.discard()
		rep.Preflight = &pre
		for _, v := range p.vectors {
			r := Result{ID: v.ID, Level: v.Level, Path: v.Path, Status: NotRun}
			if v.ID == pre.ID {
				r = pre
			}
			rep.Results = append(rep.Results, r)
		}
		classes, findings := p.judge(false)
		p.setClasses(rep, classes, findings)
		rep.Recount()
		return rep, nil
	}
	if !reused {
		if err := p.discoverFrames(ctx); err != nil {
			ahead.discard()
			return nil, err
		}
		if key != "" && ctx.Err() == nil && p.preflightPassed {
			p.savePreflight(key, p.preflightFrames)
		}
	}
	classes, findings := p.judge(true)
	done, err := ahead.results(p)
	if err != nil {
		return nil, err
	}
	if !cfg.NoFailFast && p.ver.Preflight == "" {
		stop, probed, err := p.failFast(ctx)
		if err != nil {
			return nil, err
		}
		if stop != nil {
			rep.Preflight = stop
			for i, v := range p.vectors {
				r, ok := probed[i]
				if !ok {
					r = Result{ID: v.ID, Level: v.Level, Path: v.Path, Status: NotRun}
				}
				applyExpectations(&r, cfg.ExpectFail)
				rep.Results = append(rep.Results, r)
			}
			p.setClasses(rep, classes, findings)
			rep.Recount()
			return rep, nil
		}
		done = probed
	}
	// Expected failures are applied as each vector ends, so progress lines
	// count an expected failure as XFAIL, not as failing.
	withExpect := func(ctx context.Context, v suite.Ref) (Result, error) {
		r, err := p.vector(ctx, v)
		if err == nil {
			applyExpectations(&r, cfg.ExpectFail)
		}
		return r, err
	}
	results, startErr := p.runRest(ctx, withExpect, done)
	if startErr != nil {
		return nil, startErr
	}
	for i := range results {
		applyExpectations(&results[i], cfg.ExpectFail)
	}
	rep.Results = results
	rep.Interrupted = ctx.Err() != nil
	p.setClasses(rep, classes, findings)
	rep.Recount()
	return rep, nil
}

// applyExpectations turns a result of a vector the expected-failure list
// names into XFAIL (it did not pass) or XPASS (it passed: the list is
// stale); it leaves results already judged so, and NOT_RUN, INVALID,
// SKIPPED and informational ones, as they are. An entry whose reason
// starts with IntermittentPrefix names a failure seen in some runs only
// (a race in the IUT): a pass stays PASS, with an INTERMITTENT_PASSED note,
// so that the same list holds for every run (docs/profiles.md).
func applyExpectations(r *Result, expect map[string]string) {
	reason, listed := expect[r.ID]
	if !listed || r.Status == NotRun || r.Status == Invalid || r.Status == Skipped || r.Status == XFail || r.Status == XPass || r.Level == suite.LevelInformational {
		return
	}
	r.Reason = reason
	if r.Status == Pass && strings.HasPrefix(reason, IntermittentPrefix) {
		r.Findings = append(r.Findings, Finding{Code: FindingIntermittentPass, Message: "passed this time; listed as an intermittent expected failure (" + reason + ")"})
		return
	}
	if r.Status == Pass {
		r.Status = XPass
		r.Findings = append(r.Findings, Finding{Code: FindingUnexpectedPass, Status: XPass, Message: "listed as an expected failure but passed: remove it from the list (" + reason + ")"})
		return
	}
	r.Findings = append(r.Findings, Finding{Code: FindingExpectedFailure, Message: "expected failure: " + reason})
	r.Status = XFail
}

// runAll runs p.vectors on cfg.Jobs workers. It returns an IUT_START error
// when the command cannot be started at all.
func (p *plan) runAll(ctx context.Context, fn func(context.Context, suite.Ref) (Result, error)) ([]Result, error) {
	return p.runRest(ctx, fn, nil)
}

// runRest is [plan.runAll] for the vectors whose result is not in done
// (by index); those results are kept as they are.
func (p *plan) runRest(ctx context.Context, fn func(context.Context, suite.Ref) (Result, error), done map[int]Result) ([]Result, error) {
	// Results are kept compactly while the run lasts and built whole at
	// the end (see resultSlot): at 10,000 vectors whole results were a
	// quarter of the live heap.
	slots := make([]resultSlot, len(p.vectors))
	for i, r := range done {
		slots[i] = p.keep(r, i)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		startErr error
		wg       sync.WaitGroup
	)
	jobs := make(chan int)
	worker := func() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				res, err := fn(runCtx, p.vectors[i])
				mu.Lock()
				if err != nil {
					if startErr == nil {
						startErr = err
					}
					cancel()
				} else if runCtx.Err() == nil || res.Status != NotRun {
					slots[i] = p.keep(res, i)
					if p.cfg.Progress != nil {
						p.cfg.Progress(res)
					}
				}
				mu.Unlock()
			}
		}()
	}
	workers := min(p.cfg.Jobs, len(p.vectors))
	first := workers
	if p.widen {
		// The default -j: start at one worker per start slot and widen
		// while the machine is idle (widen.go).
		first = min(workers, p.cfg.Starts)
	}
	for range first {
		worker()
	}
	stopWidening := p.widenWhileIdle(runCtx, workers-first, worker)
	for i := range p.vectors {
		if _, ok := done[i]; ok {
			continue
		}
		select {
		case jobs <- i:
		case <-runCtx.Done():
		}
		if runCtx.Err() != nil {
			break
		}
	}
	// No worker is added once the last job is handed out (and before
	// wg.Wait).
	stopWidening()
	close(jobs)
	wg.Wait()
	if len(slots) >= gcBeforeResults {
		// The results are built in one allocation of about 300 bytes a
		// vector (3 MiB at 10,000), which new memory would add to the
		// process's peak; collected first, the run's garbage leaves
		// room for them.
		runtime.GC()
	}
	return results(slots, p.vectors), startErr
}

// gcBeforeResults is the number of results from which a run collects its
// garbage before it builds them (see runRest): from about 0.3 MiB of
// results, a collection of a few milliseconds saves more than it costs.
const gcBeforeResults = 1000

// resultSlot holds one result of a run while the run lasts: a plain
// result, the usual one, as its duration, exit status and notes alone (32
// bytes, and its findings if it has any, where a Result takes about 300 and
// its vector's texts as much again), any other whole. A plain result is a
// PASS with exact parity that reports nothing but findings: no difference,
// excerpt, stderr, reason or kept summary, and an exit status without a
// signal. The zero value is a NOT_RUN result.
type resultSlot struct {
	full  *Result
	notes *[]Finding
	ms    int64
	code  int32
	plain bool
}

// keep returns the slot that keeps r, the result of p.vectors[i]. The
// result of a vector listed as an expected failure is kept whole: once it
// becomes XPASS, printers show its description.
func (p *plan) keep(r Result, i int) resultSlot {
	if _, listed := p.cfg.ExpectFail[r.ID]; listed {
		whole := r
		return resultSlot{full: &whole}
	}
	return keepResult(r, p.vectors[i])
}

// keepResult returns the slot that keeps r, the result of vector v.
func keepResult(r Result, v suite.Ref) resultSlot {
	e := r.Exit
	if r.Status == Pass && r.Parity == ParityExact && r.ID == v.ID && r.Level == v.Level && r.Path == v.Path &&
		len(r.Differences) == 0 && r.Reason == "" && r.Expected == "" && r.Actual == "" &&
		r.Stderr == "" && r.Canonical == nil && e != nil && e.Signal == "" && e.Stopped == "" && e.Code == int(int32(e.Code)) {
		s := resultSlot{ms: r.DurationMS, code: int32(e.Code), plain: true}
		if len(r.Findings) > 0 {
			notes := r.Findings
			s.notes = &notes
		}
		return s
	}
	if r.Status == NotRun && r.ID == v.ID && r.Level == v.Level && r.Path == v.Path && len(r.Findings) == 0 &&
		r.Reason == "" && r.Exit == nil && r.DurationMS == 0 && r.Parity == "" && r.Canonical == nil && r.Stderr == "" &&
		r.Expected == "" && r.Actual == "" && len(r.Differences) == 0 {
		return resultSlot{}
	}
	whole := r
	return resultSlot{full: &whole}
}

// results builds the results the slots keep, in order (vs are their
// vectors). A plain result gets no Description, Source or GoldenPath:
// printers show them only for results that did not pass or that differ
// from their golden file.
func results(slots []resultSlot, vs []suite.Ref) []Result {
	out := make([]Result, len(slots))
	plain := 0
	for _, s := range slots {
		if s.plain {
			plain++
		}
	}
	exits := make([]proc.Exit, 0, plain)
	for i, s := range slots {
		v := vs[i]
		switch {
		case s.full != nil:
			out[i] = *s.full
		case s.plain:
			exits = append(exits, proc.Exit{Code: int(s.code)})
			out[i] = Result{ID: v.ID, Level: v.Level, Status: Pass, Path: v.Path, DurationMS: s.ms, Parity: ParityExact, Exit: &exits[len(exits)-1]}
			if s.notes != nil {
				out[i].Findings = *s.notes
			}
		default:
			out[i] = Result{ID: v.ID, Level: v.Level, Path: v.Path, Status: NotRun}
		}
	}
	return out
}

// vector runs one vector, turning golden-file problems into INVALID results.
func (p *plan) vector(ctx context.Context, v suite.Ref) (Result, error) {
	res, _, err := p.vectorOutcome(ctx, v)
	return res, err
}

// vectorOutcome is [plan.vector] that also returns the session's outcome
// (nil for an INVALID or SKIPPED result).
func (p *plan) vectorOutcome(ctx context.Context, v suite.Ref) (Result, *outcome, error) {
	res, l, stop := p.admit(v)
	if stop {
		return res, nil, nil
	}
	return p.runLoaded(ctx, v, l)
}

// admit loads vector v and decides whether it runs: stop is set, with
// its result, for a vector of a class not judged (SKIPPED), one that does
// not load (INVALID) and one whose requires do not hold (SKIPPED, or FAIL
// for a required vector of a judged class).
func (p *plan) admit(v suite.Ref) (res Result, l *loaded, stop bool) {
	if p.judged != nil && !p.judged[v.Class] {
		return Result{ID: v.ID, Level: v.Level, Class: v.Class, Path: v.Path, Status: Skipped,
			Findings: []Finding{{Code: FindingClassNotClaimed, Message: fmt.Sprintf("not run: its class %q is not judged in this run (not claimed, not always judged, and not derived from what the IUT declared)", v.Class)}}}, nil, true
	}
	l, lerr := p.load(v)
	if lerr != nil {
		return Result{ID: v.ID, Level: v.Level, Path: v.Path, Status: Invalid,
			Findings: []Finding{{Code: codeOr(lerr, kiterr.VectorInvalid), Status: Invalid, Message: messageOf(lerr)}}}, nil, true
	}
	if unmet := p.unmet(l.v); unmet != "" {
		if p.judged != nil && v.Level == suite.LevelRequired {
			// A required vector of a judged class: the class says the
			// IUT has the feature, so a vector that cannot run fails.
			return Result{ID: v.ID, Level: v.Level, Class: v.Class, Path: v.Path, Status: Fail,
				Findings: []Finding{{Code: FindingRequirementUnmet, Status: Fail, Message: strings.Replace(unmet, "not run: ", fmt.Sprintf("not run, and required by the judged class %q: ", v.Class), 1)}}}, nil, true
		}
		return Result{ID: v.ID, Level: v.Level, Class: v.Class, Path: v.Path, Status: Skipped,
			Findings: []Finding{{Code: FindingRequirementUnmet, Message: unmet}}}, nil, true
	}
	return Result{}, l, false
}

// runLoaded runs vector v, loaded as l, whatever the classes judged and
// its requires (see [plan.admit]), turning golden-file problems into
// INVALID results.
func (p *plan) runLoaded(ctx context.Context, v suite.Ref, l *loaded) (Result, *outcome, error) {
	invalid := func(err error, def kiterr.Code) (Result, *outcome, error) {
		return Result{ID: v.ID, Level: v.Level, Path: v.Path, Status: Invalid,
			Findings: []Finding{{Code: codeOr(err, def), Status: Invalid, Message: messageOf(err)}}}, nil, nil
	}
	golden, goldenPath, gerr := p.golden(l)
	if gerr != nil {
		return invalid(gerr, kiterr.GoldenInvalid)
	}
	l.keepRaw = p.discovers(v.ID)
	out, err := p.session(ctx, l)
	if err != nil {
		return Result{}, nil, err
	}
	res := out.result(v, golden, goldenPath, l.conf, p.cfg.Exact)
	res.Class = v.Class
	if p.cfg.Record != nil && res.Status != NotRun {
		p.cfg.Record(res, res.Canonical)
	}
	if !p.cfg.keepSummaries {
		res.Canonical = nil
	} else {
		res.Golden = golden
	}
	return res, out, nil
}

// preflightFramesOnly runs the version's preflight vector, if there is one
// among the role's vectors, only for the frames the IUT writes (no golden
// is read: golden --update makes them), which vectors' requires are then
// checked against. Errors: those of the session (IUT_START) and the
// vector's load errors.
func (p *plan) preflightFramesOnly(ctx context.Context) error {
	for _, v := range p.sessions {
		if v.ID != p.ver.Preflight {
			continue
		}
		l, err := p.load(v)
		if err != nil {
			return err
		}
		l.keepRaw = true
		out, err := p.session(ctx, l)
		if err != nil {
			return err
		}
		p.preflightFrames = out.raw
	}
	return p.discoverFrames(ctx)
}

// unmet returns why the vector does not apply to the IUT, or "": the first
// predicate of its requires that no frame the IUT wrote in the preflight
// and discover vectors satisfies (each predicate may hold for another
// frame: the capabilities of an initialize reply, the tools of a list).
func (p *plan) unmet(v *suite.Vector) string {
	return p.unmetOf(v.Requires)
}

// unmetOf is unmet for a list of predicates.
func (p *plan) unmetOf(preds []envelope.Predicate) string {
	for _, pred := range preds {
		m, err := envelope.CompileMatch([]envelope.Predicate{pred})
		if err != nil {
			return err.Error() // the loader compiled it: not reached
		}
		held := false
		for _, f := range p.preflightFrames {
			if m.Holds(f) {
				held = true
				break
			}
		}
		if held {
			continue
		}
		if len(p.preflightFrames) == 0 {
			return fmt.Sprintf("not run: it requires %s of a frame the IUT writes in the preflight vector %s, which wrote none here (or did not run)", m.Failing(nil), p.ver.Preflight)
		}
		return fmt.Sprintf("not run: no frame the IUT wrote in the preflight vector %s%s satisfies %s (a capability or feature it did not declare)", p.ver.Preflight, discoverNote(p.ver), m.Failing(nil))
	}
	return ""
}

// golden returns the vector's golden summary and where it comes from: its
// golden file, or for a vector whose golden is a set of fixture files,
// the summary of those frames, normalized as the IUT's frames are. Errors:
// GOLDEN_MISSING, GOLDEN_INVALID (a fixture that is not one JSON object),
// a digest problem, VECTOR_TOO_LARGE.
func (p *plan) golden(l *loaded) ([]byte, string, error) {
	v := l.v
	if len(v.Fixture) == 0 {
		b, err := p.cfg.Suite.ReadGolden(p.ver, p.cfg.Role, v.ID)
		return b, suite.GoldenPath(p.ver, p.cfg.Role, v.ID), err
	}
	sum := &summarizer{rules: l.rules, matched: make([]bool, len(l.rules)),
		scope: normalize.Scope{UserData: l.conf.UserDataPatterns(), General: len(p.ver.Normalize)}, room: p.cfg.frameBudget()}
	o := &outcome{}
	for _, name := range v.Fixture {
		data, err := p.cfg.Suite.ReadFile(name)
		if err != nil {
			return nil, name, err
		}
		f, err := canon.Parse(data)
		if err != nil {
			return nil, name, kiterr.Wrap(kiterr.GoldenInvalid, err, "fixture %s", name)
		}
		if _, ok := f.(map[string]any); !ok {
			return nil, name, kiterr.New(kiterr.GoldenInvalid, "fixture %s is not one JSON object (a frame)", name)
		}
		sum.add(o, f, p.cfg.MaxVectorBytes)
	}
	if sum.inexact != nil || o.overBudget || len(sum.mismatches) > 0 {
		why := fmt.Sprint(sum.inexact)
		if len(sum.mismatches) > 0 {
			why = sum.mismatches[0]
		} else if o.overBudget {
			why = "larger than the vector's budget"
		}
		return nil, v.Fixture[0], kiterr.New(kiterr.GoldenInvalid, "fixture of %s: %s", v.ID, why)
	}
	exit := ""
	if v.Expect.Exit == "zero" || v.Expect.Exit == "nonzero" {
		exit = v.Expect.Exit
	}
	return summaryBytes(v.ID, exit, sum.frames), strings.Join(v.Fixture, ", "), nil
}

// messageOf returns err's text without its leading stable code, which
// reports print separately.
func messageOf(err error) string {
	if c := kiterr.CodeOf(err); c != "" {
		return strings.TrimPrefix(err.Error(), string(c)+": ")
	}
	return err.Error()
}

// codeOr returns err's stable code, or def when err carries none.
func codeOr(err error, def kiterr.Code) string {
	if c := kiterr.CodeOf(err); c != "" {
		return string(c)
	}
	return string(def)
}

// preflight runs the version's preflight vector, if it names one of the
// role's vectors, and reports whether the IUT passed it (or there is none).
// A failing result gets a finding that says the IUT does not speak the
// version. Errors: those of the session (IUT_START, IO).
func (p *plan) preflight(ctx context.Context) (Result, bool, error) {
	if p.ver.Preflight == "" {
		return Result{}, true, nil
	}
	var pv suite.Ref
	for _, v := range p.sessions {
		if v.ID == p.ver.Preflight {
			pv = v
		}
	}
	if pv.ID == "" {
		return Result{}, true, nil
	}
	res, out, err := p.vectorOutcome(ctx, pv)
	if err != nil {
		return res, false, err
	}
	if err == nil && out != nil {
		// What a vector's requires is checked against.
		p.preflightFrames = out.raw
		p.preflightPassed = res.Status == Pass
	}
	if res.Status == Pass || res.Status == Invalid || ctx.Err() != nil {
		return res, true, nil // bad input surfaces in the main run
	}
	res.Findings = append(res.Findings, Finding{Code: FindingVersionUnsupported, Status: res.Status,
		Message: fmt.Sprintf("the IUT did not pass the preflight vector %s (%s), which the suite runs first to check that the IUT speaks version %s of its protocol, so the other vectors were not run; the findings before this one say why (an IUT of another version answers in that version's form or names no version both share; a crash or a timeout is just that)", pv.ID, res.Status, versionName(p.ver))})
	return res, false, nil
}

// versionName names a suite version for messages: its number, with its
// label when it has one ("1 (2025-11-25)").
func versionName(ver *suite.Version) string {
	if ver.Label != "" && ver.Label != strconv.Itoa(ver.Version) {
		return fmt.Sprintf("%d (%s)", ver.Version, ver.Label)
	}
	return strconv.Itoa(ver.Version)
}
