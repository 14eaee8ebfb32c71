"""Template: a conform host-role adapter for your SDK, in Python.

conform certifies a host (an SDK that drives the Claude Code CLI) in spawned
mode: your adapter is started once per vector, with the vector's decisions in
the environment variable CONFORM_POLICY (docs/host-role.md), and starts "the
CLI" the way your SDK always does: the `claude` on PATH is conform's agent
double, which plays the vector and records what your SDK answers.

    conform run --role host --mode spawned -- python3 /abs/path/adapter.py

Part 1 (keep): the policy functions. Each returns the reply body your SDK's
callback should produce. Part 2 (replace): a stand-in for an SDK, so that
this template runs as it is. In your adapter, delete Part 2, build your SDK's
client as its README shows, register Part 1's functions as its callbacks
(permission callback, hooks, MCP server, dialog and elicitation handlers),
send one prompt and wait for the result. Never fix up what your SDK writes:
the report should show your SDK's faults, not hide them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

DENIED = "Denied by policy"
POLICY: dict[str, Any] = json.loads(os.environ.get("CONFORM_POLICY") or "{}")


# ---- Part 1: the policy as callbacks ---------------------------------------


def can_use_tool(tool: str, tool_input: dict[str, Any]) -> dict[str, Any] | None:
    """The permission decision: {"behavior": "allow"|"deny", ...}, or None
    for "no decision yet" (rule {"defer": true}: the user has not answered)."""
    rules = POLICY.get("can_use_tool", {})
    rule = rules.get(tool, rules.get("*"))
    if rule and rule.get("defer") is True:
        return None
    if rule and rule.get("behavior") == "deny":
        out = {"behavior": "deny", "message": rule.get("message", DENIED)}
        if rule.get("interrupt") is True:
            out["interrupt"] = True
        return out
    questions = tool_input.get("questions")
    if tool == "AskUserQuestion" and isinstance(questions, list) and not (rule and "updatedInput" in rule):
        answers = {}
        for q in questions:
            text = q.get("question") if isinstance(q, dict) else None
            if text not in POLICY.get("answers", {}):
                return {"behavior": "deny", "message": DENIED}
            a = POLICY["answers"][text]
            answers[text] = ", ".join(a) if isinstance(a, list) else a
        return {"behavior": "allow", "updatedInput": {**tool_input, "answers": answers}}
    if rule and rule.get("behavior") == "allow":
        out = {"behavior": "allow", "updatedInput": rule.get("updatedInput", tool_input)}
        if "updatedPermissions" in rule:
            out["updatedPermissions"] = rule["updatedPermissions"]
        return out
    return {"behavior": "deny", "message": DENIED}


def hook(callback_id: str) -> dict[str, Any] | None:
    """The hook output for a registered callback, None for an unknown one."""
    return POLICY.get("hooks", {}).get(callback_id)


def mcp(server: str, message: dict[str, Any]) -> dict[str, Any]:
    """The JSON-RPC reply of your SDK's in-process MCP server."""
    methods = POLICY.get("mcp", {}).get(server)
    if "method" not in message or message.get("id") is None:
        return {"jsonrpc": "2.0", "result": {}}  # a notification: acknowledged
    if methods is None:
        return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": f"Server '{server}' not found"}}
    return {"jsonrpc": "2.0", "id": message["id"], "result": methods.get(message["method"], {})}


def dialog() -> dict[str, Any]:
    return POLICY.get("dialog", {"behavior": "cancelled"})


def elicitation() -> dict[str, Any]:
    return POLICY.get("elicitation", {"action": "decline"})


def side_question() -> dict[str, Any]:
    return POLICY.get("side_question", {"action": "decline"})


# ---- Part 2: a stand-in for your SDK (replace with your SDK's client) ------


def answer(req: dict[str, Any]) -> dict[str, Any] | None:
    """One control_request from the agent -> the control_response payload,
    or None: no reply (a permission the user has not decided yet)."""
    body = req.get("request") or {}
    sub = body.get("subtype")
    if sub == "can_use_tool":
        result = can_use_tool(body.get("tool_name", ""), body.get("input") or {})
        if result is None:
            # No decision yet: a real SDK adapter leaves the permission
            # callback's future (an awaitable it returns) never completed, so
            # the SDK writes nothing, even when the agent cancels the request.
            return None
    elif sub == "hook_callback":
        result = hook(body.get("callback_id", ""))
        if result is None:
            return {"subtype": "error", "error": f"No hook callback found for ID: {body.get('callback_id')}"}
    elif sub == "mcp_message":
        result = {"mcp_response": mcp(body.get("server_name", ""), body.get("message") or {})}
    elif sub == "request_user_dialog":
        result = dialog()
    elif sub == "elicitation":
        result = elicitation()
    elif sub == "side_question":
        result = side_question()
    else:
        return {"subtype": "error", "error": f"Unsupported control request subtype: {sub}"}
    return {"subtype": "success", "response": result}


def main() -> int:
    flags = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"]
    agent = subprocess.Popen(["claude", *flags, "--permission-prompt-tool", "stdio"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")
    assert agent.stdin and agent.stdout

    def send(frame: dict[str, Any]) -> None:
        agent.stdin.write(json.dumps(frame, ensure_ascii=False) + "\n")
        agent.stdin.flush()

    send({"type": "control_request", "request_id": "init-1", "request": {"subtype": "initialize"}})
    send({"type": "user", "message": {"role": "user", "content": "conform"}, "parent_tool_use_id": None})
    for line in agent.stdout:
        frame = json.loads(line)
        if frame.get("type") == "result":
            agent.stdin.close()
        elif frame.get("type") == "control_request":
            reply = answer(frame)
            if reply is None:
                continue  # pending: no reply, ever (v1)
            if "request_id" in frame:
                reply["request_id"] = frame["request_id"]
            send({"type": "control_response", "response": reply})
    return agent.wait()


if __name__ == "__main__":
    sys.exit(main())
