package schema

import "testing"

// BenchmarkFrames validates every distinct frame of the suite's vector and
// golden files (valid or not; one op is the whole set) against the v1
// root, once through Validate (the fast path, then the library for the
// invalid ones) and once through the library alone, so the two can be
// compared in one invocation.
func BenchmarkFrames(b *testing.B) {
	fsys := suiteFS(b)
	frames := suiteFrames(b, fsys)
	sch, err := NewSet(fsys).Compile("schemas/control.v1.json")
	if err != nil {
		b.Fatal(err)
	}
	if sch.fast == nil {
		b.Fatal("no fast path")
	}
	b.Run("Validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range frames {
				sch.Validate(f)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(frames)), "ns/frame")
	})
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range frames {
				sch.fast.ok(f)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(frames)), "ns/frame")
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range frames {
				_ = sch.s.Validate(f)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(frames)), "ns/frame")
	})
}
