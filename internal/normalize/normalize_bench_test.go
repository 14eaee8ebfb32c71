package normalize_test

import (
	"testing"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/normalize"
)

// BenchmarkApply measures the suite rules (**/uuid, **/session_id) plus one
// vector rule (/response/response/buildTime) over a typical reply.
func BenchmarkApply(b *testing.B) {
	rules, err := normalize.Compile([]normalize.Spec{
		{Path: "**/uuid", Format: "uuid"},
		{Path: "**/session_id", Format: "uuid"},
		{Path: "/response/response/buildTime", Format: "rfc3339"},
	})
	if err != nil {
		b.Fatal(err)
	}
	line := []byte(`{"type":"control_response","uuid":"1b4e28ba-2fa1-11d2-883f-0016d3cca427","session_id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","response":{"subtype":"success","request_id":"req-1","response":{"version":"2.1.332","buildTime":"2026-11-30T00:00:00Z","oldestDesktopSdk":"0.0.0"}}}`)
	v, err := canon.Parse(line)
	if err != nil {
		b.Fatal(err)
	}
	res := normalize.Apply(v, rules)
	if len(res.Mismatches) != 0 || !res.Matched[0] || !res.Matched[1] || !res.Matched[2] {
		b.Fatalf("rules did not all match: %+v", res)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		normalize.Apply(v, rules)
	}
}
