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
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
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
