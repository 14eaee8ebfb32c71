#!/usr/bin/env python3
"""A minimal MCP server over stdio, no SDK: docs/first-mcp-server.md."""
import json
import sys

# Protocol revisions this server speaks, the latest first.
VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

CAPABILITIES = {  # what initialize declares; the kit judges what is declared
    "tools": {},
}


class RPCError(Exception):
    """Turns the reply into a JSON-RPC error with this code."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class ToolError(Exception):
    """A tool that ran and failed: a result with isError, not a JSON-RPC error."""


def initialize(params, state):
    if state["initialized"]:
        raise RPCError(-32600, "initialize was already sent")
    state["initialized"] = True
    offered = params.get("protocolVersion")
    return {
        "protocolVersion": offered if offered in VERSIONS else VERSIONS[0],
        "capabilities": CAPABILITIES,
        "serverInfo": {"name": "my-mcp-server", "version": "0.1.0"},
    }


def ping(params, state):
    return {}


TOOLS = [  # what tools/list shows: the suite's tool contract for echo, add and fail
    {"name": "echo", "description": "Returns its text.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    {"name": "add", "description": "Adds two numbers.",
     "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                     "required": ["a", "b"]}},
    {"name": "fail", "description": "Fails with its message.",
     "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}}},
]


def echo(args):
    if not isinstance(args.get("text"), str):
        raise ToolError("echo needs a string argument text")
    return args["text"]


def number(args, name):
    value = args.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ToolError("add needs a number argument " + name)
    return float(value)


def add(args):
    text = repr(number(args, "a") + number(args, "b"))  # the shortest decimal of the binary64 sum
    return text[:-2] if text.endswith(".0") else text


def fail(args):
    raise ToolError(str(args.get("message", "failed")))


TOOL_CODE = {"echo": echo, "add": add, "fail": fail}


def tools_list(params, state):
    if "cursor" in params:  # one page: any cursor is one this server never gave
        raise RPCError(-32602, "unknown cursor")
    return {"tools": TOOLS}


def tools_call(params, state):
    name, args = params.get("name"), params.get("arguments", {})
    if not isinstance(name, str) or not isinstance(args, dict):
        raise RPCError(-32602, "tools/call needs a string name and object arguments")
    if name not in TOOL_CODE:
        raise RPCError(-32602, "unknown tool: " + name)
    try:
        text = TOOL_CODE[name](args)
    except ToolError as e:
        return {"content": [{"type": "text", "text": str(e)}], "isError": True}
    return {"content": [{"type": "text", "text": text}]}


METHODS = {  # request method -> function(params, state) returning the result
    "initialize": initialize,
    "ping": ping,
    "tools/list": tools_list,
    "tools/call": tools_call,
}


def reply(message, state):
    """The response to one line (a dict), or None when it gets none."""
    try:
        message = json.loads(message)
    except ValueError:
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    if not isinstance(message, dict):
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
    if "method" not in message or "id" not in message:
        return None  # a notification, or a response to nothing: never answered
    request_id = message["id"]
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
    try:
        params = message.get("params", {})
        if message.get("jsonrpc") != "2.0" or not isinstance(params, dict):
            raise RPCError(-32600, "Invalid Request")
        method = METHODS.get(message["method"])
        if method is None:
            raise RPCError(-32601, "Method not found")
        if not state["initialized"] and method not in (initialize, ping):
            raise RPCError(-32600, "the session is not initialized")
        return {"jsonrpc": "2.0", "id": request_id, "result": method(params, state)}
    except RPCError as e:
        return {"jsonrpc": "2.0", "id": request_id, "error": {"code": e.code, "message": str(e)}}


def main():
    state = {"initialized": False}
    for line in sys.stdin.buffer:
        line = line.decode("utf-8", "replace").strip()
        if not line:
            continue
        response = reply(line, state)
        if response is not None:
            sys.stdout.write(json.dumps(response) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
