package suite_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/kiterr/kiterrtest"
	"github.com/conform-kit/conform/internal/suite"
)

func TestVectorsGood(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, tinyFS(t))
	vs, bad, err := s.Vectors(&s.Manifest.Versions[0])
	if err != nil {
		t.Fatalf("Vectors: %v", err)
	}
	if len(bad) != 0 {
		t.Fatalf("bad = %v, want none", bad)
	}
	want := []*suite.Vector{
		{
			ID: "msg-ack", Version: 1, Kind: suite.KindMessage, Level: suite.LevelRecommended,
			Description: "d", Source: "s", Definition: "#/$defs/AckResponseBody",
			Message: map[string]any{}, Valid: true, Path: "vectors/v1/message/msg-ack.json",
		},
		{
			ID: "ping", Version: 1, Kind: suite.KindSession, Level: suite.LevelRequired,
			Description: "d", Source: "s", Role: "agent",
			Send: []suite.SendItem{{Frame: map[string]any{
				"type": "control_request", "request_id": "r1",
				"request": map[string]any{"subtype": "interrupt"},
			}}},
			Expect: suite.Expect{Replies: []any{"r1"}},
			Path:   "vectors/v1/agent/ping.json",
		},
	}
	if diff := cmp.Diff(want, vs); diff != "" {
		t.Errorf("Vectors (-want +got):\n%s", diff)
	}
}

func TestVectorsBad(t *testing.T) {
	t.Parallel()
	replace := func(old, new string) string {
		if !strings.Contains(sessionVector, old) {
			panic("fixture does not contain " + old)
		}
		return strings.Replace(sessionVector, old, new, 1)
	}
	tests := []struct {
		name      string
		file      string
		data      string
		code      kiterr.Code
		fragments []string
	}{
		{
			name: "malformed JSON",
			file: "vectors/v1/agent/broken.json",
			data: "{\n  \"id\": \"broken\"\n  \"version\": 1\n}",
			code: kiterr.VectorInvalid, fragments: []string{"vectors/v1/agent/broken.json", "JSON_SYNTAX", "at 3:3"},
		},
		{
			name: "duplicate member",
			file: "vectors/v1/agent/dup.json",
			data: `{"id":"dup","id":"dup"}`,
			code: kiterr.VectorInvalid, fragments: []string{"JSON_DUPLICATE_KEY"},
		},
		{
			name: "unknown member in expect",
			file: "vectors/v1/agent/extra.json",
			data: strings.Replace(replace(`"expect": {"replies": ["r1"]}`, `"expect": {"replies": ["r1"], "bogus": true}`), `"ping"`, `"extra"`, 1),
			code: kiterr.VectorInvalid, fragments: []string{"vectors/v1/agent/extra.json violates schemas/vector.schema.json", "at /expect:"},
		},
		{
			name: "unknown top-level member",
			file: "vectors/v1/agent/top.json",
			data: strings.Replace(replace(`"source": "s",`, `"source": "s", "sorce": "typo",`), `"ping"`, `"top"`, 1),
			code: kiterr.VectorInvalid, fragments: []string{"violates", "sorce"},
		},
		{
			name: "send item with two fields",
			file: "vectors/v1/agent/two.json",
			data: strings.Replace(replace(`[{"frame":`, `[{"line": "x", "frame":`), `"ping"`, `"two"`, 1),
			code: kiterr.VectorInvalid, fragments: []string{"at /send/0:"},
		},
		{
			name: "bad base64",
			file: "vectors/v1/agent/b64.json",
			data: strings.Replace(replace(`{"frame": {"type": "control_request", "request_id": "r1", "request": {"subtype": "interrupt"}}}`, `{"base64": "@@@"}`), `"ping"`, `"b64"`, 1),
			code: kiterr.VectorInvalid, fragments: []string{"b64.json"},
		},
		{
			name: "await of a request never sent",
			file: "vectors/v1/agent/await-unknown.json",
			data: strings.Replace(replace(`[{"frame":`, `[{"await": "r9"}, {"frame":`), `"ping"`, `"await-unknown"`, 1),
			code: kiterr.VectorInvalid, fragments: []string{"send[0] awaits the reply to \"r9\", which no request before it carries"},
		},
		{
			name: "await with no line after it",
			file: "vectors/v1/agent/await-last.json",
			data: strings.Replace(replace(`"request": {"subtype": "interrupt"}}}]`, `"request": {"subtype": "interrupt"}}}, {"await": "r1"}]`), `"ping"`, `"await-last"`, 1),
			code: kiterr.VectorInvalid, fragments: []string{"send[1] awaits the reply to \"r1\" but no line follows it"},
		},
		{
			name: "await of an object that is not a match",
			file: "vectors/v1/agent/await-object.json",
			data: strings.Replace(replace(`[{"frame":`, `[{"await": {"id": "r1"}}, {"frame":`), `"ping"`, `"await-object"`, 1),
			code: kiterr.VectorInvalid, fragments: []string{"send[0]", `an await that is an object is {"match": [predicates]}`},
		},
		{
			name: "await of a match with no predicate",
			file: "vectors/v1/agent/await-empty.json",
			data: strings.Replace(replace(`[{"frame":`, `[{"await": {"match": []}}, {"frame":`), `"ping"`, `"await-empty"`, 1),
			code: kiterr.VectorInvalid, fragments: []string{"send[0]", "match has no predicate"},
		},
		{
			name: "await of a match with no line after it",
			file: "vectors/v1/agent/await-match-last.json",
			data: strings.Replace(replace(`"request": {"subtype": "interrupt"}}}]`, `"request": {"subtype": "interrupt"}}}, {"await": {"match": [{"path": "/type", "equals": "x"}]}}]`), `"ping"`, `"await-match-last"`, 1),
			code: kiterr.VectorInvalid, fragments: []string{"send[1] awaits a frame match but no line follows it"},
		},
		{
			name: "var the suite does not declare",
			file: "vectors/v1/agent/var.json",
			data: strings.Replace(replace(`"request": {"subtype": "interrupt"}`, `"request": {"subtype": "interrupt", "x": "${var:languageId}"}`), `"ping"`, `"var"`, 1),
			code: kiterr.VectorVarUnknown, fragments: []string{"var.json: send[0]: ${var:languageId} names a var suite.json does not declare"},
		},
		{
			name: "bad vector-level normalizer",
			file: "vectors/v1/agent/norm.json",
			data: strings.Replace(replace(`"expect":`, `"normalize": [{"path": "a/[", "format": "any"}], "expect":`), `"ping"`, `"norm"`, 1),
			code: kiterr.VectorInvalid, fragments: []string{"NORMALIZER_INVALID"},
		},
		{
			name: "file name differs from id",
			file: "vectors/v1/agent/not-ping.json",
			data: replace(`"id": "ping"`, `"id": "ping-two"`),
			code: kiterr.VectorIDMismatch, fragments: []string{"not-ping.json", "ping-two.json"},
		},
		{
			name: "version differs from folder",
			file: "vectors/v1/agent/v2.json",
			data: strings.Replace(replace(`"version": 1`, `"version": 2`), `"ping"`, `"v2"`, 1),
			code: kiterr.VectorIDMismatch, fragments: []string{"version 2 in a v1 folder"},
		},
		{
			name: "duplicate id in another folder",
			file: "vectors/v1/zzz/ping.json",
			data: sessionVector,
			code: kiterr.VectorIDDuplicate, fragments: []string{`"ping"`, "vectors/v1/agent/ping.json", "vectors/v1/zzz/ping.json"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fsys := tinyFS(t)
			fsys[tc.file] = &fstest.MapFile{Data: []byte(tc.data)}
			seal(t, fsys)
			s := mustLoad(t, fsys)
			vs, bad, err := s.Vectors(&s.Manifest.Versions[0])
			if err != nil {
				t.Fatalf("Vectors: %v", err)
			}
			if diff := cmp.Diff([]string{"msg-ack", "ping"}, ids(vs)); diff != "" {
				t.Errorf("good vectors still returned (-want +got):\n%s", diff)
			}
			if len(bad) != 1 {
				t.Fatalf("bad = %v, want exactly one", bad)
			}
			if bad[0].Path != tc.file {
				t.Errorf("LoadError.Path = %q, want %q", bad[0].Path, tc.file)
			}
			kiterrtest.WantCode(t, bad[0].Err, tc.code, tc.fragments...)
		})
	}
}

func TestVectorsManyBadOneGood(t *testing.T) {
	t.Parallel()
	fsys := tinyFS(t)
	fsys["vectors/v1/agent/a.json"] = &fstest.MapFile{Data: []byte("{")}
	fsys["vectors/v1/agent/b.json"] = &fstest.MapFile{Data: []byte("[]")}
	fsys["vectors/v1/agent/c.json"] = &fstest.MapFile{Data: []byte(sessionVector)}
	seal(t, fsys)
	s := mustLoad(t, fsys)
	vs, bad, err := s.Vectors(&s.Manifest.Versions[0])
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, le := range bad {
		got = append(got, le.Path+" "+string(kiterr.CodeOf(le.Err)))
	}
	want := []string{
		"vectors/v1/agent/a.json VECTOR_INVALID",
		"vectors/v1/agent/b.json VECTOR_INVALID",
		"vectors/v1/agent/c.json VECTOR_ID_MISMATCH",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bad (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"msg-ack", "ping"}, ids(vs)); diff != "" {
		t.Errorf("good (-want +got):\n%s", diff)
	}
}

func TestVectorsEmptyFolder(t *testing.T) {
	t.Parallel()
	fsys := tinyFS(t)
	s := mustLoad(t, fsys)
	ver := s.Manifest.Versions[0]
	ver.Vectors = "vectors/v9"
	vs, bad, err := s.Vectors(&ver)
	if err != nil || len(vs) != 0 || len(bad) != 0 {
		t.Errorf("Vectors(empty) = %v, %v, %v; want nothing", vs, bad, err)
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	all := []*suite.Vector{{ID: "initialize-minimal"}, {ID: "interrupt-idle"}, {ID: "set-model-default"}, {ID: "set-model-null"}}
	tests := []struct {
		name  string
		globs []string
		want  []string
		code  kiterr.Code
	}{
		{name: "no globs keeps all", globs: nil, want: []string{"initialize-minimal", "interrupt-idle", "set-model-default", "set-model-null"}},
		{name: "prefix", globs: []string{"set-model-*"}, want: []string{"set-model-default", "set-model-null"}},
		{name: "exact", globs: []string{"interrupt-idle"}, want: []string{"interrupt-idle"}},
		{name: "union keeps order without duplicates", globs: []string{"set-model-null", "*-null", "i*"}, want: []string{"initialize-minimal", "interrupt-idle", "set-model-null"}},
		{name: "alternation", globs: []string{"{interrupt,initialize}-*"}, want: []string{"initialize-minimal", "interrupt-idle"}},
		{name: "one glob matching nothing", globs: []string{"set-model-*", "nope-*"}, code: kiterr.FilterNoMatch},
		{name: "only glob matching nothing", globs: []string{"zzz"}, code: kiterr.FilterNoMatch},
		{name: "bad glob", globs: []string{"set-[model"}, code: kiterr.Usage},
		{name: "bad glob not at start", globs: []string{"*["}, code: kiterr.Usage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := suite.Select(all, tc.globs)
			if tc.code != "" {
				if got != nil {
					t.Errorf("Select returned %v with an error", ids(got))
				}
				kiterrtest.WantCode(t, err, tc.code)
				return
			}
			if err != nil {
				t.Fatalf("Select: %v", err)
			}
			if diff := cmp.Diff(tc.want, ids(got)); diff != "" {
				t.Errorf("Select (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSelectBadGlobNoVectors: "Bad globs are USAGE errors" should not depend
// on which vectors exist.
func TestSelectBadGlobNoVectors(t *testing.T) {
	t.Parallel()
	_, err := suite.Select([]*suite.Vector(nil), []string{"set-[model"})
	kiterrtest.WantCode(t, err, kiterr.Usage)
}

func TestSendItemBytes(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	tests := []struct {
		name string
		item suite.SendItem
		want string
	}{
		{
			name: "frame canonical",
			item: suite.SendItem{Frame: map[string]any{"type": "control_request", "request_id": "r", "request": map[string]any{"subtype": "interrupt", "n": json.Number("1.0")}}},
			want: `{"request":{"n":1,"subtype":"interrupt"},"request_id":"r","type":"control_request"}` + "\n",
		},
		{name: "frame null", item: suite.SendItem{}, want: "null\n"},
		{name: "frame string", item: suite.SendItem{Frame: "<&>\u2028"}, want: "\"<&>\u2028\"\n"},
		{name: "line verbatim", item: suite.SendItem{Line: str(`{"a":1, "a":2}`)}, want: `{"a":1, "a":2}` + "\n"},
		{name: "empty line", item: suite.SendItem{Line: str("")}, want: "\n"},
		{name: "line wins over frame", item: suite.SendItem{Line: str("x"), Frame: 1}, want: "x\n"},
		{name: "base64 raw bytes", item: suite.SendItem{Base64: str("/w==")}, want: "\xff\n"},
		{name: "base64 empty", item: suite.SendItem{Base64: str("")}, want: "\n"},
		{name: "generate", item: suite.SendItem{Generate: &suite.Generate{Prefix: "[", Repeat: "ab", Count: 3, Suffix: "]"}}, want: "[ababab]\n"},
		{name: "generate zero count", item: suite.SendItem{Generate: &suite.Generate{Prefix: "p", Repeat: "x", Count: 0, Suffix: "s"}}, want: "ps\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.item.Bytes()
			if err != nil {
				t.Fatalf("Bytes: %v", err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("Bytes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSendItemBytesLarge(t *testing.T) {
	t.Parallel()
	it := suite.SendItem{Generate: &suite.Generate{Prefix: `{"m":"`, Repeat: "a", Count: 2 << 20, Suffix: `"}`}}
	got, err := it.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if want := 6 + 2<<20 + 2 + 1; len(got) != want {
		t.Errorf("len = %d, want %d", len(got), want)
	}
	if !strings.HasPrefix(string(got), `{"m":"aaa`) || !strings.HasSuffix(string(got), "aa\"}\n") {
		t.Errorf("unexpected ends: %q ... %q", got[:10], got[len(got)-10:])
	}
}

func TestSendItemBytesErrors(t *testing.T) {
	t.Parallel()
	bad := "not base64!"
	tests := []struct {
		name string
		item suite.SendItem
	}{
		{"bad base64", suite.SendItem{Base64: &bad}},
		{"unmarshalable frame", suite.SendItem{Frame: make(chan int)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got, err := tc.item.Bytes(); err == nil {
				t.Errorf("Bytes() = %q, want error", got)
			}
		})
	}
}

// hostToAgentSubtypes are the request subtypes a host sends to the agent
// (schemas/control.v1.json); the real suite must exercise each one.
var hostToAgentSubtypes = []string{
	"initialize", "interrupt", "set_model", "set_permission_mode", "set_max_thinking_tokens",
	"get_binary_version", "mcp_status", "get_context_usage", "rewind_files", "mcp_reconnect",
	"mcp_toggle", "stop_task",
}

func checkRealSuite(t *testing.T, s *suite.Suite) {
	t.Helper()
	if len(s.Problems) != 0 {
		t.Fatalf("real suite has digest problems: %v", s.Problems)
	}
	ver, err := s.Version(1)
	if err != nil {
		t.Fatal(err)
	}
	vs, bad, err := s.Vectors(ver)
	if err != nil {
		t.Fatalf("Vectors: %v", err)
	}
	for _, le := range bad {
		t.Errorf("real vector %s: %v", le.Path, le.Err)
	}
	covered := map[string]bool{}
	certifying := 0
	messages := 0
	for _, v := range vs {
		switch v.Kind {
		case suite.KindMessage:
			messages++
			continue
		case suite.KindSession:
		default:
			t.Errorf("%s: kind %q", v.ID, v.Kind)
			continue
		}
		if v.Role != "agent" {
			continue
		}
		if v.Level == suite.LevelRequired || v.Level == suite.LevelRecommended {
			certifying++
			for _, it := range v.Send {
				frame, _ := it.Frame.(map[string]any)
				req, _ := frame["request"].(map[string]any)
				if st, ok := req["subtype"].(string); ok {
					covered[st] = true
				}
			}
		}
		if _, err := s.ReadGolden(ver, v.Role, v.ID); err != nil {
			t.Errorf("golden of %s: %v", v.ID, err)
		}
		for i, it := range v.Send {
			if _, err := it.Bytes(); err != nil {
				t.Errorf("%s send[%d]: %v", v.ID, i, err)
			}
		}
	}
	if certifying < 40 {
		t.Errorf("real suite has %d required-or-recommended agent session vectors, want >= 40", certifying)
	}
	if messages == 0 {
		t.Errorf("real suite has no message vectors")
	}
	var missing []string
	for _, st := range hostToAgentSubtypes {
		if !covered[st] {
			missing = append(missing, st)
		}
	}
	if len(missing) > 0 {
		t.Errorf("no required-or-recommended agent vector sends subtype(s) %v", missing)
	}
	if !slices.IsSortedFunc(vs, func(a, b *suite.Vector) int { return strings.Compare(a.ID, b.ID) }) {
		t.Errorf("vectors not sorted by id")
	}
}

func TestRealSuite(t *testing.T) {
	t.Parallel()
	if fi, err := os.Stat("../../suite.json"); err != nil || fi.IsDir() {
		t.Fatalf("real suite missing: %v", err)
	}
	// Coverage does not depend on MANIFEST.sha256 being current; the digest
	// is checked by TestRealSuiteDigest.
	s, err := suite.Load(os.DirFS("../.."), suite.Options{SkipDigest: true})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	checkRealSuite(t, s)
}

// TestRealSuiteDigest fails when a suite file was changed without running
// 'conform golden --update'.
func TestRealSuiteDigest(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, os.DirFS("../.."))
	if len(s.Problems) != 0 {
		t.Errorf("Problems = %v", s.Problems)
	}
}

func TestEmbeddedSuite(t *testing.T) {
	t.Parallel()
	emb, err := suite.Load(conform.Suite(), suite.Options{SkipDigest: true})
	if err != nil {
		t.Fatalf("Load(embedded): %v", err)
	}
	checkRealSuite(t, emb)
	embFiles, err := suite.Digests(conform.Suite())
	if err != nil {
		t.Fatal(err)
	}
	diskFiles, err := suite.Digests(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(diskFiles, embFiles); diff != "" {
		t.Errorf("embedded suite differs from the checkout (-disk +embedded):\n%s", diff)
	}
}

// TestVectorIndex: the index of each role is the session vectors of that
// role that Vectors loads, as Refs in id order, with the same bad files.
func TestVectorIndex(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, os.DirFS("../.."))
	for i := range s.Manifest.Versions {
		ver := &s.Manifest.Versions[i]
		full, bad, err := s.Vectors(ver)
		if err != nil {
			t.Fatal(err)
		}
		for _, role := range []string{"agent", "host"} {
			var want []suite.Ref
			for _, v := range full {
				if v.Kind == suite.KindSession && v.Role == role {
					want = append(want, suite.Ref{ID: v.ID, Level: v.Level, Class: v.ClassName(), Path: v.Path})
				}
			}
			got, gotBad, err := s.VectorIndex(ver, role)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				t.Fatalf("v%d %s: no session vectors to compare", ver.Version, role)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("v%d %s: VectorIndex (-want +got):\n%s", ver.Version, role, diff)
			}
			if diff := cmp.Diff(len(bad), len(gotBad)); diff != "" {
				t.Errorf("v%d %s: bad files (-want +got):\n%s", ver.Version, role, diff)
			}
		}
	}
}
