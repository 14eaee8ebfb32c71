#!/usr/bin/env bash
# CI-native output (issue 14 item 2, issue 16 item 4): JUnit valid against the
# Jenkins xUnit junit-10 and junit-4 XSDs and read correctly by junitparser,
# GitHub annotations and step summary, reports written atomically, the suite
# exported byte for byte, conform version with its VCS revision.
set -euo pipefail
py="$(scripts/ci-tools.sh)"

echo "== JUnit printer against both XSDs (xmllint), GitHub printers"
CONFORM_REQUIRE_XMLLINT=1 go test -count=1 -run 'TestJUnitSchemas|TestJUnit$|TestGitHub|TestParityGitHub|TestEscapes' ./internal/report

out="$CI_TMP/ci-output"
mkdir -p "$out"
# run NAME ARGS...: a run with a JSON report, its exit status kept, and the
# JUnit form of that same report.
run() {
  local name=$1
  shift
  set +e
  "$conform" run --format json --out "$out/$name.json" "$@" 2>"$out/$name.err"
  echo $? >"$out/$name.code"
  set -e
  "$conform" report show --format junit --out "$out/$name.xml" "$out/$name.json" 2>/dev/null || true
}
printf '%s\n' 'host-can-use-tool-allow-echo # the agent reference cannot answer host vectors' \
  'no-such-vector # stale on purpose' >"$out/xfail.txt"
run certified -j 2
run failures -j 2 --role host --timeout 2s --grace 200ms --kill-after 200ms --expect-fail "$out/xfail.txt" -- "$conform" reference --role agent --version 1
run preflight --version 2 --filter 'v2-set-*' -- "$conform" reference --role agent --version 1
run partial --filter 'interrupt-*'
for i in 1 2 3; do
  "$conform" run -j 2 --shard "$i/3" --format json --out "$out/shard$i.json" 2>/dev/null
done
set +e
"$conform" report merge --format json --out "$out/merged.json" "$out/shard1.json" "$out/shard2.json" "$out/shard3.json" 2>/dev/null
echo $? >"$out/merged.code"
set -e
"$conform" report show --format junit --out "$out/merged.xml" "$out/merged.json" 2>/dev/null || true
# Parity JUnit too.
set +e
"$conform" parity --format junit --out "$out/parity.xml" --filter 'set-*' --impl ref=reference --impl python=impl/python 2>/dev/null
set -e

echo "== real reports against both XSDs"
for x in "$out"/*.xml; do
  for xsd in internal/report/testdata/junit-xsd/junit-10.xsd internal/report/testdata/junit-xsd/junit-4.xsd; do
    xmllint --noout --schema "$xsd" "$x"
  done
done

echo "== JUnit as junitparser reads it, against the JSON report and the exit status"
args=()
for name in certified failures preflight partial merged; do
  args+=("$(cat "$out/$name.code")" "$out/$name.json" "$out/$name.xml")
done
"$py" scripts/junit_check.py "${args[@]}"
[ "$(cat "$out/failures.code")" = 1 ] && [ "$(cat "$out/certified.code")" = 0 ] && [ "$(cat "$out/merged.code")" = 0 ]

echo "== --format github: annotations on vector files, step summary"
set +e
GITHUB_STEP_SUMMARY="$out/summary.md" "$conform" run --format github --role host --filter 'host-can-use-tool-*' \
  --timeout 2s -- "$conform" reference --role agent --version 1 >"$out/github.txt" 2>/dev/null
code=$?
set -e
[ "$code" = 1 ]
grep -m 3 -E '^::error file=vectors/v1/host/host-can-use-tool-[a-z-]+\.json,title=FAIL ' "$out/github.txt"
grep -q '^::error title=conform NOT_CERTIFIED::' "$out/github.txt"
grep -q '^### conform: NOT CERTIFIED' "$out/summary.md"

echo "== a failed start keeps the previous report"
cp "$out/certified.json" "$out/keep.json"
if "$conform" run --filter 'no-such-vector-*' --format json --out "$out/keep.json" 2>/dev/null; then
  echo "a filter that matches nothing must fail" >&2
  exit 1
fi
cmp "$out/certified.json" "$out/keep.json"

echo "== suite export verifies with sha256sum -c"
"$conform" suite export "$out/suite"
(cd "$out/suite" && sha256sum -c --quiet MANIFEST.sha256)
echo "MANIFEST.sha256 of the exported suite: OK"

echo "== conform version"
go build -buildvcs=true -o "$CI_TMP/conform-vcs" ./cmd/conform
"$CI_TMP/conform-vcs" version | tee "$out/version.txt"
grep -qE '^suite .* sha256:[0-9a-f]{64}$' "$out/version.txt"
grep -qE '^go go1\.' "$out/version.txt"
if [ -d .git ]; then
  # A clone (CI's is one): go build stamps the revision.
  grep -qE "^revision $(git rev-parse HEAD)" "$out/version.txt"
else
  echo "(not a git clone: a linked worktree, which go build cannot stamp; revision not checked)"
fi
