package runner_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conform-kit/conform/runner"
)

// countingFake plays "counting-<inner>": it appends a line to the file
// $CONFORM_COUNT_FILE, then plays inner; the file's lines count the IUT's
// starts.
func countingFake(behaviour string) (int, bool) {
	inner, ok := strings.CutPrefix(behaviour, "counting-")
	if !ok {
		return 0, false
	}
	f, err := os.OpenFile(os.Getenv("CONFORM_COUNT_FILE"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1, true
	}
	f.WriteString("start\n")
	f.Close()
	return fake(inner), true
}

// TestPreflightCacheOneStart is issue 31 item 3: a one-vector run of an IUT
// whose preflight an earlier run kept starts it once; a changed key, a
// corrupt entry or a shard starts it for the preflight again, and the
// vector's status is the same every time.
func TestPreflightCacheOneStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	counter := filepath.Join(dir, "starts")
	cache := filepath.Join(dir, "cache")
	const vector = "v2-cancel-unknown"
	var notes []string
	run := func(t *testing.T, mutate func(*runner.Config)) (starts int, status runner.Status) {
		t.Helper()
		if err := os.WriteFile(counter, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := testConfig(t, "counting-accept-drop-pending", vector)
		cfg.Version = 2
		cfg.Env["CONFORM_COUNT_FILE"] = counter
		cfg.PreflightCache = cache
		cfg.IUTDigest = "profile-a"
		notes = nil
		cfg.Note = func(msg string) { notes = append(notes, msg) }
		if mutate != nil {
			mutate(&cfg)
		}
		rep, err := runner.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(counter)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Count(b, []byte("start\n")), statuses(rep)[vector]
	}
	if n, st := run(t, nil); n != 2 || st != runner.Pass {
		t.Fatalf("first run: %d starts, %s; want 2 (preflight, vector), PASS", n, st)
	}
	if len(notes) != 0 {
		t.Errorf("first run noted %q", notes)
	}
	if n, st := run(t, nil); n != 1 || st != runner.Pass {
		t.Fatalf("second run: %d starts, %s; want 1 (the vector), PASS", n, st)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "reused") {
		t.Errorf("second run notes %q, want one that says the preflight was reused", notes)
	}
	// Another IUT (here: another profile digest) is another key.
	if n, _ := run(t, func(c *runner.Config) { c.IUTDigest = "profile-b" }); n != 2 {
		t.Errorf("changed IUT digest: %d starts, want 2", n)
	}
	// A file the command names is part of the key: an edited script
	// is another IUT.
	script := filepath.Join(dir, "server.js")
	withScript := func(c *runner.Config) { c.Command = append(c.Command, script) }
	if err := os.WriteFile(script, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, _ := run(t, withScript); n != 2 {
		t.Errorf("with a script: %d starts, want 2", n)
	}
	if n, _ := run(t, withScript); n != 1 {
		t.Errorf("with the same script: %d starts, want 1", n)
	}
	if err := os.WriteFile(script, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, _ := run(t, withScript); n != 2 {
		t.Errorf("with an edited script: %d starts, want 2", n)
	}
	// A shard is part of a certification: it always runs the preflight.
	if n, _ := run(t, func(c *runner.Config) { c.Shard = &runner.Shard{Index: 1, Count: 1} }); n != 2 {
		t.Errorf("shard: %d starts, want 2", n)
	}
	// A corrupt entry is ignored (and written again).
	ents, err := filepath.Glob(filepath.Join(cache, "preflight-*.txt"))
	if err != nil || len(ents) != 4 {
		t.Fatalf("cache entries %q (%v), want 4", ents, err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)-3] ^= 0x20 // a frame's byte: the entry's digest no longer matches
		if err := os.WriteFile(e, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n, st := run(t, nil); n != 2 || st != runner.Pass {
		t.Errorf("corrupt entry: %d starts, %s; want 2, PASS", n, st)
	}
	if n, _ := run(t, nil); n != 1 {
		t.Errorf("after the corrupt entry was written again: %d starts, want 1", n)
	}
}
