package runner

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/kiterr/kiterrtest"
	"github.com/conform-kit/conform/internal/suite"
)

// vectors returns n indexed vectors in id order; every fifth is
// informational.
func vectors(n int) []suite.Ref {
	vs := make([]suite.Ref, n)
	for i := range vs {
		level := suite.LevelRequired
		if i%5 == 4 {
			level = suite.LevelInformational
		}
		vs[i] = suite.Ref{ID: fmt.Sprintf("v%03d", i), Level: level, Path: fmt.Sprintf("vectors/v1/agent/v%03d.json", i)}
	}
	return vs
}

func TestShardVectors(t *testing.T) {
	t.Parallel()
	vs := vectors(11)
	for _, n := range []int{1, 2, 3, 4, 11} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			var all []string
			var sizes []int
			var selections []string
			for i := 1; i <= n; i++ {
				got, info, err := shardVectors(vs, Shard{Index: i, Count: n})
				if err != nil {
					t.Fatal(err)
				}
				again, _, _ := shardVectors(vs, Shard{Index: i, Count: n})
				if !slices.Equal(got, again) {
					t.Errorf("shard %d/%d is not deterministic", i, n)
				}
				for _, v := range got {
					all = append(all, v.ID)
				}
				sizes = append(sizes, len(got))
				selections = append(selections, info.Selection)
				if info.Index != i || info.Count != n || info.Selected != len(vs) {
					t.Errorf("shard %d/%d: info %+v", i, n, info)
				}
			}
			// Every vector in exactly one shard; sizes differ by at most one.
			slices.Sort(all)
			var want []string
			for _, v := range vs {
				want = append(want, v.ID)
			}
			if diff := cmp.Diff(want, all); diff != "" {
				t.Errorf("union of shards mismatch (-want +got):\n%s", diff)
			}
			if slices.Max(sizes)-slices.Min(sizes) > 1 {
				t.Errorf("shard sizes %v are not balanced", sizes)
			}
			if len(slices.Compact(slices.Clone(selections))) != 1 {
				t.Errorf("shards of one selection have different selection digests: %v", selections)
			}
		})
	}
	for _, bad := range []Shard{{0, 3}, {4, 3}, {1, 0}, {1, 12}} {
		_, _, err := shardVectors(vs, bad)
		kiterrtest.WantCode(t, err, kiterr.Usage)
	}
}

func TestParseShard(t *testing.T) {
	t.Parallel()
	if s, err := ParseShard("2/3"); err != nil || s != (Shard{2, 3}) {
		t.Errorf("ParseShard(2/3) = %v, %v", s, err)
	}
	for _, bad := range []string{"", "3", "0/3", "4/3", "1/0", "a/b", "1/3/5", "-1/3", "1/-3"} {
		_, err := ParseShard(bad)
		kiterrtest.WantCode(t, err, kiterr.Usage)
	}
}

// embedded returns the suite embedded in the module.
func embedded(t *testing.T) *Suite {
	t.Helper()
	s, err := Open(conform.Suite())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// shardReports splits a run of vs (each PASS except failing ids) into n
// shard reports the way Run does.
func shardReports(t *testing.T, vs []suite.Ref, n int, failing ...string) (full *Report, shards []*Report) {
	t.Helper()
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	result := func(v suite.Ref) Result {
		r := Result{ID: v.ID, Level: v.Level, Path: v.Path, Status: Pass, Parity: ParityExact, DurationMS: 3}
		if slices.Contains(failing, v.ID) {
			// A failure as the runner reports one: its status follows
			// from its findings ([CheckReport]).
			r.Status = Fail
			r.Findings = []Finding{{Code: FindingExitNonzero, Status: Fail, Message: "the IUT exited with status 1"}}
		}
		return r
	}
	base := Report{Suite: SuiteInfo{Name: "conform", Version: 1, Role: "agent", Digest: embedded(t).Digest},
		Implementation: Implementation{Name: "iut", Command: []string{"/bin/iut"}}, Kit: Kit{Version: "v1.0.0"}}
	full = new(Report)
	*full = base
	for _, v := range vs {
		full.Results = append(full.Results, result(v))
	}
	full.Recount()
	for i := 1; i <= n; i++ {
		sel, info, err := shardVectors(vs, Shard{Index: i, Count: n})
		if err != nil {
			t.Fatal(err)
		}
		r := new(Report)
		*r = base
		r.Shard = info
		// Shards run at once, from 10 s to 10+i s after start.
		r.Started, r.ElapsedMS = start.Add(time.Duration(i)*time.Second), 10000
		for _, v := range sel {
			r.Results = append(r.Results, result(v))
		}
		r.Recount()
		if r.Verdict == VerdictCertified {
			t.Fatalf("shard %d/%d certified by itself", i, n)
		}
		shards = append(shards, r)
	}
	return full, shards
}

func TestMerge(t *testing.T) {
	t.Parallel()
	vs := vectors(11)
	for _, tc := range []struct {
		name    string
		failing []string
		verdict string
	}{
		{"all pass", nil, VerdictCertified},
		{"one fails", []string{"v007"}, VerdictNotCertified},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			full, shards := shardReports(t, vs, 3, tc.failing...)
			// Any order of the shards merges to the same report.
			slices.Reverse(shards)
			m, err := Merge(embedded(t), shards)
			if err != nil {
				t.Fatal(err)
			}
			if m.Verdict != tc.verdict || m.Shards != 3 || m.Shard != nil {
				t.Errorf("merged verdict %s, shards %d, shard %v; want %s, 3, nil", m.Verdict, m.Shards, m.Shard, tc.verdict)
			}
			opts := cmpopts.IgnoreUnexported(Result{})
			if diff := cmp.Diff(full.Results, m.Results, opts); diff != "" {
				t.Errorf("merged results mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(full.Summary, m.Summary); diff != "" {
				t.Errorf("merged summary mismatch (-want +got):\n%s", diff)
			}
			// Wall time: from the first shard's start (12:00:01) to the last
			// shard's end (12:00:13).
			if want := time.Date(2026, 11, 30, 12, 0, 1, 0, time.UTC); !m.Started.Equal(want) || m.ElapsedMS != 12000 {
				t.Errorf("merged started %v elapsed %d ms, want %v and 12000 ms", m.Started, m.ElapsedMS, want)
			}
		})
	}

	// The same program installed in another directory (another CI job's
	// temporary directory, a Windows runner) is the same IUT.
	_, moved := shardReports(t, vs, 3)
	moved[1].Implementation.Command = []string{"/home/runner/work/_temp/bin/iut"}
	moved[2].Implementation.Command = []string{`C:\a\iut`}
	if _, err := Merge(embedded(t), moved); err != nil {
		t.Errorf("merge of shards whose IUT lives in other directories: %v", err)
	}

	// A filtered selection merges to a partial verdict at best.
	_, shards := shardReports(t, vs[:6], 2)
	for _, s := range shards {
		s.Partial = true
		s.Recount()
	}
	m, err := Merge(embedded(t), shards)
	if err != nil || m.Verdict != VerdictPartial {
		t.Errorf("merge of filtered shards: verdict %v, err %v; want %s", m, err, VerdictPartial)
	}
}

func TestMergeRefuses(t *testing.T) {
	t.Parallel()
	vs := vectors(11)
	tests := []struct {
		name   string
		modify func(shards []*Report) []*Report
		code   kiterr.Code
	}{
		{"missing shard", func(s []*Report) []*Report { return s[:2] }, kiterr.ShardMissing},
		{"duplicated shard", func(s []*Report) []*Report { return []*Report{s[0], s[1], s[1], s[2]} }, kiterr.ShardDuplicate},
		{"shard given twice instead of another", func(s []*Report) []*Report { return []*Report{s[0], s[0], s[2]} }, kiterr.ShardDuplicate},
		{"no shard metadata", func(s []*Report) []*Report { s[1].Shard = nil; return s }, kiterr.ShardInvalid},
		{"result missing from a shard", func(s []*Report) []*Report { s[1].Results = s[1].Results[1:]; return s }, kiterr.ShardInvalid},
		{"suite digest", func(s []*Report) []*Report { s[2].Suite.Digest = "sha256:" + fmt.Sprintf("%064d", 2); return s }, kiterr.ShardSuiteMismatch},
		{"another suite than merge's", func(s []*Report) []*Report {
			for _, r := range s {
				r.Suite.Digest = "sha256:" + fmt.Sprintf("%064d", 2)
			}
			return s
		}, kiterr.ShardSuiteMismatch},
		{"status that its findings do not give", func(s []*Report) []*Report {
			s[1].Results[0].Findings = []Finding{{Code: FindingReplyMissing, Status: Timeout}}
			return s
		}, kiterr.ReportInvalid},
		{"parity differs without bytes", func(s []*Report) []*Report { s[0].Results[1].Parity = ParityDiffers; return s }, kiterr.ReportInvalid},
		{"suite version", func(s []*Report) []*Report { s[2].Suite.Version = 2; return s }, kiterr.ShardSuiteMismatch},
		{"role", func(s []*Report) []*Report { s[2].Suite.Role = "host"; return s }, kiterr.ShardSuiteMismatch},
		{"kit version", func(s []*Report) []*Report { s[1].Kit.Version = "v1.0.1"; return s }, kiterr.ShardKitMismatch},
		{"kit revision", func(s []*Report) []*Report { s[1].Kit.Revision = "abc"; return s }, kiterr.ShardKitMismatch},
		{"implementation name", func(s []*Report) []*Report { s[1].Implementation.Name = "other"; return s }, kiterr.ShardIUTMismatch},
		{"implementation command", func(s []*Report) []*Report {
			s[1].Implementation.Command = []string{"/bin/iut", "--v2"}
			return s
		}, kiterr.ShardIUTMismatch},
		{"another program", func(s []*Report) []*Report {
			s[1].Implementation.Command = []string{"/bin/iut2"}
			return s
		}, kiterr.ShardIUTMismatch},
		{"shard count", func(s []*Report) []*Report {
			_, four := shardReports(t, vs, 4)
			return []*Report{s[0], s[1], four[2]}
		}, kiterr.ShardSelectionMismatch},
		{"another selection", func(s []*Report) []*Report {
			_, other := shardReports(t, vs[1:], 3)
			return []*Report{s[0], other[1], s[2]}
		}, kiterr.ShardSelectionMismatch},
		{"filtered and unfiltered", func(s []*Report) []*Report { s[0].Partial = true; return s }, kiterr.ShardSelectionMismatch},
		{"stale entries", func(s []*Report) []*Report { s[2].Stale = []string{"gone"}; return s }, kiterr.ShardSelectionMismatch},
		{"result swapped for another vector", func(s []*Report) []*Report {
			s[1].Results[0].ID = "v000a"
			return s
		}, kiterr.ShardSelectionMismatch},
		{"nothing", func([]*Report) []*Report { return nil }, kiterr.ShardMissing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, shards := shardReports(t, vs, 3)
			_, err := Merge(embedded(t), tc.modify(shards))
			kiterrtest.WantCode(t, err, tc.code)
		})
	}
}
