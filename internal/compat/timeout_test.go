package compat_test

import (
	"context"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/compat"
	"github.com/conform-kit/conform/internal/kiterr"
)

// TestTimeoutHonoured: a Compare whose deadline passes while it works
// returns COMPAT_TIMEOUT, on every family whose work once escaped the
// context (issue 33: the $ref fan-out's validator calls, the mutually
// cyclic definitions, the wide object's witness search). How fast it
// returns is not asserted; a Compare that ignores its context hits the
// hang guard instead.
func TestTimeoutHonoured(t *testing.T) {
	for _, c := range []struct {
		name     string
		old, new any
	}{
		{"ref-fan-out-40", refFanOut(40, false), refFanOut(40, true)},
		{"mutual-500", mutualDefs(500, false), mutualDefs(500, true)},
		{"wide-object-200", wideObject(200, false), wideObject(200, true)},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, deadline := range []time.Duration{time.Millisecond, 20 * time.Millisecond, 100 * time.Millisecond} {
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				start := time.Now()
				done := make(chan error, 1)
				go func() {
					_, err := compat.Compare(ctx, c.old, c.new, compat.Options{})
					done <- err
				}()
				var err error
				select {
				case err = <-done:
				case <-time.After(costHangGuard):
					cancel()
					t.Fatalf("deadline %s: Compare did not return within the hang guard %s", deadline, costHangGuard)
				}
				cancel()
				t.Logf("deadline %s: returned after %s: %v", deadline, time.Since(start).Round(time.Millisecond), kiterr.CodeOf(err))
				if err == nil {
					continue // it finished before its deadline: nothing to honour
				}
				if got := kiterr.CodeOf(err); got != kiterr.CompatTimeout {
					t.Errorf("deadline %s: %v, want COMPAT_TIMEOUT", deadline, err)
				}
			}
		})
	}
}
