#!/usr/bin/env python3
"""lsp-probe.py: a small framed LSP client to see what a real language server does.

Usage:
  scripts/lsp-probe.py [options] -- COMMAND [ARG...]
  scripts/lsp-probe.py [options] --profile impl/lsp-NAME

--profile takes the command, env and document (vars languageId, uri, text,
hoverLine, hoverCharacter) from a conform profile; ${PROFILE_DIR},
${CONFORM_CACHE} (default ~/.cache/conform), ${HOME} (the fresh home under
the root) and, in the uri, ${work} (the root) are expanded.

Starts COMMAND with a fresh working directory (its root, a temporary folder
unless --root is given), speaks the LSP base protocol to it over stdio
(Content-Length header part, then a JSON-RPC 2.0 body) and prints what it
did, as one JSON object on stdout: the capabilities it declared, the
requests and notifications it sent to the client (methods, counted), what it
answered to each probe request, and its exit code. --log FILE keeps every
frame in both directions as JSON lines ({"t": seconds, "dir": "->"|"<-",
"body": ...}).

Scenarios (--scenario):
  basic      initialize (rootUri and one workspace folder: the root),
             initialized, didOpen of the document, hover at (--line,
             --character), documentSymbol, didChange (whole text), hover
             again, didClose, shutdown, exit (default)
  errors     after initialize: a body that is not JSON, a request without
             "method", an unknown method, a $/ notification, a $/ request,
             $/cancelRequest of an unknown id; then shutdown and a request
             after shutdown, exit
  pre-init   a request (textDocument/hover) and a notification before
             initialize, then initialize twice, shutdown, exit
  no-shutdown initialize, initialized, exit without shutdown (exit code 1?)
  encoding   initialize offering general.positionEncodings (--encodings,
             default utf-8,utf-16), then hover at the same position counted
             in the negotiated encoding (--character-utf8 when utf-8 is
             chosen)

The client answers the server's own requests: workspace/configuration with
one null per item, window/workDoneProgress/create, client/registerCapability
and client/unregisterCapability with null, workspace/workspaceFolders with
the root folder, window/showMessageRequest with null, others with -32601.

Only the Python standard library; no dependency on conform.
"""

import argparse
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time


class Peer:
    """Framed JSON-RPC over a child's stdin/stdout."""

    def __init__(self, argv, cwd, env, log):
        self.t0 = time.monotonic()
        self.log = log
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.inbox = queue.Queue()
        self.stderr = bytearray()
        self.junk = []  # bytes outside frames
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for chunk in iter(lambda: self.proc.stderr.read(4096), b""):
            if len(self.stderr) < 1 << 20:
                self.stderr += chunk

    def _read(self):
        f = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = f.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    if headers:
                        break
                    continue
                if b":" not in line:
                    self.junk.append(line[:200])
                    continue
                k, v = line.split(b":", 1)
                headers[k.strip().lower()] = v.strip()
            n = int(headers.get(b"content-length", b"0"))
            body = f.read(n)
            try:
                msg = json.loads(body)
            except ValueError:
                msg = {"_unparsed": body.decode("utf-8", "replace")[:500]}
            self._log("<-", msg)
            self.inbox.put(msg)

    def _log(self, d, body):
        if self.log:
            self.log.write(json.dumps({"t": round(time.monotonic() - self.t0, 3), "dir": d, "body": body}) + "\n")
            self.log.flush()

    def send_raw(self, body):
        if isinstance(body, str):
            body = body.encode()
        self._log("->", body.decode("utf-8", "replace"))
        try:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    def send(self, msg):
        body = json.dumps(msg, ensure_ascii=False).encode()
        self._log("->", msg)
        try:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    def get(self, timeout):
        try:
            return self.inbox.get(timeout=timeout)
        except queue.Empty:
            return "timeout"


class Probe:
    def __init__(self, args):
        self.args = args
        self.root = args.root or tempfile.mkdtemp(prefix="lsp-probe-")
        self.root = os.path.abspath(self.root)
        self.root_uri = "file://" + self.root
        self.uri = self.root_uri + "/" + args.file
        if args.on_disk:
            with open(os.path.join(self.root, args.file), "w") as f:
                f.write(args.text_value)
        env = dict(os.environ)
        env["HOME"] = self.root + "/.home"
        os.makedirs(env["HOME"], exist_ok=True)
        for k, v in args.env.items():
            env[k] = v.replace("${HOME}", env["HOME"])
        self.log = open(args.log, "w") if args.log else None
        self.peer = Peer(args.command, self.root, env, self.log)
        self.next_id = 0
        self.server_requests = {}
        self.notifications = {}
        self.diagnostics = []
        self.answers = {}
        self.eof = False

    def note(self, msg):
        if "method" in msg and "id" in msg:
            m = msg["method"]
            self.server_requests[m] = self.server_requests.get(m, 0) + 1
            self.peer.send({"jsonrpc": "2.0", "id": msg["id"], **self.answer_for(msg)})
        elif "method" in msg:
            m = msg["method"]
            self.notifications[m] = self.notifications.get(m, 0) + 1
            if m == "textDocument/publishDiagnostics":
                self.diagnostics.append(len(msg.get("params", {}).get("diagnostics", [])))

    def answer_for(self, msg):
        m = msg["method"]
        p = msg.get("params") or {}
        if m == "workspace/configuration":
            return {"result": [None for _ in p.get("items", [])]}
        if m in ("window/workDoneProgress/create", "client/registerCapability",
                 "client/unregisterCapability", "window/showMessageRequest",
                 "workspace/semanticTokens/refresh", "workspace/inlayHint/refresh",
                 "workspace/diagnostic/refresh", "workspace/codeLens/refresh"):
            return {"result": None}
        if m == "workspace/workspaceFolders":
            return {"result": [{"uri": self.root_uri, "name": "root"}]}
        return {"error": {"code": -32601, "message": "probe: not handled " + m}}

    def pump(self, timeout):
        """Handles whatever arrives within timeout; False at end of stream."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return True
            msg = self.peer.get(left)
            if msg == "timeout":
                return True
            if msg is None:
                self.eof = True
                return False
            self.note(msg)

    def request(self, method, params=None, timeout=None, raw_id=None):
        if raw_id is None:
            self.next_id += 1
            rid = self.next_id
        else:
            rid = raw_id
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        t = time.monotonic()
        self.peer.send(msg)
        return self.await_reply(rid, timeout or self.args.timeout, t)

    def await_reply(self, rid, timeout, t=None):
        t = t or time.monotonic()
        end = t + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return {"_timeout": round(timeout, 1)}
            msg = self.peer.get(left)
            if msg == "timeout":
                return {"_timeout": round(timeout, 1)}
            if msg is None:
                self.eof = True
                return {"_eof": True}
            if "method" not in msg and msg.get("id") == rid:
                out = {k: v for k, v in msg.items() if k != "jsonrpc"}
                out["_ms"] = int((time.monotonic() - t) * 1000)
                return out
            if "method" not in msg:
                self.answers.setdefault("_other_replies", []).append(msg)
                continue
            self.note(msg)

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.peer.send(msg)

    def init_params(self, encodings=None):
        caps = {
            "textDocument": {
                "synchronization": {"dynamicRegistration": False},
                "hover": {"contentFormat": ["plaintext", "markdown"]},
                "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
                "publishDiagnostics": {},
            },
            "workspace": {"configuration": True, "workspaceFolders": True,
                          "didChangeConfiguration": {"dynamicRegistration": True}},
            "window": {"workDoneProgress": True},
        }
        if self.args.suite_caps:
            caps = {"textDocument": caps["textDocument"]}
            del caps["textDocument"]["publishDiagnostics"]
        if encodings:
            caps["general"] = {"positionEncodings": encodings}
        p = {"processId": None, "clientInfo": {"name": "lsp-probe", "version": "0"},
             "rootUri": self.root_uri, "capabilities": caps}
        if not self.args.no_folders:
            p["workspaceFolders"] = [{"uri": self.root_uri, "name": "root"}]
        return p

    def exit_code(self):
        try:
            return self.peer.proc.wait(timeout=self.args.grace)
        except subprocess.TimeoutExpired:
            self.peer.proc.kill()
            self.peer.proc.wait()
            return "killed after %ss" % self.args.grace

    def doc_item(self):
        return {"uri": self.uri, "languageId": self.args.language_id, "version": 1, "text": self.args.text_value}

    def pos(self, character=None):
        return {"textDocument": {"uri": self.uri},
                "position": {"line": self.args.line, "character": self.args.character if character is None else character}}

    def summary_caps(self, init):
        caps = (init.get("result") or {}).get("capabilities") or {}
        keep = ("positionEncoding", "textDocumentSync", "hoverProvider", "documentSymbolProvider")
        out = {k: caps.get(k, "<absent>") for k in keep}
        out["_all"] = sorted(caps)
        info = (init.get("result") or {}).get("serverInfo")
        if info and len(json.dumps(info)) > 200:
            info = {"name": info.get("name"), "version": str(info.get("version"))[:80] + "..."}
        out["serverInfo"] = info
        return out

    def run(self):
        a = self.args
        s = a.scenario
        r = {"scenario": s, "command": a.command, "root": self.root, "uri": self.uri}
        if s == "pre-init":
            r["hover_before_init"] = self.request("textDocument/hover", self.pos(), timeout=a.short)
            self.notify("textDocument/didOpen", {"textDocument": self.doc_item()})
            self.pump(0.5)
        init = self.request("initialize", self.init_params(a.encodings.split(",") if s == "encoding" else None))
        r["initialize_ms"] = init.get("_ms")
        if "result" not in init:
            r["initialize"] = init
        else:
            r["capabilities"] = self.summary_caps(init)
        self.notify("initialized", {})
        if s == "pre-init":
            r["initialize_twice"] = self.request("initialize", self.init_params(), timeout=a.short)
        if s == "basic" or s == "encoding":
            self.notify("textDocument/didOpen", {"textDocument": self.doc_item()})
            ch = a.character
            if s == "encoding":
                enc = ((init.get("result") or {}).get("capabilities") or {}).get("positionEncoding", "utf-16")
                r["negotiated"] = enc
                if enc == "utf-8" and a.character_utf8 is not None:
                    ch = a.character_utf8
                if enc == "utf-32" and a.character_utf32 is not None:
                    ch = a.character_utf32
            r["hover"] = self.request("textDocument/hover", self.pos(ch))
            if s == "basic":
                r["documentSymbol"] = self.request("textDocument/documentSymbol", {"textDocument": {"uri": self.uri}})
                self.notify("textDocument/didChange", {"textDocument": {"uri": self.uri, "version": 2},
                                                      "contentChanges": [{"text": a.text_value}]})
                r["hover_after_change"] = self.request("textDocument/hover", self.pos())
                self.notify("textDocument/didClose", {"textDocument": {"uri": self.uri}})
        if s == "errors":
            self.peer.send_raw('{"jsonrpc": "2.0", "id": 1, "method": "initialize", ')  # not JSON
            r["parse_error"] = self.await_reply(None, a.short)
            self.peer.send({"jsonrpc": "2.0", "id": "noMethod", "params": {}})
            r["invalid_request"] = self.await_reply("noMethod", a.short)
            r["method_not_found"] = self.request("conform/unknownMethod", {}, timeout=a.short)
            self.notify("$/conformUnknown", {})
            r["dollar_request"] = self.request("$/conformUnknown", {}, timeout=a.short)
            self.notify("$/cancelRequest", {"id": 4242})
            r["after_cancel_unknown_alive"] = self.request("textDocument/documentSymbol",
                                                           {"textDocument": {"uri": self.uri}}, timeout=a.short)
        if s == "no-shutdown":
            self.pump(1)
            self.notify("exit")
            r["exit_code"] = self.exit_code()
        else:
            r["shutdown"] = self.request("shutdown")
            if s == "errors":
                r["request_after_shutdown"] = self.request("textDocument/hover", self.pos(), timeout=a.short)
            self.notify("exit")
            self.pump(0.2)
            r["exit_code"] = self.exit_code()
        self.pump(0.1)
        if self.answers.get("_other_replies"):
            r["other_replies"] = self.answers["_other_replies"][:5]
        r["server_requests"] = self.server_requests
        r["notifications"] = self.notifications
        r["diagnostics_counts"] = self.diagnostics
        if self.peer.junk:
            r["bytes_outside_frames"] = [j.decode("utf-8", "replace") for j in self.peer.junk[:5]]
        err = bytes(self.peer.stderr).decode("utf-8", "replace")
        r["stderr_tail"] = err[-600:]
        return r


def load_profile(args):
    d = os.path.abspath(args.profile)
    with open(os.path.join(d, "profile.json")) as f:
        prof = json.load(f)
    cache = os.environ.get("CONFORM_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "conform")
    subst = {"${PROFILE_DIR}": d, "${CONFORM_CACHE}": cache}

    def ex(v):
        for k, x in subst.items():
            v = v.replace(k, x)
        return v
    args.command = [ex(c) for c in prof["command"]]
    args.env = {k: ex(v) for k, v in (prof.get("env") or {}).items()}
    v = prof.get("vars") or {}
    args.language_id = v.get("languageId", args.language_id)
    if "text" in v and not (args.text or args.text_file):
        args.text = v["text"]
    if "hoverLine" in v:
        args.line = v["hoverLine"]
    if "hoverCharacter" in v:
        args.character = v["hoverCharacter"]
    uri = v.get("uri", "file://${work}/doc.txt")
    prefix = "file://${work}/"
    if not uri.startswith(prefix):
        raise SystemExit("lsp-probe: uri var %r does not start with %s" % (uri, prefix))
    args.file = uri[len(prefix):]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenario", default="basic",
                    choices=["basic", "errors", "pre-init", "no-shutdown", "encoding"])
    ap.add_argument("--language-id", default="plaintext")
    ap.add_argument("--file", default="doc.txt", help="the document's file name under the root")
    ap.add_argument("--text", help="the document's text")
    ap.add_argument("--text-file", help="read the document's text from this file")
    ap.add_argument("--line", type=int, default=0)
    ap.add_argument("--character", type=int, default=0)
    ap.add_argument("--character-utf8", type=int)
    ap.add_argument("--character-utf32", type=int)
    ap.add_argument("--encodings", default="utf-8,utf-16")
    ap.add_argument("--root", help="the server's working directory and root (default: a new temporary folder)")
    ap.add_argument("--on-disk", action="store_true", help="also write the document under the root")
    ap.add_argument("--no-folders", action="store_true", help="send rootUri only, no workspaceFolders")
    ap.add_argument("--suite-caps", action="store_true",
                    help="declare only the textDocument capabilities the LSP suite's document vectors declare "
                         "(no workspace.configuration, no window.workDoneProgress); with --no-folders, their initialize")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for a reply")
    ap.add_argument("--short", type=float, default=3.0, help="seconds to wait for a reply to an error probe")
    ap.add_argument("--grace", type=float, default=5.0, help="seconds to wait for the exit")
    ap.add_argument("--log", help="write every frame as JSON lines here")
    ap.add_argument("--profile", help="a conform profile folder: command, env and document vars from it")
    ap.add_argument("command", nargs="*")
    args = ap.parse_args()
    args.env = {}
    if args.profile:
        load_profile(args)
    if not args.command:
        ap.error("a command (after --) or --profile is needed")
    if args.text_file:
        with open(args.text_file) as f:
            args.text_value = f.read()
    else:
        args.text_value = args.text or ""
    r = Probe(args).run()
    json.dump(r, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
