package suite_test

import (
	"testing"

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
