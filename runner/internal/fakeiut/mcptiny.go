package fakeiut

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"
)

// mcpTiny plays the tiny MCP server of the runner's class tests
// (runner/classes_test.go): behaviour "mcp-tiny" declares no capabilities
// and answers only initialize and ping (MCP 2025-11-25 Basic,
// "Lifecycle"); with the argument --tools it also declares tools and
// serves the suite's echo, add and fail tools
// (suites/mcp/reference/README.md). It is
// the Go port of runner/testdata/mcp-tiny/server.py (which bench/run.sh
// keeps for its Python-server rows) and answers every vector of suites/mcp
// as that script does: TestTinyPortAgrees runs both and compares.
func mcpTiny(behaviour string, args []string) (int, bool) {
	if behaviour != "mcp-tiny" {
		return 0, false
	}
	t := &tiny{tools: slices.Contains(args, "--tools"), out: bufio.NewWriter(os.Stdout)}
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			t.line(line)
			t.out.Flush()
		}
		if err != nil {
			return 0, true
		}
	}
}

// tinyTools is the tools/list result of mcp-tiny-tools, in the order the
// script lists them.
const tinyTools = `[{"name":"echo","description":"Returns its text.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},` +
	`{"name":"add","description":"Adds a and b.","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}},` +
	`{"name":"fail","description":"Always fails.","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}}]`

// tinyVersions are the protocol revisions the tiny server negotiates,
// newest first.
var tinyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

type tiny struct {
	tools bool
	out   *bufio.Writer
}

func (t *tiny) send(v any) {
	b, _ := json.Marshal(v)
	t.out.Write(append(b, '\n'))
}

func (t *tiny) reply(id json.RawMessage, result any) {
	t.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (t *tiny) replyError(id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	t.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
}

// line answers one line as the script's main and handle do.
func (t *tiny) line(line []byte) {
	var v any
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	if d.Decode(&v) != nil || d.Decode(new(any)) != io.EOF {
		t.replyError(nil, -32700, "Parse error")
		return
	}
	if _, ok := v.([]any); ok {
		t.replyError(nil, -32600, "Invalid Request: batches are not supported")
		return
	}
	var raw map[string]json.RawMessage
	msg, isObj := v.(map[string]any)
	if isObj {
		json.Unmarshal(line, &raw) // the ids are echoed as written
	}
	method, methodOK := msg["method"].(string)
	if _, has := msg["method"]; !has {
		methodOK = true
	}
	if !isObj || msg["jsonrpc"] != "2.0" || !methodOK {
		var id json.RawMessage
		if _, isBool := msg["id"].(bool); isObj && (scalarID(msg["id"]) || isBool) {
			id = raw["id"] // Python's isinstance(id, int) holds for true and false here
		}
		t.replyError(id, -32600, "Invalid Request")
		return
	}
	if _, has := msg["method"]; !has {
		return // a response: this server sends no requests
	}
	params, _ := msg["params"].(map[string]any)
	if params == nil {
		params = map[string]any{}
	}
	idv, has := msg["id"]
	if !has {
		return // notifications: initialized, cancelled, unknown ones
	}
	if !scalarID(idv) {
		t.replyError(nil, -32600, "Invalid Request: id must be a string or an integer")
		return
	}
	id := raw["id"]
	switch {
	case method == "initialize":
		version := tinyVersions[0]
		if asked, ok := params["protocolVersion"].(string); ok {
			for _, s := range tinyVersions {
				if s == asked {
					version = asked
				}
			}
		}
		caps := map[string]any{}
		if t.tools {
			caps["tools"] = map[string]any{}
		}
		t.reply(id, map[string]any{"protocolVersion": version, "capabilities": caps,
			"serverInfo": map[string]any{"name": "tiny", "version": "0.4"}})
	case method == "ping":
		t.reply(id, map[string]any{})
	case t.tools && method == "tools/list":
		if _, ok := params["cursor"]; ok {
			t.replyError(id, -32602, "invalid cursor")
			return
		}
		t.reply(id, map[string]any{"tools": json.RawMessage(tinyTools)})
	case t.tools && method == "tools/call":
		result, code, message := tinyCall(params)
		if code != 0 {
			t.replyError(id, code, message)
			return
		}
		t.reply(id, result)
	default:
		t.replyError(id, -32601, "Method not found: "+method)
	}
}

// scalarID reports whether v is an id the script accepts: a string or an
// integer (a JSON number without fraction or exponent; Python's json reads
// only those as int).
func scalarID(v any) bool {
	switch v := v.(type) {
	case string:
		return true
	case json.Number:
		return !strings.ContainsAny(string(v), ".eE")
	}
	return false
}

// tinyCall runs one tools/call: its result, or a JSON-RPC error code and
// message (code 0: none).
func tinyCall(params map[string]any) (any, int, string) {
	name, ok := params["name"].(string)
	if !ok {
		return nil, -32602, "name is required"
	}
	args := map[string]any{}
	if a, has := params["arguments"]; has {
		if args, ok = a.(map[string]any); !ok {
			return nil, -32602, "arguments must be an object"
		}
	}
	var required []string
	var props []string // in the script's order
	types := map[string]string{}
	switch name {
	case "echo":
		required, props, types = []string{"text"}, []string{"text"}, map[string]string{"text": "string"}
	case "add":
		required, props, types = []string{"a", "b"}, []string{"a", "b"}, map[string]string{"a": "number", "b": "number"}
	case "fail":
		props, types = []string{"message"}, map[string]string{"message": "string"}
	default:
		return nil, -32602, "unknown tool: " + name
	}
	for _, r := range required {
		if _, has := args[r]; !has {
			return toolError("missing argument: " + r), 0, ""
		}
	}
	for _, key := range props {
		v, has := args[key]
		if !has {
			continue
		}
		var ok bool
		if types[key] == "string" {
			_, ok = v.(string)
		} else {
			_, ok = v.(json.Number)
		}
		if !ok {
			return toolError("argument " + key + " must be a " + types[key]), 0, ""
		}
	}
	switch name {
	case "echo":
		return textResult(args["text"].(string)), 0, ""
	case "add":
		return textResult(pySum(args["a"].(json.Number), args["b"].(json.Number))), 0, ""
	}
	// Python's `args.get("message") or default`: an empty message takes the default.
	if m, _ := args["message"].(string); m != "" {
		return toolError(m), 0, ""
	}
	return toolError("the fail tool always fails"), 0, ""
}

func textResult(text string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
}

// toolError is an input validation error: a tool execution error the model
// can read (MCP 2025-11-25 Server, "Tools" / "Error Handling").
func toolError(text string) map[string]any {
	r := textResult(text)
	r["isError"] = true
	return r
}

// pySum is the script's number_text(a + b): integers add exactly; a sum
// with a float is a float, written without fraction when it is integral
// and below 1e15, else as Python's repr writes a float.
func pySum(a, b json.Number) string {
	isInt := func(n json.Number) bool { return !strings.ContainsAny(string(n), ".eE") }
	if isInt(a) && isInt(b) {
		x, _ := new(big.Int).SetString(string(a), 10)
		y, _ := new(big.Int).SetString(string(b), 10)
		return x.Add(x, y).String()
	}
	x, _ := strconv.ParseFloat(string(a), 64)
	y, _ := strconv.ParseFloat(string(b), 64)
	s := x + y
	if s == math.Trunc(s) && math.Abs(s) < 1e15 {
		return strconv.FormatInt(int64(s), 10) // str(int(x)): -0.0 is "0"
	}
	return pyRepr(s)
}

// pyRepr writes f as Python's repr does: the shortest digits that read
// back, positional when the decimal exponent is in [-4, 16), else
// exponential with a signed exponent of at least two digits.
func pyRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp >= -4 && exp < 16 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.ContainsAny(s, ".") {
			s += ".0"
		}
		return s
	}
	return e
}
