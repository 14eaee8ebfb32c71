// Package browsertest finds the Chromium a browser test runs.
package browsertest

import (
	"os"
	"testing"

	"github.com/conform-kit/conform/internal/browser"
)

// Need returns the Chromium on PATH ([browser.Find]), or skips tb when
// there is none, unless the environment has CONFORM_BROWSER=require (CI sets
// it), which makes a missing browser a failure.
func Need(tb testing.TB) string {
	tb.Helper()
	exe, err := browser.Find()
	if err != nil {
		if os.Getenv("CONFORM_BROWSER") == "require" {
			tb.Fatalf("CONFORM_BROWSER=require: %v", err)
		}
		tb.Skip(err)
	}
	return exe
}
