// Package profile reads IUT profiles: a folder (impl/<name>/) whose
// profile.json says how to start an implementation under test, which
// environment it needs, and which vectors it is expected to fail.
package profile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/conform-kit/conform/internal/kiterr"
)

// File is the name of the profile inside its folder.
const File = "profile.json"

// SchemaFile is the JSON Schema of File, in the suite
// (schemas/profile.schema.json): conform validate applies it.
const SchemaFile = "schemas/profile.schema.json"

// Modes of [Profile.Mode].
const (
	// ModeDirect: the runner writes the vector's frames to the IUT's stdin.
	ModeDirect = "direct"
	// ModeSpawned: the IUT starts the agent double found in CONFORM_AGENT.
	ModeSpawned = "spawned"
)

// Profile is a parsed profile.json.
//
//	{"name": "claude-code", "implementation": "Claude Code CLI 2.1.332",
//	 "command": ["${CONFORM_CACHE}/claude-code-2.1.332/.../claude.exe", "-p", ...],
//	 "env": {"ANTHROPIC_API_KEY": "offline"}, "expectFail": "expected-failures.txt",
//	 "install": "install.sh", "timeout": "10s"}
//
// Strings in command and env may use ${PROFILE_DIR} (the profile's folder,
// absolute) and ${CONFORM_CACHE} ($CONFORM_CACHE, else $XDG_CACHE_HOME/conform,
// else $HOME/.cache/conform); env values may also use ${HOME}, the IUT's
// fresh temporary home. No other expansion happens and no shell is involved.
//
// Mode is "direct" (the default when empty: the runner speaks to the IUT
// over its stdin/stdout) or "spawned" (the IUT is a host, such as an Agent
// SDK driver, that starts the agent itself: the runner hands it an agent
// double's path in CONFORM_AGENT; see runner.Config.Spawn).
type Profile struct {
	Name           string            `json:"name"`
	Implementation string            `json:"implementation,omitempty"`
	Command        []string          `json:"command"`
	Env            map[string]string `json:"env,omitempty"`
	ExpectFail     string            `json:"expectFail,omitempty"`
	Install        string            `json:"install,omitempty"`
	Timeout        string            `json:"timeout,omitempty"`
	Notes          string            `json:"notes,omitempty"`
	Mode           string            `json:"mode,omitempty"`
	// Quiet and Grace are the implementation's quiet bound and exit
	// grace, Go durations ("2s"; quiet "0s": none), overriding the
	// suite's; --quiet and --grace override them ([Profile.QuietBound],
	// [Profile.GraceDuration]; docs/running.md "Bounds").
	Quiet string `json:"quiet,omitempty"`
	Grace string `json:"grace,omitempty"`
	// Version, Language, Source and Issues describe the implementation
	// for people: its version, the language it is written in, and the
	// URLs of its source and issue tracker (reports carry them; conform
	// matrix shows them). Optional for Load; conform validate warns about
	// each one missing ([Profile.Warnings], [MetadataMissing]). Homepage
	// is the URL people start from (its documentation, else its package
	// registry page); optional, with no warning. schemas/profile.schema.json.
	Version  string `json:"version,omitempty"`
	Language string `json:"language,omitempty"`
	Source   string `json:"source,omitempty"`
	Issues   string `json:"issues,omitempty"`
	Homepage string `json:"homepage,omitempty"`
	// Artifact is the file the profile pins (an npm tarball, a crate),
	// named and digested as lock files record it; an attestation's
	// subject. Optional; Load checks its form ([Artifact]).
	Artifact *Artifact `json:"artifact,omitempty"`
	// Suite is the suite the profile is certified against: the name of a
	// suite embedded in conform ("mcp"), or its folder relative to the
	// profile's folder ("../../suites/mcp"); empty for the control suite
	// embedded in conform. Role is the role it plays (empty: the suite
	// version's first). --suite and --role override them.
	Suite string `json:"suite,omitempty"`
	Role  string `json:"role,omitempty"`
	// Claims are the conformance classes the implementation claims (class
	// names of its suite, suite.json "classes"; one profile of an
	// implementation that plays several roles names the classes of each):
	// a run judges those of its version and role (and the classes they
	// require) and the always-judged ones, and skips the rest
	// (CLASS_NOT_CLAIMED); a claim the negotiated frames contradict fails
	// the run (CLAIM_CONTRADICTED). Nil: the classes judged are derived
	// from the negotiated frames. conform run --claim overrides it.
	// Checked against the suite by the run (CLAIM_UNKNOWN), not here.
	Claims []string `json:"claims,omitempty"`
	// Vars are values of the vars its suite declares (suite.json vars),
	// by name, any JSON value each (numbers as json.Number): a vector's
	// ${var:NAME} takes them instead of the suite's defaults. conform run
	// --var NAME=JSON overrides one. Checked against the suite by the run
	// (VECTOR_VAR_UNKNOWN), not here.
	Vars map[string]any `json:"vars,omitempty"`
	// Dir is the profile's folder (absolute).
	Dir string `json:"-"`

	timeout, quiet, grace time.Duration
}

// Artifact is the released file a profile pins, in the form of an in-toto
// ResourceDescriptor (in-toto Attestation Framework v1,
// spec/v1/resource_descriptor.md) so that it can be an attestation's
// subject as it is:
//
//	{"name": "rmcp-3.11.0.crate",
//	 "uri": "https://static.crates.io/crates/rmcp/rmcp-3.11.0.crate",
//	 "digest": {"sha256": "391f15...d85b"}}
//
// Name is how the ecosystem names the file (a crate file, "pkg@version"
// for npm); URI where it is downloaded (http or https); Digest maps an
// algorithm, "sha256" or "sha512", to the lowercase hex digest of the
// file's bytes, as the implementation's lock file records it
// (Cargo.lock's checksum, package-lock.json's integrity decoded).
type Artifact struct {
	Name   string            `json:"name"`
	URI    string            `json:"uri"`
	Digest map[string]string `json:"digest"`
}

// check returns what is wrong with a, or "".
func (a *Artifact) check() string {
	switch {
	case a.Name == "":
		return "artifact has no name"
	case !webURL().MatchString(a.URI):
		return fmt.Sprintf("artifact uri %q is not an http or https URL", a.URI)
	case len(a.Digest) == 0:
		return "artifact has no digest"
	}
	for alg, hex := range a.Digest {
		n := map[string]int{"sha256": 64, "sha512": 128}[alg]
		if n == 0 {
			return fmt.Sprintf("artifact digest algorithm %q is neither sha256 nor sha512", alg)
		}
		if len(hex) != n || strings.Trim(hex, "0123456789abcdef") != "" {
			return fmt.Sprintf("artifact %s digest %q is not %d lowercase hex digits", alg, hex, n)
		}
	}
	return ""
}

// TimeoutDuration returns Timeout parsed (Load checked that it is a
// positive duration), or 0 when the profile sets none.
func (p *Profile) TimeoutDuration() time.Duration { return p.timeout }

// QuietBound returns Quiet parsed and whether the profile sets it; 0 with
// set true means no quiet bound.
func (p *Profile) QuietBound() (d time.Duration, set bool) { return p.quiet, p.Quiet != "" }

// GraceDuration returns Grace parsed (a positive duration), or 0 when the
// profile sets none.
func (p *Profile) GraceDuration() time.Duration { return p.grace }

// MaxFile is the largest profile file read, in bytes (1 MiB): profile.json
// and an expected-failure list. The largest in this repository is 6 KB.
const MaxFile = 1 << 20

// Load reads dir/profile.json and expands its variables. The file is read
// as every file of a profile is ([ReadExpectFileIn]): inside dir only,
// a regular file, at most [MaxFile] bytes. Errors: PROFILE_INVALID
// (missing file, a link out of dir, not a regular file, too large, bad
// JSON, unknown member, empty command, a timeout or grace that is not a
// positive duration, a quiet that is negative or no duration, a source,
// issues or homepage that is not a web URL, an artifact of the wrong
// form).
func Load(dir string) (*Profile, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.ProfileInvalid, err, "profile %s", dir)
	}
	data, err := readIn(abs, File)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.ProfileInvalid, err, "read profile")
	}
	var p Profile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber() // vars keep their numbers' text
	if err := dec.Decode(&p); err != nil {
		return nil, kiterr.Wrap(kiterr.ProfileInvalid, err, "parse %s", filepath.Join(abs, File))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, kiterr.New(kiterr.ProfileInvalid, "%s: trailing data after the profile object", filepath.Join(abs, File))
	}
	if len(p.Command) == 0 {
		return nil, kiterr.New(kiterr.ProfileInvalid, "%s: empty command", filepath.Join(abs, File))
	}
	if p.Timeout != "" {
		// Validated like the --timeout flag: a bound that makes no sense
		// is an error, never silently replaced by the default.
		d, err := time.ParseDuration(p.Timeout)
		switch {
		case err != nil:
			return nil, kiterr.New(kiterr.ProfileInvalid, "%s: timeout %q is not a duration such as \"10s\"", filepath.Join(abs, File), p.Timeout)
		case d <= 0:
			return nil, kiterr.New(kiterr.ProfileInvalid, "%s: timeout %q must be a positive duration, as --timeout must", filepath.Join(abs, File), p.Timeout)
		}
		p.timeout = d
	}
	for _, b := range []struct {
		member, value string
		zeroOK        bool
		into          *time.Duration
	}{{"quiet", p.Quiet, true, &p.quiet}, {"grace", p.Grace, false, &p.grace}} {
		if b.value == "" {
			continue
		}
		d, err := time.ParseDuration(b.value)
		switch {
		case err != nil:
			return nil, kiterr.New(kiterr.ProfileInvalid, "%s: %s %q is not a duration such as \"2s\"", filepath.Join(abs, File), b.member, b.value)
		case d < 0 && b.zeroOK:
			return nil, kiterr.New(kiterr.ProfileInvalid, "%s: %s %q must be 0 (none) or a positive duration, as --%s must", filepath.Join(abs, File), b.member, b.value, b.member)
		case d <= 0 && !b.zeroOK:
			return nil, kiterr.New(kiterr.ProfileInvalid, "%s: %s %q must be a positive duration, as --%s must", filepath.Join(abs, File), b.member, b.value, b.member)
		}
		*b.into = d
	}
	for _, u := range []struct{ member, value string }{{"source", p.Source}, {"issues", p.Issues}, {"homepage", p.Homepage}} {
		if u.value != "" && !webURL().MatchString(u.value) {
			return nil, kiterr.New(kiterr.ProfileInvalid, "%s: %s %q is not an http or https URL", filepath.Join(abs, File), u.member, u.value)
		}
	}
	if p.Artifact != nil {
		if msg := p.Artifact.check(); msg != "" {
			return nil, kiterr.New(kiterr.ProfileInvalid, "%s: %s", filepath.Join(abs, File), msg)
		}
	}
	switch p.Mode {
	case "", ModeDirect, ModeSpawned:
	default:
		return nil, kiterr.New(kiterr.ProfileInvalid, "%s: mode %q is neither %q nor %q", filepath.Join(abs, File), p.Mode, ModeDirect, ModeSpawned)
	}
	p.Dir = abs
	vars := map[string]string{"PROFILE_DIR": abs, "CONFORM_CACHE": CacheDir()}
	for i, a := range p.Command {
		p.Command[i] = expand(a, vars)
	}
	for k, v := range p.Env {
		p.Env[k] = expand(v, vars)
	}
	return &p, nil
}

// ExpectFailPath returns the absolute path of the expected-failure file,
// or "", for messages; read it with [Profile.ExpectFailures].
func (p *Profile) ExpectFailPath() string {
	if p.ExpectFail == "" {
		return ""
	}
	return filepath.Join(p.Dir, p.ExpectFail)
}

// ExpectFailures reads the profile's expected-failure list (ExpectFail)
// inside the profile's folder ([ReadExpectFileIn]); nil when the profile
// names none.
func (p *Profile) ExpectFailures() (map[string]string, error) {
	if p.ExpectFail == "" {
		return nil, nil
	}
	return ReadExpectFileIn(p.Dir, p.ExpectFail)
}

// ReadExpectFileIn reads the expected-failure list name, a path relative
// to the profile folder dir, with [ParseExpectFail], as a suite directory
// is read: through an [os.Root] opened on dir, so that neither a `..`, an
// absolute path nor a symbolic link leads out of it (a link that stays
// inside is followed); only a regular file is read (a FIFO is opened
// without waiting, then refused), and at most [MaxFile] bytes. A profile
// from an untrusted change can so make conform read, and print in an
// error, only what is inside its own folder. Errors: EXPECT_FILE_INVALID
// (wrapping fs.ErrNotExist for a missing file).
func ReadExpectFileIn(dir, name string) (map[string]string, error) {
	data, err := readIn(dir, name)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.ExpectFileInvalid, err, "expected-failure list of the profile %s", dir)
	}
	return ParseExpectFail(bytes.NewReader(data), filepath.Join(dir, name))
}

// readIn reads the regular file name inside the folder dir, never leaving
// it (see [ReadExpectFileIn]), at most MaxFile bytes. Its errors name the
// file, never its content.
func readIn(dir, name string) ([]byte, error) {
	if !filepath.IsLocal(name) {
		return nil, fmt.Errorf("%s is not a path inside the profile folder %s (absolute, or with ..): refused", name, dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_RDONLY|nonBlocking, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("%s cannot be opened inside the profile folder %s (a symbolic link out of it is refused): %w", name, dir, err)
	}
	defer f.Close()
	return readRegular(f, filepath.Join(dir, name))
}

// readRegular reads the open file f (named name in errors) when it is a
// regular file of at most MaxFile bytes.
func readRegular(f *os.File, name string) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): refused", name, st.Mode().Type())
	}
	if st.Size() > MaxFile {
		return nil, fmt.Errorf("%s is %d bytes, over the %d a profile file may have: refused", name, st.Size(), MaxFile)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFile {
		return nil, fmt.Errorf("%s grew over the %d bytes a profile file may have: refused", name, MaxFile)
	}
	return data, nil
}

// CacheDir returns where profiles install implementations, outside any
// checkout: $CONFORM_CACHE, else $XDG_CACHE_HOME/conform, else
// $HOME/.cache/conform.
func CacheDir() string {
	if d := os.Getenv("CONFORM_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "conform")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "conform")
}

var varRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Z_]+)\}`) })

// webURL is the form of source and issues (report.schema.json URL).
var webURL = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^https?://[^\s"<>]+$`) })

func expand(s string, vars map[string]string) string {
	return varRE().ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := vars[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

// ParseExpectFail reads an expected-failure list: one vector id per line,
// then "#" and a required reason; blank lines and lines starting with "#"
// are comments. It returns id -> reason. Errors: EXPECT_FILE_INVALID with
// the line number (an entry without a reason, a duplicate id, an id with
// spaces).
func ParseExpectFail(r io.Reader, name string) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, reason, ok := strings.Cut(line, "#")
		id, reason = strings.TrimSpace(id), strings.TrimSpace(reason)
		switch {
		case !ok || reason == "":
			return nil, kiterr.New(kiterr.ExpectFileInvalid, "%s:%d: entry %q needs a reason after '#'", name, n, id)
		case strings.ContainsAny(id, " \t"):
			return nil, kiterr.New(kiterr.ExpectFileInvalid, "%s:%d: %q is not one vector id", name, n, id)
		}
		if _, dup := out[id]; dup {
			return nil, kiterr.New(kiterr.ExpectFileInvalid, "%s:%d: %s is listed twice", name, n, id)
		}
		out[id] = reason
	}
	if err := sc.Err(); err != nil {
		return nil, kiterr.Wrap(kiterr.ExpectFileInvalid, err, "read %s", name)
	}
	return out, nil
}

// ReadExpectFail reads the list at path (given on the command line, such
// as --expect-fail) with [ParseExpectFail]: a regular file of at most
// [MaxFile] bytes (a FIFO is opened without waiting, then refused). A
// profile's own list is read with [Profile.ExpectFailures]. Errors:
// EXPECT_FILE_INVALID.
func ReadExpectFail(path string) (map[string]string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlocking, 0)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.ExpectFileInvalid, err, "open expected-failure list")
	}
	defer f.Close()
	data, err := readRegular(f, path)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.ExpectFileInvalid, err, "read expected-failure list")
	}
	return ParseExpectFail(bytes.NewReader(data), path)
}

// MetadataMissing is the code of the warning [Profile.Warnings] gives for
// each of the members version, language, source and issues a profile
// lacks: the profile runs, but
// its page and reports cannot say which release of what, in which
// language, or where to read its source and report a finding. Stable
// (conform validate prints it; docs/profiles.md).
const MetadataMissing = "PROFILE_METADATA_MISSING"

// Warning is a finding about a profile that does not stop it from being
// used: Code (such as [MetadataMissing]), the Member it is about, and a
// Message for people.
type Warning struct {
	Code    string
	Member  string
	Message string
}

// Warnings returns what the profile lacks for people: one [MetadataMissing]
// warning per member of version, language, source and issues (in that
// order) that is absent or empty; nil when it lacks none. Every committed
// profile carries all four (issue 30 item 4). A warning never changes an
// exit status.
func (p *Profile) Warnings() []Warning {
	var out []Warning
	for _, m := range []struct{ name, value string }{
		{"version", p.Version}, {"language", p.Language}, {"source", p.Source}, {"issues", p.Issues},
	} {
		if m.value == "" {
			out = append(out, Warning{Code: MetadataMissing, Member: m.name,
				Message: fmt.Sprintf("no %q: the implementation's page and reports cannot show it (schemas/profile.schema.json)", m.name)})
		}
	}
	return out
}

// String renders the command for messages.
func (p *Profile) String() string {
	return fmt.Sprintf("%s (%s)", p.Name, strings.Join(p.Command, " "))
}
