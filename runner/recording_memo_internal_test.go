package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	conform "github.com/conform-kit/conform"
)

// TestClassMemoSameFindings: a recording checked with the classification
// memo (recordingCheck.keyLocs) gives the same findings, messages and
// counts as with every line classified the long way (keyLocs nil), on
// lines of every class, passed over, of no class, with ids of every kind
// (strings, numbers, absent, objects), repeated so that the memo is hit,
// in both versions. It fails when the memo keeps a line's id, kind or
// outcome from another line.
func TestClassMemoSameFindings(t *testing.T) {
	s, err := Open(conform.Suite())
	if err != nil {
		t.Fatal(err)
	}
	var ls []string
	for i := range 40 {
		id := fmt.Sprintf("%q", fmt.Sprintf("r%d", i))
		switch i % 4 {
		case 1:
			id = fmt.Sprint(i) // a number: FRAME_SCHEMA, and matched by its own text
		case 2:
			id = `{"x":1}`
		}
		ls = append(ls,
			`{"type":"control_request","request_id":`+id+`,"request":{"subtype":"set_model","model":"sonnet"}}`,
			`{"type":"control_response","response":{"subtype":"success","request_id":`+id+`,"response":{"model":"claude-sonnet-5-5"}}}`,
			`{"type":"control_request","request_id":`+id+`,"request":{"subtype":"interrupt"}}`,
			`{"type":"control_response","response":{"subtype":"error","request_id":`+id+`,"error":"no"}}`,
			`{"type":"control_cancel_request","request_id":`+id+`}`,
			`{"type":"control_response","response":{"subtype":"success","request_id":`+id+`,"response":{"model":5}}}`,
			`{"type":"assistant","message":{}}`,
			`{"type":"no-such-type"}`,
			`{"type":7}`,
			`{"type":"control_request","request":{"subtype":"initialize"}}`,
		)
	}
	rec := strings.Join(ls, "\n") + "\n"
	for _, version := range []int{1, 2} {
		run := func(memo bool) ([]LineFinding, RecordingStats) {
			c, err := newRecordingCheck(s, version, RecordingOptions{Jobs: 2})
			if err != nil {
				t.Fatal(err)
			}
			if !memo {
				c.keyLocs = nil
			} else if c.keyLocs == nil {
				t.Fatal("no key locations: the memo is not used")
			}
			var out []LineFinding
			st, err := c.run(context.Background(), strings.NewReader(rec), func(f LineFinding) { out = append(out, f) })
			if err != nil {
				t.Fatal(err)
			}
			return out, st
		}
		long, longSt := run(false)
		memo, memoSt := run(true)
		if len(long) == 0 {
			t.Fatalf("v%d: no findings at all", version)
		}
		if diff := cmp.Diff(long, memo); diff != "" {
			t.Errorf("v%d findings, long way (-) and with the memo (+):\n%s", version, diff)
		}
		if diff := cmp.Diff(longSt, memoSt); diff != "" {
			t.Errorf("v%d stats (-long +memo):\n%s", version, diff)
		}
	}
}

// TestRecordingStringsOutliveChunks: what outlives a chunk of lines (the
// memo's methods, pending requests' methods and keys, messages) is a copy,
// not the chunk's buffer, which is read again into for later chunks. The
// recording spans many chunks (Jobs 2: the reader reuses a few buffers);
// each request names one of a few methods the schema does not list (so
// the pending set keeps the line's own text), is classified through the
// memo after its first occurrence, and is never answered: every
// REPLY_MISSING at the end must name the request's own id and method,
// with the memo and without it. It fails when the memo keeps a method
// that points into a reused buffer.
func TestRecordingStringsOutliveChunks(t *testing.T) {
	s, err := Open(conform.Suite())
	if err != nil {
		t.Fatal(err)
	}
	const requests = 2000
	pad := strings.Repeat("x", 4000)
	var b strings.Builder
	var want []string
	for k := range requests {
		fmt.Fprintf(&b, `{"type":"control_request","request_id":"u%d","request":{"subtype":"m%d"}}`+"\n", k, k%7)
		fmt.Fprintf(&b, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"%s%d"}]}}`+"\n", pad, k)
		want = append(want, fmt.Sprintf(`id "u%d" (m%d, line %d) was never answered before the end of the recording`, k, k%7, 2*k+1))
	}
	rec := b.String()
	if len(rec) < 8*chunkSize {
		t.Fatalf("the recording is %d bytes: not enough chunks to reuse a buffer", len(rec))
	}
	for _, memo := range []bool{true, false} {
		c, err := newRecordingCheck(s, 1, RecordingOptions{Jobs: 2})
		if err != nil {
			t.Fatal(err)
		}
		if !memo {
			c.keyLocs = nil
		}
		var got []string
		_, err = c.run(context.Background(), strings.NewReader(rec), func(f LineFinding) {
			if f.Code == FindingReplyMissing {
				got = append(got, f.Message)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("memo %v: REPLY_MISSING messages (-want +got):\n%s", memo, diff)
		}
	}
}
