#!/usr/bin/env bash
# conform compat decides by meaning (issue 12): the fixtures of every kind of
# change, v1 -> v2 with a witness for each break, and the cost cases bounded
# by --timeout (COMPAT_TIMEOUT, exit 3, fails this stage). The corpus bench
# (bench/compat-corpus) needs corpora outside the repository: it runs here
# only when CONFORM_COMPAT_CORPORA names a directory holding apicurio/ and
# karapace/, and confluent/ (a Schema Registry checkout) when present (see
# bench/README.md).
set -euo pipefail
echo "== compat: fixtures of issue 12, mutual unions, timeout"
go test ./internal/compat -run 'TestFixtures|TestCompareMutualUnions|TestCompareTimeout' -count=1

echo "== compat: v1 -> v2 breaks readers and writers; every break has a checked witness or says unchecked"
for dir in reader writer; do
  if "$conform" compat schemas/control.v1.json schemas/control.v2.json --direction "$dir" --format json > "$CI_TMP/compat-$dir.json"; then
    echo "v1 -> v2 must break ${dir}s" >&2
    exit 1
  fi
  python3 - "$CI_TMP/compat-$dir.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
bad = [f for f in rep["findings"] if f["verdict"] == "BREAKING" and f.get("evidence") not in ("witness", "unchecked")]
bad += [f for f in rep["findings"] if f.get("evidence") == "witness" and not f.get("witness")]
if bad:
    sys.exit("findings without evidence: %s" % bad[:3])
n = sum(1 for f in rep["findings"] if f["verdict"] == "BREAKING")
w = sum(1 for f in rep["findings"] if f["verdict"] == "BREAKING" and f["evidence"] == "witness")
print("%d breaking, %d with a checked witness" % (n, w))
PY
done

echo "== compat: cost cases finish within --timeout"
for c in unions48 oneof2000; do
  start=$(date +%s%N)
  set +e
  "$conform" compat "internal/compat/testdata/cost/$c-old.json" "internal/compat/testdata/cost/$c-new.json" --timeout 60s > /dev/null
  rc=$?
  set -e
  echo "$c: exit $rc in $(( ($(date +%s%N) - start) / 1000000 )) ms"
  if [ "$rc" != 1 ]; then
    echo "$c: want exit 1 (breaking), got $rc" >&2
    exit 1
  fi
done

if [ -n "${CONFORM_COMPAT_CORPORA:-}" ]; then
  echo "== compat: corpus bench"
  extra=()
  if [ -d "$CONFORM_COMPAT_CORPORA/confluent" ]; then
    extra=(--confluent "$CONFORM_COMPAT_CORPORA/confluent")
  fi
  bash bench/compat-corpus/run.sh --no-peers --apicurio "$CONFORM_COMPAT_CORPORA/apicurio" --karapace "$CONFORM_COMPAT_CORPORA/karapace" "${extra[@]}"
fi
