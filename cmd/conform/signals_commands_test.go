//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/testtool"
)

// TestSignalsEndEveryCommand: SIGINT, SIGTERM, SIGHUP and SIGQUIT end a
// command that is busy or blocked (validate reading a pipe that never
// ends, compat on a $ref fan-out, drift comparing recordings of many
// summaries, record and matrix running an IUT that never answers) with
// exit status 130, half a second after the signal for a command that
// starts no IUT (and at once for one that ends its IUTs itself), and with no output file
// and no temporary file left in the output's folder. Before issue 33 only
// run and golden acted on these signals: validate, compat, drift could be
// ended only with SIGKILL.
func TestSignalsEndEveryCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs conform as a child many times")
	}
	t.Parallel()
	bin := childBin(t)
	hang := filepath.Join(t.TempDir(), "hang.sh")
	writeScript(t, hang, "#!/bin/sh\nwhile read -r line; do :; done\n")
	type command struct {
		name string
		// setup returns the arguments (OUT is the output file, in a
		// folder of its own) and what conform's stdin is.
		setup func(t *testing.T, dir string) []string
		// iut: the command ends its IUTs before it ends.
		iut bool
	}
	commands := []command{
		{"validate a pipe", func(t *testing.T, dir string) []string { return []string{"validate", "-"} }, false},
		{"compat", func(t *testing.T, dir string) []string {
			// one fan-out pair takes well under a second since issue 33
			// made compat polynomial on it; a batch of 20000 keeps
			// compat busy comparing
			old, new := fanOut(t, dir, 12)
			line, err := json.Marshal(map[string]string{"old_file": old, "new_file": new})
			if err != nil {
				t.Fatal(err)
			}
			pairs := filepath.Join(dir, "pairs.jsonl")
			if err := os.WriteFile(pairs, bytes.Repeat(append(line, '\n'), 20000), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"compat", "--pairs", pairs}
		}, false},
		{"drift", func(t *testing.T, dir string) []string {
			// A FIFO among the recordings, which blocked drift before,
			// is now refused up front (TestInputsBounded): drift is kept
			// busy instead, comparing two recordings of 200 summaries
			// whose 3,000 members each all change type (600,000
			// differences: seconds of work on an idle machine; 200
			// files a side, as creating 4,000 took more CPU than the
			// test's runs).
			var dirs []string
			for n, d := range []string{"a", "b"} {
				d = filepath.Join(dir, d)
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
				for i := range 200 {
					var members strings.Builder
					for j := range 3000 {
						if n == 0 {
							fmt.Fprintf(&members, `,"k%04d":%d`, j, j)
						} else {
							fmt.Fprintf(&members, `,"k%04d":"s%d"`, j, j)
						}
					}
					summary := fmt.Sprintf(`{"exit":"zero","frames":[{"response":{"request_id":"r%d","response":{%s},"subtype":"success"},"type":"control_response"}],"vector":"v%d"}`, i, members.String()[1:], i)
					if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("v%d.json", i)), []byte(summary), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				dirs = append(dirs, d)
			}
			return append([]string{"drift"}, dirs...)
		}, false},
		{"record", func(t *testing.T, dir string) []string {
			return []string{"record", "--timeout", "1m", "--out", "OUT", "--", hang}
		}, true},
		{"matrix", func(t *testing.T, dir string) []string {
			return []string{"matrix", "--timeout", "1m", "--out", "OUT", "--impl", "hang=" + hang}
		}, true},
	}
	shared := t.TempDir()
	signals := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}
	for ci, c := range commands {
		// Every command with every signal is 20 runs, and compat and drift
		// burn CPU until signalled (about 16 s of CPU in all): CI
		// (CONFORM_TEST_DEEP=1) runs them all; plain go test runs each
		// command once, with the signals taken in turn, so that each
		// signal and each command is still sent or run at least once.
		sigs := signals
		if !testtool.Deep() {
			sigs = signals[ci%len(signals) : ci%len(signals)+1]
		}
		// The four signals' runs of a command share its inputs, made
		// once (drift's summaries took seconds to write for each).
		var once sync.Once
		var inputs []string
		for _, sig := range sigs {
			t.Run(c.name+"/"+sig.String(), func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				outDir := filepath.Join(dir, "out")
				if err := os.Mkdir(outDir, 0o755); err != nil {
					t.Fatal(err)
				}
				once.Do(func() {
					in := filepath.Join(shared, strconv.Itoa(ci))
					if err := os.Mkdir(in, 0o755); err != nil {
						t.Fatal(err)
					}
					inputs = c.setup(t, in)
				})
				if inputs == nil {
					t.Fatalf("the inputs of %s were not made (see the subtest that made them)", c.name)
				}
				args := slices.Clone(inputs)
				for i, a := range args {
					args[i] = strings.ReplaceAll(a, "OUT", filepath.Join(outDir, "result"))
				}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, filepath.Join(bin, "conform"), args...)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				// validate - reads this pipe, whose writer stays open.
				pr, pw, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				defer pw.Close()
				cmd.Stdin = pr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				pr.Close()
				exited := make(chan error, 1)
				go func() { exited <- cmd.Wait() }()
				// Busy or blocked by now: the command has read its
				// flags and started its work.
				select {
				case err := <-exited:
					t.Fatalf("conform %s ended before the signal (%v):\n%s", c.name, err, tail(out.String(), 1500))
				case <-time.After(1500 * time.Millisecond):
				}
				sent := time.Now()
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				// conform ends a command 0.5 s after the signal (stopWait;
				// 0.50-0.55 s measured on a quiet machine). Not a speed
				// bound: without the signal none of these commands ends
				// within a minute (validate and drift wait for ever,
				// record and matrix for their IUT's 1m timeout, compat has
				// 20000 pairs to compare), so a minute tells "ended by the
				// signal" from "ended by its work" however loaded the
				// machine is, and the exit status 130 checked below says
				// which.
				const hangGuard = time.Minute
				var took time.Duration
				select {
				case <-exited:
					took = time.Since(sent)
				case <-time.After(hangGuard):
					cmd.Process.Kill()
					<-exited
					t.Fatalf("conform %s still running %v after %v:\n%s", c.name, hangGuard, sig, tail(out.String(), 1500))
				}
				t.Logf("conform %s ended %v after %v", c.name, took.Round(time.Millisecond), sig)
				if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
					t.Errorf("conform %s: exit status %d (%v) after %v, want %d:\n%s", c.name, code, cmd.ProcessState, sig, exitInterrupted, tail(out.String(), 1500))
				}
				if left, _ := os.ReadDir(outDir); len(left) > 0 {
					var names []string
					for _, e := range left {
						names = append(names, e.Name())
					}
					t.Errorf("conform %s left %v in the output's folder", c.name, names)
				}
				t.Logf("%s: exit %d %v after %v", c.name, cmd.ProcessState.ExitCode(), took.Round(time.Millisecond), sig)
			})
		}
	}
}

// fanOut writes two schemas of a chain of depth definitions, each an anyOf
// whose branches refer to the next one twice and once through a property,
// differing in the last one: compat's work on them grew exponentially
// with depth before issue 33 (12 levels took many seconds; now well under
// one).
func fanOut(t *testing.T, dir string, depth int) (old, new string) {
	t.Helper()
	write := func(name string, last any) string {
		defs := map[string]any{}
		for i := range depth {
			next := map[string]any{"$ref": fmt.Sprintf("#/$defs/D%d", i+1)}
			defs[fmt.Sprintf("D%d", i)] = map[string]any{"anyOf": []any{next, map[string]any{"allOf": []any{next}},
				map[string]any{"type": "object", "properties": map[string]any{"p": next}}}}
		}
		defs[fmt.Sprintf("D%d", depth)] = last
		b, err := json.Marshal(map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/D0", "$defs": defs})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("old.json", map[string]any{"type": "string"}), write("new.json", map[string]any{"type": []any{"string", "number"}})
}
