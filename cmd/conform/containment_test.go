//go:build linux

package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/testtool"
	"github.com/conform-kit/conform/runner"
)

// hostileRuntime is one runtime of TestSuiteRunsNoCode: the members a
// hostile vector adds (env, files) so that the runtime runs code of the
// suite's at the IUT's start-up, writing marker, and the IUT command
// (a harmless program of that runtime that reads its stdin).
type hostileRuntime struct {
	name string
	// bin is the runtime's program, looked up on PATH; missing skips
	// (fails under CONFORM_REQUIRE_TOOLS=1, as in CI).
	bin string
	// setup returns the vector members (JSON, each followed by a comma),
	// suite files to add (under files/), and the IUT's command.
	setup func(t *testing.T, exe, marker string) (members string, files map[string][]byte, iut []string)
}

// TestSuiteRunsNoCode: a suite whose vector asks a runtime to run the suite
// author's code at the IUT's start-up, through the environment (PYTHONPATH,
// NODE_OPTIONS, JAVA_TOOL_OPTIONS, PERL5OPT, BASH_ENV, RUBYOPT) or through
// a file the runtime loads from the working directory (sitecustomize.py
// and json.py, node_modules, a .jar, a .pm, a .sh), is invalid suite
// input: validate and run exit 2 with VECTOR_ENV_DENIED or
// VECTOR_FILE_DENIED, and no code of the suite runs (the marker file
// outside the run is never written). Before issue 33 the run went ahead,
// the suite's code wrote the marker with the caller's rights, and the run
// still passed. A runtime missing on this machine is skipped with a
// message.
func TestSuiteRunsNoCode(t *testing.T) {
	t.Parallel()
	bin := childBin(t)
	q := strconv.Quote
	runtimes := []hostileRuntime{
		{"python PYTHONPATH and sitecustomize.py", "python3", func(t *testing.T, exe, marker string) (string, map[string][]byte, []string) {
			// The attack: the script's own directory is sys.path[0],
			// and PYTHONPATH puts the working directory on sys.path before site
			// imports sitecustomize.
			iut := writeTemp(t, "iut.py", "import sys\nsys.stdin.read()\n")
			return `"env": {"PYTHONPATH": "${work}"}, "files": [{"path": "sitecustomize.py", "text": ` + q("open("+q(marker)+", 'w').write('x')\n") + `}],`,
				nil, []string{realPython(t, exe), iut}
		}},
		{"python -c and json.py in the working directory", "python3", func(t *testing.T, exe, marker string) (string, map[string][]byte, []string) {
			// python -c and -m put the working directory first on sys.path:
			// a json.py there shadows the standard library's.
			return `"files": [{"path": "json.py", "text": ` + q("open("+q(marker)+", 'w').write('x')\n") + `}],`,
				nil, []string{realPython(t, exe), "-c", "import json, sys; sys.stdin.read()"}
		}},
		{"node NODE_OPTIONS", "node", func(t *testing.T, exe, marker string) (string, map[string][]byte, []string) {
			return `"env": {"NODE_OPTIONS": "--require ${suite:files/hook.js}"},`,
				map[string][]byte{"files/hook.js": []byte("require('fs').writeFileSync(" + q(marker) + ", 'x')\n")},
				[]string{exe, "-e", "process.stdin.resume()"}
		}},
		{"node node_modules in the working directory", "node", func(t *testing.T, exe, marker string) (string, map[string][]byte, []string) {
			// node -e resolves a bare name from the working directory upward.
			return `"files": [{"path": "node_modules/hook/index.js", "text": ` + q("require('fs').writeFileSync("+q(marker)+", 'x')\n") + `}],`,
				nil, []string{exe, "-e", "try { require('hook') } catch (e) {} process.stdin.resume()"}
		}},
		{"java JAVA_TOOL_OPTIONS and an agent jar", "javac", func(t *testing.T, exe, marker string) (string, map[string][]byte, []string) {
			jar, iut := javaAgent(t, marker)
			return `"env": {"JAVA_TOOL_OPTIONS": "-javaagent:${work}/agent.jar"}, "files": [{"path": "agent.jar", "from": "files/agent.bin"}],`,
				map[string][]byte{"files/agent.bin": jar}, iut
		}},
		{"perl PERL5OPT and a module", "perl", func(t *testing.T, exe, marker string) (string, map[string][]byte, []string) {
			return `"env": {"PERL5OPT": "-Mhook", "PERL5LIB": "${work}"}, "files": [{"path": "hook.pm", "text": ` + q("open(my $f, '>', "+q(marker)+"); 1;\n") + `}],`,
				nil, []string{exe, "-e", "while (<STDIN>) {}"}
		}},
		{"bash BASH_ENV", "bash", func(t *testing.T, exe, marker string) (string, map[string][]byte, []string) {
			return `"env": {"BASH_ENV": "${work}/hook.sh"}, "files": [{"path": "hook.sh", "text": ` + q(": > "+q(marker)+"\n") + `}],`,
				nil, []string{exe, "-c", "cat >/dev/null"}
		}},
		{"ruby RUBYOPT", "ruby", func(t *testing.T, exe, marker string) (string, map[string][]byte, []string) {
			return `"env": {"RUBYOPT": "-r${work}/hook.rb"}, "files": [{"path": "hook.rb", "text": ` + q("File.write("+q(marker)+", 'x')\n") + `}],`,
				nil, []string{exe, "-e", "STDIN.read"}
		}},
	}
	for _, rt := range runtimes {
		t.Run(rt.name, func(t *testing.T) {
			t.Parallel()
			testtool.Need(t, rt.bin) // CI installs each (ruby: scripts/install-ruby.sh) and may not skip
			exe, err := exec.LookPath(rt.bin)
			if err != nil {
				t.Fatal(err)
			}
			if rt.bin == "javac" {
				testtool.Long(t, "compiles and packs a Java agent with javac and jar: seconds of CPU; the other runtimes' cases try the same rule")
			}
			outside := t.TempDir()
			marker := filepath.Join(outside, "suite-code-ran")
			members, files, iut := rt.setup(t, exe, marker)
			dir := hostileSuite(t, members, files)
			// A vector that sets a variable is refused for it first, so that
			// each deny list is tried on its own (the file rule alone would
			// also refuse most of these suites).
			want := "VECTOR_FILE_DENIED"
			if strings.Contains(members, `"env"`) {
				want = "VECTOR_ENV_DENIED"
			}
			for _, args := range [][]string{
				{"validate", "--suite", dir},
				append([]string{"run", "--suite", dir, "--filter", "hostile", "--"}, iut...),
			} {
				out, code, _ := runChild(t, bin, args...)
				if code != 2 || !strings.Contains(out, want) {
					t.Errorf("conform %s: exit %d, want 2 with %s:\n%s", args[0], code, want, tail(out, 1500))
				}
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the suite's code ran: it wrote %s outside the run", marker)
			}
		})
	}
}

// hostileSuite copies the embedded suite to a folder, adds the agent
// vector hostile (members inserted before its send list; it sends one
// frame and expects the IUT to exit 0), its golden file and files, and
// seals the manifest.
func hostileSuite(t *testing.T, members string, extra map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	// The one vector run is the hostile one.
	if err := os.CopyFS(dir, suiteSubset(t)); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"vectors/v1/agent/hostile.json": []byte(`{"id": "hostile", "version": 1, "kind": "session", "level": "required", "role": "agent",` +
			` "description": "runs the suite's code at the IUT's start-up", "source": "issue 33", ` + members +
			` "send": [{"frame": {"type": "control_request", "request_id": "r1", "request": {"subtype": "interrupt"}}}], "expect": {"exit": "zero"}}`),
		"golden/v1/hostile.json": []byte(`{"exit":"zero","frames":[],"vector":"hostile"}`),
	}
	for name, data := range extra {
		files[name] = data
	}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := runner.WriteManifest(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeTemp writes data to a file name in a new temporary folder (outside
// any suite) and returns its path.
func writeTemp(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// realPython returns the interpreter python3 on PATH runs (a version
// manager's shim needs the caller's HOME, which an IUT does not get).
func realPython(t *testing.T, onPath string) string {
	t.Helper()
	out, err := exec.Command(onPath, "-c", "import sys; print(sys.executable)").Output()
	exe := strings.TrimSpace(string(out))
	if err != nil || !filepath.IsAbs(exe) {
		t.Skipf("python3 names no interpreter (%q, %v)", exe, err)
	}
	return exe
}

// javaAgent compiles a Java agent whose premain writes marker, packs it
// into a jar, and compiles a harmless IUT that reads its stdin; it returns
// the jar's bytes and the IUT's command.
func javaAgent(t *testing.T, marker string) ([]byte, []string) {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("java is not installed here")
	}
	jarTool, err := exec.LookPath("jar")
	if err != nil {
		t.Skip("jar is not installed here")
	}
	src, out := t.TempDir(), t.TempDir()
	agent := "public class Agent { public static void premain(String a) throws Exception {" +
		" java.nio.file.Files.writeString(java.nio.file.Path.of(" + strconv.Quote(marker) + "), \"x\"); } }\n"
	iut := "public class Iut { public static void main(String[] a) throws Exception { System.in.readAllBytes(); } }\n"
	for name, text := range map[string]string{"Agent.java": agent, "Iut.java": iut, "manifest.txt": "Premain-Class: Agent\n"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := exec.Command("javac", "-d", out, filepath.Join(src, "Agent.java"), filepath.Join(src, "Iut.java")).CombinedOutput(); err != nil {
		t.Skipf("javac: %v\n%s", err, b)
	}
	jar := filepath.Join(src, "agent.jar")
	if b, err := exec.Command(jarTool, "cfm", jar, filepath.Join(src, "manifest.txt"), "-C", out, "Agent.class").CombinedOutput(); err != nil {
		t.Skipf("jar: %v\n%s", err, b)
	}
	data, err := os.ReadFile(jar)
	if err != nil {
		t.Fatal(err)
	}
	return data, []string{java, "-cp", out, "Iut"}
}

// TestProfileMaySetRuntimeEnv: the implementer's profile is not bound by
// the suite's deny list: a profile's env may set PYTHONPATH (here to its own
// folder, whose sitecustomize.py the interpreter then runs), as real
// profiles set PYTHONDONTWRITEBYTECODE.
func TestProfileMaySetRuntimeEnv(t *testing.T) {
	t.Parallel()
	exe, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed here")
	}
	bin := childBin(t)
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "profile-code-ran")
	files := map[string]string{
		"sitecustomize.py": "open(" + strconv.Quote(marker) + ", 'w').write('x')\n",
		"iut.py":           "import sys\nsys.stdin.read()\n",
		"profile.json": `{"name": "p", "command": [` + strconv.Quote(realPython(t, exe)) + `, "${PROFILE_DIR}/iut.py"],` +
			` "env": {"PYTHONPATH": "${PROFILE_DIR}"}}`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, code, _ := runChild(t, bin, "run", "--profile", dir, "--filter", "interrupt-idle", "--timeout", "5s")
	if code == exitUsage || strings.Contains(out, "DENIED") {
		t.Fatalf("conform run --profile: exit %d:\n%s", code, tail(out, 1500))
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the profile's PYTHONPATH did not reach the IUT (no %s):\n%s", marker, tail(out, 1500))
	}
}

// suiteSubset returns the embedded suite without the vector and golden
// files that keep does not name, itself or by a folder (keep may be
// empty), for a test that runs only a vector or two: copying all of the suite's 900 files took most of
// such a test's CPU (creating inodes). Write the copy's manifest
// (runner.WriteManifest) before loading it.
func suiteSubset(t *testing.T, keep ...string) fs.FS {
	t.Helper()
	out := fstest.MapFS{}
	err := fs.WalkDir(conform.Suite(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		kept := slices.ContainsFunc(keep, func(k string) bool { return p == k || strings.HasPrefix(p, k+"/") })
		if top, _, _ := strings.Cut(p, "/"); (top == "vectors" || top == "golden") && !kept {
			return nil
		}
		b, err := fs.ReadFile(conform.Suite(), p)
		if err != nil {
			return err
		}
		out[p] = &fstest.MapFile{Data: b, Mode: 0o644}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
