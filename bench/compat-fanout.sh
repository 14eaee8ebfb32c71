#!/bin/sh
# bench/compat-fanout.sh [conform binary]: issue 33's $ref fan-out (a chain
# of anyOf whose branches refer to the next definition twice in place and
# once through a property; the last definition widened) through the CLI at
# depths 10, 20 and 40: wall seconds, peak RSS, and the ratios t(20)/t(10)
# and t(40)/t(20) (exponential growth: 2^10 and 2^20; issue 33 asks depth
# 20 <= 1 s and depth 40 <= 5 s). Needs python3 and GNU time.
set -eu
bin=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$bin" ]; then
	bin=$tmp/conform
	go build -o "$bin" ./cmd/conform
fi
gen() { # depth old|new
	python3 - "$1" "$2" <<'PY'
import json, sys
d, side = int(sys.argv[1]), sys.argv[2]
defs = {}
for i in range(d):
    nx = {"$ref": "#/$defs/D%d" % (i + 1)}
    defs["D%d" % i] = {"anyOf": [nx, {"allOf": [nx]}, {"type": "object", "properties": {"p": nx}}]}
defs["D%d" % d] = {"type": "string"} if side == "old" else {"type": ["string", "number"]}
print(json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/D0", "$defs": defs}))
PY
}
printf 'depth\twall_s\tpeak_rss_kb\texit\n'
for d in 10 20 40; do
	gen $d old >"$tmp/o.json"
	gen $d new >"$tmp/n.json"
	rc=0
	/usr/bin/time -f '%e %M' -o "$tmp/t" "$bin" compat "$tmp/o.json" "$tmp/n.json" --timeout 60s >/dev/null 2>&1 || rc=$?
	read -r wall rss <<EOT
$(tail -n 1 "$tmp/t")
EOT
	printf '%s\t%s\t%s\t%s\n' "$d" "$wall" "$rss" "$rc"
	echo "$d $wall" >>"$tmp/all"
done
awk '{t[$1]=$2} END {m=0.01; printf "ratio t(20)/t(10) = %.2f, t(40)/t(20) = %.2f\n", t[20]/(t[10]>m?t[10]:m), t[40]/(t[20]>m?t[20]:m)}' "$tmp/all"
