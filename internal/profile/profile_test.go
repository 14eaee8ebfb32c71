package profile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/kiterr/kiterrtest"
	"github.com/conform-kit/conform/internal/profile"
)

// writeProfile writes profile.json with body into a fresh directory.
func writeProfile(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, profile.File), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Not parallel: t.Setenv.
func TestLoadExpansion(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("CONFORM_CACHE", cache)
	dir := writeProfile(t, `{
  "name": "fake",
  "implementation": "Fake 1.0",
  "command": ["${PROFILE_DIR}/bin/fake", "--cache=${CONFORM_CACHE}/x", "${HOME}", "${UNKNOWN}", "$PROFILE_DIR", "${PROFILE_DIR}${PROFILE_DIR}", "${profile_dir}"],
  "env": {"A": "${PROFILE_DIR}", "B": "${CONFORM_CACHE}", "H": "${HOME}/.config", "PLAIN": "x"},
  "expectFail": "expected-failures.txt",
  "install": "install.sh",
  "timeout": "10s",
  "notes": "n"
}`)
	p, err := profile.Load(dir)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := &profile.Profile{
		Name:           "fake",
		Implementation: "Fake 1.0",
		Command: []string{
			dir + "/bin/fake", "--cache=" + cache + "/x",
			"${HOME}", "${UNKNOWN}", "$PROFILE_DIR", dir + dir, "${profile_dir}",
		},
		Env:        map[string]string{"A": dir, "B": cache, "H": "${HOME}/.config", "PLAIN": "x"},
		ExpectFail: "expected-failures.txt",
		Install:    "install.sh",
		Timeout:    "10s",
		Notes:      "n",
		Dir:        dir,
	}
	if diff := cmp.Diff(want, p, cmpopts.IgnoreUnexported(profile.Profile{})); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}
	if got := p.TimeoutDuration(); got != 10*time.Second {
		t.Errorf("TimeoutDuration = %v, want 10s", got)
	}
	if got, want := p.ExpectFailPath(), filepath.Join(dir, "expected-failures.txt"); got != want {
		t.Errorf("ExpectFailPath = %q, want %q", got, want)
	}
	if !strings.HasPrefix(p.String(), "fake ("+dir+"/bin/fake --cache=") || !strings.HasSuffix(p.String(), ")") {
		t.Errorf("String = %q", p.String())
	}
}

// Not parallel: t.Chdir and t.Setenv.
func TestLoadRelativeDir(t *testing.T) {
	t.Setenv("CONFORM_CACHE", "/cache")
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "impl", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "impl", "x", profile.File), []byte(`{"name":"x","command":["${PROFILE_DIR}/run"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(base)
	p, err := profile.Load("impl/x")
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs("impl/x")
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(p.Dir) || p.Dir != abs {
		t.Errorf("Dir = %q, want absolute %q", p.Dir, abs)
	}
	if diff := cmp.Diff([]string{abs + "/run"}, p.Command); diff != "" {
		t.Errorf("Command (-want +got):\n%s", diff)
	}
	if p.ExpectFailPath() != "" {
		t.Errorf("ExpectFailPath = %q, want empty", p.ExpectFailPath())
	}
}

// Not parallel: t.Setenv.
func TestCacheDir(t *testing.T) {
	tests := []struct {
		name             string
		cache, xdg, home string
		want             string
	}{
		{"CONFORM_CACHE wins", "/c", "/x", "/h", "/c"},
		{"XDG_CACHE_HOME next", "", "/x", "/h", "/x/conform"},
		{"HOME last", "", "", "/h", "/h/.cache/conform"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CONFORM_CACHE", tc.cache)
			t.Setenv("XDG_CACHE_HOME", tc.xdg)
			t.Setenv("HOME", tc.home)
			if got := profile.CacheDir(); got != tc.want {
				t.Errorf("CacheDir() = %q, want %q", got, tc.want)
			}
		})
	}
}

// Not parallel: t.Setenv.
func TestLoadRealClaudeCodeProfile(t *testing.T) {
	const dir = "../../impl/claude-code"
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("fixture directory %s missing: %v", dir, err)
	}
	t.Setenv("CONFORM_CACHE", "/tmp/conform-cache")
	p, err := profile.Load(dir)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if p.Name != "claude-code-2.1.332" {
		t.Errorf("Name = %q", p.Name)
	}
	if len(p.Command) < 2 || !strings.HasPrefix(p.Command[0], "/tmp/conform-cache/claude-code-2.1.332/") {
		t.Errorf("Command = %q, want the cache-expanded binary first", p.Command)
	}
	for _, a := range p.Command {
		if strings.Contains(a, "${") {
			t.Errorf("unexpanded variable in command argument %q", a)
		}
	}
	if p.Env["ANTHROPIC_API_KEY"] == "" {
		t.Errorf("Env lacks ANTHROPIC_API_KEY: %v", p.Env)
	}
	abs, _ := filepath.Abs(dir)
	if p.Dir != abs {
		t.Errorf("Dir = %q, want %q", p.Dir, abs)
	}
	fails, err := profile.ReadExpectFail(p.ExpectFailPath())
	if err != nil {
		t.Fatalf("ReadExpectFail(%s): %v", p.ExpectFailPath(), err)
	}
	for id, reason := range fails {
		if id == "" || reason == "" {
			t.Errorf("bad entry %q -> %q", id, reason)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		body      string // "" means no profile.json
		fragments []string
	}{
		{"missing file", "", []string{"read profile"}},
		{"not JSON", `{"name":`, []string{"parse"}},
		{"unknown member", `{"name":"x","command":["a"],"comand":["b"]}`, []string{`"comand"`}},
		{"wrong type", `{"name":"x","command":"a b"}`, []string{"parse"}},
		{"empty command", `{"name":"x","command":[]}`, []string{"empty command"}},
		{"missing command", `{"name":"x"}`, []string{"empty command"}},
		{"null command", `{"name":"x","command":null}`, []string{"empty command"}},
		{"zero timeout", `{"name":"x","command":["a"],"timeout":"0s"}`, []string{`timeout "0s" must be a positive duration`}},
		{"negative timeout", `{"name":"x","command":["a"],"timeout":"-5s"}`, []string{`timeout "-5s" must be a positive duration`}},
		{"bare zero timeout", `{"name":"x","command":["a"],"timeout":"0"}`, []string{`timeout "0" must be a positive duration`}},
		{"timeout without unit", `{"name":"x","command":["a"],"timeout":"10"}`, []string{`timeout "10" is not a duration`}},
		{"empty-looking timeout", `{"name":"x","command":["a"],"timeout":" "}`, []string{`timeout " " is not a duration`}},
		{"zero grace", `{"name":"x","command":["a"],"grace":"0s"}`, []string{`grace "0s" must be a positive duration`}},
		{"negative quiet", `{"name":"x","command":["a"],"quiet":"-1s"}`, []string{`quiet "-1s" must be 0 (none) or a positive duration`}},
		{"quiet without unit", `{"name":"x","command":["a"],"quiet":"2"}`, []string{`quiet "2" is not a duration`}},
		{"homepage not a URL", `{"name":"x","command":["a"],"homepage":"file:///etc"}`, []string{`homepage "file:///etc" is not an http or https URL`}},
		{"artifact without name", `{"name":"x","command":["a"],"artifact":{"uri":"https://e.org/a","digest":{"sha256":"` + strings.Repeat("a", 64) + `"}}}`, []string{"artifact has no name"}},
		{"artifact uri", `{"name":"x","command":["a"],"artifact":{"name":"a","uri":"ftp://e.org/a","digest":{"sha256":"` + strings.Repeat("a", 64) + `"}}}`, []string{`artifact uri "ftp://e.org/a"`}},
		{"artifact no digest", `{"name":"x","command":["a"],"artifact":{"name":"a","uri":"https://e.org/a","digest":{}}}`, []string{"artifact has no digest"}},
		{"artifact md5", `{"name":"x","command":["a"],"artifact":{"name":"a","uri":"https://e.org/a","digest":{"md5":"00"}}}`, []string{`"md5" is neither sha256 nor sha512`}},
		{"artifact short sha256", `{"name":"x","command":["a"],"artifact":{"name":"a","uri":"https://e.org/a","digest":{"sha256":"abc"}}}`, []string{"is not 64 lowercase hex digits"}},
		{"artifact upper sha512", `{"name":"x","command":["a"],"artifact":{"name":"a","uri":"https://e.org/a","digest":{"sha512":"` + strings.Repeat("A", 128) + `"}}}`, []string{"is not 128 lowercase hex digits"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tc.body != "" {
				dir = writeProfile(t, tc.body)
			}
			p, err := profile.Load(dir)
			if p != nil {
				t.Errorf("Load returned %+v with an error", p)
			}
			kiterrtest.WantCode(t, err, kiterr.ProfileInvalid, tc.fragments...)
		})
	}
}

// TestLoadTrailingData: profile.json is "bad JSON" when a second value
// follows the object.
func TestLoadTrailingData(t *testing.T) {
	t.Parallel()
	dir := writeProfile(t, `{"name":"x","command":["a"]} {"command":["evil"]}`)
	_, err := profile.Load(dir)
	kiterrtest.WantCode(t, err, kiterr.ProfileInvalid)
}

func TestParseExpectFail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        string
		want      map[string]string
		fragments []string // non-nil: want EXPECT_FILE_INVALID with these
	}{
		{
			name: "entries comments and blank lines",
			in: "# header comment\n\n" +
				"set-model-null # CLI 2.1.332 accepts null\n" +
				"   # indented comment\n" +
				"\t\n" +
				"  interrupt-idle   #   padded reason  \r\n" +
				"stop-task-unknown #reason with # inside\n",
			want: map[string]string{
				"set-model-null":    "CLI 2.1.332 accepts null",
				"interrupt-idle":    "padded reason",
				"stop-task-unknown": "reason with # inside",
			},
		},
		{name: "empty", in: "", want: map[string]string{}},
		{name: "only comments", in: "# a\n#b\n\n", want: map[string]string{}},
		{name: "no final newline", in: "a # r", want: map[string]string{"a": "r"}},
		{name: "reason required", in: "# c\nset-model-null\n", fragments: []string{"exp.txt:2:", `"set-model-null"`, "needs a reason"}},
		{name: "empty reason", in: "a # r\n\n\nb #   \n", fragments: []string{"exp.txt:4:", `"b"`}},
		{name: "duplicate", in: "a # r1\nb # r\na # r2\n", fragments: []string{"exp.txt:3:", "a is listed twice"}},
		{name: "id with space", in: "a # r\nset model # r\n", fragments: []string{"exp.txt:2:", `"set model"`}},
		{name: "id with tab", in: "set\tmodel # r\n", fragments: []string{"exp.txt:1:"}},
		{name: "line too long", in: strings.Repeat("x", 70000) + " # r\n", fragments: []string{"read exp.txt"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := profile.ParseExpectFail(strings.NewReader(tc.in), "exp.txt")
			if tc.fragments != nil {
				if got != nil {
					t.Errorf("ParseExpectFail returned %v with an error", got)
				}
				kiterrtest.WantCode(t, err, kiterr.ExpectFileInvalid, tc.fragments...)
				return
			}
			if err != nil {
				t.Fatalf("ParseExpectFail: %v", err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ParseExpectFail (-want +got):\n%s", diff)
			}
			if got == nil {
				t.Errorf("ParseExpectFail returned a nil map")
			}
		})
	}
}

func TestReadExpectFail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "exp.txt")
	if err := os.WriteFile(p, []byte("a # r\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := profile.ReadExpectFail(p)
	kiterrtest.WantCode(t, err, kiterr.ExpectFileInvalid, p+":2:")

	_, err = profile.ReadExpectFail(filepath.Join(dir, "missing.txt"))
	kiterrtest.WantCode(t, err, kiterr.ExpectFileInvalid, "open expected-failure list")
}

// TestQuietAndGrace: a profile's quiet ("0s" is none, and set) and grace.
func TestQuietAndGrace(t *testing.T) {
	t.Setenv("CONFORM_CACHE", t.TempDir())
	for _, tc := range []struct {
		body         string
		quiet, grace time.Duration
		quietSet     bool
	}{
		{`{"name":"x","command":["a"]}`, 0, 0, false},
		{`{"name":"x","command":["a"],"quiet":"0s","grace":"7s"}`, 0, 7 * time.Second, true},
		{`{"name":"x","command":["a"],"quiet":"1500ms"}`, 1500 * time.Millisecond, 0, true},
	} {
		p, err := profile.Load(writeProfile(t, tc.body))
		if err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		q, set := p.QuietBound()
		if q != tc.quiet || set != tc.quietSet || p.GraceDuration() != tc.grace {
			t.Errorf("%s: quiet %v (set %v), grace %v; want %v (%v), %v", tc.body, q, set, p.GraceDuration(), tc.quiet, tc.quietSet, tc.grace)
		}
	}
}
