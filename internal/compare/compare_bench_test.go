package compare_test

import (
	"testing"

	"github.com/conform-kit/conform/internal/compare"
)

// Golden summaries as the runner compares them: equal (the common, passing
// case) and differing in one member (a failing vector, where a diff is shown).
var (
	benchGolden = []byte(`{"frames":[{"response":{"request_id":"req-1","response":{"model":"<claude-sonnet-model>"},"subtype":"success"},"type":"control_response"},{"response":{"request_id":"req-2","response":{"buildTime":"<rfc3339>","oldestDesktopSdk":"<semver>","version":"<semver>"},"subtype":"success"},"type":"control_response"},{"response":{"request_id":"req-3","response":{"still_queued":[]},"subtype":"success"},"type":"control_response"}],"vector":"pipelined-out-of-order"}`)
	benchSame   = append([]byte(nil), benchGolden...)
	benchOther  = []byte(`{"frames":[{"response":{"request_id":"req-1","response":{"model":"<claude-sonnet-model>"},"subtype":"success"},"type":"control_response"},{"response":{"request_id":"req-2","response":{"buildTime":"<rfc3339>","oldestDesktopSdk":"<semver>","version":"<semver>"},"subtype":"success"},"type":"control_response"},{"response":{"request_id":"req-3","response":{"still_queued":["x"]},"subtype":"success"},"type":"control_response"}],"vector":"pipelined-out-of-order"}`)
)

// BenchmarkEqual measures the byte comparison every vector goes through.
func BenchmarkEqual(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchGolden)))
	for b.Loop() {
		if !compare.Equal(benchGolden, benchSame) {
			b.Fatal("not equal")
		}
	}
}

// BenchmarkDiff measures the human diff of a failing vector (parse both
// sides, go-cmp), and the early return of an equal pair.
func BenchmarkDiff(b *testing.B) {
	b.Run("differ", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(benchGolden)))
		for b.Loop() {
			if compare.Diff(benchGolden, benchOther, framing) == "" {
				b.Fatal("no diff")
			}
		}
	})
	b.Run("equal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if compare.Diff(benchGolden, benchSame, framing) != "" {
				b.Fatal("diff")
			}
		}
	})
}
