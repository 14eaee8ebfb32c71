#!/usr/bin/env bash
# bench/profile.sh: where conform's own CPU goes in a run, split into the
# groups bench/README.md reports (issue 25): process start on the parent
# side, the forked child before execve, the scheduler, loading vectors, GC,
# validation + normalization + canonicalization, the transport, the rest.
#
#   bench/profile.sh CONFORM SUITE-DIR [ROUNDS] -- IUT...
#
# Samples the whole process tree with `perf record -g` (999 Hz, every CPU
# the tree runs on): a Go CPU profile (pprof) sees only conform's own
# threads, not the child between fork and execve, which is conform's cost
# too. Samples of the IUT (any process that has called execve) are counted
# apart and left out of the shares. Each of ROUNDS runs (default 2) is one
# `conform run --suite SUITE-DIR -j 2`; the table sums them. Needs perf and
# python3; run as root or with perf_event_paranoid <= 1.
set -euo pipefail
conform=$1 suite=$2
shift 2
rounds=2
if [[ ${1:-} != -- ]]; then
	rounds=$1
	shift
fi
[[ ${1:-} == -- ]] || { echo "usage: bench/profile.sh CONFORM SUITE-DIR [ROUNDS] -- IUT..." >&2; exit 2; }
shift
work=$(mktemp -d "${TMPDIR:-/tmp}/conform-profile.XXXXXX")
trap 'rm -rf "$work"' EXIT
export CONFORM_CACHE=$work/cache
"$conform" run --suite "$suite" -j 2 -- "$@" >/dev/null 2>&1 || true # warm the index cache and page cache
for ((i = 0; i < rounds; i++)); do
	perf record -q -F 999 -g -o "$work/perf.$i.data" -- "$conform" run --suite "$suite" -j 2 -- "$@" >"$work/run.$i.out" 2>&1 || true
	perf script -i "$work/perf.$i.data" -F comm,pid,tid,event,ip,sym 2>/dev/null >"$work/perf.$i.txt"
done
python3 - "$(basename "$conform")" "$work"/perf.*.txt <<'PY'
import collections, re, sys

comm = sys.argv[1][:15]
# Groups, tried in this order on each sample's stack (innermost frame
# first, every frame looked at): the first group one of whose patterns a
# frame matches takes the sample.
groups = [
    ("GC", r"^runtime\.(gcBgMarkWorker|gcDrain|gcAssistAlloc|bgsweep|bgscavenge|markroot|scanobject|sweepone|gcStart|gcMarkDone|gcMarkTermination|wbBufFlush|scavenge)"),
    ("process start, parent side", r"^(syscall\.forkExec|syscall\.StartProcess|os\.StartProcess|os\.startProcess|os/exec\.\(\*Cmd\)\.Start|syscall\.rawVforkSyscall|internal/syscall/unix\.PidFD|.*/internal/proc\.start|.*/internal/proc\.\(\*Pool\)|.*/internal/proc\.\(\*control\)|.*/internal/proc\.(sweep|newControl|release|contain)|.*/internal/proc\.Start)"),
    ("loading vectors", r"^github\.com/conform-kit/conform/internal/suite\.|^github\.com/conform-kit/conform/runner\.\(\*plan\)\.load"),
    ("validation + normalization + canonicalization", r"^github\.com/conform-kit/conform/internal/(schema|normalize|canon|compare|envelope)\.|^github\.com/santhosh-tekuri/jsonschema|^github\.com/gowebpki/jcs"),
    ("transport (pipes, lines)", r"^github\.com/conform-kit/conform/internal/proc\.|^os\.\(\*File\)\.(Read|Write)|^internal/poll\."),
    ("scheduler", r"^runtime\.(schedule|findRunnable|park_m|mcall|goschedImpl|gopark|ready|wakep|startm|stopm|notesleep|notewakeup|futexsleep|futexwakeup|netpoll|checkTimers|runqgrab|stealWork|exitsyscall|entersyscallblock|handoffp|sysmon|usleep|resetspinning|injectglist)"),
]
compiled = [(name, re.compile(p)) for name, p in groups]
head = re.compile(r"^\s*(\S+)\s+(\d+)/(\d+)\s")
counts = collections.Counter()
other = collections.Counter()
iut = 0
for path in sys.argv[2:]:
    main_pid = None
    sample = None

    def flush(s):
        global iut
        if s is None:
            return
        c, pid, frames = s
        nonlocal_main = main_pid
        if c != comm:
            iut += 1
            return
        if pid != nonlocal_main:
            counts["forked child, before execve"] += 1
            return
        for f in frames:
            for name, rx in compiled:
                if rx.search(f):
                    counts[name] += 1
                    return
        counts["other"] += 1
        user = [f for f in frames if not f.startswith("[") and "." in f]
        other[user[0] if user else (frames[0] if frames else "?")] += 1

    for line in open(path, errors="replace"):
        m = head.match(line)
        if m and not line.startswith("\t"):
            flush(sample)
            c, pid = m.group(1), int(m.group(2))
            if main_pid is None and c == comm:
                main_pid = pid
            sample = (c, pid, [])
        elif line.strip() and sample is not None:
            parts = line.split(None, 1)
            if len(parts) == 2:
                sample[2].append(parts[1].strip().split("+0x")[0])
    flush(sample)
total = sum(counts.values())
print("conform's own CPU: %d samples at 999 Hz (%.2f s); the IUTs: %d samples" % (total, total / 999, iut))
for name, n in counts.most_common():
    print("%6.1f %%  %7.0f ms  %s" % (100 * n / total, 1000 * n / 999, name))
print("largest innermost functions of \"other\":")
for f, n in other.most_common(8):
    print("%6.1f %%  %s" % (100 * n / total, f))
PY
