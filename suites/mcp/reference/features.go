package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// toolsPageSize is the page size of tools/list: the nine tools come in two
// pages, the second one asked for with the first page's nextCursor
// (Pagination, "Pagination Model": the page size is the server's choice).
const toolsPageSize = 5

// toolsCursor is the opaque cursor of the second tools/list page.
const toolsCursor = "tools-page-2"

type tool struct {
	name        string
	description string
	inputSchema map[string]any
	slow        bool // waits (for time or for the client): runs on its own goroutine
	call        func(ctx context.Context, s *session, args map[string]any, meta requestMeta) (result map[string]any, rerr *rpcError)
}

func obj(props map[string]any, required ...string) map[string]any {
	o := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

var noArgs = map[string]any{"type": "object", "additionalProperties": false}

// tools is the catalogue, in tools/list order. echo and add are the ones
// every SDK server in impl/mcp-* also exposes, with the same input schemas.
var tools = []tool{
	{name: "echo", description: "Returns its text argument as text content.",
		inputSchema: obj(map[string]any{"text": map[string]any{"type": "string"}}, "text"), call: callEcho},
	{name: "add", description: "Adds two numbers and returns the sum as text content.",
		inputSchema: obj(map[string]any{"a": map[string]any{"type": "number"}, "b": map[string]any{"type": "number"}}, "a", "b"), call: callAdd},
	{name: "fail", description: "Always ends in a tool execution error (isError: true) carrying its message.",
		inputSchema: obj(map[string]any{"message": map[string]any{"type": "string"}}), call: callFail},
	{name: "progress", description: "Sends one notifications/progress per step when the request carries a progressToken, then returns.",
		inputSchema: obj(map[string]any{"steps": map[string]any{"type": "integer", "minimum": 1, "maximum": 100}}, "steps"), call: callProgress},
	{name: "slow", description: "Waits ms milliseconds (at most 60000) before returning; notifications/cancelled ends it without a response.",
		inputSchema: obj(map[string]any{"ms": map[string]any{"type": "integer", "minimum": 0, "maximum": 60000}}, "ms"), slow: true, call: callSlow},
	{name: "roots", description: "Asks the client for roots/list and returns the root URIs, one per line.",
		inputSchema: noArgs, slow: true, call: callRoots},
	{name: "sample", description: "Asks the client for sampling/createMessage with the prompt and returns the model's text.",
		inputSchema: obj(map[string]any{"prompt": map[string]any{"type": "string"}}, "prompt"), slow: true, call: callSample},
	{name: "elicit", description: "Asks the client for elicitation/create (a form with one string field, name) and returns the action and content.",
		inputSchema: obj(map[string]any{"message": map[string]any{"type": "string"}}, "message"), slow: true, call: callElicit},
	{name: "log", description: "Sends notifications/message at the given level unless it is below the level set with logging/setLevel (default info).",
		inputSchema: obj(map[string]any{"level": map[string]any{"enum": logLevels}, "message": map[string]any{"type": "string"}}, "level", "message"), call: callLog},
}

func findTool(name string) (tool, bool) {
	for _, t := range tools {
		if t.name == name {
			return t, true
		}
	}
	return tool{}, false
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func ok(s string) map[string]any {
	return map[string]any{"content": []any{text(s)}}
}

// toolError is a tool execution error (Tools, "Error Handling" 2): a result
// with isError true, for input validation and business-logic failures.
func toolError(s string) map[string]any {
	return map[string]any{"content": []any{text(s)}, "isError": true}
}

func invalidParams(msg string) *rpcError {
	return &rpcError{Code: codeInvalidParams, Message: "Invalid params: " + msg}
}

// pageCursor reads the optional cursor of a list request; only want is a
// valid cursor ("" for lists that have one page). Pagination, "Error
// Handling": invalid cursors SHOULD result in -32602.
func pageCursor(params json.RawMessage, want string) (string, *rpcError) {
	if params == nil {
		return "", nil
	}
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return "", invalidParams("cursor must be a string")
	}
	if p.Cursor == nil {
		return "", nil
	}
	if want == "" || *p.Cursor != want {
		return "", invalidParams(fmt.Sprintf("unknown cursor %q", *p.Cursor))
	}
	return *p.Cursor, nil
}

func handleToolsList(_ context.Context, _ *session, params json.RawMessage, _ requestMeta) (any, *rpcError) {
	cursor, rerr := pageCursor(params, toolsCursor)
	if rerr != nil {
		return nil, rerr
	}
	page, next := tools[:toolsPageSize], toolsCursor
	if cursor == toolsCursor {
		page, next = tools[toolsPageSize:], ""
	}
	list := make([]any, 0, len(page))
	for _, t := range page {
		list = append(list, map[string]any{"name": t.name, "description": t.description, "inputSchema": t.inputSchema})
	}
	res := map[string]any{"tools": list}
	if next != "" {
		res["nextCursor"] = next
	}
	return res, nil
}

type callParams struct {
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func readCall(params json.RawMessage) (callParams, *rpcError) {
	var p callParams
	if params == nil || json.Unmarshal(params, &p) != nil || p.Name == nil {
		return p, invalidParams("tools/call needs a name (a string)")
	}
	if p.Arguments != nil && !isObject(p.Arguments) {
		return p, invalidParams("arguments must be an object")
	}
	return p, nil
}

// toolRunsLong reports whether a tools/call waits (see session).
func toolRunsLong(params json.RawMessage) bool {
	p, rerr := readCall(params)
	if rerr != nil {
		return false
	}
	t, ok := findTool(*p.Name)
	return ok && t.slow
}

// handleToolsCall: an unknown tool and params that break CallToolRequest
// are protocol errors (-32602, Tools "Error Handling" 1); arguments that do
// not match the tool's inputSchema are tool execution errors (isError,
// Tools "Error Handling" 2; changelog 2025-11-25 minor change 5).
func handleToolsCall(ctx context.Context, s *session, params json.RawMessage, meta requestMeta) (any, *rpcError) {
	p, rerr := readCall(params)
	if rerr != nil {
		return nil, rerr
	}
	t, found := findTool(*p.Name)
	if !found {
		return nil, invalidParams("Unknown tool: " + *p.Name)
	}
	args := map[string]any{}
	if p.Arguments != nil {
		dec := json.NewDecoder(strings.NewReader(string(p.Arguments)))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			return nil, invalidParams("arguments must be an object")
		}
	}
	if msg := checkArgs(t.inputSchema, args); msg != "" {
		return toolError(fmt.Sprintf("Invalid arguments for tool %s: %s", t.name, msg)), nil
	}
	res, rerr := t.call(ctx, s, args, meta)
	if rerr != nil {
		return nil, rerr
	}
	return res, nil
}

// checkArgs checks args against the small subset of JSON Schema the
// catalogue uses (type, required, enum, minimum, maximum,
// additionalProperties false) and returns "" or what is wrong, naming
// members in sorted order so the message is deterministic.
func checkArgs(schema map[string]any, args map[string]any) string {
	props, _ := schema["properties"].(map[string]any)
	if req, ok := schema["required"].([]string); ok {
		for _, name := range req {
			if _, ok := args[name]; !ok {
				return fmt.Sprintf("missing required argument %q", name)
			}
		}
	}
	if schema["additionalProperties"] == false {
		for name := range args {
			if _, ok := props[name]; !ok {
				return fmt.Sprintf("unexpected argument %q", name)
			}
		}
	}
	for _, name := range sortedKeys(args) {
		ps, ok := props[name].(map[string]any)
		if !ok {
			continue
		}
		v := args[name]
		switch ps["type"] {
		case "string":
			if _, ok := v.(string); !ok {
				return fmt.Sprintf("argument %q must be a string", name)
			}
		case "number", "integer":
			n, ok := v.(json.Number)
			if !ok {
				return fmt.Sprintf("argument %q must be a %s", name, ps["type"])
			}
			f, err := n.Float64()
			if err != nil || math.IsInf(f, 0) {
				return fmt.Sprintf("argument %q must be a finite %s", name, ps["type"])
			}
			if ps["type"] == "integer" && f != math.Trunc(f) {
				return fmt.Sprintf("argument %q must be an integer", name)
			}
			if min, ok := ps["minimum"].(int); ok && f < float64(min) {
				return fmt.Sprintf("argument %q must be at least %d", name, min)
			}
			if max, ok := ps["maximum"].(int); ok && f > float64(max) {
				return fmt.Sprintf("argument %q must be at most %d", name, max)
			}
		}
		if enum, ok := ps["enum"].([]string); ok {
			s, _ := v.(string)
			found := false
			for _, e := range enum {
				found = found || e == s
			}
			if !found {
				return fmt.Sprintf("argument %q must be one of %s", name, strings.Join(enum, ", "))
			}
		}
	}
	return ""
}

func number(args map[string]any, name string) float64 {
	f, _ := args[name].(json.Number).Float64()
	return f
}

func callEcho(_ context.Context, _ *session, args map[string]any, _ requestMeta) (map[string]any, *rpcError) {
	return ok(args["text"].(string)), nil
}

// callAdd writes the sum in the shortest decimal that reads back as the same
// binary64, without exponent for the magnitudes vectors use ("3", "0.5",
// "0.30000000000000004"), as every SDK server of impl/mcp-* does.
func callAdd(_ context.Context, _ *session, args map[string]any, _ requestMeta) (map[string]any, *rpcError) {
	sum := number(args, "a") + number(args, "b")
	return ok(strconv.FormatFloat(sum, 'f', -1, 64)), nil
}

func callFail(_ context.Context, _ *session, args map[string]any, _ requestMeta) (map[string]any, *rpcError) {
	msg, _ := args["message"].(string)
	if msg == "" {
		msg = "the fail tool always fails"
	}
	return toolError(msg), nil
}

func callProgress(_ context.Context, s *session, args map[string]any, meta requestMeta) (map[string]any, *rpcError) {
	steps := int(number(args, "steps"))
	if meta.progressToken != nil {
		for i := 1; i <= steps; i++ {
			// Progress, "Progress Flow": the request's token, a progress
			// value that increases with each notification, total and message.
			s.out.notify("notifications/progress", map[string]any{
				"progressToken": meta.progressToken,
				"progress":      i,
				"total":         steps,
				"message":       fmt.Sprintf("step %d of %d", i, steps),
			})
		}
	}
	return ok(fmt.Sprintf("done after %d steps", steps)), nil
}

func callSlow(ctx context.Context, _ *session, args map[string]any, _ requestMeta) (map[string]any, *rpcError) {
	ms := int(number(args, "ms"))
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return ok(fmt.Sprintf("slept %d ms", ms)), nil
	case <-ctx.Done():
		return nil, nil // cancelled: answer writes nothing
	}
}

// askClient sends a server-to-client request once the client declared the
// capability, and returns its result or a tool execution error.
func askClient(ctx context.Context, s *session, capability, method string, params any) (json.RawMessage, map[string]any) {
	if !s.clientHas(capability) {
		return nil, toolError(fmt.Sprintf("the client did not declare the %s capability, so %s was not sent", capability, method))
	}
	r, err := s.ask(ctx, method, params)
	switch {
	case err != nil:
		return nil, toolError(fmt.Sprintf("%s was not answered: %v", method, err))
	case r.err != nil:
		var e rpcError
		_ = json.Unmarshal(r.err, &e)
		return nil, toolError(fmt.Sprintf("the client answered %s with error %d: %s", method, e.Code, e.Message))
	}
	return r.result, nil
}

func callRoots(ctx context.Context, s *session, _ map[string]any, _ requestMeta) (map[string]any, *rpcError) {
	res, failed := askClient(ctx, s, "roots", "roots/list", nil)
	if failed != nil {
		return failed, nil
	}
	var r struct {
		Roots []struct {
			URI string `json:"uri"`
		} `json:"roots"`
	}
	if json.Unmarshal(res, &r) != nil {
		return toolError("the client's roots/list result has no roots list"), nil
	}
	uris := make([]string, 0, len(r.Roots))
	for _, root := range r.Roots {
		uris = append(uris, root.URI)
	}
	return ok(strings.Join(uris, "\n")), nil
}

func callSample(ctx context.Context, s *session, args map[string]any, _ requestMeta) (map[string]any, *rpcError) {
	res, failed := askClient(ctx, s, "sampling", "sampling/createMessage", map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": text(args["prompt"].(string))}},
		"maxTokens": 100,
	})
	if failed != nil {
		return failed, nil
	}
	var r struct {
		Content struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Model string `json:"model"`
	}
	if json.Unmarshal(res, &r) != nil || r.Content.Type != "text" {
		return toolError("the client's sampling result has no text content"), nil
	}
	return ok(fmt.Sprintf("%s (model %s)", r.Content.Text, r.Model)), nil
}

func callElicit(ctx context.Context, s *session, args map[string]any, _ requestMeta) (map[string]any, *rpcError) {
	res, failed := askClient(ctx, s, "elicitation", "elicitation/create", map[string]any{
		"message": args["message"].(string),
		"requestedSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{"name": map[string]any{"type": "string", "title": "Name"}},
			"required":   []string{"name"},
		},
	})
	if failed != nil {
		return failed, nil
	}
	var r struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(res, &r) != nil || r.Action == "" {
		return toolError("the client's elicitation result has no action"), nil
	}
	if r.Action == "accept" && r.Content != nil {
		return ok(fmt.Sprintf("accept %s", compact(r.Content))), nil
	}
	return ok(r.Action), nil
}

// logLevels in increasing severity (Logging, "Log Levels", RFC 5424).
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func levelIndex(level string) int {
	for i, l := range logLevels {
		if l == level {
			return i
		}
	}
	return -1
}

func callLog(_ context.Context, s *session, args map[string]any, _ requestMeta) (map[string]any, *rpcError) {
	level := args["level"].(string)
	s.mu.Lock()
	threshold := s.logLevel
	s.mu.Unlock()
	if levelIndex(level) < threshold {
		return ok(fmt.Sprintf("not sent: %s is below %s", level, logLevels[threshold])), nil
	}
	s.out.notify("notifications/message", map[string]any{"level": level, "logger": "conform", "data": args["message"]})
	return ok("sent"), nil
}

func handleSetLevel(_ context.Context, s *session, params json.RawMessage, _ requestMeta) (any, *rpcError) {
	var p struct {
		Level string `json:"level"`
	}
	if params == nil || json.Unmarshal(params, &p) != nil || levelIndex(p.Level) < 0 {
		// Logging, "Error Handling": invalid log level -32602.
		return nil, invalidParams("level must be one of " + strings.Join(logLevels, ", "))
	}
	s.mu.Lock()
	s.logLevel = levelIndex(p.Level)
	s.mu.Unlock()
	return map[string]any{}, nil
}

// Resources (Server, "Resources"): two static ones and one template.
type resource struct {
	uri, name, mimeType, text, blob string
}

var resources = []resource{
	{uri: "conform://static/hello.txt", name: "hello.txt", mimeType: "text/plain", text: "Hello, world!"},
	{uri: "conform://static/zeros.bin", name: "zeros.bin", mimeType: "application/octet-stream", blob: "AAAAAA=="},
}

const echoTemplate = "conform://echo/{text}"

func handleResourcesList(_ context.Context, _ *session, params json.RawMessage, _ requestMeta) (any, *rpcError) {
	if _, rerr := pageCursor(params, ""); rerr != nil {
		return nil, rerr
	}
	list := make([]any, 0, len(resources))
	for _, r := range resources {
		list = append(list, map[string]any{"uri": r.uri, "name": r.name, "mimeType": r.mimeType})
	}
	return map[string]any{"resources": list}, nil
}

func handleResourceTemplatesList(_ context.Context, _ *session, params json.RawMessage, _ requestMeta) (any, *rpcError) {
	if _, rerr := pageCursor(params, ""); rerr != nil {
		return nil, rerr
	}
	return map[string]any{"resourceTemplates": []any{map[string]any{
		"uriTemplate": echoTemplate, "name": "echo", "description": "Reads back the text in the URI, percent-decoded.", "mimeType": "text/plain",
	}}}, nil
}

func handleResourcesRead(_ context.Context, _ *session, params json.RawMessage, _ requestMeta) (any, *rpcError) {
	var p struct {
		URI *string `json:"uri"`
	}
	if params == nil || json.Unmarshal(params, &p) != nil || p.URI == nil {
		return nil, invalidParams("resources/read needs a uri (a string)")
	}
	uri := *p.URI
	for _, r := range resources {
		if r.uri == uri {
			c := map[string]any{"uri": r.uri, "mimeType": r.mimeType}
			if r.blob != "" {
				c["blob"] = r.blob
			} else {
				c["text"] = r.text
			}
			return map[string]any{"contents": []any{c}}, nil
		}
	}
	if rest, found := strings.CutPrefix(uri, "conform://echo/"); found && rest != "" && !strings.Contains(rest, "/") {
		if t, err := url.PathUnescape(rest); err == nil {
			return map[string]any{"contents": []any{map[string]any{"uri": uri, "mimeType": "text/plain", "text": t}}}, nil
		}
	}
	// Resources, "Error Handling": resource not found -32002, with the uri.
	return nil, &rpcError{Code: codeResourceNotFound, Message: "Resource not found", Data: map[string]any{"uri": uri}}
}

// Prompts (Server, "Prompts"): one prompt with one required argument.
func handlePromptsList(_ context.Context, _ *session, params json.RawMessage, _ requestMeta) (any, *rpcError) {
	if _, rerr := pageCursor(params, ""); rerr != nil {
		return nil, rerr
	}
	return map[string]any{"prompts": []any{map[string]any{
		"name": "greet", "description": "Asks the model to greet someone by name.",
		"arguments": []any{map[string]any{"name": "name", "description": "Who to greet.", "required": true}},
	}}}, nil
}

func handlePromptsGet(_ context.Context, _ *session, params json.RawMessage, _ requestMeta) (any, *rpcError) {
	var p struct {
		Name      *string           `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if params == nil || json.Unmarshal(params, &p) != nil || p.Name == nil {
		return nil, invalidParams("prompts/get needs a name (a string) and string arguments")
	}
	if *p.Name != "greet" {
		return nil, invalidParams("Unknown prompt: " + *p.Name)
	}
	name, found := p.Arguments["name"]
	if !found {
		return nil, invalidParams(`missing required argument "name"`)
	}
	return map[string]any{
		"description": "Asks the model to greet someone by name.",
		"messages":    []any{map[string]any{"role": "user", "content": text("Please greet " + name + ".")}},
	}, nil
}

var greetNames = []string{"Ada", "Alan", "Grace", "Guido"}

// handleComplete (Server / Utilities, "Completion"): names for the greet
// prompt's argument, by prefix; nothing for the echo template.
func handleComplete(_ context.Context, _ *session, params json.RawMessage, _ requestMeta) (any, *rpcError) {
	var p struct {
		Ref struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
		Argument *struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
	}
	if params == nil || json.Unmarshal(params, &p) != nil || p.Argument == nil {
		return nil, invalidParams("completion/complete needs ref and argument {name, value}")
	}
	values := []string{}
	switch {
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == "greet" && p.Argument.Name == "name":
		for _, n := range greetNames {
			if strings.HasPrefix(n, p.Argument.Value) {
				values = append(values, n)
			}
		}
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == "greet":
	case p.Ref.Type == "ref/resource" && p.Ref.URI == echoTemplate:
	default:
		// Completion, "Error Handling": invalid prompt name -32602.
		return nil, invalidParams("nothing to complete for this ref")
	}
	return map[string]any{"completion": map[string]any{"values": values, "total": len(values), "hasMore": false}}, nil
}
