package runner_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/kiterr/kiterrtest"
	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/runner"
)

// boundsFake plays "flood-N-SIZE": before its first reply it writes N
// unsolicited control responses of about SIZE bytes each (each a distinct
// frame the summary keeps), then answers every request as the reference.
func boundsFake(behaviour string) (int, bool) {
	var n, size int
	if _, err := fmt.Sscanf(behaviour, "flood-%d-%d", &n, &size); err != nil {
		return 0, false
	}
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer out.Flush()
	agent := reference.NewAgent()
	pad := strings.Repeat("x", max(size-120, 1))
	first := true
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if first {
				first = false
				for i := range n {
					fmt.Fprintf(out, `{"type":"control_response","response":{"subtype":"success","request_id":"flood-%d","response":{"pad":"%s"}}}`+"\n", i, pad)
				}
			}
			if reply, _ := agent.Handle(line); reply != nil {
				out.Write(append(reply, '\n'))
			}
			if out.Flush() != nil {
				return 0, true
			}
		}
		if err != nil {
			return 0, true
		}
	}
}

// TestVectorBudget: an IUT that writes more control frames than a
// vector's budget leaves fails the vector with one VECTOR_BUDGET_EXCEEDED
// (PROTOCOL_ERROR) and is stopped; the summary holds only what fitted.
func TestVectorBudget(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "flood-200-20000", "interrupt-idle")
	cfg.MaxVectorBytes = 256 << 10
	cfg.Timeout = time.Minute // the budget ends the vector, not the timeout
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if r.Status != runner.ProtocolError {
		t.Errorf("status %s, want PROTOCOL_ERROR", r.Status)
	}
	if got := count(findingCodes(r), runner.FindingBudgetExceeded); got != 1 {
		t.Errorf("%d VECTOR_BUDGET_EXCEEDED findings, want 1: %v", got, findingCodes(r))
	}
	added := 0
	for _, d := range r.Differences {
		if d.Kind == runner.FindingFrameAdded {
			added++
		}
	}
	// 256 KiB less the stderr tail and the findings leave room for about
	// nine frames of 20 KB; none after the budget is kept.
	if added == 0 || added > 10 {
		t.Errorf("%d frames added to the summary, want 1 to 10 (the budget's worth)", added)
	}
	if rep.ExitCode() != 1 {
		t.Errorf("exit %d, want 1", rep.ExitCode())
	}
}

// TestReportBounds: what a result reports is bounded: expected and actual
// cut at MaxExcerptBytes, at most MaxDifferences differences (then one
// DIFFERENCES_TRUNCATED note), each value cut at MaxValueBytes, at most
// MaxFindings findings of MaxFindingBytes (then FINDINGS_TRUNCATED); each
// cut says the whole length.
func TestReportBounds(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "flood-300-6000", "interrupt-idle")
	// The vector ends when the fake answers after its flood: a roomy
	// timeout keeps a loaded machine (1.8 MB written, 300 frames checked)
	// from turning PROTOCOL_ERROR into TIMEOUT. Nothing here is timed.
	cfg.Timeout = time.Minute
	rep, err := runner.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if r.Status != runner.ProtocolError {
		t.Errorf("status %s, want PROTOCOL_ERROR (unsolicited replies)", r.Status)
	}
	if len(r.Actual) > runner.MaxExcerptBytes+32 || !strings.HasSuffix(r.Actual, " bytes)") {
		t.Errorf("actual is %d bytes ending %q, want an excerpt of %d bytes ending in \"... (N bytes)\"", len(r.Actual), tail(r.Actual), runner.MaxExcerptBytes)
	}
	if len(r.Differences) != runner.MaxDifferences {
		t.Errorf("%d differences, want %d", len(r.Differences), runner.MaxDifferences)
	}
	codes := findingCodes(r)
	if count(codes, runner.FindingDifferencesTruncated) != 1 || count(codes, runner.FindingFindingsTruncated) == 0 {
		t.Errorf("findings %v lack DIFFERENCES_TRUNCATED or FINDINGS_TRUNCATED", codes)
	}
	// At most MaxFindings from the session and MaxFindings normative
	// differences, each group with its truncation note, and the notes.
	if len(r.Findings) > 2*runner.MaxFindings+4 {
		t.Errorf("%d findings, want at most %d", len(r.Findings), 2*runner.MaxFindings+4)
	}
	for _, f := range r.Findings {
		if len(f.Message) > runner.MaxFindingBytes+32 {
			t.Errorf("%s: message of %d bytes", f.Code, len(f.Message))
		}
	}
	cut := 0
	for _, d := range r.Differences {
		for _, v := range []json.RawMessage{d.Golden, d.Actual} {
			if len(v) > runner.MaxValueBytes+64 {
				t.Fatalf("%s %s: value of %d bytes", d.Frame, d.Kind, len(v))
			}
			var s string
			if json.Unmarshal(v, &s) == nil && cutValue.MatchString(s) {
				cut++
			}
		}
	}
	if cut == 0 {
		t.Error("no difference value was cut, want the 6 KB frames cut with their length")
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	// The IUT wrote 1.8 MB; the report keeps a bounded part of it.
	if len(b) > 1<<20 {
		t.Errorf("JSON report of %d bytes, want under 1 MiB", len(b))
	}
}

// TestBudgetTooSmall: a budget that leaves nothing for frames once the
// stderr tail and the findings are set aside is a usage error.
func TestBudgetTooSmall(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "reference", "interrupt-idle")
	cfg.MaxVectorBytes = 20000
	_, err := runner.Run(context.Background(), cfg)
	kiterrtest.WantCode(t, err, kiterr.Usage, "budget")
}

// cutValue is how a cut difference value ends.
var cutValue = regexp.MustCompile(`^\{.*\.\.\. \([0-9]{4} bytes\)$`)

func count(xs []string, x string) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

func tail(s string) string {
	if len(s) > 40 {
		return s[len(s)-40:]
	}
	return s
}
