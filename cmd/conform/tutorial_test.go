package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/testtool"
)

// The tutorial, docs/first-implementation.md, is run as a script so that it
// cannot rot. Its fenced blocks follow these conventions (the tutorial's
// last section says the same for its readers):
//
//   - ```python step=N: an excerpt of examples/python/agent.py that the
//     reader adds in step N. A line "# ..." stands for lines a later step
//     adds there. Together the excerpts are the whole file, each line in
//     exactly one (blank lines aside), so the page shows every line of the
//     example and the example is what the page builds.
//   - ```sh tutorial: commands, one per line, run in order with bash in one
//     working directory, where my-agent/agent.py is the agent as of the
//     latest step shown above the block (its excerpts of steps up to N),
//     examples/ is the clone's and conform is on PATH. A command must exit
//     0, or the status its trailing comment names ("# exits 1").
//   - ```text right after a sh tutorial block: what the block's last command
//     prints on stdout. Each line must appear in that output, in order;
//     a line "..." stands for any lines. Durations "(12 ms)" and the suite
//     digest may differ.
//   - ```json frames: each line is a frame that some vector sends or some
//     golden file holds (compared in canonical form, member order free).
//
// docs/first-mcp-server.md follows the same conventions for its MCP server
// (TestFirstMCPServer), and one more:
//
//   - ```text verdict right after a sh tutorial block: the verdict line the
//     block's last command prints. Its verdict word (CERTIFIED, ...) and
//     its class list in brackets ("[core, tools]") must be those of the
//     last verdict line on stdout.
const tutorialDoc = "docs/first-implementation.md"

// tutorialPage is a page that runs as a script: the page, the example its
// excerpts come from (lang: the excerpts' fence language), where its
// commands find the reader's copy of the example, and the suite files its
// ```json frames blocks are checked against (globs under the root).
type tutorialPage struct {
	doc, example, path, lang string
	frames                   []string
}

// controlTutorial is docs/first-implementation.md.
var controlTutorial = tutorialPage{
	doc: tutorialDoc, example: "examples/python/agent.py", path: "my-agent/agent.py", lang: "python",
	frames: []string{"vectors/v1/*/*.json", "golden/v1/*.json", "golden/v1/host/*.json"},
}

// block is one fenced block of the tutorial.
type block struct {
	info  []string // the info string's fields: language, then attributes
	lines []string
	line  int // where the block's first line is in the document (from 1)
}

// attr returns the value of the attribute key=value, or "".
func (b block) attr(key string) string {
	for _, f := range b.info[min(1, len(b.info)):] {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return v
		}
	}
	return ""
}

func (b block) is(lang string, flag string) bool {
	if len(b.info) == 0 || b.info[0] != lang {
		return false
	}
	if flag == "" {
		return true
	}
	for _, f := range b.info[1:] {
		if f == flag {
			return true
		}
	}
	return false
}

// fencedBlocks returns the fenced blocks of a Markdown document (fences of
// three backticks at the start of a line).
func fencedBlocks(t *testing.T, name, doc string) []block {
	t.Helper()
	var out []block
	var cur *block
	for i, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "```") {
			if cur != nil {
				cur.lines = append(cur.lines, line)
			}
			continue
		}
		if cur != nil {
			out = append(out, *cur)
			cur = nil
			continue
		}
		cur = &block{info: strings.Fields(strings.TrimPrefix(line, "```")), line: i + 2}
	}
	if cur != nil {
		t.Fatalf("%s:%d: fenced block is not closed", name, cur.line-1)
	}
	return out
}

// TestTutorial runs docs/first-implementation.md: its excerpts rebuild the
// example agent step by step, and its commands run against each step and
// print what the page says they print.
func TestTutorial(t *testing.T) {
	t.Parallel()
	runTutorial(t, controlTutorial)
}

// runTutorial runs a page written in the conventions above as a
// testscript, at the root of a scratch directory that links the clone's
// examples/ and suites/.
func runTutorial(t *testing.T, p tutorialPage) {
	t.Helper()
	testtool.Need(t, "bash", "python3", "go") // p.doc's commands
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, p.doc))
	if err != nil {
		t.Fatal(err)
	}
	agent, err := os.ReadFile(filepath.Join(root, p.example))
	if err != nil {
		t.Fatal(err)
	}
	blocks := fencedBlocks(t, p.doc, string(doc))
	checkFrames(t, p, root, blocks)
	steps, err := agentSteps(p, string(agent), blocks)
	if err != nil {
		t.Fatal(err)
	}
	script := tutorialScript(t, p, blocks, steps)
	// Above: the page's frames and steps checked against the suite and the
	// example. Below: the page's commands run, a few seconds of CPU and
	// tens of seconds under load; CI stages 58 and 80 run them.
	testtool.Long(t, "runs "+p.doc+" as written: the example IUT certified step by step")
	dir := t.TempDir()
	file := filepath.Join(dir, "tutorial.txtar")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	goEnv := map[string]string{}
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		goEnv[[]string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT"}[i]] = v
	}
	pyDir := pythonShimDir(t)
	testscript.Run(t, testscript.Params{
		Files: []string{file},
		Setup: func(env *testscript.Env) error {
			for k, v := range goEnv {
				env.Setenv(k, v)
			}
			if pyDir != "" {
				env.Setenv("PATH", pyDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			}
			// The Go example has no dependencies: nothing is downloaded.
			env.Setenv("GOTOOLCHAIN", "local")
			env.Setenv("GOPROXY", "off")
			env.Setenv("GOFLAGS", "")
			env.Setenv("CONFORM_CACHE", testCache)
			env.Setenv(referenceEnv, testReference)
			for _, d := range []string{"examples", "suites"} {
				if err := os.Symlink(filepath.Join(root, d), filepath.Join(env.WorkDir, d)); err != nil {
					return err
				}
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"shows":   cmdShows,
			"verdict": cmdVerdict,
		},
	})
}

// checkFrames checks that every line of the ```json frames blocks is a
// frame of the suite: one a vector sends or a golden file holds.
func checkFrames(t *testing.T, p tutorialPage, root string, blocks []block) {
	t.Helper()
	known := map[string]bool{}
	add := func(v any) {
		if b, err := canon.Canonical(v); err == nil {
			known[string(b)] = true
		}
	}
	for _, pattern := range p.frames {
		files, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil || len(files) == 0 {
			t.Fatalf("no suite files match %s: %v", pattern, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			v, err := canon.Parse(b)
			if err != nil {
				continue
			}
			obj, _ := v.(map[string]any)
			if frames, ok := obj["frames"].([]any); ok {
				for _, fr := range frames {
					add(fr)
				}
			}
			send, _ := obj["send"].([]any)
			for _, s := range send {
				item, _ := s.(map[string]any)
				if fr, ok := item["frame"]; ok {
					add(fr)
				}
			}
		}
	}
	n := 0
	for _, b := range blocks {
		if !b.is("json", "frames") {
			continue
		}
		for i, line := range b.lines {
			if strings.TrimSpace(line) == "" {
				continue
			}
			n++
			v, err := canon.Parse([]byte(line))
			if err != nil {
				t.Errorf("%s:%d: not JSON: %v", p.doc, b.line+i, err)
				continue
			}
			c, _ := canon.Canonical(v)
			if !known[string(c)] {
				t.Errorf("%s:%d: frame %s is in no vector or golden file of %v", p.doc, b.line+i, line, p.frames)
			}
		}
	}
	if n == 0 {
		t.Errorf("%s has no ```json frames block", p.doc)
	}
}

// agentSteps rebuilds the example from the page's excerpts: it returns the
// file as of each step (index N: the lines of steps up to N), or an error
// when an excerpt is not in the file or some line of the file is in no
// excerpt.
func agentSteps(p tutorialPage, agent string, blocks []block) (map[int]string, error) {
	lines := strings.Split(strings.TrimSuffix(agent, "\n"), "\n")
	step := make([]int, len(lines)) // 0: not claimed by any excerpt
	last := 0
	for _, b := range blocks {
		if !b.is(p.lang, "") {
			continue
		}
		n, err := strconv.Atoi(b.attr("step"))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s:%d: a %s block needs step=N (N from 1)", p.doc, b.line-1, p.lang)
		}
		last = max(last, n)
		// Segments separated by "# ..." lines, each contiguous in the file,
		// in order.
		var segs [][]string
		cur := []string{}
		for _, l := range trimBlank(b.lines) {
			if strings.HasPrefix(strings.TrimSpace(l), "# ...") {
				segs = append(segs, trimBlank(cur))
				cur = []string{}
				continue
			}
			cur = append(cur, l)
		}
		segs = append(segs, trimBlank(cur))
		from := 0
		for _, seg := range segs {
			if len(seg) == 0 {
				continue
			}
			at := find(lines, step, seg, from)
			if at < 0 {
				return nil, fmt.Errorf("%s:%d: this excerpt of step %d is not in %s (or overlaps another):\n%s", p.doc, b.line-1, n, p.example, strings.Join(seg, "\n"))
			}
			for i := range seg {
				step[at+i] = n
			}
			from = at + len(seg)
		}
	}
	if last == 0 {
		return nil, fmt.Errorf("%s has no ```%s step=N excerpts", p.doc, p.lang)
	}
	var missing []string
	for i, l := range lines {
		if step[i] == 0 && strings.TrimSpace(l) != "" {
			missing = append(missing, fmt.Sprintf("%s:%d: %s", p.example, i+1, l))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("lines of %s the page never shows (add them to an excerpt):\n%s", p.example, strings.Join(missing, "\n"))
	}
	out := map[int]string{}
	for n := 1; n <= last; n++ {
		var b strings.Builder
		for i, l := range lines {
			if step[i] <= n {
				b.WriteString(l + "\n")
			}
		}
		out[n] = b.String()
	}
	return out, nil
}

// find returns where seg occurs in lines, at or after from, on lines no
// excerpt claimed yet; -1 when nowhere.
func find(lines []string, claimed []int, seg []string, from int) int {
next:
	for at := from; at+len(seg) <= len(lines); at++ {
		for i, l := range seg {
			if lines[at+i] != l || claimed[at+i] != 0 {
				continue next
			}
		}
		return at
	}
	return -1
}

func trimBlank(ls []string) []string {
	for len(ls) > 0 && strings.TrimSpace(ls[0]) == "" {
		ls = ls[1:]
	}
	for len(ls) > 0 && strings.TrimSpace(ls[len(ls)-1]) == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// exitComment is a command's expected exit status, "# exits 1".
var exitComment = regexp.MustCompile(`#\s*exits (\d+)\b`)

// tutorialScript turns the page's commands into a testscript: before the
// commands of a step, the reader's agent.py becomes that step's file; each
// command runs through bash with its expected exit status checked; a text
// block after it is checked with shows.
func tutorialScript(t *testing.T, p tutorialPage, blocks []block, steps map[int]string) string {
	t.Helper()
	var script, files strings.Builder
	base := path.Base(p.path)
	script.WriteString("# generated from " + p.doc + "\nmkdir " + path.Dir(p.path) + "\n")
	for n := 1; n <= len(steps); n++ {
		fmt.Fprintf(&files, "-- step%d/%s --\n%s", n, base, steps[n])
	}
	step, written, commands := 0, 0, 0
	for i, b := range blocks {
		if b.is(p.lang, "") {
			n, _ := strconv.Atoi(b.attr("step"))
			step = max(step, n)
			continue
		}
		if !b.is("sh", "tutorial") {
			continue
		}
		if step != written && step > 0 {
			fmt.Fprintf(&script, "cp step%d/%s %s\n", step, base, p.path)
			written = step
		}
		for j, line := range b.lines {
			cmd := strings.TrimSpace(line)
			if cmd == "" || strings.HasPrefix(cmd, "#") {
				continue
			}
			want := 0
			if m := exitComment.FindStringSubmatch(cmd); m != nil {
				want, _ = strconv.Atoi(m[1])
			}
			commands++
			name := fmt.Sprintf("command%d.sh", commands)
			fmt.Fprintf(&script, "\n# %s:%d: %s\nexec bash %s\n", p.doc, b.line+j, cmd, name)
			fmt.Fprintf(&files, "-- %s --\n%s\ns=$?; if [ $s -ne %d ]; then echo \"exit status $s, want %d\" >&2; exit 1; fi\n", name, cmd, want, want)
		}
		if i+1 < len(blocks) && blocks[i+1].is("text", "") {
			check := "shows"
			if blocks[i+1].is("text", "verdict") {
				check = "verdict"
			}
			name := fmt.Sprintf("shown%d.txt", blocks[i+1].line)
			fmt.Fprintf(&script, "%s %s %s:%d\n", check, name, p.doc, blocks[i+1].line)
			fmt.Fprintf(&files, "-- %s --\n%s\n", name, strings.Join(blocks[i+1].lines, "\n"))
		}
	}
	if commands == 0 {
		t.Fatalf("%s has no ```sh tutorial commands", p.doc)
	}
	return script.String() + files.String()
}

// variable parts of conform's output that a page cannot fix.
var (
	durations = regexp.MustCompile(`\(\d+ ms\)`)
	digests   = regexp.MustCompile(`sha256:[0-9a-f]{64}`)
)

func normalizeShown(s string) string {
	s = durations.ReplaceAllString(s, "(N ms)")
	s = digests.ReplaceAllString(s, "sha256:DIGEST")
	return strings.TrimRight(s, " \t\r")
}

// cmdShows is the testscript command "shows FILE WHERE": every line of FILE
// but "..." is a line of the last command's stdout, in order.
func cmdShows(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: shows FILE WHERE")
	}
	var got []string
	for _, l := range strings.Split(ts.ReadFile("stdout"), "\n") {
		got = append(got, normalizeShown(l))
	}
	at := 0
	for _, want := range strings.Split(ts.ReadFile(args[0]), "\n") {
		want = normalizeShown(want)
		if want == "" || want == "..." {
			continue
		}
		for at < len(got) && got[at] != want {
			at++
		}
		if at == len(got) {
			var b bytes.Buffer
			fmt.Fprintf(&b, "%s shows a line the command does not print (or not in this order):\n  %s\nit printed:\n", args[1], want)
			for _, l := range strings.Split(ts.ReadFile("stdout"), "\n") {
				fmt.Fprintf(&b, "  %s\n", l)
			}
			ts.Fatalf("%s", b.String())
		}
		at++
	}
}
