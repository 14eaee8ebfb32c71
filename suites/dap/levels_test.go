package dap_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/conform-kit/conform/suites/mcp/levels"
)

// sections are the headings of the DAP 1.71 specification and overview
// pages (repository microsoft/debug-adapter-protocol at commit
// e34479c39ed4973210115872c8e118c097a50d4a) that the suite's sources name:
// a source names a section by its exact title in single quotes.
var sections = map[string]bool{
	// the specification page
	"Base Protocol": true, "ProtocolMessage": true, "Request": true, "Event": true, "Response": true,
	"ErrorResponse": true, "Cancel Request": true, "Events": true, "Initialized Event": true,
	"Output Event": true, "Terminated Event": true, "Requests": true, "Initialize Request": true,
	"ConfigurationDone Request": true, "Launch Request": true, "Attach Request": true,
	"Disconnect Request": true, "Threads Request": true, "Types": true, "Capabilities": true, "Message": true,
	// the overview page
	"Base protocol": true, "Debug Session Start": true, "Initialization": true, "Launching and attaching": true,
	"Debug session end": true,
}

// TestVectorLevels holds every vector of suites/dap to the rule of
// suites/mcp/levels (a quoted RFC 2119 keyword, or a "level: <level>
// because <reason>" marker, gives the level; the DAP text writes its rules
// in lower case, so a required or recommended vector needs a marker) and
// to its sources naming sections of the DAP 1.71 text by their titles.
func TestVectorLevels(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("vectors", "v1", "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no vectors under vectors/v1")
	}
	quotedSection := regexp.MustCompile(`'([^']*)'`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ ID, Level, Source string }
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		t.Run(v.ID, func(t *testing.T) {
			if !strings.HasPrefix(v.Source, "DAP 1.71 ") {
				t.Errorf("%s: source %q does not start with \"DAP 1.71 \"", f, v.Source)
			}
			b, err := levels.Derive(v.Source)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if b.Level != v.Level {
				t.Errorf("%s: level %q, but its source rests on %q (keyword %q, marker %q)", f, v.Level, b.Level, b.Keyword, b.Marker)
			}
			// The quoted sentences may hold single quotes of their own:
			// only the text outside double quotes names sections.
			outside := regexp.MustCompile(`"[^"]*"`).ReplaceAllString(v.Source, "")
			if i := strings.Index(outside, "level: "); i >= 0 {
				outside = outside[:i]
			}
			for _, m := range quotedSection.FindAllStringSubmatch(outside, -1) {
				if !sections[m[1]] {
					t.Errorf("%s: source names section %q, which is no heading of the DAP 1.71 specification or overview this test lists", f, m[1])
				}
			}
		})
	}
}
