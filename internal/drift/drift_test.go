package drift_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/drift"
	"github.com/conform-kit/conform/internal/envelope"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/kiterr/kiterrtest"
	"github.com/conform-kit/conform/internal/suite"
)

// sum returns the canonical summary of vector id with the given frames
// (JSON text) and exit class.
func sum(t *testing.T, id, exit string, frames ...string) []byte {
	t.Helper()
	fs := make([]any, len(frames))
	for i, f := range frames {
		v, err := canon.Parse([]byte(f))
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		fs[i] = v
	}
	m := map[string]any{"frames": fs, "vector": id}
	if exit != "" {
		m["exit"] = exit
	}
	// Frames sorted by canonical bytes, as the runner writes them.
	keys := make([]string, len(fs))
	for i, f := range fs {
		b, _ := canon.Canonical(f)
		keys[i] = string(b)
	}
	for i := range fs {
		for j := i + 1; j < len(fs); j++ {
			if keys[j] < keys[i] {
				keys[i], keys[j] = keys[j], keys[i]
				fs[i], fs[j] = fs[j], fs[i]
			}
		}
	}
	b, err := canon.Canonical(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func rec(label string, s map[string][]byte) *drift.Recording {
	return &drift.Recording{Meta: drift.Meta{Format: drift.Format, Label: label}, Summaries: s}
}

const (
	okModel   = `{"type":"control_response","response":{"subtype":"success","request_id":"1","response":{"model":"m"}}}`
	errUnsupp = `{"type":"control_response","response":{"subtype":"error","request_id":"2","error":"Unsupported control request subtype: x"}}`
)

type brief struct{ Rule, Verdict, Pointer, In string }

// control is the envelope of the embedded control suite's v1, the protocol
// these tests' frames are written in.
var control = func() *envelope.Envelope {
	s, err := suite.Load(conform.Suite(), suite.Options{SkipDigest: true, Meta: conform.Meta()})
	if err != nil {
		panic(err)
	}
	v, err := s.Version(1)
	if err != nil {
		panic(err)
	}
	return v.Env()
}()

func TestCompare(t *testing.T) {
	t.Parallel()
	enums := drift.Options{EnumValues: map[string][]string{"mode": {"default", "plan"}}, Envelope: control}
	tests := []struct {
		name     string
		old, new []string // frames
		oldExit  string
		newExit  string
		want     []brief
		verdict  string
	}{
		{name: "unchanged", old: []string{okModel, errUnsupp}, new: []string{errUnsupp, okModel}, verdict: "UNCHANGED"},
		{name: "member added below the envelope", old: []string{okModel},
			new:     []string{`{"type":"control_response","response":{"subtype":"success","request_id":"1","response":{"model":"m","extra":1}}}`},
			want:    []brief{{"PROPERTY_ADDED_OPEN", "ADDITIVE", "/frames/0/response/response/extra", "new"}},
			verdict: "ADDITIVE"},
		{name: "error_code added beside the error", old: []string{errUnsupp},
			new:     []string{`{"type":"control_response","response":{"subtype":"error","request_id":"2","error":"Unsupported control request subtype: x","error_code":"unsupported_request"}}`},
			want:    []brief{{"PROPERTY_ADDED_OPEN", "ADDITIVE", "/frames/0/response/error_code", "new"}},
			verdict: "ADDITIVE"},
		{name: "error_code changed is a new code",
			old:     []string{`{"type":"control_response","response":{"subtype":"error","request_id":"2","error":"e","error_code":"a"}}`},
			new:     []string{`{"type":"control_response","response":{"subtype":"error","request_id":"2","error":"e","error_code":"b"}}`},
			want:    []brief{{"ENUM_VALUE_ADDED", "ADDITIVE", "/frames/0/response/error_code", "new"}},
			verdict: "ADDITIVE"},
		{name: "member gone below the envelope", old: []string{okModel},
			new:     []string{`{"type":"control_response","response":{"subtype":"success","request_id":"1","response":{}}}`},
			want:    []brief{{"REQUIRED_REMOVED", "BREAKING", "/frames/0/response/response/model", "old"}},
			verdict: "BREAKING"},
		{name: "envelope flattened", old: []string{okModel},
			new: []string{`{"type":"control_response","response":{"subtype":"success","request_id":"1","model":"m"}}`},
			want: []brief{
				{"PROPERTY_ADDED_OPEN", "ADDITIVE", "/frames/0/response/model", "new"},
				{"ENVELOPE_RESTRUCTURED", "BREAKING", "/frames/0/response/response", "old"},
			},
			verdict: "BREAKING"},
		{name: "type changed", old: []string{okModel},
			new:     []string{`{"type":"control_response","response":{"subtype":"success","request_id":"1","response":{"model":["m"]}}}`},
			want:    []brief{{"TYPE_CHANGED", "BREAKING", "/frames/0/response/response/model", "new"}},
			verdict: "BREAKING"},
		// A reply that flips outcome is one difference (issue 24 item 3),
		// not a member added, one gone and a discriminator changed.
		{name: "success became an error", old: []string{`{"type":"control_response","response":{"subtype":"success","request_id":"2","response":{}}}`},
			new: []string{`{"type":"control_response","response":{"subtype":"error","request_id":"2","error":"no"}}`},
			want: []brief{
				{"DISCRIMINATOR_CHANGED", "BREAKING", "/frames/0", "new"},
			},
			verdict: "BREAKING"},
		{name: "error became a success", old: []string{errUnsupp},
			new:     []string{`{"type":"control_response","response":{"subtype":"success","request_id":"2","response":{}}}`},
			want:    []brief{{"DISCRIMINATOR_CHANGED", "BREAKING", "/frames/0", "new"}},
			verdict: "BREAKING"},
		{name: "error text only", old: []string{errUnsupp},
			new:     []string{`{"type":"control_response","response":{"subtype":"error","request_id":"2","error":"Unsupported subtype: x"}}`},
			want:    []brief{{"TEXT_CHANGED", "INFO", "/frames/0/response/error", "new"}},
			verdict: "INFO"},
		{name: "enum value the schema lists changed",
			old:     []string{`{"type":"control_response","response":{"subtype":"success","request_id":"1","response":{"mode":"default"}}}`},
			new:     []string{`{"type":"control_response","response":{"subtype":"success","request_id":"1","response":{"mode":"plan"}}}`},
			want:    []brief{{"VALUE_CHANGED", "BREAKING", "/frames/0/response/response/mode", "new"}},
			verdict: "BREAKING"},
		{name: "enum value the schema does not list",
			old:     []string{`{"type":"control_response","response":{"subtype":"success","request_id":"1","response":{"mode":"default"}}}`},
			new:     []string{`{"type":"control_response","response":{"subtype":"success","request_id":"1","response":{"mode":"auto"}}}`},
			want:    []brief{{"ENUM_VALUE_ADDED", "ADDITIVE", "/frames/0/response/response/mode", "new"}},
			verdict: "ADDITIVE"},
		{name: "number and boolean changed",
			old: []string{`{"type":"control_response","response":{"subtype":"success","request_id":"1","response":{"n":1,"b":true}}}`},
			new: []string{`{"type":"control_response","response":{"subtype":"success","request_id":"1","response":{"n":2,"b":false}}}`},
			want: []brief{
				{"VALUE_CHANGED", "BREAKING", "/frames/0/response/response/b", "new"},
				{"VALUE_CHANGED", "BREAKING", "/frames/0/response/response/n", "new"},
			},
			verdict: "BREAKING"},
		{name: "array items",
			old:     []string{`{"type":"control_response","response":{"subtype":"success","request_id":"1","response":{"a":[1,2],"b":[1]}}}`},
			new:     []string{`{"type":"control_response","response":{"subtype":"success","request_id":"1","response":{"a":[1],"b":[1,2]}}}`},
			want:    []brief{{"ITEM_REMOVED", "BREAKING", "/frames/0/response/response/a/1", "old"}, {"ITEM_ADDED", "ADDITIVE", "/frames/0/response/response/b/1", "new"}},
			verdict: "BREAKING"},
		{name: "a reply gone and one new; the others pair whatever their position",
			old: []string{okModel, errUnsupp},
			new: []string{`{"type":"control_response","response":{"subtype":"success","request_id":"0","response":{}}}`, errUnsupp},
			want: []brief{
				{"FRAME_ADDED", "ADDITIVE", "/frames/1", "new"},
				{"FRAME_REMOVED", "BREAKING", "/frames/1", "old"},
			},
			verdict: "BREAKING"},
		{name: "exit appeared", old: []string{okModel}, new: []string{okModel}, newExit: "nonzero",
			want: []brief{{"EXIT_CHANGED", "BREAKING", "/exit", "new"}}, verdict: "BREAKING"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := rec("old", map[string][]byte{"v": sum(t, "v", tc.oldExit, tc.old...)})
			n := rec("new", map[string][]byte{"v": sum(t, "v", tc.newExit, tc.new...)})
			rep := drift.Compare(o, n, enums)
			var got []brief
			for _, f := range rep.Findings {
				got = append(got, brief{f.Rule, f.Verdict, f.Pointer, f.In})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if rep.Verdict != tc.verdict {
				t.Errorf("verdict %s, want %s", rep.Verdict, tc.verdict)
			}
		})
	}
}

func TestCompareVectorSets(t *testing.T) {
	t.Parallel()
	o := rec("old", map[string][]byte{"a": sum(t, "a", "", okModel), "b": sum(t, "b", "", okModel)})
	n := rec("new", map[string][]byte{"b": sum(t, "b", "", okModel), "c": sum(t, "c", "", okModel)})
	rep := drift.Compare(o, n, drift.Options{Envelope: control})
	var got []brief
	for _, f := range rep.Findings {
		got = append(got, brief{f.Rule, f.Verdict, f.Pointer, f.In})
	}
	want := []brief{{"VECTOR_MISSING", "INFO", "", "old"}, {"VECTOR_ADDED", "INFO", "", "new"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if rep.Compared != 1 || rep.Changed != 0 {
		t.Errorf("compared %d changed %d, want 1 and 0", rep.Compared, rep.Changed)
	}
}

func TestEveryRuleIsReachableAndUnique(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range drift.Rules() {
		if seen[r.ID] {
			t.Errorf("duplicate rule %s", r.ID)
		}
		seen[r.ID] = true
		if !strings.HasPrefix(r.Purpose, "Checks ") {
			t.Errorf("%s: purpose does not start with Checks", r.ID)
		}
	}
}

func TestEnumValues(t *testing.T) {
	t.Parallel()
	schema, err := canon.Parse([]byte(`{"$defs":{
		"Mode":{"enum":["default","plan"]},
		"A":{"type":"object","properties":{"behavior":{"const":"allow"},"mode":{"$ref":"#/$defs/Mode"},"type":{"const":"x"}}},
		"B":{"type":"object","properties":{"behavior":{"anyOf":[{"const":"deny"},{"const":"allow"}]},"text":{"type":"string"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := drift.EnumValues(schema, []string{"type", "subtype"})
	want := map[string][]string{"behavior": {"allow", "deny"}, "mode": {"default", "plan"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestWriteRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := rec("2.1.332", map[string][]byte{"v": sum(t, "v", "", okModel)})
	r.Meta.Suite = drift.Suite{Name: "s", Version: 1, Role: "agent", Digest: "sha256:ab"}
	// A summary left by an earlier recording is removed.
	if err := os.WriteFile(filepath.Join(dir, "stale.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := drift.Write(dir, r); err != nil {
		t.Fatal(err)
	}
	got, err := drift.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r.Meta, got.Meta); diff != "" {
		t.Errorf("meta (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"v"}, got.IDs()); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if !bytes.Equal(got.Summaries["v"], r.Summaries["v"]) {
		t.Errorf("summary changed in a round trip")
	}
}

func TestReadRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		code  kiterr.Code
	}{
		{"empty directory", map[string]string{}, kiterr.RecordingInvalid},
		{"not canonical", map[string]string{"v.json": `{"vector": "v", "frames": []}`}, kiterr.RecordingInvalid},
		{"names another vector", map[string]string{"v.json": `{"frames":[],"vector":"w"}`}, kiterr.RecordingInvalid},
		{"not a summary", map[string]string{"v.json": `[]`}, kiterr.RecordingInvalid},
		{"unknown member", map[string]string{"v.json": `{"frames":[],"vector":"v","x":1}`}, kiterr.RecordingInvalid},
		{"bad metadata", map[string]string{"recording.json": `{"format":"other"}`, "v.json": `{"frames":[],"vector":"v"}`}, kiterr.RecordingInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, body := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := drift.Read(dir)
			kiterrtest.WantCode(t, err, tc.code)
		})
	}
	_, err := drift.Read(filepath.Join(t.TempDir(), "nope"))
	kiterrtest.WantCode(t, err, kiterr.PathNotFound)
}

func TestGoldenDirectoryReadsAsSummaries(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "golden", "v1")
	r, err := drift.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Summaries) == 0 || r.Meta.Label != dir {
		t.Fatalf("read %d summaries labelled %q", len(r.Summaries), r.Meta.Label)
	}
	// The golden files against themselves: nothing drifts.
	if rep := drift.Compare(r, r, drift.Options{Envelope: control}); rep.Verdict != drift.VerdictUnchanged || rep.Compared != len(r.Summaries) {
		t.Errorf("golden against itself: %s, %d compared", rep.Verdict, rep.Compared)
	}
}

func TestTimelineFormats(t *testing.T) {
	t.Parallel()
	a := rec("2.1.1", map[string][]byte{"v": sum(t, "v", "", errUnsupp)})
	b := rec("2.1.2", map[string][]byte{"v": sum(t, "v", "", `{"type":"control_response","response":{"subtype":"error","request_id":"2","error":"Unsupported control request subtype: x","error_code":"unsupported_request"}}`)})
	b.Meta.Released = "2026-11-24"
	c := rec("2.1.3", b.Summaries)
	tl := drift.NewTimeline([]*drift.Recording{a, b, c}, drift.Options{Envelope: control})
	if len(tl.Pairs) != 2 || tl.Pairs[0].Verdict != "ADDITIVE" || tl.Pairs[1].Verdict != "UNCHANGED" || tl.Breaking() {
		t.Fatalf("pairs: %+v", tl.Pairs)
	}
	var text, mdown, log bytes.Buffer
	if err := drift.WriteText(&text, tl); err != nil {
		t.Fatal(err)
	}
	if err := drift.WriteMarkdown(&mdown, tl, 2); err != nil {
		t.Fatal(err)
	}
	if err := drift.WriteChangelog(&log, tl, "CLI", "docs/timeline.md"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2.1.1 -> 2.1.2: ADDITIVE (0 breaking, 1 additive, 0 info; 1 of 1 vectors changed)", "PROPERTY_ADDED_OPEN", "/frames/0/response/error_code"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	for _, want := range []string{"## Releases", "### 2.1.1 → 2.1.2: ADDITIVE", "| `v` | `/frames/0/response/error_code` | PROPERTY_ADDED_OPEN | ADDITIVE |"} {
		if !strings.Contains(mdown.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, mdown.String())
		}
	}
	wantLog := "- **–** — CLI 2.1.2 → 2.1.3 (v0  role): **UNCHANGED**, no difference in 1 vectors (docs/timeline.md).\n" +
		"- **2026-11-24** — CLI 2.1.1 → 2.1.2 (v0  role): **ADDITIVE** in 1 of 1 vectors: ADDITIVE PROPERTY_ADDED_OPEN ×1 (`v`) (docs/timeline.md).\n"
	if diff := cmp.Diff(wantLog, log.String()); diff != "" {
		t.Errorf("changelog (-want +got):\n%s", diff)
	}
}

// TestCompareSeesInsideNormalizedValues: two recordings whose summaries are
// equal because a normalizer replaced a whole object still differ where the
// shapes they kept of it differ (issue 24 item 3: a member added to the
// initialize body that <any-object> hid).
func TestCompareSeesInsideNormalizedValues(t *testing.T) {
	t.Parallel()
	frame := `{"type":"control_response","response":{"subtype":"success","request_id":"init","response":"<any-object>"}}`
	b := sum(t, "initialize", "", frame)
	shapes := func(members string) []byte {
		return []byte(`{"frames":[{"/response/response":{` + members + `}}]}`)
	}
	o := &drift.Recording{Meta: drift.Meta{Format: drift.Format, Label: "old"}, Summaries: map[string][]byte{"initialize": b},
		Shapes: map[string][]byte{"initialize": shapes(`"account":{"email":"string"},"models":[{"id":"string"}],"pid":"number"`)}}
	n := &drift.Recording{Meta: drift.Meta{Format: drift.Format, Label: "new"}, Summaries: map[string][]byte{"initialize": b},
		Shapes: map[string][]byte{"initialize": shapes(`"account":{"email":"string"},"models":[{"id":"string","label":"string"}],"pid":"string","sandbox_enabled":"boolean"`)}}
	rep := drift.Compare(o, n, drift.Options{Envelope: control})
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.Rule+" "+f.Pointer+": "+f.Message)
	}
	want := []string{
		`PROPERTY_ADDED_OPEN /frames/0/response/response/models/label: member "response.response.models.label" (string) was added inside a normalized value`,
		`TYPE_CHANGED /frames/0/response/response/pid: "response.response.pid" changed type from number to string inside a normalized value`,
		`PROPERTY_ADDED_OPEN /frames/0/response/response/sandbox_enabled: member "response.response.sandbox_enabled" (boolean) was added inside a normalized value`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Without shapes on one side, nothing is invented.
	n.Shapes = nil
	if rep := drift.Compare(o, n, drift.Options{Envelope: control}); rep.Verdict != drift.VerdictUnchanged {
		t.Errorf("without shapes: %s, want UNCHANGED", rep.Verdict)
	}
}

// TestShapesRoundTrip: a recording's shapes are written under shapes/ and
// read back with it.
func TestShapesRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := sum(t, "v", "", okModel)
	rec := &drift.Recording{Meta: drift.Meta{Label: "x"}, Summaries: map[string][]byte{"v": b}, Shapes: map[string][]byte{"v": []byte(`{"frames":[{}]}`)}}
	if err := drift.Write(dir, rec); err != nil {
		t.Fatal(err)
	}
	back, err := drift.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if string(back.Shapes["v"]) != `{"frames":[{}]}` || len(back.Summaries) != 1 {
		t.Errorf("read back shapes %q and %d summaries", back.Shapes["v"], len(back.Summaries))
	}
}
