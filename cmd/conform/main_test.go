package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/conform-kit/conform/internal/testpar"
	"github.com/conform-kit/conform/internal/testtool"
)

func TestMain(m *testing.M) {
	testscript.Main(tests{m}, map[string]func(){
		"conform": func() { os.Exit(mainStatus(os.Args[1:])) },
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
	testReference = buildReference(dir)
	if testReference != "" {
		// For the tests that start conform themselves (childBin).
		os.Setenv(referenceEnv, testReference)
	}
	testpar.Widen(4)
	return t.m.Run()
}

// testCache is the index cache directory the scripts share (tests.Run).
var testCache string

// testReference is a conform-reference binary built once for the tests
// (buildReference), given to the conform they start as CONFORM_REFERENCE
// ([referenceEnv]), or "" when it could not be built. The scripts and
// tests start the built-in reference about 700 times; as the test binary
// re-executed, each start cost about 11 ms of CPU, 9 of them the JSON
// Schema validator's initialisation, which the reference never uses. The
// reference's behaviour is the same code either way (reference.Main; CI
// stage 20 requires byte-identical output from both), and
// testdata/script/run_reference.txtar runs the re-executed path itself.
var testReference string

// buildReference builds cmd/conform-reference into dir with the go
// command that runs the tests and returns its path, or "" with the reason
// on stderr (the tests then re-execute conform, only slower).
func buildReference(dir string) string {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintf(os.Stderr, "cmd/conform tests: the reference re-executes conform: %v\n", err)
		return ""
	}
	exe := filepath.Join(dir, "conform-reference")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	if out, err := exec.Command(goCmd, "build", "-o", exe, "github.com/conform-kit/conform/cmd/conform-reference").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "cmd/conform tests: the reference re-executes conform: go build conform-reference: %v\n%s", err, out)
		return ""
	}
	return exe
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
			env.Setenv("CONFORM_CACHE", testCache)
			env.Setenv(referenceEnv, testReference)
			return nil
		},
		// [root]: the test runs as root (mknod, cgroups). [tool:NAME]:
		// NAME is usable (testtool.Usable); with CONFORM_REQUIRE_TOOLS=1
		// a tool that is not fails the script instead.
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			if tool, ok := strings.CutPrefix(cond, "tool:"); ok {
				err := testtool.Usable(tool)
				if err != nil && testtool.Required() {
					return false, fmt.Errorf("needs %s: %v (%s=1)", tool, err, testtool.RequireEnv)
				}
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// writeScript writes the executable file name for a test to run, with
// syscall.ForkLock held for reading, as runner's writeExecutable does: a
// process started meanwhile by a parallel test would otherwise inherit the
// descriptor until its execve, and running name then fails with ETXTBSY.
func writeScript(t *testing.T, name, body string) {
	t.Helper()
	syscall.ForkLock.RLock()
	err := os.WriteFile(name, []byte(body), 0o755)
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
}
