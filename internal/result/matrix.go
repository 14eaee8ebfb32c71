package result

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/suggest"
)

// MatrixInput is one implementation's report for one role and protocol
// version, under the name that labels its column.
type MatrixInput struct {
	// Name labels the implementation's column ("python"); the same name in
	// several inputs is the same implementation (its reports must name the
	// same Implementation.Name), in different roles or versions.
	Name   string
	Report *Report
}

// Matrix is implementations by vectors, one [MatrixSection] per role and
// protocol version: every cell holds the conformance status and the exact
// parity of one implementation on one vector. Its JSON form is defined by
// schemas/matrix.schema.json.
//
// A Matrix holds only what does not change from run to run of the same
// implementations, but for the date and kit of each run
// ([MatrixColumn.Started], [MatrixColumn.Kit]): no durations, no stderr,
// no exit details, no canonical bytes, no notes (findings without a
// status, such as HOST_SENT, which quotes the host's random request ids,
// or IUT_LINGERED) but the one that says why a vector was SKIPPED; so the
// same reports always give the same matrix, byte for byte, and two runs of
// the same deterministic implementations differ only in their dates and
// kits.
type Matrix struct {
	// Suite is the suite every report was made with.
	Suite MatrixSuite `json:"suite"`
	// Implementations lists each name once, in the order of the inputs
	// where it first appears.
	Implementations []MatrixImplementation `json:"implementations"`
	// Sections are sorted by role, then version.
	Sections []MatrixSection `json:"sections"`
}

// MatrixSuite identifies the suite of a matrix.
type MatrixSuite struct {
	Name   string `json:"name"`
	Digest string `json:"digest"`
	// Title is the suite's short name for people ("MCP"; the first
	// report's [SuiteInfo.Title], "" when none gives one): badges and
	// pages name the suite by it.
	Title string `json:"title,omitempty"`
}

// MatrixImplementation is one implementation of a matrix.
type MatrixImplementation struct {
	// Name labels its columns.
	Name string `json:"name"`
	// Implementation is its reports' implementation name: the profile's
	// "implementation" text, which names the version ("an SDK 1.2.3
	// (npm)"), or the command's base name.
	Implementation string `json:"implementation"`
	// Version, Language, Source and Issues are its reports'
	// ([Implementation]): the first report that has one gives it; "" when
	// none does.
	Version  string `json:"version,omitempty"`
	Language string `json:"language,omitempty"`
	Source   string `json:"source,omitempty"`
	Issues   string `json:"issues,omitempty"`
	// Homepage and Artifact are what its profile says (profile.json
	// "homepage" and "artifact": the released file it pins, with its
	// digest), when conform matrix could read the profile its runs name;
	// "" and nil otherwise.
	Homepage string          `json:"homepage,omitempty"`
	Artifact *MatrixArtifact `json:"artifact,omitempty"`
	// Trend is how the implementation did across its releases, oldest
	// first, where recordings of several releases exist ([Matrix.SetTrend];
	// conform matrix --trend); nil otherwise.
	Trend []TrendPoint `json:"trend,omitempty"`
	// History is its saved reports, oldest first ([Matrix.AddHistory];
	// conform matrix --history DIR); nil otherwise.
	History []HistoryPoint `json:"history,omitempty"`
}

// HistoryPoint is one saved report of an implementation: the version it
// names, its run date, suite role and version, verdict and counts.
type HistoryPoint struct {
	// Version is the report's implementation version, else its
	// implementation name (a profile's text names the version).
	Version string `json:"version"`
	// Date is the day the run started (YYYY-MM-DD, UTC; "" when the
	// report does not say).
	Date string `json:"date,omitempty"`
	// Role and SuiteVersion are the suite role and protocol version.
	Role         string `json:"role"`
	SuiteVersion int    `json:"suite_version"`
	// Verdict is the report's verdict, Certifies the classes it judged.
	Verdict   string   `json:"verdict"`
	Certifies []string `json:"certifies,omitempty"`
	// Passed, Failed (with XPASS), XFail, Skipped and NotRun count the
	// report's results as [Counts] does.
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	XFail   int `json:"xfail"`
	Skipped int `json:"skipped"`
	NotRun  int `json:"not_run"`
}

// HistoryPointOf is the history point of rep.
func HistoryPointOf(rep *Report) HistoryPoint {
	v := rep.Implementation.Version
	if v == "" {
		v = rep.Implementation.Name
	}
	p := HistoryPoint{Version: v, Role: rep.Suite.Role, SuiteVersion: rep.Suite.Version, Verdict: rep.Verdict, Certifies: rep.Certifies,
		Passed: rep.Summary.Passed, Failed: rep.Summary.Failed + rep.Summary.XPass, XFail: rep.Summary.XFail,
		Skipped: rep.Summary.Skipped, NotRun: rep.Summary.NotRun}
	if p.Verdict == "" {
		p.Verdict = rep.ComputeVerdict()
	}
	if !rep.Started.IsZero() {
		p.Date = rep.Started.UTC().Format(time.DateOnly)
	}
	return p
}

// AddHistory adds points to the [MatrixImplementation.History] of the
// implementation named name and sorts it oldest first: by date (a point
// without one first), then role, suite version and implementation
// version. Errors: USAGE when no implementation of m has that name.
func (m *Matrix) AddHistory(name string, points []HistoryPoint) error {
	i := slices.IndexFunc(m.Implementations, func(mi MatrixImplementation) bool { return mi.Name == name })
	if i < 0 {
		return kiterr.New(kiterr.Usage, "no implementation of the matrix is named %q", name)
	}
	h := append(slices.Clone(m.Implementations[i].History), points...)
	slices.SortStableFunc(h, func(a, b HistoryPoint) int {
		return cmp.Or(cmp.Compare(a.Date, b.Date), cmp.Compare(a.Role, b.Role), cmp.Compare(a.SuiteVersion, b.SuiteVersion), cmp.Compare(a.Version, b.Version))
	})
	m.Implementations[i].History = h
	return nil
}

// MatrixArtifact is the released file a profile pins: its name, where it
// is downloaded, and its digest ("sha256:HEX" or "sha512:HEX").
type MatrixArtifact struct {
	Name   string `json:"name"`
	URI    string `json:"uri,omitempty"`
	Digest string `json:"digest"`
}

// TrendPoint is one recorded release of an implementation: a recording's
// label, release date, suite role and version, verdict and counts (conform
// record writes them; impl/claude-code-timeline keeps one per CLI release).
type TrendPoint struct {
	// Label names the release ("2.1.332"); Released is its date
	// (YYYY-MM-DD, "" when unknown).
	Label    string `json:"label"`
	Released string `json:"released,omitempty"`
	// Role and Version are the suite role and protocol version recorded.
	Role    string `json:"role"`
	Version int    `json:"version"`
	// Verdict is the recorded run's verdict.
	Verdict string `json:"verdict"`
	// Passed, Failed, XFail, XPass and Informational count the recorded
	// results as [Counts] does; NotRun counts those that did not run.
	Passed        int `json:"passed"`
	Failed        int `json:"failed"`
	XFail         int `json:"xfail"`
	XPass         int `json:"xpass"`
	Informational int `json:"informational"`
	NotRun        int `json:"not_run"`
}

// MatrixSection is the table of one role and protocol version.
type MatrixSection struct {
	Role    string `json:"role"`
	Version int    `json:"version"`
	// Columns are the implementations with a report for this role and
	// version, in the order of [Matrix.Implementations].
	Columns []MatrixColumn `json:"columns"`
	// Rows are the vectors of the reports, sorted by id; each has one cell
	// per column, in column order.
	Rows []MatrixRow `json:"rows"`
}

// MatrixColumn is one implementation's run of a section.
type MatrixColumn struct {
	Name string `json:"name"`
	// Verdict is the report's verdict (CERTIFIED, NOT_CERTIFIED, ...).
	Verdict string `json:"verdict"`
	// Summary is the report's counts.
	Summary Counts `json:"summary"`
	// Invocation is the conform arguments that reproduce the run
	// ([Report.Invocation]), or "run", "--role", "--version" and the
	// report's command after "--" when the report does not record them.
	Invocation []string `json:"invocation"`
	// Stale, Partial and Interrupted are the report's.
	Stale       []string `json:"stale,omitempty"`
	Partial     bool     `json:"partial,omitempty"`
	Interrupted bool     `json:"interrupted,omitempty"`
	// Preflight is the failed preflight vector, when the implementation
	// does not speak the version (its other cells are NOT_RUN).
	Preflight *MatrixPreflight `json:"preflight,omitempty"`
	// Problems counts the report's kit input errors.
	Problems int `json:"problems,omitempty"`
	// Intermittent counts the required and recommended results (PASS or
	// XFAIL) whose expected-failure reason starts with
	// [IntermittentPrefix]: the overview counts them apart from passed and
	// xfail, so that its counts are the same whichever way the race went.
	// IntermittentPassed is how many of them passed this time.
	Intermittent       int `json:"intermittent,omitempty"`
	IntermittentPassed int `json:"intermittent_passed,omitempty"`
	// Started is when the run started (the report's, UTC; zero when it
	// does not say) and Kit the conform build that made it: pages show
	// the run's date and kit from them, so the same reports give the
	// same pages.
	Started time.Time `json:"started,omitzero"`
	Kit     Kit       `json:"kit,omitzero"`
	// Classes, Certifies and Claims are the report's: the conformance
	// classes with what was judged and their counts, the judged classes
	// in suite order, and the claims as given. Findings are its
	// report-level findings (CLAIM_CONTRADICTED, ...).
	Classes   []ClassResult `json:"classes,omitempty"`
	Certifies []string      `json:"certifies,omitempty"`
	Claims    []string      `json:"claims,omitempty"`
	Findings  []Finding     `json:"findings,omitempty"`
	// Causes groups the column's cells that did not pass with exact parity
	// by what explains them ([MatrixCause]), in [CauseKinds] order, then
	// by the number of vectors (most first), code and pointer.
	Causes []MatrixCause `json:"causes,omitempty"`
}

// Kinds of [MatrixCause], in the order a page shows them.
const (
	// CauseFailed: required or recommended vectors that fail
	// certification (and XPASS, INVALID).
	CauseFailed = "failed"
	// CauseXFail: required or recommended vectors the expected-failure
	// list excuses (XFAIL).
	CauseXFail = "xfail"
	// CauseInformational: informational vectors that did not end as their
	// golden file records; they never fail a run.
	CauseInformational = "informational"
	// CauseSkipped: vectors that were not run because they do not apply
	// (SKIPPED): a class that was not claimed, a requirement the
	// implementation does not meet. Never a failure.
	CauseSkipped = "skipped"
	// CauseAllowed: vectors that passed conformance but whose bytes differ
	// from the golden file where the protocol allows (exact parity only).
	CauseAllowed = "allowed"
)

// CauseKinds lists the kinds of [MatrixCause] in page order.
var CauseKinds = []string{CauseFailed, CauseXFail, CauseInformational, CauseSkipped, CauseAllowed}

// MatrixCause is one cause among an implementation's results in a section:
// the vectors one finding code (and, for a difference from the golden
// summary, one JSON Pointer) explains. Each cell that did not pass has one
// cause, its first most severe finding that is not a difference, else its
// first normative difference, else its status; each allowed difference of
// a PASS cell is a cause of kind "allowed". So 47 cells failing for three
// reasons are three entries.
type MatrixCause struct {
	// Kind is one of [CauseKinds].
	Kind string `json:"kind"`
	// Code is the finding code or difference kind ("REPLY_MISSING",
	// "MEMBER_ADDED"), or the cell's status when it has neither.
	Code string `json:"code"`
	// Pointer is the difference's JSON Pointer inside its frame ("" for a
	// finding, or the whole frame).
	Pointer string `json:"pointer,omitempty"`
	// Status is the status the finding carries ("" for an allowed
	// difference).
	Status Status `json:"status,omitempty"`
	// Message is the finding's message, or the rendered difference, of the
	// first vector; Messages counts the distinct ones among the vectors.
	Message  string `json:"message"`
	Messages int    `json:"messages"`
	// Reasons are the distinct expected-failure reasons of the vectors, in
	// vector order.
	Reasons []string `json:"reasons,omitempty"`
	// Class is the conformance class of the vectors of a skipped cause
	// whose class was not judged (CLASS_NOT_CLAIMED): such causes are
	// one per class. "" otherwise.
	Class string `json:"class,omitempty"`
	// Vectors are the vectors, in id order.
	Vectors []CauseVector `json:"vectors"`
	// Repro reruns them: "conform", the column's invocation, and one
	// --filter that matches exactly these ids ("a" or "{a,b}").
	Repro []string `json:"repro"`
}

// CauseVector is one vector of a [MatrixCause], with its cell's status.
type CauseVector struct {
	ID     string `json:"id"`
	Level  string `json:"level"`
	Status Status `json:"status"`
}

// MatrixPreflight is the cell of a preflight vector that failed, with the
// vector's id (the vector may not be among the rows of a filtered run).
type MatrixPreflight struct {
	ID string `json:"id"`
	MatrixCell
}

// MatrixRow is one vector of a section.
type MatrixRow struct {
	ID    string `json:"id"`
	Level string `json:"level"`
	// Class is the vector's conformance class ("" in reports made before
	// classes existed).
	Class string `json:"class,omitempty"`
	// Path is the vector's suite-relative file, from the first report
	// that names it ("" when none does).
	Path string `json:"path,omitempty"`
	// Source is the specification section or observation the vector
	// rests on (its "source"), when the suite that made the matrix was
	// at hand ([Matrix.SetSources]); "" otherwise.
	Source string       `json:"source,omitempty"`
	Cells  []MatrixCell `json:"cells"`
}

// SetSources sets the Source of every row of m to source(role, version,
// id) (conform matrix gives the sources of the suite it has, when the
// reports were made with it).
func (m *Matrix) SetSources(source func(role string, version int, id string) string) {
	for i := range m.Sections {
		sec := &m.Sections[i]
		for j := range sec.Rows {
			sec.Rows[j].Source = source(sec.Role, sec.Version, sec.Rows[j].ID)
		}
	}
}

// MatrixCell is one implementation's outcome on one vector.
type MatrixCell struct {
	// Status is the conformance verdict; "" when the implementation's
	// report has no result for the vector (a filtered run).
	Status Status `json:"status,omitempty"`
	// Parity is "exact" or "differs" ("" when the vector did not run).
	Parity string `json:"parity,omitempty"`
	// Findings are the findings that carry a status (those that decided
	// the verdict), in the report's order; notes are left out.
	Findings []Finding `json:"findings,omitempty"`
	// Reason is the expected-failure reason (XFAIL, XPASS).
	Reason string `json:"reason,omitempty"`
	// Differences are the differences from the golden summary, normative
	// and allowed.
	Differences []compare.Difference `json:"differences,omitempty"`
	// Repro is the command that reproduces the cell: "conform", the
	// column's invocation and "--filter" with the vector id (before any
	// "--"). Set on every cell that is not PASS with exact parity, not
	// NOT_RUN and not empty.
	Repro []string `json:"repro,omitempty"`
}

// Passed reports whether the cell passed conformance with exact parity
// (nothing to show beyond its status).
func (c MatrixCell) Passed() bool { return c.Status == Pass && c.Parity == ParityExact }

// matrixName is the form of [MatrixInput.Name]: a label safe in any
// printer's table without escaping. matrixRole is that of a role.
// They are compiled on first use (a run that writes no matrix never
// needs them).
var (
	matrixName  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$`) })
	matrixRole  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`) })
	releaseDate = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`) })
)

// verdicts are the verdict words of [Report.Verdict].
var verdicts = []string{VerdictCertified, VerdictExcused, VerdictPartial, VerdictNotCertified, VerdictNothingPassed, VerdictInvalidInput, VerdictInterrupted}

// BuildMatrix builds the matrix of inputs (in any order; the result does not
// depend on the order of inputs that name different implementations or
// sections, except for the order of Implementations, which is that of the
// inputs). Errors: USAGE (a name not of the form letters, digits, ".",
// "_", "+", "-", a name used twice for one role and version, or one name
// for two implementations), REPORT_INVALID (a report whose role is not a
// role name), REPORT_SUITE_MISMATCH (reports of different suites, or a
// vector with two levels).
func BuildMatrix(inputs []MatrixInput) (*Matrix, error) {
	m := &Matrix{Implementations: []MatrixImplementation{}, Sections: []MatrixSection{}}
	implOrder := map[string]int{}
	type key struct {
		role    string
		version int
	}
	bySection := map[key][]MatrixInput{}
	for i, in := range inputs {
		rep := in.Report
		if rep == nil {
			return nil, kiterr.New(kiterr.Usage, "matrix input %d has no report", i+1)
		}
		if !matrixName().MatchString(in.Name) {
			return nil, kiterr.New(kiterr.Usage, "implementation name %q: want letters, digits, '.', '_', '+' or '-' (at most 64, starting with a letter or digit)", in.Name)
		}
		if !matrixRole().MatchString(rep.Suite.Role) {
			return nil, kiterr.New(kiterr.ReportInvalid, "the report of %q names the role %q, which is not a role name", in.Name, rep.Suite.Role)
		}
		if i == 0 {
			m.Suite = MatrixSuite{Name: rep.Suite.Name, Digest: rep.Suite.Digest, Title: rep.Suite.Title}
		} else if rep.Suite.Name != m.Suite.Name || rep.Suite.Digest != m.Suite.Digest {
			return nil, kiterr.New(kiterr.ReportSuiteMismatch, "the report of %q was made with suite %s %s, the report of %q with %s %s: a matrix shows one suite",
				in.Name, rep.Suite.Name, rep.Suite.Digest, inputs[0].Name, m.Suite.Name, m.Suite.Digest)
		}
		j, ok := implOrder[in.Name]
		if ok {
			if got := m.Implementations[j].Implementation; got != rep.Implementation.Name {
				return nil, kiterr.New(kiterr.Usage, "the name %q labels two implementations: %q and %q", in.Name, got, rep.Implementation.Name)
			}
		} else {
			j = len(m.Implementations)
			implOrder[in.Name] = j
			m.Implementations = append(m.Implementations, MatrixImplementation{Name: in.Name, Implementation: rep.Implementation.Name})
		}
		mi := &m.Implementations[j]
		for _, f := range []struct {
			field *string
			value string
		}{{&mi.Version, rep.Implementation.Version}, {&mi.Language, rep.Implementation.Language}, {&mi.Source, rep.Implementation.Source}, {&mi.Issues, rep.Implementation.Issues}} {
			if *f.field == "" {
				*f.field = f.value
			}
		}
		k := key{rep.Suite.Role, rep.Suite.Version}
		for _, prev := range bySection[k] {
			if prev.Name == in.Name {
				return nil, kiterr.New(kiterr.Usage, "two reports of %q for the %s role, version %d", in.Name, k.role, k.version)
			}
		}
		bySection[k] = append(bySection[k], in)
	}
	keys := make([]key, 0, len(bySection))
	for k := range bySection {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.role, b.role), cmp.Compare(a.version, b.version))
	})
	for _, k := range keys {
		ins := bySection[k]
		slices.SortStableFunc(ins, func(a, b MatrixInput) int { return cmp.Compare(implOrder[a.Name], implOrder[b.Name]) })
		sec, err := buildSection(k.role, k.version, ins)
		if err != nil {
			return nil, err
		}
		m.Sections = append(m.Sections, sec)
	}
	return m, nil
}

func buildSection(role string, version int, ins []MatrixInput) (MatrixSection, error) {
	sec := MatrixSection{Role: role, Version: version, Columns: []MatrixColumn{}, Rows: []MatrixRow{}}
	levels := map[string]string{}
	paths := map[string]string{}
	classes := map[string]string{}
	byID := make([]map[string]Result, len(ins))
	for i, in := range ins {
		rep := in.Report
		col := MatrixColumn{
			Name: in.Name, Verdict: rep.Verdict, Summary: rep.Summary, Invocation: invocationOf(rep),
			Stale: rep.Stale, Partial: rep.Partial, Interrupted: rep.Interrupted, Problems: len(rep.Problems),
			Kit: rep.Kit, Classes: rep.Classes, Certifies: rep.Certifies, Claims: rep.Claims, Findings: rep.Findings,
		}
		if !rep.Started.IsZero() {
			col.Started = rep.Started.UTC()
		}
		if col.Verdict == "" {
			col.Verdict = rep.ComputeVerdict()
		}
		if rep.Preflight != nil {
			col.Preflight = &MatrixPreflight{ID: rep.Preflight.ID, MatrixCell: cellOf(*rep.Preflight, col.Invocation)}
		}
		sec.Columns = append(sec.Columns, col)
		byID[i] = map[string]Result{}
		for _, res := range rep.Results {
			if res.Intermittent() {
				c := &sec.Columns[len(sec.Columns)-1]
				c.Intermittent++
				if res.Status == Pass {
					c.IntermittentPassed++
				}
			}
			if lvl, ok := levels[res.ID]; ok && lvl != res.Level {
				return sec, kiterr.New(kiterr.ReportSuiteMismatch, "vector %s is %s in one report and %s in the report of %q", res.ID, lvl, res.Level, in.Name)
			}
			levels[res.ID] = res.Level
			if paths[res.ID] == "" {
				paths[res.ID] = res.Path
			}
			if classes[res.ID] == "" {
				classes[res.ID] = res.Class
			}
			byID[i][res.ID] = res
		}
	}
	ids := make([]string, 0, len(levels))
	for id := range levels {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		row := MatrixRow{ID: id, Level: levels[id], Class: classes[id], Path: paths[id], Cells: make([]MatrixCell, len(ins))}
		for i := range ins {
			if res, ok := byID[i][id]; ok {
				row.Cells[i] = cellOf(res, sec.Columns[i].Invocation)
			}
		}
		sec.Rows = append(sec.Rows, row)
	}
	for i := range sec.Columns {
		sec.Columns[i].Causes = causes(sec.Rows, i, sec.Columns[i].Invocation)
	}
	return sec, nil
}

// causeKind returns the kind of cause a cell of a vector of level is, or
// "" when it has none (PASS with exact parity, NOT_RUN, no result).
func causeKind(level string, c MatrixCell) string {
	switch {
	case c.Status == "" || c.Status == NotRun || c.Passed():
		return ""
	case c.Status == Pass:
		return CauseAllowed
	case c.Status == XFail:
		return CauseXFail
	case c.Status == Skipped:
		return CauseSkipped
	case level == LevelInformational && c.Status != XPass && c.Status != Invalid:
		return CauseInformational
	}
	return CauseFailed
}

// primaryCause returns what explains a cell that did not pass ([Cause]).
func primaryCause(c MatrixCell) (code, pointer string, status Status, message string) {
	return Cause(c.Status, c.Findings, c.Differences)
}

// Cause returns what explains a result of status st that did not pass, for
// pages and compact reports that give one line per failure: its first
// most severe finding that carries a status and is not a difference from
// the golden summary (code, its status, its message), else its first
// normative difference (kind, JSON Pointer, FAIL, the rendered
// difference), else the status itself. For a SKIPPED result it is the
// first note that says why (CLASS_NOT_CLAIMED, REQUIREMENT_UNMET), with
// status SKIPPED.
func Cause(st Status, findings []Finding, differences []compare.Difference) (code, pointer string, status Status, message string) {
	if st == Skipped {
		for _, f := range findings {
			if f.Status == "" || f.Status == Skipped {
				return f.Code, "", Skipped, f.Message
			}
		}
		return string(st), "", st, ""
	}
	best := -1
	for i, f := range findings {
		if f.Status == "" || compare.IsKind(f.Code) {
			continue
		}
		if best < 0 || Severity(f.Status) > Severity(findings[best].Status) {
			best = i
		}
	}
	if best >= 0 {
		f := findings[best]
		return f.Code, "", f.Status, f.Message
	}
	for _, d := range differences {
		if d.Normative {
			line, _, _ := strings.Cut(compare.Render(d), "\n")
			return d.Kind, d.Pointer, Fail, line
		}
	}
	return string(st), "", st, ""
}

// causes groups the cells of column col by cause ([MatrixCause]).
func causes(rows []MatrixRow, col int, invocation []string) []MatrixCause {
	type key struct{ kind, code, pointer, class string }
	var order []key
	groups := map[key]*MatrixCause{}
	seen := map[key]map[string]bool{}
	add := func(k key, status Status, message string, row MatrixRow, c MatrixCell) {
		g, ok := groups[k]
		if !ok {
			g = &MatrixCause{Kind: k.kind, Code: k.code, Pointer: k.pointer, Class: k.class, Status: status, Message: message}
			groups[k], seen[k] = g, map[string]bool{}
			order = append(order, k)
		}
		if n := len(g.Vectors); n > 0 && g.Vectors[n-1].ID == row.ID {
			return // one entry per vector, whatever its number of such differences
		}
		g.Vectors = append(g.Vectors, CauseVector{ID: row.ID, Level: row.Level, Status: c.Status})
		if !seen[k]["m"+message] {
			seen[k]["m"+message] = true
			g.Messages++
		}
		if c.Reason != "" && !seen[k]["r"+c.Reason] {
			seen[k]["r"+c.Reason] = true
			g.Reasons = append(g.Reasons, c.Reason)
		}
	}
	for _, row := range rows {
		c := row.Cells[col]
		kind := causeKind(row.Level, c)
		switch kind {
		case "":
			continue
		case CauseAllowed:
			for _, d := range c.Differences {
				if !d.Normative {
					line, _, _ := strings.Cut(compare.Render(d), "\n")
					add(key{kind, d.Kind, d.Pointer, ""}, "", line, row, c)
				}
			}
			continue
		}
		code, pointer, status, message := primaryCause(c)
		class := ""
		if kind == CauseSkipped && code == FindingClassNotClaimed {
			class = row.Class
		}
		add(key{kind, code, pointer, class}, status, message, row, c)
	}
	out := make([]MatrixCause, 0, len(order))
	for _, k := range order {
		g := groups[k]
		ids := make([]string, len(g.Vectors))
		for i, v := range g.Vectors {
			ids[i] = v.ID
		}
		g.Repro = ReproAll(invocation, ids)
		out = append(out, *g)
	}
	slices.SortStableFunc(out, func(a, b MatrixCause) int {
		return cmp.Or(cmp.Compare(slices.Index(CauseKinds, a.Kind), slices.Index(CauseKinds, b.Kind)),
			cmp.Compare(len(b.Vectors), len(a.Vectors)), cmp.Compare(a.Code, b.Code), cmp.Compare(a.Pointer, b.Pointer), cmp.Compare(a.Class, b.Class))
	})
	if len(out) == 0 {
		return nil
	}
	return out
}

// cellOf keeps the stable part of res.
func cellOf(res Result, invocation []string) MatrixCell {
	c := MatrixCell{Status: res.Status, Parity: res.Parity, Reason: res.Reason}
	for _, d := range res.Differences {
		c.Differences = append(c.Differences, d.Canonical())
	}
	for _, f := range res.Findings {
		// A normative difference is listed once, among the differences;
		// of the notes only those that say why a vector was skipped are
		// kept (they are the same in every run).
		if f.Status != "" && !compare.IsKind(f.Code) || res.Status == Skipped {
			c.Findings = append(c.Findings, f)
		}
	}
	if !c.Passed() && c.Status != NotRun {
		c.Repro = Repro(invocation, res.ID)
	}
	return c
}

// invocationOf returns rep.Invocation ([Portable]), or one made of its
// role, version and command.
func invocationOf(rep *Report) []string {
	if len(rep.Invocation) > 0 {
		return Portable(rep.Invocation)
	}
	inv := []string{"run", "--role", rep.Suite.Role, "--version", strconv.Itoa(rep.Suite.Version)}
	if len(rep.Implementation.Command) > 0 {
		inv = append(append(inv, "--"), rep.Implementation.Command...)
	}
	return Portable(inv)
}

// Portable returns invocation with no machine path in it, for pages and
// repro lines others read: the value of --suite, when it is an absolute
// path, becomes its last element (the name an embedded suite goes by:
// /home/me/conform/suites/mcp is mcp), and any other absolute path
// argument becomes "…/" and its last element. Relative paths are kept (a
// run records them relative to its directory). The input is not changed.
func Portable(invocation []string) []string {
	out := slices.Clone(invocation)
	for i, a := range out {
		if !isAbsPath(a) {
			continue
		}
		trimmed := strings.TrimRight(a, `/\`)
		last := trimmed[strings.LastIndexAny(trimmed, `/\`)+1:]
		if i > 0 && out[i-1] == "--suite" && last != "" {
			out[i] = last
			continue
		}
		out[i] = "…/" + last
	}
	return out
}

// isAbsPath reports whether a is an absolute path on any system: "/x",
// C:\x, C:/x or \\host\x.
func isAbsPath(a string) bool {
	switch {
	case strings.HasPrefix(a, "/"), strings.HasPrefix(a, `\\`):
		return true
	case len(a) >= 3 && (a[0] >= 'A' && a[0] <= 'Z' || a[0] >= 'a' && a[0] <= 'z') && a[1] == ':' && (a[2] == '\\' || a[2] == '/'):
		return true
	}
	return false
}

// ReproAll is [Repro] for several vectors: one --filter that matches
// exactly ids: the id itself for one, a doublestar alternation "{a,b,c}"
// for more. Vector ids hold no glob character (their pattern in
// schemas/vector.schema.json and schemas/report.schema.json).
func ReproAll(invocation []string, ids []string) []string {
	switch len(ids) {
	case 0:
		return nil
	case 1:
		return Repro(invocation, ids[0])
	}
	return Repro(invocation, "{"+strings.Join(ids, ",")+"}")
}

// Repro returns the argv that reruns one vector of the run that invocation
// (conform's arguments, [Report.Invocation]) made: "conform", the
// invocation, and "--filter" id before any "--" that starts the IUT
// command.
func Repro(invocation []string, id string) []string {
	out := make([]string, 0, len(invocation)+3)
	out = append(out, "conform")
	at := slices.Index(invocation, "--")
	if at < 0 {
		at = len(invocation)
	}
	out = append(out, invocation[:at]...)
	out = append(out, "--filter", id)
	return append(out, invocation[at:]...)
}

// SetTrend sets the [MatrixImplementation.Trend] of the implementation
// named name to points, sorted by release date, then label (a point
// without a date sorts first). Errors: USAGE when no implementation of m
// has that name, or a point's label is not of the form of a name, its date
// not YYYY-MM-DD, its verdict not a verdict or its role not a role name
// (printers put them in tables as they are).
func (m *Matrix) SetTrend(name string, points []TrendPoint) error {
	i := slices.IndexFunc(m.Implementations, func(mi MatrixImplementation) bool { return mi.Name == name })
	if i < 0 {
		names := make([]string, len(m.Implementations))
		for j, mi := range m.Implementations {
			names[j] = mi.Name
		}
		return kiterr.New(kiterr.Usage, "no implementation of the matrix is named %q%s", name, suggest.Phrase(name, names))
	}
	for _, p := range points {
		switch {
		case !matrixName().MatchString(p.Label):
			return kiterr.New(kiterr.Usage, "release label %q in the trend of %q: want letters, digits, '.', '_', '+' or '-' (at most 64)", p.Label, name)
		case p.Released != "" && !releaseDate().MatchString(p.Released):
			return kiterr.New(kiterr.Usage, "release %s of %q: date %q is not YYYY-MM-DD", p.Label, name, p.Released)
		case !slices.Contains(verdicts, p.Verdict):
			return kiterr.New(kiterr.Usage, "release %s of %q: %q is not a verdict", p.Label, name, p.Verdict)
		case !matrixRole().MatchString(p.Role) || p.Version < 1:
			return kiterr.New(kiterr.Usage, "release %s of %q: role %q, version %d is not a suite role and version", p.Label, name, p.Role, p.Version)
		}
	}
	points = slices.Clone(points)
	slices.SortStableFunc(points, func(a, b TrendPoint) int {
		return cmp.Or(cmp.Compare(a.Released, b.Released), cmp.Compare(a.Label, b.Label))
	})
	m.Implementations[i].Trend = points
	return nil
}
