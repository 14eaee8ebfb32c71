package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/conform-kit/conform/internal/envelope"
	"github.com/conform-kit/conform/internal/testtool"
)

// writingDoc is the page TestWritingASuite runs. Its fenced blocks follow
// these conventions (its last section says the same for its readers):
//
//   - ```LANG file=PATH: a file the reader writes; its text is written to
//     PATH (relative to the working directory) when the page reaches it.
//   - ```sh run: commands, one per line, run in order with bash in one
//     working directory, where examples/ is the clone's and conform and
//     python3 are on PATH. A command must exit 0, or the status its
//     trailing comment names ("# exits 1").
//   - ```sh run slow: the same, for commands that build the example
//     implementations with npm and cargo (which download packages): run
//     only when CONFORM_TEST_BUILDS=1 and not -short, so that `go test
//     ./...` needs no network, npm or cargo; otherwise the test logs
//     "slow blocks skipped", which CI stage 57 (it sets the variable and
//     builds the examples first) fails on.
//   - ```text right after a run block: lines its last command prints on
//     stdout, in order ("..." for any lines; durations and digests may
//     differ), as in TestTutorial.
//   - ```json from=PATH: an excerpt of the repository file PATH: each line,
//     trimmed, is a line of that file, in order.
//   - ```json envelope: an envelope block of suite.json; it must compile.
//   - any other ```json block: one JSON value.
const writingDoc = "docs/writing-a-suite.md"

// buildsEnv is the environment variable that, at "1", lets
// TestWritingASuite run the page's slow blocks (npm and cargo builds,
// which need the network or warm npm and cargo caches).
const buildsEnv = "CONFORM_TEST_BUILDS"

// TestWritingASuite runs docs/writing-a-suite.md: from conform init to a
// certified implementation, a parity gate and the example suites, every
// command as the page shows it.
func TestWritingASuite(t *testing.T) {
	t.Parallel()
	testtool.Need(t, "bash", "python3", "go")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, writingDoc))
	if err != nil {
		t.Fatal(err)
	}
	blocks := fencedBlocks(t, writingDoc, string(doc))
	checkPageJSON(t, root, blocks)

	slow, why := os.Getenv(buildsEnv) == "1", buildsEnv+" is not 1"
	if slow && testing.Short() {
		slow, why = false, "-short"
	}
	if slow {
		testtool.Need(t, "node", "npm", "cargo")
	} else {
		t.Logf("slow blocks skipped (%s): the example reducers are not built or compared here; CI stage 57-example-suites runs them", why)
	}
	home, err := os.UserHomeDir()
	if err != nil && slow {
		t.Fatalf("npm and cargo need a home directory: %v", err)
	}

	script := writingScript(t, blocks, slow)
	// Above: the page's JSON checked against the suite format. Below: its
	// commands run, seconds of CPU; CI stages 57 and 80 run them.
	testtool.Long(t, "runs "+writingDoc+" as written: the example suite built, validated and run")
	dir := t.TempDir()
	file := filepath.Join(dir, "writing-a-suite.txtar")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	goEnv := map[string]string{}
	names := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT"}
	out, err := exec.Command("go", append([]string{"env"}, names...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		goEnv[names[i]] = v
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
			// The producer has no dependencies: nothing is downloaded.
			env.Setenv("GOTOOLCHAIN", "local")
			env.Setenv("GOPROXY", "off")
			env.Setenv("GOFLAGS", "")
			env.Setenv("CONFORM_CACHE", testCache)
			env.Setenv(referenceEnv, testReference)
			if slow {
				// npm's cache and cargo's registry and toolchains are there.
				env.Setenv("HOME", home)
			}
			return os.Symlink(filepath.Join(root, "examples"), filepath.Join(env.WorkDir, "examples"))
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"shows": cmdShows,
		},
	})
}

// checkPageJSON checks the page's JSON blocks: an excerpt (from=PATH) is in
// its file, line by line in order; any other json block is one JSON value.
func checkPageJSON(t *testing.T, root string, blocks []block) {
	t.Helper()
	excerpts := 0
	for _, b := range blocks {
		if !b.is("json", "") {
			continue
		}
		from := b.attr("from")
		if from == "" {
			text := []byte(strings.Join(b.lines, "\n"))
			var v any
			if err := json.Unmarshal(text, &v); err != nil {
				t.Errorf("%s:%d: this json block is not JSON: %v", writingDoc, b.line, err)
			}
			if b.is("json", "envelope") {
				var spec envelope.Spec
				dec := json.NewDecoder(bytes.NewReader(text))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&spec); err != nil {
					t.Errorf("%s:%d: this envelope is not an envelope block: %v", writingDoc, b.line, err)
				} else if _, err := envelope.Compile(spec); err != nil {
					t.Errorf("%s:%d: this envelope does not compile: %v", writingDoc, b.line, err)
				}
			}
			continue
		}
		excerpts++
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path.Clean(from))))
		if err != nil {
			t.Errorf("%s:%d: excerpt of %s: %v", writingDoc, b.line, from, err)
			continue
		}
		var file []string
		for _, l := range strings.Split(string(data), "\n") {
			file = append(file, strings.TrimSpace(l))
		}
		at := 0
		for i, l := range b.lines {
			want := strings.TrimSpace(l)
			if want == "" {
				continue
			}
			for at < len(file) && file[at] != want {
				at++
			}
			if at == len(file) {
				t.Errorf("%s:%d: this line is not in %s (or not in this order): %s", writingDoc, b.line+i, from, want)
				break
			}
			at++
		}
	}
	if excerpts == 0 {
		t.Errorf("%s has no ```json from=PATH excerpt", writingDoc)
	}
}

// writingScript turns the page into a testscript: each file block becomes a
// file copied into place when the page reaches it, each command runs
// through bash with its expected exit status checked, and a text block after
// a run block is checked with shows. Slow run blocks (and the text block
// after one) are left out unless slow.
func writingScript(t *testing.T, blocks []block, slow bool) string {
	t.Helper()
	var script, files strings.Builder
	script.WriteString("# generated by TestWritingASuite from " + writingDoc + "\n")
	commands, written := 0, 0
	for i, b := range blocks {
		if dst := b.attr("file"); dst != "" {
			clean := path.Clean(dst)
			if path.IsAbs(clean) || strings.HasPrefix(clean, "../") || clean == ".." {
				t.Fatalf("%s:%d: file=%s is not a path inside the working directory", writingDoc, b.line-1, dst)
			}
			written++
			src := fmt.Sprintf("page/file%d", written)
			fmt.Fprintf(&script, "\n# %s:%d: the reader writes %s\nmkdir %s\ncp %s %s\n", writingDoc, b.line-1, clean, path.Dir(clean), src, clean)
			fmt.Fprintf(&files, "-- %s --\n%s\n", src, strings.Join(b.lines, "\n"))
			continue
		}
		if !b.is("sh", "run") {
			continue
		}
		isSlow := b.is("sh", "slow")
		if isSlow && !slow {
			fmt.Fprintf(&script, "\n# %s:%d: slow block skipped\n", writingDoc, b.line-1)
			continue
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
			name := fmt.Sprintf("page/command%d.sh", commands)
			fmt.Fprintf(&script, "\n# %s:%d: %s\nexec bash %s\n", writingDoc, b.line+j, cmd, name)
			fmt.Fprintf(&files, "-- %s --\n%s\ns=$?; if [ $s -ne %d ]; then echo \"exit status $s, want %d\" >&2; exit 1; fi\n", name, cmd, want, want)
		}
		if i+1 < len(blocks) && blocks[i+1].is("text", "") {
			name := fmt.Sprintf("page/shown%d.txt", blocks[i+1].line)
			fmt.Fprintf(&script, "shows %s %s:%d\n", name, writingDoc, blocks[i+1].line)
			fmt.Fprintf(&files, "-- %s --\n%s\n", name, strings.Join(blocks[i+1].lines, "\n"))
		}
	}
	if commands == 0 || written == 0 {
		t.Fatalf("%s has no ```sh run commands or no file=PATH blocks", writingDoc)
	}
	return script.String() + files.String()
}
