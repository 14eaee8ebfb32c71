// Package browsertest finds the Chromium a browser test runs.
package browsertest

import (
	"os"
	"testing"

	"github.com/conform-kit/conform/internal/browser"
	"github.com/conform-kit/conform/internal/testtool"
)

// Need returns the Chromium on PATH ([browser.Find]), or skips tb when
// there is none, unless the environment has CONFORM_BROWSER=require (CI sets
// it), which makes a missing browser a failure. A page rendered in
// Chromium is a long scenario (testtool.Long): the five browser tests take
// about 7 s of CPU, a tenth of plain go test's, so they run with
// CONFORM_TEST_DEEP=1 (CI stages 80 and 85).
func Need(tb testing.TB) string {
	tb.Helper()
	testtool.Long(tb, "renders a page in Chromium")
	exe, err := browser.Find()
	if err != nil {
		if os.Getenv("CONFORM_BROWSER") == "require" {
			tb.Fatalf("CONFORM_BROWSER=require: %v", err)
		}
		tb.Skip(err)
	}
	return exe
}
