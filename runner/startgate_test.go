package runner_test

import (
	"context"
	"crypto/sha256"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/testtool"
	"github.com/conform-kit/conform/runner"
	"github.com/conform-kit/conform/runner/internal/fakeiut"
)

// startFake plays "heavy-start-reference": the reference agent after a
// fixed amount of CPU work (hashing 64 MiB), as an interpreter's start is;
// under load its start takes as long as the CPU it gets allows.
func startFake(behaviour string) (int, bool) {
	if behaviour != "heavy-start-reference" {
		return 0, false
	}
	buf := make([]byte, 1<<20)
	for i := range 64 {
		s := sha256.Sum256(buf)
		buf[i] = s[0]
	}
	return fakeiut.Agent("reference"), true
}

// hog keeps 2 x NumCPU goroutines busy until the test ends: a loaded
// machine, bounded by the test's duration.
func hog(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 * runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for ctx.Err() == nil {
				for i := range 1 << 16 {
					x += i
				}
			}
			_ = x
		}()
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// TestWideRunUnderLoad is issue 33 item 5: 64 vectors at once on a loaded
// machine, each IUT doing a start's worth of CPU work first, certify the
// reference with every vector's status as at -j 2 (without the start gate,
// 64 starts share the CPU while each one's timeout runs, and vectors time
// out). Both runs are under the same load; when even -j 2 times out the
// machine is busier than the test can judge, and it skips, saying so. Not
// parallel: the hog would load the other tests too.
func TestWideRunUnderLoad(t *testing.T) {
	testtool.Long(t, "every vector twice with a start's CPU work each, while 2 x NumCPU goroutines keep the CPUs busy: 16-60 s of two cores")
	hog(t)
	narrow := testConfig(t, "heavy-start-reference")
	narrow.Timeout = 3 * time.Second
	want, err := runner.Run(context.Background(), narrow)
	if err != nil {
		t.Fatal(err)
	}
	if want.Summary.Passed == 0 {
		t.Fatalf("at -j 2 the reference got %+v", want.Summary)
	}
	if want.Summary.Failed != 0 {
		t.Skipf("this machine is too loaded for a %s timeout even at -j 2: %+v", narrow.Timeout, want.Summary)
	}
	cfg := narrow
	cfg.Jobs = 64
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Failed != 0 {
		var bad []string
		for _, r := range rep.Results {
			if r.Status != runner.Pass && r.Status != runner.Skipped {
				bad = append(bad, r.ID+" "+string(r.Status)+" "+firstMessage(r))
			}
		}
		t.Fatalf("at -j 64 under load: %+v; not passed: %q", rep.Summary, bad)
	}
	got, wantS := statuses(rep), statuses(want)
	for id, s := range wantS {
		if got[id] != s {
			t.Errorf("%s: %s at -j 64 under load, %s at -j 2", id, got[id], s)
		}
	}
}

func firstMessage(r runner.Result) string {
	if len(r.Findings) == 0 {
		return ""
	}
	return r.Findings[0].Message
}
