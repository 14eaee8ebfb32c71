package runner

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/suite"
)

// tracked is what tracking records of one line: the request's key and
// method, or nothing.
type tracked struct {
	Key, Method string
	OK          bool
}

// controlPlan is a plan of the embedded suite's v1 agent role, whose
// envelope the tracking tests read lines with.
func controlPlan(t testing.TB) *plan {
	t.Helper()
	s, err := suite.Load(conform.Suite(), suite.Options{SkipDigest: true, Meta: conform.Meta()})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Suite: s, Command: []string{"unused"}}
	cfg.defaults()
	p, err := prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	return p
}

// wantTracked is the tracking of line read whole (the reference the
// streaming scan must agree with).
func wantTracked(p *plan, line []byte) tracked {
	sent := map[string]*request{}
	track(sent, p.request(sendLine{line}))
	for k, r := range sent {
		return tracked{Key: k, Method: r.method, OK: true}
	}
	return tracked{}
}

// gotTracked is the streaming scan's tracking of line cut into pieces at
// cuts (a line of one piece is read whole, so a single piece is cut in
// two).
func gotTracked(p *plan, line []byte, cuts []int) tracked {
	var pieces [][]byte
	prev := 0
	for _, c := range cuts {
		if c > prev && c < len(line) {
			pieces = append(pieces, line[prev:c])
			prev = c
		}
	}
	pieces = append(pieces, line[prev:])
	if len(pieces) == 1 {
		pieces = [][]byte{line[:0], line}
	}
	sent := map[string]*request{}
	track(sent, p.request(pieces))
	for k, r := range sent {
		return tracked{Key: k, Method: r.method, OK: true}
	}
	return tracked{}
}

var trackCases = []string{
	`{"type":"control_request","request_id":"a","request":{"subtype":"initialize"}}`,
	`  {"request":{"subtype":"interrupt"},"request_id":7,"type":"control_request"}  `,
	`{"type":"control_request","request_id":1e2,"request":{"subtype":"x"}}`,
	`{"type":"control_request","request_id":-0.0,"request":{"subtype":"x"}}`,
	`{"type":"control_request","request_id":{"b":[1,2,{"c":null}],"a":true},"request":{"subtype":"x"}}`,
	`{"type":"control_request","request_id":"a","request":{"subtype":"x"}} trailing junk`,
	`{"type":"control_request","request_id":"a","request":{"subtype":"x"}`,
	`{"type":"control_request","request_id":"a","request":"initialize"}`,
	`{"type":"control_request","request_id":"a","request":{"subtype":7}}`,
	`{"type":"control_request","request_id":"a","request":{"subtype":"x","subtype":"y"}}`,
	`{"type":"control_request","request_id":"a","request":{"subtype":"x"},"request":{}}`,
	`{"type":"control_request","request_id":"a","request_id":"b"}`,
	`{"type":"control_request","type":"control_response","request_id":"a"}`,
	`{"type":"control_response","type":"control_request","request_id":"a"}`,
	`{"\u0074ype":"control_\u0072equest","request\u005fid":"\u00e9\ud800","request":{"sub\u0074ype":"\u0069nit"}}`,
	`{"Type":"control_request","request_id":"a"}`,
	`{"type":"control_request"}`,
	`{"type":"control_request","request_id":null}`,
	`{"type":"control_request","request_id":"a","x":01}`,
	`{"type":"control_request","request_id":"a","x":1.}`,
	`{"type":"control_request","request_id":"a","x":-}`,
	`{"type":"control_request","request_id":"a","x":1e}`,
	`{"type":"control_request","request_id":"a","x":tru}`,
	`{"type":"control_request","request_id":"a","x":"\q"}`,
	`{"type":"control_request","request_id":"a","x":"\u12G4"}`,
	"{\"type\":\"control_request\",\"request_id\":\"a\",\"x\":\"tab\there\"}",
	"{\"type\":\"control_request\",\"request_id\":\"a\xff\xfe\",\"x\":\"\xc3\"}",
	`{"type":"control_request","request_id":"a",}`,
	`{"type":"control_request","request_id":"a" "b":1}`,
	`{"type":"control_request",,"request_id":"a"}`,
	`{,}`, `{}`, `[]`, `null`, `"control_request"`, ``, `   `, "\ufeff{}",
	`{"type":"control_request","request_id":[],"request":{"subtype":"a","deep":[[[[[]]]]]}}`,
	`{"type":"control_request","request_id":"a","request":{"subtype":"` + strings.Repeat("s", 5000) + `"}}`,
	`{"type":"` + strings.Repeat("t", 300) + `","request_id":"a"}`,
	`{"` + strings.Repeat("k", 300) + `":1,"type":"control_request","request_id":"a"}`,
	`{"type":"control_request","request_id":"a","pad":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	`{"type":"control_request","request_id":"a","pad":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
	`{"type":"control_request","request_id":"a","pad":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
	`{"type":"control_request","request_id":"a","request":{"subtype":"x","pad":` + strings.Repeat("{\"a\":", 9997) + `1` + strings.Repeat("}", 9997) + `}}`,
	`{"type":"control_request","request_id":"a","request":{"subtype":"x","pad":` + strings.Repeat("{\"a\":", 9998) + `1` + strings.Repeat("}", 9998) + `}}`,
}

// TestScanPointersAgrees: the streaming scan of generated lines tracks
// exactly what reading the whole line tracks, wherever the line is cut
// into pieces, for edge cases and for every send item of the embedded
// suite.
func TestScanPointersAgrees(t *testing.T) {
	t.Parallel()
	p := controlPlan(t)
	lines := make([][]byte, 0, len(trackCases))
	for _, c := range trackCases {
		lines = append(lines, []byte(c+"\n"))
	}
	s := p.cfg.Suite
	for _, ver := range s.Manifest.Versions {
		vs, _, err := s.Vectors(&ver)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			for _, it := range v.Send {
				b, err := it.Bytes()
				if err != nil {
					t.Fatal(err)
				}
				lines = append(lines, b)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i, line := range lines {
		want := wantTracked(p, line)
		for split := range 8 {
			var cuts []int
			for range split * 3 {
				cuts = append(cuts, rng.IntN(len(line)+1))
			}
			slices.Sort(cuts)
			if diff := cmp.Diff(want, gotTracked(p, line, cuts)); diff != "" {
				t.Fatalf("line %d %.120q cut at %v (-whole +streamed):\n%s", i, line, cuts, diff)
			}
		}
	}
}

// FuzzScanPointers: on any line, cut anywhere, the streaming scan agrees
// with reading the whole line.
func FuzzScanPointers(f *testing.F) {
	p := controlPlan(f)
	for _, c := range trackCases {
		if len(c) < 4096 {
			f.Add([]byte(c), uint16(3))
		}
	}
	f.Fuzz(func(t *testing.T, line []byte, cut uint16) {
		if bytes.Count(line, []byte("[")) > 100 {
			return // deep nesting is covered above; keep the fuzzer fast
		}
		line = append(line, '\n')
		want := wantTracked(p, line)
		if diff := cmp.Diff(want, gotTracked(p, line, []int{int(cut) % (len(line) + 1)})); diff != "" {
			t.Fatalf("%q (-whole +streamed):\n%s", line, diff)
		}
	})
}

// plainRun finds the first '"', '\\' or control character wherever it is
// in the eight-byte words it reads, and none in plain text of any length.
func TestPlainRun(t *testing.T) {
	t.Parallel()
	for size := 0; size < 40; size++ {
		plain := bytes.Repeat([]byte("a\u00e9\x7f~ "), 40)[:size]
		if got := plainRun(plain); got != size {
			t.Errorf("plainRun(%q) = %d, want %d", plain, got, size)
		}
		for _, c := range []byte{'"', '\\', 0x00, 0x01, 0x1f, '\n'} {
			for at := 0; at < size; at++ {
				p := bytes.Clone(plain)
				p[at] = c
				if got := plainRun(p); got != at {
					t.Errorf("plainRun(%q) = %d, want %d", p, got, at)
				}
			}
		}
	}
}
