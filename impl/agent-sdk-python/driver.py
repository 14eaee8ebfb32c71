"""conform host-role driver around claude-agent-sdk (Python), spawned mode.

The SDK starts the agent double at $CONFORM_AGENT as it would start the Claude
Code CLI; this driver answers the agent's requests through the SDK's own
callbacks, following the vector's policy in $CONFORM_POLICY
(docs/host-role.md). Everything on the wire is the SDK's doing; the driver only
maps the policy onto the SDK's public options.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

import anyio
from claude_agent_sdk import (
    ClaudeAgentOptions,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    query,
)
from claude_agent_sdk.types import PermissionUpdate
from mcp import types as mcp_types
from mcp.shared.message import SessionMessage

DENIED = "Denied by policy"


def read_policy() -> dict[str, Any]:
    raw = os.environ.get("CONFORM_POLICY", "")
    if not raw:
        return {}
    p = json.loads(raw)
    if not isinstance(p, dict):
        raise SystemExit("driver: CONFORM_POLICY is not a JSON object")
    return p


POLICY = read_policy()


def rule(tool_name: str) -> dict[str, Any] | None:
    rules = POLICY.get("can_use_tool") or {}
    return rules.get(tool_name, rules.get("*"))


def deny(r: dict[str, Any] | None) -> PermissionResultDeny:
    r = r or {}
    return PermissionResultDeny(message=r.get("message", DENIED), interrupt=bool(r.get("interrupt", False)))


async def can_use_tool(tool_name: str, tool_input: dict[str, Any], _context: Any) -> Any:
    r = rule(tool_name)
    if r is not None and r.get("defer") is True:
        # defer: the user has not decided; the callback never returns.
        await anyio.Event().wait()
    if r is not None and r.get("behavior") == "deny":
        return deny(r)
    questions = tool_input.get("questions") if isinstance(tool_input, dict) else None
    allow_with_input = r is not None and r.get("behavior") == "allow" and "updatedInput" in r
    if tool_name == "AskUserQuestion" and isinstance(questions, list) and not allow_with_input:
        answers = POLICY.get("answers") or {}
        out: dict[str, str] = {}
        for q in questions:
            text = q.get("question") if isinstance(q, dict) else None
            if not isinstance(text, str) or text not in answers:
                return deny(None)
            a = answers[text]
            out[text] = ", ".join(a) if isinstance(a, list) else a
        return PermissionResultAllow(updated_input={**tool_input, "answers": out})
    if r is not None and r.get("behavior") == "allow":
        perms = r.get("updatedPermissions")
        return PermissionResultAllow(
            updated_input=r.get("updatedInput"),  # None: the SDK echoes the request's input
            updated_permissions=[PermissionUpdate.from_dict(p) for p in perms] if perms is not None else None,
        )
    return deny(None)


def hooks() -> dict[str, list[HookMatcher]] | None:
    """hook_N of the policy is the SDK's N-th registered callback.

    The SDK names callbacks hook_0, hook_1, ... in registration order, so one
    PreToolUse matcher with max(N)+1 callbacks; the gaps answer {}.
    """
    ids = [int(m.group(1)) for k in (POLICY.get("hooks") or {}) if (m := re.fullmatch(r"hook_(\d+)", k))]
    if not ids:
        return None

    def callback(body: dict[str, Any]) -> Any:
        async def cb(_input: Any, _tool_use_id: Any, _ctx: Any) -> dict[str, Any]:
            return body

        return cb

    cbs = [callback(POLICY["hooks"].get(f"hook_{i}", {})) for i in range(max(ids) + 1)]
    return {"PreToolUse": [HookMatcher(matcher=None, hooks=cbs)]}


class PolicyMcpServer:
    """An in-process MCP server that answers each JSON-RPC request with the
    policy's result for its method ({} by default).

    The SDK serves an sdk server's ``instance`` with ``run(read, write,
    init_options, raise_exceptions=...)`` over mcp's in-memory streams (see
    McpSdkServerConfig); this is that interface, without mcp's own
    initialize handling, so the policy decides every result.
    """

    def __init__(self, methods: dict[str, Any]) -> None:
        self.methods = methods or {}

    def create_initialization_options(self) -> None:
        return None

    async def run(self, read_stream: Any, write_stream: Any, _init: Any, raise_exceptions: bool = False) -> None:
        async for item in read_stream:
            if isinstance(item, Exception):
                continue
            msg = getattr(item.message, "root", item.message)
            if isinstance(msg, mcp_types.JSONRPCRequest):
                result = self.methods.get(msg.method, {})
                await write_stream.send(
                    SessionMessage(mcp_types.JSONRPCResponse(jsonrpc="2.0", id=msg.id, result=result))
                )


def mcp_servers() -> dict[str, Any]:
    return {
        name: {"type": "sdk", "name": name, "instance": PolicyMcpServer(methods)}
        for name, methods in (POLICY.get("mcp") or {}).items()
    }


def stderr_line(line: str) -> None:
    print(line, file=sys.stderr)


async def main() -> int:
    agent = os.environ.get("CONFORM_AGENT")
    if not agent:
        print("driver: CONFORM_AGENT is not set (run me through a spawned-mode profile)", file=sys.stderr)
        return 2
    options = ClaudeAgentOptions(
        cli_path=agent,
        can_use_tool=can_use_tool,
        hooks=hooks(),
        mcp_servers=mcp_servers(),
        stderr=stderr_line,
    )
    debug = os.environ.get("CONFORM_DRIVER_DEBUG")
    async for msg in query(prompt="conform", options=options):
        if debug:
            print("driver:", repr(msg)[:300], file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
