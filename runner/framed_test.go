package runner_test

// The framed suite (testdata/framed) is the rpc suite's envelope over
// content-length framing (issue 32 item 1): the runner frames what it
// writes (frame, line and generate items, the scripted peer's replies;
// base64 items raw) and reads bodies; a server that breaks the framing
// gets the finding that names the break, with the bytes shown, and the
// vector ends within its bounds.

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/frame"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/runner"
)

// framedSuite copies testdata/framed into a temporary directory, makes its
// goldens from the good framed server and opens it.
func framedSuite(t *testing.T) *runner.Suite {
	t.Helper()
	s, up := goldenSuite(t, fixtureDir(t, "framed", nil), func(s *runner.Suite) runner.Config {
		if s.Framing != frame.ContentLength {
			t.Fatalf("the framed suite loaded with framing %q", s.Framing)
		}
		return framedConfig(t, s, "framed-good")
	})
	if up.Written != 6 {
		t.Fatalf("golden update wrote %d golden files, want 6", up.Written)
	}
	return s
}

// framedConfig runs behaviour on s: the good server with a timeout no
// loaded machine reaches (it never needs a wait to end), a broken one
// with rpcConfig's 3 s, which its wait for the reply the framing lost
// takes (or the 2 s quiet bound once the IUT wrote a message).
func framedConfig(t *testing.T, s *runner.Suite, behaviour string) runner.Config {
	cfg := rpcConfig(t, s, behaviour)
	if behaviour == "framed-good" {
		cfg.Timeout = 30 * time.Second
	}
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
		// The report names the framing, and reads back.
		if rep.Suite.Framing != "content-length" {
			t.Errorf("report suite framing %q", rep.Suite.Framing)
		}
		var b bytes.Buffer
		if err := report.JSON(&b, rep); err != nil {
			t.Fatal(err)
		}
		back, err := runner.ReadReport(s, b.Bytes())
		if err != nil {
			t.Fatalf("ReadReport: %v", err)
		}
		if back.Suite != rep.Suite {
			t.Errorf("read back %+v, want %+v", back.Suite, rep.Suite)
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

// TestFramedRecording: a recording of a framed suite is JSON lines of
// bodies, or the framed capture itself, whose breaks are findings at their
// message, in order with the check's own.
func TestFramedRecording(t *testing.T) {
	t.Parallel()
	s := framedSuite(t)
	msg := func(b string) string { return string(frame.Encode(frame.ContentLength, []byte(b))) }
	req := `{"id":1,"method":"echo","params":{"text":"a"}}`
	rep := "{\"id\":1,\r\n \"result\":{\"text\":\"a\"}}"
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"lines of bodies", req + "\n" + strings.ReplaceAll(rep, "\r\n", "") + "\n", nil},
		{"framed capture", msg(req) + msg(rep), nil},
		{"framed capture with breaks", msg(req) + `{"bare":1}` + "\n" + msg(rep) + msg(`{"id":2,"method":"nope"}`) + "Content-Length: 9\r\n\r\n{}",
			[]string{"2 FRAME_UNFRAMED", "5 FRAME_TRUNCATED", "4 REPLY_MISSING"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			st, err := runner.ValidateRecording(context.Background(), s, 1, strings.NewReader(tc.in), runner.RecordingOptions{Complete: true}, func(lf runner.LineFinding) {
				got = append(got, fmt.Sprintf("%d %s", lf.Line, lf.Code))
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if st.Matched != 1 || st.Failed != len(tc.want) {
				t.Errorf("matched %d, failed %d; want 1, %d", st.Matched, st.Failed, len(tc.want))
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
