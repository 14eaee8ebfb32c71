package suite_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/frame"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/kiterr/kiterrtest"
	"github.com/conform-kit/conform/internal/suite"
)

const tinyManifest = `{
  "name": "tiny",
  "versions": [
    {
      "version": 1,
      "status": "draft",
      "schema": "schemas/control.v1.json",
      "vectors": "vectors/v1",
      "golden": "golden/v1",
      "roles": [{"name": "agent", "golden": "golden/v1", "description": "answers requests"}],
      "envelope": {
        "frames": [
          {"name": "control_request", "kind": "request", "when": [{"path": "/type", "equals": "control_request"}], "id": "/request_id", "method": "/request/subtype"},
          {"name": "control_response", "kind": "reply", "when": [{"path": "/type", "equals": "control_response"}], "id": "/response/request_id"}
        ],
        "replyBody": "#/$defs/ReplyBySubtype/properties"
      },
      "passOver": [{"when": [{"path": "/type", "equals": "system"}], "reason": "stream messages"}],
      "normalize": [{"path": "**/uuid", "format": "uuid"}]
    }
  ]
}
`

const sessionVector = `{
  "id": "ping",
  "version": 1,
  "kind": "session",
  "level": "required",
  "role": "agent",
  "description": "d",
  "source": "s",
  "send": [{"frame": {"type": "control_request", "request_id": "r1", "request": {"subtype": "interrupt"}}}],
  "expect": {"replies": ["r1"]}
}
`

const messageVector = `{
  "id": "msg-ack",
  "version": 1,
  "kind": "message",
  "level": "recommended",
  "description": "d",
  "source": "s",
  "definition": "#/$defs/AckResponseBody",
  "message": {},
  "valid": true
}
`

// realSchemas reads the suite's real schemas once per test.
func realSchemas(t *testing.T) map[string][]byte {
	t.Helper()
	const dir = "../../schemas"
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("fixture directory %s missing: %v", dir, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out["schemas/"+e.Name()] = data
	}
	for _, need := range []string{suite.SuiteSchemaFile, suite.VectorSchemaFile, "schemas/control.v1.json"} {
		if out[need] == nil {
			t.Fatalf("real schema %s missing", need)
		}
	}
	return out
}

// tinyFS builds a suite with one session vector, one message vector and a
// golden file, sealed with a matching MANIFEST.sha256.
func tinyFS(t *testing.T) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{
		"suite.json":                      {Data: []byte(tinyManifest)},
		"vectors/v1/agent/ping.json":      {Data: []byte(sessionVector)},
		"vectors/v1/message/msg-ack.json": {Data: []byte(messageVector)},
		"golden/v1/ping.json":             {Data: []byte(`{"frames":[],"vector":"ping"}`)},
	}
	for name, data := range realSchemas(t) {
		fsys[name] = &fstest.MapFile{Data: data}
	}
	seal(t, fsys)
	return fsys
}

// seal writes MANIFEST.sha256 for the current content of fsys.
func seal(t *testing.T, fsys fstest.MapFS) {
	t.Helper()
	if err := sealFS(fsys); err != nil {
		t.Fatalf("Digests: %v", err)
	}
}

func sealFS(fsys fstest.MapFS) error {
	d, err := suite.Digests(fsys)
	if err != nil {
		return err
	}
	fsys[suite.DigestFile] = &fstest.MapFile{Data: suite.DigestManifest(d)}
	return nil
}

func mustLoad(t *testing.T, fsys fs.FS) *suite.Suite {
	t.Helper()
	s, err := suite.Load(fsys, suite.Options{})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return s
}

func TestLoad(t *testing.T) {
	t.Parallel()
	fsys := tinyFS(t)
	s := mustLoad(t, fsys)
	if s.Manifest.Name != "tiny" || len(s.Manifest.Versions) != 1 {
		t.Fatalf("Manifest = %+v", s.Manifest)
	}
	ver := s.Manifest.Versions[0]
	var classes []string
	for _, c := range ver.Env().Classes() {
		classes = append(classes, c.Name+":"+c.Kind)
	}
	if diff := cmp.Diff([]string{"control_request:request", "control_response:reply"}, classes); diff != "" {
		t.Errorf("envelope classes (-want +got):\n%s", diff)
	}
	if len(ver.Normalize) != 1 || ver.Normalize[0].Path != "**/uuid" {
		t.Errorf("Normalize = %+v", ver.Normalize)
	}
	if len(s.Problems) != 0 {
		t.Errorf("Problems = %v, want none", s.Problems)
	}
	sum := sha256.Sum256(fsys[suite.DigestFile].Data)
	if want := "sha256:" + hex.EncodeToString(sum[:]); s.Digest != want {
		t.Errorf("Digest = %q, want %q", s.Digest, want)
	}
	wantFiles, err := suite.Digests(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantFiles, maps.Collect(s.Files.All())); diff != "" {
		t.Errorf("Files (-want +got):\n%s", diff)
	}
	if s.Files.Len() != len(wantFiles) {
		t.Errorf("Files.Len() = %d, want %d", s.Files.Len(), len(wantFiles))
	}
	if got, ok := s.Files.Hex("vectors/v1/agent/ping.json"); !ok || got != wantFiles["vectors/v1/agent/ping.json"] {
		t.Errorf("Files.Hex(the vector) = %q, %v; want %q", got, ok, wantFiles["vectors/v1/agent/ping.json"])
	}
	if _, ok := s.Files.Hex(suite.DigestFile); ok {
		t.Errorf("Files lists %s itself", suite.DigestFile)
	}
	if s.Schemas == nil || s.FS == nil {
		t.Errorf("Schemas or FS nil")
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, tinyFS(t))
	v, err := s.Version(1)
	if err != nil || v.Version != 1 || v.Vectors != "vectors/v1" {
		t.Fatalf("Version(1) = %+v, %v", v, err)
	}
	_, err = s.Version(2)
	kiterrtest.WantCode(t, err, kiterr.VersionUnknown, `"tiny"`, "2")
}

// TestVersionBounds: a version's quiet ("0s" is none, and set) and grace.
func TestVersionBounds(t *testing.T) {
	t.Parallel()
	fsys := tinyFS(t)
	v, _ := mustLoad(t, fsys).Version(1)
	if d, set := v.QuietBound(); d != 0 || set || v.GraceBound() != 0 {
		t.Errorf("no quiet or grace: QuietBound %v %v, GraceBound %v; want 0 false, 0", d, set, v.GraceBound())
	}
	fsys["suite.json"] = &fstest.MapFile{Data: []byte(strings.Replace(tinyManifest, `"draft"`, `"draft", "quiet": "0s", "grace": "4s"`, 1))}
	seal(t, fsys)
	v, _ = mustLoad(t, fsys).Version(1)
	if d, set := v.QuietBound(); d != 0 || !set || v.GraceBound() != 4*time.Second {
		t.Errorf("quiet 0s, grace 4s: QuietBound %v %v, GraceBound %v; want 0 true, 4s", d, set, v.GraceBound())
	}
}

// TestFraming: suite.json's framing, lines when absent.
func TestFraming(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		member string
		want   frame.Framing
	}{
		{"", frame.Lines},
		{`"framing": "lines",`, frame.Lines},
		{`"framing": "content-length",`, frame.ContentLength},
	} {
		fsys := tinyFS(t)
		fsys["suite.json"] = &fstest.MapFile{Data: []byte(strings.Replace(tinyManifest, `"name": "tiny",`, `"name": "tiny", `+tc.member, 1))}
		seal(t, fsys)
		if got := mustLoad(t, fsys).Framing; got != tc.want {
			t.Errorf("%s: Framing = %q, want %q", tc.member, got, tc.want)
		}
	}
}

func TestDigestsAndManifest(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"suite.json":           {Data: []byte("a")},
		"schemas/x.json":       {Data: []byte("b")},
		"schemas/deep/y.json":  {Data: []byte("c")},
		"schemas/notes.md":     {Data: []byte("ignored")},
		"vectors/v1/a/b.json":  {Data: []byte("d")},
		"vectors/v2/README.md": {Data: []byte("ignored")},
		"golden/v1/b.json":     {Data: []byte("")},
		"other/z.json":         {Data: []byte("ignored")},
		"MANIFEST.sha256":      {Data: []byte("ignored")},
	}
	d, err := suite.Digests(fsys)
	if err != nil {
		t.Fatal(err)
	}
	hash := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	want := map[string]string{
		"suite.json":          hash("a"),
		"schemas/x.json":      hash("b"),
		"schemas/deep/y.json": hash("c"),
		"vectors/v1/a/b.json": hash("d"),
		"golden/v1/b.json":    hash(""),
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("Digests (-want +got):\n%s", diff)
	}
	wantManifest := hash("") + "  golden/v1/b.json\n" +
		hash("c") + "  schemas/deep/y.json\n" +
		hash("b") + "  schemas/x.json\n" +
		hash("a") + "  suite.json\n" +
		hash("d") + "  vectors/v1/a/b.json\n"
	if diff := cmp.Diff(wantManifest, string(suite.DigestManifest(d))); diff != "" {
		t.Errorf("DigestManifest (-want +got):\n%s", diff)
	}
	if got := suite.DigestManifest(nil); len(got) != 0 {
		t.Errorf("DigestManifest(nil) = %q, want empty", got)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		edit      func(fsys fstest.MapFS)
		reseal    bool
		code      kiterr.Code
		fragments []string
	}{
		{
			name: "missing suite.json",
			edit: func(fsys fstest.MapFS) { delete(fsys, "suite.json") },
			code: kiterr.SuiteNotFound, fragments: []string{"suite.json"},
		},
		{
			name:   "suite.json not JSON",
			edit:   func(fsys fstest.MapFS) { fsys["suite.json"] = &fstest.MapFile{Data: []byte(`{"name":`)} },
			reseal: true, code: kiterr.SuiteInvalid, fragments: []string{"JSON_SYNTAX"},
		},
		{
			name: "suite.json with duplicate member",
			edit: func(fsys fstest.MapFS) {
				fsys["suite.json"] = &fstest.MapFile{Data: []byte(`{"name":"a","name":"b","versions":[]}`)}
			},
			reseal: true, code: kiterr.SuiteInvalid, fragments: []string{"JSON_DUPLICATE_KEY"},
		},
		{
			name: "suite.json violates suite.schema.json: unknown member",
			edit: func(fsys fstest.MapFS) {
				fsys["suite.json"] = &fstest.MapFile{Data: []byte(strings.Replace(tinyManifest, `"name": "tiny",`, `"name": "tiny", "extra": 1,`, 1))}
			},
			reseal: true, code: kiterr.SuiteInvalid, fragments: []string{"suite.json"},
		},
		{
			name: "suite.json violates suite.schema.json: bad status",
			edit: func(fsys fstest.MapFS) {
				fsys["suite.json"] = &fstest.MapFile{Data: []byte(strings.Replace(tinyManifest, `"draft"`, `"beta"`, 1))}
			},
			reseal: true, code: kiterr.SuiteInvalid, fragments: []string{"/versions/0/status"},
		},
		{
			name: "suite.json violates suite.schema.json: quiet not a duration",
			edit: func(fsys fstest.MapFS) {
				fsys["suite.json"] = &fstest.MapFile{Data: []byte(strings.Replace(tinyManifest, `"draft"`, `"draft", "quiet": "2"`, 1))}
			},
			reseal: true, code: kiterr.SuiteInvalid, fragments: []string{"/versions/0/quiet"},
		},
		{
			name: "grace of zero",
			edit: func(fsys fstest.MapFS) {
				fsys["suite.json"] = &fstest.MapFile{Data: []byte(strings.Replace(tinyManifest, `"draft"`, `"draft", "grace": "0s"`, 1))}
			},
			reseal: true, code: kiterr.SuiteInvalid, fragments: []string{"grace"},
		},
		{
			name: "framing unknown",
			edit: func(fsys fstest.MapFS) {
				fsys["suite.json"] = &fstest.MapFile{Data: []byte(strings.Replace(tinyManifest, `"name": "tiny",`, `"name": "tiny", "framing": "http",`, 1))}
			},
			reseal: true, code: kiterr.SuiteInvalid, fragments: []string{"/framing"},
		},
		{
			name: "suite.json with no versions",
			edit: func(fsys fstest.MapFS) {
				fsys["suite.json"] = &fstest.MapFile{Data: []byte(`{"name":"tiny","versions":[]}`)}
			},
			reseal: true, code: kiterr.SuiteInvalid, fragments: []string{"/versions"},
		},
		{
			name: "version declared twice",
			edit: func(fsys fstest.MapFS) {
				v := tinyManifest[strings.Index(tinyManifest, "{\n      \"version\"") : strings.LastIndex(tinyManifest, "}\n  ]")+1]
				fsys["suite.json"] = &fstest.MapFile{Data: []byte(`{"name":"tiny","versions":[` + v + `,` + v + `]}`)}
			},
			reseal: true, code: kiterr.SuiteInvalid, fragments: []string{"version 1 declared twice"},
		},
		{
			name: "suite-level normalizer with bad regex",
			edit: func(fsys fstest.MapFS) {
				fsys["suite.json"] = &fstest.MapFile{Data: []byte(strings.Replace(tinyManifest, `"format": "uuid"`, `"format": "regex:("`, 1))}
			},
			reseal: true, code: kiterr.NormalizerInvalid,
		},
		{
			name: "missing MANIFEST.sha256",
			edit: func(fsys fstest.MapFS) { delete(fsys, suite.DigestFile) },
			code: kiterr.SuiteNotFound, fragments: []string{suite.DigestFile},
		},
		{
			name: "malformed MANIFEST.sha256 line",
			edit: func(fsys fstest.MapFS) {
				fsys[suite.DigestFile] = &fstest.MapFile{Data: append(append([]byte(nil), fsys[suite.DigestFile].Data...), "abc suite.json\n"...)}
			},
			code: kiterr.SuiteInvalid, fragments: []string{suite.DigestFile + ":"},
		},
		{
			name: "suite.json edited after sealing",
			edit: func(fsys fstest.MapFS) {
				fsys["suite.json"] = &fstest.MapFile{Data: []byte(strings.Replace(tinyManifest, `"tiny"`, `"tinier"`, 1))}
			},
			code: kiterr.SuiteDigestMismatch, fragments: []string{"suite.json"},
		},
		{
			name: "schema edited after sealing",
			edit: func(fsys fstest.MapFS) {
				f := fsys["schemas/control.v1.json"]
				fsys["schemas/control.v1.json"] = &fstest.MapFile{Data: append(append([]byte(nil), f.Data...), '\n')}
			},
			code: kiterr.SuiteDigestMismatch, fragments: []string{"schemas/control.v1.json"},
		},
		{
			name: "unlisted schema",
			edit: func(fsys fstest.MapFS) { fsys["schemas/extra.json"] = &fstest.MapFile{Data: []byte(`{}`)} },
			code: kiterr.SuiteFileUnlisted, fragments: []string{"schemas/extra.json"},
		},
		{
			name: "listed schema deleted",
			edit: func(fsys fstest.MapFS) {
				fsys["schemas/extra.json"] = &fstest.MapFile{Data: []byte(`{}`)}
				_ = sealFS(fsys)
				delete(fsys, "schemas/extra.json")
			},
			code: kiterr.SuiteFileUnlisted, fragments: []string{"schemas/extra.json", "does not exist"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fsys := tinyFS(t)
			tc.edit(fsys)
			if tc.reseal {
				seal(t, fsys)
			}
			s, err := suite.Load(fsys, suite.Options{})
			if s != nil {
				t.Errorf("Load returned a suite with error %v", err)
			}
			kiterrtest.WantCode(t, err, tc.code, tc.fragments...)
		})
	}
}

func TestLoadSkipDigest(t *testing.T) {
	t.Parallel()
	fsys := tinyFS(t)
	delete(fsys, suite.DigestFile)
	fsys["vectors/v1/agent/ping.json"] = &fstest.MapFile{Data: []byte(strings.Replace(sessionVector, `"d"`, `"changed"`, 1))}
	s, err := suite.Load(fsys, suite.Options{SkipDigest: true})
	if err != nil {
		t.Fatalf("Load(SkipDigest): %v", err)
	}
	if len(s.Problems) != 0 || s.Digest != "" {
		t.Errorf("SkipDigest: Problems = %v, Digest = %q; want none", s.Problems, s.Digest)
	}
	vs, bad, err := s.Vectors(&s.Manifest.Versions[0])
	if err != nil || len(bad) != 0 || len(vs) != 2 {
		t.Errorf("Vectors = %d good, %v bad, %v", len(vs), bad, err)
	}
}

// TestDigestProblemsOfVectors: digest problems of vector and golden files
// are data in Problems, and Vectors/ReadGolden report them per file.
func TestDigestProblemsOfVectors(t *testing.T) {
	t.Parallel()
	const vec = "vectors/v1/agent/ping.json"
	tests := []struct {
		name     string
		edit     func(fsys fstest.MapFS)
		problems map[string]kiterr.Code
		badPaths []string
		goodIDs  []string
	}{
		{
			name: "vector edited after sealing",
			edit: func(fsys fstest.MapFS) {
				fsys[vec] = &fstest.MapFile{Data: []byte(strings.Replace(sessionVector, `"d"`, `"edited"`, 1))}
			},
			problems: map[string]kiterr.Code{vec: kiterr.SuiteDigestMismatch},
			badPaths: []string{vec},
			goodIDs:  []string{"msg-ack"},
		},
		{
			name: "vector added without sealing",
			edit: func(fsys fstest.MapFS) {
				fsys["vectors/v1/agent/pong.json"] = &fstest.MapFile{Data: []byte(strings.Replace(sessionVector, `"ping"`, `"pong"`, 1))}
			},
			problems: map[string]kiterr.Code{"vectors/v1/agent/pong.json": kiterr.SuiteFileUnlisted},
			badPaths: []string{"vectors/v1/agent/pong.json"},
			goodIDs:  []string{"msg-ack", "ping"},
		},
		{
			name:     "listed vector deleted",
			edit:     func(fsys fstest.MapFS) { delete(fsys, vec) },
			problems: map[string]kiterr.Code{vec: kiterr.SuiteFileUnlisted},
			goodIDs:  []string{"msg-ack"},
		},
		{
			name: "golden edited after sealing",
			edit: func(fsys fstest.MapFS) {
				fsys["golden/v1/ping.json"] = &fstest.MapFile{Data: []byte(`{"frames":[1],"vector":"ping"}`)}
			},
			problems: map[string]kiterr.Code{"golden/v1/ping.json": kiterr.SuiteDigestMismatch},
			goodIDs:  []string{"msg-ack", "ping"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fsys := tinyFS(t)
			tc.edit(fsys)
			s := mustLoad(t, fsys)
			got := map[string]kiterr.Code{}
			for name, err := range s.Problems {
				got[name] = kiterr.CodeOf(err)
			}
			if diff := cmp.Diff(tc.problems, got); diff != "" {
				t.Errorf("Problems (-want +got):\n%s", diff)
			}
			vs, bad, err := s.Vectors(&s.Manifest.Versions[0])
			if err != nil {
				t.Fatalf("Vectors: %v", err)
			}
			var badPaths []string
			for _, le := range bad {
				badPaths = append(badPaths, le.Path)
				if want := tc.problems[le.Path]; kiterr.CodeOf(le.Err) != want {
					t.Errorf("LoadError %s: code %q, want %q", le.Path, kiterr.CodeOf(le.Err), want)
				}
			}
			if diff := cmp.Diff(tc.badPaths, badPaths); diff != "" {
				t.Errorf("bad vectors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.goodIDs, ids(vs)); diff != "" {
				t.Errorf("good vectors (-want +got):\n%s", diff)
			}

			// With DeferDigests, what the reads report is the same:
			// the same load errors (codes and messages), and the same
			// golden error; only Problems lacks the digests Load did
			// not check.
			ds, err := suite.Load(fsys, suite.Options{DeferDigests: true})
			if err != nil {
				t.Fatalf("Load (DeferDigests): %v", err)
			}
			for name, err := range s.Problems {
				if kiterr.CodeOf(err) == kiterr.SuiteDigestMismatch {
					continue
				}
				if derr := ds.Problems[name]; derr == nil || derr.Error() != err.Error() {
					t.Errorf("Problems[%s] with DeferDigests = %v, want %v", name, derr, err)
				}
			}
			dvs, dbad, err := ds.Vectors(&ds.Manifest.Versions[0])
			if err != nil {
				t.Fatalf("Vectors (DeferDigests): %v", err)
			}
			if diff := cmp.Diff(errTexts(bad), errTexts(dbad)); diff != "" {
				t.Errorf("load errors with DeferDigests (-Load's +deferred):\n%s", diff)
			}
			if diff := cmp.Diff(tc.goodIDs, ids(dvs)); diff != "" {
				t.Errorf("good vectors with DeferDigests (-want +got):\n%s", diff)
			}
			ver, dver := &s.Manifest.Versions[0], &ds.Manifest.Versions[0]
			_, gerr := s.ReadGolden(ver, "agent", "ping")
			_, dgerr := ds.ReadGolden(dver, "agent", "ping")
			if fmt.Sprint(gerr) != fmt.Sprint(dgerr) {
				t.Errorf("ReadGolden with DeferDigests: %v, want %v", dgerr, gerr)
			}
		})
	}
}

// errTexts is each load error as "path: error".
func errTexts(bad []suite.LoadError) []string {
	var out []string
	for _, le := range bad {
		out = append(out, le.Path+": "+le.Err.Error())
	}
	return out
}

func ids(vs []*suite.Vector) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.ID)
	}
	return out
}

func TestReadGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		file     string // golden path to write, "" for none
		data     string
		reseal   bool
		role, id string
		want     string
		code     kiterr.Code
	}{
		{name: "canonical", role: "agent", id: "ping", want: `{"frames":[],"vector":"ping"}`},
		{name: "empty role is agent", role: "", id: "ping", want: `{"frames":[],"vector":"ping"}`},
		{name: "missing", role: "agent", id: "nope", code: kiterr.GoldenMissing},
		{name: "other role folder", file: "golden/v1/host/h.json", data: `{"a":1}`, reseal: true, role: "host", id: "h", want: `{"a":1}`},
		{name: "other role missing", role: "host", id: "ping", code: kiterr.GoldenMissing},
		{name: "whitespace is not canonical", file: "golden/v1/ws.json", data: `{"frames": []}`, reseal: true, role: "agent", id: "ws", code: kiterr.GoldenInvalid},
		{name: "key order is not canonical", file: "golden/v1/ko.json", data: `{"vector":"x","frames":[]}`, reseal: true, role: "agent", id: "ko", code: kiterr.GoldenInvalid},
		{name: "trailing newline is not canonical", file: "golden/v1/nl.json", data: "{}\n", reseal: true, role: "agent", id: "nl", code: kiterr.GoldenInvalid},
		{name: "number form is not canonical", file: "golden/v1/num.json", data: `[1.0]`, reseal: true, role: "agent", id: "num", code: kiterr.GoldenInvalid},
		{name: "not JSON", file: "golden/v1/bad.json", data: `{`, reseal: true, role: "agent", id: "bad", code: kiterr.GoldenInvalid},
		{name: "digest mismatch wins", file: "golden/v1/ping.json", data: `{"frames":[2],"vector":"ping"}`, role: "agent", id: "ping", code: kiterr.SuiteDigestMismatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fsys := tinyFS(t)
			if tc.file != "" {
				fsys[tc.file] = &fstest.MapFile{Data: []byte(tc.data)}
			}
			if tc.reseal {
				seal(t, fsys)
			}
			s := mustLoad(t, fsys)
			got, err := s.ReadGolden(&s.Manifest.Versions[0], tc.role, tc.id)
			if tc.code != "" {
				if got != nil {
					t.Errorf("ReadGolden returned %q with an error", got)
				}
				kiterrtest.WantCode(t, err, tc.code)
				return
			}
			if err != nil {
				t.Fatalf("ReadGolden: %v", err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("ReadGolden (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGoldenPath(t *testing.T) {
	t.Parallel()
	ver := &suite.Version{Golden: "golden/v1", Roles: []suite.Role{{Name: "agent", Golden: "golden/v1"}, {Name: "host"}}}
	tests := []struct{ role, id, want string }{
		{"agent", "x", "golden/v1/x.json"},
		{"host", "y.z", "golden/v1/host/y.z.json"},
		{"server", "s", "golden/v1/server/s.json"},
	}
	for _, tc := range tests {
		if got := suite.GoldenPath(ver, tc.role, tc.id); got != tc.want {
			t.Errorf("GoldenPath(%q, %q) = %q, want %q", tc.role, tc.id, got, tc.want)
		}
	}
}

func TestLoadErrorsAreKitErrors(t *testing.T) {
	t.Parallel()
	_, err := suite.Load(fstest.MapFS{}, suite.Options{})
	var ke *kiterr.Error
	if !errors.As(err, &ke) {
		t.Fatalf("Load(empty) error %v is not a *kiterr.Error", err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(empty) error %v does not wrap fs.ErrNotExist", err)
	}
}
