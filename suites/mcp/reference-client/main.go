// Command reference-client is the conform MCP reference client: an MCP
// client (revision 2025-11-25, stdio) for a later client role of
// suites/mcp, where the IUT is a client and the runner plays a scripted
// server on the client's stdin/stdout. Standard library only, deterministic
// (ids 1, 2, 3, ... in the order written; no clocks, no randomness).
//
//	reference-client [--wait] [TOOL ARGUMENTS-JSON]...
//
// It writes initialize (capabilities roots, sampling, elicitation form),
// and once the result names a revision it supports (Lifecycle, "Version
// Negotiation": otherwise it SHOULD disconnect, so it exits 1; an error
// answer to initialize also ends it with 1) it writes
// notifications/initialized, lists the tools page by page (following
// nextCursor; Pagination), calls each TOOL with its ARGUMENTS-JSON in order
// and exits 0 once every request it sent is answered; with --wait it then
// stays connected until its input ends (the server closed its output,
// Lifecycle "Shutdown" / stdio) and exits 0. A tools/call answered with a
// JSON-RPC error or an isError result is reported on stderr and the client
// goes on. Requests of the server are answered at once: ping {}, roots/list
// one root, sampling/createMessage a fixed assistant text,
// elicitation/create decline, any other method -32601. Notifications of the
// server, and responses with an id it never sent, are read and ignored. End
// of input before every answer came: exit 1. This is the contract of the
// suite's client role (docs/mcp-client.md).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

var supported = map[string]bool{"2025-11-25": true, "2025-06-18": true, "2025-03-26": true, "2024-11-05": true}

type client struct {
	out     *bufio.Writer
	errw    io.Writer
	nextID  int
	pending map[int]string // id -> what it is for ("initialize", "tools/list", "call")
	calls   [][2]string
}

func (c *client) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // every value written is built here
	}
	c.out.Write(append(b, '\n'))
	c.out.Flush()
}

func (c *client) request(kind, method string, params any) {
	c.nextID++
	c.pending[c.nextID] = kind
	m := map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method}
	if params != nil {
		m["params"] = params
	}
	c.write(m)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, in io.Reader, out, errw io.Writer) int {
	wait := len(args) > 0 && args[0] == "--wait"
	if wait {
		args = args[1:]
	}
	if len(args)%2 != 0 {
		fmt.Fprintln(errw, "usage: reference-client [--wait] [TOOL ARGUMENTS-JSON]...")
		return 2
	}
	c := &client{out: bufio.NewWriter(out), errw: errw, pending: map[int]string{}}
	for i := 0; i < len(args); i += 2 {
		if !json.Valid([]byte(args[i+1])) {
			fmt.Fprintf(errw, "reference-client: arguments of %s are not JSON\n", args[i])
			return 2
		}
		c.calls = append(c.calls, [2]string{args[i], args[i+1]})
	}
	c.request("initialize", "initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{"roots": map[string]any{"listChanged": false}, "sampling": map[string]any{}, "elicitation": map[string]any{"form": map[string]any{}}},
		"clientInfo":      map[string]any{"name": "conform-mcp-reference-client", "version": "0.1.0"},
	})
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	finished := false
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			fmt.Fprintf(errw, "reference-client: not a JSON-RPC message: %.200s\n", sc.Text())
			continue
		}
		switch {
		case m.Method != nil && m.ID != nil:
			c.answer(m.ID, *m.Method)
		case m.Method != nil:
			// a notification: nothing to do
		case m.ID != nil && !finished:
			code, done := c.response(m.ID, m.Result, m.Error)
			if done && (code != 0 || !wait) {
				return code
			}
			finished = done
		}
	}
	if finished {
		return 0 // --wait: the server ended the session
	}
	fmt.Fprintln(errw, "reference-client: end of input before every answer came")
	return 1
}

func (c *client) answer(id json.RawMessage, method string) {
	reply := map[string]any{"jsonrpc": "2.0", "id": id}
	switch method {
	case "ping":
		reply["result"] = map[string]any{}
	case "roots/list":
		reply["result"] = map[string]any{"roots": []any{map[string]any{"uri": "file:///conform/root", "name": "conform"}}}
	case "sampling/createMessage":
		reply["result"] = map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "conform sample"}, "model": "conform-reference-client", "stopReason": "endTurn"}
	case "elicitation/create":
		reply["result"] = map[string]any{"action": "decline"}
	default:
		reply["error"] = map[string]any{"code": -32601, "message": "Method not found: " + method}
	}
	c.write(reply)
}

// response handles the answer to one of our requests; done reports that the
// client has finished, with its exit code.
func (c *client) response(rawID json.RawMessage, result, rerr json.RawMessage) (code int, done bool) {
	var id int
	if json.Unmarshal(rawID, &id) != nil {
		return 0, false
	}
	kind, ok := c.pending[id]
	if !ok {
		return 0, false
	}
	delete(c.pending, id)
	if rerr != nil {
		fmt.Fprintf(c.errw, "reference-client: %s answered with error %s\n", kind, rerr)
		if kind == "initialize" {
			return 1, true
		}
	}
	switch kind {
	case "call":
		var r struct {
			IsError bool `json:"isError"`
		}
		if json.Unmarshal(result, &r) == nil && r.IsError {
			fmt.Fprintf(c.errw, "reference-client: tools/call %d: the tool reported an error (isError): %s\n", id, result)
		}
	case "initialize":
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(result, &r) != nil || !supported[r.ProtocolVersion] {
			fmt.Fprintf(c.errw, "reference-client: the server chose protocol version %q, which this client does not speak\n", r.ProtocolVersion)
			return 1, true
		}
		c.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
		c.request("tools/list", "tools/list", nil)
	case "tools/list":
		var r struct {
			NextCursor string `json:"nextCursor"`
		}
		_ = json.Unmarshal(result, &r)
		if r.NextCursor != "" {
			c.request("tools/list", "tools/list", map[string]any{"cursor": r.NextCursor})
			break
		}
		for _, call := range c.calls {
			c.request("call", "tools/call", map[string]any{"name": call[0], "arguments": json.RawMessage(call[1])})
		}
	}
	if len(c.pending) == 0 {
		return 0, true
	}
	return 0, false
}
