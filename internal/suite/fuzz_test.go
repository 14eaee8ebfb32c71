package suite

import (
	"io/fs"
	"os"
	"testing"
	"testing/fstest"
)

// FuzzVector loads an arbitrary file as the one vector of a copy of the
// real suite: loading never panics, and a file it accepts has an id equal
// to its file name and a version equal to its folder's.
func FuzzVector(f *testing.F) {
	root := fstest.MapFS{}
	real := os.DirFS("../..")
	for _, name := range []string{ManifestFile, SuiteSchemaFile, VectorSchemaFile, "schemas/control.v1.json"} {
		data, err := fs.ReadFile(real, name)
		if err != nil {
			f.Fatal(err)
		}
		root[name] = &fstest.MapFile{Data: data}
	}
	for _, seed := range []string{
		`{"id":"x","version":1,"kind":"session","level":"required","role":"agent","description":"d","source":"s","send":[{"frame":{"type":"control_request","request_id":"a","request":{"subtype":"interrupt"}}}],"expect":{"replies":["a"]}}`,
		`{"id":"x","version":1,"kind":"message","level":"required","description":"d","source":"s","definition":"#","message":{},"valid":false}`,
		`{"id":"x","version":1,"kind":"session","level":"required","role":"agent","description":"d","source":"s","send":[{"base64":"!!"}],"expect":{"replies":["a"]}}`,
		`{"id":"x","version":1,"kind":"session","level":"required","role":"agent","description":"d","source":"s","send":[{"line":"x"}],"expect":{"exit":"any"},"normalize":[{"path":"[","format":"uuid"}]}`,
		`{`, `[]`, `{"id":"x","id":"x"}`, "\xff",
	} {
		f.Add([]byte(seed))
	}
	// One suite, schemas compiled once; each input replaces the one vector.
	var current []byte
	fsys := swapFS{base: root, name: "vectors/v1/agent/x.json", data: &current}
	s, err := Load(fsys, Options{SkipDigest: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		current = data
		ver, err := s.Version(1)
		if err != nil {
			t.Fatal(err)
		}
		vs, bad, err := s.Vectors(ver)
		if err != nil {
			t.Fatal(err)
		}
		if len(vs)+len(bad) != 1 {
			t.Fatalf("%d vectors and %d errors from one file", len(vs), len(bad))
		}
		for _, v := range vs {
			if v.ID != "x" || v.Version != 1 {
				t.Fatalf("accepted id %q version %d from x.json in v1", v.ID, v.Version)
			}
			for _, it := range v.Send {
				if it.Generate == nil {
					if _, err := it.Bytes(); err != nil {
						t.Fatalf("accepted a send item that cannot be written: %v", err)
					}
				}
			}
		}
	})
}

// swapFS is root plus one file whose bytes the fuzz loop replaces.
type swapFS struct {
	base fstest.MapFS
	name string
	data *[]byte
}

func (s swapFS) Open(name string) (fs.File, error) {
	m := fstest.MapFS{}
	for k, v := range s.base {
		m[k] = v
	}
	m[s.name] = &fstest.MapFile{Data: *s.data}
	return m.Open(name)
}
