package runner_test

// The framed suite (testdata/framed) is the rpc suite's envelope over
// content-length framing (issue 32 item 1): the runner frames what it
// writes (frame, line and generate items, the scripted peer's replies;
// base64 items raw) and reads bodies; a server that breaks the framing
// gets the finding that names the break, with the bytes shown, and the
// vector ends within its bounds.

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/frame"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/runner"
)

// framedSuite copies testdata/framed into a temporary directory, makes its
// goldens from the good framed server and opens it.
func framedSuite(t *testing.T) *runner.Suite {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("testdata", "framed")
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("fixture suite %s missing: %v", src, err)
	}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.WriteManifest(dir); err != nil {
		t.Fatal(err)
	}
	s, err := openDir(t, dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.Framing != frame.ContentLength {
		t.Fatalf("the framed suite loaded with framing %q", s.Framing)
	}
	up, err := runner.UpdateGolden(context.Background(), framedConfig(t, s, "framed-good"), dir)
	if err != nil {
		t.Fatalf("golden --update with the good server: %v", err)
	}
	if up.Written != 6 {
		t.Fatalf("golden update wrote %d golden files, want 6", up.Written)
	}
	s, err = openDir(t, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func framedConfig(t *testing.T, s *runner.Suite, behaviour string) runner.Config {
	cfg := rpcConfig(t, s, behaviour)
	cfg.Quiet = 500 * time.Millisecond
	return cfg
}

// TestFramedSuite: the good framed server passes every vector (its
// replies to what each kind of send item wrote are the goldens, and the
// golden of each reply is its body); each server that breaks the framing
// gets its finding, with the bytes shown, and every vector ends.
func TestFramedSuite(t *testing.T) {
	t.Parallel()
	s := framedSuite(t)
	run := func(t *testing.T, behaviour string, filters ...string) *runner.Report {
		t.Helper()
		cfg := framedConfig(t, s, behaviour)
		cfg.Filters = filters
		rep, err := runner.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	t.Run("good", func(t *testing.T) {
		t.Parallel()
		rep := run(t, "framed-good")
		if len(rep.Results) != 6 {
			t.Errorf("%d results, want 6", len(rep.Results))
		}
		for _, r := range rep.Results {
			if r.Status != runner.Pass {
				t.Errorf("%s is %s: %+v", r.ID, r.Status, r.Findings)
			}
		}
	})
	for _, tc := range []struct {
		behaviour string
		code      string
		shown     string
	}{
		{"framed-bad-header", frame.HeaderInvalid, `"Content-Length: 50x\r\n\r\n"`},
		{"framed-wrong-length", frame.Truncated, `"Content-Length: 60\r\n\r\n{\"id\":1,`},
		{"framed-bare", frame.Unframed, `"{\"id\":1,\"jsonrpc\":\"2.0\",\"result\":{\"text\":\"hé\\n\"}}\n"`},
	} {
		t.Run(tc.behaviour, func(t *testing.T) {
			t.Parallel()
			rep := run(t, tc.behaviour, "echo")
			if len(rep.Results) != 1 {
				t.Fatalf("%d results, want 1", len(rep.Results))
			}
			r := rep.Results[0]
			var codes []string
			found := false
			for _, f := range r.Findings {
				codes = append(codes, f.Code)
				if f.Code == tc.code {
					found = true
					if f.Status != runner.ProtocolError || !strings.Contains(f.Message, tc.shown) {
						t.Errorf("finding %s: status %s, message %q; want PROTOCOL_ERROR showing %s", f.Code, f.Status, f.Message, tc.shown)
					}
				}
			}
			if !found {
				t.Errorf("findings %v, want %s among them", codes, tc.code)
			}
			if r.Status == runner.Pass {
				t.Errorf("status PASS with a broken framing")
			}
		})
	}
}

// TestFramedCodes: the runner's finding codes of a broken framing are the
// frame package's.
func TestFramedCodes(t *testing.T) {
	t.Parallel()
	got := []string{runner.FindingFrameHeaderInvalid, runner.FindingFrameUnframed, runner.FindingFrameTruncated}
	if diff := cmp.Diff([]string{frame.HeaderInvalid, frame.Unframed, frame.Truncated}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestFramedSpawnRefused: spawned mode plays only line-framed suites.
func TestFramedSpawnRefused(t *testing.T) {
	t.Parallel()
	s := framedSuite(t)
	cfg := framedConfig(t, s, "framed-good")
	cfg.Spawn = &runner.Spawn{Argv: []string{"x"}, Name: "agent"}
	_, err := runner.Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "framed as lines only") {
		t.Fatalf("err = %v, want a usage error", err)
	}
	if diff := cmp.Diff(kiterr.Usage, kiterr.CodeOf(err)); diff != "" {
		t.Errorf("code (-want +got):\n%s", diff)
	}
}
