package runner

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/double"
	"github.com/conform-kit/conform/internal/suite"
)

// oldSummary is how summaries were made before frames were kept as
// canonical bytes: decoded frames sorted by their canonical bytes, then
// the whole Summary canonicalized.
func oldSummary(t *testing.T, id, exit string, frames []any) []byte {
	t.Helper()
	keys := make([]string, len(frames))
	for i, f := range frames {
		b, err := canon.Canonical(f)
		if err != nil {
			t.Fatal(err)
		}
		keys[i] = string(b)
	}
	idx := make([]int, len(frames))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	sorted := make([]any, len(frames))
	for i, j := range idx {
		sorted[i] = frames[j]
	}
	b, err := canon.Canonical(Summary{Exit: exit, Frames: sorted, Vector: id})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSummaryBytes: summaryBytes gives the bytes canon.Canonical gives for
// the Summary, for the frames of every golden file of the suite in a
// shuffled order, and for ids and frames with characters RFC 8785 escapes
// or sorts by UTF-16 code units.
func TestSummaryBytes(t *testing.T) {
	t.Parallel()
	type sample struct {
		id, exit string
		frames   []any
	}
	var samples []sample
	err := fs.WalkDir(conform.Suite(), "golden", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		data, err := fs.ReadFile(conform.Suite(), p)
		if err != nil {
			return err
		}
		v, err := canon.Parse(data)
		if err != nil {
			return err
		}
		m := v.(map[string]any)
		exit, _ := m["exit"].(string)
		samples = append(samples, sample{id: m["vector"].(string), exit: exit, frames: m["frames"].([]any)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) < 100 {
		t.Fatalf("only %d golden files found", len(samples))
	}
	samples = append(samples,
		sample{id: "é\u2028\"\\\x01", exit: "signal", frames: []any{map[string]any{"\U0001F600": 1, "\uFB01": 2, "a": "\x7f"}, "z", json.Number("1e21"), nil}},
		sample{id: "x", frames: nil},
	)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range samples {
		frames := append([]any(nil), s.frames...)
		rng.Shuffle(len(frames), func(i, j int) { frames[i], frames[j] = frames[j], frames[i] })
		var cs []string
		for _, f := range frames {
			c, err := canon.Canonical(f)
			if err != nil {
				t.Fatal(err)
			}
			cs = append(cs, string(c))
		}
		want := oldSummary(t, s.id, s.exit, frames)
		if diff := cmp.Diff(string(want), string(summaryBytes(s.id, s.exit, cs))); diff != "" {
			t.Fatalf("%s (-canon.Canonical +summaryBytes):\n%s", s.id, diff)
		}
	}
}

// TestWritePlan: the plan written as it is encoded is the JSON of Plan,
// for generated lines given in many pieces too.
func TestWritePlan(t *testing.T) {
	t.Parallel()
	gen := suite.SendItem{Generate: &suite.Generate{Prefix: `{"a":"`, Repeat: "xy", Count: 70000, Suffix: `"}`}}
	pieces, err := gen.Chunks()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		lines   []sendLine
		replies []any
		gates   []gate
	}{
		{"no lines", nil, nil, nil},
		{"lines", []sendLine{{[]byte("{}\n")}, {[]byte("\xff\n")}, {[]byte("\n")}}, []any{"a", json.Number("1")}, nil},
		{"generated", []sendLine{pieces, {[]byte("x\n")}}, []any{}, nil},
		{"await", []sendLine{{[]byte("{}\n")}, {[]byte("x\n")}}, []any{"a"}, []gate{{before: 1, key: `"r1"`}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := filepath.Join(t.TempDir(), "plan.json")
			if err := writePlan(name, tc.replies, 1500, 1796000000123, tc.lines, tc.gates); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			pl := Plan{Replies: tc.replies, TimeoutMS: 1500, DeadlineUnixMS: 1796000000123}
			if pl.Replies == nil {
				pl.Replies = []any{}
			}
			for _, g := range tc.gates {
				pl.Await = append(pl.Await, double.PlanAwait{Before: g.before, RequestID: json.RawMessage(g.key)})
				pl.Replies = append(pl.Replies, json.RawMessage(g.key))
			}
			for _, ln := range tc.lines {
				pl.Send = append(pl.Send, base64.StdEncoding.EncodeToString(bytes.TrimSuffix(bytes.Join(ln, nil), []byte("\n"))))
			}
			want, err := json.Marshal(pl)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, got) {
				t.Errorf("plan differs from json.Marshal:\n got %.300s\nwant %.300s", got, want)
			}
		})
	}
}

// TestExcerpt: a text is cut at a rune boundary and says its length.
func TestExcerpt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"abcdefghijk", 10, "abcdefghij... (11 bytes)"},
		{"aaaaaaaaa\u00e9", 10, "aaaaaaaaa... (11 bytes)"},
	}
	for _, tc := range tests {
		if got := excerpt([]byte(tc.in), tc.max); got != tc.want {
			t.Errorf("excerpt(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
	long := json.RawMessage(`"` + strings.Repeat("\u00e9", MaxValueBytes) + `"`)
	ds := boundValues([]compare.Difference{{Golden: json.RawMessage(`1`), Actual: long}})
	var s string
	if err := json.Unmarshal(ds[0].Actual, &s); err != nil || !strings.HasSuffix(s, "... (8194 bytes)") || len(s) > MaxValueBytes+20 {
		t.Errorf("cut value %.60q... (%d bytes), %v", s, len(s), err)
	}
	if string(ds[0].Golden) != "1" {
		t.Errorf("short value changed: %s", ds[0].Golden)
	}
}

// TestEachLine: lines read back from the double's records are bounded:
// one longer than max is given as its first max+1 bytes with its whole
// length; empty lines and a last line without LF are kept.
func TestEachLine(t *testing.T) {
	t.Parallel()
	const max = 10
	big := strings.Repeat("b", 200<<10)
	content := "\n" + "a\n" + strings.Repeat("x", max) + "\n" + strings.Repeat("y", max+1) + "\n" + big + "\n" + "last"
	name := filepath.Join(t.TempDir(), "records")
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	type got struct {
		Line string
		Size int
	}
	var lines []got
	eachLine(name, max, func(line []byte, size int) { lines = append(lines, got{string(line), size}) })
	want := []got{
		{"", 0}, {"a", 1}, {strings.Repeat("x", max), max}, {strings.Repeat("y", max+1), max + 1},
		{strings.Repeat("b", max+1), len(big)}, {"last", 4},
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}
