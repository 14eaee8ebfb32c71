#!/usr/bin/env python3
"""conform-python-agent: agent-role port of the stream-json control protocol v1.

Written from schemas/control.v1.json, the v1 vectors and golden files,
COMPATIBILITY.md and impl/claude-code/OBSERVED.md (what the Claude Code CLI
2.1.332 does). Standard library only, Python 3.11.

Reads JSON lines on stdin, writes one control_response line per
control_request on stdout, exits 0 at end of input. Fatal lines (not JSON,
the JSON line `null`, a control_request without a request object) end the
process with status 1 and one message on stderr, like the CLI.

JSON values are handled the way a JavaScript agent sees them: every number is
an IEEE 754 binary64 value (12345678901234567890 -> 12345678901234567000,
1e400 -> Infinity, written as null), NaN/Infinity literals are rejected,
duplicate keys keep the last value, invalid UTF-8 becomes U+FFFD.
"""

import json
import math
import os
import re
import sys

VERSION = "0.1.0"
BUILD_TIME = "2026-11-30T00:00:00Z"
OLDEST_DESKTOP_SDK = "0.0.0"

DEFAULT_MODEL = "claude-opus-5-5"
ALIASES = {
    "sonnet": "claude-sonnet-5-5",
    "opus": "claude-opus-5-5",
    "haiku": "claude-haiku-5-5",
}
CONTEXT_SUFFIX = "[1m]"

PERMISSION_MODES = ("acceptEdits", "auto", "default", "dontAsk", "plan")
INVALID_MODE_TEXT = (
    "Cannot set permission mode: must be one of acceptEdits, auto, "
    "bypassPermissions, default, dontAsk, plan"
)
BYPASS_TEXT = (
    "Cannot set permission mode to bypassPermissions because the session was "
    "not launched with --dangerously-skip-permissions"
)
THINKING_TEXT = (
    "set_max_thinking_tokens: max_thinking_tokens must be an integer or null "
    'and thinking_display must be "summarized", "omitted", "highlights", or null'
)
THINKING_DISPLAYS = ("summarized", "omitted", "highlights")
CHECK_UNREACHABLE_TEXT = (
    "Network error. Please check your internet connection \u00b7 model not changed"
)
CATALOG_UNKNOWN_TEXT = (
    'Model "(unrecognized model name)" is not a recognized model id. '
    "Run /model to see available models."
)
REWIND_TEXT = "File rewinding is not enabled."

# A request_id nested deeper than this is not echoed: the line is fatal
# (see README "Design notes"). Any depth is accepted on input.
MAX_ECHO_DEPTH = 1000


class _Undefined:
    """JavaScript `undefined`: a member that is absent (distinct from null)."""

    def __repr__(self):
        return "undefined"


UNDEFINED = _Undefined()


class Fatal(Exception):
    """A line that ends the process with status 1 (message goes to stderr)."""


# ---------------------------------------------------------------- JSON input

def _reject_constant(name):
    # JSON.parse rejects NaN, Infinity and -Infinity; Python's json accepts them.
    raise ValueError("invalid JSON literal " + name)


_DECODER = json.JSONDecoder(
    parse_int=float,  # every JSON number is a binary64 value, as in JavaScript
    parse_float=float,  # 1e400 -> inf, like Number("1e400")
    parse_constant=_reject_constant,
    strict=True,  # raw control characters in strings are a syntax error
)

# ECMAScript WhiteSpace + LineTerminator: what String.prototype.trim removes.
_ES_SPACE = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

_TYPE_HINT = re.compile(r'"type"\s*:\s*"([^"\\]*)"')


def parse_json(text):
    """JSON.parse: the whole text must be one JSON value (JSON whitespace around it).

    The C decoder recurses once per nesting level; JSON.parse in V8 accepts any
    depth, so a RecursionError falls back to an iterative parser."""
    try:
        return _DECODER.decode(text)
    except RecursionError:
        return _parse_iterative(text)


_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_LITERALS = (("true", True), ("false", False), ("null", None))


def _parse_iterative(s):
    """Same grammar and values as _DECODER, with an explicit stack."""
    scanstring = json.decoder.scanstring
    stack = []  # open containers: [list] or [dict, pending key]
    i = _WS.match(s, 0).end()
    while True:
        # --- parse one value at i (or open a container)
        c = s[i:i + 1]
        if c == "{" or c == "[":
            i = _WS.match(s, i + 1).end()
            if c == "[":
                if s[i:i + 1] == "]":
                    value, i = [], i + 1
                else:
                    stack.append([[]])
                    continue
            else:
                if s[i:i + 1] == "}":
                    value, i = {}, i + 1
                elif s[i:i + 1] == '"':
                    key, i = scanstring(s, i + 1, True)
                    i = _WS.match(s, i).end()
                    if s[i:i + 1] != ":":
                        raise ValueError("expected ':'")
                    i = _WS.match(s, i + 1).end()
                    stack.append([{}, key])
                    continue
                else:
                    raise ValueError("expected a key")
        elif c == '"':
            value, i = scanstring(s, i + 1, True)
        else:
            m = _NUMBER.match(s, i)
            if m and m.end() > i:
                value, i = float(m.group()), m.end()
            else:
                for word, v in _LITERALS:
                    if s.startswith(word, i):
                        value, i = v, i + len(word)
                        break
                else:
                    raise ValueError("unexpected character")
        # --- attach the finished value, closing containers as they end
        while True:
            i = _WS.match(s, i).end()
            if not stack:
                if i != len(s):
                    raise ValueError("extra data")
                return value
            top = stack[-1]
            c = s[i:i + 1]
            if isinstance(top[0], list):
                top[0].append(value)
                if c == ",":
                    i = _WS.match(s, i + 1).end()
                    break
                if c != "]":
                    raise ValueError("expected ',' or ']'")
            else:
                top[0][top[1]] = value  # duplicate keys: the last one wins
                if c == ",":
                    i = _WS.match(s, i + 1).end()
                    if s[i:i + 1] != '"':
                        raise ValueError("expected a key")
                    key, i = scanstring(s, i + 1, True)
                    i = _WS.match(s, i).end()
                    if s[i:i + 1] != ":":
                        raise ValueError("expected ':'")
                    i = _WS.match(s, i + 1).end()
                    top[1] = key
                    break
                if c != "}":
                    raise ValueError("expected ',' or '}'")
            value = stack.pop()[0]
            i += 1


def nesting_depth(v):
    """Levels of arrays/objects in v (a scalar is 0), without recursion."""
    deepest = 0
    todo = [(v, 1)]
    while todo:
        x, d = todo.pop()
        if isinstance(x, dict):
            x = list(x.values())
        elif not isinstance(x, list):
            continue
        deepest = max(deepest, d)
        todo.extend((e, d + 1) for e in x)
    return deepest


def utf16_len(text):
    return sum(2 if ord(c) > 0xFFFF else 1 for c in text)


# --------------------------------------------------- JavaScript value → text

def js_number(x):
    """Number.prototype.toString() for a finite or non-finite binary64 value."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"  # also -0
    sign = "-" if x < 0 else ""
    r = repr(abs(x))  # shortest round-trip digits, like ECMAScript
    mant, _, exp = r.partition("e")
    exp = int(exp) if exp else 0
    if "." in mant:
        ip, fp = mant.split(".")
    else:
        ip, fp = mant, ""
    digits = ip + fp
    n = len(ip) + exp  # value = 0.digits × 10^n
    stripped = digits.lstrip("0")
    n -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        es = ("+" if e >= 0 else "-") + str(abs(e))
        out = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + es
    return sign + out


def js_string(v):
    """String(v) for a value produced by JSON.parse (or undefined)."""
    if v is UNDEFINED:
        return "undefined"
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, float):
        return js_number(v)
    if isinstance(v, str):
        return v
    if isinstance(v, list):  # Array.prototype.join(",")
        return ",".join("" if e is None else js_string(e) for e in v)
    return "[object Object]"


_SHORT_ESCAPES = {
    '"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t",
    "\n": "\\n", "\f": "\\f", "\r": "\\r",
}


def _dump_str(s, out):
    out.append('"')
    for c in s:
        o = ord(c)
        if c in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[c])
        elif o < 0x20 or 0xD800 <= o <= 0xDFFF or o in (0x2028, 0x2029):
            # controls, lone surrogates (well-formed JSON.stringify), LS/PS
            out.append("\\u%04x" % o)
        else:
            out.append(c)
    out.append('"')


def _dump(v, out):
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif isinstance(v, float):
        out.append(js_number(v) if math.isfinite(v) else "null")
    elif isinstance(v, int):
        out.append(str(v))
    elif isinstance(v, str):
        _dump_str(v, out)
    elif isinstance(v, list):
        out.append("[")
        for i, e in enumerate(v):
            if i:
                out.append(",")
            _dump(e, out)
        out.append("]")
    elif isinstance(v, dict):
        out.append("{")
        first = True
        for k, e in v.items():
            if e is UNDEFINED:
                continue  # JSON.stringify drops undefined members
            if not first:
                out.append(",")
            first = False
            _dump_str(k, out)
            out.append(":")
            _dump(e, out)
        out.append("}")
    else:
        raise TypeError("cannot serialize %r" % (v,))


def dumps(v):
    """JSON.stringify: compact, numbers in ECMAScript form."""
    out = []
    _dump(v, out)
    return "".join(out)


# ------------------------------------------------------------------- session

class Session:
    """Per-process state: the current model and permission mode."""

    def __init__(self):
        self.model = DEFAULT_MODEL
        self.mode = "default"

    # Each handler returns ("success", payload-or-UNDEFINED, extras) or
    # ("error", text, extras); extras are members beside subtype/request_id.

    def initialize(self, req):
        body = {
            "commands": [],
            "agents": [],
            "output_style": "default",
            "available_output_styles": ["default"],
            "models": [
                {"value": "default", "resolvedModel": DEFAULT_MODEL,
                 "displayName": "Default (recommended)"},
                {"value": "opus", "resolvedModel": ALIASES["opus"], "displayName": "Opus"},
                {"value": "sonnet", "resolvedModel": ALIASES["sonnet"], "displayName": "Sonnet"},
                {"value": "haiku", "resolvedModel": ALIASES["haiku"], "displayName": "Haiku"},
            ],
            "account": {},
            "pid": os.getpid(),
            "claude_code_version": VERSION,
            "current_permission_mode": self.mode,
        }
        if get(req, "hooks") not in (UNDEFINED, None):
            body["hooks_applied"] = True
        body["capabilities"] = []
        return ("success", body, {
            "pending_permission_requests": [],
            "pending_user_dialog_requests": [],
        })

    def interrupt(self, req):
        return ("success", {"still_queued": []}, {})

    def set_model(self, req):
        m = get(req, "model")
        if m is UNDEFINED or m is None or m == "default":
            self.model = DEFAULT_MODEL
            return ("success", {"model": self.model}, {})
        if not isinstance(m, str):
            return ("error", "set_model: model must be a string",
                    {"error_code": "invalid_request", "model": self.model})
        if m == "":
            return ("error", CATALOG_UNKNOWN_TEXT,
                    {"error_code": "catalog_unknown", "model": self.model})
        base = m[: -len(CONTEXT_SUFFIX)] if m.endswith(CONTEXT_SUFFIX) else m
        if base in ALIASES:
            self.model = ALIASES[base]
            return ("success", {"model": self.model}, {})
        # Any other name (including full ids) would need the network to check.
        return ("error", CHECK_UNREACHABLE_TEXT,
                {"error_code": "check_unreachable", "model": self.model})

    def set_permission_mode(self, req):
        mode = get(req, "mode")
        if isinstance(mode, str) and mode in PERMISSION_MODES:
            self.mode = mode
            return ("success", {"mode": mode}, {})
        if mode == "bypassPermissions":
            return ("error", BYPASS_TEXT, {"error_code": "bypass_not_launched"})
        return ("error", INVALID_MODE_TEXT, {"error_code": "invalid_mode"})

    def set_max_thinking_tokens(self, req):
        n = get(req, "max_thinking_tokens")
        d = get(req, "thinking_display")
        n_ok = n is UNDEFINED or n is None or (
            isinstance(n, float) and math.isfinite(n) and n == math.floor(n))
        d_ok = d is UNDEFINED or d is None or (isinstance(d, str) and d in THINKING_DISPLAYS)
        if not (n_ok and d_ok):
            return ("error", THINKING_TEXT, {})
        return ("success", UNDEFINED, {})  # acknowledged: no inner response

    def get_binary_version(self, req):
        return ("success", {
            "version": VERSION,
            "buildTime": BUILD_TIME,
            "oldestDesktopSdk": OLDEST_DESKTOP_SDK,
        }, {})

    def mcp_status(self, req):
        return ("success", {"mcpServers": []}, {})

    def get_context_usage(self, req):
        max_tokens = 1000000
        categories = [
            {"id": "system_prompt", "name": "System prompt", "tokens": 0,
             "color": "promptBorder", "kind": "used"},
            {"id": "free_space", "name": "Free space", "tokens": max_tokens,
             "color": "promptBorder", "kind": "free"},
        ]
        return ("success", {
            "categories": categories,
            "totalTokens": 0,
            "maxTokens": max_tokens,
            "rawMaxTokens": max_tokens,
            "percentage": 0,
            "gridRows": [],
            "model": self.model,
        }, {})

    def rewind_files(self, req):
        if get(req, "dry_run") is True:
            return ("success", {"canRewind": False, "error": REWIND_TEXT}, {})
        return ("error", REWIND_TEXT, {})

    def mcp_reconnect(self, req):
        # No MCP server is ever configured.
        return ("error", "Server not found: " + js_string(get(req, "serverName")), {})

    def mcp_toggle(self, req):
        return ("error", "Server not found: " + js_string(get(req, "serverName")), {})

    def stop_task(self, req):
        return ("success", {}, {})  # an unknown task id is acknowledged

    HANDLERS = {
        "initialize": initialize,
        "interrupt": interrupt,
        "set_model": set_model,
        "set_permission_mode": set_permission_mode,
        "set_max_thinking_tokens": set_max_thinking_tokens,
        "get_binary_version": get_binary_version,
        "mcp_status": mcp_status,
        "get_context_usage": get_context_usage,
        "rewind_files": rewind_files,
        "mcp_reconnect": mcp_reconnect,
        "mcp_toggle": mcp_toggle,
        "stop_task": stop_task,
    }

    def handle_line(self, text):
        """Returns the reply line (str) or None; raises Fatal."""
        body = text.strip(_ES_SPACE)
        if body == "":
            return None  # blank, spaces-only, CR-only lines
        try:
            msg = parse_json(body)
        except (ValueError, RecursionError):
            m = _TYPE_HINT.search(text)
            raise Fatal("Error parsing streaming input line (type=%s, %d chars): SyntaxError"
                        % (m.group(1) if m else "unknown", utf16_len(text)))
        if msg is None:
            raise Fatal("Error parsing streaming input line (type=unknown, %d chars): TypeError"
                        % utf16_len(text))
        if not isinstance(msg, dict):
            return None  # other JSON values are ignored
        if msg.get("type") != "control_request":
            return None  # control_response, control_cancel_request, unknown types
        request = msg.get("request")
        if request is None:  # missing or null
            raise Fatal("Error: Missing request on control_request")
        req = request if isinstance(request, dict) else {}
        subtype = get(req, "subtype")
        handler = self.HANDLERS.get(subtype) if isinstance(subtype, str) else None
        if handler is None:
            kind, value, extras = ("error", "Unsupported control request subtype: "
                                   + js_string(subtype), {"error_code": "unsupported_request"})
        else:
            kind, value, extras = handler(self, req)
        inner = {"subtype": kind}
        if "request_id" in msg:
            rid = msg["request_id"]  # echoed whatever its type
            if nesting_depth(rid) > MAX_ECHO_DEPTH:
                # JSON.stringify in a JavaScript agent overflows its stack here.
                raise Fatal("RangeError: Maximum call stack size exceeded")
            inner["request_id"] = rid
        if kind == "success":
            if value is not UNDEFINED:
                inner["response"] = value
        else:
            inner["error"] = value
        inner.update(extras)
        return dumps({"type": "control_response", "response": inner})


def get(obj, key):
    if isinstance(obj, dict) and key in obj:
        return obj[key]
    return UNDEFINED


# ---------------------------------------------------------------------- main

def main():
    sys.setrecursionlimit(4000)  # room to serialize a MAX_ECHO_DEPTH request_id
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    session = Session()
    try:
        while True:
            raw = stdin.readline()  # splits on LF only; any length
            if not raw:
                return 0
            if raw.endswith(b"\n"):
                raw = raw[:-1]
            text = raw.decode("utf-8", errors="replace")  # bad bytes -> U+FFFD
            try:
                reply = session.handle_line(text)
            except Fatal as e:
                stdout.flush()
                sys.stderr.write(str(e) + "\n")
                sys.stderr.flush()
                return 1
            if reply is not None:
                stdout.write(reply.encode("utf-8") + b"\n")
                stdout.flush()
    except BrokenPipeError:
        # The host went away; nothing left to say. Point stdout at /dev/null
        # so the interpreter's final flush does not complain.
        os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
