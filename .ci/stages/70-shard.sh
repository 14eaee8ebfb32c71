#!/usr/bin/env bash
# Sharding (issue 14 item 4): a 3-shard run of the reference, merged, gives the
# verdict and counts of the unsharded run, for the agent and host roles.
set -euo pipefail
out="$CI_TMP/shard"
mkdir -p "$out"
for role in agent host; do
  echo "== $role role: unsharded run, 3 shards, merge"
  "$conform" run -j 2 --role "$role" --format json --out "$out/$role-full.json" 2>/dev/null
  for i in 1 2 3; do
    "$conform" run -j 2 --role "$role" --shard "$i/3" --format json --out "$out/$role-$i.json"
  done
  "$conform" report merge --format json --out "$out/$role-merged.json" "$out/$role-3.json" "$out/$role-1.json" "$out/$role-2.json"
  python3 - "$out/$role-full.json" "$out/$role-merged.json" <<'PY'
import json, sys
full, merged = (json.load(open(p)) for p in sys.argv[1:])
assert merged["verdict"] == full["verdict"] == "CERTIFIED", (full["verdict"], merged["verdict"])
assert merged["summary"] == full["summary"], (full["summary"], merged["summary"])
assert [r["id"] for r in merged["results"]] == [r["id"] for r in full["results"]]
assert [r["status"] for r in merged["results"]] == [r["status"] for r in full["results"]]
assert merged["shards"] == 3 and "shard" not in merged
print(f"merged: {merged['verdict']}, {merged['summary']['total']} vectors, same counts as the unsharded run")
PY
done
