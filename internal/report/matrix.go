package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/result"
	"github.com/conform-kit/conform/internal/suggest"
)

// Bounds of what the matrix printers show (the JSON form keeps
// everything).
const (
	// matrixTextMax is the most bytes of one message, reason or difference
	// shown (then "…").
	matrixTextMax = 400
	// matrixDiffsMax is the most differences shown per vector (then a line
	// saying how many more there are).
	matrixDiffsMax = 8
)

// MatrixOptions says how the overview of a matrix refers to the
// implementation pages.
type MatrixOptions struct {
	// Pages is where the implementation pages are, relative to the
	// overview ("matrix/"): the overview links each implementation to
	// Pages + name + the format's extension (.md, .html) and leaves the
	// pages out. "" puts every implementation's page inside the overview,
	// after the tables.
	Pages string
	// Overview is the overview's file, relative to the pages ("../matrix"),
	// without extension; a page links back to it. "" writes no link back.
	Overview string
	// Suite is where the suite's files are, relative to the pages (or an
	// http or https URL), ending in "/": each vector a page lists links
	// to Suite + its suite-relative path. "" leaves vector files unlinked.
	Suite string
}

// DocsURL is where the kit's documents are read on the web: a page links
// each finding code to its section of docs/findings.md there, so that the
// link holds wherever the page is copied.
const DocsURL = "https://" + result.ModulePath + "/blob/main/"

// matrixView is what the overview shows: the matrix with every string that
// came from a report made inert ([inert]).
type matrixView struct {
	Suite           result.MatrixSuite
	Implementations []implView
	Sections        []sectionView
	// Inline is true when the implementation pages are part of the
	// overview (MatrixOptions.Pages "").
	Inline bool
}

// implView is one implementation: its row of the overview and its page.
type implView struct {
	Name, Implementation   string
	Version, Language      string
	Source, Issues         string
	Link                   string // the page, or "#impl-NAME" when inline
	Anchor                 string // "impl-NAME"
	Verdict                string // the worst verdict of its sections
	Badge                  string // its badge file, relative to its page ("" inline)
	Overview               string // the overview, relative to its page ("" inline)
	Cells                  []implCell
	Sections               []implSection
	Trend                  []trendView
	SuiteName, SuiteDigest string
	// Homepage is the implementation's homepage (an http or https URL,
	// else ""); Artifact, ArtifactURI and ArtifactDigest the released file
	// its profile pins ("" when none).
	Homepage                              string
	Artifact, ArtifactURI, ArtifactDigest string
	// BadgeMarkdown is the Markdown that shows its badge, to copy ("" inline).
	BadgeMarkdown string
	// History is its saved reports, oldest first.
	History []historyView
	// Bar is its required and recommended vectors, summed over its
	// sections, as the segments of a stacked bar; Failed and Skipped
	// count them for the overview's order.
	Bar             []barSegment
	Failed, Skipped int
}

// barSegment is one part of an implementation's stacked bar: its kind
// (a fixed CSS class), the number of vectors and its width in tenths of a
// percent.
type barSegment struct {
	Class, Label string
	N, Tenths    int
}

// Percent is the segment's width in percent, "12.3".
func (b barSegment) Percent() string { return fmt.Sprintf("%d.%d", b.Tenths/10, b.Tenths%10) }

// historyView is one saved report of an implementation's history.
type historyView struct {
	Version, Date, Suite, Verdict, Certifies string
	Passed, Failed, XFail, Skipped, NotRun   int
}

// implCell is one cell of the overview's implementations table: the
// verdict and counts of one section, or nothing.
type implCell struct {
	Verdict, Counts string
	// Certifies is the judged classes, "core+tools" ("" without classes).
	Certifies string
}

// implSection is one of an implementation's sections on its page.
type implSection struct {
	Key, Title, Verdict string
	Levels              []levelRow
	Parity              string
	Invocation          string
	Notes               []string
	// Groups are the causes by kind, in result.CauseKinds order, without
	// empty kinds but for "failed", which is always there.
	Groups []causeGroup
	Badge  string
	// Date is the day the run started (YYYY-MM-DD UTC, from the report:
	// the same reports give the same page), Kit the conform build that
	// made it; "" when the report does not say.
	Date, Kit string
	// Certifies names the judged classes ("core, tools"; "" for a report
	// without classes); Classes is the compliance table, one row per
	// class of the run.
	Certifies string
	Classes   []classRow
}

// classRow is one conformance class of a run on its page.
type classRow struct {
	Name, Title, Source, URL string
	// How is how it came to be judged or not: claimed, derived, always,
	// not claimed.
	How                                                string
	Judged, Contradicted                               bool
	Passed, Failed, XFail, Skipped, NotClaimed, NotRun int
	Informational, Total                               int
	RequiredPassed, RequiredTotal                      int
	RecommendedPassed, RecommendedTotal                int
}

// levelRow is one level's counts on a page.
type levelRow struct {
	Level                                         string
	Passed, XFail, Failed, Skipped, NotRun, Total int
	XPass, Invalid                                int
	Informational                                 bool
}

// causeGroup is the causes of one kind.
type causeGroup struct {
	Kind, Title, Empty string
	Vectors            int
	// Counts is "13 vectors, 2 causes" ("places" for allowed differences).
	Counts string
	Causes []causeView
	// Quiet groups (allowed differences) are shown folded, on demand.
	Quiet bool
}

// causeView is one cause on a page.
type causeView struct {
	ID                   string // anchor
	Code, Pointer        string
	Status               string
	Message              string
	OtherMessages        int
	Reasons              []string
	Vectors              []causeVectorView
	Repro                string
	Informational, Quiet bool
	// Doc is the code's section of docs/findings.md ([DocsURL]).
	Doc string
	// Class is the class not judged, for a CLASS_NOT_CLAIMED cause.
	Class string
}

// causeVectorView is one vector of a cause, with what its cell holds.
type causeVectorView struct {
	ID, Level, Status, Class string
	Findings                 []string
	Differences              []string
	MoreDifferences          int
	// Path is the vector's suite-relative file, File its link ("" when
	// the pages do not know where the suite is); Source the section it
	// rests on, Spec an http(s) URL of it: the one its source names,
	// else its class's (suite.json classes url); VClass its class.
	Path, File, Source, Spec, VClass string
	// Sides are its normative differences, golden and actual values side
	// by side (at most matrixDiffsMax).
	Sides []sideView
}

// sideView is one difference with its golden and actual values.
type sideView struct {
	Where, Kind, Golden, Actual string
}

// trendView is one release of an implementation's trend.
type trendView struct {
	Label, Released, Verdict, Suite                     string
	Passed, Failed, XFail, XPass, Informational, NotRun int
}

type sectionView struct {
	// Key is "agent-v1"; Title "agent role, protocol v1".
	Key, Title string
	Columns    []columnView
	Rows       []rowView
}

type columnView struct {
	Name, Link string
}

type rowView struct {
	ID, Level string
	Cells     []cellView
}

type cellView struct {
	// Status is the status word ("" when the report has no result), Class
	// its CSS class, Allowed true for a PASS whose bytes differ where the
	// protocol allows.
	Status, Class string
	Allowed       bool
	// Link is the cause that explains the cell, on the implementation's
	// page ("" for a cell with nothing to explain).
	Link string
}

// countOf is "1 vector", "2 vectors".
func countOf(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// mdAnchor is the anchor GitHub gives a Markdown heading that is a name
// ([result.BuildMatrix] checked it): lower case, "." and "+" dropped.
func mdAnchor(name string) string {
	return strings.NewReplacer(".", "", "+", "").Replace(strings.ToLower(name))
}

// checkName returns a USAGE error when m has no implementation called
// name, naming the closest ones.
func checkName(m *result.Matrix, name string) error {
	names := make([]string, len(m.Implementations))
	for i, mi := range m.Implementations {
		names[i] = mi.Name
	}
	if slices.Contains(names, name) {
		return nil
	}
	return kiterr.New(kiterr.Usage, "the matrix has no implementation named %q%s", name, suggest.Phrase(name, names))
}

// sectionKey is "agent-v1".
func sectionKey(sec result.MatrixSection) string {
	return fmt.Sprintf("%s-v%d", inert(sec.Role), sec.Version)
}

func sectionTitle(sec result.MatrixSection) string {
	return fmt.Sprintf("%s role, protocol v%d", inert(sec.Role), sec.Version)
}

// newMatrixView prepares m for display with the file extension ext
// (".md", ".html") of the pages.
func newMatrixView(m *result.Matrix, o MatrixOptions, ext string) matrixView {
	v := matrixView{Suite: result.MatrixSuite{Name: inert(m.Suite.Name), Digest: inert(m.Suite.Digest)}, Inline: o.Pages == ""}
	for _, impl := range m.Implementations {
		iv := newImplView(m, impl.Name, o, ext)
		v.Implementations = append(v.Implementations, iv)
	}
	byName := slices.Clone(v.Implementations)
	for _, sec := range m.Sections {
		sv := sectionView{Key: sectionKey(sec), Title: sectionTitle(sec)}
		links := make([]map[string]string, len(sec.Columns))
		for i, c := range sec.Columns {
			iv := byName[slices.IndexFunc(m.Implementations, func(mi result.MatrixImplementation) bool { return mi.Name == c.Name })]
			sv.Columns = append(sv.Columns, columnView{Name: inert(c.Name), Link: iv.Link})
			links[i] = causeLinks(iv, sv.Key)
		}
		for _, row := range sec.Rows {
			rv := rowView{ID: inert(row.ID), Level: inert(row.Level)}
			for i, c := range row.Cells {
				cv := cellView{Status: string(c.Status), Class: cellClass(row.Level, c.Status), Allowed: c.Status == result.Pass && c.Parity == result.ParityDiffers}
				if c.Status == "" {
					cv.Class = "st-none"
				}
				if anchor, ok := links[i][row.ID]; ok {
					cv.Link = anchor
				}
				rv.Cells = append(rv.Cells, cv)
			}
			sv.Rows = append(sv.Rows, rv)
		}
		v.Sections = append(v.Sections, sv)
	}
	sortImplementations(v.Implementations)
	return v
}

// causeLinks maps each vector id of an implementation's section to the
// link of the first cause that lists it.
func causeLinks(iv implView, key string) map[string]string {
	out := map[string]string{}
	base := iv.Link
	if i := strings.IndexByte(base, '#'); i >= 0 {
		base = base[:i]
	}
	for _, s := range iv.Sections {
		if s.Key != key {
			continue
		}
		for _, g := range s.Groups {
			for _, c := range g.Causes {
				for _, vec := range c.Vectors {
					if _, ok := out[vec.ID]; !ok {
						out[vec.ID] = base + "#" + c.ID
					}
				}
			}
		}
	}
	return out
}

// implPrefix is the anchor prefix of an implementation's page content:
// "" on its own page, "impl-NAME-" inside the overview.
func implPrefix(name string, inline bool) string {
	if inline {
		return "impl-" + name + "-"
	}
	return ""
}

// newImplView prepares the page of the implementation called name.
func newImplView(m *result.Matrix, name string, o MatrixOptions, ext string) implView {
	i := slices.IndexFunc(m.Implementations, func(mi result.MatrixImplementation) bool { return mi.Name == name })
	impl := m.Implementations[i]
	inline := o.Pages == ""
	iv := implView{
		Name: inert(impl.Name), Implementation: inert(impl.Implementation),
		Version: inert(impl.Version), Language: inert(impl.Language),
		Source: safeURL(impl.Source), Issues: safeURL(impl.Issues),
		Anchor: "impl-" + impl.Name, Homepage: safeURL(impl.Homepage),
		SuiteName: inert(m.Suite.Name), SuiteDigest: inert(m.Suite.Digest),
	}
	switch {
	case inline && ext == ".md":
		iv.Link = "#" + mdAnchor(impl.Name)
	case inline:
		iv.Link = "#impl-" + impl.Name
	default:
		iv.Link = o.Pages + impl.Name + ext
		iv.Badge = impl.Name + ".svg"
		iv.BadgeMarkdown = "![conform: " + impl.Name + "](" + iv.Badge + ")"
		if o.Overview != "" {
			iv.Overview = o.Overview + ext
		}
	}
	if a := impl.Artifact; a != nil {
		iv.Artifact, iv.ArtifactURI, iv.ArtifactDigest = inert(a.Name), safeURL(a.URI), inert(a.Digest)
	}
	prefix := implPrefix(impl.Name, inline)
	var verdicts []string
	var sum result.Counts
	for _, sec := range m.Sections {
		col := slices.IndexFunc(sec.Columns, func(c result.MatrixColumn) bool { return c.Name == name })
		if col < 0 {
			iv.Cells = append(iv.Cells, implCell{})
			continue
		}
		c := sec.Columns[col]
		verdicts = append(verdicts, c.Verdict)
		iv.Cells = append(iv.Cells, implCell{Verdict: c.Verdict, Counts: shortCounts(c), Certifies: inert(strings.Join(c.Certifies, "+"))})
		sum = addCounts(sum, c.Summary)
		is := newImplSection(sec, col, prefix, o)
		if inline {
			is.Badge = ""
		}
		iv.Sections = append(iv.Sections, is)
	}
	iv.Verdict = worstVerdict(verdicts)
	iv.Bar, iv.Failed, iv.Skipped = bar(sum), sum.Failed+sum.XPass, sum.Required.Skipped+sum.Recommended.Skipped
	for _, p := range impl.History {
		iv.History = append(iv.History, historyView{Version: inert(p.Version), Date: inert(p.Date), Verdict: inert(p.Verdict), Certifies: inert(strings.Join(p.Certifies, ", ")),
			Suite:  fmt.Sprintf("%s role, protocol v%d", inert(p.Role), p.SuiteVersion),
			Passed: p.Passed, Failed: p.Failed, XFail: p.XFail, Skipped: p.Skipped, NotRun: p.NotRun})
	}
	for _, p := range impl.Trend {
		iv.Trend = append(iv.Trend, trendView{Label: inert(p.Label), Released: inert(p.Released), Verdict: inert(p.Verdict),
			Suite:  fmt.Sprintf("%s role, protocol v%d", inert(p.Role), p.Version),
			Passed: p.Passed, Failed: p.Failed, XFail: p.XFail, XPass: p.XPass, Informational: p.Informational, NotRun: p.NotRun})
	}
	return iv
}

// newImplSection is the column col of sec on its implementation's page.
func newImplSection(sec result.MatrixSection, col int, prefix string, o MatrixOptions) implSection {
	c := sec.Columns[col]
	s := c.Summary
	key := sectionKey(sec)
	is := implSection{
		Key: key, Title: sectionTitle(sec), Verdict: c.Verdict,
		Invocation: inert(shellQuote(append([]string{"conform"}, c.Invocation...))),
		Parity:     fmt.Sprintf("%d of %d", s.ParityExact, s.ParityExact+s.ParityDiffers),
		Notes:      columnNotes(c),
		Badge:      c.Name + "." + key + ".svg",
	}
	if !c.Started.IsZero() {
		is.Date = c.Started.UTC().Format(time.DateOnly)
	}
	if c.Kit.Version != "" {
		is.Kit = inert(c.Kit.String())
	}
	is.Certifies = inert(strings.Join(c.Certifies, ", "))
	classURL := map[string]string{}
	for _, cl := range c.Classes {
		how := cl.How
		if how == result.HowNotClaimed {
			how = "not claimed"
		}
		is.Classes = append(is.Classes, classRow{Name: inert(cl.Name), Title: inert(cl.Title), Source: inert(clipText(cl.Source)), URL: safeURL(cl.URL),
			How: inert(how), Judged: cl.Judged, Contradicted: cl.Contradicted,
			Passed: cl.Passed, Failed: cl.Failed, XFail: cl.XFail, Skipped: cl.Skipped, NotClaimed: cl.NotClaimed, NotRun: cl.NotRun,
			Informational: cl.Informational, Total: cl.Total,
			RequiredPassed: cl.Required.Passed, RequiredTotal: cl.Required.Total, RecommendedPassed: cl.Recommended.Passed, RecommendedTotal: cl.Recommended.Total})
		classURL[cl.Name] = safeURL(cl.URL)
	}
	for _, l := range []struct {
		name string
		lc   result.LevelCounts
	}{{result.LevelRequired, s.Required}, {result.LevelRecommended, s.Recommended}, {result.LevelInformational, s.InformationalLevel}} {
		if l.lc.Total == 0 {
			continue
		}
		is.Levels = append(is.Levels, levelRow{Level: l.name, Passed: l.lc.Passed, XFail: l.lc.XFail, Failed: l.lc.Failed, Skipped: l.lc.Skipped, NotRun: l.lc.NotRun,
			Total: l.lc.Total, XPass: l.lc.XPass, Invalid: l.lc.Invalid, Informational: l.name == result.LevelInformational})
	}
	rows := map[string]result.MatrixRow{}
	for _, row := range sec.Rows {
		rows[row.ID] = row
	}
	n := 0
	for _, kind := range result.CauseKinds {
		g := causeGroup{Kind: kind, Title: causeTitle(kind), Empty: causeEmpty(kind), Quiet: kind == result.CauseAllowed}
		seen := map[string]bool{}
		for _, cause := range c.Causes {
			if cause.Kind != kind {
				continue
			}
			n++
			cv := causeView{
				ID: fmt.Sprintf("%s%s-cause-%d", prefix, key, n), Code: cause.Code, Pointer: inert(cause.Pointer), Status: string(cause.Status),
				Message: inert(clipText(cause.Message)), OtherMessages: cause.Messages - 1,
				Repro: inert(shellQuote(cause.Repro)), Informational: kind == result.CauseInformational, Quiet: g.Quiet,
			}
			cv.Class = inert(cause.Class)
			if kind != result.CauseAllowed && isCode(cause.Code) {
				cv.Doc = DocsURL + DocLink(cause.Code)
			}
			for _, r := range cause.Reasons {
				cv.Reasons = append(cv.Reasons, inert(clipText(r)))
			}
			for _, vec := range cause.Vectors {
				if !seen[vec.ID] {
					seen[vec.ID] = true
					g.Vectors++
				}
				cv.Vectors = append(cv.Vectors, causeVectorOf(vec, rows[vec.ID], col, kind, o, classURL))
			}
			g.Causes = append(g.Causes, cv)
		}
		unit := "cause"
		if g.Quiet {
			unit = "place"
		}
		g.Counts = countOf(g.Vectors, "vector") + ", " + countOf(len(g.Causes), unit)
		if len(g.Causes) > 0 || kind == result.CauseFailed {
			is.Groups = append(is.Groups, g)
		}
	}
	return is
}

// causeVectorOf is one vector of a cause with its cell (column col of
// row)'s findings and differences (the allowed ones only for an allowed
// cause), its file and source, and its normative differences side by side.
func causeVectorOf(vec result.CauseVector, row result.MatrixRow, col int, kind string, o MatrixOptions, classURL map[string]string) causeVectorView {
	var c result.MatrixCell
	if col < len(row.Cells) {
		c = row.Cells[col]
	}
	v := causeVectorView{ID: inert(vec.ID), Level: inert(vec.Level), Status: string(vec.Status), Class: cellClass(vec.Level, vec.Status),
		Path: inert(row.Path), Source: inert(clipText(row.Source)), Spec: specURL(row.Source), VClass: inert(row.Class)}
	if v.Spec == "" {
		v.Spec = classURL[row.Class]
	}
	if v.Path != "" && o.Suite != "" && safePath(row.Path) {
		v.File = o.Suite + row.Path
	}
	for _, d := range c.Differences {
		if !d.Normative || len(v.Sides) == matrixDiffsMax {
			continue
		}
		where := d.Frame
		if d.Pointer != "" {
			where += " " + d.Pointer
		}
		v.Sides = append(v.Sides, sideView{Where: inert(strings.TrimSpace(where)), Kind: d.Kind,
			Golden: inert(clipText(orNone(string(d.Golden)))), Actual: inert(clipText(orNone(string(d.Actual))))})
	}
	for _, f := range c.Findings {
		v.Findings = append(v.Findings, inert(clipText(string(f.Status)+" "+f.Code+": "+f.Message)))
	}
	shown := 0
	for _, d := range c.Differences {
		if kind == result.CauseAllowed && d.Normative {
			continue
		}
		if shown == matrixDiffsMax {
			v.MoreDifferences++
			continue
		}
		shown++
		v.Differences = append(v.Differences, inert(clipText(compare.Render(d))))
	}
	return v
}

func causeTitle(kind string) string {
	switch kind {
	case result.CauseFailed:
		return "Failures"
	case result.CauseXFail:
		return "Expected failures"
	case result.CauseInformational:
		return "Informational vectors that differ from their golden files (never decide the verdict)"
	case result.CauseSkipped:
		return "Skipped: not run, as they do not apply (a class not claimed, a requirement not met; never a failure)"
	}
	return "Allowed differences (conformance passed; exact parity only)"
}

func causeEmpty(kind string) string {
	if kind == result.CauseFailed {
		return "No required or recommended vector failed."
	}
	return ""
}

// columnNotes are column-level facts: preflight failed, stale entries,
// partial or interrupted run, problems.
func columnNotes(c result.MatrixColumn) []string {
	var notes []string
	if p := c.Preflight; p != nil {
		note := "the preflight vector " + p.ID + " failed (" + string(p.Status)
		if len(p.Findings) > 0 {
			note += ": " + p.Findings[0].Code
		}
		note += "): the implementation does not speak this version, and the other vectors were not run (NOT_RUN)"
		if len(p.Repro) > 0 {
			note += "; repro: " + shellQuote(p.Repro)
		}
		notes = append(notes, inert(note))
	}
	if len(c.Stale) > 0 {
		notes = append(notes, inert(clipText("stale expected-failure entries: "+strings.Join(c.Stale, ", "))))
	}
	if c.Partial {
		notes = append(notes, "a filtered run: certifies nothing")
	}
	if c.Interrupted {
		notes = append(notes, "interrupted: unfinished vectors are NOT_RUN")
	}
	if c.Problems > 0 {
		notes = append(notes, fmt.Sprintf("%d kit input problems (invalid vectors or golden files)", c.Problems))
	}
	return notes
}

// shortCounts is the overview's counts of a column: required and
// recommended vectors passed, excused, failed, skipped and not run. The
// intermittent ones (PASS or XFAIL under an entry marked intermittent,
// [result.MatrixColumn.Intermittent]) are taken out of passed and xfail
// and counted apart, so that a race in the IUT does not change the line.
func shortCounts(c result.MatrixColumn) string {
	s := c.Summary
	passed, xfail := s.Passed-c.IntermittentPassed, s.XFail-(c.Intermittent-c.IntermittentPassed)
	parts := []string{fmt.Sprintf("%d passed", passed)}
	if xfail > 0 {
		parts = append(parts, fmt.Sprintf("%d xfail", xfail))
	}
	if c.Intermittent > 0 {
		parts = append(parts, fmt.Sprintf("%d intermittent", c.Intermittent))
	}
	parts = append(parts, fmt.Sprintf("%d failed", s.Failed+s.XPass))
	if n := s.Required.Skipped + s.Recommended.Skipped; n > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", n))
	}
	if n := s.Required.NotRun + s.Recommended.NotRun; n > 0 {
		parts = append(parts, fmt.Sprintf("%d not run", n))
	}
	return strings.Join(parts, " · ")
}

// addCounts sums the counts a page's bar and the overview's order use.
func addCounts(a, b result.Counts) result.Counts {
	a.Passed += b.Passed
	a.Failed += b.Failed
	a.XFail += b.XFail
	a.XPass += b.XPass
	a.Required.Skipped += b.Required.Skipped
	a.Recommended.Skipped += b.Recommended.Skipped
	a.Required.NotRun += b.Required.NotRun
	a.Recommended.NotRun += b.Recommended.NotRun
	a.Required.Invalid += b.Required.Invalid
	a.Recommended.Invalid += b.Recommended.Invalid
	return a
}

// bar is the stacked bar of summed counts: passed, excused, failed,
// skipped and not run required and recommended vectors, the empty ones
// left out; the widths, in tenths of a percent, add up to 100 % (the last
// takes what rounding left).
func bar(c result.Counts) []barSegment {
	parts := []barSegment{
		{Class: "bar-pass", Label: "passed", N: c.Passed},
		{Class: "bar-xfail", Label: "expected failures", N: c.XFail},
		{Class: "bar-fail", Label: "failed", N: c.Failed + c.XPass},
		{Class: "bar-skip", Label: "skipped", N: c.Required.Skipped + c.Recommended.Skipped},
		{Class: "bar-notrun", Label: "not run", N: c.Required.NotRun + c.Recommended.NotRun},
	}
	total := 0
	for _, p := range parts {
		total += p.N
	}
	var out []barSegment
	left := 1000
	for _, p := range parts {
		if p.N > 0 {
			p.Tenths = p.N * 1000 / total
			left -= p.Tenths
			out = append(out, p)
		}
	}
	if len(out) > 0 {
		out[len(out)-1].Tenths += left
	}
	return out
}

// sortImplementations orders the overview's implementations by verdict
// (best first), then by fewest failed vectors, then fewest skipped, then
// as given.
func sortImplementations(impls []implView) {
	slices.SortStableFunc(impls, func(a, b implView) int {
		ra, rb := slices.Index(verdictRank, a.Verdict), slices.Index(verdictRank, b.Verdict)
		if a.Verdict == "" {
			ra = len(verdictRank)
		}
		if b.Verdict == "" {
			rb = len(verdictRank)
		}
		return cmp.Or(cmp.Compare(ra, rb), cmp.Compare(a.Failed, b.Failed), cmp.Compare(a.Skipped, b.Skipped))
	})
}

// isCode reports whether s has the form of a finding code or difference
// kind (UPPER_SNAKE), which docs/findings.md has a section for.
func isCode(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// specURL is the first http or https URL in a vector's source ([safeURL]),
// or "".
func specURL(source string) string {
	for _, f := range strings.FieldsFunc(source, func(r rune) bool { return r == ' ' || r == '(' || r == ')' || r == ',' || r == ';' }) {
		f = strings.TrimRight(f, ".")
		if u := safeURL(f); u != "" {
			return u
		}
	}
	return ""
}

// safePath reports whether a suite-relative path can go into a link as it
// is: letters, digits and "._-/" only, relative, and no "..".
func safePath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "..") {
		return false
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/", r)) {
			return false
		}
	}
	return true
}

// orNone is s, or "(none)" when s is empty (a member absent on one side).
func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// verdictRank orders verdicts from the best to the worst.
var verdictRank = []string{result.VerdictCertified, result.VerdictPartial, result.VerdictExcused, result.VerdictNothingPassed,
	result.VerdictNotCertified, result.VerdictInterrupted, result.VerdictInvalidInput}

// worstVerdict is the worst of verdicts ("" for none).
func worstVerdict(verdicts []string) string {
	worst := ""
	for _, v := range verdicts {
		if worst == "" || slices.Index(verdictRank, v) > slices.Index(verdictRank, worst) {
			worst = v
		}
	}
	return worst
}

// safeURL returns u when it is an http or https URL without white space,
// quotes or angle brackets ([inert] too), else "": only such a URL becomes
// a link.
func safeURL(u string) string {
	if !(strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")) || strings.ContainsAny(u, " \t\r\n\"'<>`\\") || inert(u) != u {
		return ""
	}
	return u
}

// cellClass returns the CSS class of a vector's status; the set is fixed,
// so no report text ever reaches a class attribute. An informational
// vector is never red: what it does decides nothing.
func cellClass(level string, s result.Status) string {
	switch s {
	case result.Pass:
		return "st-pass"
	case result.XFail:
		return "st-xfail"
	case result.NotRun:
		return "st-notrun"
	case result.Skipped:
		return "st-skip"
	case "":
		return "st-none"
	}
	if level == result.LevelInformational && s != result.XPass && s != result.Invalid {
		return "st-info"
	}
	switch s {
	case result.Fail, result.SchemaViolation, result.ProtocolError, result.Timeout, result.Crash, result.XPass, result.Invalid:
		return "st-fail"
	}
	return "st-other"
}

// clipText cuts s to matrixTextMax bytes ([clipTo]).
func clipText(s string) string { return clipTo(s, matrixTextMax) }

// clipTo cuts s to n bytes (at a rune boundary) and marks the cut with
// "…".
func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
