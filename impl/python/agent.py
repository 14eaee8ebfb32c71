#!/usr/bin/env python3
"""conform-python-agent: agent-role port of the stream-json control protocol v1 and v2.

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

# Code points the CLI 2.1.332 removes from error text: general categories Cc,
# Cf, Cs (lone surrogates), Zl, Zp and Zs, except U+0020 SPACE (observed
# 2026-11-30; vectors canon-echo-server-name, canon-echo-subtype). Fixed
# ranges (Unicode 17.0, the table Node 20 uses) rather than unicodedata, so
# the result does not depend on the Python build; identical to the table in
# impl/typescript/src/agent.ts.
_STRIPPED_RANGES = (
    (0x0000, 0x001F), (0x007F, 0x00A0), (0x00AD, 0x00AD), (0x0600, 0x0605),
    (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F), (0x0890, 0x0891),
    (0x08E2, 0x08E2), (0x1680, 0x1680), (0x180E, 0x180E), (0x2000, 0x200F),
    (0x2028, 0x202F), (0x205F, 0x2064), (0x2066, 0x206F), (0x3000, 0x3000),
    (0xD800, 0xDFFF), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
    (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)
_STRIP_RE = re.compile("[" + "".join(
    "\\U%08x-\\U%08x" % (lo, hi) for lo, hi in _STRIPPED_RANGES) + "]")


def clean_error_text(text):
    """Error text as the CLI writes it: Cc/Cf/Cs/Zl/Zp/Zs removed, U+0020 kept."""
    return _STRIP_RE.sub("", text)


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


def _parse_iterative(s, strict=False):
    """Same grammar and values as _DECODER (strict: as _STRICT_DECODER), with
    an explicit stack."""
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
                tok = m.group()
                if not strict:
                    value = float(tok)
                elif "." in tok or "e" in tok or "E" in tok:
                    value = _strict_float(tok)
                else:
                    value = _strict_int(tok)
                i = m.end()
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
                if strict and top[1] in top[0]:
                    raise Malformed("duplicate member name")
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
            inner["error"] = clean_error_text(value)
        inner.update(extras)
        return dumps({"type": "control_response", "response": inner})


def get(obj, key):
    if isinstance(obj, dict) and key in obj:
        return obj[key]
    return UNDEFINED


# ------------------------------------------------------------ protocol v2
#
# Written from docs/v2.md, schemas/control.v2.json, vectors/v2/agent/ and
# golden/v2/. Frames are judged in the order of docs/v2.md section 7.

FRAME_LIMIT = 1048576  # bytes per input line, without its LF
EXCERPT_BYTES = 256
KEEP_BYTES = EXCERPT_BYTES + 4  # enough to see any sequence that starts before the cut
PASS_OVER = frozenset((
    "system", "assistant", "user", "result", "stream_event",
    "control_request_progress", "keep_alive", "rate_limit_event",
    "tool_progress", "auth_status",
))
CONTROL_TYPES = frozenset((
    "control_request", "control_response", "control_cancel_request", "control_diagnostic",
))
SPOKEN_VERSIONS = (2, 1)  # highest first
CATALOG = frozenset(ALIASES.values())
_SUFFIX = re.compile(r"\[[^\[\]]*\]$")
_MAX_EXACT = 2.0 ** 53


class Malformed(Exception):
    """A line that is not a strict-JSON object (docs/v2.md section 6)."""


class EndSession(Exception):
    """version_mismatch: stop reading and exit with this status."""

    def __init__(self, status):
        super().__init__(status)
        self.status = status


def _utf8_len(raw, i):
    """Length of the valid UTF-8 sequence starting at raw[i], or 0."""
    b = raw[i]
    if b < 0x80:
        return 1
    if 0xC2 <= b <= 0xDF:
        n, lo, hi = 2, 0x80, 0xBF
    elif b == 0xE0:
        n, lo, hi = 3, 0xA0, 0xBF
    elif 0xE1 <= b <= 0xEC or 0xEE <= b <= 0xEF:
        n, lo, hi = 3, 0x80, 0xBF
    elif b == 0xED:
        n, lo, hi = 3, 0x80, 0x9F  # no UTF-16 surrogates
    elif b == 0xF0:
        n, lo, hi = 4, 0x90, 0xBF
    elif 0xF1 <= b <= 0xF3:
        n, lo, hi = 4, 0x80, 0xBF
    elif b == 0xF4:
        n, lo, hi = 4, 0x80, 0x8F
    else:
        return 0
    if i + n > len(raw) or not lo <= raw[i + 1] <= hi:
        return 0
    for k in range(i + 2, i + n):
        if not 0x80 <= raw[k] <= 0xBF:
            return 0
    return n


def excerpt(raw):
    """The line's first 256 bytes, less a sequence the cut splits; each byte
    outside a valid UTF-8 sequence becomes U+FFFD."""
    out = []
    i = 0
    while i < len(raw):
        n = _utf8_len(raw, i)
        if i + max(n, 1) > EXCERPT_BYTES:
            break
        if n == 0:
            out.append("\ufffd")
            i += 1
        else:
            out.append(raw[i:i + n].decode("utf-8"))
            i += n
    return "".join(out)


def _strict_int(s):
    f = float(s)
    if math.isinf(f):
        raise Malformed("number overflows binary64")
    if abs(f) >= _MAX_EXACT and s.lstrip("-") != js_number(abs(f)) and int(s) != int(f):
        raise Malformed("integer not exact in binary64")
    return f


def _strict_float(s):
    f = float(s)
    if math.isinf(f):
        raise Malformed("number overflows binary64")
    return f


def _unique_pairs(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise Malformed("duplicate member name")
        d[k] = v
    return d


_STRICT_DECODER = json.JSONDecoder(
    object_pairs_hook=_unique_pairs,
    parse_int=_strict_int,
    parse_float=_strict_float,
    parse_constant=_reject_constant,
    strict=True,
)


def _has_surrogate(v):
    todo = [v]
    while todo:
        x = todo.pop()
        if isinstance(x, str):
            if any(0xD800 <= ord(c) <= 0xDFFF for c in x):
                return True
        elif isinstance(x, list):
            todo.extend(x)
        elif isinstance(x, dict):
            todo.extend(x.keys())
            todo.extend(x.values())
    return False


def strict_parse(raw):
    """RFC 7493 strict JSON: valid UTF-8, no lone surrogate escapes, no
    duplicate member names, no integer binary64 cannot hold; an object."""
    try:
        text = raw.decode("utf-8")  # strict: invalid UTF-8 is malformed
        try:
            msg = _STRICT_DECODER.decode(text)
        except RecursionError:
            msg = _parse_iterative(text, strict=True)
    except Malformed:
        raise
    except (ValueError, RecursionError) as e:
        raise Malformed(str(e))
    if not isinstance(msg, dict):
        raise Malformed("not an object")
    if _has_surrogate(msg):
        raise Malformed("lone surrogate")
    return msg


def canonical(v):
    """RFC 8785 text of a parsed value (as a str; compared, never written)."""
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(dumps(k) + ":" + canonical(v[k]) for k in keys) + "}"
    if isinstance(v, list):
        return "[" + ",".join(canonical(e) for e in v) + "]"
    return dumps(v)


def usable_id(v):
    return isinstance(v, str) and v != ""


class UsedId:
    __slots__ = ("canon", "reply")

    def __init__(self, canon):
        self.canon = canon
        self.reply = None  # the terminal reply frame once written


class SessionV2:
    """One v2 session: initialize state, used request ids, pending holds."""

    def __init__(self, write, base, spoken=SPOKEN_VERSIONS):
        self.write = write  # writes one frame (a dict)
        self.base = base  # the v1 Session: model, permission mode, payloads
        self.initialized = False
        self.spoken = spoken  # versions initialize may choose, highest first
        self.negotiated = None  # 1 when initialize chose v1 for the session
        self.used = {}  # request_id -> UsedId
        self.pending = {}  # request_id of a pending hold -> True (ordered)

    # ----- output

    def diag(self, code, message, raw=None, size=None, request_id=None, reply=None):
        d = {"type": "control_diagnostic", "schemaVersion": 2, "code": code,
             "message": message}
        if request_id is not None:
            d["request_id"] = request_id
        if raw is not None:
            d["excerpt"] = excerpt(raw)
            d["size"] = size
        if reply is not None:
            d["reply"] = reply
        self.write(d)

    def _terminal(self, rid, inner):
        frame = {"type": "control_response", "schemaVersion": 2, "response": inner}
        self.used[rid].reply = frame
        self.write(frame)

    def success(self, rid, payload):
        self._terminal(rid, {"subtype": "success", "request_id": rid, "response": payload})

    def error(self, rid, code, message):
        self._terminal(rid, {"subtype": "error", "request_id": rid,
                             "error": {"code": code, "message": clean_error_text(message)}})

    # ----- input

    def handle(self, raw, size, truncated):
        """Judges one input line (raw bytes without LF, maybe cut to its
        first bytes when truncated; size is its whole length)."""
        if truncated or size > FRAME_LIMIT:
            self.diag("frame_too_large", "line of %d bytes exceeds the %d-byte frame limit"
                      % (size, FRAME_LIMIT), raw, size)
            return
        if raw.strip(b" \t\r") == b"":
            return  # blank lines carry nothing
        try:
            msg = strict_parse(raw)
        except Malformed as e:
            self.diag("malformed_frame", "not a strict-JSON object: %s" % e, raw, size)
            return
        typ = msg.get("type", UNDEFINED)
        if isinstance(typ, str) and typ in PASS_OVER:
            return  # stream-json frames outside the control channel
        rid = msg.get("request_id", UNDEFINED)
        if typ == "control_request" and usable_id(rid) and rid in self.used:
            entry = self.used[rid]
            if canonical(msg) == entry.canon:
                self.diag("request_replayed", "retransmission of request %s: not run again" % rid,
                          raw, size, request_id=rid, reply=entry.reply)
            else:
                self.diag("duplicate_request_id",
                          "request_id %s is already used by another request" % rid,
                          raw, size, request_id=rid)
            return
        sv = msg.get("schemaVersion", UNDEFINED)
        if not (isinstance(sv, float) and sv == 2.0):
            text = "schemaVersion must be 2"
            if typ == "control_request" and usable_id(rid):
                self.used[rid] = UsedId(canonical(msg))
                self.error(rid, "unsupported_schema_version", text)
            else:
                named = rid
                if typ == "control_response" and isinstance(msg.get("response"), dict):
                    named = msg["response"].get("request_id", UNDEFINED)
                self.diag("unsupported_schema_version", text, raw, size,
                          request_id=named if usable_id(named) else None)
            return
        if not (isinstance(typ, str) and typ in CONTROL_TYPES):
            self.diag("unsupported_frame_type", "unknown frame type", raw, size)
            return
        if typ == "control_diagnostic":
            return  # a host's diagnostics are never answered
        if typ == "control_response":
            inner = msg.get("response")
            if not (isinstance(inner, dict) and usable_id(inner.get("request_id"))):
                self.diag("invalid_request", "control_response without a usable request_id",
                          raw, size)
            return  # this agent sends no requests: the reply names nothing
        if not usable_id(rid):
            self.diag("invalid_request", "request_id must be a non-empty string", raw, size)
            return
        if typ == "control_cancel_request":
            self.cancel(rid)
            return
        self.used[rid] = UsedId(canonical(msg))
        self.request(rid, msg)

    def cancel(self, rid):
        if self.pending.pop(rid, None):
            self.error(rid, "cancelled", "request cancelled")
        # unknown or finished: nothing

    def end_of_input(self):
        for rid in list(self.pending):
            del self.pending[rid]
            self.error(rid, "cancelled", "input ended while the request was pending")

    def request(self, rid, msg):
        req = msg.get("request", UNDEFINED)
        if not isinstance(req, dict):
            self.error(rid, "invalid_request", "request must be an object")
            return
        subtype = req.get("subtype", UNDEFINED)
        if not usable_id(subtype):
            self.error(rid, "invalid_request", "request.subtype must be a non-empty string")
            return
        if not self.initialized and subtype != "initialize":
            self.error(rid, "not_initialized", "initialize first")
            return
        handler = self.HANDLERS.get(subtype)
        if handler is None:
            self.error(rid, "unsupported_request",
                       "Unsupported control request subtype: " + subtype)
            return
        handler(self, rid, req)

    # ----- subtypes

    def initialize(self, rid, req):
        if self.initialized:
            self.error(rid, "already_initialized", "the session is already initialized")
            return
        offered = req.get("protocolVersions", UNDEFINED)
        ok = (isinstance(offered, list) and len(offered) > 0
              and all(isinstance(v, float) and v.is_integer() and v >= 1 for v in offered)
              and len(set(offered)) == len(offered))
        if not ok:
            self.error(rid, "invalid_request",
                       "protocolVersions must be a non-empty array of distinct positive integers")
            return
        shared = [v for v in self.spoken if float(v) in offered]
        if not shared:
            self.error(rid, "version_mismatch", "no shared protocol version (this agent speaks %s)"
                       % ", ".join(str(v) for v in sorted(self.spoken)))
            raise EndSession(1)
        kind, body, _ = self.base.initialize(req)
        self.initialized = True
        self.success(rid, {"protocolVersion": shared[0], "session": body})
        if shared[0] == 1:
            self.negotiated = 1  # the rest of the session speaks v1

    def interrupt(self, rid, req):
        cq = req.get("cancel_queued", UNDEFINED)
        if cq is not UNDEFINED and not isinstance(cq, bool):
            self.error(rid, "invalid_request", "cancel_queued must be a boolean")
            return
        self.success(rid, {"still_queued": []})

    def set_model(self, rid, req):
        m = req.get("model", UNDEFINED)
        if m is UNDEFINED or m is None or m == "default":
            self.base.model = DEFAULT_MODEL
        elif not isinstance(m, str) or m == "":
            self.error(rid, "invalid_request", "model must be a non-empty string or null")
            return
        else:
            base = _SUFFIX.sub("", m)
            if base in ALIASES:
                self.base.model = ALIASES[base]
            elif base in CATALOG:
                self.base.model = base
            else:
                self.error(rid, "unknown_model", "model %s is not in this agent's catalog" % m)
                return
        self.success(rid, {"model": self.base.model})

    def set_permission_mode(self, rid, req):
        mode = req.get("mode", UNDEFINED)
        if not isinstance(mode, str):
            self.error(rid, "invalid_request", "mode must be a string")
        elif mode in PERMISSION_MODES:
            self.base.mode = mode
            self.success(rid, {"mode": mode})
        elif mode == "bypassPermissions":
            self.error(rid, "bypass_not_launched", BYPASS_TEXT)
        else:
            self.error(rid, "invalid_mode", INVALID_MODE_TEXT)

    def set_max_thinking_tokens(self, rid, req):
        n = req.get("max_thinking_tokens", UNDEFINED)
        d = req.get("thinking_display", UNDEFINED)
        n_ok = n is UNDEFINED or n is None or (
            isinstance(n, float) and n.is_integer() and n >= 0)
        d_ok = d is UNDEFINED or d is None or (isinstance(d, str) and d in THINKING_DISPLAYS)
        if not (n_ok and d_ok):
            self.error(rid, "invalid_request",
                       "max_thinking_tokens must be an integer >= 0 or null; thinking_display "
                       "one of summarized, omitted, highlights or null")
            return
        self.success(rid, {})

    def get_binary_version(self, rid, req):
        self.success(rid, self.base.get_binary_version(req)[1])

    def mcp_status(self, rid, req):
        self.success(rid, self.base.mcp_status(req)[1])

    def get_context_usage(self, rid, req):
        self.success(rid, self.base.get_context_usage(req)[1])

    def rewind_files(self, rid, req):
        dry = req.get("dry_run", UNDEFINED)
        umid = req.get("user_message_id", UNDEFINED)
        if (dry is not UNDEFINED and not isinstance(dry, bool)) or (
                umid is not UNDEFINED and not isinstance(umid, str)):
            self.error(rid, "invalid_request", "dry_run must be a boolean, user_message_id a string")
        elif dry is True:
            self.success(rid, {"canRewind": False, "reason": REWIND_TEXT})
        else:
            self.error(rid, "rewind_unavailable", REWIND_TEXT)

    def mcp_server(self, rid, req):
        name = req.get("serverName", UNDEFINED)
        enabled = req.get("enabled", UNDEFINED)
        if (name is not UNDEFINED and not isinstance(name, str)) or (
                req.get("subtype") == "mcp_toggle" and enabled is not UNDEFINED
                and not isinstance(enabled, bool)):
            self.error(rid, "invalid_request", "serverName must be a string, enabled a boolean")
            return
        # No MCP server is ever configured.
        self.error(rid, "unknown_server", "Server not found: " + js_string(name))

    def stop_task(self, rid, req):
        task = req.get("task_id", UNDEFINED)
        if task is not UNDEFINED and not isinstance(task, str):
            self.error(rid, "invalid_request", "task_id must be a string")
            return
        self.success(rid, {})  # a task that is not running: a no-op

    def hold(self, rid, req):
        self.pending[rid] = True  # answered by release, cancel or end of input

    def release(self, rid, req):
        target = req.get("target", UNDEFINED)
        if not usable_id(target):
            self.error(rid, "invalid_request", "target must be a non-empty request_id")
            return
        if self.pending.pop(target, None):
            self.success(target, {"releasedBy": rid})
            self.success(rid, {"released": True})
        else:
            self.success(rid, {"released": False})

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
        "mcp_reconnect": mcp_server,
        "mcp_toggle": mcp_server,
        "stop_task": stop_task,
        "hold": hold,
        "release": release,
    }


# ------------------------------------------------------- version detection
#
# One process serves one session, v1 or v2 (README "Which version"). Under
# conform the runner names the suite version in CONFORM_PROTOCOL_VERSION:
# "1" or "2" fixes the session's version before the first line is read.
# Otherwise (any other value, or unset) the first deciding line decides:
# a JSON object with a top-level schemaVersion member (any value) or an
# initialize request offering protocolVersions makes the session v2; a line
# v1 answers or finds fatal makes it v1; lines v1 ignores decide nothing.
# No timers: the decision depends on the input alone.

PINNED_ENV = "CONFORM_PROTOCOL_VERSION"


def pinned_version(environ=os.environ):
    """1 or 2 when the environment fixes the session's version, else None."""
    return {"1": 1, "2": 2}.get(environ.get(PINNED_ENV, "").strip())


def is_v2_marker(raw):
    if b"schemaVersion" not in raw and b"protocolVersions" not in raw:
        # cheap test first; escapes such as \u0073chemaVersion fall through
        if b"\\u" not in raw:
            return False
    try:
        msg = parse_json(raw.decode("utf-8", errors="replace").strip(_ES_SPACE))
    except (ValueError, RecursionError):
        return False
    if not isinstance(msg, dict):
        return False
    if "schemaVersion" in msg:
        return True
    req = msg.get("request")
    return (msg.get("type") == "control_request" and isinstance(req, dict)
            and req.get("subtype") == "initialize" and "protocolVersions" in req)


# ---------------------------------------------------------------------- main

class Driver:
    """Reads stdin as bytes, splits it into lines, decides the session's
    version and hands each line to the v1 or v2 session."""

    def __init__(self, out, pinned=None):
        self.out = out
        self.v1 = Session()
        self.v2 = None
        self.pinned = pinned  # 1 or 2 from CONFORM_PROTOCOL_VERSION, else None
        self.mode = None  # None (undecided), 1 or 2
        if pinned is not None:
            self.decide(pinned)

    def write_text(self, text):
        self.out.write(text.encode("utf-8") + b"\n")
        self.out.flush()

    def write_frame(self, frame):
        self.write_text(dumps(frame))

    def decide(self, mode):
        self.mode = mode
        if mode == 2:
            # pinned to v2: a v2 session throughout, so initialize cannot
            # negotiate down to 1
            spoken = (2,) if self.pinned == 2 else SPOKEN_VERSIONS
            self.v2 = SessionV2(self.write_frame, self.v1, spoken)

    def line(self, raw, size, truncated):
        if self.mode is None and is_v2_marker(raw):
            self.decide(2)
        if self.mode == 2:
            self.v2.handle(raw, size, truncated)
            if self.v2.negotiated == 1:
                self.mode = 1  # initialize chose v1: the rest of the session is v1
            return
        reply = self.v1.handle_line(raw.decode("utf-8", errors="replace"))  # may raise Fatal
        if reply is not None:
            self.mode = 1  # v1 answered: the session is v1 (a fatal line ends it)
            self.write_text(reply)

    def run(self, fd):
        partial = bytearray()
        size = 0
        truncated = False
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except InterruptedError:
                continue
            if not chunk:
                break
            start = 0
            while True:
                nl = chunk.find(b"\n", start)
                piece = chunk[start:] if nl < 0 else chunk[start:nl]
                size += len(piece)
                if truncated:
                    pass
                elif self.mode == 2 and size > FRAME_LIMIT:
                    # v2 never holds more than the limit: keep what the excerpt needs
                    partial = (partial + piece[:KEEP_BYTES])[:KEEP_BYTES]
                    truncated = True
                else:
                    partial += piece
                if nl < 0:
                    break
                self.line(bytes(partial), size, truncated)
                partial, size, truncated = bytearray(), 0, False
                start = nl + 1
        if size > 0:
            self.line(bytes(partial), size, truncated)  # last line without LF
        if self.mode == 2:
            self.v2.end_of_input()
        return 0


ROLE_ENV = "CONFORM_ROLE"


def main():
    sys.setrecursionlimit(4000)  # room to serialize a MAX_ECHO_DEPTH request_id
    if os.environ.get(ROLE_ENV, "").strip() == "host":
        import host  # the host role (docs/host-role.md): host.py beside this file

        try:
            return host.run()
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        except KeyboardInterrupt:
            return 130
    stdout = sys.stdout.buffer
    driver = Driver(stdout, pinned_version())
    try:
        try:
            return driver.run(sys.stdin.fileno())
        except Fatal as e:
            stdout.flush()
            sys.stderr.write(str(e) + "\n")
            sys.stderr.flush()
            return 1
        except EndSession as e:
            stdout.flush()
            return e.status
    except BrokenPipeError:
        # The host went away; nothing left to say. Point stdout at /dev/null
        # so the interpreter's final flush does not complain.
        os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
