package runner

import "testing"

func TestStderrLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, stderr, want string }{
		{"node", `node:internal/modules/cjs/loader:1228
  throw err;
  ^

Error: Cannot find module '/tmp/conform-iut-1/work/agent.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2
`, `"Error: Cannot find module '/tmp/conform-iut-1/work/agent.js'"`},
		{"python", `Traceback (most recent call last):
  File "/x/agent.py", line 3, in <module>
    import yaml
ModuleNotFoundError: No module named 'yaml'
`, `"ModuleNotFoundError: No module named 'yaml'"`},
		{"java", "Error: Could not find or load main class conform.Adapter\nCaused by: java.lang.ClassNotFoundException: conform.Adapter\n", `"Error: Could not find or load main class conform.Adapter"`},
		{"go", "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n", `"panic: runtime error: index out of range [3] with length 3"`},
		{"rust", "thread 'main' panicked at src/main.rs:3:5:\nboom\nnote: run with `RUST_BACKTRACE=1`\n", `"thread 'main' panicked at src/main.rs:3:5:"`},
		{"no error line", "starting\nlistening on stdin\n", `"listening on stdin"`},
		{"blank", "\n  \n", ""},
		{"control characters are quoted", "Error: bad \x1b[31m\n", `"Error: bad \x1b[31m"`},
	} {
		if got := stderrLine(tc.stderr); got != tc.want {
			t.Errorf("%s: stderrLine = %s, want %s", tc.name, got, tc.want)
		}
	}
}
