#!/bin/sh
# SPDX-License-Identifier: MIT
# What run --profile adds to a run's time (issue 33: at most 25%), rerunnable:
#   sh bench/profile-overhead.sh [BENCH|FAMILY ...]     (default: every bench)
# Runs A B A B A (ROUNDS=5 by default), alternated, with the same build in
# the same directory:
#   A = scalebench run --quick [BENCH...] --no-db -q
#   B = the same with --profile
# and prints per run its wall time (the run's own duration_s) and the
# machine's load (/proc/loadavg, 1-minute average) before and after, then
# the ratio B/A of the mean times and, per B run, its ratio to the mean of
# the two A runs beside it (the load drifts on a shared machine: neighbours
# are the fairer reference), with the median of those. Also the profiled
# points' own time in each B run (the sum of the benches' profile
# overhead.wall_s) and its share of the run; last, per bench (its time
# from its start to the next bench's), the mean B - A, its profiled
# points and the rest, the TOP (8) benches that grew most. ARGS adds options to both
# sides (for example ARGS=--no-decide: no repetitions added by --decide,
# whose number varies from run to run and blurs the ratio); SB the binary
# (./scalebench); KEEP=DIR keeps the results (DIR/a1.json, DIR/b2.json ...).
set -u
cd "$(dirname "$0")/.." || exit 2
ROUNDS=${ROUNDS:-5}
ARGS=${ARGS:-}
SB=${SB:-./scalebench}
KEEP=${KEEP:-}
[ -x "$SB" ] || make -s scalebench || exit 2
W=$(mktemp -d /tmp/sb-profov.XXXXXX) || exit 2
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$W/d"
OUT=$W
if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP" || exit 2
	OUT=$KEEP
fi
load() { cut -d' ' -f1 /proc/loadavg; }

echo "== $(uname -r), $(nproc) CPUs; benches: ${*:-all}; ARGS: ${ARGS:-none}; load: $(uptime)"
round=1
while [ "$round" -le "$ROUNDS" ]; do
	if [ $((round % 2)) = 1 ]; then side=a prof=; else side=b prof=--profile; fi
	l0=$(load)
	# shellcheck disable=SC2086
	"$SB" run --quick "$@" --no-db -q --dir "$W/d" $ARGS $prof -o "$OUT/$side$round.json" \
		>/dev/null 2>"$W/err" || {
		rc=$?
		# exit 3 (a latency bound) is not a failure of the run
		[ "$rc" = 3 ] || { echo "round $round: scalebench exited $rc"; cat "$W/err"; exit 1; }
	}
	l1=$(load)
	python3 - "$OUT/$side$round.json" "$round" "$side" "$l0" "$l1" <<'EOF' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
prof = sum(((b.get("profile") or {}).get("overhead") or {}).get("wall_s") or 0
           for b in d["benches"])
extra = "  profiled points %.1f s (%.0f%% of the run)" % (prof, 100 * prof / d["duration_s"]) \
    if sys.argv[3] == "b" else ""
print("round %s %s %-10s %7.1f s  load %s -> %s%s" % (
    sys.argv[2], sys.argv[3], "--profile" if sys.argv[3] == "b" else "", d["duration_s"],
    sys.argv[4], sys.argv[5], extra))
EOF
	round=$((round + 1))
done
echo "== load: $(uptime)"
python3 - "$OUT" "$ROUNDS" <<'EOF'
import json, os, sys
w, rounds = sys.argv[1], int(sys.argv[2])
t = {}
for r in range(1, rounds + 1):
    side = "a" if r % 2 else "b"
    t[r] = json.load(open(os.path.join(w, "%s%d.json" % (side, r))))["duration_s"]
a = [t[r] for r in t if r % 2]
b = [t[r] for r in t if r % 2 == 0]
if not a or not b:
    sys.exit("need at least two rounds (A and B)")
print("A (without): mean %.1f s over %d runs; B (--profile): mean %.1f s over %d runs" %
      (sum(a) / len(a), len(a), sum(b) / len(b), len(b)))
print("ratio of the means B/A: %.3f (+%.0f%%)" % (sum(b) / len(b) / (sum(a) / len(a)),
                                                 100 * (sum(b) / len(b) / (sum(a) / len(a)) - 1)))
pairs = []
for r in t:
    if r % 2 == 0 and r + 1 in t:
        pairs.append(t[r] / ((t[r - 1] + t[r + 1]) / 2))
if pairs:
    s = sorted(pairs)
    med = s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2
    print("each B against the A runs beside it: %s; median %.3f (+%.0f%%)" %
          (", ".join("%.3f" % p for p in pairs), med, 100 * (med - 1)))

# Where the B runs' extra time is, per bench: a bench's time runs from its
# first repetition's start (started_s) to the next bench's (the last: to the
# run's end), the mean over the A runs and over the B runs, and B's profiled
# points (overhead.wall_s); the rest is what --profile added outside them.
def per_bench(d):
    bs, out = d["benches"], {}
    for i, x in enumerate(bs):
        s = (x.get("repetitions") or [{}])[0].get("started_s")
        e = (bs[i + 1].get("repetitions") or [{}])[0].get("started_s") if i + 1 < len(bs) \
            else d["duration_s"]
        if s is None or e is None:
            continue
        key = x["name"] + ("[%s]" % ",".join("%s=%s" % kv for kv in sorted(x["params"].items()))
                           if x.get("params") else "")
        pw = ((x.get("profile") or {}).get("overhead") or {}).get("wall_s") or 0
        out[key] = (e - s, pw)
    return out
runs = {r: per_bench(json.load(open(os.path.join(w, "%s%d.json" % ("a" if r % 2 else "b", r)))))
        for r in t}
ra = [runs[r] for r in runs if r % 2]
rb = [runs[r] for r in runs if r % 2 == 0]
def mean(xs):
    return sum(xs) / len(xs) if xs else 0.0
rows = []
for k in ra[0]:
    ta = mean([x[k][0] for x in ra if k in x])
    tb = mean([x[k][0] for x in rb if k in x])
    tp = mean([x[k][1] for x in rb if k in x])
    rows.append((tb - ta, k, ta, tb, tp))
rows.sort(reverse=True)
tot = [sum(r[i] for r in rows) for i in (2, 3, 4)]
print("per bench (means): A %.1f s, B %.1f s: +%.1f s, %.1f s of it the profiled points, %.1f s the rest"
      % (tot[0], tot[1], tot[1] - tot[0], tot[2], tot[1] - tot[0] - tot[2]))
for r in rows[:int(os.environ.get("TOP", "8"))]:
    print("  %+6.2f s  %-56s A %6.2f  B %6.2f  profiled %5.2f  rest %+6.2f" %
          (r[0], r[1], r[2], r[3], r[4], r[0] - r[4]))
EOF
