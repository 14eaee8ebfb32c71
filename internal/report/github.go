package report

import (
	"crypto/rand"
	"fmt"
	"html"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/result"
)

// GitHubOptions tunes the GitHub Actions printers.
type GitHubOptions struct {
	// FileRoot is joined before each suite-relative vector path in an
	// annotation's file= (the --suite directory as the workflow's
	// repository sees it); "" keeps the suite-relative path, which names
	// the file in a checkout of conform itself.
	FileRoot string
	// StopToken ends the stop-commands section around the text report
	// (https://docs.github.com/actions/reference/workflow-commands-for-github-actions#stopping-and-starting-workflow-commands),
	// so nothing the IUT wrote can run as a workflow command; "" picks a
	// random one (crypto/rand), which is what callers other than tests
	// want.
	StopToken string
}

// maxAnnotations bounds the vector annotations one report writes: GitHub
// shows only the first ten errors of a step anyway, and the step summary
// lists every vector that did not pass.
const maxAnnotations = 50

// GitHub writes r for a GitHub Actions step: the text report (as [Text]
// writes it) inside a stop-commands section, then workflow commands: an
// ::error annotation for each vector that fails the run (file= its vector
// file, title= its status and id, message its findings and differences),
// a ::notice for each expected failure, an ::error for each suite input
// problem, stale expected-failure entry and an interruption, and last the
// verdict (::notice when the run exits 0, ::error otherwise). At most 50
// vector annotations are written; a last one says how many were left out.
// Message and property values are escaped as GitHub's toolkit does
// (% CR LF, and : , in properties) after control characters are replaced.
func GitHub(w io.Writer, r *result.Report, verbose bool, opt GitHubOptions) error {
	ew := &errWriter{w: w}
	token := opt.StopToken
	if token == "" {
		token = rand.Text()
	}
	fmt.Fprintf(ew, "::stop-commands::%s\n", token)
	if err := Text(ew, r, verbose); err != nil {
		return err
	}
	fmt.Fprintf(ew, "::%s::\n", token)
	n, left := 0, 0
	for _, res := range r.Results {
		level := ""
		switch {
		case res.Status == result.NotRun:
			continue // the interruption or the preflight says why
		case res.Failed():
			level = "error"
		case res.Status == result.XFail:
			level = "notice"
		default:
			continue
		}
		if n == maxAnnotations {
			left++
			continue
		}
		n++
		title := fmt.Sprintf("%s %s (%s)", res.Status, res.ID, res.Level)
		workflowCommand(ew, level, vectorFile(opt.FileRoot, res.Path), title, annotation(res))
	}
	if left > 0 {
		workflowCommand(ew, "warning", "", "more vectors", fmt.Sprintf("%d more vectors did not pass; the step summary and the report list them all", left))
	}
	if r.Preflight != nil {
		workflowCommand(ew, "error", vectorFile(opt.FileRoot, r.Preflight.Path), "preflight "+r.Preflight.ID+" failed", annotation(*r.Preflight))
	}
	for _, p := range r.Problems {
		workflowCommand(ew, "error", vectorFile(opt.FileRoot, p.Path), "INVALID suite input", p.Code+": "+p.Message)
	}
	for _, id := range r.Stale {
		workflowCommand(ew, "error", "", "stale expected failure "+id,
			fmt.Sprintf("the expected-failure entry %q names no vector that can fail (unknown or informational): remove it from the list", id))
	}
	if r.Interrupted {
		workflowCommand(ew, "error", "", result.VerdictInterrupted, fmt.Sprintf("the run was interrupted: %d of %d vectors did not run", r.Summary.NotRun, r.Summary.Total))
	}
	level := "notice"
	if r.ExitCode() != 0 {
		level = "error"
	}
	workflowCommand(ew, level, "", "conform "+verdictOf(r), VerdictLine(r))
	return ew.err
}

// ParityGitHub writes a parity run for a GitHub Actions step: the parity
// text report inside a stop-commands section, an ::error annotation for each
// required or recommended row that fails the gate (file= its vector file;
// the message names the groups of implementations), an ::error for each
// implementation whose own run fails, and the gate's outcome (::notice
// PARITY, ::error NO PARITY).
func ParityGitHub(w io.Writer, pr *result.ParityReport, opt GitHubOptions) error {
	ew := &errWriter{w: w}
	token := opt.StopToken
	if token == "" {
		token = rand.Text()
	}
	fmt.Fprintf(ew, "::stop-commands::%s\n", token)
	if err := ParityText(ew, pr); err != nil {
		return err
	}
	fmt.Fprintf(ew, "::%s::\n", token)
	n := 0
	for row, v := range pr.Vectors {
		if !v.Failed {
			continue
		}
		if n == maxAnnotations {
			workflowCommand(ew, "warning", "", "more rows", "more rows fail the parity gate; the step summary lists them all")
			break
		}
		n++
		workflowCommand(ew, "error", vectorFile(opt.FileRoot, parityPath(pr, row)), "NO PARITY "+v.ID+" ("+v.Level+")", parityRow(v))
	}
	for i, rep := range pr.Reports {
		if rep.ExitCode() != 0 {
			workflowCommand(ew, "error", "", pr.Implementations[i].Name+": "+verdictOf(rep), VerdictLine(rep))
		}
	}
	if pr.Passed {
		workflowCommand(ew, "notice", "", "conform PARITY", fmt.Sprintf("%d implementations wrote the golden bytes on all %d required and recommended vectors%s", len(pr.Implementations), pr.Gated, uncompared(pr)))
	} else {
		workflowCommand(ew, "error", "", "conform NO PARITY", fmt.Sprintf("%d of %d required and recommended vectors fail the parity gate%s", pr.Disagree, pr.Gated, uncompared(pr)))
	}
	return ew.err
}

// GitHubSummary writes r as GitHub-flavoured Markdown for the job's step
// summary ($GITHUB_STEP_SUMMARY): the verdict, the counts per level
// (skipped among them), what it certifies and a table of its conformance
// classes (judged or not, with passed, failed, excused, skipped and not
// claimed counts) when the report has them, exact parity, a table of the vectors that did not
// pass (status, vector, level, the finding that decided; at most 200 rows)
// and one of the vectors skipped because they do not apply, with why (at
// most 200 rows; never failures). IUT text is escaped so that it renders
// as text.
func GitHubSummary(w io.Writer, r *result.Report) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "### conform: %s\n\n", mdCell(VerdictLine(r)))
	fmt.Fprintf(ew, "`%s` v%d, %s role, suite digest `%s`", mdCode(r.Suite.Name), r.Suite.Version, mdCell(r.Suite.Role), mdCode(r.Suite.Digest))
	if r.Shard != nil {
		fmt.Fprintf(ew, ", shard %d/%d", r.Shard.Index, r.Shard.Count)
	}
	if r.ElapsedMS > 0 {
		fmt.Fprintf(ew, ", %.1f s", float64(r.ElapsedMS)/1000)
	}
	fmt.Fprintf(ew, "\n\n| level | passed | failed | xfail (excused) | xpass | invalid | skipped | not run | total |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	c := r.Summary
	for _, l := range []struct {
		name string
		lc   result.LevelCounts
	}{{"required", c.Required}, {"recommended", c.Recommended}, {"informational", c.InformationalLevel}} {
		if l.lc.Total == 0 {
			continue
		}
		fmt.Fprintf(ew, "| %s | %d | %d | %d | %d | %d | %d | %d | %d |\n", l.name, l.lc.Passed, l.lc.Failed, l.lc.XFail, l.lc.XPass, l.lc.Invalid, l.lc.Skipped, l.lc.NotRun, l.lc.Total)
	}
	summaryClasses(ew, r)
	if ran := c.ParityExact + c.ParityDiffers; ran > 0 {
		fmt.Fprintf(ew, "\nExact parity: %d of %d vectors byte-identical with their golden files.\n", c.ParityExact, ran)
	}
	var rows, skipped []result.Result
	for _, res := range r.Results {
		switch res.Status {
		case result.Pass, result.NotRun:
		case result.Skipped:
			skipped = append(skipped, res)
		default:
			rows = append(rows, res)
		}
	}
	if len(rows) > 0 {
		fmt.Fprintf(ew, "\n#### Vectors that did not pass (%d)\n\n| status | vector | level | finding |\n|---|---|---|---|\n", len(rows))
		for i, res := range rows {
			if i == 200 {
				fmt.Fprintf(ew, "| | %d more | | see the report |\n", len(rows)-i)
				break
			}
			fmt.Fprintf(ew, "| %s | `%s` | %s | %s |\n", res.Status, mdCode(res.ID), res.Level, mdCell(summaryLine(res)))
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(ew, "\n#### Vectors skipped: they do not apply, and never fail (%d)\n\n| vector | level | why |\n|---|---|---|\n", len(skipped))
		for i, res := range skipped {
			if i == 200 {
				fmt.Fprintf(ew, "| %d more | | see the report |\n", len(skipped)-i)
				break
			}
			code, _, _, msg := result.Cause(res.Status, res.Findings, nil)
			fmt.Fprintf(ew, "| `%s` | %s | %s |\n", mdCode(res.ID), res.Level, mdCell(code+": "+msg))
		}
	}
	for _, p := range r.Problems {
		fmt.Fprintf(ew, "\n- INVALID `%s`: %s", mdCode(p.Path), mdCell(p.Code+": "+p.Message))
	}
	for _, id := range r.Stale {
		fmt.Fprintf(ew, "\n- STALE expected-failure entry `%s` names no vector that can fail", mdCode(id))
	}
	fmt.Fprintln(ew)
	return ew.err
}

// summaryClasses writes what a run certifies and a table of its classes,
// when its report has them.
func summaryClasses(w io.Writer, r *result.Report) {
	if len(r.Classes) == 0 {
		return
	}
	certifies := "nothing"
	if len(r.Certifies) > 0 {
		certifies = "[" + mdCell(strings.Join(r.Certifies, ", ")) + "]"
	}
	fmt.Fprintf(w, "\nCertifies %s.\n\n| class | judged | passed | failed | excused | skipped | not claimed | total |\n|---|---|---:|---:|---:|---:|---:|---:|\n", certifies)
	for _, cl := range r.Classes {
		how := mdCell(strings.ReplaceAll(cl.How, "-", " "))
		judged := "no (" + how + ")"
		if cl.Judged {
			judged = "yes (" + how + ")"
		}
		if cl.Contradicted {
			judged += ", claim contradicted"
		}
		fmt.Fprintf(w, "| `%s` | %s | %d | %d | %d | %d | %d | %d |\n", mdCode(cl.Name), judged, cl.Passed, cl.Failed, cl.XFail, cl.Skipped, cl.NotClaimed, cl.Total)
	}
}

// ParityGitHubSummary writes a parity run as Markdown for the step
// summary: the gate, each implementation's verdict and counts, and the
// rows that fail the gate with their groups (at most 200).
func ParityGitHubSummary(w io.Writer, pr *result.ParityReport) error {
	ew := &errWriter{w: w}
	gate := "PARITY"
	if !pr.Passed {
		gate = "NO PARITY"
	}
	fmt.Fprintf(ew, "### conform parity: %s\n\n`%s` v%d, %s role, suite digest `%s`; %d of %d required and recommended vectors disagree%s\n\n",
		gate, mdCode(pr.Suite.Name), pr.Suite.Version, mdCell(pr.Suite.Role), mdCode(pr.Suite.Digest), pr.Disagree, pr.Gated, mdCell(uncompared(pr)))
	fmt.Fprintf(ew, "| implementation | verdict | passed | failed | xfail | xpass | exact parity |\n|---|---|---:|---:|---:|---:|---:|\n")
	for i, rep := range pr.Reports {
		c := rep.Summary
		fmt.Fprintf(ew, "| %s | %s | %d | %d | %d | %d | %d of %d |\n", mdCell(pr.Implementations[i].Name), verdictOf(rep),
			c.Passed, c.Failed, c.XFail, c.XPass, c.ParityExact, c.ParityExact+c.ParityDiffers)
	}
	n := 0
	for _, v := range pr.Vectors {
		if !v.Failed {
			continue
		}
		if n == 0 {
			fmt.Fprintf(ew, "\n#### Rows that fail the gate\n\n| vector | level | groups |\n|---|---|---|\n")
		}
		if n == 200 {
			fmt.Fprintf(ew, "| more | | see the report |\n")
			break
		}
		n++
		fmt.Fprintf(ew, "| `%s` | %s | %s |\n", mdCode(v.ID), v.Level, mdCell(parityRow(v)))
	}
	return ew.err
}

// parityRow names a row's groups: "= golden: a, b | c".
func parityRow(v result.ParityVector) string {
	var groups []string
	for _, g := range v.Groups {
		label := ""
		if g.Golden {
			label = "= golden: "
		}
		groups = append(groups, label+strings.Join(g.Implementations, ", "))
	}
	var notRun []string
	for name, st := range v.Statuses {
		if st == result.NotRun || st == result.Invalid || st == "" {
			notRun = append(notRun, name+" "+short(st))
		}
	}
	slices.Sort(notRun) // Statuses is a map
	msg := fmt.Sprintf("%d groups of implementations wrote different bytes: [%s]", len(v.Groups), strings.Join(groups, "] vs ["))
	switch {
	case v.Uncompared:
		msg = "not compared: no implementation ran it"
	case len(v.Groups) == 1 && v.Groups[0].Golden:
		msg = "every implementation that ran it wrote the golden bytes, but its own run failed"
	}
	if len(notRun) > 0 {
		msg += "; did not run: " + strings.Join(notRun, ", ")
	}
	return msg
}

// parityPath is the vector file of row, from the first report that has it.
func parityPath(pr *result.ParityReport, row int) string {
	for _, rep := range pr.Reports {
		if row < len(rep.Results) && rep.Results[row].Path != "" {
			return rep.Results[row].Path
		}
	}
	return ""
}

// annotation is the message of a vector's annotation: its findings, then
// its differences from the golden summary, cut at 4 KiB.
func annotation(res result.Result) string {
	var b strings.Builder
	h := headline(res)
	if h != nil {
		fmt.Fprintf(&b, "%s: %s\n", h.Code, h.Message)
	}
	for i := range res.Findings {
		f := &res.Findings[i]
		if f == h || isDifference(f.Code) {
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n", f.Code, f.Message)
	}
	for _, d := range res.Differences {
		if r := compare.Render(d); h == nil || strings.TrimSpace(r) != strings.TrimSpace(h.Message) {
			b.WriteString(r)
		}
	}
	s := strings.TrimRight(b.String(), "\n")
	if len(s) > 4096 {
		s = strings.ToValidUTF8(s[:4096], "") + " ..."
	}
	return s
}

// vectorFile joins root and a suite-relative path ("" stays "").
func vectorFile(root, p string) string {
	if p == "" || root == "" {
		return p
	}
	return path.Join(root, p)
}

// verdictOf is r's verdict word.
func verdictOf(r *result.Report) string {
	if r.Verdict != "" {
		return r.Verdict
	}
	return r.ComputeVerdict()
}

// workflowCommand writes one GitHub Actions workflow command line:
// ::level file=F,title=T::message, with properties that are empty left
// out.
func workflowCommand(w io.Writer, level, file, title, msg string) {
	var props []string
	if file != "" {
		props = append(props, "file="+EscapeWorkflowProperty(file))
	}
	if title != "" {
		props = append(props, "title="+EscapeWorkflowProperty(title))
	}
	sep := ""
	if len(props) > 0 {
		sep = " "
	}
	fmt.Fprintf(w, "::%s%s%s::%s\n", level, sep, strings.Join(props, ","), EscapeWorkflowData(msg))
}

// EscapeWorkflowData escapes a workflow command's message as GitHub's toolkit does
// (actions/toolkit, command.ts escapeData): % as %25, CR as %0D, LF as %0A,
// after other control characters are replaced (sanitize), so the command
// stays one line whatever the IUT wrote.
func EscapeWorkflowData(s string) string {
	s = sanitize(s)
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// EscapeWorkflowProperty escapes a workflow command's property value
// (command.ts escapeProperty): as [EscapeWorkflowData], plus : as %3A and ,
// as %2C.
func EscapeWorkflowProperty(s string) string {
	s = sanitize(s)
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// mdCell renders text as one Markdown table cell that shows as text: HTML
// escaped, Markdown punctuation backslash-escaped, line breaks as spaces,
// cut at 300 characters.
func mdCell(s string) string {
	s = sanitize(s)
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "..."
	}
	s = strings.NewReplacer("\n", " ", "\t", " ").Replace(s)
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune("\\`*_{}[]()#+-!|~", c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return html.EscapeString(b.String())
}

// mdCode renders text for inside a `code span` of a table cell: backticks
// and pipes cannot appear there, so they are replaced.
func mdCode(s string) string {
	s = sanitize(s)
	return strings.NewReplacer("`", "'", "|", "/", "\n", " ").Replace(s)
}
