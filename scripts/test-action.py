#!/usr/bin/env python3
"""Runs the composite GitHub Action in action.yml locally, the way the Actions
runner does, and checks what it does.

Usage: test-action.py [REPO_DIR]   (Python with PyYAML: scripts/ci-tools.sh)

The runner here parses action.yml, takes each input's default unless a case
sets it, and runs each `run:` step with `bash --noprofile --norc -eo pipefail`
(GitHub's bash shell) in a fresh temporary workspace, with the step's env
(expressions ${{ inputs.X }}, ${{ github.action_path }}, ${{ runner.temp }}
and ${{ steps.ID.outputs.X }} substituted; any other expression is an error),
RUNNER_TEMP, RUNNER_OS, RUNNER_ARCH, GITHUB_ACTION_PATH, GITHUB_WORKSPACE,
GITHUB_OUTPUT, GITHUB_PATH, GITHUB_ENV and GITHUB_STEP_SUMMARY set, and the
PATH additions of earlier steps. `uses:` steps (actions/setup-go) are not
run: Go must be on PATH. The action's outputs are its `outputs.*.value`
expressions over the steps' outputs.

Cases: the embedded reference from source (CERTIFIED), a failing IUT command
(NOT_CERTIFIED, annotations, exit 1), an expected-failure list and a profile,
two shards merged into the unsharded verdict, install only (certify: false),
a bad input (exit 2, no report),
and the download path over release archives made by scripts/dist.sh
(file:// URL), including a tampered archive that must be refused.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class ActionError(Exception):
    pass


def substitute(text, ctx):
    def repl(m):
        expr = m.group(1)
        parts = expr.split(".")
        if parts[0] == "inputs" and len(parts) == 2:
            if parts[1] not in ctx["inputs"]:
                raise ActionError(f"expression {expr!r} names an undeclared input")
            return ctx["inputs"][parts[1]]
        if expr == "github.action_path":
            return ctx["action_path"]
        if expr == "runner.temp":
            return ctx["runner_temp"]
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return ctx["steps"].get(parts[1], {}).get(parts[3], "")
        raise ActionError(f"expression {expr!r} is not supported by this local runner")

    return EXPR.sub(repl, str(text))


def read_outputs(path):
    """Parses a GITHUB_OUTPUT file: name=value lines and name<<DELIM blocks."""
    out = {}
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            value = []
            while i < len(lines) and lines[i] != delim:
                value.append(lines[i])
                i += 1
            i += 1
            out[name] = "\n".join(value)
        else:
            name, value = line.split("=", 1)
            out[name] = value
    return out


def run_action(repo, inputs, workspace, env_extra=None):
    """Runs action.yml; returns (exit status, outputs, stdout, step summary)."""
    with open(os.path.join(repo, "action.yml"), encoding="utf-8") as f:
        action = yaml.safe_load(f)
    if action.get("runs", {}).get("using") != "composite":
        raise ActionError("action.yml is not a composite action")
    declared = action.get("inputs", {})
    for name in inputs:
        if name not in declared:
            raise ActionError(f"input {name!r} is not declared in action.yml")
    values = {n: str(spec.get("default", "")) for n, spec in declared.items()}
    values.update(inputs)
    for n, spec in declared.items():
        if spec.get("required") and not values.get(n):
            raise ActionError(f"required input {n!r} has no value")

    temp = tempfile.mkdtemp(prefix="runner-temp-", dir=workspace)
    files = {k: os.path.join(temp, k.lower()) for k in ("GITHUB_PATH", "GITHUB_ENV", "GITHUB_STEP_SUMMARY")}
    for p in files.values():
        open(p, "w").close()
    ctx = {"inputs": values, "action_path": repo, "runner_temp": temp, "steps": {}}
    stdout_all = []
    status = 0
    for n, step in enumerate(action["runs"]["steps"]):
        label = step.get("name", f"step {n}")
        if "uses" in step:
            print(f"  skip (uses {step['uses']}): {label}")
            continue
        if "run" not in step:
            raise ActionError(f"{label}: neither run nor uses")
        if step.get("shell") != "bash":
            raise ActionError(f"{label}: shell must be bash (a composite run step needs one), got {step.get('shell')!r}")
        if "if" in step:
            raise ActionError(f"{label}: if: on a run step is not supported by this local runner")
        out_file = os.path.join(temp, f"output-{n}")
        open(out_file, "w").close()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "INPUT_"))}
        with open(files["GITHUB_PATH"], encoding="utf-8") as f:
            added = [line for line in f.read().split("\n") if line]
        env["PATH"] = os.pathsep.join(list(reversed(added)) + [env.get("PATH", "")])
        env.update(read_outputs(files["GITHUB_ENV"]))
        env.update({
            "CI": "true", "GITHUB_ACTIONS": "true", "RUNNER_TEMP": temp, "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64",
            "GITHUB_ACTION_PATH": repo, "GITHUB_WORKSPACE": workspace, "GITHUB_OUTPUT": out_file, **files,
        })
        env.update(env_extra or {})
        for k, v in (step.get("env") or {}).items():
            env[k] = substitute(v, ctx)
        script = os.path.join(temp, f"step-{n}.sh")
        with open(script, "w", encoding="utf-8") as f:
            f.write(substitute(step["run"], ctx))
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=workspace, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        stdout_all.append(proc.stdout)
        sys.stderr.write(proc.stderr[-2000:])
        if "id" in step:
            ctx["steps"][step["id"]] = read_outputs(out_file)
        print(f"  run: {label}: exit {proc.returncode}")
        if proc.returncode != 0:
            status = proc.returncode
            break
    outputs = {name: substitute(spec["value"], ctx) for name, spec in action.get("outputs", {}).items()}
    with open(files["GITHUB_STEP_SUMMARY"], encoding="utf-8") as f:
        summary = f.read()
    return status, outputs, "".join(stdout_all), summary


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    work = tempfile.mkdtemp(prefix="conform-action-")
    failures = 0
    try:
        ws = os.path.join(work, "ws")
        os.makedirs(ws)
        cases = []

        def case(fn):
            cases.append(fn)
            return fn

        @case
        def reference_from_source():
            status, out, stdout, summary = run_action(repo, {}, ws)
            check(status == 0, f"exit {status}")
            check(out["verdict"] == "CERTIFIED" and out["exit-code"] == "0", out)
            check(os.path.isfile(out["report"]) and os.path.isfile(out["junit"]), out)
            check(os.path.isfile(out["conform"]), out)
            check("### conform: CERTIFIED" in summary, summary)
            check("::notice title=conform CERTIFIED::" in stdout, "no verdict notice")
            return out

        @case
        def failing_command():
            conform = reference_from_source.out["conform"]
            # The agent reference played against host vectors: failures.
            status, out, stdout, summary = run_action(repo, {
                "command": f"{conform} reference --role agent --version 1", "role": "host",
                "args": "--timeout 2s --grace 200ms --kill-after 200ms -j 2"}, ws)
            check(status == 1, f"exit {status}, want 1")
            check(out["verdict"] == "NOT_CERTIFIED" and out["exit-code"] == "1", out)
            check(re.search(r"^::error file=vectors/v1/host/[^,]+\.json,title=FAIL ", stdout, re.M), "no error annotation on a vector file")
            check("| FAIL |" in summary, "no failing row in the step summary")
            with open(out["junit"], encoding="utf-8") as f:
                check('failures="0"' not in f.read().split("\n")[1], "JUnit shows no failures")

        @case
        def expected_failures_and_filter():
            conform = reference_from_source.out["conform"]
            with open(os.path.join(ws, "xfail.txt"), "w") as f:
                f.write("host-can-use-tool-allow-echo # played by the agent reference, which cannot answer\n")
            status, out, _, _ = run_action(repo, {
                "command": f"{conform} reference --role agent --version 1", "role": "host",
                "filter": "host-can-use-tool-allow-echo", "expected-failures": "xfail.txt", "args": "--timeout 2s"}, ws)
            check(status == 1 and out["verdict"] == "NOTHING_PASSED", (status, out))

        @case
        def profile():
            status, out, _, _ = run_action(repo, {"profile": os.path.join(repo, "impl", "python"), "filter": "interrupt-idle"}, ws)
            check(status == 0 and out["verdict"] == "PASSED_PARTIAL", (status, out))

        @case
        def shards_merge():
            reports = []
            for i in (1, 2):
                status, out, _, _ = run_action(repo, {"shard": f"{i}/2", "version": "2"}, ws)
                check(status == 0 and out["verdict"] == "PASSED_PARTIAL", (i, status, out))
                check(out["report"].endswith(f"report-shard-{i}-2.json"), out)
                reports.append(out["report"])
            conform = reference_from_source.out["conform"]
            merged = subprocess.run([conform, "report", "merge", *reports], stdout=subprocess.PIPE, text=True)
            check(merged.returncode == 0 and "CERTIFIED (merged from 2 shards)" in merged.stdout, merged.stdout[-500:])

        @case
        def install_only():
            status, out, stdout, summary = run_action(repo, {"certify": "false"}, ws)
            check(status == 0 and out["verdict"] == "" and os.path.isfile(out["conform"]), (status, out))
            check("nothing certified" in stdout and summary == "", stdout[-300:])

        @case
        def bad_input():
            status, out, _, _ = run_action(repo, {"role": "banana"}, ws)
            check(status == 2 and out["verdict"] == "" and out["report"] == "", (status, out))

        @case
        def download_release():
            # Release archives as scripts/dist.sh makes them, served from a
            # file:// URL laid out like GitHub's releases/download/<tag>/.
            tag = "v0.0.0-actiontest"
            env = dict(os.environ, CONFORM_DIST_PLATFORMS="linux/amd64")
            src = os.path.join(work, "src")
            shutil.copytree(repo, src, ignore=shutil.ignore_patterns("dist", ".git"))
            subprocess.run(["sh", os.path.join(src, "scripts", "dist.sh"), tag], cwd=src, env=env, check=True,
                           stdout=subprocess.DEVNULL)
            releases = os.path.join(work, "releases")
            shutil.copytree(os.path.join(src, "dist"), os.path.join(releases, tag))
            inputs = {"conform-version": tag, "download-url": "file://" + releases, "filter": "interrupt-*"}
            status, out, stdout, _ = run_action(repo, inputs, ws)
            check(status == 0 and out["verdict"] == "PASSED_PARTIAL", (status, out))
            check(out["conform"].startswith(ws), out)
            # A tampered archive is refused before it runs.
            archive = os.path.join(releases, tag, f"conform_{tag}_linux_amd64.tar.gz")
            with open(archive, "ab") as f:
                f.write(b"\0")
            status, out, stdout, _ = run_action(repo, inputs, ws)
            check(status != 0 and out["verdict"] == "", (status, out))
            check("does not match the release's SHA256SUMS" in stdout, stdout[-500:])

        for fn in cases:
            print(f"== action case {fn.__name__}")
            try:
                fn.out = fn()
                print(f"ok   {fn.__name__}")
            except Exception as e:  # noqa: BLE001 - every failure is reported, then the next case runs
                failures += 1
                print(f"FAIL {fn.__name__}: {e}")
        print(f"{len(cases) - failures} passed, {failures} failed")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
