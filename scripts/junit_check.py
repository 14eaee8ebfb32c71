#!/usr/bin/env python3
"""Reads conform's JUnit output the way CI systems do (the junitparser package)
and checks it against the JSON report of the same run.

Usage: junit_check.py EXIT REPORT.json JUNIT.xml [EXIT REPORT.json JUNIT.xml ...]

EXIT is the exit status conform gave for that run. For each triple it checks:
- the counts junitparser computes from the test cases equal the counts the
  document declares (on <testsuites> and <testsuite>);
- each vector's test case has the outcome its status calls for (PASS: none;
  FAIL, SCHEMA_VIOLATION, PROTOCOL_ERROR, XPASS: failure; CRASH, TIMEOUT,
  INVALID: error; XFAIL, NOT_RUN, SKIPPED, informational: skipped with a reason), and
  a failure's or error's message starts with the code of the finding that
  decided the status (the headline names the failure);
- failures + errors is non-zero exactly when EXIT is;
- the suite's time is the run's wall time (elapsed_ms), its timestamp the
  run's start, and its verdict property the report's verdict.
Prints one line per file and exits 1 on the first mismatch.
"""
import json
import sys
from datetime import datetime, timezone

from junitparser import Error, Failure, JUnitXml, Skipped

FAILURE = {"FAIL", "SCHEMA_VIOLATION", "PROTOCOL_ERROR", "XPASS"}
ERROR = {"CRASH", "TIMEOUT", "INVALID"}


def fail(msg):
    print("junit_check: " + msg, file=sys.stderr)
    sys.exit(1)


def outcome(res):
    status, level = res["status"], res["level"]
    if status == "PASS":
        return "pass"
    if status in ("XFAIL", "NOT_RUN", "SKIPPED"):
        return "skipped"
    if status in ERROR:
        return "error"
    if level == "informational" and status != "XPASS":
        return "skipped"
    return "failure"


def headline(res):
    for f in res.get("findings", []):
        if f.get("status") == res["status"]:
            return f["code"]
    for f in res.get("findings", []):
        if f.get("status"):
            return f["code"]
    return res["status"]


def check(exit_code, report_path, junit_path):
    with open(report_path, encoding="utf-8") as f:
        rep = json.load(f)
    xml = JUnitXml.fromfile(junit_path)
    suites = list(xml)
    if len(suites) != 1:
        fail(f"{junit_path}: {len(suites)} test suites, want 1")
    suite = suites[0]

    # Declared counts against the cases junitparser reads.
    cases = list(suite)
    kinds = {"failure": 0, "error": 0, "skipped": 0}
    by_name = {}
    for c in cases:
        kind = "pass"
        for r in c.result:
            if isinstance(r, Failure):
                kind = "failure"
            elif isinstance(r, Error):
                kind = "error"
            elif isinstance(r, Skipped):
                kind = "skipped"
                if not (r.text or "").strip():
                    fail(f"{junit_path}: {c.name}: skipped without a reason")
        if kind != "pass":
            kinds[kind] += 1
        by_name[c.name] = (kind, c)
    declared = (suite.tests, suite.failures, suite.errors, suite.skipped)
    counted = (len(cases), kinds["failure"], kinds["error"], kinds["skipped"])
    if declared != counted:
        fail(f"{junit_path}: testsuite declares tests/failures/errors/skipped {declared}, cases give {counted}")
    if (xml.tests, xml.failures, xml.errors) != counted[:3]:
        fail(f"{junit_path}: testsuites declares {(xml.tests, xml.failures, xml.errors)}, cases give {counted[:3]}")

    # Each vector's outcome and headline.
    for res in rep["results"]:
        if res["id"] not in by_name:
            fail(f"{junit_path}: no test case for vector {res['id']}")
        kind, case = by_name[res["id"]]
        want = outcome(res)
        if kind != want:
            fail(f"{junit_path}: {res['id']} is {res['status']} ({res['level']}), JUnit says {kind}, want {want}")
        if kind in ("failure", "error"):
            msg = case.result[0].message or ""
            code = headline(res)
            if not msg.startswith(code + ": ") and msg != code:
                fail(f"{junit_path}: {res['id']}: headline {msg!r} does not name {code}")
            if case.result[0].type != res["status"]:
                fail(f"{junit_path}: {res['id']}: type {case.result[0].type!r}, want {res['status']}")

    red = kinds["failure"] + kinds["error"] > 0
    if red != (exit_code != 0):
        fail(f"{junit_path}: failures+errors = {kinds['failure'] + kinds['error']}, but conform exited {exit_code}")

    # Wall-clock time and start.
    elapsed = rep.get("elapsed_ms", 0) / 1000
    if abs(suite.time - elapsed) > 0.0005 or abs(xml.time - elapsed) > 0.0005:
        fail(f"{junit_path}: time {suite.time} (testsuite), {xml.time} (testsuites); the run took {elapsed} s")
    if "started" in rep:
        start = datetime.fromisoformat(rep["started"].replace("Z", "+00:00")).replace(microsecond=0)
        ts = datetime.fromisoformat(suite.timestamp.replace("Z", "+00:00"))
        if ts.astimezone(timezone.utc) != start:
            fail(f"{junit_path}: timestamp {suite.timestamp}, the run started {rep['started']}")
    props = {p.name: p.value for p in suite.properties()}
    if props.get("verdict") != rep["verdict"]:
        fail(f"{junit_path}: verdict property {props.get('verdict')!r}, report says {rep['verdict']}")
    print(f"junit_check: {junit_path}: {counted[0]} tests, {counted[1]} failures, {counted[2]} errors, "
          f"{counted[3]} skipped, {suite.time} s, {rep['verdict']} (exit {exit_code}): ok")


def main(args):
    if not args or len(args) % 3:
        fail("usage: junit_check.py EXIT REPORT.json JUNIT.xml [...]")
    for i in range(0, len(args), 3):
        check(int(args[i]), args[i + 1], args[i + 2])


if __name__ == "__main__":
    main(sys.argv[1:])
