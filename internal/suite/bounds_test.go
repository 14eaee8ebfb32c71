package suite_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/kiterr/kiterrtest"
	"github.com/conform-kit/conform/internal/suite"
)

// TestChunksAndSize: the pieces of every send item, written in order, are
// exactly its line, and Size is that line's length without building it;
// every send item of the embedded suite is checked too.
func TestChunksAndSize(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	items := []suite.SendItem{
		{Frame: map[string]any{"type": "control_request", "request_id": "r", "request": map[string]any{"n": json.Number("1.0")}}},
		{}, {Line: str("")}, {Line: str("x y")}, {Base64: str("")}, {Base64: str("/w==")}, {Base64: str("/+8=")}, {Base64: str("AAAA")},
		{Generate: &suite.Generate{Prefix: "[", Repeat: "ab", Count: 3, Suffix: "]"}},
		{Generate: &suite.Generate{Prefix: "p", Repeat: "x", Count: 0, Suffix: "s"}},
		{Generate: &suite.Generate{Prefix: `{"a":"`, Repeat: "xyz", Count: 100003, Suffix: `"}`}},
		{Generate: &suite.Generate{Prefix: "", Repeat: strings.Repeat("q", 4096), Count: 17, Suffix: ""}},
	}
	s, err := suite.Load(conform.Suite(), suite.Options{SkipDigest: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, ver := range s.Manifest.Versions {
		vs, _, err := s.Vectors(&ver)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			items = append(items, v.Send...)
		}
	}
	for i, it := range items {
		want, err := it.Bytes()
		if err != nil {
			t.Fatalf("item %d: Bytes: %v", i, err)
		}
		pieces, err := it.Chunks()
		if err != nil {
			t.Fatalf("item %d: Chunks: %v", i, err)
		}
		if got := bytes.Join(pieces, nil); !bytes.Equal(want, got) {
			t.Fatalf("item %d: pieces joined differ from Bytes (%d and %d bytes)", i, len(got), len(want))
		}
		if n, err := it.Size(); err != nil || n != int64(len(want)) {
			t.Errorf("item %d: Size = %d, %v; want %d", i, n, err, len(want))
		}
	}
}

// TestChunksShareOneBlock: a generated line of 64 MiB is written from one
// shared block of at most 64 KiB (and one shorter rest), never built.
func TestChunksShareOneBlock(t *testing.T) {
	t.Parallel()
	it := suite.SendItem{Generate: &suite.Generate{Prefix: `{"pad":"`, Repeat: "abc", Count: (suite.MaxGenerated - 16) / 3, Suffix: `"}`}}
	pieces, err := it.Chunks()
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[*byte]int{}
	total := 0
	for _, p := range pieces {
		total += len(p)
		if len(p) > 0 {
			distinct[&p[0]] = len(p)
		}
	}
	held := 0
	for _, n := range distinct {
		held += n
	}
	if n, _ := it.Size(); int64(total) != n {
		t.Errorf("pieces hold %d bytes, Size says %d", total, n)
	}
	if held > 128<<10 {
		t.Errorf("the pieces of a %d-byte line hold %d distinct bytes, want at most 128 KiB", total, held)
	}
}

// TestSendBounds: a vector whose send list adds up to more than
// MaxSendBytes, or whose file is larger than MaxVectorFile, is refused
// with VECTOR_TOO_LARGE when it is loaded (its lines are never built); one
// at the limit loads.
func TestSendBounds(t *testing.T) {
	t.Parallel()
	gen := func(n int, size int) string {
		var items []string
		for i := range n {
			prefix := fmt.Sprintf(`{\"type\":\"control_request\",\"request_id\":\"g%d\",\"request\":{\"subtype\":\"interrupt\",\"pad\":\"`, i)
			count := (size - len(prefix) - 5) / 4
			items = append(items, fmt.Sprintf(`{"generate": {"prefix": "%s", "repeat": "aaaa", "count": %d, "suffix": "\"}}"}}`, prefix, count))
		}
		return strings.Replace(sessionVector, `"send": [{"frame": {"type": "control_request", "request_id": "r1", "request": {"subtype": "interrupt"}}}]`,
			`"send": [`+strings.Join(items, ",")+`]`, 1)
	}
	tests := []struct {
		name string
		file []byte
		code kiterr.Code
	}{
		{"four items of 64 MiB (at the limit)", []byte(gen(4, suite.MaxSendBytes/4)), ""},
		{"five items of 64 MiB", []byte(gen(5, suite.MaxSendBytes/4)), kiterr.VectorTooLarge},
		{"forty items of 64 MiB", []byte(gen(40, suite.MaxGenerated)), kiterr.VectorTooLarge},
		{"a file over 16 MiB", append([]byte(sessionVector), bytes.Repeat([]byte(" "), suite.MaxVectorFile)...), kiterr.VectorTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fsys := tinyFS(t)
			fsys["vectors/v1/agent/ping.json"] = &fstest.MapFile{Data: tc.file}
			s, err := suite.Load(fsys, suite.Options{SkipDigest: true})
			if err != nil {
				t.Fatal(err)
			}
			ver, _ := s.Version(1)
			_, bad, err := s.Vectors(ver)
			if err != nil {
				t.Fatal(err)
			}
			if tc.code == "" {
				if len(bad) > 0 {
					t.Fatalf("want it loaded, got %v", bad[0].Err)
				}
				if _, err := s.Reload(ver, "vectors/v1/agent/ping.json"); err != nil {
					t.Fatalf("Reload: %v", err)
				}
				return
			}
			if len(bad) != 1 {
				t.Fatalf("want one load error, got %d", len(bad))
			}
			kiterrtest.WantCode(t, bad[0].Err, tc.code, "ping.json")
			_, err = s.Reload(ver, "vectors/v1/agent/ping.json")
			kiterrtest.WantCode(t, err, tc.code)
		})
	}
}

// TestSuitePaths: suite.json paths are clean paths inside the suite; a `..`
// element or an absolute path is SUITE_PATH_OUTSIDE, another unclean form
// SUITE_INVALID (both exit 2 from every command).
func TestSuitePaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		member, value string
		code          kiterr.Code
	}{
		{"vectors", "../vectors/v1", kiterr.SuitePathOutside},
		{"vectors", "vectors/../../x", kiterr.SuitePathOutside},
		{"vectors", "vectors/v1/..", kiterr.SuitePathOutside},
		{"golden", "../golden/v1", kiterr.SuitePathOutside},
		{"golden", "/tmp/golden", kiterr.SuitePathOutside},
		{"schema", "../schemas/control.v1.json", kiterr.SuitePathOutside},
		{"schema", `C:\schemas\control.v1.json`, kiterr.SuitePathOutside},
		{"vectors", "./vectors/v1", kiterr.SuiteInvalid},
		{"vectors", "vectors/v1/", kiterr.SuiteInvalid},
		{"golden", "golden//v1", kiterr.SuiteInvalid},
		{"vectors", `vectors\v1`, kiterr.SuiteInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.member+" "+tc.value, func(t *testing.T) {
			t.Parallel()
			fsys := tinyFS(t)
			var m map[string]any
			if err := json.Unmarshal([]byte(tinyManifest), &m); err != nil {
				t.Fatal(err)
			}
			m["versions"].([]any)[0].(map[string]any)[tc.member] = tc.value
			b, _ := json.Marshal(m)
			fsys["suite.json"] = &fstest.MapFile{Data: b}
			seal(t, fsys)
			for _, skip := range []bool{false, true} {
				_, err := suite.Load(fsys, suite.Options{SkipDigest: skip})
				kiterrtest.WantCode(t, err, tc.code, tc.member)
			}
		})
	}
}
