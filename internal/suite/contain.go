package suite

import (
	"path"
	"strings"
)

// What a suite may give the IUT beyond its frames: environment variables
// (a vector's env) and files in its working directory (a vector's files,
// and the copies of ${suite:PATH} files). A suite is data: nothing it gives
// the IUT may make a runtime, a loader or a shell run code the suite
// author wrote (issue 33: PYTHONPATH=${work} with a sitecustomize.py ran
// the suite author's code with the caller's rights). The implementer's
// profile (profile.json, Config.Env) is not bound by these lists: it is the
// implementer's own command. docs/containment.md "What a suite may give the
// IUT" gives the threat model and why these are deny lists.

// envRule is one entry of [deniedEnv]: Name is a variable name, or a
// family when it ends in "*" (every name that starts with what comes
// before the star). Names are matched without regard to case (Windows
// environments are case-insensitive, npm reads npm_config_* and
// NPM_CONFIG_* alike). Reads says which program reads it and what it does.
type envRule struct {
	Name  string
	Reads string
}

// deniedEnv lists the environment variables a suite may not set: each
// makes a runtime, the dynamic loader, a shell or a tool an IUT may start
// load or run code, pick the program that runs, or find its configuration
// somewhere else. A language-neutral suite has no use for any of them, so
// families are denied whole, with members that load nothing
// (NODE_EXTRA_CA_CERTS, PYTHONUNBUFFERED) and members not yet invented.
// The list is read only; [EnvDenied] is its one reader.
var deniedEnv = []envRule{
	// The kit's own environment of the IUT.
	{"CONFORM_*", "conform: the IUT's protocol version, role, policy, process token and the reference it starts are the kit's"},
	{"PATH", "every program: which executable a command name runs"},
	{"HOME", "every shell, runtime and tool: where its start-up and configuration files are read (the kit gives each IUT a fresh one)"},
	{"TMPDIR", "the kit: each IUT's temporary directory (overlaid under --isolate)"},
	{"TMP", "Windows programs: the temporary directory"},
	{"TEMP", "Windows programs: the temporary directory"},
	{"XDG_*", "git, pip, npm and most tools: where their configuration and data directories are"},
	{"SHELL", "programs that start a shell: which program that is"},
	{"EDITOR", "programs that start an editor"},
	{"VISUAL", "programs that start an editor"},
	{"PAGER", "programs that start a pager"},
	{"BROWSER", "programs that start a browser"},
	{"LESSOPEN", "less: a command run on every file it opens"},
	{"LESSCLOSE", "less: a command run on every file it closes"},
	{"SSH_ASKPASS", "ssh: a program it runs for a password"},
	{"SUDO_ASKPASS", "sudo: a program it runs for a password"},
	// The dynamic loader and the C library.
	{"LD_*", "the ELF dynamic loader (glibc, musl): LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT load shared objects into every program"},
	{"DYLD_*", "the macOS dynamic loader: DYLD_INSERT_LIBRARIES, DYLD_LIBRARY_PATH"},
	{"GCONV_PATH", "glibc iconv: loads conversion modules (shared objects) from this path"},
	{"GLIBC_TUNABLES", "glibc: tunables parsed by the loader at start-up (CVE-2023-4911)"},
	{"OPENSSL_CONF", "OpenSSL: a configuration file that can load engines and providers (shared objects)"},
	{"OPENSSL_MODULES", "OpenSSL 3: where providers (shared objects) are loaded from"},
	{"OPENSSL_ENGINES", "OpenSSL: where engines (shared objects) are loaded from"},
	{"GTK_MODULES", "GTK: modules (shared objects) loaded into every GTK program"},
	{"GIO_EXTRA_MODULES", "GLib: modules (shared objects) loaded by GIO"},
	{"QT_PLUGIN_PATH", "Qt: where plugins (shared objects) are loaded from"},
	// Shells.
	{"BASH_ENV", "bash: a file sourced by every non-interactive bash"},
	{"ENV", "sh, dash, ksh, bash in POSIX mode: a file sourced at start-up"},
	{"BASH_FUNC_*", "bash: exported functions, defined in every bash started"},
	{"BASHOPTS", "bash: shell options set at start-up"},
	{"SHELLOPTS", "bash: shell options set at start-up (xtrace with PS4 runs command substitutions)"},
	{"PS4", "bash, sh: expanded (command substitutions run) for every traced command"},
	{"PROMPT_COMMAND", "bash: a command run before each prompt"},
	{"IFS", "sh: how every unquoted expansion of a script is split"},
	{"CDPATH", "sh: where cd finds a relative directory"},
	{"ZDOTDIR", "zsh: the directory .zshenv is sourced from by every zsh"},
	{"FPATH", "zsh, ksh: where autoloaded functions are read"},
	// Runtimes.
	{"PYTHON*", "CPython: PYTHONPATH, PYTHONHOME, PYTHONSTARTUP, PYTHONUSERBASE, PYTHONBREAKPOINT, PYTHONINSPECT load or run code"},
	{"PYENV_*", "pyenv: which interpreter its shims run"},
	{"VIRTUAL_ENV", "uv, pip, activate scripts: which environment's packages are used"},
	{"CONDA_*", "conda: which environment's packages are used"},
	{"PIP_*", "pip: where packages are installed from"},
	{"UV_*", "uv: where packages and interpreters come from"},
	{"NODE_*", "Node.js: NODE_OPTIONS (--require, --import, --loader), NODE_PATH, NODE_REPL_EXTERNAL_MODULE"},
	{"NPM_CONFIG_*", "npm: every setting, among them node-options and script-shell"},
	{"YARN_*", "yarn: every setting, among them yarnPath (a program it runs)"},
	{"COREPACK_*", "corepack: which package manager it downloads and runs"},
	{"BUN_*", "Bun: its settings"},
	{"DENO_*", "Deno: its settings, import maps and permissions"},
	{"ELECTRON_RUN_AS_NODE", "Electron: runs the program as Node.js"},
	{"JAVA_*", "Java launchers and wrappers: JAVA_TOOL_OPTIONS (-javaagent), JAVA_HOME, JAVA_OPTS"},
	{"_JAVA_OPTIONS", "the HotSpot VM: options added to every JVM (-javaagent, -cp)"},
	{"JDK_JAVA_OPTIONS", "the java launcher (JDK 9+): options added to every start"},
	{"CLASSPATH", "the JVM: where classes are loaded from"},
	{"MAVEN_*", "Maven: JVM options and arguments"},
	{"GRADLE_*", "Gradle: JVM options and GRADLE_USER_HOME (init scripts)"},
	{"PERL*", "Perl: PERL5OPT (-M), PERL5LIB, PERLLIB, PERL5DB"},
	{"RUBY*", "Ruby: RUBYOPT (-r), RUBYLIB"},
	{"GEM_*", "RubyGems: where gems are loaded from"},
	{"BUNDLE_*", "Bundler: BUNDLE_GEMFILE (Ruby code) and its settings"},
	{"LUA_*", "Lua: LUA_INIT (code run at start-up), LUA_PATH, LUA_CPATH"},
	{"PHPRC", "PHP: where php.ini is read (auto_prepend_file)"},
	{"PHP_INI_SCAN_DIR", "PHP: where more .ini files are read"},
	{"ERL_*", "Erlang: ERL_FLAGS, ERL_AFLAGS, ERL_ZFLAGS, ERL_LIBS"},
	{"ELIXIR_*", "Elixir: ELIXIR_ERL_OPTIONS"},
	{"TCLLIBPATH", "Tcl: where packages are loaded from"},
	{"R_PROFILE", "R: code run at start-up"},
	{"R_PROFILE_USER", "R: code run at start-up"},
	{"R_ENVIRON", "R: environment file read at start-up"},
	{"R_ENVIRON_USER", "R: environment file read at start-up"},
	{"R_LIBS", "R: where packages are loaded from"},
	{"R_LIBS_USER", "R: where packages are loaded from"},
	{"DOTNET_*", ".NET: DOTNET_STARTUP_HOOKS (assemblies run at start-up), DOTNET_ROOT"},
	{"COREHOST_*", ".NET host: tracing and probing"},
	{"CORECLR_*", ".NET: CORECLR_PROFILER_PATH loads a profiler (shared object)"},
	{"COMPLUS_*", ".NET: runtime settings"},
	// Go: the toolchain runs programs (GOFLAGS=-toolexec, GOTOOLCHAIN
	// downloads one, GOAUTH runs a command). GODEBUG loads no code, but
	// several of its settings undo security fixes of the runtime and the
	// standard library (execerrdot, x509 and TLS settings): denied as well.
	{"GOFLAGS", "go: flags of every go command (-toolexec runs a program)"},
	{"GOTOOLCHAIN", "go: downloads and runs another toolchain"},
	{"GOENV", "go: where its settings file is"},
	{"GOROOT", "go: which toolchain runs"},
	{"GOPATH", "go: where modules and programs are"},
	{"GOBIN", "go: where programs are installed"},
	{"GOPROXY", "go: where modules come from"},
	{"GONOPROXY", "go: which modules skip the proxy"},
	{"GOPRIVATE", "go: which modules skip the proxy and checksum database"},
	{"GONOSUMDB", "go: which modules skip the checksum database"},
	{"GONOSUMCHECK", "go: checksum checks"},
	{"GOSUMDB", "go: the checksum database"},
	{"GOINSECURE", "go: modules fetched without TLS"},
	{"GOAUTH", "go: commands run for credentials"},
	{"GOVCS", "go: which version control tools run"},
	{"GOWORK", "go: the workspace file"},
	{"GOEXPERIMENT", "go: toolchain experiments"},
	{"GOCACHE", "go: the build cache (reused outputs)"},
	{"GOMODCACHE", "go: the module cache (module code)"},
	{"GODEBUG", "the Go runtime and standard library: settings that undo security fixes (execerrdot, x509, tls)"},
	{"CGO_*", "cgo: compiler and linker flags (-fplugin loads code)"},
	{"CARGO_*", "cargo: every setting (target runners, rustc wrappers)"},
	{"RUSTC*", "cargo: RUSTC, RUSTC_WRAPPER run another program as the compiler"},
	{"RUSTFLAGS", "rustc: compiler flags"},
	{"RUSTDOCFLAGS", "rustdoc: flags"},
	{"RUSTUP_*", "rustup: which toolchain runs"},
	{"GIT_*", "git: GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF, GIT_CONFIG_* (core.fsmonitor runs a command)"},
}

// EnvDenied reports whether a suite may not set the environment variable
// name, and if so the entry that denies it (a name, or a family ending in
// "*") and what reads the variable. The match ignores case.
func EnvDenied(name string) (rule, reads string, denied bool) {
	up := strings.ToUpper(name)
	for _, r := range deniedEnv {
		if fam, ok := strings.CutSuffix(r.Name, "*"); ok {
			if strings.HasPrefix(up, fam) {
				return r.Name, r.Reads, true
			}
			continue
		}
		if up == r.Name {
			return r.Name, r.Reads, true
		}
	}
	return "", "", false
}

// deniedFileNames are names (of a file or a folder, anywhere in a path) a
// runtime, a package manager or a build tool reads from the working
// directory: configuration that names code to run, or code found by name.
// Lower case; matched without regard to case (macOS and Windows file
// systems ignore it).
var deniedFileNames = []string{
	// Node.js, npm, npx, yarn, pnpm, Bun, Deno, TypeScript runners.
	"node_modules", "package.json", "package-lock.json", "npm-shrinkwrap.json", "pnpm-workspace.yaml",
	"bunfig.toml", "deno.json", "deno.jsonc", "tsconfig.json", "jsconfig.json",
	// Python: uv, pip, pdm, hatch, poetry, venvs.
	"__pycache__", "pyproject.toml", "setup.cfg", "uv.toml", "pyvenv.cfg", "pip.conf", "pipfile",
	// Ruby: Bundler, rake.
	"gemfile", "gems.rb", "rakefile",
	// Go (a toolchain line downloads and runs a toolchain), Rust, Java, .NET, PHP, Erlang, make.
	"go.mod", "go.work", "cargo.toml", "rust-toolchain", "rust-toolchain.toml",
	"pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "gradle.properties",
	"gradlew", "mvnw", "directory.build.props", "directory.build.targets", "directory.packages.props",
	"global.json", "nuget.config", "composer.json", "php.ini", "rebar.config", "mix.exs",
	"makefile", "gnumakefile",
}

// deniedExtensions are the endings of a file name a runtime loads as code
// when it finds the file by name on its search path, which for some of them
// holds the working directory (python -c and -m put it first on sys.path,
// java without a class path loads classes from it, node -e resolves from
// it): source, compiled code and shared objects. Lower case.
var deniedExtensions = []string{
	// Python: modules, compiled modules, extension modules, path files.
	".py", ".pyc", ".pyo", ".pyw", ".pyd", ".pth",
	// Shared objects (dlopen needs no execute bit), Node.js addons.
	".so", ".dylib", ".dll", ".node",
	// JavaScript and TypeScript (Node.js, Bun, Deno).
	".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx",
	// JVM.
	".class", ".jar",
	// Ruby, Perl, Lua, PHP, Tcl, shells.
	".rb", ".pl", ".pm", ".lua", ".php", ".tcl", ".sh", ".bash", ".zsh",
	// Erlang and Elixir.
	".beam", ".erl", ".ex", ".exs",
}

// FileDenied reports whether a suite may not put a file at rel (a clean
// slash-separated path relative to the IUT's working directory), and why.
// Denied: any element that starts with "." (the start-up and
// configuration files of shells, runtimes, package managers and version
// control are hidden files: .bashrc, .npmrc, .yarnrc.yml, .hotspotrc,
// .erlang, .git, .cargo, .mvn, .bundle, .python-version, .env), any element
// named in deniedFileNames, and a file whose name has an ending of
// deniedExtensions (also a versioned shared object, lib.so.1).
func FileDenied(rel string) (why string, denied bool) {
	for _, el := range strings.Split(rel, "/") {
		low := strings.ToLower(el)
		if strings.HasPrefix(low, ".") {
			return "a hidden file or folder (" + el + "): shells, runtimes, package managers and version control read their start-up files and configuration from hidden files", true
		}
		for _, n := range deniedFileNames {
			if low == n {
				return el + " is read by a runtime, package manager or build tool from the working directory", true
			}
		}
	}
	low := strings.ToLower(path.Base(rel))
	for _, ext := range deniedExtensions {
		if strings.HasSuffix(low, ext) || (ext == ".so" && strings.Contains(low, ".so.")) {
			return "a file ending in " + ext + " is code a runtime loads when it finds it by name", true
		}
	}
	return "", false
}
