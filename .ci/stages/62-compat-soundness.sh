#!/usr/bin/env bash
# conform compat never states a wrong proof and stays bounded (issue 23).
# Differential test: every proof conform states on the fixtures
# (internal/compat/testdata/compat, testdata/soundness), on 2000 random
# schema pairs, 120 pairs of mutually recursive definitions and 200 pairs of
# open objects with propertyNames (issue 33's proof rules, with their
# near-misses in TestMutualRecursionProved and TestOpenObjectProofs) is
# attacked by an independent seeded instance generator
# (internal/compat/refute) checked with the jsonschema v6 validator; one
# refuted proof fails the stage. Bounded cost: the cost cases of issue 23
# (a schema against itself with 500 $defs or 64x64 oneOf, 50 nested anyOf,
# a 16-level $ref fan-out, a 200-property object) answer under a 512 MiB
# heap bound; a bound below the heap is COMPAT_MEMORY (exit 3); a batch
# run (--pairs) answers every fixture in one process. No corpus is fetched.
set -euo pipefail
echo "== compat soundness: refute package, soundness fixtures, differential test"
go test ./internal/compat/refute -count=1
set +e
CONFORM_TEST_DEEP=1 CONFORM_DIFFERENTIAL_PAIRS=2000 go test ./internal/compat -run 'TestSoundness|TestDifferentialFixtures|TestDifferentialRandom|TestDifferentialMutual|TestDifferentialOpenObjects|TestMutualRecursionProved|TestOpenObjectProofs|TestBundledMetaSchemas' -count=1 -v > "$CI_TMP/differential.log" 2>&1
rc=$?
set -e
grep -E '^(--- FAIL|FAIL|ok|PASS)|proofs tried|wrong proof' "$CI_TMP/differential.log" || true
if [ "$rc" != 0 ]; then
  grep -E -A4 'wrong proof|--- FAIL' "$CI_TMP/differential.log" | head -60 >&2
  exit 1
fi

echo "== compat bounded cost: cost cases under a 512 MiB heap bound, COMPAT_MEMORY below the heap"
CONFORM_TEST_DEEP=1 go test ./internal/compat -run 'TestCostBounded|TestCompareMemoryBound' -count=1 -v 2>&1 | grep -E '^(\s*--- |ok|FAIL)'

echo "== compat bounded cost: the CLI under --memory"
for c in unions48 oneof2000; do
  start=$(date +%s%N)
  set +e
  "$conform" compat "internal/compat/testdata/cost/$c-old.json" "internal/compat/testdata/cost/$c-new.json" --timeout 60s --memory 256MiB > /dev/null
  rc=$?
  set -e
  echo "$c: exit $rc in $(( ($(date +%s%N) - start) / 1000000 )) ms under --memory 256MiB"
  if [ "$rc" != 1 ]; then
    echo "$c: want exit 1 (breaking), got $rc" >&2
    exit 1
  fi
done
set +e
"$conform" compat internal/compat/testdata/cost/oneof2000-old.json internal/compat/testdata/cost/oneof2000-new.json --memory 1KiB > /dev/null 2> "$CI_TMP/compat-memory.err"
rc=$?
set -e
if [ "$rc" != 3 ] || ! grep -q COMPAT_MEMORY "$CI_TMP/compat-memory.err"; then
  echo "--memory 1KiB: want COMPAT_MEMORY with exit 3, got $rc: $(cat "$CI_TMP/compat-memory.err")" >&2
  exit 1
fi
echo "--memory 1KiB: $(cat "$CI_TMP/compat-memory.err")"

echo "== compat batch mode: every fixture in one process"
python3 - internal/compat/testdata/compat internal/compat/testdata/soundness > "$CI_TMP/pairs.jsonl" <<'PY'
import glob, json, os, sys
for d in sys.argv[1:]:
    for f in sorted(glob.glob(os.path.join(d, "*.json"))):
        m = json.load(open(f))
        print(json.dumps({"id": os.path.basename(f), "old": m["old"], "new": m["new"], "strict_open": True}))
PY
set +e
"$conform" compat --pairs "$CI_TMP/pairs.jsonl" > "$CI_TMP/pairs.out"
rc=$?
set -e
python3 - "$CI_TMP/pairs.jsonl" "$CI_TMP/pairs.out" "$rc" <<'PY'
import json, sys
ins = [json.loads(l) for l in open(sys.argv[1])]
outs = [json.loads(l) for l in open(sys.argv[2])]
if [o["id"] for o in outs] != [i["id"] for i in ins]:
    sys.exit("batch: one result per pair in input order expected")
worst = max(o["exit"] for o in outs)
if worst != int(sys.argv[3]):
    sys.exit("batch: exit %s, want the largest pair status %d" % (sys.argv[3], worst))
cpu = sum(o.get("cpu_ms", 0) for o in outs)
print("batch: %d pairs in one process, %d with errors (refused inputs), CPU %.0f ms in all, exit %d" % (
    len(outs), sum(1 for o in outs if "error" in o), cpu, worst))
PY
