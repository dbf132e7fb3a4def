#!/bin/sh
# SPDX-License-Identifier: MIT
# What limits compare's power (docs/compare.md, "Power"): the noise of each
# bench's level between repetitions and between runs, from stored runs of
# one build on one machine (e.g. the a*.json / b*.json that
# bench/compare-aa.sh KEEP=DIR kept).
#
#   sh bench/compare-noise.sh RUN.json RUN.json ...   (at least 3 runs)
#
# Per bench, over the N every repetition of every run measured: a
# repetition's level is the mean of ln(median) (compare's sweep level);
# printed are the repetitions' sd within a run (pooled over the runs), the
# sd of the runs' mean levels once each run's shift (the median over the
# benches of its levels' deviation: what compare's run shift, 4d, takes
# off) is removed, and their ratio to what the repetitions predict
# (1: the repetitions see the run-to-run noise). Then the medians and
# quartiles, and the smallest one-bench change a test of two such runs
# could find 9 times in 10 if it knew each bench's noise exactly (normal,
# family-wise 0.01 and 0.05 over the benches, Bonferroni for compare's two
# tests): what no statistic of two runs can beat.
set -u
[ $# -ge 3 ] || { echo "usage: sh bench/compare-noise.sh RUN.json RUN.json RUN.json ..." >&2; exit 2; }
for f in "$@"; do [ -r "$f" ] || { echo "compare-noise: $f: cannot read" >&2; exit 2; }; done
exec python3 - "$@" <<'PY'
import json, math, statistics as st, sys
from statistics import NormalDist
runs = []
for f in sys.argv[1:]:
    d = json.load(open(f))
    lv = {}
    for b in d["benches"]:
        p = b.get("params") or {}
        key = b["name"] + ("[" + ",".join(f"{k}={v}" for k, v in p.items()) + "]" if p else "")
        reps = []
        for r in b.get("repetitions", []):
            if r.get("added") or not r.get("points"):
                continue
            reps.append({pt["n"]: pt["stats"]["p50_ns"] for pt in r["points"]
                         if (pt.get("stats") or {}).get("p50_ns", 0) > 0})
        lv[key] = reps
    runs.append(lv)
keys = [k for k in runs[0] if all(k in r and len(r[k]) >= 2 for r in runs)]
rows = {}
for k in keys:
    ns = None
    for r in runs:
        for rep in r[k]:
            ns = set(rep) if ns is None else ns & set(rep)
    if not ns:
        continue
    per = [[sum(math.log(rep[n]) for n in ns) / len(ns) for rep in r[k]] for r in runs]
    rows[k] = per
K = list(rows)
if len(K) < 8:
    sys.exit("compare-noise: fewer than 8 benches in common: no run shift to take off")
means = {k: [st.mean(x) for x in rows[k]] for k in K}
grand = {k: st.mean(means[k]) for k in K}
shift = [st.median(means[k][i] - grand[k] for k in K) for i in range(len(runs))]
out = []
for k in K:
    wv = st.mean(st.variance(x) for x in rows[k])
    nr = st.mean(len(x) for x in rows[k])
    rm = st.stdev(means[k][i] - shift[i] for i in range(len(runs)))
    out.append((rm, k, math.sqrt(wv), rm * rm / (wv / nr) if wv > 0 else float("inf")))
out.sort()
print(f"{len(runs)} runs, {len(K)} benches; run shifts: " + " ".join(f"{100 * math.expm1(s - shift[0]):+.1f}%" for s in shift))
print(f"{'bench':60s} {'repetitions':>11s} {'runs':>7s} {'ratio':>6s}")
for rm, k, ws, ratio in out:
    print(f"{k[:60]:60s} {100 * ws:10.1f}% {100 * rm:6.1f}% {ratio:6.1f}")
def q(v):
    v = sorted(v)
    return [v[int(round(p * (len(v) - 1)))] for p in (0.25, 0.5, 0.75)]
ws = q([o[2] for o in out]); rs = q([o[0] for o in out]); ra = q([o[3] for o in out])
print(f"quartiles: repetitions' sd {100 * ws[0]:.1f}% / {100 * ws[1]:.1f}% / {100 * ws[2]:.1f}%; "
      f"run means' sd {100 * rs[0]:.1f}% / {100 * rs[1]:.1f}% / {100 * rs[2]:.1f}%; ratio {ra[0]:.1f} / {ra[1]:.1f} / {ra[2]:.1f}")
z = NormalDist()
for fw in (0.01, 0.05):
    a = fw / len(K) / 2
    need = z.inv_cdf(1 - a / 2) + z.inv_cdf(0.9)
    best = [math.expm1(need * math.sqrt(2) * o[0]) for o in out]
    found = ", ".join(f"x{f} {sum(1 for b in best if b <= f - 1)}" for f in (1.1, 1.25, 1.5, 2))
    m = q(best)
    print(f"family-wise {fw}: benches (of {len(K)}) whose one-bench change the best test finds 9 times in 10: "
          f"{found}; its 90%-power change, quartiles {100 * m[0]:.0f}% / {100 * m[1]:.0f}% / {100 * m[2]:.0f}%")
PY
