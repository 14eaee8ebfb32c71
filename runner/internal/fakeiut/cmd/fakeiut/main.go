// Command fakeiut plays the fake IUT CONFORM_FAKE_IUT names, one of
// package fakeiut's (the runner's tests build it once per run; see
// fakeiut's doc). It exits 2 for a behaviour that is not there, and when
// CONFORM_ZOO_PIDS is set: the zoo's fakes, which record their pids
// there, are the test binary's.
package main

import (
	"fmt"
	"os"

	"github.com/conform-kit/conform/runner/internal/fakeiut"
)

func main() {
	b := os.Getenv("CONFORM_FAKE_IUT")
	if os.Getenv("CONFORM_ZOO_PIDS") != "" {
		fmt.Fprintf(os.Stderr, "fakeiut: %q: CONFORM_ZOO_PIDS is set: the zoo's fakes are the test binary's\n", b)
		os.Exit(2)
	}
	code, ok := fakeiut.Main(b, os.Args[1:])
	if !ok {
		fmt.Fprintf(os.Stderr, "fakeiut: CONFORM_FAKE_IUT=%q is not played here (the test binary plays it)\n", b)
		os.Exit(2)
	}
	os.Exit(code)
}
