package compat

import (
	"bufio"
	"io"
	"strings"

	"github.com/conform-kit/conform/internal/kiterr"
)

// Policy is what a user accepts or re-grades after [Compare], in the way
// buf breaking's ignore lists and oasdiff's severity levels work: ignore
// entries by rule id and/or JSON Pointer, and a severity per rule. The zero
// value changes nothing.
type Policy struct {
	// Ignore entries; a finding matching any is Ignored.
	Ignore []IgnoreEntry
	// Severity maps a rule id to "error", "warning", "info" or "none"
	// ("none": the finding is ignored). It applies to BREAKING findings of
	// that rule; ADDITIVE findings stay "info".
	Severity map[string]string
}

// IgnoreEntry accepts findings of Rule (any rule when "") at Pointer or
// below it (any pointer when ""). Line is the entry's line in its file.
type IgnoreEntry struct {
	Rule    string
	Pointer string
	Line    int
}

func (e IgnoreEntry) matches(f Finding) bool {
	if e.Rule != "" && e.Rule != f.Rule {
		return false
	}
	if e.Pointer == "" {
		return true
	}
	p := e.Pointer
	if p == "#" {
		p = ""
	}
	return f.Pointer == p || strings.HasPrefix(f.Pointer, p+"/")
}

// ParseIgnore reads an ignore file: one entry per line, "RULE_ID",
// "/json/pointer" (the finding's pointer or an ancestor; "#" is the root) or
// "RULE_ID /json/pointer"; "#" starts a comment at the start of a line or
// after a space; blank lines are skipped. Errors: USAGE for a line that is
// none of those or names a rule that does not exist.
func ParseIgnore(r io.Reader) ([]IgnoreEntry, error) {
	known := map[string]bool{}
	for _, rule := range Rules() {
		known[rule.ID] = true
	}
	var out []IgnoreEntry
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "# ") {
			continue
		}
		fields := strings.Fields(line)
		var e IgnoreEntry
		e.Line = n
		switch {
		case len(fields) == 1 && (strings.HasPrefix(fields[0], "/") || fields[0] == "#"):
			e.Pointer = fields[0]
		case len(fields) == 1:
			e.Rule = fields[0]
		case len(fields) == 2 && (strings.HasPrefix(fields[1], "/") || fields[1] == "#"):
			e.Rule, e.Pointer = fields[0], fields[1]
		default:
			return nil, kiterr.New(kiterr.Usage, "ignore file line %d: %q: want RULE_ID, /pointer or RULE_ID /pointer", n, line)
		}
		if e.Rule != "" && !known[e.Rule] {
			return nil, kiterr.New(kiterr.Usage, "ignore file line %d: unknown rule %q", n, e.Rule)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, kiterr.Wrap(kiterr.IO, err, "read ignore file")
	}
	return out, nil
}

// ParseSeverities reads a severity file: one "RULE_ID LEVEL" per line
// (LEVEL error, warning, info or none), "#" comments. Errors: USAGE.
func ParseSeverities(r io.Reader) (map[string]string, error) {
	known := map[string]bool{}
	for _, rule := range Rules() {
		known[rule.ID] = true
	}
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			return nil, kiterr.New(kiterr.Usage, "severity file line %d: want RULE_ID LEVEL", n)
		}
		if !known[fields[0]] {
			return nil, kiterr.New(kiterr.Usage, "severity file line %d: unknown rule %q", n, fields[0])
		}
		switch fields[1] {
		case SeverityError, SeverityWarning, SeverityInfo, "none":
		default:
			return nil, kiterr.New(kiterr.Usage, "severity file line %d: level %q: want error, warning, info or none", n, fields[1])
		}
		out[fields[0]] = fields[1]
	}
	if err := sc.Err(); err != nil {
		return nil, kiterr.Wrap(kiterr.IO, err, "read severity file")
	}
	return out, nil
}

// Apply sets severities and marks ignored findings, recounts, and returns
// the ignore entries that matched no finding (stale entries, in file
// order). Checks are recomputed from the findings that are not ignored.
func (p Policy) Apply(rep *Report) (unused []IgnoreEntry) {
	used := make([]bool, len(p.Ignore))
	for i := range rep.Findings {
		f := &rep.Findings[i]
		if f.Verdict == VerdictBreaking {
			if lvl, ok := p.Severity[f.Rule]; ok {
				if lvl == "none" {
					f.Ignored = true
				} else {
					f.Severity = lvl
				}
			}
		}
		for j, e := range p.Ignore {
			if e.matches(*f) {
				f.Ignored = true
				used[j] = true
			}
		}
	}
	for j, u := range used {
		if !u {
			unused = append(unused, p.Ignore[j])
		}
	}
	rep.recount()
	for i := range rep.Checks {
		ch := &rep.Checks[i]
		holds := true
		for _, f := range rep.Findings {
			if f.Verdict == VerdictBreaking && !f.Ignored && (f.Direction == ch.Direction || f.Direction == DirectionBoth) {
				holds = false
			}
		}
		if holds && !ch.Holds {
			ch.Holds, ch.Evidence, ch.Witness = true, "ignored", nil
		}
	}
	return unused
}

// Fails reports whether the report fails at level failOn ("error": a
// finding of severity error; "warning": error or warning), ignoring ignored
// findings.
func (r Report) Fails(failOn string) bool {
	for _, f := range r.Findings {
		if f.Ignored || f.Verdict != VerdictBreaking {
			continue
		}
		if f.Severity == SeverityError || (failOn == SeverityWarning && f.Severity == SeverityWarning) {
			return true
		}
	}
	return false
}
