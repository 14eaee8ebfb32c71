// Package report prints a result.Report: text for people, JSON
// (schemas/report.schema.json) and JUnit XML for CI systems. Every printer
// escapes what the IUT wrote: text output quotes it, JSON and XML encoders
// escape it, so IUT output can never inject markup or terminal controls.
package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/result"
)

// TextOptions says how [TextWith] writes a report.
type TextOptions struct {
	// Verbose also shows the notes of passing vectors (PARITY_DIFFERS,
	// IUT_LINGERED) and every difference, allowed ones included, each
	// value whole (as the report keeps it: at most result.MaxValueBytes).
	Verbose bool
	// Color marks statuses and the verdict with ANSI colours (green for a
	// pass, yellow for an expected failure, red for a failure; never red
	// for an informational vector). Never set it for a file or a pipe.
	Color bool
}

// Text writes a human report; it is [TextWith] with only Verbose set.
func Text(w io.Writer, r *result.Report, verbose bool) error {
	return TextWith(w, r, TextOptions{Verbose: verbose})
}

// TextWith writes a human report: a header with the suite digest and the
// IUT; one line per required and recommended vector, then the details of
// each that did not pass (findings, the differences from the golden
// summary as JSON Pointers with both values in JSON, the stderr tail);
// then informational vectors in a section of their own (their lines
// indented, so `grep '^FAIL'` finds only failures that count), with their
// details; problems, stale entries, a failed preflight; the counts per
// level, exact parity, and the verdict line. A finding without a status is
// printed as a note ("note CODE: ..."): it never decides the status
// (result.Judge). Every character the IUT wrote is shown as itself when it
// is graphic, as an escape otherwise (\u007f, \u200b, \xff).
func TextWith(w io.Writer, r *result.Report, o TextOptions) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "suite   %s v%d (%s role)\n", sanitize(r.Suite.Name), r.Suite.Version, sanitize(r.Suite.Role))
	fmt.Fprintf(ew, "digest  %s\n", sanitize(r.Suite.Digest))
	fmt.Fprintf(ew, "iut     %s: %s\n\n", sanitize(r.Implementation.Name), sanitize(shellQuote(r.Implementation.Command)))
	var gated, info []result.Result
	for _, res := range r.Results {
		if res.NotClaimed() {
			continue // one line per class below, not one per vector
		}
		if res.Level == result.LevelInformational {
			info = append(info, res)
		} else {
			gated = append(gated, res)
		}
	}
	for _, res := range gated {
		lineWith(ew, res, "", o.Color)
	}
	for _, res := range gated {
		resultDetails(ew, res, o)
	}
	if len(info) > 0 {
		fmt.Fprintf(ew, "\ninformational vectors (what the IUT does in implementation-defined corners; they never decide the verdict):\n")
		for _, res := range info {
			lineWith(ew, res, "  ", o.Color)
		}
		for _, res := range info {
			resultDetails(ew, res, o)
		}
	}
	for _, p := range r.Problems {
		where := p.Path
		if where == "" {
			where = "suite"
		}
		fmt.Fprintf(ew, "\n%s %s: %s: %s\n", paint(o.Color, red, "INVALID"), sanitize(where), p.Code, sanitize(p.Message))
	}
	for _, id := range r.Stale {
		fmt.Fprintf(ew, "\n%s expected-failure entry %q names no vector that can fail (unknown or informational)\n", paint(o.Color, red, "STALE"), id)
	}
	if r.Preflight != nil && len(r.Preflight.Findings) > 0 {
		last := r.Preflight.Findings[len(r.Preflight.Findings)-1]
		fmt.Fprintf(ew, "\n%s: %s: %s\n    see: %s\n", paint(o.Color, red, "PREFLIGHT FAILED"), r.Preflight.ID, sanitize(last.Message), DocLink(last.Code))
	}
	for _, f := range r.Findings {
		label := "note"
		if f.Status != "" {
			label = paint(o.Color, red, string(f.Status))
		}
		fmt.Fprintf(ew, "\n%s %s: %s\n    see: %s\n", label, f.Code, sanitize(f.Message), DocLink(f.Code))
	}
	fmt.Fprintln(ew)
	Classes(ew, r)
	Summary(ew, r)
	fmt.Fprintln(ew, paint(o.Color, verdictColor(verdictOf(r)), VerdictLine(r)))
	return ew.err
}

// resultDetails writes the block of a result that did not pass (or, verbose, of
// a passing one with notes): reason, what the vector checks, findings,
// differences, stderr and the documentation of its codes.
func resultDetails(ew io.Writer, res result.Result, o TextOptions) {
	if res.Status == result.NotRun || (res.Status == result.Pass && (!o.Verbose || len(res.Findings) == 0)) {
		return
	}
	fmt.Fprintf(ew, "\n--- %s %s (%s)\n", paint(o.Color, statusColor(res), string(res.Status)), res.ID, res.Level)
	if res.Reason != "" {
		fmt.Fprintf(ew, "    reason: %s\n", sanitize(res.Reason))
	}
	failing := res.Status != result.Pass && res.Status != result.XFail && res.Status != result.Skipped
	if failing {
		vectorLines(ew, res)
	}
	showDiffs := len(res.Differences) > 0 && (res.Status != result.XFail || o.Verbose)
	for _, f := range res.Findings {
		if showDiffs && isDifference(f.Code) {
			continue // listed once, below, with the allowed ones
		}
		note := ""
		if f.Status == "" {
			note = "note "
		}
		fmt.Fprintf(ew, "    %s%s: %s\n", note, f.Code, sanitize(f.Message))
	}
	if showDiffs {
		differences(ew, res, o.Verbose)
	}
	if res.Stderr != "" && res.Status != result.XFail {
		fmt.Fprintf(ew, "    stderr (last %d bytes):\n%s", len(res.Stderr), indent(sanitize(res.Stderr), "      | "))
	}
	if see := docLinks(res); failing && see != "" {
		fmt.Fprintf(ew, "    see: %s\n", see)
	}
}

// Classes writes one line per conformance class of the report (none for a
// report made before classes existed): its name, whether and why it was
// judged, and its counts; a class not judged says how many vectors were
// not run for it (SKIPPED, CLASS_NOT_CLAIMED), never as failures.
func Classes(w io.Writer, r *result.Report) {
	if len(r.Classes) == 0 {
		return
	}
	fmt.Fprintln(w, "classes")
	for _, c := range r.Classes {
		if !c.Judged {
			fmt.Fprintf(w, "  %-16s %-12s %d %s not run (SKIPPED: CLASS_NOT_CLAIMED)\n", c.Name, "not claimed", c.Total, plural(c.Total, "vector", "vectors"))
			continue
		}
		how := c.How
		if c.Contradicted {
			how += ", contradicted"
		}
		fmt.Fprintf(w, "  %-16s %-12s %d/%d required, %d/%d recommended", c.Name, how, c.Required.Passed, c.Required.Total, c.Recommended.Passed, c.Recommended.Total)
		for _, n := range []struct {
			n    int
			what string
		}{{c.Failed, "failed"}, {c.XFail, "excused"}, {c.Skipped, "skipped (requires not met)"}, {c.NotRun, "not run"}} {
			if n.n > 0 {
				fmt.Fprintf(w, ", %d %s", n.n, n.what)
			}
		}
		fmt.Fprintln(w)
	}
}

// Summary writes the counts: one line per level (required and recommended
// decide certification; informational never does), exact parity, and suite
// input problems.
func Summary(w io.Writer, r *result.Report) {
	c := r.Summary
	notClaimed := map[string]int{}
	for _, res := range r.Results {
		if res.NotClaimed() {
			notClaimed[res.Level]++
		}
	}
	level := func(name string, l result.LevelCounts) {
		if l.Total == 0 {
			return
		}
		fmt.Fprintf(w, "%-14s %d passed, %d failed, %d xfail (excused), %d xpass", name, l.Passed, l.Failed, l.XFail, l.XPass)
		if l.NotRun > 0 {
			fmt.Fprintf(w, ", %d not run", l.NotRun)
		}
		if n := l.Skipped - notClaimed[name]; n > 0 {
			fmt.Fprintf(w, ", %d skipped (not applicable)", n)
		}
		if n := notClaimed[name]; n > 0 {
			fmt.Fprintf(w, ", %d not claimed", n)
		}
		if l.Invalid > 0 {
			fmt.Fprintf(w, ", %d invalid", l.Invalid)
		}
		fmt.Fprintf(w, " (of %d)\n", l.Total)
	}
	level("required", c.Required)
	level("recommended", c.Recommended)
	if l := c.InformationalLevel; l.Total > 0 {
		fmt.Fprintf(w, "%-14s %d as recorded, %d otherwise (never decide certification)", "informational", l.Passed, l.Failed)
		if l.NotRun > 0 {
			fmt.Fprintf(w, ", %d not run", l.NotRun)
		}
		if n := l.Skipped - notClaimed[result.LevelInformational]; n > 0 {
			fmt.Fprintf(w, ", %d skipped (not applicable)", n)
		}
		if n := notClaimed[result.LevelInformational]; n > 0 {
			fmt.Fprintf(w, ", %d not claimed", n)
		}
		fmt.Fprintf(w, " (of %d)\n", l.Total)
	}
	if ran := c.ParityExact + c.ParityDiffers + c.ParityEmpty; ran > 0 {
		fmt.Fprintf(w, "%-14s %d of %d vectors byte-identical with their golden files", "exact parity", c.ParityExact, ran)
		if c.ParityDiffers > 0 {
			fmt.Fprintf(w, "; %d differ (conformance decides; -v or --format json lists where)", c.ParityDiffers)
		}
		if c.ParityEmpty > 0 {
			fmt.Fprintf(w, "; %d had nothing to compare (no frame kept, no exit)", c.ParityEmpty)
		}
		fmt.Fprintln(w)
	}
	if len(r.Problems) > 0 {
		fmt.Fprintf(w, "%-14s %d vector file(s) could not be used\n", "invalid input", len(r.Problems))
	}
}

// isDifference reports a finding code that restates a difference from the
// golden summary (a normative difference's kind, or the PARITY_DIFFERS note).
func isDifference(code string) bool {
	return code == result.FindingParityDiffers || compare.IsKind(code)
}

// differences lists a result's differences from its golden summary: every
// one with verbose, else those that fail conformance and a count of the
// allowed ones (which only exact parity minds).
func differences(w io.Writer, res result.Result, verbose bool) {
	normative := compare.Normative(res.Differences)
	allowed := len(res.Differences) - len(normative)
	golden := "the golden summary"
	if res.GoldenPath != "" {
		golden += " " + res.GoldenPath
	}
	if !verbose && len(normative) == 0 {
		fmt.Fprintf(w, "    %d allowed %s from %s (-v lists them)\n", allowed, plural(allowed, "difference", "differences"), golden)
		return
	}
	counts := fmt.Sprintf("%d failing conformance, %d allowed", len(normative), allowed)
	shown := res.Differences
	if !verbose {
		shown = normative
		if allowed > 0 {
			counts += ": -v lists them"
		}
	}
	fmt.Fprintf(w, "    differences from %s (%s):\n", golden, counts)
	render := compare.Render
	if verbose {
		render = compare.RenderWhole
	}
	for _, d := range shown {
		fmt.Fprintf(w, "%s", indent(sanitize(render(d)), "      "))
	}
}

// vectorLines says what a failing vector checks and where the rule comes
// from: its file, description and source.
func vectorLines(w io.Writer, res result.Result) {
	if res.Path == "" {
		return
	}
	if res.Description != "" {
		fmt.Fprintf(w, "    vector: %s: %s\n", res.Path, sanitize(res.Description))
	} else {
		fmt.Fprintf(w, "    vector: %s\n", res.Path)
	}
	if res.Source != "" {
		fmt.Fprintf(w, "    source: %s\n", sanitize(res.Source))
	}
}

// FindingsDoc is the document, relative to the repository root, with one
// section per finding code: what it means, its usual causes, how to fix
// it and the rule behind it.
const FindingsDoc = "docs/findings.md"

// DocLink returns where a finding code is explained: FindingsDoc and the
// anchor of its section (the code in lower case, as GitHub makes anchors
// from headings).
func DocLink(code string) string { return FindingsDoc + "#" + strings.ToLower(code) }

// docLinks lists, once each, the sections that explain a failing result:
// its findings that decide a status and the kinds of its differences that
// fail conformance.
func docLinks(res result.Result) string {
	var codes []string
	add := func(c string) {
		for _, x := range codes {
			if x == c {
				return
			}
		}
		codes = append(codes, c)
	}
	for _, f := range res.Findings {
		if f.Status != "" && f.Status != result.Invalid {
			add(f.Code)
		}
	}
	for _, d := range compare.Normative(res.Differences) {
		add(d.Kind)
	}
	links := make([]string, len(codes))
	for i, c := range codes {
		links[i] = DocLink(c)
	}
	return strings.Join(links, ", ")
}

// VerdictLine is the last line of a text report: the verdict, the IUT
// (name and version), what the verdict speaks for (suite title, role,
// version label and the judged classes in brackets), how many required
// and recommended vectors of the judged classes passed, the skips, the
// classes not claimed with their number of vectors, and the suite digest:
//
//	CERTIFIED: tiny 0.4 — MCP server 2025-11-25 [core, tools]: 23/23 required, 10/10 recommended; not claimed: resources, prompts (6 vectors) (sha256:...)
//
// A filtered run says how many vectors it ran, a shard which shard it is,
// a merged report how many shards it merged.
func VerdictLine(r *result.Report) string {
	v := verdictOf(r)
	verdict := strings.ReplaceAll(v, "_", " ")
	c := r.Summary
	switch v {
	case result.VerdictExcused:
		verdict += fmt.Sprintf(" (not certified: %s excused by the expected-failure list)", excused(c))
	case result.VerdictNothingPassed:
		verdict += " (no required or recommended vector ran and passed"
		if c.Excused() > 0 {
			verdict += "; " + excused(c) + " excused by the expected-failure list"
		}
		verdict += ")"
	case result.VerdictPartial:
		if c.Excused() > 0 {
			verdict += fmt.Sprintf(" (%s excused)", excused(c))
		}
	}
	if r.Partial {
		selected := r.Summary.Total
		if r.Shard != nil {
			selected = r.Shard.Selected
		}
		noun := "vectors"
		if selected == 1 {
			noun = "vector"
		}
		verdict += fmt.Sprintf(" (%d %s selected; a partial run certifies nothing)", selected, noun)
	}
	if s := r.Shard; s != nil {
		verdict += fmt.Sprintf(" (shard %d/%d: %d of %d vectors; a shard certifies nothing: 'conform report merge' the reports of all %d shards)", s.Index, s.Count, len(r.Results), s.Selected, s.Count)
	}
	if r.Shards > 0 {
		verdict += fmt.Sprintf(" (merged from %d shards)", r.Shards)
	}
	return fmt.Sprintf("%s: %s — %s%s (%s)", verdict, sanitize(implName(r.Implementation)), certificateName(r), classCounts(r), r.Suite.Digest)
}

// implName is the implementation's name and, when its profile gives one,
// its version.
func implName(im result.Implementation) string {
	if im.Version != "" {
		return im.Name + " " + im.Version
	}
	return im.Name
}

// certificateName names what a verdict speaks for: the suite's title (its
// name when it gives none), the role, the version's label (v<N> when it
// gives none) and, in brackets, the judged classes in suite order
// ("MCP server 2025-11-25 [core, tools]"). A report made before classes
// existed has no brackets.
func certificateName(r *result.Report) string {
	title := r.Suite.Title
	if title == "" {
		title = r.Suite.Name
	}
	label := r.Suite.Label
	if label == "" {
		label = fmt.Sprintf("v%d", r.Suite.Version)
	}
	s := fmt.Sprintf("%s %s %s", title, r.Suite.Role, label)
	if len(r.Classes) > 0 {
		s += " [" + strings.Join(r.Certifies, ", ") + "]"
	}
	return s
}

// classCounts renders what the judged classes passed and what was not
// judged: ": 23/23 required, 10/10 recommended; 1 skipped (requires not
// met); not claimed: resources, prompts (6 vectors); contradicted: tools"
// ("" for a report made before classes existed).
func classCounts(r *result.Report) string {
	if len(r.Classes) == 0 {
		return ""
	}
	var req, rec result.ClassLevel
	skipped, notClaimedVectors := 0, 0
	var notClaimed, contradicted []string
	for _, c := range r.Classes {
		if c.Contradicted {
			contradicted = append(contradicted, c.Name)
		}
		if !c.Judged {
			notClaimed = append(notClaimed, c.Name)
			notClaimedVectors += c.Total
			continue
		}
		req.Total += c.Required.Total
		req.Passed += c.Required.Passed
		rec.Total += c.Recommended.Total
		rec.Passed += c.Recommended.Passed
		skipped += c.Skipped
	}
	s := fmt.Sprintf(": %d/%d required, %d/%d recommended", req.Passed, req.Total, rec.Passed, rec.Total)
	if skipped > 0 {
		s += fmt.Sprintf("; %d skipped (requires not met)", skipped)
	}
	if len(notClaimed) > 0 {
		s += fmt.Sprintf("; not claimed: %s (%d %s)", strings.Join(notClaimed, ", "), notClaimedVectors, plural(notClaimedVectors, "vector", "vectors"))
	}
	if len(contradicted) > 0 {
		s += "; claim contradicted: " + strings.Join(contradicted, ", ")
	}
	return s
}

// excused renders "2 required and 1 recommended vectors".
func excused(c result.Counts) string {
	return fmt.Sprintf("%d required and %d recommended %s", c.Required.XFail, c.Recommended.XFail, plural(c.Excused(), "vector", "vectors"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Line writes the one-line form of a result: status, id, level, time.
func Line(w io.Writer, res result.Result) { lineWith(w, res, "", false) }

// lineWith is Line after prefix, with the status coloured when color is
// set.
func lineWith(w io.Writer, res result.Result, prefix string, color bool) {
	lvl := ""
	if res.Level != result.LevelRequired {
		lvl = " [" + res.Level + "]"
	}
	st := fmt.Sprintf("%-16s", res.Status)
	fmt.Fprintf(w, "%s%s %s%s (%d ms)\n", prefix, paint(color, statusColor(res), st), res.ID, lvl, res.DurationMS)
}

func indent(s, prefix string) string {
	s = strings.TrimRight(s, "\n")
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix) + "\n"
}

func shellQuote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(b []byte) (int, error) {
	if e.err != nil {
		return len(b), nil
	}
	n, err := e.w.Write(b)
	e.err = err
	return n, nil
}
