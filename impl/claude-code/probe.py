#!/usr/bin/env python3
"""Offline probe driver for the Claude Code CLI stream-json control protocol.

Usage:
    python3 probe.py --cli PATH --out DIR [--only NAME[,NAME...]] [--list]

For each probe it starts a fresh CLI process (fresh temp HOME and cwd, env -i
style environment, API base URL on a closed loopback port), writes the probe's
lines to stdin, waits for the expected control_response frames (at most
REPLY_WAIT s after the last write), closes stdin, reads stdout to EOF (at most
EOF_WAIT s, then kills), and writes one JSON transcript per probe to DIR.

Stdlib only. Never points the CLI at a non-loopback address.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

REPLY_WAIT = 5.0       # s after the last write, waiting for expected replies
EOF_WAIT = 6.0         # s after stdin close, waiting for EOF/exit before kill
LINE_KEEP = 4096       # stdout lines longer than this (bytes) are truncated
STDERR_KEEP = 2048     # last bytes of stderr kept
BIG_SUBTYPES = ("initialize", "get_context_usage", "list_models", "get_settings")

CLI_ARGS = ["--bare", "-p", "--input-format", "stream-json",
            "--output-format", "stream-json", "--verbose"]


def base_env(home):
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "ANTHROPIC_API_KEY": "sk-ant-probe-offline",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
    }


# ---------------------------------------------------------------- helpers

def J(obj):
    """Compact JSON line (bytes, newline-terminated), like a typical host."""
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def req(rid, subtype=None, **fields):
    r = {}
    if subtype is not None:
        r["subtype"] = subtype
    r.update(fields)
    return {"type": "control_request", "request_id": rid, "request": r}


SYNC = J(req("sync", "get_binary_version"))


def W(data):
    return ("write", data if isinstance(data, bytes) else J(data))


def SLEEP(s):
    return ("sleep", s)


def WAIT(ids, timeout=REPLY_WAIT):
    return ("wait", list(ids), timeout)


def key_paths(v, path="$", out=None, limit=600):
    """Flat list of 'path: type[ = short value]' describing a JSON value."""
    if out is None:
        out = []
    if len(out) >= limit:
        return out
    if isinstance(v, dict):
        out.append("%s: object(%d keys)" % (path, len(v)))
        for k, x in v.items():
            key_paths(x, "%s.%s" % (path, k), out, limit)
    elif isinstance(v, list):
        out.append("%s: array(len %d)" % (path, len(v)))
        seen = set()
        for x in v:
            sub = []
            key_paths(x, path + "[]", sub, limit)
            for s in sub:
                # dedupe by path:type (drop the sample value)
                sig = s.split(" = ")[0]
                if sig not in seen:
                    seen.add(sig)
                    out.append(s)
    else:
        t = {bool: "boolean", int: "integer", float: "number", str: "string",
             type(None): "null"}.get(type(v), type(v).__name__)
        if isinstance(v, str):
            sv = json.dumps(v[:60], ensure_ascii=False) + ("..." if len(v) > 60 else "")
            out.append("%s: %s = %s" % (path, t, sv))
        else:
            out.append("%s: %s = %s" % (path, t, json.dumps(v)))
    return out


# ---------------------------------------------------------------- runner

class Run:
    def __init__(self, cli, name, steps, expect=None):
        self.cli, self.name, self.steps = cli, name, steps
        self.expect = expect
        self.lines = []        # (t_ms, bytes)
        self.partial = b""
        self.stderr = bytearray()
        self.cv = threading.Condition()
        self.eof = False

    def now(self):
        return round((time.monotonic() - self.t0) * 1000, 1)

    def _read_stdout(self):
        buf = b""
        fd = self.p.stdout.fileno()
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                with self.cv:
                    self.lines.append((self.now(), line))
                    self.cv.notify_all()
        with self.cv:
            self.partial = buf
            self.eof = True
            self.eof_ms = self.now()
            self.cv.notify_all()

    def _read_stderr(self):
        fd = self.p.stderr.fileno()
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            self.stderr += chunk

    def _replied_ids(self):
        ids = []
        for _, l in self.lines:
            try:
                o = json.loads(l)
            except Exception:
                continue
            if isinstance(o, dict) and o.get("type") == "control_response" and isinstance(o.get("response"), dict):
                ids.append(json.dumps(o["response"].get("request_id", "<missing>")))
        return ids

    def _have(self, ids):
        got = self._replied_ids()
        for i in ids:
            k = json.dumps(i)
            if k in got:
                got.remove(k)
            else:
                return False
        return True

    def _wait_for(self, ids, timeout):
        deadline = time.monotonic() + timeout
        with self.cv:
            while not self._have(ids) and not self.eof:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cv.wait(left)
            return self._have(ids)

    def run(self):
        home = tempfile.mkdtemp(prefix="conform-home-")
        cwd = tempfile.mkdtemp(prefix="conform-cwd-")
        writes, events = [], []
        default_expect = []
        try:
            self.t0 = time.monotonic()
            self.p = subprocess.Popen([self.cli] + CLI_ARGS, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      env=base_env(home), cwd=cwd, close_fds=True)
            to = threading.Thread(target=self._read_stdout, daemon=True)
            te = threading.Thread(target=self._read_stderr, daemon=True)
            to.start(); te.start()
            for st in self.steps:
                if st[0] == "write":
                    data = st[1]
                    rec = {"t_ms": self.now(), "bytes": len(data)}
                    if len(data) > LINE_KEEP:
                        rec["data_head"] = data[:300].decode("utf-8", "backslashreplace")
                        rec["data_tail"] = data[-100:].decode("utf-8", "backslashreplace")
                    else:
                        try:
                            rec["data"] = data.decode("utf-8")
                        except UnicodeDecodeError:
                            rec["data_escaped"] = data.decode("utf-8", "backslashreplace")
                            rec["utf8_valid"] = False
                    for ln in data.split(b"\n"):
                        try:
                            o = json.loads(ln)
                        except Exception:
                            continue
                        if isinstance(o, dict) and o.get("type") == "control_request" and "request_id" in o:
                            default_expect.append(o["request_id"])
                    try:
                        self.p.stdin.write(data)
                        self.p.stdin.flush()
                    except (BrokenPipeError, OSError) as e:
                        rec["write_error"] = "%s: %s" % (type(e).__name__, e)
                    writes.append(rec)
                elif st[0] == "sleep":
                    time.sleep(st[1])
                elif st[0] == "wait":
                    ok = self._wait_for(st[1], st[2])
                    events.append({"t_ms": self.now(), "wait_for": st[1], "satisfied": ok})
            expect = self.expect if self.expect is not None else default_expect
            ok = self._wait_for(expect, REPLY_WAIT)
            events.append({"t_ms": self.now(), "final_wait_for": expect, "satisfied": ok})
            exited_before_close = self.p.poll() is not None
            close_ms = self.now()
            try:
                self.p.stdin.close()
            except (BrokenPipeError, OSError):
                pass
            killed = False
            try:
                self.p.wait(timeout=EOF_WAIT)
            except subprocess.TimeoutExpired:
                killed = True
                self.p.kill()
                self.p.wait()
            exit_ms = self.now()
            to.join(2); te.join(2)
            rc = self.p.returncode
        finally:
            shutil.rmtree(home, ignore_errors=True)
            shutil.rmtree(cwd, ignore_errors=True)

        out_lines, summaries = [], []
        for t, l in self.lines:
            rec = {"t_ms": t, "after_close": t >= close_ms}
            try:
                text = l.decode("utf-8")
            except UnicodeDecodeError:
                text = None
            if len(l) > LINE_KEEP:
                rec["truncated"] = True
                rec["orig_bytes"] = len(l)
                rec["line"] = l[:LINE_KEEP].decode("utf-8", "backslashreplace")
            elif text is None:
                rec["line_escaped"] = l.decode("utf-8", "backslashreplace")
                rec["utf8_valid"] = False
            else:
                rec["line"] = text
            try:
                o = json.loads(l)
            except Exception:
                o = None
                rec["json_valid"] = False
            if isinstance(o, dict):
                rec["type"] = o.get("type")
                if "subtype" in o:
                    rec["subtype"] = o.get("subtype")
                if o.get("type") == "control_response" and isinstance(o.get("response"), dict):
                    rec["subtype"] = o["response"].get("subtype")
                    rid = o["response"].get("request_id")
                    try:
                        json.dumps(rid, ensure_ascii=False).encode("utf-8")
                        if rec.get("truncated") and isinstance(rid, str) and len(rid) > 200:
                            rec["request_id_head"] = rid[:200]
                            rec["request_id_chars"] = len(rid)
                        else:
                            rec["request_id"] = rid
                    except UnicodeEncodeError:  # lone surrogates: keep as ASCII JSON text
                        rj = json.dumps(rid)
                        if rec.get("truncated") and len(rj) > 400:
                            rec["request_id_json_head"] = rj[:400]
                            rec["request_id_chars"] = len(rid)
                        else:
                            rec["request_id_json"] = rj
                if rec.get("truncated"):
                    rec["top_keys"] = list(o.keys())
                    summaries.append({"t_ms": t, "key_paths": key_paths(o)})
            out_lines.append(rec)
        # request subtype summaries for the big bodies even when not truncated
        req_sub = {}
        for st in self.steps:
            if st[0] != "write":
                continue
            for ln in st[1].split(b"\n"):
                try:
                    o = json.loads(ln)
                except Exception:
                    continue
                if isinstance(o, dict) and isinstance(o.get("request"), dict):
                    req_sub[json.dumps(o.get("request_id"))] = o["request"].get("subtype")
        for rec, (t, l) in zip(out_lines, self.lines):
            if rec.get("type") == "control_response" and not rec.get("truncated") \
                    and req_sub.get(json.dumps(rec.get("request_id"))) in BIG_SUBTYPES:
                try:
                    summaries.append({"t_ms": t, "key_paths": key_paths(json.loads(l))})
                except Exception:
                    pass
        return {
            "probe": self.name,
            "cli": self.cli,
            "argv_tail": CLI_ARGS,
            "writes": writes,
            "events": events,
            "stdout": out_lines,
            "stdout_trailing_partial": self.partial.decode("utf-8", "backslashreplace") if self.partial else None,
            "exited_before_stdin_close": exited_before_close,
            "stdin_close_ms": close_ms,
            "stdout_eof_ms": getattr(self, "eof_ms", None),
            "exit_ms": exit_ms,
            "close_to_exit_ms": round(exit_ms - close_ms, 1),
            "killed_after_timeout": killed,
            "exit_status": rc,
            "stderr_bytes": len(self.stderr),
            "stderr_tail": bytes(self.stderr[-STDERR_KEEP:]).decode("utf-8", "backslashreplace"),
            "big_reply_key_paths": summaries,
        }


# ---------------------------------------------------------------- probes

def _sweep():
    """A request_id with every BMP code point (surrogates only as a few lone/reversed ones),
    plus astral samples; written fully \\u-escaped (ASCII-only input line)."""
    cps = [c for c in range(0x0000, 0x10000) if not (0xD800 <= c <= 0xDFFF)]
    cps += list(range(0x10000, 0x10400)) + [0x110BD, 0x110CD] + list(range(0x1342F, 0x13441)) \
        + list(range(0x1BC9F, 0x1BCA5)) + list(range(0x1D172, 0x1D17C)) + [0x1F600, 0x1FFFF, 0x20000] \
        + list(range(0xE0000, 0xE0081)) + [0xF0000, 0x10FFFF]
    parts = []
    for c in cps:
        if c < 0x10000:
            parts.append("\\u%04x" % c)
        else:
            v = c - 0x10000
            parts.append("\\u%04x\\u%04x" % (0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)))
    lone = "\\ud800x\\udbffx\\udc00x\\udfffx\\udc00\\ud800"  # 4 lone + reversed pair
    rid = "".join(parts) + lone
    line = ('{"type":"control_request","request_id":"%s","request":{"subtype":"get_binary_version"}}\n' % rid)
    return cps, line.encode("ascii")


SWEEP_CPS, SWEEP_LINE = _sweep()


def analyze_sweep(raw_line):
    """Classify how each input code point is echoed in the reply's request_id."""
    i = raw_line.find(b'"request_id":"')
    if i < 0:
        return {"error": "no request_id in reply"}
    s = raw_line[i + len(b'"request_id":"'):].decode("utf-8", "surrogatepass")
    units, k = [], 0
    short = {'"': 0x22, "\\": 0x5C, "/": 0x2F, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9}
    while k < len(s) and s[k] != '"':
        if s[k] == "\\":
            if s[k + 1] == "u":
                units.append((int(s[k + 2:k + 6], 16), s[k:k + 6])); k += 6
            else:
                units.append((short[s[k + 1]], s[k:k + 2])); k += 2
        else:
            units.append((ord(s[k]), "raw")); k += 1
    # join escaped surrogate pairs
    merged, j = [], 0
    while j < len(units):
        c, r = units[j]
        if 0xD800 <= c <= 0xDBFF and j + 1 < len(units) and 0xDC00 <= units[j + 1][0] <= 0xDFFF:
            c2, r2 = units[j + 1]
            merged.append((0x10000 + ((c - 0xD800) << 10) + (c2 - 0xDC00), r + r2 if r != "raw" else "raw"))
            j += 2
        else:
            merged.append((c, r)); j += 1
    exp = SWEEP_CPS + [0xD800, 0x78, 0xDBFF, 0x78, 0xDC00, 0x78, 0xDFFF, 0x78, 0xDC00, 0xD800]
    res = {"echoed_units": len(merged), "expected_units": len(exp), "mismatches": [],
           "short_escapes": {}, "u_escaped_ranges": [], "tail_lone_surrogates": [],
           "note": "input covers U+0000..U+FFFF (no surrogates), U+10000..U+103FF and the listed astral samples; "
                   "everything not listed in u_escaped_ranges/short_escapes was echoed raw (UTF-8)",
           "astral_samples": ["U+%04X" % c for c in SWEEP_CPS if c >= 0x10400]}
    cls = []
    for n, (c, r) in enumerate(merged):
        if n >= len(exp):
            break
        if c != exp[n] and len(res["mismatches"]) < 20:
            res["mismatches"].append({"index": n, "expected": "U+%04X" % exp[n], "got": "U+%04X" % c, "repr": r})
        kind = "raw" if r == "raw" else ("u" if r.startswith("\\u") else "short")
        if kind == "short":
            res["short_escapes"]["U+%04X" % c] = r
        if n >= len(SWEEP_CPS):
            res["tail_lone_surrogates"].append({"cp": "U+%04X" % c, "repr": r})
        else:
            cls.append((exp[n], kind))
    start = None
    for idx, (c, kind) in enumerate(cls + [(None, None)]):
        prev = cls[idx - 1][0] if idx else None
        if start is not None and (kind != "u" or c != prev + 1):
            res["u_escaped_ranges"].append("U+%04X..U+%04X" % (start, prev))
            start = None
        if kind == "u" and start is None:
            start = c
    return res


def probes():
    P = {}

    def single(name, request_obj, extra_steps=(), expect=None):
        P[name] = ([W(request_obj)] + list(extra_steps), expect)

    # 1. subtypes
    single("initialize-empty", req("req-1", "initialize"))
    single("initialize-hooks-empty", req("req-1", "initialize", hooks={}))
    single("interrupt", req("req-1", "interrupt"))
    single("set_model-sonnet", req("req-1", "set_model", model="sonnet"))
    single("set_model-missing", req("req-1", "set_model"))
    single("set_model-opus", req("req-1", "set_model", model="opus"))
    single("set_model-haiku", req("req-1", "set_model", model="haiku"))
    single("set_model-nonexistent", req("req-1", "set_model", model="claude-nonexistent-9"))
    for m in ("plan", "acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "nonsense"):
        single("set_permission_mode-" + m, req("req-1", "set_permission_mode", mode=m))
    single("set_permission_mode-missing", req("req-1", "set_permission_mode"))
    single("set_max_thinking_tokens-1024", req("req-1", "set_max_thinking_tokens", max_thinking_tokens=1024))
    single("set_max_thinking_tokens-null", req("req-1", "set_max_thinking_tokens", max_thinking_tokens=None))
    single("get_binary_version", req("req-1", "get_binary_version"))
    single("mcp_status", req("req-1", "mcp_status"))
    single("get_context_usage", req("req-1", "get_context_usage"))
    single("rewind_files", req("req-1", "rewind_files", user_message_id="00000000-0000-0000-0000-000000000000"))
    single("rewind_files-dry_run", req("req-1", "rewind_files",
                                       user_message_id="00000000-0000-0000-0000-000000000000", dry_run=True))
    single("mcp_reconnect-nope", req("req-1", "mcp_reconnect", serverName="nope"))
    single("mcp_toggle-nope", req("req-1", "mcp_toggle", serverName="nope", enabled=False))
    single("stop_task-nope", req("req-1", "stop_task", task_id="nope"))
    single("list_models", req("req-1", "list_models"))
    single("get_settings", req("req-1", "get_settings"))
    single("subtype-unknown-frobnicate", req("req-1", "frobnicate"))
    single("subtype-number-42", req("req-1", 42))
    single("subtype-missing", req("req-1"), [SLEEP(1.0), W(SYNC)])

    # 2. envelope corners (each followed by a sync request)
    def env(name, line, pre_wait=1.0, expect=None):
        P[name] = ([W(line), SLEEP(pre_wait), W(SYNC)], expect)

    gbv = {"subtype": "get_binary_version"}
    env("rid-empty", {"type": "control_request", "request_id": "", "request": gbv})
    env("rid-number-7", {"type": "control_request", "request_id": 7, "request": gbv})
    env("rid-null", {"type": "control_request", "request_id": None, "request": gbv})
    env("rid-missing", {"type": "control_request", "request": gbv})
    env("rid-nonascii", {"type": "control_request", "request_id": "réq-ü-😀", "request": gbv})
    env("rid-nonascii-escaped", (json.dumps({"type": "control_request", "request_id": "réq-ü-😀",
                                             "request": gbv}, separators=(",", ":")) + "\n").encode())
    env("rid-long-1000", {"type": "control_request", "request_id": "r" * 1000, "request": gbv})
    env("rid-escapes", {"type": "control_request", "request_id": "a\"b\\c\n\u2028", "request": gbv})
    env("rid-escapes-raw-u2028", ('{"type":"control_request","request_id":"a\\"b\\\\c\\n\u2028\\u0001/\\/",'
                                  '"request":{"subtype":"get_binary_version"}}\n').encode("utf-8"))
    P["rid-duplicate-get_binary_version"] = ([W(req("dup", "get_binary_version")),
                                              W(req("dup", "get_binary_version"))], ["dup", "dup"])
    P["rid-duplicate-set_model"] = ([W(req("dup", "set_model", model="sonnet")),
                                     W(req("dup", "set_model", model="opus"))], ["dup", "dup"])
    env("request-missing", {"type": "control_request", "request_id": "x"})
    env("request-string", {"type": "control_request", "request_id": "x", "request": "interrupt"})
    env("envelope-extra-member", {"type": "control_request", "request_id": "x",
                                  "request": {"subtype": "interrupt"}, "extra": 1})
    env("request-extra-member", {"type": "control_request", "request_id": "x",
                                 "request": {"subtype": "interrupt", "extra": 1}})

    # 3. frames that should get no reply (each followed by sync)
    env("nr-cancel-unknown", {"type": "control_cancel_request", "request_id": "unknown"})
    env("nr-control_response-unknown", {"type": "control_response",
                                        "response": {"subtype": "success", "request_id": "unknown", "response": {}}})
    env("nr-control_response-error-unknown", {"type": "control_response",
                                              "response": {"subtype": "error", "request_id": "unknown",
                                                           "error": "x"}})
    env("nr-type-unknown", {"type": "frobnicate"})
    env("nr-json-array", b"[]\n")
    env("nr-json-array-nonempty", b'[{"type":"control_request","request_id":"x","request":{"subtype":"interrupt"}}]\n')
    env("nr-json-number", b"42\n")
    env("nr-json-null", b"null\n")
    env("nr-json-string", b'"hello"\n')
    env("nr-json-object-empty", b"{}\n")
    env("nr-empty-line", b"\n")
    env("nr-spaces-line", b"   \n")
    env("nr-crlf-line", b'{"type":"control_request","request_id":"crlf","request":{"subtype":"get_binary_version"}}\r\n')

    # 4. fatal corners (each followed by sync)
    env("fatal-not-json", b"not json\n")
    P["fatal-after-valid-same-write"] = ([W(J(req("req-1", "get_binary_version")) + b"not json\n"
                                           + J(req("req-2", "get_binary_version"))), SLEEP(1.0)], [])
    P["fatal-after-slow-valid-same-write"] = ([W(J(req("req-1", "set_model", model="sonnet")) + b"not json\n"),
                                               SLEEP(1.0)], [])
    env("fatal-not-json-nonascii", "é😀x\n".encode("utf-8"))
    env("fatal-bare-cr-line", b"\r\n")
    env("fatal-invalid-utf8", b'{"type":"control_request","request_id":"u","request":'
                              b'{"subtype":"set_model","model":"ab\xff\xfecd"}}\n')
    env("fatal-2mb-line", J(req("big", "set_model", model="a" * (2 * 1024 * 1024))), pre_wait=2.0)
    env("fatal-duplicate-keys", b'{"type":"control_request","request_id":"a","request_id":"b",'
                                b'"request":{"subtype":"interrupt"}}\n')

    # 2b. more envelope corners: request_id JSON value forms (echo fidelity)
    for nm, raw in (("float-1.50", "1.50"), ("exp-1e3", "1e3"), ("neg-zero", "-0"),
                    ("bigint", "12345678901234567890"), ("huge-1e400", "1e400"),
                    ("true", "true"), ("object", '{"a":1}'), ("array", "[1,\"x\"]")):
        env("rid-" + nm, ('{"type":"control_request","request_id":%s,"request":{"subtype":"get_binary_version"}}\n'
                          % raw).encode(), expect=["sync"])
    env("rid-invalid-utf8", b'{"type":"control_request","request_id":"ab\xff\xfecd\xc3","request":'
                            b'{"subtype":"get_binary_version"}}\n', expect=["sync"])
    env("rid-escape-sweep", SWEEP_LINE, expect=["sync"])
    env("request-null", {"type": "control_request", "request_id": "x", "request": None})
    env("request-array", {"type": "control_request", "request_id": "x", "request": ["interrupt"]})
    env("request-number", {"type": "control_request", "request_id": "x", "request": 42})
    env("type-missing", {"request_id": "x", "request": {"subtype": "interrupt"}})
    P["initialize-twice"] = ([W(req("req-1", "initialize")), WAIT(["req-1"]), W(req("req-2", "initialize"))], None)
    P["initialize-then-idle"] = ([W(req("req-1", "initialize")), WAIT(["req-1"]), SLEEP(3.0), W(SYNC)], None)
    P["idle-then-sync"] = ([SLEEP(3.0), W(SYNC)], None)
    P["interrupt-twice"] = ([W(req("req-1", "interrupt")), W(req("req-2", "interrupt"))], None)
    single("set_model-empty-string", req("req-1", "set_model", model=""))
    single("set_model-null", req("req-1", "set_model", model=None))
    single("set_model-number", req("req-1", "set_model", model=42))
    single("set_model-default", req("req-1", "set_model", model="default"))
    single("set_model-full-id", req("req-1", "set_model", model="claude-sonnet-5-5"))
    single("set_model-sonnet-1m", req("req-1", "set_model", model="sonnet[1m]"))
    single("set_permission_mode-number", req("req-1", "set_permission_mode", mode=42))
    single("set_permission_mode-plan-twice-same-process",
           req("req-1", "set_permission_mode", mode="plan"),
           [WAIT(["req-1"]), W(req("req-2", "set_permission_mode", mode="plan"))])
    single("set_max_thinking_tokens-missing", req("req-1", "set_max_thinking_tokens"))
    single("set_max_thinking_tokens-string", req("req-1", "set_max_thinking_tokens", max_thinking_tokens="abc"))
    single("get_binary_version-extra", req("req-1", "get_binary_version", extra=1))
    env("nr-json-true", b"true\n")
    env("nr-json-false", b"false\n")
    env("fatal-truncated-json", b'{"type":"control_request","request_id":"x"\n')
    env("fatal-trailing-garbage", b'{"type":"control_request","request_id":"x","request":{"subtype":"interrupt"}} x\n')
    env("leading-spaces-json", b'   {"type":"control_request","request_id":"x","request":{"subtype":"interrupt"}}\n')
    env("leading-bom-json", b'\xef\xbb\xbf{"type":"control_request","request_id":"x","request":{"subtype":"interrupt"}}\n')
    env("two-objects-one-line", b'{"type":"control_request","request_id":"x","request":{"subtype":"interrupt"}}'
                                b'{"type":"control_request","request_id":"y","request":{"subtype":"interrupt"}}\n')

    # 5. ordering: pipelined, one write
    batch = b"".join([J(req("req-1", "set_model", model="sonnet")), J(req("req-2", "get_binary_version")),
                      J(req("req-3", "interrupt")), J(req("req-4", "mcp_status")),
                      J(req("req-5", "set_permission_mode", mode="plan"))])
    for i in range(1, 6):
        P["order-pipelined-%d" % i] = ([W(batch)], None)

    # 6. exit timing
    P["exit-after-version"] = ([W(req("req-1", "get_binary_version"))], None)
    P["exit-no-input"] = ([], [])
    P["exit-after-set_model"] = ([W(req("req-1", "set_model", model="sonnet"))], None)
    return P


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=False,
                    default="/root/.cache/conform/claude-code-2.1.332/node_modules/@anthropic-ai/claude-code/bin/claude.exe")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "observed"))
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    P = probes()
    if a.list:
        print("\n".join(P))
        return
    names = [n for n in a.only.split(",") if n] or list(P)
    os.makedirs(a.out, exist_ok=True)
    for n in names:
        steps, expect = P[n]
        r = Run(a.cli, n, steps, expect)
        t = r.run()
        if n == "rid-escape-sweep":
            for _, l in r.lines:
                if l.startswith(b'{"type":"control_response"') and b'"request_id":"sync"' not in l:
                    t["analysis"] = analyze_sweep(l)
                    break
        with open(os.path.join(a.out, n + ".json"), "w", encoding="utf-8") as f:
            json.dump(t, f, ensure_ascii=False, indent=1)
            f.write("\n")
        print("%-40s rc=%s close->exit=%sms lines=%d stderr=%dB" % (
            n, t["exit_status"], t["close_to_exit_ms"], len(t["stdout"]), t["stderr_bytes"]), flush=True)


if __name__ == "__main__":
    main()
