#!/usr/bin/env python3
"""Prints "<vector id> <status>" per result of a conform JSON report, sorted by
id, for CI's stability checks (the same status per vector in repeated runs).
A vector whose expected-failure entry is marked intermittent (its reason
starts "intermittent:", docs/profiles.md "Expected failures") prints
"INTERMITTENT" whether it failed this time (XFAIL) or passed (PASS with the
note INTERMITTENT_PASSED): the two are the same status for the check.
Usage: statuses.py REPORT.json"""
import json
import sys

rep = json.load(open(sys.argv[1]))
for r in sorted(rep["results"], key=lambda r: r["id"]):
    status = r["status"]
    codes = {f.get("code") for f in r.get("findings") or []}
    if (status == "XFAIL" and (r.get("reason") or "").startswith("intermittent:")) or (
        status == "PASS" and "INTERMITTENT_PASSED" in codes):
        status = "INTERMITTENT"
    print(r["id"], status)
