// Package frozen is the frozen-v1 gate: it compares the last published copy
// of a frozen schema (published/control.v1.json) with the working copy
// (schemas/control.v1.json) through internal/compat, in both directions,
// and checks COMPATIBILITY.md's additive changelog.
//
// The rules (COMPATIBILITY.md, "Versioning policy"; seed 000):
//
//   - Not additive: any change that breaks readers, that is, a working
//     schema that rejects a message the published one accepted (compat
//     --direction reader finds something BREAKING: a required member added,
//     a type narrowed, a definition removed, a branch removed, ...). Old
//     recordings must keep validating. The gate fails.
//   - Additive: every other change compat reports (a new optional member, a
//     new anyOf/oneOf branch, a new enum value, a new definition: what
//     --direction writer calls a widening, or what both directions call
//     ADDITIVE). Each needs a dated entry in the "Additive changelog"
//     section of COMPATIBILITY.md, dated on or after the publication date,
//     that names the changed definition (the $defs name in the finding's
//     pointer, e.g. CanUseToolRequest, in backquotes or not); a change
//     outside $defs must be named by its pointer. Without one the gate
//     fails.
package frozen

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compat"
	"github.com/conform-kit/conform/internal/kiterr"
)

// ChangelogSection is the heading of COMPATIBILITY.md's section whose
// entries the gate reads.
const ChangelogSection = "## Additive changelog"

// Input is what [Check] compares.
type Input struct {
	// Published and Working are the two JSON Schema documents (bytes).
	Published, Working []byte
	// PublishedDate is the publication date of Published (YYYY-MM-DD).
	PublishedDate string
	// Changelog is COMPATIBILITY.md.
	Changelog []byte
}

// Entry is one dated bullet of the additive changelog: "- **YYYY-MM-DD** —
// text", with its continuation lines.
type Entry struct {
	Date string `json:"date"`
	Text string `json:"text"`
}

// Change is one compat finding between the published and the working
// schema, with what the gate decided about it.
type Change struct {
	compat.Finding
	// Subject is the $defs name the pointer is under, or the pointer itself
	// when it is not under $defs.
	Subject string `json:"subject"`
	// Additive is false for a change that breaks readers.
	Additive bool `json:"additive"`
	// Entry is the date of the changelog entry that names Subject, or ""
	// (an additive change without one fails the gate).
	Entry string `json:"entry,omitempty"`
}

// Result is the gate's outcome. Findings are data; OK says whether the gate
// passes.
type Result struct {
	// Reader and Writer are compat's reports published → working in each
	// direction.
	Reader compat.Report `json:"reader"`
	Writer compat.Report `json:"writer"`
	// Changes lists every distinct finding (rule, pointer, message) of the
	// two reports, sorted by pointer.
	Changes []Change `json:"changes"`
	// Entries are the changelog entries dated on or after the publication.
	Entries []Entry `json:"entries"`
	// NotAdditive counts changes that break readers; Undocumented counts
	// additive changes without a changelog entry.
	NotAdditive  int `json:"notAdditive"`
	Undocumented int `json:"undocumented"`
}

// OK reports whether the gate passes: nothing breaks readers and every
// additive change has its entry.
func (r Result) OK() bool { return r.NotAdditive == 0 && r.Undocumented == 0 }

// Check runs the gate. Errors (kit failures, not findings): USAGE for a bad
// date, SCHEMA_INVALID and the JSON codes for unreadable schemas, the
// errors of compat.Compare, and SUITE_INVALID when Changelog has no
// "## Additive changelog" section.
func Check(ctx context.Context, in Input) (Result, error) {
	pub, err := time.Parse("2006-01-02", in.PublishedDate)
	if err != nil {
		return Result{}, kiterr.New(kiterr.Usage, "publication date %q is not YYYY-MM-DD", in.PublishedDate)
	}
	old, err := canon.Parse(in.Published)
	if err != nil {
		return Result{}, kiterr.Wrap(kiterr.SchemaInvalid, err, "published schema")
	}
	cur, err := canon.Parse(in.Working)
	if err != nil {
		return Result{}, kiterr.Wrap(kiterr.SchemaInvalid, err, "working schema")
	}
	entries, err := Entries(in.Changelog)
	if err != nil {
		return Result{}, err
	}
	var res Result
	for _, e := range entries {
		if d, _ := time.Parse("2006-01-02", e.Date); !d.Before(pub) {
			res.Entries = append(res.Entries, e)
		}
	}
	if res.Reader, err = compat.Compare(ctx, old, cur, compat.Options{Direction: compat.DirectionReader}); err != nil {
		return Result{}, err
	}
	if res.Writer, err = compat.Compare(ctx, old, cur, compat.Options{Direction: compat.DirectionWriter}); err != nil {
		return Result{}, err
	}
	// A change is not additive when it breaks readers; the writer report
	// lists the same changes with the widenings marked.
	breaksReaders := map[string]bool{}
	for _, f := range res.Reader.Findings {
		if f.Verdict == compat.VerdictBreaking {
			breaksReaders[key(f)] = true
		}
	}
	seen := map[string]bool{}
	for _, f := range append(slices.Clone(res.Reader.Findings), res.Writer.Findings...) {
		k := key(f)
		if seen[k] {
			continue
		}
		seen[k] = true
		c := Change{Finding: f, Subject: subject(f.Pointer), Additive: !breaksReaders[k]}
		c.Verdict = compat.VerdictAdditive
		if !c.Additive {
			c.Verdict = compat.VerdictBreaking
			res.NotAdditive++
		} else {
			c.Entry = entryNaming(res.Entries, c.Subject)
			if c.Entry == "" {
				res.Undocumented++
			}
		}
		res.Changes = append(res.Changes, c)
	}
	slices.SortFunc(res.Changes, func(a, b Change) int {
		if c := strings.Compare(a.Pointer, b.Pointer); c != 0 {
			return c
		}
		return strings.Compare(a.Rule, b.Rule)
	})
	return res, nil
}

func key(f compat.Finding) string { return f.Rule + "\x00" + f.Pointer + "\x00" + f.Message }

// subject is the $defs name under which ptr lies, or ptr itself.
func subject(ptr string) string {
	if rest, ok := strings.CutPrefix(ptr, "/$defs/"); ok {
		name, _, _ := strings.Cut(rest, "/")
		return canon.UnescapePointer(name)
	}
	if ptr == "" {
		return "#"
	}
	return ptr
}

// entryNaming returns the date of the newest entry that names subject as a
// whole word, or "".
func entryNaming(entries []Entry, subject string) string {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_$])` + regexp.QuoteMeta(subject) + `($|[^A-Za-z0-9_])`)
	best := ""
	for _, e := range entries {
		if re.MatchString(e.Text) && e.Date > best {
			best = e.Date
		}
	}
	return best
}

var bullet = regexp.MustCompile(`^- \*\*(\d{4}-\d{2}-\d{2})\*\*`)

// Entries returns the dated bullets of the "## Additive changelog" section
// of a COMPATIBILITY.md, in file order: each bullet's first line and the
// indented lines that continue it. Errors: SUITE_INVALID when the section
// is missing, or a bullet's date is not a calendar date.
func Entries(changelog []byte) ([]Entry, error) {
	sc := bufio.NewScanner(bytes.NewReader(changelog))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	in, found := false, false
	var out []Entry
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "# ") {
			in = strings.TrimSpace(line) == ChangelogSection
			found = found || in
			continue
		}
		if !in {
			continue
		}
		if m := bullet.FindStringSubmatch(line); m != nil {
			if _, err := time.Parse("2006-01-02", m[1]); err != nil {
				return nil, kiterr.New(kiterr.SuiteInvalid, "changelog entry dated %q: not a calendar date", m[1])
			}
			out = append(out, Entry{Date: m[1], Text: line})
			continue
		}
		if len(out) > 0 && strings.HasPrefix(line, " ") && strings.TrimSpace(line) != "" {
			out[len(out)-1].Text += "\n" + line
		}
	}
	if !found {
		return nil, kiterr.New(kiterr.SuiteInvalid, "the changelog has no %q section", ChangelogSection)
	}
	return out, nil
}

// Summary is the one-line verdict of r.
func (r Result) Summary() string {
	v := "FROZEN: only additive changes, each with its changelog entry"
	switch {
	case r.NotAdditive > 0:
		v = "NOT ADDITIVE: the working schema rejects messages the published one accepted"
	case r.Undocumented > 0:
		v = "CHANGELOG MISSING: an additive change has no dated entry naming it in " + ChangelogSection
	case len(r.Changes) == 0:
		v = "FROZEN: no change"
	}
	return fmt.Sprintf("%s (%d changes: %d not additive, %d additive without an entry)", v, len(r.Changes), r.NotAdditive, r.Undocumented)
}
