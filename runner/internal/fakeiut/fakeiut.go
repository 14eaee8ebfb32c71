// Package fakeiut holds the fake IUTs of the runner's tests that need
// nothing of the test binary: the reference agent and its misbehaving
// variants, the reference host, the servers of the rpc suite, the hosts
// and agent double of spawned mode, and the tiny MCP server of the class
// tests (mcptiny.go). The tests run them from a small program
// (cmd/fakeiut, built once per test run by TestMain) because each start of
// the test binary, which links the JSON Schema validator, costs about 10 ms
// of CPU more (the validator's package init compiles every draft's
// meta-schema) and the tests start about a thousand of them; the test
// binary plays them too (CONFORM_FAKE_IUT), as it plays the fakes that stay
// with the tests (the zoo, the acceptance fakes, the floods).
package fakeiut

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/conform-kit/conform/internal/double"
	"github.com/conform-kit/conform/reference"
)

// Main plays behaviour on stdin/stdout and returns the exit code, or false
// when behaviour is not one of this package's (see [Plays]). args are the
// program's arguments after its name (and after the test binary's
// -test.run flag); only the agent double reads them.
func Main(behaviour string, args []string) (int, bool) {
	if !Plays(behaviour) {
		return 0, false
	}
	switch behaviour {
	case "host":
		return host(), true
	case "hostv2":
		return hostV2(), true
	}
	if code, ok := rpc(behaviour); ok {
		return code, true
	}
	if code, ok := mcpTiny(behaviour, args); ok {
		return code, true
	}
	if code, ok := framed(behaviour); ok {
		return code, true
	}
	if code, ok := spawn(behaviour, args); ok {
		return code, true
	}
	return Agent(behaviour), true
}

// agentBehaviours are the variants of the reference agent Agent plays.
var agentBehaviours = map[string]bool{
	"reference": true, "linger": true, "wrong": true, "silent": true, "crash": true, "segv": true,
	"schema": true, "notjson": true, "dupkey": true, "idnumber": true, "twice": true,
	"unsolicited": true, "noise": true, "reverse": true, "buffered": true,
}

// Plays reports whether behaviour is one of this package's fakes: "host",
// "hostv2", "rpc-*", "framed-*", "double", "spawn-host*", or a variant of the reference agent.
func Plays(behaviour string) bool {
	switch behaviour {
	case "host", "hostv2", "double", "spawn-host", "spawn-host-nostdio", "spawn-host-malformed", "spawn-host-version-only", "spawn-host-hang", "spawn-host-kill":
		return true
	}
	return strings.HasPrefix(behaviour, "rpc-") || strings.HasPrefix(behaviour, "framed-") || behaviour == "mcp-tiny" || agentBehaviours[behaviour]
}

// Agent plays the reference agent, or the variant behaviour names; a name
// it does not know plays the reference agent with its replies dropped.
func Agent(behaviour string) int {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	agent := reference.NewAgent()
	var held [][]byte
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			reply, herr := agent.Handle(line)
			if herr != nil {
				return 1
			}
			if reply != nil {
				switch behaviour {
				case "reference", "linger":
					out.Write(append(reply, '\n'))
				case "wrong":
					out.Write(append([]byte(strings.Replace(string(reply), `"still_queued":[]`, `"still_queued":["x"]`, 1)), '\n'))
				case "silent":
				case "crash":
					return 3
				case "segv":
					out.Flush()
					p, _ := os.FindProcess(os.Getpid())
					p.Signal(os.Kill)
					time.Sleep(time.Second)
				case "schema":
					var v map[string]any
					json.Unmarshal(reply, &v)
					resp := v["response"].(map[string]any)
					delete(resp, "response")
					resp["subtype"] = "error"
					resp["error"] = map[string]any{"message": "an object, not a string"}
					b, _ := json.Marshal(v)
					out.Write(append(b, '\n'))
				case "notjson":
					out.WriteString("hello, not json\n")
					out.Write(append(reply, '\n'))
				case "dupkey":
					// A duplicate member in every frame: no line is read.
					out.Write(append(bytes.Replace(reply, []byte(`"type":`), []byte(`"type":"control_response","type":`), 1), '\n'))
				case "idnumber":
					// Every string request_id echoed as a number (its
					// digits, or its length): no reply matches.
					out.Write(append(idAsNumber(reply), '\n'))
				case "twice":
					out.Write(append(reply, '\n'))
					out.Write(append(reply, '\n'))
				case "unsolicited":
					out.WriteString(`{"type":"control_response","response":{"subtype":"success","request_id":"never-sent","response":{}}}` + "\n")
					out.Write(append(reply, '\n'))
				case "noise":
					out.WriteString(`{"type":"system","subtype":"status","uuid":"1b4e28ba-2fa1-11d2-883f-0016d3cca427"}` + "\n")
					out.Write(append(reply, '\n'))
				case "reverse", "buffered":
					held = append(held, reply)
				}
			}
			if behaviour == "reverse" && in.Buffered() == 0 {
				for i := len(held) - 1; i >= 0; i-- {
					out.Write(append(held[i], '\n'))
				}
				held = nil
			}
			out.Flush()
		}
		if err != nil {
			// buffered: replies held until stdin closes, as an unflushed
			// stdout on a pipe writes them at exit.
			for _, r := range held {
				out.Write(append(r, '\n'))
			}
			if behaviour == "linger" {
				time.Sleep(time.Hour)
			}
			return 0
		}
	}
}

// idAsNumber rewrites the string response.request_id of reply as a
// number: the string's digits when it has only digits, else its length.
func idAsNumber(reply []byte) []byte {
	var v map[string]any
	if json.Unmarshal(reply, &v) != nil {
		return reply
	}
	resp, _ := v["response"].(map[string]any)
	if id, ok := resp["request_id"].(string); ok {
		if n, err := strconv.Atoi(id); err == nil {
			resp["request_id"] = n
		} else {
			resp["request_id"] = len(id)
		}
	}
	b, _ := json.Marshal(v)
	return b
}

// host plays the reference host (behaviour "host") with the
// vector's CONFORM_POLICY.
func host() int {
	h, err := reference.NewHost([]byte(os.Getenv("CONFORM_POLICY")))
	if err == nil {
		err = h.Serve(context.Background(), os.Stdin, os.Stdout)
	}
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	return 0
}

// hostV2 plays the v2 reference host (behaviour "hostv2") with the
// vector's CONFORM_POLICY.
func hostV2() int {
	h, err := reference.NewHostV2([]byte(os.Getenv("CONFORM_POLICY")))
	if err == nil {
		err = h.Serve(context.Background(), os.Stdin, os.Stdout)
	}
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	return 0
}

// rpc plays a server of the rpc suite; behaviour "rpc-good" follows
// every rule, the others break one.
func rpc(behaviour string) (int, bool) {
	if !strings.HasPrefix(behaviour, "rpc-") {
		return 0, false
	}
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex // the chatter of rpc-chatty-parse writes beside the loop
	write := func(v any) {
		b, _ := json.Marshal(v)
		mu.Lock()
		defer mu.Unlock()
		out.Write(append(b, '\n'))
		out.Flush()
	}
	if behaviour == "rpc-slow-start" {
		// Starts slowly: nothing is read or written for 3 s.
		time.Sleep(3 * time.Second)
	}
	chatter := func(stderr bool) {
		// Progress the runner does not wait for, every 200 ms until the
		// process ends: on stdout (a notification) or on stderr.
		for range time.Tick(200 * time.Millisecond) {
			if stderr {
				os.Stderr.WriteString("working\n")
				continue
			}
			write(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress"})
		}
	}
	reply := func(id any, result any) { write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result}) }
	notify := func(method string) { write(map[string]any{"jsonrpc": "2.0", "method": method}) }
	echoed := false // an echo was answered (the *-at-end fakes end badly only then)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			break
		}
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(string(line)))
		dec.UseNumber()
		if dec.Decode(&m) != nil {
			switch behaviour {
			case "rpc-chatty-parse":
				go chatter(false)
				continue
			case "rpc-stderr-parse":
				go chatter(true)
				continue
			}
			if behaviour != "rpc-silent-parse" {
				write(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": "Parse error"}})
			}
			continue
		}
		id, hasID := m["id"]
		method, _ := m["method"].(string)
		if !hasID {
			continue // a notification: no reply
		}
		switch method {
		case "initialize":
			caps := map[string]any{"echo": map[string]any{}}
			if behaviour != "rpc-no-extra" {
				caps["extra"] = map[string]any{}
			}
			reply(id, map[string]any{"capabilities": caps})
		case "echo":
			p, _ := m["params"].(map[string]any)
			reply(id, map[string]any{"text": p["text"]})
			echoed = true
		case "chatty":
			notify("notifications/message")
			notify("notifications/message")
			reply(id, map[string]any{})
		case "progress":
			if behaviour == "rpc-late-progress" {
				reply(id, map[string]any{})
				notify("notifications/progress")
				continue
			}
			notify("notifications/progress")
			reply(id, map[string]any{})
		case "ready":
			notify("notifications/ready")
			if behaviour == "rpc-double-ready" {
				notify("notifications/ready")
			}
			reply(id, map[string]any{})
		case "ask":
			if behaviour == "rpc-ask-other" {
				write(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": "sampling/create"})
				reply(id, map[string]any{"roots": 0})
				continue
			}
			write(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": "roots/list"})
			ans, err := in.ReadBytes('\n')
			if err != nil {
				return 1, true
			}
			var a struct {
				ID     any `json:"id"`
				Result struct {
					Roots []any `json:"roots"`
				} `json:"result"`
			}
			_ = json.Unmarshal(ans, &a)
			if a.ID != "s1" {
				reply(id, map[string]any{"roots": -1})
				continue
			}
			reply(id, map[string]any{"roots": len(a.Result.Roots)})
		case "started":
			if behaviour == "rpc-quiet-started" {
				reply(id, map[string]any{})
				continue
			}
			if behaviour == "rpc-reverse" {
				reply(id, map[string]any{})
				notify("notifications/started")
				continue
			}
			notify("notifications/started")
			reply(id, map[string]any{})
		case "greet":
			var file string
			if len(os.Args) > 1 {
				b, _ := os.ReadFile(os.Args[len(os.Args)-1])
				file = string(b)
			}
			name, _ := os.ReadFile(filepath.Join("in", "name.txt"))
			reply(id, map[string]any{"text": file + " " + string(name) + os.Getenv("GREETING_SUFFIX")})
		case "hello":
			if behaviour == "rpc-misspelled" {
				reply(id, map[string]any{"helo": "world"})
				continue
			}
			reply(id, map[string]any{"hello": "world"})
		case "extra":
			reply(id, map[string]any{"extra": true})
		case "ask-order":
			// Asks for roots, then reads until the answer comes, noting
			// whether a request of the runner came first (and answering an
			// echo): how a peer rule's after shows.
			write(map[string]any{"jsonrpc": "2.0", "id": "s2", "method": "roots/list"})
			runnerFirst := false
			for {
				ans, err := in.ReadBytes('\n')
				if err != nil {
					return 1, true
				}
				var a map[string]any
				_ = json.Unmarshal(ans, &a)
				if a["id"] == "s2" && a["method"] == nil {
					break
				}
				if meth, _ := a["method"].(string); meth == "echo" {
					runnerFirst = true
					p, _ := a["params"].(map[string]any)
					reply(a["id"], map[string]any{"text": p["text"]})
				}
			}
			reply(id, map[string]any{"runnerFirst": runnerFirst})
		case "session":
			reply(id, map[string]any{"sessionId": "s-1"})
		case "use":
			sid := "s-1"
			if behaviour == "rpc-session-drift" {
				sid = "s-2"
			}
			write(map[string]any{"jsonrpc": "2.0", "method": "notifications/used", "params": map[string]any{"sessionId": sid}})
			reply(id, map[string]any{})
		case "stat":
			// Whether params.path is an absolute path to a file that
			// exists (a path made of ${work}).
			p, _ := m["params"].(map[string]any)
			path, _ := p["path"].(string)
			_, err := os.Stat(path)
			reply(id, map[string]any{"exists": filepath.IsAbs(path) && err == nil})
		case "pingme":
			write(map[string]any{"jsonrpc": "2.0", "id": "p1", "method": "ping"})
			ans, err := in.ReadBytes('\n')
			if err != nil {
				return 1, true
			}
			var a struct {
				ID     any            `json:"id"`
				Result map[string]any `json:"result"`
			}
			_ = json.Unmarshal(ans, &a)
			reply(id, map[string]any{"pinged": a.ID == "p1" && a.Result != nil})
		case "page":
			p, _ := m["params"].(map[string]any)
			switch cursor, _ := p["cursor"].(string); {
			case p == nil:
				next := "c2"
				if behaviour == "rpc-cursor-moves" {
					next = "c3"
				}
				reply(id, map[string]any{"items": []any{1}, "next": next})
			case cursor == "c2" || cursor == "c3":
				reply(id, map[string]any{"items": []any{2}})
			default:
				write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32602, "message": "bad cursor"}})
			}
		default:
			write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32601, "message": "Method not found"}})
		}
	}
	switch behaviour {
	case "rpc-linger":
		time.Sleep(time.Hour)
	case "rpc-exit-1-at-end":
		if echoed { // only after an echo: the preflight passes
			return 1, true
		}
	case "rpc-killed-at-end":
		if p, err := os.FindProcess(os.Getpid()); err == nil && echoed {
			p.Signal(os.Kill)
			time.Sleep(time.Hour)
		}
	}
	return 0, true
}

// spawn plays the fakes of spawned mode: "double" is the agent double
// (what `conform agent-double` runs), "spawn-host*" are hosts that start
// the agent as the SDKs do: the claude found on PATH.
func spawn(behaviour string, args []string) (int, bool) {
	switch behaviour {
	case "double":
		// The wrapper runs: <this program> [-test.run=^$] --plan ... -- <host argv>;
		// args is what follows the program (and the test binary's flag).
		return double.Main(context.Background(), args, os.Stdin, os.Stdout, os.Stderr), true
	case "spawn-host", "spawn-host-nostdio", "spawn-host-malformed", "spawn-host-version-only", "spawn-host-hang", "spawn-host-kill":
		return spawnHost(strings.TrimPrefix(behaviour, "spawn-host")), true
	case "silent":
		io.Copy(io.Discard, os.Stdin)
		return 0, true
	}
	return 0, false
}

// spawnHost is a host in the SDKs' manner: it probes `claude --version`,
// starts `claude` from PATH with the CLI's stream-json flags, sends
// initialize and a user turn, answers the agent's requests with the
// reference host (CONFORM_POLICY) and closes the agent's stdin on the
// result frame. mode "-nostdio" leaves out --permission-prompt-tool stdio,
// "-malformed" answers the first agent request with a broken line,
// "-version-only" stops after the probe, "-hang" never starts the agent
// and "-kill" kills the agent (SIGKILL) as it closes the agent's stdin, as
// PyPI claude-code-sdk 0.0.25 does (it terminates the CLI right after
// closing its stdin).
func spawnHost(mode string) int {
	if mode == "-hang" {
		time.Sleep(time.Hour)
	}
	v, err := exec.Command("claude", "--version").Output()
	if err != nil || string(v) != double.VersionLine {
		fmt.Fprintf(os.Stderr, "version probe: %q %v\n", v, err)
		return 1
	}
	if mode == "-version-only" {
		return 0
	}
	if os.Getenv("CONFORM_AGENT") == "" {
		fmt.Fprintln(os.Stderr, "no CONFORM_AGENT")
		return 1
	}
	h, err := reference.NewHost([]byte(os.Getenv("CONFORM_POLICY")))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	args := []string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json"}
	if mode != "-nostdio" {
		args = append(args, "--permission-prompt-tool", "stdio")
	}
	cmd := exec.Command("claude", args...)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	io.WriteString(in, `{"type":"control_request","request_id":"init-1","request":{"subtype":"initialize"}}`+"\n")
	io.WriteString(in, `{"type":"user","message":{"role":"user","content":"conform"},"parent_tool_use_id":null}`+"\n")
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var f struct {
			Type string `json:"type"`
		}
		json.Unmarshal(sc.Bytes(), &f)
		switch {
		case f.Type == "result" && mode == "-kill":
			// Killed first, then closed: the agent has no moment to
			// finish, whatever the scheduler does.
			cmd.Process.Kill()
			in.Close()
		case f.Type == "result":
			in.Close()
		case f.Type == "control_request" && mode == "-malformed":
			io.WriteString(in, `{"type":"control_response","response":`+"\n")
		default:
			reply, _ := h.Handle(sc.Bytes())
			if reply != nil {
				in.Write(append(reply, '\n'))
			}
		}
	}
	if err := cmd.Wait(); err != nil && mode != "-kill" {
		fmt.Fprintln(os.Stderr, "agent:", err)
		return 1
	}
	return 0
}
