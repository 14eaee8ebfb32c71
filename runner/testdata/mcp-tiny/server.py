#!/usr/bin/env python3
"""A tiny MCP server over stdio, standard library only, for the runner's
class tests (runner/classes_test.go): by default it declares no capabilities
and answers only the lifecycle and ping (MCP 2025-11-25 Basic, 'Lifecycle');
with --tools it declares the tools capability and has the suite's echo, add
and fail tools (suites/mcp/reference/README.md). conform judges the first on
[core] and the second on [core, tools]."""
import json
import sys

VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
TOOLS = "--tools" in sys.argv[1:]
TOOL_LIST = [
    {"name": "echo", "description": "Returns its text.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    {"name": "add", "description": "Adds a and b.",
     "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}},
    {"name": "fail", "description": "Always fails.",
     "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}}},
]


def send(msg):
    sys.stdout.write(json.dumps(msg, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def error(id_, code, message):
    send({"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}})


def number_text(x):
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def tool_error(text):
    """An input validation error: a tool execution error the model can read
    (Server, 'Tools' / 'Error Handling')."""
    return {"content": [{"type": "text", "text": text}], "isError": True}


def call_tool(params):
    name, args = params.get("name"), params.get("arguments", {})
    if not isinstance(name, str):
        return None, (-32602, "name is required")
    if not isinstance(args, dict):
        return None, (-32602, "arguments must be an object")
    tool = next((t for t in TOOL_LIST if t["name"] == name), None)
    if tool is None:
        return None, (-32602, "unknown tool: " + name)
    for req in tool["inputSchema"].get("required", []):
        if req not in args:
            return tool_error("missing argument: " + req), None
    for key, schema in tool["inputSchema"]["properties"].items():
        if key not in args:
            continue
        v = args[key]
        ok = isinstance(v, str) if schema["type"] == "string" else isinstance(v, (int, float)) and not isinstance(v, bool)
        if not ok:
            return tool_error("argument %s must be a %s" % (key, schema["type"])), None
    if name == "echo":
        return {"content": [{"type": "text", "text": args["text"]}]}, None
    if name == "add":
        return {"content": [{"type": "text", "text": number_text(args["a"] + args["b"])}]}, None
    return tool_error(args.get("message") or "the fail tool always fails"), None


def handle(msg):
    if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" or not isinstance(msg.get("method", ""), str):
        error(msg.get("id") if isinstance(msg, dict) and isinstance(msg.get("id"), (str, int)) else None, -32600, "Invalid Request")
        return
    if "method" not in msg:
        return  # a response: this server sends no requests
    method, params = msg["method"], msg.get("params") or {}
    if "id" not in msg:
        return  # notifications: initialized, cancelled, unknown ones
    id_ = msg["id"]
    if id_ is None or isinstance(id_, (bool, float, dict, list)):
        error(None, -32600, "Invalid Request: id must be a string or an integer")
        return
    if method == "initialize":
        asked = params.get("protocolVersion")
        caps = {"tools": {}} if TOOLS else {}
        send({"jsonrpc": "2.0", "id": id_, "result": {
            "protocolVersion": asked if asked in VERSIONS else VERSIONS[0],
            "capabilities": caps, "serverInfo": {"name": "tiny", "version": "0.4"}}})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": id_, "result": {}})
    elif TOOLS and method == "tools/list":
        if "cursor" in params:
            error(id_, -32602, "invalid cursor")
        else:
            send({"jsonrpc": "2.0", "id": id_, "result": {"tools": TOOL_LIST}})
    elif TOOLS and method == "tools/call":
        result, err = call_tool(params)
        if err:
            error(id_, err[0], err[1])
        else:
            send({"jsonrpc": "2.0", "id": id_, "result": result})
    else:
        error(id_, -32601, "Method not found: " + method)


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            error(None, -32700, "Parse error")
            continue
        if isinstance(msg, list):
            error(None, -32600, "Invalid Request: batches are not supported")
            continue
        handle(msg)


main()
