#!/usr/bin/env python3
"""Drive an MCP stdio server by hand and print what it writes, with timing.

    probe.py [--timeout S] [--grace S] [--capture FILE] SCENARIO -- COMMAND [ARG...]

SCENARIO is a text file, one item per line:

    {...}                 a line written to the server's stdin as is (any text, valid JSON or not)
    #line <text>          <text> written verbatim (for lines that start with '#', or blank: '#line ')
    #wait <id>            hold the next items until a response with this id (JSON: 1, "a") has come
    #sleep <ms>           pause
    #close                close stdin now, without waiting for the responses still due
    #answer <method> <json result>
                          from now on, answer every request of <method> the server sends with this result
    #answer-error <method> <code> <message>
                          ... or with this error
    # anything else       a comment

After the last item the probe keeps stdin open until every request it sent has a
response (or --timeout passes), then closes stdin and waits up to --grace seconds
for the server to exit. It prints every line it sent (>) and received (<) with
milliseconds since start, then the exit status, or LINGERED if the server was
still running (it is then killed). --capture appends every received line to FILE
(for the schema check). Python standard library only.
"""

import argparse
import json
import os
import queue
import subprocess
import sys
import threading
import time


def parse_scenario(path):
    items = []
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith("#line "):
                items.append(("send", line[len("#line "):]))
            elif line.startswith("#wait "):
                items.append(("wait", json.loads(line[len("#wait "):])))
            elif line.startswith("#sleep "):
                items.append(("sleep", int(line[len("#sleep "):])))
            elif line == "#close":
                items.append(("close",))
            elif line.startswith("#answer-error "):
                method, code, message = line[len("#answer-error "):].split(" ", 2)
                items.append(("answer", method, {"error": {"code": int(code), "message": message}}))
            elif line.startswith("#answer "):
                method, result = line[len("#answer "):].split(" ", 1)
                items.append(("answer", method, {"result": json.loads(result)}))
            elif line.startswith("#") or line == "":
                continue
            else:
                items.append(("send", line))
    return items


def key(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds to wait for the replies (default 20)")
    ap.add_argument("--grace", type=float, default=5.0, help="seconds to wait for exit after stdin closes (default 5)")
    ap.add_argument("--capture", help="append every received line to this file")
    ap.add_argument("scenario")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("no command after --")
    items = parse_scenario(args.scenario)

    start = time.monotonic()

    def stamp():
        return "+%6dms" % int((time.monotonic() - start) * 1000)

    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    received = queue.Queue()
    answered = set()
    answers = {}
    lock = threading.Lock()
    out_lines = []

    def reader():
        for raw in proc.stdout:
            received.put(raw.decode("utf-8", "replace").rstrip("\n"))
        received.put(None)

    stderr_chunks = []

    def err_reader():
        stderr_chunks.append(proc.stderr.read())

    threading.Thread(target=reader, daemon=True).start()
    threading.Thread(target=err_reader, daemon=True).start()

    def write(text):
        print("%s > %s" % (stamp(), text), flush=True)
        try:
            proc.stdin.write((text + "\n").encode("utf-8"))
            proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            print("%s ! stdin closed by the server" % stamp(), flush=True)

    eof = [False]

    def pump(block_until, deadline=None):
        """Read lines until block_until() is true (True) or the deadline passes (False)."""
        if deadline is None:
            deadline = time.monotonic() + args.timeout
        while True:
            if block_until():
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if eof[0]:
                time.sleep(min(left, 0.02))
                continue
            try:
                line = received.get(timeout=min(left, 0.02))
            except queue.Empty:
                continue
            if line is None:
                eof[0] = True
                print("%s < (end of output)" % stamp(), flush=True)
                continue
            handle(line)

    def handle(line):
        print("%s < %s" % (stamp(), line), flush=True)
        out_lines.append(line)
        try:
            msg = json.loads(line)
        except ValueError:
            return
        if not isinstance(msg, dict):
            return
        if "method" not in msg and "id" in msg:
            with lock:
                answered.add(key(msg["id"]))
        elif "method" in msg and "id" in msg and msg["method"] in answers:
            reply = {"jsonrpc": "2.0", "id": msg["id"]}
            reply.update(answers[msg["method"]])
            write(json.dumps(reply, separators=(",", ":")))

    sent_ids = []
    for item in items:
        if item[0] == "send":
            text = item[1]
            try:
                msg = json.loads(text)
                if isinstance(msg, dict) and "method" in msg and "id" in msg:
                    sent_ids.append(key(msg["id"]))
            except ValueError:
                pass
            write(text)
            # read whatever is already there without blocking
            pump(lambda: received.empty())
        elif item[0] == "wait":
            want = key(item[1])
            if not pump(lambda: want in answered):
                print("%s ! no response with id %s" % (stamp(), want), flush=True)
        elif item[0] == "sleep":
            pump(lambda: False, deadline=time.monotonic() + item[1] / 1000)
        elif item[0] == "answer":
            answers[item[1]] = item[2]
        elif item[0] == "close":
            break

    missing = lambda: [i for i in sent_ids if i not in answered]
    if eof[0] and missing():
        print("%s ! no response for %s" % (stamp(), ", ".join(missing())), flush=True)
    elif items and items[-1][0] != "close" and not pump(lambda: not missing() or eof[0]):
        print("%s ! no response for %s" % (stamp(), ", ".join(missing())), flush=True)
    print("%s - stdin closed" % stamp(), flush=True)
    try:
        proc.stdin.close()
    except BrokenPipeError:
        pass
    deadline = time.monotonic() + args.grace
    while not eof[0] and time.monotonic() < deadline:
        try:
            line = received.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        if line is None:
            eof[0] = True
            print("%s < (end of output)" % stamp(), flush=True)
            break
        handle(line)
    try:
        code = proc.wait(timeout=max(0.01, deadline - time.monotonic()))
        print("%s = exit %d" % (stamp(), code), flush=True)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        print("%s = LINGERED (still running %.1fs after stdin closed; killed)" % (stamp(), args.grace), flush=True)
    err = b"".join(c for c in stderr_chunks if c)
    if err:
        lines = err.decode("utf-8", "replace").splitlines()
        print("%s stderr: %d lines, first: %s" % (stamp(), len(lines), lines[0][:200]), flush=True)
    if args.capture:
        with open(args.capture, "a", encoding="utf-8") as f:
            for line in out_lines:
                f.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
