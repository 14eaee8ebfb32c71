// Package matrix does the work of `conform matrix`: it reads saved reports,
// runs implementations for every role and protocol version asked, builds
// the certification matrix (result.BuildMatrix), adds release trends and
// report histories, and writes the overview, the implementation pages, their
// badges and the generated block of each profile's README. The command
// (cmd/conform) only turns flags into a [Config] and an error into an exit
// status; a test calls [Make] without a command line.
package matrix

import (
	"context"
	"fmt"
	"github.com/conform-kit/conform/internal/input"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/result"
	"github.com/conform-kit/conform/runner"
)

// Formats of the overview and the pages ([Config.Format]).
const (
	FormatMarkdown = "markdown"
	FormatHTML     = "html"
	FormatJSON     = "json"
)

// Config is what one `conform matrix` makes. The zero value of every
// optional field means "not asked for".
type Config struct {
	// Suite is the suite the runs use and the reports are read with.
	Suite *runner.Suite
	// SuiteDir is --suite as given ("" for the embedded suite); a run's
	// invocation names it (relative to the working directory when it was
	// given absolute, so that no machine path reaches a page).
	SuiteDir string

	// Impls are the implementations to run (--impl), each for every role
	// of Roles and version of Versions, in that order.
	Impls    []Impl
	Roles    []string
	Versions []int
	// Run holds the bounds and filters of those runs.
	Run RunOptions

	// From are saved reports (--from), read before the runs.
	From []Source
	// Trends are release trends from recordings (--trend NAME=DIR).
	Trends []Trend
	// Histories are folders of saved reports (--history DIR), shown as
	// each implementation's history ([ReadHistory]).
	Histories []string

	// Format is FormatMarkdown, FormatHTML or FormatJSON.
	Format string
	// Out is the overview's file ("" for Stdout).
	Out string
	// Pages is the folder of the implementation pages and badges ("" for
	// none: the pages go inside the overview).
	Pages string
	// Readmes rewrites the generated block of each profile's README.md.
	Readmes bool

	Stdout, Stderr io.Writer
	// WriteFile writes the file name atomically with print (cmd/conform's
	// writeAtomic). Required when Pages or Readmes is set.
	WriteFile func(name string, print func(io.Writer) error) error
	// WriteOut writes the overview: to Out when set, else to Stdout
	// (cmd/conform's output.write). nil writes to Stdout.
	WriteOut func(print func(io.Writer) error) error
	// Now is the clock for the durations printed on Stderr (default
	// time.Now).
	Now func() time.Time
}

// Impl is one implementation to run (--impl NAME=...).
type Impl struct {
	// Name labels its columns.
	Name string
	// Configure sets cfg, whose Suite, Role, Version, Filters, bounds and
	// Implementation (Name) are set, to run the implementation, and
	// returns how the run's invocation names it and what describes its
	// report. Errors are returned by [Make] as they are.
	Configure func(cfg *runner.Config) (Setup, error)
}

// Setup is what [Impl.Configure] returns.
type Setup struct {
	// Profile are the conform run arguments that name a profile
	// ("--profile", DIR), or nil.
	Profile []string
	// Command is the IUT command as a run's invocation names it after
	// "--", or nil (a profile, the reference).
	Command []string
	// Describe fills the report's implementation facts (version,
	// language, source, issues); nil leaves them.
	Describe func(*result.Report)
}

// RunOptions are the settings of the runs [Make] makes.
type RunOptions struct {
	Filters   []string
	Jobs      int
	Timeout   time.Duration
	Grace     time.Duration
	KillAfter time.Duration
	// Recorded lists the flags given on the command line that a run's
	// invocation records: "timeout", "grace", "kill-after".
	Recorded []string
}

// Source is a saved JSON report (--from [NAME=]FILE).
type Source struct {
	Name, File string
}

// ParseSource reads [NAME=]FILE: without a NAME (or with one holding a
// path separator), the report is named by FILE's base name up to its first
// dot (reports/python.agent-v1.json is python).
func ParseSource(spec string) Source {
	if n, f, ok := strings.Cut(spec, "="); ok && n != "" && !strings.ContainsAny(n, `/\`) {
		return Source{Name: n, File: f}
	}
	return Source{Name: baseName(spec), File: spec}
}

// baseName is a file's base name up to its first dot.
func baseName(file string) string {
	base := filepath.Base(file)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}

// Trend is --trend NAME=DIR.
type Trend struct {
	Name, Dir string
}

// ParseTrend reads NAME=DIR. Errors: USAGE.
func ParseTrend(spec string) (Trend, error) {
	name, dir, ok := strings.Cut(spec, "=")
	if !ok || name == "" || dir == "" {
		return Trend{}, kiterr.New(kiterr.Usage, "--trend %q: want NAME=DIR", spec)
	}
	return Trend{Name: name, Dir: dir}, nil
}

// Check returns a USAGE error for a Config no command line should give:
// an unknown format, pages in JSON, nothing to show, roles, versions or
// filters without implementations to run.
func (c *Config) Check() error {
	switch c.Format {
	case FormatMarkdown, FormatHTML, FormatJSON:
	default:
		return kiterr.New(kiterr.Usage, "--format must be markdown, html or json")
	}
	switch {
	case c.Pages != "" && c.Format == FormatJSON:
		return kiterr.New(kiterr.Usage, "--pages writes Markdown or HTML pages: give --format markdown or html (the JSON matrix holds everything the pages show)")
	case len(c.Impls) == 0 && len(c.From) == 0:
		return kiterr.New(kiterr.Usage, "name implementations with --impl NAME=PROFILE_DIR|reference|COMMAND or saved reports with --from FILE")
	}
	return nil
}

// Make makes the matrix c asks for and writes it: the saved reports, then
// the runs (one line per run on Stderr), the trends and histories, the
// READMEs, the pages and the overview. It returns the matrix. Errors:
// USAGE, REPORT_INVALID, REPORT_SUITE_MISMATCH, PATH_NOT_FOUND, IO, those
// of the runs (IUT_START, ...), and INTERRUPTED when ctx was cancelled or
// a run was interrupted.
func Make(ctx context.Context, c Config) (*result.Matrix, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	now := c.Now
	if now == nil {
		now = time.Now
	}
	inputs, err := ReadReports(c.Suite, c.From)
	if err != nil {
		return nil, err
	}
	start := now()
	runs, err := c.runAll(ctx, now)
	if err != nil {
		return nil, err
	}
	m, err := runner.BuildMatrix(append(inputs, runs...))
	if err != nil {
		return nil, err
	}
	if m.Suite.Digest == c.Suite.Digest {
		m.SetSources(sources(c.Suite))
	}
	if err := profileFacts(m); err != nil {
		return nil, err
	}
	if err := c.addTrends(m); err != nil {
		return nil, err
	}
	for _, dir := range c.Histories {
		if err := AddHistory(m, c.Suite, dir); err != nil {
			return nil, err
		}
	}
	if c.SuiteDir == "" && m.Suite.Digest != c.Suite.Digest {
		fmt.Fprintf(c.Stderr, "conform: note: the reports were made with suite %s, not the suite embedded in conform (%s)\n", m.Suite.Digest, c.Suite.Digest)
	}
	if err := c.write(m); err != nil {
		return nil, err
	}
	if len(c.Impls) > 0 {
		fmt.Fprintf(c.Stderr, "matrix of %d implementations in %s\n", len(m.Implementations), now().Sub(start).Round(time.Millisecond))
	}
	return m, nil
}

// ReadReports reads the saved reports of sources with s
// (runner.ReadReport), each a bounded regular file ([input.ReadFile]).
// Errors: PATH_NOT_FOUND, INPUT_NOT_REGULAR, INPUT_TOO_LARGE, REPORT_INVALID.
func ReadReports(s *runner.Suite, sources []Source) ([]runner.MatrixInput, error) {
	var inputs []runner.MatrixInput
	for _, src := range sources {
		data, err := input.ReadFile(src.File, input.MaxReport, "--from report")
		if err != nil {
			return nil, err
		}
		rep, err := runner.ReadReport(s, data)
		if err != nil {
			return nil, fmt.Errorf("report %s: %w", src.File, err)
		}
		inputs = append(inputs, runner.MatrixInput{Name: src.Name, Report: rep})
	}
	return inputs, nil
}

// runAll runs every implementation for every role and version.
func (c *Config) runAll(ctx context.Context, now func() time.Time) ([]runner.MatrixInput, error) {
	var inputs []runner.MatrixInput
	for _, im := range c.Impls {
		for _, role := range c.Roles {
			for _, version := range c.Versions {
				began := now()
				rep, err := c.runOne(ctx, im, role, version)
				if err != nil {
					return nil, err
				}
				fmt.Fprintf(c.Stderr, "%s, %s role, v%d: %s (%s)\n", im.Name, role, version, rep.Verdict, now().Sub(began).Round(time.Millisecond))
				inputs = append(inputs, runner.MatrixInput{Name: im.Name, Report: rep})
			}
		}
	}
	return inputs, nil
}

// runOne runs im once and records the invocation that reproduces the run:
// run, --role, --version, the bounds given on the command line, the
// profile, --suite, --timeout, and the command after "--".
func (c *Config) runOne(ctx context.Context, im Impl, role string, version int) (*runner.Report, error) {
	o := c.Run
	cfg := runner.Config{Suite: c.Suite, Role: role, Version: version, Filters: o.Filters, Jobs: o.Jobs, Timeout: o.Timeout,
		Grace: o.Grace, KillAfter: o.KillAfter, Implementation: im.Name}
	setup, err := im.Configure(&cfg)
	if err != nil {
		return nil, err
	}
	inv := []string{"run", "--role", role, "--version", strconv.Itoa(version)}
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"grace", o.Grace}, {"kill-after", o.KillAfter}} {
		if recorded(o, f.name) {
			inv = append(inv, "--"+f.name, f.d.String())
		}
	}
	inv = append(inv, setup.Profile...)
	if c.SuiteDir != "" {
		inv = append(inv, "--suite", RelativeDir(c.SuiteDir))
	}
	if recorded(o, "timeout") {
		inv = append(inv, "--timeout", o.Timeout.String())
	}
	if setup.Command != nil {
		inv = append(append(inv, "--"), setup.Command...)
	}
	rep, err := runner.Run(ctx, cfg)
	switch {
	case err != nil && ctx.Err() != nil, err == nil && rep.Interrupted:
		return nil, kiterr.New(kiterr.Interrupted, "the matrix run of %s (%s role, v%d) was interrupted", im.Name, role, version)
	case err != nil:
		return nil, err
	}
	rep.Invocation = inv
	if setup.Describe != nil {
		setup.Describe(rep)
	}
	return rep, nil
}

// recorded reports whether the flag name was given on the command line.
func recorded(o RunOptions, name string) bool {
	for _, r := range o.Recorded {
		if r == name {
			return true
		}
	}
	return false
}

// RelativeDir returns dir as a run's invocation records it: an absolute
// dir inside the working directory relative to it (slash-separated), so
// that a page never shows a machine path; dir itself when it is relative,
// outside the working directory (a path climbing out of it would spell the
// machine's folders: pages show an absolute path by its last element,
// result.Portable) or cannot be related.
func RelativeDir(dir string) string {
	if !filepath.IsAbs(dir) {
		return dir
	}
	wd, err := os.Getwd()
	if err != nil || !inside(wd, dir) {
		return dir
	}
	rel, err := filepath.Rel(wd, dir)
	if err != nil {
		return dir
	}
	return filepath.ToSlash(rel)
}

// addTrends sets the trend of each --trend implementation.
func (c *Config) addTrends(m *result.Matrix) error {
	for _, tr := range c.Trends {
		points, err := ReadTrend(tr.Dir)
		if err != nil {
			return err
		}
		if err := m.SetTrend(tr.Name, points); err != nil {
			return err
		}
	}
	return nil
}

// sources returns the source of a vector of s by role, version and id
// ("" for a vector s does not have); each version's vectors are read once.
func sources(s *runner.Suite) func(role string, version int, id string) string {
	byVersion := map[int]map[string]string{}
	return func(role string, version int, id string) string {
		vs, ok := byVersion[version]
		if !ok {
			vs = map[string]string{}
			if ver, err := s.Version(version); err == nil {
				vectors, _, _ := s.Vectors(ver)
				for _, v := range vectors {
					vs[v.Role+"/"+v.ID] = v.Source
				}
			}
			byVersion[version] = vs
		}
		return vs[role+"/"+id]
	}
}
