package suite_test

import (
	"path/filepath"
	"strconv"
	"testing"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/suite"
)

// BenchmarkLoad measures opening the repository's suite from disk through
// a Dir: every covered file hashed and checked against MANIFEST.sha256,
// then the v1 agent index (every v1 vector file read, parsed, checked
// against the vector schema and decoded). One op is one suite.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		d, err := suite.OpenDir("../..")
		if err != nil {
			b.Fatal(err)
		}
		s, err := suite.Load(d, suite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ver, err := s.Version(1)
		if err != nil {
			b.Fatal(err)
		}
		refs, bad, err := s.VectorIndex(ver, "agent")
		if err != nil || len(bad) > 0 || len(refs) == 0 {
			b.Fatalf("%d refs, %d bad, %v", len(refs), len(bad), err)
		}
		d.Close()
	}
}

// BenchmarkFileDigests measures the lookups a run makes per vector (its
// vector file and its golden file) in the digest table of the repository's
// suite: one op is one lookup.
func BenchmarkFileDigests(b *testing.B) {
	d, err := suite.OpenDir("../..")
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	s, err := suite.Load(d, suite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var names []string
	for n := range s.Files.All() {
		names = append(names, n)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, ok := s.Files.Hex(names[i%len(names)]); !ok {
			b.Fatal("not found")
		}
		i++
	}
}

// BenchmarkLoadEmbedded measures what a one-vector run of the embedded
// suite does before its vector runs: Load with the index cache warm
// (Options.Immutable: the suite this kit verified is neither walked nor
// hashed again) and the v1 agent index (the vectors the cache vouches for
// taken unread). One op is one suite; /cold is the same with an empty
// cache directory each time (every file walked, hashed, read and checked).
func BenchmarkLoadEmbedded(b *testing.B) {
	for _, warm := range []bool{true, false} {
		name := "warm"
		if !warm {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			load := func(cache string) {
				s, err := suite.Load(conform.Suite(), suite.Options{DeferDigests: true, Cache: cache, CacheKit: "bench", Immutable: true,
					Meta: conform.Meta(), MetaChecked: true, SchemasChecked: true})
				if err != nil {
					b.Fatal(err)
				}
				ver, err := s.Version(1)
				if err != nil {
					b.Fatal(err)
				}
				if refs, bad, err := s.VectorIndex(ver, "agent"); err != nil || len(bad) > 0 || len(refs) == 0 {
					b.Fatalf("%d refs, %d bad, %v", len(refs), len(bad), err)
				}
			}
			load(dir)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				cache := dir
				if !warm {
					cache = filepath.Join(dir, strconv.Itoa(i))
					i++
				}
				load(cache)
			}
		})
	}
}
