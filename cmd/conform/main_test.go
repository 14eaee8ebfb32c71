package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/testpar"
)

func TestMain(m *testing.M) {
	testscript.Main(tests{m}, map[string]func(){
		"conform": func() {
			_ = proc.BecomeSubreaper() // as main does
			ctx, stop := signal.NotifyContext(context.Background(), stopSignals()...)
			code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
			stop()
			os.Exit(code)
		},
		// A fake IUT for tests that run conform as a child (memory_test.go).
		"conform-fake-iut": func() { os.Exit(fakeIUT(os.Args[1:])) },
	})
}

// tests runs the package's tests (testscript.Main runs commands
// instead when this binary is invoked as one): with an index cache that
// every conform the scripts start shares (indexCache; CONFORM_CACHE), so
// that a script's conform does not check the embedded suite's vector
// files again (internal/suite's tests check the cache itself), and with
// more parallel tests than CPUs, since most of them wait on the processes
// they start.
type tests struct{ m *testing.M }

func (t tests) Run() int {
	dir, err := os.MkdirTemp("", "conform-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	testCache = dir
	testpar.Widen(4)
	return t.m.Run()
}

// testCache is the index cache directory the scripts share (tests.Run).
var testCache string

// TestScripts runs the CLI scenarios in testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("SUITE", root) // the repository's suite, for copies
			env.Setenv("CONFORM_CACHE", testCache)
			return nil
		},
		// [root]: the test runs as root (mknod, cgroups).
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}
