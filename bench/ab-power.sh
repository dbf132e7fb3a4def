#!/bin/sh
# SPDX-License-Identifier: MIT
# The power of compare --ab's paired test against the unpaired test on the
# same data: RUNS A/A runs of `compare --ab - - ARGS` (one build against
# itself, same directory and settings, both sides pair by pair in one
# invocation); per run, how compare judges the two sides paired (default)
# and --unpaired (as two independent runs), then, with B's repetitions of
# one bench made slower by each factor of POWER in every sample (each
# bench in turn, bench/compare-aa.sh's method), how often that bench is
# SLOWER each way. Prints per run and the totals, with the time and load.
#
#   sh bench/ab-power.sh [RUNS]          (default 3)
#   KEEP=DIR sh bench/ab-power.sh 3      also keep the merged sides: DIR/abI-a.json, DIR/abI-b.json
#   FROM=DIR sh bench/ab-power.sh        run nothing: the stored sides DIR/abI-{a,b}.json
#                                        (every I with both; RUNS limits them)
#   PAIRS=K FROM=DIR sh bench/ab-power.sh   the stored sides cut to their first K pairs
#                                        (runs of `--detect` as they were before its top-up)
#   env: SB (./scalebench), ARGS ("fs -r 5"; "fs -r 5 --detect 10": pairs
#        added where they decide), DIR (/dev/shm),
#        POWER ("1.1 1.25"), POWER_BENCHES (default: every bench of the
#        result, each in turn)
set -u
cd "$(dirname "$0")/.." || exit 2
SB=${SB:-./scalebench}
ARGS=${ARGS:-fs -r 5}
DIR=${DIR:-/dev/shm}
POWER=${POWER:-1.1 1.25}
FROM=${FROM:-}
KEEP=${KEEP:-}
[ -x "$SB" ] || { echo "ab-power: $SB not built (make)" >&2; exit 2; }
W=$(mktemp -d /tmp/scalebench-abp.XXXXXX) || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
if [ -n "$FROM" ]; then
	[ -d "$FROM" ] || { echo "ab-power: FROM=$FROM: not a directory" >&2; exit 2; }
	n=0
	while [ -f "$FROM/ab$((n + 1))-a.json" ] && [ -f "$FROM/ab$((n + 1))-b.json" ]; do n=$((n + 1)); done
	RUNS=${1:-$n}
	[ "$RUNS" -ge 1 ] 2>/dev/null && [ "$RUNS" -le "$n" ] ||
		{ echo "ab-power: no stored runs in $FROM (ab1-a.json, ab1-b.json ...)" >&2; exit 2; }
	echo "ab-power: $RUNS stored compare --ab runs from $FROM, compared with $SB, load $(cut -d' ' -f1-3 /proc/loadavg)"
else
	RUNS=${1:-3}
	[ -n "$KEEP" ] && { mkdir -p "$KEEP" || exit 2; }
	echo "ab-power: $RUNS runs of '$SB compare --ab - - $ARGS --dir $DIR', load $(cut -d' ' -f1-3 /proc/loadavg)"
fi
i=1
while [ "$i" -le "$RUNS" ]; do
	if [ -n "$FROM" ]; then
		cp "$FROM/ab$i-a.json" "$W/a.json" && cp "$FROM/ab$i-b.json" "$W/b.json" || exit 2
	else
		t0=$(date +%s)
		l0=$(cut -d' ' -f1 /proc/loadavg)
		# shellcheck disable=SC2086
		"$SB" compare --ab - - $ARGS --dir "$DIR" -q -o "$W/ab" >/dev/null 2>"$W/err"
		rc=$?
		[ "$rc" = 0 ] || [ "$rc" = 3 ] || { echo "ab-power: compare --ab failed ($rc):"; cat "$W/err"; exit 1; }
		mv "$W/ab-a.json" "$W/a.json" && mv "$W/ab-b.json" "$W/b.json" || exit 1
		echo "run $i: $(($(date +%s) - t0)) s, load $l0 at the start, $(cut -d' ' -f1 /proc/loadavg) at the end ($(date -u +%H:%M) UTC)"
		[ -n "$KEEP" ] && { cp "$W/a.json" "$KEEP/ab$i-a.json"; cp "$W/b.json" "$KEEP/ab$i-b.json"; }
	fi
	python3 - "$SB" "$W/a.json" "$W/b.json" "$W/p.json" "$POWER" "${POWER_BENCHES:-}" "$i" "${PAIRS:-}" >>"$W/tally" <<'PY'
import json, subprocess, sys
sb, a, b, tmp, factors, names, run, cut = sys.argv[1:]
if cut:  # PAIRS=K: each side as its first K pairs (before --detect's top-up)
    for side in (a, b):
        d = json.load(open(side))
        for x in d["benches"]:
            x["repetitions"] = [r for r in x["repetitions"] if r["ab"]["pair"] <= int(cut)]
        for k in ("detect_pct", "max_pairs", "pairs_added"):
            d["ab"].pop(k, None)
        json.dump(d, open(side, "w"))


def compare(bfile, unpaired):
    args = [sb, "compare", "-f", "json", a, bfile] + (["--unpaired"] if unpaired else [])
    p = subprocess.run(args, capture_output=True, text=True)
    return p.returncode, json.loads(p.stdout)["comparisons"][0]


base = json.load(open(b))
keys = []
for x in base["benches"]:
    keys.append(x["name"] + ("[" + x["variant"] + "]" if x.get("variant") else ""))
want = names.split() or keys
for mode, unp in (("paired", False), ("unpaired", True)):
    rc, c = compare(b, unp)
    w = [x["word"] for x in c["benches"]]
    # what running second in a pair did, per bench (paired only): median and range
    so = sorted(x["repetition_test"]["second_run_pct"] for x in c["benches"]
                if (x.get("repetition_test") or {}).get("second_run_pct") is not None)
    order = "%+.1f%% (%+.1f..%+.1f%%)" % (so[len(so) // 2], so[0], so[-1]) if so else "-"
    print("aa", mode, run, rc, len(w), w.count("slower"), w.count("faster"), w.count("noisy"),
          ",".join(x["name"] for x in c["benches"] if x["word"] == "slower") or "-", order)
    if mode == "paired":  # each bench's pairs and the change its test finds 9 times in 10
        det = []
        for x in c["benches"]:
            t = x.get("repetition_test") or {}
            v = [y for y in ((t.get("detectable") or {}).get(k) for k in ("sweep_pct", "top_pct"))
                 if y is not None]
            det.append("%s %sp %s" % (x["name"], t.get("pairs", "-"), "%.1f%%" % min(v) if v else "-"))
        print("det", run, "; ".join(det).replace(" ", "_"))
for f in factors.split():
    for nm in want:
        hit = [x for x, k in zip(base["benches"], keys) if k == nm][:1]
        if not hit:
            continue
        saved = []
        for r in hit[0]["repetitions"]:
            for p in r["points"]:
                saved.append((p, dict(p["stats"])))
                for k, v in list(p["stats"].items()):
                    if k.endswith("_ns") and isinstance(v, (int, float)):
                        p["stats"][k] = v * float(f)
        json.dump(base, open(tmp, "w"))
        for p, st in saved:
            p["stats"] = st
        for mode, unp in (("paired", False), ("unpaired", True)):
            rc, c = compare(tmp, unp)
            word = [x["word"] for x in c["benches"] if x["name"] == nm][0]
            print("x" + f, mode, run, nm, int(word == "slower" and rc == 3))
PY
	awk -v r="$i" '$1 == "det" && $2 == r { gsub("_", " ", $3); print "run " r " pairs and the change found 9 times in 10: " $3 }' "$W/tally"
	awk -v r="$i" '$1 == "aa" && $3 == r { printf "run %s A/A %s: exit %s, %s benches, %s slower, %s faster, %s noisy (slower: %s)%s\n", r, $2, $4, $5, $6, $7, $8, $9, $2 == "paired" ? "; running second in a pair, median over the benches " $10 " " $11 : "" }' "$W/tally"
	i=$((i + 1))
done
echo "totals over $RUNS runs:"
for mode in paired unpaired; do
	awk -v m="$mode" '$1 == "aa" && $2 == m { n++; e += ($4 == 3); t += $5; s += $6 } END { printf "  A/A %s: exit 3 in %d of %d, %d of %d bench comparisons slower\n", m, e, n, s, t }' "$W/tally"
	for f in $POWER; do
		awk -v m="$mode" -v f="x$f" '$1 == f && $2 == m { n++; s += $5 } END { printf "  one bench %s, %s: SLOWER (exit 3) in %d of %d (%.0f%%)\n", f, m, s, n, n ? 100 * s / n : 0 }' "$W/tally"
	done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
