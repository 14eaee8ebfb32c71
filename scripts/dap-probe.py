#!/usr/bin/env python3
"""dap-probe.py: a small framed DAP client to see what a real debug adapter does.

Usage:
  scripts/dap-probe.py [--scenario NAME] [--wait S] -- COMMAND [ARG...]
  scripts/dap-probe.py [--scenario NAME] --profile impl/dap-NAME

Starts COMMAND in a fresh temporary working directory and speaks the Debug
Adapter Protocol's base protocol to it over stdio (Content-Length header
part, then a JSON body). Each scenario is a list of requests; after each one
the probe waits up to --wait seconds for its response (matched by
request_seq) and keeps every message the adapter wrote meanwhile (events,
reverse requests, other responses). Prints one JSON object: the messages in
order, each shortened, and the exit code once stdin is left open for
--grace seconds after the last request.

Scenarios: basic (initialize, disconnect), launch (initialize, launch with
the profile's var launchArguments or {}, disconnect), attach (the same with
attach), unknown (initialize, two unknown commands in flight, disconnect),
early (threads before initialize, initialize, disconnect), twice
(initialize twice, disconnect), cancel (initialize, cancel {}, disconnect).

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

INIT_ARGS = {"clientID": "probe", "clientName": "dap-probe", "adapterID": "probe", "pathFormat": "path",
             "linesStartAt1": True, "columnsStartAt1": True, "locale": "en"}


def reader(f, q):
    while True:
        headers = {}
        while True:
            line = f.readline()
            if not line:
                q.put(None)
                return
            if line in (b"\r\n", b"\n"):
                if headers:
                    break
                continue
            if b":" not in line:
                q.put({"_junk": line[:200].decode("utf-8", "replace")})
                continue
            k, v = line.split(b":", 1)
            headers[k.strip().lower()] = v.strip()
        body = f.read(int(headers.get(b"content-length", b"0")))
        try:
            q.put(json.loads(body))
        except ValueError:
            q.put({"_unparsed": body[:300].decode("utf-8", "replace")})


def short(m, n=300):
    s = json.dumps(m, ensure_ascii=False)
    return m if len(s) <= n else s[:n] + "..."


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenario", default="basic",
                    choices=["basic", "launch", "attach", "unknown", "early", "twice", "cancel"])
    ap.add_argument("--wait", type=float, default=10.0)
    ap.add_argument("--grace", type=float, default=5.0)
    ap.add_argument("--profile")
    ap.add_argument("command", nargs="*")
    a = ap.parse_args()
    env = dict(os.environ)
    work = tempfile.mkdtemp(prefix="dap-probe-")
    env["HOME"] = work
    launch_args, attach_args = {}, {}
    if a.profile:
        d = os.path.abspath(a.profile)
        prof = json.load(open(os.path.join(d, "profile.json")))
        cache = os.environ.get("CONFORM_CACHE") or os.path.expanduser("~/.cache/conform")
        a.command = [c.replace("${PROFILE_DIR}", d).replace("${CONFORM_CACHE}", cache) for c in prof["command"]]
        for k, v in (prof.get("env") or {}).items():
            env[k] = v.replace("${HOME}", work)
        launch_args = prof.get("vars", {}).get("launchArguments", {})
        attach_args = prof.get("vars", {}).get("attachArguments", {})
    if not a.command:
        ap.error("a command (after --) or --profile is needed")
    init = ("initialize", INIT_ARGS)
    disc = ("disconnect", {})
    plan = {
        "basic": [init, disc],
        "launch": [init, ("launch", launch_args), disc],
        "attach": [init, ("attach", attach_args), disc],
        "unknown": [init, ("conformNoSuchCommand", {}), ("+conformNoSuchCommandEither", {}), disc],
        "early": [("threads", None), init, disc],
        "twice": [init, init, disc],
        "cancel": [init, ("cancel", {}), disc],
    }[a.scenario]
    t0 = time.monotonic()
    p = subprocess.Popen(a.command, cwd=work, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    q = queue.Queue()
    threading.Thread(target=reader, args=(p.stdout, q), daemon=True).start()
    err = bytearray()
    threading.Thread(target=lambda: [err.extend(c) for c in iter(lambda: p.stderr.read(4096), b"")],
                     daemon=True).start()
    log = []
    seq = 0

    def take(until_seq, wait):
        end = time.monotonic() + wait
        while True:
            left = end - time.monotonic()
            if left <= 0:
                log.append({"_t": round(time.monotonic() - t0, 2), "_timeout_waiting_for": until_seq})
                return
            try:
                m = q.get(timeout=left)
            except queue.Empty:
                continue
            if m is None:
                log.append({"_t": round(time.monotonic() - t0, 2), "_eof": True})
                return "eof"
            log.append({"_t": round(time.monotonic() - t0, 2), **(short(m) if isinstance(short(m), dict) else {"_long": short(m)})})
            if m.get("type") == "request":
                # A reverse request (runInTerminal, startDebugging): refused.
                send({"type": "response", "request_seq": m.get("seq"), "command": m.get("command"),
                      "success": False, "message": "dap-probe does not do " + str(m.get("command"))})
            if until_seq is not None and m.get("type") == "response" and m.get("request_seq") == until_seq:
                return

    def send(m):
        nonlocal seq
        seq += 1
        m = {"seq": seq, **m}
        body = json.dumps(m).encode()
        try:
            p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            p.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass
        return seq

    eof = None
    for i, (cmd, args) in enumerate(plan):
        cmd = cmd.lstrip("+")  # "+": sent at once after the previous one
        req = {"type": "request", "command": cmd}
        if args is not None:
            req["arguments"] = args
        s = send(req)
        log.append({"_t": round(time.monotonic() - t0, 2), "_sent": {"seq": s, "command": cmd}})
        following_nowait = i + 1 < len(plan) and plan[i + 1][0].startswith("+")
        if not following_nowait:
            eof = take(s, a.wait)
        if eof:
            break
    if not eof:
        take(None, 0.5)
    try:
        code = p.wait(timeout=a.grace)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        code = "still running %ss after the last request (killed)" % a.grace
    out = {"scenario": a.scenario, "command": a.command, "messages": log, "exit_code": code,
           "stderr_tail": err.decode("utf-8", "replace")[-500:]}
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
