#!/bin/sh
# SPDX-License-Identifier: MIT
# Cross-check of rt.wakeup against cyclictest (Debian rt-tests) on this
# machine, in one run: the same priority, interval, duration and CPU, one
# measuring thread each, alternated A B A B A (A = scalebench, B =
# cyclictest) so that drift during the run favours neither; first idle,
# then under `stress-ng --cpu 2`. Prints each run's p50, p99 and max, the
# medians over the runs of each tool, and the ratios scalebench/cyclictest
# of the median p50 and the median p99: PASS when both are within
# 0.90..1.10. The max is printed, not compared (it varies 38 us..12 ms
# between idle runs here).
#
# cyclictest's histogram has 1 us bins holding floor(latency in us): a
# percentile of it is read as its bin's midpoint (k + 0.5 us), as
# scalebench reads its own (log-linear, 0.8% wide) buckets.
#
# usage: bench/cyclictest-crosscheck.sh [SECONDS per run, default 10] [CPU, default 1] [OUTDIR]
#   PRIO (80) and INTERVAL_US (1000) from the environment. Needs root
#   (SCHED_FIFO), cyclictest, stress-ng, python3.
set -u
cd "$(dirname "$0")/.." || exit 2
D=${1:-10}
CPU=${2:-1}
OUT=${3:-crosscheck-rt-$(date -u +%Y%m%dT%H%M%SZ)}
PRIO=${PRIO:-80}
INTERVAL_US=${INTERVAL_US:-1000}
SB=${SB:-./scalebench}
[ -x "$SB" ] || { echo "build first: make" >&2; exit 2; }
for t in cyclictest stress-ng python3; do
	command -v $t >/dev/null || { echo "$t is missing (tools/setup-deps.sh installs it)" >&2; exit 2; }
done
mkdir -p "$OUT"
STRESS=""
cleanup() { [ -n "$STRESS" ] && kill "$STRESS" 2>/dev/null && wait "$STRESS" 2>/dev/null; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# one line "p50 p99 max" in us from each tool's output
sb_fig() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["benches"][0]["repetitions"][0]["points"][0]["stats"]
print("%.2f %.2f %.1f" % (s["p50_ns"] / 1e3, s["p99_ns"] / 1e3, s["max_ns"] / 1e3))
PY
}
ct_fig() {
	python3 - "$1" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["thread"]["0"]
h = sorted((int(k), v) for k, v in t["histogram"].items())
n = sum(v for _, v in h)
def q(p):
    want, c = p * n, 0
    for k, v in h:
        c += v
        if c >= want:
            return k + 0.5
    return float(t["max"])
print("%.2f %.2f %.1f" % (q(0.50), q(0.99), float(t["max"])))
PY
}

runA() { # file
	"$SB" run rt.wakeup --max-n 1 -p cpus="$CPU" -p priority="$PRIO" -p interval_us="$INTERVAL_US" \
		-p duration="$D" -q --no-db -o "$1" >/dev/null 2>"$1.err" || { cat "$1.err" >&2; return 1; }
	sb_fig "$1"
}
runB() {
	cyclictest -t1 -a "$CPU" -p"$PRIO" -i"$INTERVAL_US" -D"$D" -m -q -h 20000 --json="$1" >/dev/null 2>"$1.err" ||
		{ cat "$1.err" >&2; return 1; }
	ct_fig "$1"
}

# series LABEL: A B A B A; prints each run and the verdict line, appends to $OUT/summary
series() {
	label=$1
	echo "== $label (uptime: $(uptime | sed 's/.*load/load/'))"
	: >"$OUT/$label.A"; : >"$OUT/$label.B"
	for step in A1 B1 A2 B2 A3; do
		tool=${step%?}
		f="$OUT/$label-$step.json"
		if [ "$tool" = A ]; then fig=$(runA "$f") || return 1; else fig=$(runB "$f") || return 1; fi
		echo "$fig" >>"$OUT/$label.$tool"
		name=scalebench; [ "$tool" = B ] && name=cyclictest
		printf '  %-3s %-10s p50 %8s us  p99 %8s us  max %9s us\n' "$step" "$name" $fig
	done
	python3 - "$OUT/$label.A" "$OUT/$label.B" "$label" <<'PY' | tee -a "$OUT/summary"
import statistics, sys
A = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
B = [list(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
m = lambda rows, i: statistics.median(r[i] for r in rows)
r50, r99 = m(A, 0) / m(B, 0), m(A, 1) / m(B, 1)
ok = 0.90 <= r50 <= 1.10 and 0.90 <= r99 <= 1.10
print("  %s: median p50 %.2f vs %.2f us (ratio %.3f), median p99 %.2f vs %.2f us (ratio %.3f), "
      "max %s vs %s us: %s" % (sys.argv[3], m(A, 0), m(B, 0), r50, m(A, 1), m(B, 1), r99,
      "/".join("%.0f" % r[2] for r in A), "/".join("%.0f" % r[2] for r in B),
      "PASS" if ok else "FAIL (outside 0.90..1.10)"))
PY
}

echo "rt.wakeup vs cyclictest: CPU $CPU, priority $PRIO, interval $INTERVAL_US us, $D s per run; results in $OUT"
: >"$OUT/summary"
series idle
stress-ng --cpu 2 --timeout $((D * 6 + 60))s >/dev/null 2>&1 &
STRESS=$!
sleep 1
series stress-ng-cpu2
cleanup; STRESS=""
echo "== summary"
cat "$OUT/summary"
! grep -q FAIL "$OUT/summary"
