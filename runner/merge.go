package runner

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/result"
	"github.com/conform-kit/conform/internal/suite"
)

// Merge combines the reports of the shards of one run (Config.Shard, each
// with Report.Shard set, in any order) into one report, as if the run had
// not been split: results in vector id order, counts and verdict
// recomputed ([Report.Recount]), Started the earliest shard's start and
// ElapsedMS the span to the latest shard's end, Shards the number of
// shards. The merged verdict is that of a full run (CERTIFIED and the
// others) only when the shards split an unfiltered selection; shards of a
// --filter run merge into a partial report (PASSED_PARTIAL at best).
//
// Merge refuses, with these codes (each exit 2): SHARD_INVALID (a report
// without shard metadata, or whose results are not those of its shard),
// SHARD_SUITE_MISMATCH (suite name, version, role or digest differ),
// SHARD_KIT_MISMATCH (different conform builds, [Kit]), SHARD_IUT_MISMATCH
// (implementation name or command differ; the program of the command is
// compared by its file name, since CI jobs may install it in different
// directories), SHARD_SELECTION_MISMATCH
// (shard count, selection, --filter or stale expected-failure entries
// differ, or the results do not add up to the selection), SHARD_DUPLICATE
// (a shard given twice, or a vector in two shards) and SHARD_MISSING (a
// shard of 1..n absent). The checks run in that order. Then each result is
// re-checked against its own evidence and against s, the suite the shards
// were made with ([CheckReport]): SHARD_SUITE_MISMATCH when s is another
// suite (its digest differs), REPORT_INVALID when a result's status does
// not follow from its findings or from its expected and actual bytes.
//
// Reports are not signed: whoever can write a shard's file can make it say
// anything that is consistent with itself. Merge proves that the shards
// belong together, that each result is consistent with the evidence it
// carries, and that its expected bytes are the suite's golden file; it
// cannot prove that the IUT wrote the actual bytes, nor re-check a result
// whose bytes were cut at MaxExcerptBytes or that carries none (a PASS
// with exact parity).
func Merge(s *Suite, shards []*Report) (*Report, error) {
	if len(shards) == 0 {
		return nil, kiterr.New(kiterr.ShardMissing, "no shard reports to merge")
	}
	first := shards[0]
	for i, r := range shards {
		if r.Shard == nil {
			return nil, kiterr.New(kiterr.ShardInvalid, "report %d has no shard metadata: it was not made with --shard i/n", i+1)
		}
		if err := checkShard(r); err != nil {
			return nil, kiterr.Wrap(kiterr.ShardInvalid, err, "report %d (shard %d/%d)", i+1, r.Shard.Index, r.Shard.Count)
		}
	}
	for _, r := range shards[1:] {
		name := fmt.Sprintf("shard %d/%d", r.Shard.Index, r.Shard.Count)
		firstName := fmt.Sprintf("shard %d/%d", first.Shard.Index, first.Shard.Count)
		switch {
		case r.Suite != first.Suite:
			return nil, kiterr.New(kiterr.ShardSuiteMismatch, "%s is of suite %s v%d (%s role, %s), %s of %s v%d (%s role, %s)",
				name, r.Suite.Name, r.Suite.Version, r.Suite.Role, r.Suite.Digest, firstName, first.Suite.Name, first.Suite.Version, first.Suite.Role, first.Suite.Digest)
		case r.Kit != first.Kit:
			return nil, kiterr.New(kiterr.ShardKitMismatch, "%s was made by conform %s, %s by conform %s", name, r.Kit, firstName, first.Kit)
		case r.Implementation.Name != first.Implementation.Name || !slices.Equal(portable(r.Implementation.Command), portable(first.Implementation.Command)):
			return nil, kiterr.New(kiterr.ShardIUTMismatch, "%s certifies %q (%s), %s certifies %q (%s)",
				name, r.Implementation.Name, strings.Join(r.Implementation.Command, " "), firstName, first.Implementation.Name, strings.Join(first.Implementation.Command, " "))
		case r.Shard.Count != first.Shard.Count:
			return nil, kiterr.New(kiterr.ShardSelectionMismatch, "%s splits the run into %d shards, %s into %d", name, r.Shard.Count, firstName, first.Shard.Count)
		case r.Shard.Selection != first.Shard.Selection || r.Shard.Selected != first.Shard.Selected || r.Partial != first.Partial:
			return nil, kiterr.New(kiterr.ShardSelectionMismatch, "%s splits another selection of vectors (%d selected, %s) than %s (%d selected, %s): were they run with the same --filter?",
				name, r.Shard.Selected, r.Shard.Selection, firstName, first.Shard.Selected, first.Shard.Selection)
		case !slices.Equal(r.Claims, first.Claims) || !slices.EqualFunc(r.Classes, first.Classes, sameJudging) || !slices.Equal(r.Findings, first.Findings):
			return nil, kiterr.New(kiterr.ShardSelectionMismatch, "%s judged other conformance classes (claims %q, judged %q) than %s (claims %q, judged %q): were they run with the same claims?",
				name, r.Claims, r.Certifies, firstName, first.Claims, first.Certifies)
		case !slices.Equal(r.Stale, first.Stale):
			return nil, kiterr.New(kiterr.ShardSelectionMismatch, "%s found stale expected-failure entries %q, %s found %q: were they run with the same expected-failure list?",
				name, r.Stale, firstName, first.Stale)
		}
	}
	n := first.Shard.Count
	seen := make([]bool, n+1)
	for _, r := range shards {
		if seen[r.Shard.Index] {
			return nil, kiterr.New(kiterr.ShardDuplicate, "shard %d/%d is given twice", r.Shard.Index, n)
		}
		seen[r.Shard.Index] = true
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if !seen[i] {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return nil, kiterr.New(kiterr.ShardMissing, "shard %s missing: merge needs the reports of all %d shards", strings.Join(missing, ", "), n)
	}

	if s == nil || s.Digest != first.Suite.Digest {
		have := "none"
		if s != nil {
			have = s.Digest
		}
		return nil, kiterr.New(kiterr.ShardSuiteMismatch, "the shards were made with the suite %s, and merge re-checks their results against it, but was given the suite %s (give the suite of the run with --suite)", first.Suite.Digest, have)
	}
	for _, r := range shards {
		if err := CheckReport(s, r); err != nil {
			return nil, kiterr.Wrap(kiterr.ReportInvalid, err, "shard %d/%d", r.Shard.Index, r.Shard.Count)
		}
	}

	m := &Report{Suite: first.Suite, Implementation: first.Implementation, Kit: first.Kit, Shards: len(shards),
		Stale: first.Stale, Problems: first.Problems, Partial: first.Partial,
		Claims: first.Claims, Vars: first.Vars, Classes: slices.Clone(first.Classes), Findings: first.Findings}
	var end time.Time
	for _, r := range shards {
		m.Results = append(m.Results, r.Results...)
		m.Interrupted = m.Interrupted || r.Interrupted
		if m.Preflight == nil && r.Preflight != nil {
			m.Preflight = r.Preflight
		}
		if !r.Started.IsZero() {
			if m.Started.IsZero() || r.Started.Before(m.Started) {
				m.Started = r.Started
			}
			if e := r.Started.Add(time.Duration(r.ElapsedMS) * time.Millisecond); e.After(end) {
				end = e
			}
		}
	}
	slices.SortStableFunc(m.Results, func(a, b Result) int { return strings.Compare(a.ID, b.ID) })
	ids := make([]string, len(m.Results))
	for i, res := range m.Results {
		if i > 0 && res.ID == m.Results[i-1].ID {
			return nil, kiterr.New(kiterr.ShardDuplicate, "vector %s is in two shards", res.ID)
		}
		ids[i] = res.ID
	}
	if len(ids) != first.Shard.Selected || selectionDigest(ids) != first.Shard.Selection {
		return nil, kiterr.New(kiterr.ShardSelectionMismatch, "the shards hold %d results, which are not the %d vectors they say were selected", len(ids), first.Shard.Selected)
	}
	if !m.Started.IsZero() {
		m.ElapsedMS = end.Sub(m.Started).Milliseconds()
	}
	m.Recount()
	return m, nil
}

// checkShard checks that r's results are those its shard metadata allows:
// as many as shardVectors gives its index out of Selected vectors, in id
// order.
func checkShard(r *Report) error {
	s := r.Shard
	if s.Count < 1 || s.Index < 1 || s.Index > s.Count || s.Count > s.Selected {
		return fmt.Errorf("shard %d/%d of %d vectors is not a shard", s.Index, s.Count, s.Selected)
	}
	want := s.Selected / s.Count
	if s.Index <= s.Selected%s.Count {
		want++
	}
	if len(r.Results) != want {
		return fmt.Errorf("holds %d results, but shard %d/%d of %d vectors has %d", len(r.Results), s.Index, s.Count, s.Selected, want)
	}
	for i := 1; i < len(r.Results); i++ {
		if r.Results[i-1].ID >= r.Results[i].ID {
			return fmt.Errorf("results are not in vector id order at %s", r.Results[i].ID)
		}
	}
	return nil
}

// portable is argv with its program reduced to its file name (after the
// last / or \\): the part of a command that names the same IUT wherever a
// CI job installed it.
func portable(argv []string) []string {
	if len(argv) == 0 {
		return argv
	}
	out := slices.Clone(argv)
	if i := strings.LastIndexAny(out[0], `/\`); i >= 0 {
		out[0] = out[0][i+1:]
	}
	return out
}

// CheckReport re-checks each result of r, a report made with the suite s
// (its digest is not compared here), against its own evidence:
//
//   - its status follows from its findings: a vector's status is the most
//     severe status among its findings (PASS when none fails; an XFAIL has
//     a failing one, an XPASS none beside its UNEXPECTED_PASS);
//   - when it carries its expected and actual canonical bytes whole (not
//     cut at MaxExcerptBytes), the expected bytes are the suite's golden
//     file of the vector, its parity says whether they equal the actual
//     bytes, and a result that passed (PASS, XPASS) has no difference from
//     them that conformance forbids (compare.Differences with the vector's
//     rules, as the run compared them), nor any difference at all when the
//     run had --exact (in r.Invocation);
//   - a result whose parity differs carries those bytes.
//
// A PASS with exact parity carries no bytes and is checked by its findings
// only. Errors: the first result that fails, naming it and the check.
func CheckReport(s *Suite, r *Report) error {
	exact := slices.Contains(r.Invocation, "--exact")
	var p *plan
	defer func() {
		if p != nil {
			p.close()
		}
	}()
	for i := range r.Results {
		res := &r.Results[i]
		if err := checkStatus(res); err != nil {
			return fmt.Errorf("result %s: %w", res.ID, err)
		}
		if res.Expected == "" && res.Actual == "" {
			if res.Parity == ParityDiffers {
				return fmt.Errorf("result %s: its parity differs, but it carries no expected and actual bytes (a run always gives them)", res.ID)
			}
			continue
		}
		if len(res.Expected) > MaxExcerptBytes || len(res.Actual) > MaxExcerptBytes {
			continue // cut: what is missing cannot be re-checked
		}
		if p == nil {
			cfg := Config{Suite: s, Version: r.Suite.Version, Role: r.Suite.Role}
			cfg.defaults()
			var err error
			if p, err = prepare(cfg); err != nil {
				return err
			}
		}
		if err := p.checkBytes(res, exact); err != nil {
			return fmt.Errorf("result %s: %w", res.ID, err)
		}
	}
	return nil
}

// checkStatus checks that res's status follows from its findings by the
// one status rule (result.StatusFollows).
func checkStatus(res *Result) error {
	if result.StatusFollows(*res) {
		return nil
	}
	st, _ := result.Judge(res.Level, res.Findings)
	switch res.Status {
	case XFail:
		return errors.New("it says XFAIL, but none of its findings fails the vector")
	case XPass:
		return fmt.Errorf("it says XPASS, but its findings give %s", st)
	}
	return fmt.Errorf("it says %s, but its findings give %s (the most severe status among them)", res.Status, st)
}

// checkBytes checks res's whole expected and actual bytes against the
// suite's golden file and the vector's conformance rules (see
// [CheckReport]).
func (p *plan) checkBytes(res *Result, exact bool) error {
	var ref suite.Ref
	for _, v := range p.sessions {
		if v.ID == res.ID {
			ref = v
		}
	}
	if ref.ID == "" {
		return errors.New("no vector of the suite has its id")
	}
	l, err := p.load(ref)
	if err != nil {
		return err
	}
	golden, where, err := p.golden(l)
	if err != nil {
		return fmt.Errorf("the suite has no usable golden for it: %w", err)
	}
	if res.Expected != string(golden) {
		return fmt.Errorf("its expected bytes are not the suite's golden (%s)", where)
	}
	equal := res.Expected == res.Actual
	if equal != (res.Parity == ParityExact) {
		return fmt.Errorf("its parity says %q, but its expected and actual bytes are %s", res.Parity, map[bool]string{true: "equal", false: "not equal"}[equal])
	}
	if equal || (res.Status != Pass && res.Status != XPass) {
		return nil
	}
	if exact {
		return fmt.Errorf("it says %s, but its actual bytes differ from the golden file and the run had --exact", res.Status)
	}
	sent := map[string]*request{}
	for _, r := range l.reqs {
		track(sent, r)
	}
	for _, k := range l.orphans {
		sent[k] = &request{}
	}
	ds, err := compare.Differences(golden, []byte(res.Actual), l.conf, p.declared(sent), p.env)
	if err != nil {
		return fmt.Errorf("its actual bytes cannot be compared with the golden file: %w", err)
	}
	if n := compare.Normative(ds); len(n) > 0 {
		d := n[0]
		return fmt.Errorf("it says %s, but its actual bytes differ from the golden file where conformance does not allow it (%d place(s); first %s %s, %s)",
			res.Status, len(n), d.Frame, d.Pointer, d.Kind)
	}
	return nil
}

// sameJudging reports whether two shards' entries of one class say the
// same about it (its counts are the shard's own).
func sameJudging(a, b ClassResult) bool {
	return a.Name == b.Name && a.Judged == b.Judged && a.How == b.How && a.Contradicted == b.Contradicted
}
