#!/usr/bin/env python3
"""Run every probe scenario against every MCP server and keep the transcripts.

    observe.py [--out DIR] [--only NAME[,NAME...]] [--scenario GLOB]

Servers: the reference (built with `go build` from suites/mcp/reference) and every
impl/mcp-*/profile.json (installed first with its install.sh). Each run gets a fresh
working directory and HOME, as the runner gives each vector. Transcripts go to
DIR/<server>/<scenario>.log (default suites/mcp/observed), which
schemacheck validates (go run ./suites/mcp/schemacheck). Python standard library only.
"""

import argparse
import fnmatch
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def cache_dir():
    if os.environ.get("CONFORM_CACHE"):
        return os.environ["CONFORM_CACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.environ["HOME"], ".cache")
    return os.path.join(base, "conform")


def profiles():
    found = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "impl", "mcp-*", "profile.json"))):
        d = os.path.dirname(path)
        with open(path, encoding="utf-8") as f:
            p = json.load(f)
        subst = lambda s: s.replace("${PROFILE_DIR}", d).replace("${CONFORM_CACHE}", cache_dir())
        found[p["name"]] = {
            "dir": d,
            "install": os.path.join(d, p["install"]) if p.get("install") else None,
            "command": [subst(a) for a in p["command"]],
            "env": {k: subst(v) for k, v in p.get("env", {}).items()},
        }
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "observed"))
    ap.add_argument("--only", default="")
    ap.add_argument("--scenario", default="*")
    ap.add_argument("--timeout", default="10")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))

    servers = {}
    ref_bin = os.path.join(tempfile.mkdtemp(prefix="conform-mcp-ref-"), "reference")
    if not only or "reference" in only:
        subprocess.run(["go", "build", "-o", ref_bin, "./suites/mcp/reference"], cwd=ROOT, check=True)
        servers["reference"] = {"command": [ref_bin], "env": {}, "install": None}
    for name, p in profiles().items():
        if not only or name in only:
            servers[name] = p

    scenarios = sorted(s for s in glob.glob(os.path.join(HERE, "probes", "*.txt"))
                       if fnmatch.fnmatch(os.path.basename(s), args.scenario))
    for name, s in servers.items():
        if s["install"]:
            subprocess.run([s["install"]], check=True, stdout=subprocess.DEVNULL)
        outdir = os.path.join(args.out, name)
        os.makedirs(outdir, exist_ok=True)
        for scen in scenarios:
            tmp = tempfile.mkdtemp(prefix="conform-mcp-observe-")
            work = os.path.join(tmp, "work")
            os.mkdir(work)
            env = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8", "HOME": tmp, "TMPDIR": tmp}
            env.update({k: v.replace("${HOME}", tmp) for k, v in s["env"].items()})
            log = os.path.join(outdir, os.path.basename(scen).replace(".txt", ".log"))
            with open(log, "w", encoding="utf-8") as f:
                f.write("# %s, scenario %s\n" % (name, os.path.basename(scen)))
                f.flush()
                subprocess.run([sys.executable, os.path.join(HERE, "probe.py"), "--timeout", args.timeout,
                                scen, "--"] + s["command"],
                               cwd=work, env=env, stdout=f, stderr=subprocess.STDOUT)
            shutil.rmtree(tmp, ignore_errors=True)
            print("%-22s %s" % (name, os.path.basename(scen)), flush=True)
    shutil.rmtree(os.path.dirname(ref_bin), ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
