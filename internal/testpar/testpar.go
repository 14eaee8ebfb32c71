// Package testpar lets a package's tests run more of their parallel tests
// at once than go test's default (-parallel: GOMAXPROCS), for packages
// whose tests mostly wait on processes they start (an IUT that answers
// only after a timeout, a vector that waits for its grace period), not on
// this process's CPU. It changes nothing when -parallel is given.
package testpar

import (
	"flag"
	"strconv"
)

// Widen sets -test.parallel to n unless the command line gave -parallel.
// Call it from TestMain before m.Run (it parses the command line first,
// as m.Run would).
func Widen(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(n))
	}
}
