package canon_test

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/conform-kit/conform/internal/canon"
)

// benchTypical is a typical control_response line as the reference writes
// it (get_binary_version reply plus the uuid and session_id members the CLI
// adds): about 250 bytes.
const benchTypical = `{"type":"control_response","uuid":"1b4e28ba-2fa1-11d2-883f-0016d3cca427","session_id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","response":{"subtype":"success","request_id":"req-1","response":{"version":"2.1.332","buildTime":"2026-11-30T00:00:00Z","oldestDesktopSdk":"0.0.0"}}}`

// benchLarge returns an initialize reply of at least 64 KiB: many commands,
// each a small object, as a CLI with many slash commands answers.
func benchLarge() []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"commands":[`)
	for i := 0; b.Len() < 64<<10; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"command-%d","description":"Runs command number %d with \"quoted\" text and unicode \u00e9\u4e2d","argumentHint":"[arg %d]"}`, i, i, i)
	}
	b.WriteString(`],"models":[{"value":"default","resolvedModel":"claude-opus-5-5"}],"output_style":"default","available_output_styles":["default"],"current_permission_mode":"default","account":{},"agents":[]}}}`)
	return b.Bytes()
}

func benchLines(b *testing.B) map[string][]byte {
	b.Helper()
	return map[string][]byte{"typical": []byte(benchTypical), "64KiB": benchLarge()}
}

// BenchmarkParse measures the strict frame reader on one stdout line.
func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"typical", "64KiB"} {
		line := benchLines(b)[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if _, err := canon.Parse(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCanonical measures RFC 8785 canonicalization of a parsed frame.
func BenchmarkCanonical(b *testing.B) {
	for _, name := range []string{"typical", "64KiB"} {
		line := benchLines(b)[name]
		v, err := canon.Parse(line)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if _, err := canon.Canonical(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCanonicalReference is BenchmarkCanonical through the reference
// path the direct writer replaced (encoding/json's Marshal, then
// jcs.Transform), which Canonical still takes for values the writer does
// not.
func BenchmarkCanonicalReference(b *testing.B) {
	for _, name := range []string{"typical", "64KiB"} {
		line := benchLines(b)[name]
		v, err := canon.Parse(line)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if _, err := canon.CanonicalReference(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCanonicalBytes measures parse plus canonicalize, the path of
// bench/canonbench (bytes in, canonical bytes out).
func BenchmarkCanonicalBytes(b *testing.B) {
	for _, name := range []string{"typical", "64KiB"} {
		line := benchLines(b)[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if _, err := canon.CanonicalBytes(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTape measures the tape reader on the lines of BenchmarkParse
// (one op: one line appended to a tape that is reset when it holds 256 KiB
// of text, as a recording chunk's tape is), to compare with Parse.
func BenchmarkTape(b *testing.B) {
	for _, name := range []string{"typical", "64KiB"} {
		line := string(benchLines(b)[name])
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			var tp canon.Tape
			n := 0
			for b.Loop() {
				if _, ok := tp.Append(line); !ok {
					b.Fatal("not read")
				}
				if n += len(line); n >= 256<<10 {
					tp.Reset()
					n = 0
				}
			}
		})
	}
}

// BenchmarkTapeLargeFrame measures the tape reader on the large frames of
// bench/run.sh section c (an object of 1.6M members and an array of 1M
// small objects, in a pass-over message), read as validate reads them:
// the text appended (checked, folded), then the members on the way to the
// content. B/op over the frame's size is the tape's memory per byte of
// input (B/byte); the text itself is not counted (the caller holds it).
func BenchmarkTapeLargeFrame(b *testing.B) {
	var obj, arr bytes.Buffer
	obj.WriteString("{")
	for i := range 1600000 {
		if i > 0 {
			obj.WriteByte(',')
		}
		fmt.Fprintf(&obj, `"k%d":0`, i)
	}
	obj.WriteString("}")
	arr.WriteString("[")
	for i := range 1000000 {
		if i > 0 {
			arr.WriteByte(',')
		}
		arr.WriteString(`{"a":1}`)
	}
	arr.WriteString("]")
	for _, c := range []struct {
		name    string
		content string
	}{{"object-1.6M", obj.String()}, {"array-1M", arr.String()}} {
		frame := `{"type":"user","message":{"content":` + c.content + `}}`
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				var tp canon.Tape // a large frame's tape is its own
				root, ok := tp.Append(frame)
				if !ok {
					b.Fatal("not read")
				}
				if tp.Member(root, "type") < 0 || tp.Member(tp.Member(root, "message"), "content") < 0 {
					b.Fatal("members not found")
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(frame)), "B/byte")
		})
	}
}
