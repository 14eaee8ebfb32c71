package suite_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/kiterr/kiterrtest"
	"github.com/conform-kit/conform/internal/suite"
)

// TestEnvDenied: every variable issue 33 names (and their kin found per
// runtime) is denied, in any case; variables a suite may need to configure
// an IUT are not.
func TestEnvDenied(t *testing.T) {
	t.Parallel()
	denied := []string{
		"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "ld_preload", "DYLD_INSERT_LIBRARIES", "GCONV_PATH", "GLIBC_TUNABLES",
		"PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONBREAKPOINT", "PYENV_VERSION", "VIRTUAL_ENV",
		"NODE_OPTIONS", "NODE_PATH", "NODE_EXTRA_CA_CERTS", "npm_config_node_options", "YARN_YARN_PATH",
		"BASH_ENV", "ENV", "SHELLOPTS", "PS4", "ZDOTDIR", "IFS",
		"PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB",
		"RUBYOPT", "RUBYLIB", "GEM_PATH", "BUNDLE_GEMFILE",
		"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH", "JAVA_HOME",
		"LUA_INIT", "LUA_PATH", "LUA_CPATH",
		"GOFLAGS", "GOTOOLCHAIN", "GODEBUG", "CGO_CFLAGS", "RUSTC_WRAPPER", "CARGO_BUILD_RUSTC_WRAPPER",
		"DOTNET_STARTUP_HOOKS", "CORECLR_PROFILER_PATH", "PHPRC", "ERL_FLAGS", "OPENSSL_CONF", "GIT_SSH_COMMAND",
		"PATH", "HOME", "TMPDIR", "XDG_CONFIG_HOME", "CONFORM_ROLE", "CONFORM_IUT_TOKEN", "LESSOPEN",
	}
	for _, name := range denied {
		if rule, reads, ok := suite.EnvDenied(name); !ok || rule == "" || reads == "" {
			t.Errorf("EnvDenied(%q) = %q, %q, %v; want denied with its rule and reader", name, rule, reads, ok)
		}
	}
	for _, name := range []string{"GREETING_SUFFIX", "LANG", "LC_ALL", "TZ", "MCP_SERVER_MODE", "GOMAXPROCS", "GOOGLE_CLOUD_PROJECT", "NO_COLOR", "ENVIRONMENT", "PATHS", "HOMEPAGE"} {
		if rule, _, ok := suite.EnvDenied(name); ok {
			t.Errorf("EnvDenied(%q) denied by %q; want allowed", name, rule)
		}
	}
}

// TestFileDenied: what runtimes load from the working directory at start-up
// or by name is denied anywhere in a files path; data files are not.
func TestFileDenied(t *testing.T) {
	t.Parallel()
	denied := []string{
		"sitecustomize.py", "usercustomize.py", "json.py", "pkg/__init__.py", "x.pth", "m.pyc", "__pycache__/m.cpython-311.pyc", "_ext.cpython-311-x86_64-linux-gnu.so", "libx.so.1",
		"node_modules/foo/index.js", "x.js", "x.mjs", ".npmrc", "package.json", "bunfig.toml", "deno.json", "tsconfig.json",
		"Main.class", "app.jar", ".hotspotrc", "pom.xml",
		"x.rb", "Gemfile", ".bundle/config", "x.pm", "x.pl", "x.sh", ".bashrc", ".profile", ".zshenv",
		"x.lua", "go.mod", ".cargo/config.toml", "Cargo.toml", ".git/config", ".erlang", ".env", ".python-version",
		"Directory.Build.props", "Makefile", "SITECUSTOMIZE.PY", "data/.hidden/x.txt",
	}
	for _, p := range denied {
		if why, ok := suite.FileDenied(p); !ok || why == "" {
			t.Errorf("FileDenied(%q) = %q, %v; want denied with a reason", p, why, ok)
		}
	}
	for _, p := range []string{"in/name.txt", "greeting.txt", "data.json", "frames.jsonl", "notes.md", "image.png", "main.py.txt", "python/readme.txt", "so/file.bin", "files/a.json"} {
		if why, ok := suite.FileDenied(p); ok {
			t.Errorf("FileDenied(%q) denied (%s); want allowed", p, why)
		}
	}
}

// TestVectorsDenied: a vector whose env or files a runtime would run code
// from is invalid suite input with its code, reported at load (so by
// validate, run and golden alike); the vector of issue 33 (PYTHONPATH with
// a sitecustomize.py) is refused for its variable first (the environment
// is checked before the files, so each rule is tried alone elsewhere).
func TestVectorsDenied(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, members string
		code          kiterr.Code
		fragments     []string
	}{
		{"issue 33", `"env": {"PYTHONPATH": "${work}"}, "files": [{"path": "sitecustomize.py", "text": "import os"}],`, kiterr.VectorEnvDenied, []string{"PYTHONPATH"}},
		{"env only", `"env": {"PYTHONPATH": "${work}"},`, kiterr.VectorEnvDenied, []string{"PYTHONPATH", "PYTHON*"}},
		{"env lower case", `"env": {"ld_preload": "x"},`, kiterr.VectorEnvDenied, []string{"ld_preload"}},
		{"kit variable", `"env": {"CONFORM_ROLE": "host"},`, kiterr.VectorEnvDenied, []string{"CONFORM_ROLE"}},
		{"node_modules", `"files": [{"path": "node_modules/x/index.json", "text": "{}"}],`, kiterr.VectorFileDenied, []string{"node_modules"}},
		{"suite copy", `"args": ["${suite:files/hook.py}"],`, kiterr.VectorFileDenied, []string{"files/hook.py"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fsys := tinyFS(t)
			data := strings.Replace(strings.Replace(sessionVector, `"id": "ping"`, `"id": "hostile"`, 1), `"send":`, tc.members+` "send":`, 1)
			fsys["vectors/v1/agent/hostile.json"] = &fstest.MapFile{Data: []byte(data)}
			fsys["files/hook.py"] = &fstest.MapFile{Data: []byte("import os\n")}
			seal(t, fsys)
			s := mustLoad(t, fsys)
			_, bad, err := s.Vectors(&s.Manifest.Versions[0])
			if err != nil {
				t.Fatalf("Vectors: %v", err)
			}
			if len(bad) != 1 {
				t.Fatalf("bad = %v, want exactly one", bad)
			}
			kiterrtest.WantCode(t, bad[0].Err, tc.code, append(tc.fragments, "hostile.json")...)
		})
	}
}
