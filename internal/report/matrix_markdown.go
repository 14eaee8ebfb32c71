package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/conform-kit/conform/internal/result"
)

// MatrixMarkdown writes m as GitHub-flavoured Markdown with every
// implementation's page inside it ([MatrixMarkdownWith] with no pages).
func MatrixMarkdown(w io.Writer, m *result.Matrix) error {
	return MatrixMarkdownWith(w, m, MatrixOptions{})
}

// MatrixMarkdownWith writes the overview of m as GitHub-flavoured
// Markdown, for a pull request, a CI step summary or a committed page: the
// suite digest, the implementations with their verdict and counts per
// section (each name linked to its page), then per section a table of
// vectors by implementations (each cell the conformance status; "≈" marks a
// pass whose bytes differ where the protocol allows). With o.Pages "" the
// pages ([MatrixPageMarkdown]) follow, one per implementation. The same
// matrix gives the same bytes.
//
// Every string that came from a report is written as a code span ([matrixCode])
// outside tables: HTML, emphasis, links and @mentions do nothing inside one,
// its backtick fence is longer than any backtick run of the text, and
// [inert] has spelled newlines, control and bidi characters as visible
// escapes first. Tables and links hold only names [result.BuildMatrix]
// checked, vector ids (schema-checked), and the kit's own words.
func MatrixMarkdownWith(w io.Writer, m *result.Matrix, o MatrixOptions) error {
	v := newMatrixView(m, o, ".md")
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "# conform certification matrix\n\n")
	fmt.Fprintf(ew, "Suite %s, digest %s. Each implementation's page has its verdict and counts by level, its failures grouped by cause (finding, expected-failure reason, repro line) and, folded, the differences the protocol allows. In the tables below a cell is the conformance status of one implementation on one vector: ≈ marks a pass whose bytes differ from the golden file where the protocol allows (exact parity only; COMPATIBILITY.md \"Conformance and exact parity\"), — a vector the implementation's report does not have. Informational vectors never decide a verdict.\n\n",
		matrixCode(v.Suite.Name), matrixCode(v.Suite.Digest))
	fmt.Fprintf(ew, "## Implementations\n\nBest first: by verdict, then fewest failures. Each bar is an implementation's required and recommended vectors: 🟩 passed, 🟨 expected failures, 🟥 failed, ⬜ skipped (do not apply), ⬛ not run.\n\n")
	for _, impl := range v.Implementations {
		fmt.Fprintf(ew, "- [%s](%s): %s", impl.Name, impl.Link, matrixCode(impl.Implementation))
		if impl.Version != "" {
			fmt.Fprintf(ew, ", version %s", matrixCode(impl.Version))
		}
		if impl.Language != "" {
			fmt.Fprintf(ew, ", language %s", matrixCode(impl.Language))
		}
		if b := barText(impl.Bar); b != "" {
			fmt.Fprintf(ew, " %s", b)
		}
		fmt.Fprintln(ew)
	}
	fmt.Fprintf(ew, "\n| name |")
	for _, s := range v.Sections {
		fmt.Fprintf(ew, " %s |", s.Title)
	}
	fmt.Fprintf(ew, "\n|---|%s\n", strings.Repeat("---|", len(v.Sections)))
	for _, impl := range v.Implementations {
		fmt.Fprintf(ew, "| [%s](%s) |", impl.Name, impl.Link)
		for _, c := range impl.Cells {
			if c.Verdict == "" {
				fmt.Fprintf(ew, " — |")
				continue
			}
			certifies := ""
			if c.Certifies != "" {
				certifies = " [" + c.Certifies + "]"
			}
			fmt.Fprintf(ew, " **%s**%s %s |", c.Verdict, certifies, c.Counts)
		}
		fmt.Fprintln(ew)
	}
	for _, s := range v.Sections {
		fmt.Fprintf(ew, "\n## %s\n\n| vector | level |", s.Title)
		for _, c := range s.Columns {
			fmt.Fprintf(ew, " [%s](%s) |", c.Name, c.Link)
		}
		fmt.Fprintf(ew, "\n|---|---|%s\n", strings.Repeat("---|", len(s.Columns)))
		for _, row := range s.Rows {
			fmt.Fprintf(ew, "| %s | %s |", matrixCode(row.ID), row.Level)
			for _, c := range row.Cells {
				fmt.Fprintf(ew, " %s |", matrixCell(c))
			}
			fmt.Fprintln(ew)
		}
	}
	if v.Inline {
		for _, impl := range v.Implementations {
			fmt.Fprintln(ew)
			implMarkdown(ew, impl, 2)
		}
	}
	return ew.err
}

// MatrixPageMarkdown writes the page of the implementation called name:
// its badge as an image (with pages) and the Markdown to copy; what it is
// (version, language, links to its source, homepage and issue tracker, the
// artifact its profile pins); then per section its verdict, what it
// certifies and a compliance table per conformance class, counts by level,
// the run's date, kit and suite digest (from the report: one "Run on" line
// per section), failures, expected failures, informational results and
// skipped vectors grouped by cause, each with the finding and its section
// of docs/findings.md, the expected-failure reasons, the vectors (file,
// source, golden and actual values of each normative difference) and a
// repro line, and the allowed differences folded; then its history (saved
// reports) and release trend when m has them.
// Errors: USAGE when m has no implementation of that name.
func MatrixPageMarkdown(w io.Writer, m *result.Matrix, name string, o MatrixOptions) error {
	if err := checkName(m, name); err != nil {
		return err
	}
	ew := &errWriter{w: w}
	implMarkdown(ew, newImplView(m, name, o, ".md"), 1)
	return ew.err
}

// implMarkdown writes an implementation's page with its title at heading
// level h (1 on its own page, 2 inside the overview).
func implMarkdown(ew io.Writer, v implView, h int) {
	hd := strings.Repeat("#", h)
	fmt.Fprintf(ew, "%s %s\n\n", hd, v.Name)
	if v.BadgeMarkdown != "" {
		fmt.Fprintf(ew, "%s\n\n", v.BadgeMarkdown)
	}
	fmt.Fprintf(ew, "%s", matrixCode(v.Implementation))
	if facts := implFacts(v); len(facts) > 0 {
		fmt.Fprintf(ew, ": %s", strings.Join(facts, ", "))
	}
	fmt.Fprintf(ew, ".\n\n")
	if v.Verdict != "" {
		fmt.Fprintf(ew, "Verdict: **%s**", v.Verdict)
		if len(v.Sections) > 1 {
			fmt.Fprintf(ew, " (the worst of its %d runs)", len(v.Sections))
		}
		fmt.Fprintf(ew, ". Suite %s, digest %s.", matrixCode(v.SuiteName), matrixCode(v.SuiteDigest))
		if v.BadgeMarkdown != "" {
			fmt.Fprintf(ew, " Badge, to copy: %s.", matrixCode(v.BadgeMarkdown))
		}
		if v.Overview != "" {
			fmt.Fprintf(ew, " All implementations: [the matrix](%s).", v.Overview)
		}
		fmt.Fprintf(ew, "\n")
	}
	for _, s := range v.Sections {
		sectionMarkdown(ew, v, s, hd)
	}
	historyMarkdown(ew, v, hd)
}

// implFacts are what a page says the implementation is: version,
// language, links to its source, homepage and issue tracker (safeURL
// checked them: no space, quote or angle bracket, so an autolink holds
// them whole), and the artifact its profile pins.
func implFacts(v implView) []string {
	var facts []string
	if v.Version != "" {
		facts = append(facts, "version "+matrixCode(v.Version))
	}
	if v.Language != "" {
		facts = append(facts, "language "+matrixCode(v.Language))
	}
	for _, l := range []struct{ name, url string }{{"source", v.Source}, {"homepage", v.Homepage}, {"issues", v.Issues}} {
		if l.url != "" {
			facts = append(facts, l.name+" <"+l.url+">")
		}
	}
	if v.Artifact != "" {
		a := "artifact " + matrixCode(v.Artifact)
		if v.ArtifactURI != "" {
			a += " <" + v.ArtifactURI + ">"
		}
		facts = append(facts, a+" "+matrixCode(v.ArtifactDigest))
	}
	return facts
}

// sectionMarkdown writes one run of an implementation's page: its verdict,
// classes, counts by level, invocation, run line, notes and causes.
func sectionMarkdown(ew io.Writer, v implView, s implSection, hd string) {
	fmt.Fprintf(ew, "\n%s# %s: %s\n\n", hd, s.Title, s.Verdict)
	if len(s.Classes) > 0 {
		classesMarkdown(ew, s)
	}
	fmt.Fprintf(ew, "| level | passed | expected failures | failed | skipped | not run | of |\n|---|---|---|---|---|---|---|\n")
	for _, l := range s.Levels {
		if l.Informational {
			fmt.Fprintf(ew, "| informational (never decides) | %d as recorded | — | %d otherwise | %d | %d | %d |\n", l.Passed, l.Failed, l.Skipped, l.NotRun, l.Total)
			continue
		}
		failed := fmt.Sprint(l.Failed + l.XPass)
		if l.XPass > 0 || l.Invalid > 0 {
			failed += fmt.Sprintf(" (%d xpass, %d invalid)", l.XPass, l.Invalid)
		}
		fmt.Fprintf(ew, "| %s | %d | %d | %s | %d | %d | %d |\n", l.Level, l.Passed, l.XFail, failed, l.Skipped, l.NotRun, l.Total)
	}
	fmt.Fprintf(ew, "\nExact parity %s; run: %s", s.Parity, matrixCode(s.Invocation))
	if s.Badge != "" {
		fmt.Fprintf(ew, "; badge: %s", matrixCode("![conform: "+v.Name+"]("+s.Badge+")"))
	}
	fmt.Fprintf(ew, ".\n")
	if p := provenance(s, v.SuiteDigest); p != "" {
		fmt.Fprintf(ew, "\n%s\n", p)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(ew, "\n- %s\n", matrixCode(n))
	}
	for _, g := range s.Groups {
		if g.Quiet {
			fmt.Fprintf(ew, "\n<details>\n<summary>%s: %s</summary>\n\n", g.Title, g.Counts)
		} else {
			fmt.Fprintf(ew, "\n%s## %s", hd, g.Title)
			if len(g.Causes) > 0 {
				fmt.Fprintf(ew, ": %s", g.Counts)
			}
			fmt.Fprintf(ew, "\n\n")
		}
		if len(g.Causes) == 0 {
			fmt.Fprintf(ew, "%s\n", g.Empty)
		}
		for i, c := range g.Causes {
			causeMarkdown(ew, i+1, c)
		}
		if g.Quiet {
			fmt.Fprintf(ew, "\n</details>\n")
		}
	}
}

// historyMarkdown writes an implementation's history (saved reports) and
// release trend (recordings), when it has them.
func historyMarkdown(ew io.Writer, v implView, hd string) {
	if len(v.History) > 0 {
		fmt.Fprintf(ew, "\n%s# History\n\nFrom saved reports, oldest first.\n\n| version | run | suite | verdict | passed | failed | xfail | skipped | not run |\n|---|---|---|---|---|---|---|---|---|\n", hd)
		for _, h := range v.History {
			verdict := mdCell(h.Verdict)
			if h.Certifies != "" {
				verdict += " \\[" + mdCell(h.Certifies) + "\\]"
			}
			fmt.Fprintf(ew, "| %s | %s | %s | %s | %d | %d | %d | %d | %d |\n", mdCell(h.Version), orDash(h.Date), h.Suite, verdict,
				h.Passed, h.Failed, h.XFail, h.Skipped, h.NotRun)
		}
	}
	if len(v.Trend) > 0 {
		fmt.Fprintf(ew, "\n%s# Releases\n\n| release | released | suite | verdict | passed | failed | xfail | informational | not run |\n|---|---|---|---|---|---|---|---|---|\n", hd)
		for _, t := range v.Trend {
			fmt.Fprintf(ew, "| %s | %s | %s | %s | %d | %d | %d | %d | %d |\n", t.Label, orDash(t.Released), t.Suite, t.Verdict,
				t.Passed, t.Failed+t.XPass, t.XFail, t.Informational, t.NotRun)
		}
	}
}

// causeMarkdown writes cause number n as a list item.
func causeMarkdown(ew io.Writer, n int, c causeView) {
	what := "`" + c.Code + "`"
	if c.Pointer != "" {
		what += " at " + matrixCode(c.Pointer)
	}
	if c.Status != "" && c.Status != c.Code {
		what += " (" + c.Status + ")"
	}
	if c.Class != "" {
		what += " of class " + matrixCode(c.Class)
	}
	ids := make([]string, len(c.Vectors))
	for i, vec := range c.Vectors {
		ids[i] = matrixCode(vec.ID)
		if vec.Status != "" && !c.Quiet && vec.Status != c.Vectors[0].Status {
			ids[i] += " " + vec.Status
		}
	}
	if c.Doc != "" {
		what += " ([what it means](" + c.Doc + "))"
	}
	fmt.Fprintf(ew, "%d. %s, %s: %s\n", n, what, countOf(len(c.Vectors), "vector"), strings.Join(ids, ", "))
	if c.Message != "" {
		fmt.Fprintf(ew, "   - %s", matrixCode(c.Message))
		if c.OtherMessages > 0 {
			fmt.Fprintf(ew, " (and %d other %s)", c.OtherMessages, plural(c.OtherMessages, "wording", "wordings"))
		}
		fmt.Fprintln(ew)
	}
	for _, r := range c.Reasons {
		fmt.Fprintf(ew, "   - expected failure: %s\n", matrixCode(r))
	}
	fmt.Fprintf(ew, "   - repro: %s\n", matrixCode(c.Repro))
	if c.Quiet {
		return
	}
	for _, vec := range c.Vectors {
		vectorMarkdown(ew, vec)
	}
}

// vectorMarkdown writes what a page says of one vector of a cause: its
// file (linked where the suite's place is known), the section it rests on
// (linked when it names a URL), and its normative differences, golden and
// actual side by side.
func vectorMarkdown(ew io.Writer, vec causeVectorView) {
	var facts []string
	switch {
	case vec.File != "":
		facts = append(facts, "["+vec.Path+"]("+vec.File+")")
	case vec.Path != "":
		facts = append(facts, matrixCode(vec.Path))
	}
	if vec.Source != "" {
		facts = append(facts, "rests on "+matrixCode(vec.Source))
	}
	if vec.Spec != "" {
		facts = append(facts, "<"+vec.Spec+">")
	}
	if len(facts) == 0 && len(vec.Sides) == 0 {
		return
	}
	fmt.Fprintf(ew, "   - %s", matrixCode(vec.ID))
	if len(facts) > 0 {
		fmt.Fprintf(ew, ": %s", strings.Join(facts, "; "))
	}
	fmt.Fprintln(ew)
	for _, d := range vec.Sides {
		fmt.Fprintf(ew, "     - %s %s: golden %s, actual %s\n", d.Kind, matrixCode(d.Where), matrixCode(d.Golden), matrixCode(d.Actual))
	}
}

// classesMarkdown writes a run's compliance table: one row per conformance
// class, judged or not, with its counts. Class names and titles are the
// suite's (schema-checked names; titles as code spans outside the table).
func classesMarkdown(ew io.Writer, s implSection) {
	certifies := "nothing"
	if s.Certifies != "" {
		certifies = "[" + s.Certifies + "]"
	}
	fmt.Fprintf(ew, "Certifies %s. Compliance per conformance class (judged: claimed by the profile, derived from what the implementation declared, or always judged):\n\n", certifies)
	fmt.Fprintf(ew, "| class | judged | passed | failed | expected failures | skipped | not claimed | of |\n|---|---|---|---|---|---|---|---|\n")
	for _, c := range s.Classes {
		judged := "no (" + c.How + ")"
		if c.Judged {
			judged = "yes (" + c.How + ")"
		}
		if c.Contradicted {
			judged += ", claim contradicted"
		}
		name := "`" + mdCode(c.Name) + "`"
		if c.URL != "" && !strings.Contains(c.URL, "|") {
			name += " <" + c.URL + ">"
		}
		fmt.Fprintf(ew, "| %s | %s | %d | %d | %d | %d | %d | %d |\n", name, judged, c.Passed, c.Failed, c.XFail, c.Skipped, c.NotClaimed, c.Total)
	}
	fmt.Fprintln(ew)
}

// provenance is a section's run line: the run's date and kit, and the
// suite digest ("" when the report gives no date and no kit). CI compares
// regenerated pages with the committed ones, and these are the lines that
// change with every run: each is one line that starts with "Run ".
func provenance(s implSection, digest string) string {
	if s.Date == "" && s.Kit == "" {
		return ""
	}
	line := "Run"
	if s.Date != "" {
		line += " on " + s.Date
	}
	if s.Kit != "" {
		line += " by conform " + matrixCode(s.Kit)
	}
	return line + " against suite digest " + matrixCode(digest) + "."
}

// barText is an implementation's stacked bar in ten squares (at least
// one for each kind that has vectors).
func barText(segs []barSegment) string {
	squares := map[string]string{"bar-pass": "🟩", "bar-xfail": "🟨", "bar-fail": "🟥", "bar-skip": "⬜", "bar-notrun": "⬛"}
	var b strings.Builder
	for _, s := range segs {
		n := max(1, (s.Tenths+50)/100)
		b.WriteString(strings.Repeat(squares[s.Class], n))
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// matrixCell is a cell's status; its words are the kit's own.
func matrixCell(c cellView) string {
	switch {
	case c.Status == "":
		return "—"
	case c.Allowed:
		return c.Status + " ≈"
	}
	return c.Status
}

// matrixCode writes s (already [inert]: one line, no control or bidi
// character) as a Markdown code span that shows it verbatim: HTML,
// emphasis, links and @mentions do nothing inside one. The fence is one
// backtick longer than the longest backtick run in s, and a space pads s
// when it starts or ends with a backtick or a space (CommonMark strips one
// of each). "" is written as nothing. Not for table cells: GFM splits a row
// at "|" before it reads code spans, and implementations disagree on "\\|";
// the matrix puts only names it has checked ([result.BuildMatrix]), vector
// ids and its own words in tables.
func matrixCode(s string) string {
	if s == "" {
		return ""
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, "`") || strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// MatrixReadme writes the generated block of the README of the
// implementation called name (conform matrix --readmes puts it between
// the README's marker lines): a table of its runs (verdict, the classes it
// certifies, required, recommended and informational counts with the
// skipped ones, exact parity), its failures and
// expected failures by cause (code and number of vectors), the number of
// expected-failure entries its runs used (XFAIL, XPASS and stale ids, each
// once) and a link to its page (page, relative to the README; none when
// ""). No digest and no date: the block changes only when results do.
// Errors: USAGE when m has no implementation of that name.
func MatrixReadme(w io.Writer, m *result.Matrix, name, page string) error {
	if err := checkName(m, name); err != nil {
		return err
	}
	v := newImplView(m, name, MatrixOptions{Pages: "./"}, ".md")
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "Results of the last run of this profile, by `conform matrix`")
	if page != "" {
		fmt.Fprintf(ew, " (details, grouped by cause: [%s](%s))", mdLinkText(page), page)
	}
	fmt.Fprintf(ew, ":\n\n| run | verdict | certifies | required | recommended | informational (never decides) | exact parity |\n|---|---|---|---|---|---|---|\n")
	for _, s := range v.Sections {
		cells := map[string]string{result.LevelRequired: "—", result.LevelRecommended: "—", result.LevelInformational: "—"}
		for _, l := range s.Levels {
			if l.Informational {
				cells[l.Level] = fmt.Sprintf("%d as recorded, %d otherwise", l.Passed, l.Failed)
				continue
			}
			c := fmt.Sprintf("%d passed, %d xfail, %d failed", l.Passed, l.XFail, l.Failed+l.XPass)
			if l.Skipped > 0 {
				c += fmt.Sprintf(", %d skipped", l.Skipped)
			}
			if l.NotRun > 0 {
				c += fmt.Sprintf(", %d not run", l.NotRun)
			}
			cells[l.Level] = c
		}
		certifies := "—"
		if s.Certifies != "" {
			certifies = "`" + mdCode(s.Certifies) + "`"
		}
		fmt.Fprintf(ew, "| %s | %s | %s | %s | %s | %s | %s |\n", s.Title, s.Verdict, certifies, cells[result.LevelRequired], cells[result.LevelRecommended], cells[result.LevelInformational], s.Parity)
	}
	for _, s := range v.Sections {
		for _, g := range s.Groups {
			if g.Kind != result.CauseFailed && g.Kind != result.CauseXFail || len(g.Causes) == 0 {
				continue
			}
			parts := make([]string, len(g.Causes))
			for i, c := range g.Causes {
				parts[i] = fmt.Sprintf("`%s` %s", c.Code, countOf(len(c.Vectors), "vector"))
			}
			fmt.Fprintf(ew, "\n%s (%s): %s.\n", g.Title, s.Title, strings.Join(parts, ", "))
		}
	}
	fmt.Fprintf(ew, "\nExpected-failure entries its runs used: %d.\n", expectEntries(m, name))
	return ew.err
}

// mdLinkText is a relative path as link text: the kit's own path of checked
// names, with Markdown's brackets left out.
func mdLinkText(p string) string { return strings.NewReplacer("[", "", "]", "").Replace(p) }

// expectEntries counts the vector ids an implementation's expected-failure
// list named in its runs: XFAIL and XPASS results and stale entries, each
// id once.
func expectEntries(m *result.Matrix, name string) int {
	ids := map[string]bool{}
	for _, sec := range m.Sections {
		for col, c := range sec.Columns {
			if c.Name != name {
				continue
			}
			for _, id := range c.Stale {
				ids[id] = true
			}
			for _, row := range sec.Rows {
				if st := row.Cells[col].Status; st == result.XFail || st == result.XPass {
					ids[row.ID] = true
				}
			}
		}
	}
	return len(ids)
}
