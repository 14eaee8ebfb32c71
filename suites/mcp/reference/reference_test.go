package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/schema"
	"github.com/google/go-cmp/cmp"
)

// The test binary re-executes itself as the server when this variable is
// set, so every test drives the real program over real pipes.
const serveEnv = "CONFORM_MCP_REFERENCE_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		os.Exit(run(context.Background(), os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// server is one running reference process.
type server struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	all   []string
	mu    sync.Mutex
	done  chan struct{}
}

func start(t *testing.T) *server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = []string{serveEnv + "=1"}
	cmd.Stderr = &bytes.Buffer{}
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 1024), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		defer close(s.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.all = append(s.all, line)
			s.mu.Unlock()
			s.lines <- line
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		<-s.done
		_ = cmd.Wait()
	})
	return s
}

func (s *server) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.stdin, l+"\n"); err != nil {
			s.t.Fatalf("write %q: %v", l, err)
		}
	}
}

// next returns the next line the server writes.
func (s *server) next() string {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatal("the server closed its output")
		}
		return l
	case <-time.After(30 * time.Second):
		s.t.Fatal("no line from the server within 30 s")
	}
	return ""
}

// close ends input, waits for the exit and returns the exit code and the
// lines written after the ones already read.
func (s *server) close() (int, []string) {
	s.t.Helper()
	_ = s.stdin.Close()
	var rest []string
	for l := range s.lines {
		rest = append(rest, l)
	}
	err := s.cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		s.t.Fatal(err)
	}
	return code, rest
}

const initV = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%s","capabilities":%s,"clientInfo":{"name":"test","version":"1"}}}`
const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

func initLine(version string) string { return fmt.Sprintf(initV, version, `{}`) }

// ready starts a server and runs the handshake with the given client
// capabilities.
func ready(t *testing.T, caps string) *server {
	s := start(t)
	s.send(fmt.Sprintf(initV, "2025-11-25", caps), initialized)
	if got := s.next(); !strings.Contains(got, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %s", got)
	}
	return s
}

func decode(t *testing.T, line string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("not JSON: %q: %v", line, err)
	}
	return m
}

func TestVersionNegotiation(t *testing.T) {
	t.Parallel()
	// Lifecycle, "Version Negotiation": the same version if supported, else
	// the latest supported.
	for offered, want := range map[string]string{
		"2025-11-25": "2025-11-25", "2025-06-18": "2025-06-18", "2024-11-05": "2024-11-05",
		"1999-01-01": "2025-11-25", "2026-07-28": "2025-11-25", "2024-10-07": "2025-11-25",
	} {
		t.Run(offered, func(t *testing.T) {
			t.Parallel()
			s := start(t)
			s.send(initLine(offered))
			res := decode(t, s.next())["result"].(map[string]any)
			if res["protocolVersion"] != want {
				t.Errorf("protocolVersion = %v, want %s", res["protocolVersion"], want)
			}
			if code, rest := s.close(); code != 0 || len(rest) != 0 {
				t.Errorf("exit %d, extra lines %q", code, rest)
			}
		})
	}
}

// exchange sends lines after the handshake, closes input and returns every
// line written after the initialize result.
func exchange(t *testing.T, caps string, lines ...string) []string {
	t.Helper()
	s := ready(t, caps)
	s.send(lines...)
	code, rest := s.close()
	if code != 0 {
		t.Fatalf("exit status %d, want 0", code)
	}
	return rest
}

func TestExchanges(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		send  []string
		want  []string // in order
		noNew bool     // start without the handshake
	}{
		{name: "ping", send: []string{`{"jsonrpc":"2.0","id":"p","method":"ping"}`},
			want: []string{`{"jsonrpc":"2.0","id":"p","result":{}}`}},
		{name: "ids-echoed-byte-for-byte", send: []string{
			`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":-0,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":"\u00e9<&>","method":"ping"}`,
			`{"jsonrpc":"2.0","id":"","method":"ping"}`,
			`{"jsonrpc":"2.0","id":"1","method":"ping"}`,
			`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		}, want: []string{
			`{"jsonrpc":"2.0","id":9007199254740993,"result":{}}`,
			`{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}`,
			`{"jsonrpc":"2.0","id":-0,"result":{}}`,
			`{"jsonrpc":"2.0","id":"\u00e9<&>","result":{}}`,
			`{"jsonrpc":"2.0","id":"","result":{}}`,
			`{"jsonrpc":"2.0","id":"1","result":{}}`,
			`{"jsonrpc":"2.0","id":1,"result":{}}`,
		}},
		{name: "jsonrpc-errors", send: []string{
			`{"jsonrpc":"2.0","id":1,"method":"ping"`,
			`[]`,
			`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
			`42`,
			`{"jsonrpc":"1.0","id":2,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":3,"method":7}`,
			`{"jsonrpc":"2.0","id":4,"method":"no/such/method"}`,
			`{"jsonrpc":"2.0","method":"notifications/no-such-notification"}`,
			`{"jsonrpc":"2.0","id":5,"result":{}}`,
			``,
			`{"jsonrpc":"2.0","id":6,"method":"ping","params":[]}`,
		}, want: []string{
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are not part of MCP since 2025-06-18"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are not part of MCP since 2025-06-18"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message must be a JSON object"}}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid Request: jsonrpc must be \"2.0\""}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id must be a string or an integer"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id must be a string or an integer"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id must be a string or an integer"}}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request: method must be a string"}}`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found: no/such/method"}}`,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"Invalid Request: params must be an object"}}`,
		}},
		{name: "tools-pages", send: []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"tools-page-2"}}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"nope"}}`,
		}, want: []string{
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[` +
				`{"description":"Asks the client for roots/list and returns the root URIs, one per line.","inputSchema":{"additionalProperties":false,"type":"object"},"name":"roots"},` +
				`{"description":"Asks the client for sampling/createMessage with the prompt and returns the model's text.","inputSchema":{"properties":{"prompt":{"type":"string"}},"required":["prompt"],"type":"object"},"name":"sample"},` +
				`{"description":"Asks the client for elicitation/create (a form with one string field, name) and returns the action and content.","inputSchema":{"properties":{"message":{"type":"string"}},"required":["message"],"type":"object"},"name":"elicit"},` +
				`{"description":"Sends notifications/message at the given level unless it is below the level set with logging/setLevel (default info).","inputSchema":{"properties":{"level":{"enum":["debug","info","notice","warning","error","critical","alert","emergency"]},"message":{"type":"string"}},"required":["level","message"],"type":"object"},"name":"log"}]}}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: unknown cursor \"nope\""}}`,
		}},
		{name: "tools-call", send: []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":0.1,"b":0.2}}}`,
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"fail","arguments":{"message":"boom"}}}`,
			`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"add","arguments":"1+2"}}`,
			`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":"1","b":2}}}`,
			`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"arguments":{}}}`,
			`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo"}}`,
		}, want: []string{
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"hello","type":"text"}]}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"content":[{"text":"3","type":"text"}]}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"content":[{"text":"0.30000000000000004","type":"text"}]}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"content":[{"text":"boom","type":"text"}],"isError":true}}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params: Unknown tool: nope"}}`,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid params: arguments must be an object"}}`,
			`{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"Invalid arguments for tool add: argument \"a\" must be a number","type":"text"}],"isError":true}}`,
			`{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Invalid params: tools/call needs a name (a string)"}}`,
			`{"jsonrpc":"2.0","id":9,"result":{"content":[{"text":"Invalid arguments for tool echo: missing required argument \"text\"","type":"text"}],"isError":true}}`,
		}},
		{name: "progress-before-result", send: []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"steps":3},"_meta":{"progressToken":12345678901234567890}}}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2}}}`,
		}, want: []string{
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"step 1 of 3","progress":1,"progressToken":12345678901234567890,"total":3}}`,
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"step 2 of 3","progress":2,"progressToken":12345678901234567890,"total":3}}`,
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"step 3 of 3","progress":3,"progressToken":12345678901234567890,"total":3}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"done after 3 steps","type":"text"}]}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"content":[{"text":"done after 2 steps","type":"text"}]}}`,
		}},
		{name: "cancelled-slow-gets-no-response", send: []string{
			`{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"slow","arguments":{"ms":20000}}}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s","reason":"test"}}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"unknown"}}`,
			`{"jsonrpc":"2.0","id":"p","method":"ping"}`,
		}, want: []string{`{"jsonrpc":"2.0","id":"p","result":{}}`}},
		{name: "slow-finishes-after-end-of-input", send: []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"ms":50}}}`,
		}, want: []string{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"slept 50 ms","type":"text"}]}}`}},
		{name: "asks-only-declared-capabilities", send: []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"roots","arguments":{}}}`,
		}, want: []string{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"the client did not declare the roots capability, so roots/list was not sent","type":"text"}],"isError":true}}`}},
		{name: "logging", send: []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"log","arguments":{"level":"debug","message":"d"}}}`,
			`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"log","arguments":{"level":"debug","message":"d"}}}`,
			`{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"loud"}}`,
		}, want: []string{
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"not sent: debug is below info","type":"text"}]}}`,
			`{"jsonrpc":"2.0","id":2,"result":{}}`,
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"d","level":"debug","logger":"conform"}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"content":[{"text":"sent","type":"text"}]}}`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency"}}`,
		}},
		{name: "resources-prompts-completion", send: []string{
			`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"conform://static/zeros.bin"}}`,
			`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"conform://echo/a%20b"}}`,
			`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"conform://nothing"}}`,
			`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"Ada"}}}`,
			`{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"greet"}}`,
			`{"jsonrpc":"2.0","id":6,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"G"}}}`,
			`{"jsonrpc":"2.0","id":7,"method":"resources/subscribe","params":{"uri":"conform://static/hello.txt"}}`,
		}, want: []string{
			`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"blob":"AAAAAA==","mimeType":"application/octet-stream","uri":"conform://static/zeros.bin"}]}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"contents":[{"mimeType":"text/plain","text":"a b","uri":"conform://echo/a%20b"}]}}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"conform://nothing"}}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"description":"Asks the model to greet someone by name.","messages":[{"content":{"text":"Please greet Ada.","type":"text"},"role":"user"}]}}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params: missing required argument \"name\""}}`,
			`{"jsonrpc":"2.0","id":6,"result":{"completion":{"hasMore":false,"total":2,"values":["Grace","Guido"]}}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found: resources/subscribe"}}`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := exchange(t, `{}`, tc.send...)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			checkSchema(t, got)
		})
	}
}

func TestBeforeInitialize(t *testing.T) {
	t.Parallel()
	s := start(t)
	// Lifecycle, "Initialization": pings are allowed before initialize;
	// other requests are refused.
	s.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, initLine("2025-11-25"), initLine("2025-11-25"))
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid Request: the session is not initialized (send initialize first)"}}`,
	}
	got := []string{s.next(), s.next()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := s.next(); !strings.Contains(got, `"protocolVersion":"2025-11-25"`) {
		t.Errorf("initialize: %s", got)
	}
	if got, want := s.next(), `{"jsonrpc":"2.0","id":0,"error":{"code":-32600,"message":"Invalid Request: the session is already initialized"}}`; got != want {
		t.Errorf("second initialize:\n got %s\nwant %s", got, want)
	}
	s.close()
}

// TestAsksTheClient plays the client's side of roots/list,
// sampling/createMessage and elicitation/create.
func TestAsksTheClient(t *testing.T) {
	t.Parallel()
	cases := []struct {
		tool, args, method, answer, want string
	}{
		{"roots", `{}`, "roots/list", `{"roots":[{"uri":"file:///work/a","name":"a"},{"uri":"file:///work/b"}]}`,
			`{"content":[{"text":"file:///work/a\nfile:///work/b","type":"text"}]}`},
		{"sample", `{"prompt":"hi"}`, "sampling/createMessage", `{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m-1","stopReason":"endTurn"}`,
			`{"content":[{"text":"hello (model m-1)","type":"text"}]}`},
		{"elicit", `{"message":"Your name?"}`, "elicitation/create", `{"action":"accept","content":{"name":"Ada"}}`,
			`{"content":[{"text":"accept {\"name\":\"Ada\"}","type":"text"}]}`},
		{"elicit", `{"message":"Your name?"}`, "elicitation/create", `{"action":"decline"}`,
			`{"content":[{"text":"decline","type":"text"}]}`},
	}
	for _, tc := range cases {
		t.Run(tc.tool+"-"+tc.answer[:12], func(t *testing.T) {
			t.Parallel()
			s := ready(t, `{"roots":{},"sampling":{},"elicitation":{"form":{}}}`)
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":%q,"arguments":%s}}`, tc.tool, tc.args))
			req := decode(t, s.next())
			if req["method"] != tc.method || req["id"] != float64(1) {
				t.Fatalf("server request %v, want %s with id 1", req, tc.method)
			}
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":%s}`, tc.answer))
			if got, want := s.next(), `{"jsonrpc":"2.0","id":"call","result":`+tc.want+`}`; got != want {
				t.Errorf("\n got %s\nwant %s", got, want)
			}
			s.close()
			checkSchema(t, s.all)
		})
	}
}

// TestCancelWhileAsking: a cancelled tool withdraws its own request to the
// client and writes no response.
func TestCancelWhileAsking(t *testing.T) {
	t.Parallel()
	s := ready(t, `{"roots":{}}`)
	s.send(`{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":"roots"}}`)
	if req := decode(t, s.next()); req["method"] != "roots/list" {
		t.Fatalf("want roots/list, got %v", req)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"call"}}`)
	want := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"the request that needed it was cancelled","requestId":1}}`
	if got := s.next(); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if code, rest := s.close(); code != 0 || len(rest) != 0 {
		t.Errorf("exit %d, extra lines %q", code, rest)
	}
}

// checkSchema validates every line against schemas/mcp.v1.json.
func checkSchema(t *testing.T, lines []string) {
	t.Helper()
	set := schema.NewSet(os.DirFS(".."))
	root, err := set.Compile("schemas/mcp.v1.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		v, err := canon.Parse([]byte(l))
		if err != nil {
			// canon.Parse refuses integers that binary64 cannot hold
			// (JSON_NUMBER_INEXACT), which MCP ids and progress tokens may
			// be: validate those lines from a json.Number decoding.
			dec := json.NewDecoder(strings.NewReader(l))
			dec.UseNumber()
			if !strings.Contains(err.Error(), "JSON_NUMBER_INEXACT") || dec.Decode(&v) != nil {
				t.Errorf("%s: %v", l, err)
				continue
			}
		}
		if viol := root.Validate(v); viol != nil {
			t.Errorf("%s: %v", l, viol)
		}
	}
}
