package runner

import (
	"fmt"
	"testing"

	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/suite"
)

// BenchmarkScanPointers scans the 2 MiB generated set_model line of the
// long-line-2mib vector for its request (one op: one line).
func BenchmarkScanPointers(b *testing.B) {
	p := controlPlan(b)
	g := suite.SendItem{Generate: &suite.Generate{
		Prefix: `{"type":"control_request","request_id":"big","request":{"subtype":"set_model","model":"`,
		Repeat: "a", Count: 2 << 20, Suffix: `"}}`}}
	pieces, err := g.Chunks()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(2 << 20)
	b.ReportAllocs()
	for b.Loop() {
		sent := map[string]*request{}
		track(sent, p.request(pieces))
		if r := sent[`"big"`]; r == nil || r.method != "set_model" {
			b.Fatal("not scanned")
		}
	}
}

// BenchmarkIUTDirs measures one vector's IUT directory: handed out, then
// checked and taken back for the next vector (one op: get and put).
func BenchmarkIUTDirs(b *testing.B) {
	d := newIUTDirs(b.TempDir(), nil)
	defer d.close()
	b.ReportAllocs()
	for b.Loop() {
		home, _, _, err := d.get()
		if err != nil {
			b.Fatal(err)
		}
		d.put(home, true)
	}
}

// BenchmarkResults measures keeping 10,000 plain results in slots and
// building them at the end of a run (one op: the whole run's results).
func BenchmarkResults(b *testing.B) {
	const n = 10000
	vs := make([]suite.Ref, n)
	rs := make([]Result, n)
	for i := range vs {
		id := fmt.Sprintf("g%05d-ping", i)
		vs[i] = suite.Ref{ID: id, Level: suite.LevelRequired, Path: "vectors/v1/agent/" + id + ".json"}
		rs[i] = Result{ID: id, Level: suite.LevelRequired, Path: vs[i].Path, Status: Pass, Parity: ParityExact, DurationMS: 3, Exit: &proc.Exit{}}
	}
	b.ReportAllocs()
	for b.Loop() {
		slots := make([]resultSlot, n)
		for i := range rs {
			slots[i] = keepResult(rs[i], vs[i])
		}
		if out := results(slots, vs); len(out) != n {
			b.Fatal(len(out))
		}
	}
}
