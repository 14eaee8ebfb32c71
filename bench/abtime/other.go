//go:build !linux

package main

import (
	"fmt"
	"os"
)

// main on other systems: abtime reads /proc and waitid's siginfo, which
// only Linux has (see main.go).
func main() {
	fmt.Fprintln(os.Stderr, "abtime: Linux only (it reads /proc/<pid>/stat and waitid's siginfo)")
	os.Exit(2)
}
