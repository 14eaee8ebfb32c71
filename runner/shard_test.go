package runner_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conform-kit/conform/runner"
)

// TestRunShard runs two shards of a filtered selection: each holds its
// part of the vectors, carries its shard metadata, the start from the
// injected clock and the wall time up to the report, and certifies
// nothing; merged, they are the filtered run.
func TestRunShard(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var shards []*runner.Report
	var ids []string
	for i := 1; i <= 2; i++ {
		cfg := testConfig(t, "reference", "set-model-*", "interrupt-*")
		cfg.Shard = &runner.Shard{Index: i, Count: 2}
		var mu sync.Mutex
		calls := 0
		cfg.Now = func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			calls++
			return start.Add(time.Duration(calls-1) * 1500 * time.Millisecond)
		}
		planned := -1
		cfg.Planned = func(n int) { planned = n }
		rep, err := runner.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Shard == nil || rep.Shard.Index != i || rep.Shard.Count != 2 || rep.Shard.Selected < 2 {
			t.Fatalf("shard %d: metadata %+v", i, rep.Shard)
		}
		if planned != len(rep.Results) {
			t.Errorf("shard %d: Planned(%d), but %d results", i, planned, len(rep.Results))
		}
		if rep.Verdict != runner.VerdictPartial {
			t.Errorf("shard %d: verdict %s, want %s", i, rep.Verdict, runner.VerdictPartial)
		}
		if !rep.Started.Equal(start) || rep.ElapsedMS != 1500 {
			t.Errorf("shard %d: started %v, elapsed %d ms; want %v and 1500 ms (the clock's second reading)", i, rep.Started, rep.ElapsedMS, start)
		}
		if rep.Kit.Version == "" {
			t.Errorf("shard %d: no kit version", i)
		}
		for _, r := range rep.Results {
			ids = append(ids, r.ID)
		}
		shards = append(shards, rep)
	}
	if want := shards[0].Shard.Selected; len(ids) != want || len(slices.Compact(slices.Sorted(slices.Values(ids)))) != want {
		t.Errorf("the shards hold %d vectors (%v), want each of the %d selected once", len(ids), ids, want)
	}
	m, err := runner.Merge(testConfig(t, "reference").Suite, shards)
	if err != nil {
		t.Fatal(err)
	}
	if m.Verdict != runner.VerdictPartial || !m.Partial || m.Summary.Total != shards[0].Shard.Selected {
		t.Errorf("merged: verdict %s, partial %v, %d vectors", m.Verdict, m.Partial, m.Summary.Total)
	}
	// The merged report's class counts are recomputed from all results:
	// each class counts what the shards' counts add up to.
	if len(m.Classes) == 0 || len(m.Classes) != len(shards[0].Classes) {
		t.Fatalf("merged: classes %+v", m.Classes)
	}
	for i, c := range m.Classes {
		sum := shards[0].Classes[i].Total + shards[1].Classes[i].Total
		passed := shards[0].Classes[i].Passed + shards[1].Classes[i].Passed
		if c.Total != sum || c.Passed != passed || c.Name != shards[0].Classes[i].Name {
			t.Errorf("merged class %s: %d results, %d passed; the shards hold %d and %d", c.Name, c.Total, c.Passed, sum, passed)
		}
	}
	if !slices.Equal(m.Certifies, shards[0].Certifies) || len(m.Certifies) == 0 {
		t.Errorf("merged certifies %q, shards %q", m.Certifies, shards[0].Certifies)
	}

	// More shards than vectors would leave one empty: a usage error.
	cfg := testConfig(t, "reference", "interrupt-idle")
	cfg.Shard = &runner.Shard{Index: 1, Count: 2}
	if _, err := runner.Run(context.Background(), cfg); runner.CodeOf(err) != "USAGE" {
		t.Errorf("2 shards of 1 vector: err %v, want USAGE", err)
	}
}

// TestMergeRechecksResults: merge re-checks each result against its own
// evidence. A FAIL edited to PASS, with the findings removed and the
// summary recomputed, is refused: its expected and actual bytes still
// differ where conformance does not allow it (before issue 22 it merged to
// a passing verdict). So are a PASS whose findings still fail and expected
// bytes that are not the golden file. What merge cannot prove: bytes
// rewritten to agree with the forged status (reports are unsigned).
func TestMergeRechecksResults(t *testing.T) {
	t.Parallel()
	run := func() []*runner.Report {
		var shards []*runner.Report
		for i := 1; i <= 2; i++ {
			cfg := testConfig(t, "wrong", "interrupt-idle", "set-model-alias-*")
			cfg.Shard = &runner.Shard{Index: i, Count: 2}
			rep, err := runner.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			shards = append(shards, rep)
		}
		return shards
	}
	s := testConfig(t, "wrong").Suite
	honest := run()
	m, err := runner.Merge(s, honest)
	if err != nil {
		t.Fatalf("merge of honest shards: %v", err)
	}
	if m.Verdict != runner.VerdictNotCertified {
		t.Fatalf("honest merge: verdict %s, want %s (interrupt-idle fails)", m.Verdict, runner.VerdictNotCertified)
	}
	// forge edits interrupt-idle's result in its shard and recomputes the
	// shard's summary and verdict, as someone editing the file would.
	forge := func(edit func(r *runner.Result)) []*runner.Report {
		shards := run()
		for _, rep := range shards {
			for i := range rep.Results {
				if rep.Results[i].ID == "interrupt-idle" {
					if rep.Results[i].Status != runner.Fail || rep.Results[i].Actual == "" {
						t.Fatalf("interrupt-idle: %s without bytes, want a FAIL with its bytes", rep.Results[i].Status)
					}
					edit(&rep.Results[i])
				}
			}
			rep.Recount()
		}
		return shards
	}
	for _, tc := range []struct {
		name string
		edit func(r *runner.Result)
		want string
	}{
		{"FAIL edited to PASS, findings removed", func(r *runner.Result) {
			r.Status, r.Findings, r.Differences = runner.Pass, nil, nil
		}, "result interrupt-idle: it says PASS, but its actual bytes differ from the golden file where conformance does not allow it"},
		{"FAIL edited to PASS, findings kept", func(r *runner.Result) { r.Status = runner.Pass },
			"result interrupt-idle: it says PASS, but its findings give FAIL"},
		{"expected bytes edited to the actual ones", func(r *runner.Result) {
			r.Status, r.Findings, r.Differences, r.Expected, r.Parity = runner.Pass, nil, nil, r.Actual, runner.ParityExact
		}, "result interrupt-idle: its expected bytes are not the suite's golden (golden/v1/interrupt-idle.json)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runner.Merge(s, forge(tc.edit))
			if runner.CodeOf(err) != "REPORT_INVALID" || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("merge of a forged shard: %v, want REPORT_INVALID with %q", err, tc.want)
			}
		})
	}
	// The limit of an unsigned report: bytes rewritten to agree with the
	// forged status leave nothing to re-check.
	m, err = runner.Merge(s, forge(func(r *runner.Result) {
		r.Status, r.Findings, r.Differences, r.Actual, r.Parity = runner.Pass, nil, nil, r.Expected, runner.ParityExact
	}))
	if err != nil || m.Verdict != runner.VerdictPartial {
		t.Errorf("merge of a consistently forged shard: %v, %v; merge cannot tell it from an honest one", m.Verdict, err)
	}
}
