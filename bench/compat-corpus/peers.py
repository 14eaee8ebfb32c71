"""Runs one peer over the cases that compat-corpus --export wrote.

    peers.py jsoncompat|jsonsubschema CASES.jsonl OUT.jsonl

Each output line is {"key": ..., "compatible": true|false|null, "error": ...,
"cpu_ms": ...}: cpu_ms is the process CPU time of the one call (time.process_time).
reader direction: the new schema accepts every instance of the old one;
writer direction: the old schema accepts every instance of the new one.
  jsoncompat:    check_compat(old, new, "deserializer") for reader (the new
                 schema deserializes old data), "serializer" for writer.
  jsonsubschema: isSubschema(old, new) for reader, isSubschema(new, old) for
                 writer.
A peer that raises or does not answer within 20 s is an error (null).
Run it with the peer's own venv python (install-peers.sh).
"""
import json
import signal
import sys
import time


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout("no answer within 20 s")


def main():
    peer, cases, out = sys.argv[1], sys.argv[2], sys.argv[3]
    if peer == "jsoncompat":
        import jsoncompat as jsc

        def check(old, new, direction):
            role = "deserializer" if direction == "reader" else "serializer"
            return bool(jsc.check_compat(json.dumps(old), json.dumps(new), role))
    elif peer == "jsonsubschema":
        from jsonsubschema import api

        def check(old, new, direction):
            if direction == "reader":
                return bool(api.isSubschema(old, new))
            return bool(api.isSubschema(new, old))
    else:
        sys.exit("peers.py: unknown peer " + peer)
    signal.signal(signal.SIGALRM, _alarm)
    with open(cases) as f, open(out, "w") as w:
        for line in f:
            c = json.loads(line)
            rec = {"key": c["key"]}
            signal.alarm(20)
            t0 = time.process_time()
            try:
                rec["compatible"] = check(c["old"], c["new"], c["direction"])
                rec["cpu_ms"] = round((time.process_time() - t0) * 1000, 3)
            except BaseException as e:  # noqa: BLE001 - any failure of the peer is its verdict "error"
                if isinstance(e, KeyboardInterrupt):
                    raise
                rec["compatible"] = None
                rec["error"] = (type(e).__name__ + ": " + str(e))[:300]
            finally:
                signal.alarm(0)
            w.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()
