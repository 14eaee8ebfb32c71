#!/usr/bin/env bash
# The example suites of docs/writing-a-suite.md, certified: the replay reducer
# suite (a TypeScript reference and a Rust port, a byte parity gate between
# them, goldens that are the reference's) and the producer fixture suite (a Go
# producer whose output must be the fixture files). Each must-fail case runs a
# mutated copy of an implementation and checks the verdict and the finding.
# Then docs/writing-a-suite.md runs as written (TestWritingASuite), its slow
# part (these builds) included: plain `go test ./...` leaves that part here.
set -euo pipefail
replay=examples/suites/replay
fixtures=examples/suites/fixtures

run() { # run CMD...: print it, run it
  echo "+ $*"
  "$@"
}

certified() { # certified NAME CONFORM_ARGS...: the run must end CERTIFIED
  local name=$1 out="$CI_TMP/$1.txt"
  shift
  echo "+ conform $*"
  if ! "$conform" "$@" >"$out"; then
    cat "$out"
    echo "$name: the run failed" >&2
    exit 1
  fi
  tail -1 "$out"
  grep -q '^CERTIFIED: ' "$out" || { cat "$out"; echo "$name: not CERTIFIED" >&2; exit 1; }
}

not_certified() { # not_certified NAME PATTERN CONFORM_ARGS...: exit 1, NOT CERTIFIED, PATTERN in the report
  local name=$1 pattern=$2 out="$CI_TMP/$1.txt" status=0
  shift 2
  echo "+ conform $*"
  "$conform" "$@" >"$out" || status=$?
  if [ "$status" != 1 ] || ! grep -q '^NOT CERTIFIED: ' "$out" || ! grep -qE -- "$pattern" "$out"; then
    cat "$out"
    echo "$name: want exit 1, NOT CERTIFIED and /$pattern/; got exit $status" >&2
    exit 1
  fi
  grep -E -- "$pattern" "$out" | head -3
  tail -1 "$out"
}

echo "== both suites validate (schemas, vectors, goldens and fixtures, coverage)"
run "$conform" validate --suite "$replay"
run "$conform" validate --suite "$fixtures"

echo "== build the reducers with their own scripts"
run "$replay/reducer-ts/build.sh"
run "$replay/reducer-rs/build.sh"

echo "== the TypeScript reducer (the reference) and the Rust reducer are certified"
certified replay-ts run -j 2 --suite "$replay" --profile "$replay/reducer-ts"
certified replay-rs run -j 2 --suite "$replay" --profile "$replay/reducer-rs"

echo "== parity gate: the two reducers write the golden bytes on every vector"
run "$conform" parity -j 2 --suite "$replay" --impl ts="$replay/reducer-ts" --impl rs="$replay/reducer-rs"

echo "== the goldens are the reference's: golden --update on a copy changes nothing"
mkdir "$CI_TMP/replay-copy"
(cd "$replay" && cp -r suite.json MANIFEST.sha256 schemas vectors golden files "$CI_TMP/replay-copy/")
run "$conform" golden --update --suite "$CI_TMP/replay-copy" -- node "$PWD/$replay/reducer-ts/dist/main.js" | tee "$CI_TMP/replay-golden.txt"
grep -qE ': 0 written, [0-9]+ unchanged, 0 removed' "$CI_TMP/replay-golden.txt" || { echo "golden --update from the reference changed the goldens" >&2; exit 1; }
run diff -r "$replay/golden" "$CI_TMP/replay-copy/golden"

echo "== forward compatibility: members v1 does not define change nothing (forward-compat reduces to basic's summary)"
python3 - "$replay/golden/v1/reducer" <<'EOF'
import json, sys
frames = [json.load(open(f"{sys.argv[1]}/{v}.json"))["frames"] for v in ("basic", "forward-compat")]
if frames[0] != frames[1] or len(frames[0]) != 1:
    sys.exit(f"forward-compat's frames {frames[1]} are not basic's {frames[0]}")
print("forward-compat and basic: the same summary frame")
EOF

echo "== fail closed: a reducer that reads fixtureVersion 2 as if it were 1 is NOT_CERTIFIED"
mkdir -p "$CI_TMP/reducer-mutant"
cp "$replay"/reducer-ts/dist/*.js "$CI_TMP/reducer-mutant/"
sed -i 's/FIXTURE_VERSIONS = \[1\];/FIXTURE_VERSIONS = [1, 2];/' "$CI_TMP/reducer-mutant/fixture.js"
grep -q 'FIXTURE_VERSIONS = \[1, 2\];' "$CI_TMP/reducer-mutant/fixture.js" || { echo "the mutation did not apply" >&2; exit 1; }
not_certified reducer-mutant '^(FAIL|SCHEMA_VIOLATION|PROTOCOL_ERROR) +fixture-version-unsupported ' \
  run -j 2 --suite "$replay" -- node "$CI_TMP/reducer-mutant/main.js"

echo "== the Go producer: gofmt, vet, build, certified against its fixture files"
(cd "$fixtures/producer" && test -z "$(gofmt -l .)" && go vet . && go build -o "$CI_TMP/producer" .)
certified producer run -j 2 --suite "$fixtures" -- "$CI_TMP/producer"

echo "== a producer that misspells a member (override for overridden) is NOT_CERTIFIED, MEMBER_ABSENT at /overridden"
cp -r "$fixtures/producer" "$CI_TMP/producer-mutant"
sed -i 's/`json:"overridden"`/`json:"override"`/' "$CI_TMP/producer-mutant/wire.go"
grep -q 'Overridden bool *`json:"override"`' "$CI_TMP/producer-mutant/wire.go" || { echo "the mutation did not apply" >&2; exit 1; }
(cd "$CI_TMP/producer-mutant" && go build -o "$CI_TMP/producer-mutant/producer" .)
not_certified producer-mutant 'body /overridden: golden true, actual has nothing \[MEMBER_ABSENT\]' \
  run -j 2 --suite "$fixtures" -- "$CI_TMP/producer-mutant/producer"

echo "== docs/writing-a-suite.md runs as written (go test -run TestWritingASuite), its slow part included"
# CONFORM_TEST_BUILDS=1 runs the page's npm and cargo blocks (plain go test
# leaves them to this stage); CONFORM_REQUIRE_TOOLS=1 makes a missing tool a
# failure, not a skip.
CONFORM_TEST_BUILDS=1 CONFORM_REQUIRE_TOOLS=1 CONFORM_TEST_DEEP=1 go test -count=1 -v -run '^TestWritingASuite$' ./cmd/conform >"$CI_TMP/writing-a-suite.txt" 2>&1 || { cat "$CI_TMP/writing-a-suite.txt"; exit 1; }
grep -q -- '--- PASS: TestWritingASuite ' "$CI_TMP/writing-a-suite.txt" || { cat "$CI_TMP/writing-a-suite.txt"; echo "TestWritingASuite did not run (skipped?)" >&2; exit 1; }
if grep -q 'slow blocks skipped' "$CI_TMP/writing-a-suite.txt"; then
  cat "$CI_TMP/writing-a-suite.txt"
  echo "TestWritingASuite skipped the page's slow blocks" >&2
  exit 1
fi
grep -E '^\s+# docs/writing-a-suite.md:[0-9]+: ' "$CI_TMP/writing-a-suite.txt" | sed 's/^\s*//'
