package runner_test

import (
	"context"
	"slices"
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
	m, err := runner.Merge(shards)
	if err != nil {
		t.Fatal(err)
	}
	if m.Verdict != runner.VerdictPartial || !m.Partial || m.Summary.Total != shards[0].Shard.Selected {
		t.Errorf("merged: verdict %s, partial %v, %d vectors", m.Verdict, m.Partial, m.Summary.Total)
	}

	// More shards than vectors would leave one empty: a usage error.
	cfg := testConfig(t, "reference", "interrupt-idle")
	cfg.Shard = &runner.Shard{Index: 1, Count: 2}
	if _, err := runner.Run(context.Background(), cfg); runner.CodeOf(err) != "USAGE" {
		t.Errorf("2 shards of 1 vector: err %v, want USAGE", err)
	}
}
