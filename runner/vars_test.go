package runner_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/runner"
)

// varsVector echoes the suite's vars: whole strings take the var's value
// (any type), a var inside a longer string its text, ${work} the IUT's
// working directory (also inside a var's default); its args name a var.
const varsVector = `{"id": "vars-echo", "version": 1, "kind": "session", "level": "required", "role": "server", "description": "vars reach the IUT", "source": "test",
 "files": [{"path": "in/name.txt", "text": "world"}],
 "send": [{"frame": {"id": 5, "method": "stat", "params": {"path": "${var:file}"}}},
          {"frame": {"id": 6, "method": "stat", "params": {"path": "${work}/in/name.txt"}}},
{"frame": {"id": 1, "method": "echo", "params": {"text": "${var:text}"}}},
          {"frame": {"id": 2, "method": "echo", "params": "${var:params}"}},
          {"frame": {"id": 3, "method": "echo", "params": {"text": "${var:uri}"}}},
          {"frame": {"id": 4, "method": "echo", "params": {"text": "say ${var:text} in ${work}"}}}],
 "expect": {"replies": [1, 2, 3, 4, 5, 6]}}
`

// varsSuite is the rpc suite with vars declared and varsVector added, its
// goldens made by the good server with the defaults.
func varsSuite(t *testing.T) string {
	t.Helper()
	dir := fixtureDir(t, "rpc", func(dir string) {
		addVector(t, dir, "vars-echo.json", varsVector)
		editSuiteJSON(t, dir, `"versions":`, `"vars": {
  "text": {"default": "hi", "description": "a word"},
  "params": {"default": {"text": "from an object"}, "description": "echo's params"},
  "uri": {"default": "file://${work}/doc.txt", "description": "the document"},
  "file": {"default": "${work}/in/name.txt", "description": "a file"}},
 "versions":`)
	})
	goldenSuite(t, dir, func(s *runner.Suite) runner.Config { return rpcConfig(t, s, "rpc-good") })
	return dir
}

// TestVars: the frames the IUT is sent carry the vars' values, the
// profile's over the defaults, and ${work} the IUT's own directory; a var
// the suite does not declare is VECTOR_VAR_UNKNOWN.
func TestVars(t *testing.T) {
	t.Parallel()
	dir := varsSuite(t)
	s, err := openDir(t, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	// echoed runs vars-echo and returns the results of the replies it
	// got; with the defaults (vars nil), the run passes: the goldens hold.
	echoed := func(t *testing.T, vars map[string]any) []string {
		t.Helper()
		cfg := rpcConfig(t, s, "rpc-good")
		cfg.Filters, cfg.Vars = []string{"vars-echo"}, vars
		var mu sync.Mutex
		var summary []byte
		cfg.Record = func(r runner.Result, sum []byte) {
			mu.Lock()
			defer mu.Unlock()
			if r.ID == "vars-echo" {
				summary = sum
			}
		}
		rep, err := runner.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		// The report says which values the run used.
		wantText := any("hi")
		if vars != nil {
			wantText = vars["text"]
		}
		if rep.Vars["text"] != wantText {
			t.Errorf("report vars: text = %v, want %v", rep.Vars["text"], wantText)
		}
		for _, r := range rep.Results {
			if vars == nil && (r.Status != runner.Pass || len(r.Findings) > 0) {
				t.Errorf("%s: %s %v", r.ID, r.Status, r.Findings)
			}
		}
		var sum struct {
			Frames []struct {
				Result map[string]any `json:"result"`
			} `json:"frames"`
		}
		if err := json.Unmarshal(summary, &sum); err != nil {
			t.Fatalf("summary %q: %v", summary, err)
		}
		var out []string
		for _, f := range sum.Frames {
			b, _ := json.Marshal(f.Result)
			out = append(out, string(b))
		}
		return out
	}
	check := func(t *testing.T, got []string, word string) {
		t.Helper()
		// The IUT found the files ${work} named (exists: true); the
		// paths it echoes are ${work} again in the summary, so that they
		// are the same in every run.
		want := []string{`{"text":"` + word + `"}`, `{"text":"from an object"}`, `{"text":"file://${work}/doc.txt"}`,
			`{"text":"say ` + word + ` in ${work}"}`, `{"exists":true}`, `{"exists":true}`}
		slices.Sort(want)
		slices.Sort(got)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("replies (-want +got)\n%s", d)
		}
	}
	check(t, echoed(t, nil), "hi")
	check(t, echoed(t, map[string]any{"text": "bonjour"}), "bonjour")

	cfg := rpcConfig(t, s, "rpc-good")
	cfg.Vars = map[string]any{"txet": "x"}
	_, err = runner.Run(context.Background(), cfg)
	if runner.CodeOf(err) != "VECTOR_VAR_UNKNOWN" || !strings.Contains(err.Error(), `var "txet" is not declared`) {
		t.Errorf("undeclared --var: err = %v, want VECTOR_VAR_UNKNOWN", err)
	}
}
