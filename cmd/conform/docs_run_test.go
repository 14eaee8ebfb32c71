package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runnableDocCommands are the subcommands TestDocCommandsRun executes as
// written: they read the repository and the embedded suite, write nothing
// and need no IUT or installed SDK. Every other command shown in the docs
// is checked statically by TestDocCommands (its subcommand, flags and
// paths); the slow paths are run by TestTutorial, TestWritingASuite and the
// CI stages, which run the same commands as the pages show.
var runnableDocCommands = map[string]bool{"list": true, "validate": true, "compat": true, "version": true}

// TestDocCommandsRun runs every command of the README and docs/ whose
// subcommand is in runnableDocCommands and which has no placeholder, from
// the repository's root with this package's conform: a command a page
// shows must not fail with a usage error or a failure of the kit (exit 2
// with USAGE, or exit 3 or more, docs/running.md "Verdicts"). Exit 1
// (findings, a breaking change) is what some examples show.
func TestDocCommandsRun(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	conform := filepath.Join(bin, "conform")
	if err := os.Symlink(self, conform); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, p := range docPages(t, root) {
		blocks, _ := mdSplit(p.text)
		for _, b := range blocks {
			if !isShellBlock(b) {
				continue
			}
			cmds, lines := blockCommands(b)
			for i, c := range cmds {
				args, ok := conformArgs(c)
				if !ok || len(args) == 0 || !runnableDocCommands[args[0]] || hasPlaceholder(args) || !filesExist(root, args) {
					continue
				}
				ran++
				where := fmt.Sprintf("%s:%d: %s", p.path, lines[i], strings.Join(c, " "))
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				cmd := exec.CommandContext(ctx, conform, args...)
				cmd.Dir = root
				cmd.Env = append(os.Environ(), "NO_COLOR=1")
				var stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = nil, &stderr
				err := cmd.Run()
				cancel()
				code := 0
				if ee, isExit := err.(*exec.ExitError); isExit {
					code = ee.ExitCode()
				} else if err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				if code >= 2 {
					t.Errorf("%s: exit %d: %s", where, code, lastLine(stderr.String()))
				}
			}
		}
	}
	if ran < 5 {
		t.Errorf("ran %d commands: the selection is broken", ran)
	}
	t.Logf("ran %d commands of the docs as written", ran)
}

// conformArgs returns the arguments of a conform command as a page shows
// it (conform ..., ./conform ..., go run ./cmd/conform ...).
func conformArgs(c []string) ([]string, bool) {
	switch {
	case c[0] == "conform" || strings.HasSuffix(c[0], "/conform"):
		return c[1:], true
	case len(c) > 2 && c[0] == "go" && c[1] == "run" && (c[2] == "./cmd/conform" || c[2] == "github.com/conform-kit/conform/cmd/conform"):
		return c[3:], true
	}
	return nil, false
}

// hasPlaceholder: a word the reader must replace ($VAR, <file>, my-...,
// a glob the shell would expand) or a path outside the repository.
func hasPlaceholder(args []string) bool {
	for _, a := range args {
		if strings.ContainsAny(a, "$<>~`") || strings.HasPrefix(a, "/") || strings.Contains(a, "my-") || strings.Contains(a, "my_") {
			return true
		}
	}
	return false
}

// filesExist: every operand that names a file (a word with a dot or a
// slash, or the value of --suite) exists under root. A page that builds
// its files as it goes (docs/writing-a-suite.md, run by TestWritingASuite)
// or names the reader's own file (rec.jsonl) is checked statically only.
func filesExist(root string, args []string) bool {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			continue
		}
		if args[i-1] == "--suite" || strings.ContainsAny(a, "./") {
			if _, err := os.Stat(filepath.Join(root, a)); err != nil {
				return false
			}
		}
	}
	return true
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
