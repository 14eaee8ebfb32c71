package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/suite"
)

// Results kept in slots come back as they went in; a plain PASS comes
// back without its printer-only texts, and only a plain PASS or an
// untouched NOT_RUN is kept as less than a whole Result.
func TestResultSlots(t *testing.T) {
	t.Parallel()
	v := suite.Ref{ID: "ping", Level: suite.LevelRequired, Path: "vectors/v1/agent/ping.json"}
	base := func() Result {
		return Result{ID: v.ID, Level: v.Level, Path: v.Path, Status: Pass, DurationMS: 7, Parity: ParityExact,
			Exit: &proc.Exit{Code: 3}, Description: "d", Source: "s", GoldenPath: "golden/v1/ping.json"}
	}
	with := func(f func(*Result)) Result { r := base(); f(&r); return r }
	tests := []struct {
		name  string
		r     Result
		plain bool
	}{
		{"plain pass", base(), true},
		{"not run", Result{ID: v.ID, Level: v.Level, Path: v.Path, Status: NotRun}, false},
		{"notes", with(func(r *Result) {
			r.Findings = []Finding{{Code: FindingLingered, Message: "m"}, {Code: FindingFrameSchema, Message: "n"}}
		}), true},
		{"parity differs", with(func(r *Result) {
			r.Parity = ParityDiffers
			r.Differences = []compare.Difference{{Kind: compare.ValueChanged, Pointer: "/x"}}
		}), false},
		{"failed", with(func(r *Result) { r.Status = Fail; r.Stderr = "e"; r.Expected, r.Actual = "a", "b" }), false},
		{"killed", with(func(r *Result) { r.Exit = &proc.Exit{Code: -1, Signal: "SIGKILL"} }), false},
		{"stopped", with(func(r *Result) { r.Exit = &proc.Exit{Code: -1, Signal: "SIGTERM", Stopped: "SIGTERM"} }), false},
		{"no exit", with(func(r *Result) { r.Exit = nil }), false},
		{"huge exit code", with(func(r *Result) { r.Exit = &proc.Exit{Code: 1 << 40} }), false},
		{"summary kept", with(func(r *Result) { r.Canonical = []byte("{}") }), false},
		{"reason", with(func(r *Result) { r.Reason = "x" }), false},
		{"a failing finding", with(func(r *Result) {
			r.Status = ProtocolError
			r.Findings = []Finding{{Code: FindingReplyDuplicate, Status: ProtocolError, Message: "m"}}
		}), false},
		{"other vector", with(func(r *Result) { r.ID = "pong" }), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := keepResult(tc.r, v)
			if s.plain != tc.plain {
				t.Errorf("plain = %v, want %v", s.plain, tc.plain)
			}
			if tc.r.Status == NotRun && s.full != nil {
				t.Errorf("an untouched NOT_RUN result is kept whole")
			}
			want := tc.r
			if tc.plain {
				want.Description, want.Source, want.GoldenPath = "", "", ""
			}
			got := results([]resultSlot{s}, []suite.Ref{v})
			if diff := cmp.Diff([]Result{want}, got, cmp.AllowUnexported(Result{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
		})
	}
}
