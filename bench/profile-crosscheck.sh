#!/bin/sh
# SPDX-License-Identifier: MIT
# Cross-check of run --profile (issue 33) against perf itself, rerunnable:
#   sh bench/profile-crosscheck.sh [BENCH [N]]     (default fs.stat 1000)
# Runs A B A B A (ROUNDS=5 by default), alternated:
#   A = scalebench run BENCH --min-n N --max-n N --profile --in-process:
#       its profiled point at N (the functions' self shares);
#   B = perf record -e cpu-clock -g of the same command without --profile
#       (the same process doing the same point: in-process, one point at N,
#       a long budget so the point's sampling is most of the process's
#       CPU), then perf report --no-children --sort sym: the self shares.
# Prints the top functions of each side (the median share over the rounds)
# and PASSes when both sides put the same three functions on top (as a
# set) and each of those three has shares within 5 points; else FAIL
# (exit 1). What differs: perf samples the whole process (start-up, the
# load being built, the warm-up; a few percent with BUDGET=3), scalebench
# only its timed regions; perf's period is 250 us by default (4 kHz),
# scalebench's 100 us; names are compared without leading underscores and
# glibc's __GI_ prefix (one address, two aliases). The machine's load (uptime) is printed before and
# after: on a shared machine report it as it is.
set -u
cd "$(dirname "$0")/.." || exit 2
BENCH=${1:-fs.stat}
N=${2:-1000}
ROUNDS=${ROUNDS:-5}
BUDGET=${BUDGET:-3}
SB=${SB:-./scalebench}
[ -x "$SB" ] || make -s scalebench || exit 2
command -v perf >/dev/null 2>&1 || { echo "perf is not installed (apt-get install linux-perf)"; exit 2; }
W=$(mktemp -d /tmp/sb-profile.XXXXXX) || exit 2
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$W/d"
ARGS="run $BENCH --min-n $N --max-n $N -b $BUDGET --ci 0.1 --in-process --dir $W/d --no-db -q"

echo "== $(uname -r), $(nproc) CPUs, $BENCH at N=$N, budget $BUDGET s; load: $(uptime)"
round=1
while [ "$round" -le "$ROUNDS" ]; do
	if [ $((round % 2)) = 1 ]; then
		# shellcheck disable=SC2086
		"$SB" $ARGS --profile -o "$W/a$round.json" >/dev/null 2>&1 || { echo "scalebench failed"; exit 1; }
		python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["benches"][0]["profile"]
if "unavailable" in p:
    sys.exit("profile unavailable: " + p["unavailable"])
pt = p["points"][-1]
for f in pt["functions"]:
    print("%s\t%.4f" % (f["name"], 100 * f["self_share"]))' "$W/a$round.json" >"$W/a$round.tsv" || exit 1
		echo "round $round: scalebench --profile"
	else
		# shellcheck disable=SC2086
		perf record -q -e cpu-clock -g -o "$W/b$round.data" -- "$SB" $ARGS >/dev/null 2>&1 || { echo "perf record failed"; exit 1; }
		perf report -q -i "$W/b$round.data" --no-children --sort sym --stdio -g none 2>/dev/null |
			sed -n 's/^ *\([0-9.]*\)% *\[[.k]\] \(.*[^ ]\) *$/\2\t\1/p' >"$W/b$round.tsv"
		echo "round $round: perf record -e cpu-clock -g"
	fi
	round=$((round + 1))
done
echo "== load: $(uptime)"
python3 - "$W" <<'EOF'
import glob, os, sys
w = sys.argv[1]
def norm(name):
    # aliases of one address: perf may name glibc's local alias from its
    # debugging symbols (__GI___fstatat64) where scalebench names the
    # exported one (fstatat64)
    if name.startswith("__GI_"):
        name = name[5:]
    return name.lstrip("_") or name
def load(prefix):
    runs = []
    for f in sorted(glob.glob(os.path.join(w, prefix + "*.tsv"))):
        d = {}
        for line in open(f):
            name, _, pct = line.rstrip("\n").rpartition("\t")
            if name:
                d[norm(name)] = d.get(norm(name), 0.0) + float(pct)
        runs.append(d)
    names = set(k for r in runs for k in r)
    med = {}
    for k in names:
        v = sorted(r.get(k, 0.0) for r in runs)
        n = len(v)
        med[k] = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    return med, len(runs)
a, na = load("a")
b, nb = load("b")
if not na or not nb:
    print("FAIL: a side has no round"); sys.exit(1)
ta = sorted(a, key=lambda k: -a[k])[:3]
tb = sorted(b, key=lambda k: -b[k])[:3]
print("%-40s %12s %12s" % ("function (self share, median)", "scalebench", "perf"))
for k in sorted(set(ta) | set(tb) | set(sorted(a, key=lambda k: -a[k])[:8]), key=lambda k: -a.get(k, 0)):
    print("%-40s %11.1f%% %11.1f%%" % (k[:40], a.get(k, 0), b.get(k, 0)))
same = set(ta) == set(tb)
close = all(abs(a.get(k, 0) - b.get(k, 0)) <= 5 for k in set(ta) | set(tb))
print("top three: scalebench %s, perf %s" % (", ".join(ta), ", ".join(tb)))
print("%s: the same three on top: %s; shares within 5 points: %s (%d + %d rounds)" %
      ("PASS" if same and close else "FAIL", same, close, na, nb))
sys.exit(0 if same and close else 1)
EOF
