#!/usr/bin/env bash
# bench/run.sh: conform against its peers and against the bare pipe, in one
# run, printed as one table of ratios. See bench/README.md for what each row
# measures and why it is fair.
#
#   bench/run.sh                  # everything: about 20 minutes on 2 cores
#   BENCH_SCALE_N=2000 BENCH_VALIDATE_SIZES="10000 100000" bench/run.sh   # a quick look
#
# Environment:
#   CONFORM_CACHE   peers are installed under $CONFORM_CACHE/bench
#                   (default ~/.cache/conform/bench), once, never in the tree
#   BENCH_SCALE_N   vectors of the large scale run (default 10000)
#   BENCH_REPEAT    repetitions of each short measurement; the median is
#                   reported (default 3)
#   BENCH_VALIDATE_SIZES  corpus sizes of the validate rows, in frames
#                   (default "10000 100000 1000000")
#   BENCH_CJ_REPEAT_MAX   check-jsonschema runs once above this size
#                   (default 100000; at 1M it takes minutes)
#   BENCH_CJ_SKIP_ABOVE   check-jsonschema does not run above this size
#                   (default: it always runs); its rows say "skipped"
#   BENCH_ONLY      the sections to run, of "a b c d e f" (default all; b
#                   needs a; e is go test ./...; f is issue 31's targets:
#                   a real MCP server against its floor, a silent server,
#                   validate against the build of 27a0553)
#   BENCH_MCP_J     -j of the MCP rows of f, the same for conform and the
#                   floor (default 4)
#   BENCH_OLD       the revision validate is compared with in f (default
#                   27a0553, issue 31's "build of 2026-11-30")
#   BENCH_KEEP=1    keep the temporary directory (suites, corpora, outputs)
#   BENCH_BEFORE    a git revision (say main): section a also runs that
#                   revision's conform, built from a temporary worktree, as a
#                   third command of the same interleaved rounds, and prints
#                   its rows ("before") beside those of the tree's
#
# Needs go, node/npm, python3 (venv) and /usr/bin/time. Exit status: 0 when
# every measurement ran (met or not), 1 when one failed.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CONFORM_CACHE:-$HOME/.cache/conform}/bench
SCALE_N=${BENCH_SCALE_N:-10000}
REPEAT=${BENCH_REPEAT:-3}
VALIDATE_SIZES=${BENCH_VALIDATE_SIZES:-10000 100000 1000000}
CJ_REPEAT_MAX=${BENCH_CJ_REPEAT_MAX:-100000}
CJ_SKIP_ABOVE=${BENCH_CJ_SKIP_ABOVE:-}
ONLY=${BENCH_ONLY:-a b c d e f}
MCP_J=${BENCH_MCP_J:-4}
OLD_REV=${BENCH_OLD:-27a0553}
only() { [[ " $ONLY " == *" $1 "* ]]; }
JOBS=2
AJV_CLI=5.0.0
AJV_FORMATS=3.0.1
CANONICALIZE=2.1.0
CHECK_JSONSCHEMA=0.39.0

WORK=$(mktemp -d "${TMPDIR:-/tmp}/conform-bench.XXXXXX")
if [[ ${BENCH_KEEP:-} == 1 ]]; then
	echo "bench: keeping $WORK" >&2
else
	trap 'rm -rf "$WORK"' EXIT
fi
log() { printf 'bench: %s\n' "$*" >&2; }

# --- peers, installed once into the cache --------------------------------
install_peers() {
	mkdir -p "$CACHE"
	local want="ajv-cli@$AJV_CLI ajv-formats@$AJV_FORMATS canonicalize@$CANONICALIZE"
	if [[ $(cat "$CACHE/npm/.installed" 2>/dev/null) != "$want" ]]; then
		log "npm install $want into $CACHE/npm"
		# shellcheck disable=SC2086
		npm install --no-audit --no-fund --silent --prefix "$CACHE/npm" $want >&2
		echo "$want" >"$CACHE/npm/.installed"
	fi
	if [[ $(cat "$CACHE/venv/.installed" 2>/dev/null) != "check-jsonschema==$CHECK_JSONSCHEMA" ]]; then
		log "pip install check-jsonschema==$CHECK_JSONSCHEMA into $CACHE/venv"
		python3 -m venv "$CACHE/venv"
		"$CACHE/venv/bin/pip" install --quiet "check-jsonschema==$CHECK_JSONSCHEMA" >&2
		echo "check-jsonschema==$CHECK_JSONSCHEMA" >"$CACHE/venv/.installed"
	fi
}

# --- measuring -------------------------------------------------------------
# timed OUT CMD...: runs CMD with stdout+stderr to OUT; sets T (wall seconds),
# RSS (peak resident set of CMD, KiB: the larger of its VmHWM, polled from
# /proc/PID/status every 50 ms, and the ru_maxrss /usr/bin/time reports when
# it ends, which also sees the last 50 ms; ru_maxrss is the largest of CMD
# and the children it waited for, and conform's IUTs peak below conform) and
# RC. Only shell builtins and sleep run while CMD does, so the measurement
# adds little load.
timed() {
	local out=$1
	shift
	local start end k v rest hwm=0 maxrss=0
	start=$(date +%s%N)
	/usr/bin/time -o "$out.maxrss" -f '%M' "$@" >"$out" 2>&1 &
	local tpid=$! pid=""
	while kill -0 "$tpid" 2>/dev/null; do
		if [[ -z $pid ]]; then
			pid=$(pgrep -P "$tpid" | head -1 || true)
		fi
		if [[ -n $pid && -r /proc/$pid/status ]]; then
			while read -r k v rest; do
				[[ $k == VmHWM: ]] && ((v > hwm)) && hwm=$v
			done </proc/"$pid"/status 2>/dev/null || true
		fi
		sleep 0.05
	done
	RC=0
	wait "$tpid" || RC=$?
	end=$(date +%s%N)
	T=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.3f", (b-a)/1e9}')
	maxrss=$(tail -1 "$out.maxrss" 2>/dev/null | tr -dc 0-9)
	RSS=$hwm
	if [[ -n $maxrss ]] && ((maxrss > RSS)); then
		RSS=$maxrss
	fi
}

# median_of N OUT CMD...: runs CMD N times (timed); sets T to the median
# wall time, RSS to the largest peak, RC to the first failure (or 0).
median_of() {
	local n=$1 out=$2
	shift 2
	local ts=() rss=0 rc=0
	for ((i = 0; i < n; i++)); do
		timed "$out" "$@"
		ts+=("$T")
		((RSS > rss)) && rss=$RSS
		((RC != 0 && rc == 0)) && rc=$RC
	done
	T=$(printf '%s\n' "${ts[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
	RSS=$rss
	RC=$rc
}

ROWS=()
FAILED=0
# row NAME CONFORM PEER RATIO TARGET OP: OP is "le" or "ge" (ratio vs target).
row() {
	local met
	if [[ $4 == "-" ]]; then
		met="ERROR"
		FAILED=1
	else
		met=$(awk -v r="$4" -v t="$5" -v op="$6" 'BEGIN{ok = (op=="le") ? (r<=t) : (r>=t); print ok ? "yes" : "NO"}')
	fi
	local sym="<="
	[[ $6 == ge ]] && sym=">="
	ROWS+=("$1|$2|$3|$4|$sym $5|$met")
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b+0 == 0) print "-"; else printf "%.2f", a/b }'; }

# --- build -------------------------------------------------------------------
install_peers
log "building conform, baredriver, canonbench, gen"
BIN=$WORK/bin
mkdir -p "$BIN"
(cd "$ROOT" && go build -o "$BIN/conform" ./cmd/conform &&
	go build -o "$BIN/conform-reference" ./cmd/conform-reference &&
	go build -o "$BIN/baredriver" ./bench/baredriver &&
	go build -o "$BIN/equaldriver" ./bench/equaldriver &&
	go build -o "$BIN/canonbench" ./bench/canonbench &&
	go build -o "$BIN/abtime" ./bench/abtime &&
	go build -o "$BIN/gen" ./bench/gen &&
	go build -o "$BIN/mcpfloor" ./bench/mcpfloor &&
	go build -o "$BIN/silent" ./bench/silent &&
	go build -o "$BIN/conform-mcp-reference" ./suites/mcp/reference)
if [[ -n ${BENCH_BEFORE:-} ]]; then
	log "building conform at $BENCH_BEFORE (before)"
	git -C "$ROOT" worktree add -q --detach "$WORK/before-tree" "$BENCH_BEFORE"
	(cd "$WORK/before-tree" && go build -o "$BIN/conform-before" ./cmd/conform)
	git -C "$ROOT" worktree remove --force "$WORK/before-tree"
fi
# conform run keeps its suite index cache here, not in the user's cache.
export CONFORM_CACHE=$WORK/conform-cache
CONFORM=$BIN/conform
# The IUT of rows a and b, for conform run and the bare driver alike: the Go
# reference as its own binary (the same code as `conform reference`, which
# also links the JSON Schema validator and starts about 4x slower).
REF=("$BIN/conform-reference" --role agent --version 1)

gen_suite() { # gen_suite N DIR: generated suite with golden files and MANIFEST
	(cd "$ROOT" && "$BIN/gen" vectors -n "$1" -out "$2")
	"$CONFORM" golden --update --suite "$2" -j "$JOBS" >"$2.golden.log" 2>&1 || {
		log "golden --update failed for $2:"
		tail -20 "$2.golden.log" >&2
		exit 1
	}
}

if only a || only b; then
# --- a. runner overhead: conform run vs the bare driver ------------------------
# Interleaved rounds (bench/abtime: bare, run, bare, run, ...; each round
# starts one command later; one unmeasured warm-up each), whole processes,
# CPU of the process and every child it waited for (its IUTs); the ratio is
# the median over the rounds of each round's run / bare.
# ab LABEL-PREFIX CMD-BARE... ::: CMD-RUN...: sets AB_WALL AB_CPU (ratios),
# AB_RUN_W AB_RUN_C AB_BARE_W AB_BARE_C (medians, s), AB_SELF (conform's own
# CPU, s), AB_RSS (KiB, run), AB_RC.
ab() {
	local name=$1
	shift
	local args=("$@") before=()
	if [[ -n ${BENCH_BEFORE:-} ]]; then
		# The run command again, with the before binary: the arguments
		# after the last ":::", its label and conform's path.
		local i last=0
		for ((i = 0; i < ${#args[@]}; i++)); do
			[[ ${args[i]} == ::: ]] && last=$i
		done
		before=(::: "$name-before" "$BIN/conform-before" "${args[@]:last+3}")
	fi
	"$BIN/abtime" -rounds "$REPEAT" -warmup 1 -out "$WORK" ::: "$name-bare" "$@" "${before[@]}" >"$WORK/$name.ab" 2>"$WORK/$name.ab.err" || {
		log "a. abtime $name failed:"
		cat "$WORK/$name.ab.err" >&2
		AB_RC=1
		return
	}
	field() { awk -v l="$1" -v k="$2" '$1 == l { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$WORK/$name.ab"; }
	AB_WALL=$(field "$name-run" wallratio) AB_CPU=$(field "$name-run" cpuratio)
	AB_RUN_W=$(field "$name-run" wall) AB_RUN_C=$(field "$name-run" cpu) AB_SELF=$(field "$name-run" self)
	AB_BARE_W=$(field "$name-bare" wall) AB_BARE_C=$(field "$name-bare" cpu) AB_RSS=$(field "$name-run" rss)
	AB_RC=$(($(field "$name-run" rc) + $(field "$name-bare" rc)))
	if [[ -n ${BENCH_BEFORE:-} ]]; then
		AB_BWALL=$(field "$name-before" wallratio) AB_BCPU=$(field "$name-before" cpuratio)
		AB_BRUN_W=$(field "$name-before" wall) AB_BRUN_C=$(field "$name-before" cpu) AB_BRC=$(field "$name-before" rc)
	fi
	log "a. $name: $(tr '\n' ' ' <"$WORK/$name.ab.err")"
}
abrows() { # abrows NAME: the CPU and wall rows of the last ab
	if ((AB_RC == 0)); then
		row "runner CPU, $1 -j2 (run / bare pipe)" "${AB_RUN_C}s" "${AB_BARE_C}s" "$AB_CPU" 1.2 le
		row "runner wall, $1 -j2 (run / bare pipe)" "${AB_RUN_W}s" "${AB_BARE_W}s" "$AB_WALL" 1.15 le
		if [[ -n ${BENCH_BEFORE:-} && ${AB_BRC:-1} == 0 ]]; then
			row "  before ($BENCH_BEFORE): CPU, $1" "${AB_BRUN_C}s" "${AB_BARE_C}s" "$AB_BCPU" 1.2 le
			row "  before ($BENCH_BEFORE): wall, $1" "${AB_BRUN_W}s" "${AB_BARE_W}s" "$AB_BWALL" 1.15 le
		fi
	else
		row "runner CPU, $1 -j2 (run / bare pipe)" "rc=$AB_RC" "-" - 1.2 le
	fi
}
log "a. runner overhead: generating 1000 vectors and their golden files"
S1K=$WORK/suite-1k
gen_suite 1000 "$S1K"
log "a. 1k vectors: bare driver and conform run, $REPEAT interleaved rounds"
ab 1k "$BIN/baredriver" -j "$JOBS" "$S1K/vectors" -- "${REF[@]}" ::: 1k-run "$CONFORM" run --suite "$S1K" -j "$JOBS" -- "${REF[@]}"
grep -q '^CERTIFIED' "$WORK/1k-run.out" || { log "conform run on 1k did not certify:"; tail -5 "$WORK/1k-run.out" >&2; AB_RC=1; }
RUN1K_T=$AB_RUN_W RUN1K_RSS=$AB_RSS RUN1K_RC=$AB_RC SELF1K=$AB_SELF
abrows "1k vectors"
# The driver of equal work (bench/equaldriver: per vector the same reads,
# temporary directory, containment, parsing, validation, normalization,
# canonical form and golden comparison, with the kit's own packages, and
# none of the runner's plan) against conform run, interleaved the same way.
# It checks that every summary equals its golden one (exit 1 otherwise), so
# it cannot do less than the work a PASS stands for.
log "a. 1k vectors: the driver of equal work and conform run, $REPEAT interleaved rounds"
if "$BIN/abtime" -rounds "$REPEAT" -warmup 1 ::: equal "$BIN/equaldriver" -j "$JOBS" "$S1K" -- "${REF[@]}" \
	::: equal-run "$CONFORM" run --suite "$S1K" -j "$JOBS" -- "${REF[@]}" >"$WORK/equal.ab" 2>"$WORK/equal.ab.err"; then
	eqf() { awk -v l="$1" -v k="$2" '$1 == l { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$WORK/equal.ab"; }
	if [[ $(eqf equal rc) == 0 && $(eqf equal-run rc) == 0 ]]; then
		row "runner CPU, 1k vectors -j2 (run / equal work)" "$(eqf equal-run cpu)s" "$(eqf equal cpu)s" "$(eqf equal-run cpuratio)" 1.1 le
		row "runner own CPU, 1k vectors -j2 (run / equal work; IUTs left out)" "$(eqf equal-run self)s" "$(eqf equal self)s" "$(ratio "$(eqf equal-run self)" "$(eqf equal self)")" 1.1 le
	else
		row "runner CPU, 1k vectors -j2 (run / equal work)" "rc=$(eqf equal-run rc)" "rc=$(eqf equal rc)" - 1.1 le
	fi
else
	log "a. abtime equal failed:"
	cat "$WORK/equal.ab.err" >&2
	row "runner CPU, 1k vectors -j2 (run / equal work)" "abtime failed" "-" - 1.1 le
fi
log "a. the v1 suite (vectors/v1/agent): bare driver and conform run"
ab v1 "$BIN/baredriver" -j "$JOBS" "$ROOT/vectors/v1/agent" -- "${REF[@]}" ::: v1-run "$CONFORM" run -j "$JOBS" -- "${REF[@]}"
grep -q '^CERTIFIED' "$WORK/v1-run.out" || { log "conform run on the v1 suite did not certify:"; tail -5 "$WORK/v1-run.out" >&2; AB_RC=1; }
abrows "v1 suite"
# One vector, what a maintainer runs with --filter: conform with the
# embedded suite (its start-up included: the suite, its schemas, the index
# from the cache the warm-up run left) against the bare driver over a folder
# holding that one vector file.
ONE=canon-echo-subtype
mkdir -p "$WORK/one"
cp "$ROOT/vectors/v1/agent/$ONE.json" "$WORK/one/"
log "a. one vector ($ONE): bare driver and conform run --filter"
ab one "$BIN/baredriver" -j "$JOBS" "$WORK/one" -- "${REF[@]}" ::: one-run "$CONFORM" run -j "$JOBS" --filter "$ONE" -- "${REF[@]}"
if ((AB_RC == 0)); then
	row "one vector, start-up included: CPU (run --filter / bare pipe)" "$(awk -v c="$AB_RUN_C" 'BEGIN{printf "%.1fms", c*1000}')" "$(awk -v c="$AB_BARE_C" 'BEGIN{printf "%.1fms", c*1000}')" "$AB_CPU" 2 le
	if [[ -n ${BENCH_BEFORE:-} && ${AB_BRC:-1} == 0 ]]; then
		row "  before ($BENCH_BEFORE): one vector, CPU" "$(awk -v c="$AB_BRUN_C" 'BEGIN{printf "%.1fms", c*1000}')" "$(awk -v c="$AB_BARE_C" 'BEGIN{printf "%.1fms", c*1000}')" "$AB_BCPU" 2 le
	fi
else
	row "one vector, start-up included: CPU (run --filter / bare pipe)" "rc=$AB_RC" "-" - 2 le
fi
ONE_CPU=$AB_RUN_C
# The same with an empty index cache each time (the first run after a
# change of the suite or of conform): reported, not a target.
ONECOLD=$("$BIN/abtime" -rounds "$REPEAT" -warmup 1 ::: cold env CONFORM_CACHE=/nonexistent/conform-cache "$CONFORM" run -j "$JOBS" --filter "$ONE" -- "${REF[@]}" 2>/dev/null | awk '{for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "cpu") printf "%.1f", kv[2]*1000 } }')
# One vector of a version with a preflight vector (v2): with the preflight
# frames an earlier run of the same IUT left (the preflight cache: the IUT
# starts once) against without them (its preflight entry removed before each
# run: it starts twice, in series). Both keep the warm index cache.
ONE2=v2-cancel-unknown
REF2=("$BIN/conform-reference" --role agent --version 2)
log "a. one v2 vector ($ONE2): with and without the preflight cache"
"$BIN/abtime" -rounds "$REPEAT" -warmup 1 ::: cached "$CONFORM" run --version 2 -j "$JOBS" --filter "$ONE2" -- "${REF2[@]}" \
	::: uncached sh -c 'rm -rf "$CONFORM_CACHE/preflight"; exec "$@"' sh "$CONFORM" run --version 2 -j "$JOBS" --filter "$ONE2" -- "${REF2[@]}" \
	>"$WORK/one2.ab" 2>/dev/null || true
PF_C=$(awk '$1 == "cached" {for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "wall") print kv[2] } }' "$WORK/one2.ab")
PF_U=$(awk '$1 == "uncached" {for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "wall") print kv[2] } }' "$WORK/one2.ab")
PF_RC=$(awk '{for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "rc" && kv[2] != 0) print 1 } }' "$WORK/one2.ab")
if [[ -n $PF_C && -n $PF_U && -z $PF_RC ]]; then
	row "one v2 vector: wall, preflight cached / not (one start / two)" "${PF_C}s" "${PF_U}s" "$(ratio "$PF_C" "$PF_U")" 0.8 le
else
	row "one v2 vector: wall, preflight cached / not (one start / two)" "rc=${PF_RC:-?}" "-" - 0.8 le
fi

fi

if only b; then
# --- b. scale: 1k vs SCALE_N vectors -------------------------------------------
log "b. scale: generating $SCALE_N vectors and their golden files (the slow part)"
SBIG=$WORK/suite-big
gen_suite "$SCALE_N" "$SBIG"
log "b. conform run --suite ($SCALE_N vectors, -j $JOBS)"
timed "$WORK/run-big.out" "$CONFORM" run --suite "$SBIG" -j "$JOBS" -- "${REF[@]}"
BIG_T=$T BIG_RSS=$RSS BIG_RC=$RC
grep -q '^CERTIFIED' "$WORK/run-big.out" || BIG_RC=1
# The floor: the bare pipe driver over the same vectors (IUT start-up and
# pipes, nothing else), measured once like the run.
log "b. baredriver ($SCALE_N vectors, -j $JOBS)"
timed "$WORK/bare-big.out" "$BIN/baredriver" -j "$JOBS" "$SBIG/vectors" -- "${REF[@]}"
BAREBIG_T=$T BAREBIG_RC=$RC
PV1K=$(awk -v t="$RUN1K_T" 'BEGIN{printf "%.2f", t*1000/1000}')
PVBIG=$(awk -v t="$BIG_T" -v n="$SCALE_N" 'BEGIN{printf "%.2f", t*1000/n}')
NK=$((SCALE_N / 1000))k
if ((BIG_RC == 0 && RUN1K_RC == 0)); then
	row "scale: time per vector ${NK} / 1k" "${PVBIG}ms" "${PV1K}ms" "$(ratio "$PVBIG" "$PV1K")" 1.1 le
	floor="rc=$BAREBIG_RC"
	((BAREBIG_RC == 0)) && floor="${BAREBIG_T}s (bare pipe)"
	row "scale: ${NK} vectors wall time (s)" "${BIG_T}s" "$floor" "$BIG_T" 15 le
	row "scale: peak RSS of conform ${NK} / 1k" "$((BIG_RSS / 1024))MiB" "$((RUN1K_RSS / 1024))MiB" "$(ratio "$BIG_RSS" "$RUN1K_RSS")" 1.25 le
else
	row "scale: ${NK} vectors" "rc=$BIG_RC" "-" - 15 le
fi

fi

if only c; then
# --- c. validate at scale: conform validate vs ajv-cli vs check-jsonschema ----
# Each tool runs as a whole process on the same frames, at each size in
# VALIDATE_SIZES; /usr/bin/time reports its wall time, CPU time (user+sys)
# and peak RSS (getrusage of the child: the tool's own process).
command -v /usr/bin/time >/dev/null || { log "c. needs /usr/bin/time (Debian package time)"; exit 1; }
C=$WORK/validate
mkdir -p "$C/ajv" "$C/cj"
# ajv-cli resolves $ref by $id: its copy of the schema gets one (nothing else
# changes); the wrapper validates every array item against the root Message.
node -e '
const fs = require("fs");
const s = JSON.parse(fs.readFileSync(process.argv[1]));
fs.writeFileSync(process.argv[2], JSON.stringify(Object.assign({"$id": "https://conform.invalid/schemas/control.v1.json"}, s)));
' "$ROOT/schemas/control.v1.json" "$C/ajv/control.v1.json"
echo '{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://conform.invalid/schemas/corpus.json","type":"array","items":{"$ref":"control.v1.json"}}' >"$C/ajv/wrapper.json"
# check-jsonschema resolves a relative $ref against the schema file's path:
# the unchanged schema beside a wrapper without $id.
cp "$ROOT/schemas/control.v1.json" "$C/cj/control.v1.json"
echo '{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array","items":{"$ref":"control.v1.json"}}' >"$C/cj/wrapper.json"
to_array() { awk 'BEGIN{print "["} NR>1{print ","} {print} END{print "]"}' "$1" >"$2"; }
ajv_cmd() { AJV=("$CACHE/npm/node_modules/.bin/ajv" validate --spec=draft2020 --strict=false -c ajv-formats -s "$C/ajv/wrapper.json" -r "$C/ajv/control.v1.json" -d "$1"); }
cj_cmd() { CJ=("$CACHE/venv/bin/check-jsonschema" --schemafile "$C/cj/wrapper.json" "$1"); }

# All three must reject a frame whose request_id is a number, and conform
# must also reject an allow reply without updatedInput (the body check the
# peers, validating frames one by one, do not make).
printf '%s\n' '{"type":"control_request","request_id":7,"request":{"subtype":"interrupt"}}' >"$C/bad.jsonl"
to_array "$C/bad.jsonl" "$C/bad.json"
ajv_cmd "$C/bad.json"
cj_cmd "$C/bad.json"
for t in conform ajv cj; do
	case $t in
	conform) cmd=("$CONFORM" validate "$C/bad.jsonl") ;;
	ajv) cmd=("${AJV[@]}") ;;
	cj) cmd=("${CJ[@]}") ;;
	esac
	if "${cmd[@]}" >"$C/bad.$t.out" 2>&1; then
		log "c. $t accepted an invalid frame:"; cat "$C/bad.$t.out" >&2; exit 1
	fi
done

# vmeasure N OUT CMD...: runs CMD N times; sets VT (median wall s), VC
# (median user+sys s), VR (largest peak RSS, KiB), VRC (first failure or 0).
vmeasure() {
	local n=$1 out=$2
	shift 2
	local ts=() cs=() r=0 rc=0 w u sys m
	for ((i = 0; i < n; i++)); do
		set +e
		/usr/bin/time -f '%e %U %S %M' -o "$out.time" "$@" >"$out" 2>&1
		local code=$?
		set -e
		((code != 0 && rc == 0)) && rc=$code
		# A failing command adds "Command exited with non-zero status" first.
		read -r w u sys m < <(tail -n 1 "$out.time")
		ts+=("$w")
		cs+=("$(awk -v a="$u" -v b="$sys" 'BEGIN{printf "%.2f", a+b}')")
		((m > r)) && r=$m
	done
	VT=$(printf '%s\n' "${ts[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
	VC=$(printf '%s\n' "${cs[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
	VR=$r
	VRC=$rc
}

VROWS=()
for n in $VALIDATE_SIZES; do
	label=$(awk -v n="$n" 'BEGIN{ if (n >= 1000000 && n % 1000000 == 0) printf "%dM", n/1000000; else if (n >= 1000) printf "%dk", n/1000; else print n }')
	log "c. validate: $label-frame corpus"
	(cd "$ROOT" && "$BIN/gen" corpus -n "$n" -out "$C/corpus-$label.jsonl") 2>/dev/null
	to_array "$C/corpus-$label.jsonl" "$C/corpus-$label.json"
	ajv_cmd "$C/corpus-$label.json"
	cj_cmd "$C/corpus-$label.json"
	"$CONFORM" validate "$C/corpus-$label.jsonl" >/dev/null 2>&1 || true # warm the page cache
	"${AJV[@]}" >/dev/null 2>&1 || true
	rep=$REPEAT
	log "c. $label: conform validate x$rep"
	vmeasure "$rep" "$C/conform-$label.out" "$CONFORM" validate "$C/corpus-$label.jsonl"
	grep -q "^ok .* 0 failed," "$C/conform-$label.out" || { ((VRC == 0)) && VRC=1; }
	CT=$VT CC=$VC CR=$VR CRC=$VRC
	log "c. $label: ajv-cli x$rep"
	vmeasure "$rep" "$C/ajv-$label.out" "${AJV[@]}"
	AT=$VT AC=$VC AR=$VR ARC=$VRC
	((n > CJ_REPEAT_MAX)) && rep=1
	if [[ -n $CJ_SKIP_ABOVE ]] && ((n > CJ_SKIP_ABOVE)); then
		log "c. $label: check-jsonschema skipped (BENCH_CJ_SKIP_ABOVE=$CJ_SKIP_ABOVE)"
		JT=skipped JC=skipped JR=0 JRC=skip
	else
		log "c. $label: check-jsonschema x$rep"
		vmeasure "$rep" "$C/cj-$label.out" "${CJ[@]}"
		JT=$VT JC=$VC JR=$VR JRC=$VRC
	fi
	for t in conform:$CT:$CC:$CR:$CRC ajv-cli:$AT:$AC:$AR:$ARC check-jsonschema:$JT:$JC:$JR:$JRC; do
		IFS=: read -r name wt ct rss rc <<<"$t"
		VROWS+=("$label|$name|${wt}s|${ct}s|$((rss / 1024))MiB|$rc")
	done
	if ((CRC != 0 || ARC != 0)); then
		log "c. $label failed: conform rc=$CRC ajv rc=$ARC"; tail -3 "$C/conform-$label.out" "$C/ajv-$label.out" >&2
		row "validate $label: wall speedup over ajv-cli" "rc=$CRC" "rc=$ARC" - 2 ge
	else
		row "validate $label: wall speedup over ajv-cli" "${CT}s" "${AT}s" "$(ratio "$AT" "$CT")" 2 ge
		row "validate $label: CPU of ajv-cli / conform" "${CC}s" "${AC}s" "$(ratio "$AC" "$CC")" 1 ge
	fi
	if [[ $JRC == skip ]]; then
		:
	elif ((CRC != 0 || JRC != 0)); then
		log "c. $label failed: check-jsonschema rc=$JRC"; tail -3 "$C/cj-$label.out" >&2
		row "validate $label: wall speedup over check-jsonschema" "rc=$CRC" "rc=$JRC" - 10 ge
	else
		row "validate $label: wall speedup over check-jsonschema" "${CT}s" "${JT}s" "$(ratio "$JT" "$CT")" 10 ge
	fi
	if ((n >= 1000000)); then
		row "validate $label: peak RSS of conform (MiB)" "$((CR / 1024))MiB" "-" "$((CR / 1024))" 40 le
	fi
	rm -f "$C/corpus-$label.json" "$C/corpus-$label.jsonl"
done

# One large frame: peak RSS over the frame's size, and CPU with the soft
# limit (which follows the lines in flight) over CPU with no limit at all
# (GOGC=400 GOMEMLIMIT=off: what a collector that does not thrash costs).
# Four frames of one line each: an object of 1.6M members and an array of
# 1M small objects, each as a pass-over stream message (only its type is
# classified) and inside a control request (validated: can_use_tool's
# input is any object).
python3 - "$C" <<'PY'
import sys
d = sys.argv[1]
obj = "{" + ",".join('"k%d":0' % i for i in range(1600000)) + "}"
arr = "[" + ",".join('{"a":1}' for _ in range(1000000)) + "]"
frames = {
    "passover-object": '{"type":"user","message":{"content":%s}}' % obj,
    "passover-array": '{"type":"user","message":{"content":%s}}' % arr,
    "control-object": '{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":%s}}' % obj,
    "control-array": '{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"a":%s}}}' % arr,
}
for name, line in frames.items():
    with open("%s/big-%s.jsonl" % (d, name), "w") as f:
        f.write(line + "\n")
PY
for name in passover-object passover-array control-object control-array; do
	f=$C/big-$name.jsonl
	size=$(stat -c %s "$f")
	vmeasure "$REPEAT" "$C/big-$name.out" "$CONFORM" validate --max-line 104857600 "$f"
	BT=$VT BC=$VC BR=$VR BRC=$VRC
	# The same frame from a pipe, which cannot be sized ahead (read in
	# blocks, then copied once into memory of the line's size).
	vmeasure "$REPEAT" "$C/big-$name.pipe.out" sh -c 'cat "$1" | "$2" validate --max-line 104857600 -' sh "$f" "$CONFORM"
	PR=$VR PRC=$VRC
	# CPU with and without the limit in interleaved rounds, from
	# getrusage in microseconds (abtime): /usr/bin/time's 10 ms steps made
	# a 0.05 s frame's ratio 1.00 or 1.20 by rounding alone.
	"$BIN/abtime" -rounds "$REPEAT" -warmup 1 ::: off env GOGC=400 GOMEMLIMIT=off "$CONFORM" validate --max-line 104857600 "$f" \
		::: limit "$CONFORM" validate --max-line 104857600 "$f" >"$C/big-$name.ab" 2>/dev/null || true
	abf() { awk -v l="$1" -v k="$2" '$1 == l { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$C/big-$name.ab"; }
	OC=$(abf off cpu) LC=$(abf limit cpu) LR=$(abf limit cpuratio) orc=$(abf off rc) lrc=$(abf limit rc)
	ORC=$((${orc:-1} + ${lrc:-1}))
	mb=$(awk -v s="$size" 'BEGIN{printf "%.1f", s/1048576}')
	if ((BRC == 0 && ORC == 0)) && [[ -n $LR ]]; then
		row "validate one large frame ($name, ${mb} MiB): peak RSS / size" "$((BR / 1024))MiB" "${mb}MiB" "$(ratio "$((BR * 1024))" "$size")" 4 le
		row "validate one large frame ($name): CPU / CPU without a limit" "${LC}s" "${OC}s" "$LR" 1.2 le
		if ((PRC == 0)); then
			row "validate one large frame ($name) from a pipe: peak RSS / size" "$((PR / 1024))MiB" "${mb}MiB" "$(ratio "$((PR * 1024))" "$size")" 4 le
		else
			row "validate one large frame ($name) from a pipe" "rc=$PRC" "-" - 4 le
		fi
	else
		row "validate one large frame ($name)" "rc=$BRC" "rc=$ORC" - 4 le
	fi
	VROWS+=("1 frame $name|conform|${BT}s|${BC}s|$((BR / 1024))MiB|$BRC")
done

fi

if only d; then
# --- d. canonicalization throughput ------------------------------------------
log "d. canonicalization: 100000-line corpus, Go internal/canon vs npm canonicalize"
D=$WORK/canon
mkdir -p "$D"
(cd "$ROOT" && "$BIN/gen" corpus -n 100000 -out "$D/in.jsonl") 2>/dev/null
GO_MBS=$("$BIN/canonbench" -rounds "$REPEAT" -out "$D/go.out" "$D/in.jsonl" | awk '{print $1}')
JS_MBS=$(NODE_PATH="$CACHE/npm/node_modules" node "$ROOT/bench/canonbench/canon.js" "$D/in.jsonl" "$REPEAT" "$D/js.out" | awk '{print $1}')
if cmp -s "$D/go.out" "$D/js.out"; then
	row "canonicalize MB/s (Go / npm canonicalize)" "${GO_MBS}MB/s" "${JS_MBS}MB/s" "$(ratio "$GO_MBS" "$JS_MBS")" 1 ge
else
	log "canonical outputs differ: $D/go.out $D/js.out"
	row "canonicalize MB/s (Go / npm canonicalize)" "${GO_MBS}MB/s" "${JS_MBS}MB/s" - 1 ge
fi

fi

if only e; then
# --- e. go test ./... ------------------------------------------------------------
# Warm: everything is compiled first (no test runs), then every test runs
# once (-count=1: no cached results); wall time of the whole command.
log "e. go test ./...: compiling, then running every test once"
(cd "$ROOT" && go test -count=1 -run '^$' ./... >/dev/null 2>&1) || true
timed "$WORK/gotest.out" sh -c "cd '$ROOT' && go test -count=1 -json ./... > '$WORK/gotest.json'"
GT_T=$T GT_RC=$RC
if grep -q '"Action":"fail"' "$WORK/gotest.json"; then
	GT_RC=1
fi
row "go test ./... warm, wall (s)" "${GT_T}s" "-" "$GT_T" 60 le
fi

if only f; then
# --- f. issue 31: waiting, and validate against an older build ---------------
# abf FILE LABEL KEY: a field of an abtime output line.
abf() { awk -v l="$2" -v k="$3" '$1 == l { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$1"; }
# f1. A real MCP server (the TypeScript SDK server, impl/mcp-typescript,
# installed by its own script) certified, against its floor: bench/mcpfloor
# starts the same server once per vector at the same -j and sends the
# vector's frames, waiting only for the lines the server writes (counted in
# a first, untimed pass), never for a silence (bench/README.md, issue 31).
F=$WORK/f
mkdir -p "$F"
log "f. installing impl/mcp-typescript (its install.sh)"
"$ROOT/impl/mcp-typescript/install.sh" >&2
TS=(node "$ROOT/impl/mcp-typescript/server.mjs")
log "f. mcp-typescript: one conform run (the vectors it runs), the floor's first pass"
"$CONFORM" run --role server --version 1 -j "$MCP_J" --profile "$ROOT/impl/mcp-typescript" --json-out "$F/ts.json" >"$F/ts.txt" 2>&1 || true
python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["status"] not in ("SKIPPED", "NOT_RUN"):
        print(r["id"])' "$F/ts.json" >"$F/ts.ids"
"$BIN/mcpfloor" -j "$MCP_J" -ids "$F/ts.ids" -learn "$F/ts.lines" "$ROOT/suites/mcp" -- "${TS[@]}" >"$F/ts.learn" 2>&1 || true
log "f. mcp-typescript: conform run and the floor, $REPEAT interleaved rounds, -j $MCP_J"
"$BIN/abtime" -rounds "$REPEAT" -warmup 1 -out "$F" ::: floor "$BIN/mcpfloor" -j "$MCP_J" -ids "$F/ts.ids" -lines "$F/ts.lines" "$ROOT/suites/mcp" -- "${TS[@]}" \
	::: run "$CONFORM" run --role server --version 1 -j "$MCP_J" --profile "$ROOT/impl/mcp-typescript" >"$F/ts.ab" 2>"$F/ts.ab.err" || true
TSW=$(abf "$F/ts.ab" run wallratio) TSC=$(abf "$F/ts.ab" run cpuratio)
TSRC=$(($(abf "$F/ts.ab" run rc) + $(abf "$F/ts.ab" floor rc)))
if [[ -n $TSW ]] && grep -q 'PASSED WITH EXPECTED FAILURES' "$F/run.out" && ((TSRC <= 1)); then
	# conform exits 0 on PASSED_WITH_EXPECTED_FAILURES; the floor exits 1
	# only when it waited out its timeout (then the row says so).
	fl="$(abf "$F/ts.ab" floor wall)s"
	(($(abf "$F/ts.ab" floor rc) != 0)) && fl="$fl (floor timed out)"
	row "mcp-typescript certification -j $MCP_J: wall (run / floor)" "$(abf "$F/ts.ab" run wall)s" "$fl" "$TSW" 1.3 le
	row "mcp-typescript certification -j $MCP_J: CPU (run / floor)" "$(abf "$F/ts.ab" run cpu)s" "$(abf "$F/ts.ab" floor cpu)s" "$TSC" 1.3 le
else
	log "f. mcp-typescript failed:"; cat "$F/ts.ab.err" >&2; tail -5 "$F/run.out" >&2 || true
	row "mcp-typescript certification: wall (run / floor)" "rc=$TSRC" "-" - 1.3 le
fi
# f2. A server silent on three requests (a batch, "jsonrpc": "1.0", id
# null: bench/silent -drop swallows them) certified, against the same
# server answering them (bench/silent without -drop): the MCP suite's
# server role with the Go MCP reference server, then with the small Python
# server of runner/testdata/mcp-tiny (--tools), conform's default -j.
for srv in reference tiny; do
	case $srv in
	reference) SRV=("$BIN/conform-mcp-reference") ;;
	tiny) SRV=(python3 "$ROOT/runner/testdata/mcp-tiny/server.py" --tools) ;;
	esac
	log "f. silent on three requests ($srv): $REPEAT interleaved rounds"
	"$BIN/abtime" -rounds "$REPEAT" -warmup 1 -out "$F" ::: "answering-$srv" "$CONFORM" run --suite "$ROOT/suites/mcp" --role server --version 1 -- "$BIN/silent" -- "${SRV[@]}" \
		::: "silent-$srv" "$CONFORM" run --suite "$ROOT/suites/mcp" --role server --version 1 -- "$BIN/silent" -drop -- "${SRV[@]}" >"$F/silent-$srv.ab" 2>/dev/null || true
	SW=$(abf "$F/silent-$srv.ab" "silent-$srv" wallratio)
	SRC=$(($(abf "$F/silent-$srv.ab" "silent-$srv" rc) + $(abf "$F/silent-$srv.ab" "answering-$srv" rc)))
	if [[ -n $SW ]] && ((SRC == 0)); then
		row "silent on 3 requests / answering ($srv): wall" "$(abf "$F/silent-$srv.ab" "silent-$srv" wall)s" "$(abf "$F/silent-$srv.ab" "answering-$srv" wall)s" "$SW" 1.5 le
	else
		row "silent on 3 requests / answering ($srv): wall" "rc=$SRC" "-" - 1.5 le
	fi
done
# f3. validate against the build of $OLD_REV (built from a temporary
# worktree): CPU at 100k and 1M frames in interleaved rounds (abtime: CPU
# from getrusage), and the peak RSS at 1M.
log "f. building conform at $OLD_REV"
git -C "$ROOT" worktree add -q --detach "$WORK/old-tree" "$OLD_REV"
(cd "$WORK/old-tree" && go build -o "$BIN/conform-old" ./cmd/conform)
git -C "$ROOT" worktree remove --force "$WORK/old-tree"
for n in 100000 1000000; do
	label=$((n / 1000))k
	((n == 1000000)) && label=1M
	(cd "$ROOT" && "$BIN/gen" corpus -n "$n" -out "$F/corpus-$label.jsonl") 2>/dev/null
	log "f. validate $label: conform and the build of $OLD_REV, $REPEAT interleaved rounds"
	"$BIN/abtime" -rounds "$REPEAT" -warmup 1 ::: old "$BIN/conform-old" validate "$F/corpus-$label.jsonl" \
		::: new "$CONFORM" validate "$F/corpus-$label.jsonl" >"$F/validate-$label.ab" 2>/dev/null || true
	VC=$(abf "$F/validate-$label.ab" new cpuratio)
	VRC=$(($(abf "$F/validate-$label.ab" new rc) + $(abf "$F/validate-$label.ab" old rc)))
	if [[ -n $VC ]] && ((VRC == 0)); then
		row "validate $label: CPU (conform / build of $OLD_REV)" "$(abf "$F/validate-$label.ab" new cpu)s" "$(abf "$F/validate-$label.ab" old cpu)s" "$VC" 1.05 le
		if ((n == 1000000)); then
			R=$(abf "$F/validate-$label.ab" new rss)
			row "validate 1M: peak RSS of conform (MiB; $OLD_REV: $(($(abf "$F/validate-$label.ab" old rss) / 1024)) MiB)" "$((R / 1024))MiB" "-" "$((R / 1024))" 40 le
		fi
	else
		row "validate $label: CPU (conform / build of $OLD_REV)" "rc=$VRC" "-" - 1.05 le
	fi
	rm -f "$F/corpus-$label.jsonl"
done

fi

# --- the table -----------------------------------------------------------------
echo
echo "conform bench, $(date -u +%Y-%m-%d), $(nproc) cores, -j $JOBS, median of $REPEAT where repeated"
only a && echo "conform's own CPU: $(awk -v s="${SELF1K:-0}" 'BEGIN{printf "%.2f", s}') ms a vector at 1k; one vector ${ONE_CPU:-?} s CPU warm, ${ONECOLD:-?} ms with an empty index cache"
only b && echo "per vector: 1k ${PV1K} ms, ${NK} ${PVBIG:-?} ms; peak RSS: 1k $((RUN1K_RSS / 1024)) MiB, ${NK} $((${BIG_RSS:-0} / 1024)) MiB"
{
	echo "comparison|conform|peer|ratio|target|met?"
	printf '%s\n' "${ROWS[@]}"
} | awk -F'|' '{for (i = 1; i <= NF; i++) {c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i)}; n = NR; nf = NF}
	END {for (r = 1; r <= n; r++) {for (i = 1; i <= nf; i++) printf "%-*s%s", w[i], c[r, i], (i < nf ? "  " : "\n")}}'
if only e; then
	echo
	echo "go test ./... (exit $GT_RC): the ten slowest tests (leaf tests and subtests, seconds)"
	python3 - "$WORK/gotest.json" <<'PY'
import json, sys
t = {}
for line in open(sys.argv[1]):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("Action") in ("pass", "fail") and "Test" in e:
        t[(e["Package"], e["Test"])] = (e.get("Elapsed", 0), e["Action"])
leaf = {k: v for k, v in t.items() if not any(p == k[0] and n.startswith(k[1] + "/") for p, n in t)}
for (pkg, name), (el, act) in sorted(leaf.items(), key=lambda x: -x[1][0])[:10]:
    print("%7.2f  %s %s%s" % (el, pkg.replace("github.com/conform-kit/conform", "."), name, "" if act == "pass" else " (FAIL)"))
PY
fi
only c || exit "$FAILED"
echo
echo "validate at scale (same frames for every tool; ajv-cli and check-jsonschema read them as one JSON array;"
echo "wall and CPU median of $REPEAT, check-jsonschema once above $CJ_REPEAT_MAX frames; peak RSS the largest)"
{
	echo "frames|tool|wall|CPU (user+sys)|peak RSS|rc"
	printf '%s\n' "${VROWS[@]}"
} | awk -F'|' '{for (i = 1; i <= NF; i++) {c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i)}; n = NR; nf = NF}
	END {for (r = 1; r <= n; r++) {for (i = 1; i <= nf; i++) printf "%-*s%s", w[i], c[r, i], (i < nf ? "  " : "\n")}}'
exit "$FAILED"
