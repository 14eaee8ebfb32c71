package proc_test

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/proc"
)

const benchLine = `{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"version":"2.1.332","buildTime":"2026-11-30T00:00:00Z","oldestDesktopSdk":"0.0.0"}}}` + "\n"

func benchCat(b *testing.B) string {
	b.Helper()
	cat, err := exec.LookPath("cat")
	if err != nil {
		b.Skip("no cat on PATH")
	}
	return cat
}

// BenchmarkSession measures one IUT lifecycle as the runner drives it: start
// cat in its own process group (and, on Linux where one can be made, its own
// cgroup), write one line, read the echo, close stdin, reap. Compare with
// BenchmarkBareExec for the cost of proc itself, and the two sub-benchmarks
// for the cost of the cgroup.
func BenchmarkSession(b *testing.B) {
	b.Run("default", func(b *testing.B) { benchSession(b, proc.Config{}) })
	b.Run("no-cgroup", func(b *testing.B) { benchSession(b, proc.Config{NoCgroup: true}) })
	b.Run("pool", func(b *testing.B) {
		pl := proc.NewPool()
		defer pl.Close()
		benchSession(b, proc.Config{Pool: pl})
	})
}

func benchSession(b *testing.B, cfg proc.Config) {
	cat := benchCat(b)
	cfg.Argv = []string{cat}
	in := [][]byte{[]byte(benchLine)}
	b.ReportAllocs()
	m := startCPU()
	defer m.report(b)
	for b.Loop() {
		p, err := proc.Start(context.Background(), cfg, in)
		if err != nil {
			b.Fatal(err)
		}
		if ln := <-p.Lines(); ln.Size != len(benchLine)-1 {
			b.Fatalf("echo of %d bytes", ln.Size)
		}
		if e := p.Stop(time.Second, time.Second); e.Code != 0 {
			b.Fatalf("exit %+v", e)
		}
	}
}

// BenchmarkBareExec is the floor for BenchmarkSession: os/exec with pipes,
// no process group, no reader goroutines.
func BenchmarkBareExec(b *testing.B) {
	cat := benchCat(b)
	b.ReportAllocs()
	m := startCPU()
	defer m.report(b)
	for b.Loop() {
		cmd := exec.Command(cat)
		cmd.Stdin = bytes.NewReader([]byte(benchLine))
		out, err := cmd.Output()
		if err != nil || len(out) != len(benchLine) {
			b.Fatal(err, len(out))
		}
	}
}

// BenchmarkLines measures the JSON-lines transport: 10,000 typical lines
// echoed by one cat process and delivered on Lines.
func BenchmarkLines(b *testing.B) {
	cat := benchCat(b)
	const n = 10000
	in := make([][]byte, n)
	for i := range in {
		in[i] = []byte(benchLine)
	}
	b.ReportAllocs()
	b.SetBytes(int64(n * len(benchLine)))
	for b.Loop() {
		p, err := proc.Start(context.Background(), proc.Config{Argv: []string{cat}}, in)
		if err != nil {
			b.Fatal(err)
		}
		got := 0
		for range p.Lines() {
			got++
			if got == n {
				break
			}
		}
		p.Stop(time.Second, time.Second)
		if got != n {
			b.Fatalf("%d lines", got)
		}
	}
}
