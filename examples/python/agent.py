#!/usr/bin/env python3
"""A minimal agent for the control protocol v1: docs/first-implementation.md."""
import json
import sys

FIXED = {  # request subtype -> its success payload, always the same
    "initialize": {"commands": [], "agents": [], "output_style": "default",
                   "available_output_styles": ["default"], "models": [], "account": {}},
    "interrupt": {"still_queued": []},
    "get_binary_version": {"version": "0.1.0", "buildTime": "2026-01-01T00:00:00Z"},
    "get_context_usage": {"categories": [], "totalTokens": 0, "maxTokens": 200000},
    "mcp_status": {"mcpServers": []},
    "stop_task": {},
}


class Refused(Exception):
    """Turns the reply into an error: a message for people, a code for programs."""

    def __init__(self, error, error_code=None, **members):
        super().__init__(error)
        self.members = dict(error=error, **members)
        if error_code:
            self.members["error_code"] = error_code


MODES = ["acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan"]


def set_permission_mode(request, state):
    mode = request.get("mode")
    if mode == "bypassPermissions":
        raise Refused("the session was not launched to allow it", "bypass_not_launched")
    if mode not in MODES:
        raise Refused("mode must be one of " + ", ".join(MODES), "invalid_mode")
    return {"mode": mode}


def set_model(request, state):
    name = request.get("model")
    if name is not None and not isinstance(name, str):
        raise Refused("model must be a string", "invalid_request", model=state["model"])
    family = "default" if name is None else name.split("[")[0]  # "sonnet[1m]": a sonnet
    if family not in ("default", "opus", "sonnet", "haiku"):
        raise Refused("not a model this agent knows", "catalog_unknown", model=state["model"])
    state["model"] = "claude-%s-5-5" % ("opus" if family == "default" else family)
    return {"model": state["model"]}


def set_max_thinking_tokens(request, state):
    tokens = request.get("max_thinking_tokens")  # an integer (2.0 is one) or null
    whole = tokens is None or (type(tokens) in (int, float) and float(tokens).is_integer())
    if not whole or request.get("thinking_display") not in (None, "summarized", "omitted", "highlights"):
        raise Refused("max_thinking_tokens must be an integer or null")
    return None  # a success without a payload


def unknown_server(request, state):
    raise Refused("Server not found: %s" % request.get("serverName"))


def rewind_files(request, state):
    if request.get("dry_run") is True:
        return {"canRewind": False, "error": "File rewinding is not enabled."}
    raise Refused("File rewinding is not enabled.")


HANDLERS = {  # request subtype -> function(request, state) returning the payload
    "set_permission_mode": set_permission_mode,
    "set_model": set_model,
    "set_max_thinking_tokens": set_max_thinking_tokens,
    "mcp_reconnect": unknown_server,
    "mcp_toggle": unknown_server,
    "rewind_files": rewind_files,
}


def answer(request, state):
    """The success payload for one request (None for none), or raises Refused."""
    subtype = str(request.get("subtype"))
    if subtype in FIXED:
        return FIXED[subtype]
    if subtype in HANDLERS:
        return HANDLERS[subtype](request, state)
    raise Refused("Unsupported control request subtype: " + subtype, "unsupported_request")


def main():
    state = {"model": "claude-opus-5-5"}
    for line in sys.stdin.buffer:  # one JSON frame per line
        try:
            frame = json.loads(line)
        except ValueError:
            continue  # not JSON, or a blank line: nothing to answer
        if not isinstance(frame, dict) or frame.get("type") != "control_request":
            continue  # only requests get replies: never a cancel, a reply or other frames
        request = frame["request"] if isinstance(frame.get("request"), dict) else {}
        reply = {"subtype": "success", "request_id": frame.get("request_id")}
        try:
            payload = answer(request, state)
            if payload is not None:
                reply["response"] = payload
        except Refused as refusal:
            reply.update(subtype="error", **refusal.members)
        print(json.dumps({"type": "control_response", "response": reply}), flush=True)


if __name__ == "__main__":
    main()
