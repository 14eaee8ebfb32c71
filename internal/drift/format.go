package drift

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Timeline is a series of recordings, in the order given, and the drift
// between each pair of neighbours (Pairs[i] compares Recordings[i] with
// Recordings[i+1]).
type Timeline struct {
	Recordings []Meta    `json:"recordings"`
	Pairs      []Report  `json:"pairs"`
	Rules      []RuleRef `json:"rules"`
}

// RuleRef is a rule as the JSON form lists it.
type RuleRef struct {
	ID      string `json:"id"`
	Verdict string `json:"verdict"`
	Compat  bool   `json:"compat,omitempty"`
	Purpose string `json:"purpose"`
}

// NewTimeline compares each pair of neighbours of recs (at least two).
func NewTimeline(recs []*Recording, opt Options) Timeline {
	t := Timeline{Recordings: make([]Meta, len(recs)), Pairs: []Report{}}
	for i, r := range recs {
		t.Recordings[i] = r.Meta
		if i > 0 {
			t.Pairs = append(t.Pairs, Compare(recs[i-1], r, opt))
		}
	}
	for _, r := range Rules() {
		t.Rules = append(t.Rules, RuleRef{ID: r.ID, Verdict: r.Verdict, Compat: r.Compat, Purpose: r.Purpose})
	}
	return t
}

// Breaking reports whether any pair has a BREAKING finding.
func (t Timeline) Breaking() bool {
	for _, p := range t.Pairs {
		if p.Breaking > 0 {
			return true
		}
	}
	return false
}

// WriteJSON writes t as indented JSON.
func WriteJSON(w io.Writer, t Timeline) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(t)
}

// WriteText writes one block per pair: a heading line, then one line per
// finding (verdict, rule, vector, pointer, message).
func WriteText(w io.Writer, t Timeline) error {
	ew := &errWriter{w: w}
	for i, p := range t.Pairs {
		if i > 0 {
			ew.printf("\n")
		}
		ew.printf("%s -> %s: %s (%d breaking, %d additive, %d info; %d of %d vectors changed)\n",
			describe(p.Old), describe(p.New), p.Verdict, p.Breaking, p.Additive, p.Info, p.Changed, p.Compared)
		if p.SuiteChanged {
			ew.printf("  note: recorded with different suites (%s, %s)\n", p.Old.Suite.Digest, p.New.Suite.Digest)
		}
		for _, f := range p.Findings {
			at := f.Pointer
			if at == "" {
				at = "#"
			}
			if f.In == "old" {
				at += " (old)"
			}
			ew.printf("  %-8s %-22s %s %s: %s\n", f.Verdict, f.Rule, f.Vector, at, f.Message)
		}
	}
	return ew.err
}

func describe(m Meta) string {
	s := m.Label
	if v := m.ImplementationVersion; v != "" && !strings.Contains(s, v) && !strings.Contains(v, s) {
		s += " (" + m.ImplementationVersion + ")"
	}
	return s
}

// WriteMarkdown writes t as a Markdown document body: a table of
// recordings (release, date, verdict, counts), a table of pairs (verdict,
// counts), then one section per pair that changed, with a table of its
// findings. Headings start at level hl (2 gives "##").
func WriteMarkdown(w io.Writer, t Timeline, hl int) error {
	ew := &errWriter{w: w}
	h := strings.Repeat("#", hl)
	ew.printf("%s Releases\n\n", h)
	ew.printf("| release | released | version reported | verdict | passed | failed | xfail | informational | not run | suite digest |\n")
	ew.printf("|---|---|---|---|---:|---:|---:|---:|---:|---|\n")
	for _, m := range t.Recordings {
		c := m.Counts
		ew.printf("| %s | %s | %s | %s | %d | %d | %d | %d | %d | `%s` |\n", md(m.Label), orDash(m.Released), md(orDash(m.ImplementationVersion)),
			orDash(m.Verdict), c["passed"], c["failed"], c["xfail"], c["informational"], c["not_run"], short(m.Suite.Digest))
	}
	ew.printf("\nVectors that did not pass (required and recommended; informational ones never fail a run):\n\n")
	for _, m := range t.Recordings {
		var bad []string
		for _, r := range m.Results {
			if r.Status != "PASS" && r.Status != "XFAIL" && r.Level != "informational" {
				bad = append(bad, fmt.Sprintf("`%s` (%s)", r.ID, r.Status))
			}
		}
		if len(bad) == 0 {
			ew.printf("- %s: none\n", md(m.Label))
			continue
		}
		ew.printf("- %s: %s\n", md(m.Label), strings.Join(bad, ", "))
	}
	ew.printf("\n%s What changed when\n\n", h)
	ew.printf("| from | to | drift | breaking | additive | info | vectors changed |\n|---|---|---|---:|---:|---:|---:|\n")
	for _, p := range t.Pairs {
		ew.printf("| %s | %s | %s | %d | %d | %d | %d of %d |\n", md(p.Old.Label), md(p.New.Label), p.Verdict, p.Breaking, p.Additive, p.Info, p.Changed, p.Compared)
	}
	for _, p := range t.Pairs {
		if len(p.Findings) == 0 {
			continue
		}
		ew.printf("\n%s# %s → %s: %s\n\n", h, md(p.Old.Label), md(p.New.Label), p.Verdict)
		if p.SuiteChanged {
			ew.printf("Recorded with different suites (`%s`, `%s`).\n\n", short(p.Old.Suite.Digest), short(p.New.Suite.Digest))
		}
		ew.printf("| vector | pointer | rule | verdict | what changed | old | new |\n|---|---|---|---|---|---|---|\n")
		for _, f := range p.Findings {
			at := f.Pointer
			if f.In == "old" {
				at += " (old)"
			}
			ew.printf("| `%s` | `%s` | %s | %s | %s | %s | %s |\n", f.Vector, md(at), f.Rule, f.Verdict, md(f.Message), code(f.Old), code(f.New))
		}
	}
	ew.printf("\n%s Rules\n\n| rule | verdict | compat id | checks |\n|---|---|---|---|\n", h)
	for _, r := range t.Rules {
		c := ""
		if r.Compat {
			c = "yes"
		}
		ew.printf("| %s | %s | %s | %s |\n", r.ID, r.Verdict, c, md(strings.TrimPrefix(r.Purpose, "Checks ")))
	}
	return ew.err
}

// WriteChangelog writes one dated Markdown bullet per pair, newest first,
// for COMPATIBILITY.md: the date is the newer recording's release date
// (else the day it was recorded), then the pair, its verdict and its rules
// with counts and the vectors they touch. what names the recorded subject
// (a product name: "the XYZ server").
func WriteChangelog(w io.Writer, t Timeline, what, doc string) error {
	ew := &errWriter{w: w}
	for i := len(t.Pairs) - 1; i >= 0; i-- {
		p := t.Pairs[i]
		date := p.New.Released
		if date == "" && len(p.New.Recorded) >= 10 {
			date = p.New.Recorded[:10]
		}
		ew.printf("- **%s** — %s %s → %s (v%d %s role): **%s**", orDash(date), what, md(p.Old.Label), md(p.New.Label), p.New.Suite.Version, p.New.Suite.Role, p.Verdict)
		if len(p.Findings) == 0 {
			ew.printf(", no difference in %d vectors", p.Compared)
		} else {
			ew.printf(" in %d of %d vectors: %s", p.Changed, p.Compared, ruleSummary(p.Findings))
		}
		ew.printf(" (%s).\n", doc)
	}
	return ew.err
}

// ruleSummary is "RULE ×n (`vec`, `vec`, ...); ..." grouped by verdict
// severity, then rule.
func ruleSummary(fs []Finding) string {
	type group struct {
		rule, verdict string
		n             int
		vectors       []string
	}
	byRule := map[string]*group{}
	for _, f := range fs {
		g := byRule[f.Rule]
		if g == nil {
			g = &group{rule: f.Rule, verdict: f.Verdict}
			byRule[f.Rule] = g
		}
		g.n++
		if !slices.Contains(g.vectors, f.Vector) {
			g.vectors = append(g.vectors, f.Vector)
		}
	}
	rank := map[string]int{VerdictBreaking: 0, VerdictAdditive: 1, VerdictInfo: 2}
	gs := make([]*group, 0, len(byRule))
	for _, g := range byRule {
		gs = append(gs, g)
	}
	slices.SortFunc(gs, func(a, b *group) int {
		if d := rank[a.verdict] - rank[b.verdict]; d != 0 {
			return d
		}
		return strings.Compare(a.rule, b.rule)
	})
	parts := make([]string, len(gs))
	for i, g := range gs {
		vs := g.vectors
		more := ""
		if len(vs) > 4 {
			more = fmt.Sprintf(" and %d more", len(vs)-4)
			vs = vs[:4]
		}
		parts[i] = fmt.Sprintf("%s %s ×%d (`%s`%s)", g.verdict, g.rule, g.n, strings.Join(vs, "`, `"), more)
	}
	return strings.Join(parts, "; ")
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func short(digest string) string {
	if len(digest) > 19 {
		return digest[:19] + "…"
	}
	return digest
}

// md escapes a table cell: pipes, and line breaks as spaces.
func md(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "\r", " ")
}

// code renders a JSON excerpt as inline code in a table cell.
func code(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(md(s), "`", "'")
	return "`" + s + "`"
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
