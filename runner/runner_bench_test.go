package runner_test

import (
	"context"
	"os"
	"testing"
	"time"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/runner"
)

// BenchmarkRun runs the 78 embedded v1 agent vectors end to end against the
// reference (this test binary re-executed through TestMain's fake
// "reference"), two at a time. One op is one whole run; vectors/s is
// reported too.
func BenchmarkRun(b *testing.B) {
	s, err := runner.Open(conform.Suite())
	if err != nil {
		b.Fatal(err)
	}
	cfg := runner.Config{
		Suite:   s,
		Command: []string{os.Args[0], "-test.run=^$"},
		Env:     map[string]string{"CONFORM_FAKE_IUT": "reference"},
		Timeout: 10 * time.Second, Grace: 3 * time.Second, KillAfter: time.Second,
		Jobs: 2,
	}
	vectors := 0
	b.ReportAllocs()
	for b.Loop() {
		rep, err := runner.Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range rep.Results {
			if r.Status != runner.Pass && r.Level != "informational" {
				b.Fatalf("%s: %s", r.ID, r.Status)
			}
		}
		vectors += len(rep.Results)
	}
	b.ReportMetric(float64(vectors)/b.Elapsed().Seconds(), "vectors/s")
}
