package schema

import (
	"encoding/json"
	"testing"

	"github.com/conform-kit/conform/internal/canon"
)

// BenchmarkFrames validates every distinct frame of the suite's vector and
// golden files (valid or not; one op is the whole set) against the v1
// root, once through Validate (the fast path, then the library for the
// invalid ones), through the fast path alone on decoded values and on a
// canon.Tape, and through the library alone, so they can be compared in
// one invocation.
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
	// The same frames on a tape, as a recording's lines are read.
	var tp canon.Tape
	var roots []int
	for _, f := range frames {
		data, err := json.Marshal(f)
		if err != nil {
			b.Fatal(err)
		}
		root, ok := tp.Append(string(data))
		if !ok {
			b.Fatalf("not read onto a tape: %s", data)
		}
		roots = append(roots, root)
	}
	b.Run("tape", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, r := range roots {
				sch.fast.okT(&tp, r)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(frames)), "ns/frame")
	})
	lib, err := sch.libSchema()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range frames {
				_ = lib.Validate(f)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(frames)), "ns/frame")
	})
}
