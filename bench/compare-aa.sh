#!/bin/sh
# SPDX-License-Identifier: MIT
# compare's false-alarm rate: PAIRS pairs of back-to-back runs of the same
# build on the same machine (nothing changed between A and B), each pair
# compared; prints per pair the bench words and compare's exit code, then
# the totals: how many bench comparisons came out SLOWER and how many
# compares exited 3. Goal (docs/compare.md): no exit 3, at most 1% SLOWER.
#
#   sh bench/compare-aa.sh [PAIRS]          (default 10)
#   KEEP=DIR sh bench/compare-aa.sh 10      also keep the runs: DIR/a1.json, DIR/b1.json, ...
#   FROM=DIR sh bench/compare-aa.sh [PAIRS] run nothing: compare the stored pairs
#                                           DIR/aI.json DIR/bI.json (I = 1..PAIRS; default:
#                                           every I with a DIR/bI.json), e.g. with a new
#                                           build's compare (SB=...)
#   POWER="1.5 2" ...                       also, per pair, B with one bench's latencies
#                                           multiplied by each factor (each bench of
#                                           POWER_BENCHES in turn), compared with A: how
#                                           often that bench is SLOWER (the sensitivity)
#   CROSS=1 (with FROM)                     every two stored runs are an A/A pair: the runs
#                                           a1 b1 a2 b2 ... in that order, each with every later
#                                           one (8 runs: 28 pairs), so the false-alarm rate and
#                                           the sensitivity are judged over more pairs than were
#                                           made back to back (runs further apart in time: a
#                                           harder test); PAIRS then limits the runs read
#   HIST=1 (with FROM)                      compare each pair (and its POWER copies) with
#                                           --history-from the other stored runs of FROM (not
#                                           pair I's, at most 32): the run-to-run spread of each
#                                           bench on this host, as a history database of
#                                           earlier runs gives it (docs/compare.md, "Power");
#                                           the history's copies keep one bin of each point's
#                                           histogram (the spread needs only the levels, the
#                                           reader a bin): each compare about 2x faster, the
#                                           words the same
#   ALPHA=P                                 every compare with --alpha P (default: compare's
#                                           own, 0.01): the false-alarm rate against the
#                                           sensitivity at another family-wise level
#   ONE=1                                   also compare the first repetition of each side
#                                           alone (no --strict) and, with POWER, one bench
#                                           made slower by DECISIVE (default 8) in that first
#                                           repetition: the decisive rule's false alarms and
#                                           what it finds
#   env: SB (./scalebench), DIR (/dev/shm), REPEAT (3), ARGS (--quick),
#        STRICT=1 also compares each pair with --strict on its first
#        repetition alone (what one run a side would have said);
#        FLOOR=1 stores every run in a private history, makes WARMUP (3)
#        runs first, and also compares each pair with --noise-floor (the
#        floor from the runs before B: docs/compare.md)
set -u
cd "$(dirname "$0")/.." || exit 2
FROM=${FROM:-}
PA=""; PB=""
KEEP=${KEEP:-}
if [ -n "$FROM" ]; then
	[ -d "$FROM" ] || { echo "compare-aa: FROM=$FROM: not a directory" >&2; exit 2; }
	n=0
	while [ -f "$FROM/b$((n + 1)).json" ]; do n=$((n + 1)); done
	PAIRS=${1:-$n}
	[ "$PAIRS" -ge 1 ] 2>/dev/null || { echo "compare-aa: no stored pairs in $FROM (a1.json, b1.json ...)" >&2; exit 2; }
	[ "${FLOOR:-0}" = 1 ] && { echo "compare-aa: FLOOR=1 needs the runs made here, not FROM" >&2; exit 2; }
else
	[ "${CROSS:-0}" = 1 ] && { echo "compare-aa: CROSS=1 needs stored runs (FROM=DIR)" >&2; exit 2; }
	PAIRS=${1:-10}
fi
if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP" || exit 2
fi
SB=${SB:-./scalebench}
DIR=${DIR:-/dev/shm}
REPEAT=${REPEAT:-3}
ARGS=${ARGS:---quick}
[ -x "$SB" ] || { echo "compare-aa: $SB not built (make)" >&2; exit 2; }
W=$(mktemp -d /tmp/scalebench-aa.XXXXXX) || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
if [ -n "$FROM" ]; then
	echo "compare-aa: $PAIRS stored pairs from $FROM compared with $SB, load $(cut -d' ' -f1-3 /proc/loadavg)"
else
	echo "compare-aa: $PAIRS pairs of '$SB run $ARGS -r $REPEAT --dir $DIR', load $(cut -d' ' -f1-3 /proc/loadavg)"
fi
tot=0; slow=0; fast=0; noisy=0; exit3=0; secs=0; sslow=0; sexit3=0; fslow=0; fexit3=0; fused=0
FLOOR=${FLOOR:-0}
DBARG=--no-db
[ "$FLOOR" = 1 ] && DBARG="--db=$W/h.db"
run() { # run OUT
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	"$SB" run $ARGS -r "$REPEAT" --dir "$DIR" $DBARG -q -o "$1" >/dev/null 2>"$W/err" ||
		{ echo "compare-aa: run failed:"; cat "$W/err"; exit 1; }
	secs=$(echo "$secs + $(date +%s.%N) - $t0" | bc)
}
words() { # words JSON -> "benches slower faster noisy insufficient"
	python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["comparisons"][0]
w = [b["word"] for b in c["benches"]]
print(len(w), w.count("slower"), w.count("faster"), w.count("noisy"), w.count("insufficient"),
      " ".join(b["name"] for b in c["benches"] if b["word"] == "slower"))' "$1"
}
if [ "$FLOOR" = 1 ]; then
	k=1
	while [ $k -le "${WARMUP:-3}" ]; do run "$W/warm.json"; k=$((k + 1)); done
	echo "history: ${WARMUP:-3} runs before the pairs"
fi
# the pairs compared, one a line: "A B" (stored runs' names in FROM)
if [ -n "$FROM" ]; then
	k=1
	while [ $k -le "$PAIRS" ]; do
		for s in a b; do
			[ -f "$FROM/$s$k.json" ] || { echo "compare-aa: $FROM/$s$k.json missing" >&2; exit 2; }
		done
		echo "a$k b$k"
		k=$((k + 1))
	done >"$W/pairs"
	if [ "${CROSS:-0}" = 1 ]; then
		k=1
		while [ $k -le "$PAIRS" ]; do echo "a$k"; echo "b$k"; k=$((k + 1)); done >"$W/runs"
		awk '{ r[NR] = $1 } END { for (x = 1; x <= NR; x++) for (y = x + 1; y <= NR; y++) print r[x], r[y] }' \
			"$W/runs" >"$W/pairs"
		PAIRS=$(wc -l <"$W/pairs")
		echo "CROSS: $PAIRS pairs, every two of $(wc -l <"$W/runs") stored runs"
	fi
fi
if [ "${HIST:-0}" = 1 ] && [ -n "$FROM" ]; then
	mkdir -p "$W/h" && python3 - "$W/h" "$FROM"/a*.json "$FROM"/b*.json <<'PY' || exit 2
import json, os, sys
for f in sys.argv[2:]:
    d = json.load(open(f))
    for b in d["benches"]:
        for r in b.get("repetitions") or []:
            for p in r.get("points") or []:
                for q in (p, p.get("control")):
                    if isinstance(q, dict) and isinstance(q.get("histogram"), dict):
                        q["histogram"]["bins"] = q["histogram"]["bins"][:1]
    json.dump(d, open(os.path.join(sys.argv[1], os.path.basename(f)), "w"))
PY
fi
i=1
while [ $i -le "$PAIRS" ]; do
	if [ -n "$FROM" ]; then
		PA=$(sed -n "${i}p" "$W/pairs" | cut -d' ' -f1)
		PB=$(sed -n "${i}p" "$W/pairs" | cut -d' ' -f2)
		cp "$FROM/$PA.json" "$W/a.json" && cp "$FROM/$PB.json" "$W/b.json" || exit 2
	else
		run "$W/a.json"; run "$W/b.json"
		[ -n "$KEEP" ] && { cp "$W/a.json" "$KEEP/a$i.json"; cp "$W/b.json" "$KEEP/b$i.json"; }
	fi
	HARGS="${ALPHA:+--alpha=$ALPHA}"
	if [ "${HIST:-0}" = 1 ] && [ -n "$FROM" ]; then
		nh=0
		for h in "$FROM"/a*.json "$FROM"/b*.json; do
			case "$h" in "$FROM/$PA.json"|"$FROM/$PB.json") continue ;; esac
			[ -f "$h" ] && [ $nh -lt 32 ] || continue
			HARGS="$HARGS --history-from=$W/h/$(basename "$h")"; nh=$((nh + 1))
		done
	fi
	# shellcheck disable=SC2086
	"$SB" compare "$W/a.json" "$W/b.json" $HARGS --format json >"$W/c.json" 2>/dev/null; rc=$?
	set -- $(words "$W/c.json")
	n=$1; s=$2; f=$3; z=$4; shift 5
	tot=$((tot + n)); slow=$((slow + s)); fast=$((fast + f)); noisy=$((noisy + z))
	[ $rc = 3 ] && exit3=$((exit3 + 1))
	line="pair $i${PA:+ ($PA $PB)}: $n benches, $s slower, $f faster, $z noisy, exit $rc${*:+ (slower: $*)}"
	if [ "${STRICT:-0}" = 1 ]; then
		python3 - "$W/a.json" "$W/b.json" <<'PY'
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    for b in d["benches"]:
        b["repetitions"] = b["repetitions"][:1]
    json.dump(d, open(f + ".1", "w"))
PY
		"$SB" compare --strict ${ALPHA:+--alpha=$ALPHA} "$W/a.json.1" "$W/b.json.1" --format json >"$W/s.json" 2>/dev/null; src=$?
		set -- $(words "$W/s.json")
		sslow=$((sslow + $2)); [ $src = 3 ] && sexit3=$((sexit3 + 1))
		line="$line; one repetition --strict: $2 slower, exit $src"
	fi
	if [ "$FLOOR" = 1 ]; then
		"$SB" compare --noise-floor ${ALPHA:+--alpha=$ALPHA} --db "$W/h.db" "$W/a.json" "$W/b.json" --format json >"$W/f.json" 2>/dev/null; frc=$?
		set -- $(words "$W/f.json")
		u=$(python3 -c 'import json,sys; print(sum(1 for b in json.load(open(sys.argv[1]))["comparisons"][0]["benches"] if (b.get("noise_floor") or {}).get("used")))' "$W/f.json")
		fslow=$((fslow + $2)); fused=$((fused + u)); [ $frc = 3 ] && fexit3=$((fexit3 + 1))
		line="$line; --noise-floor: $2 slower, exit $frc, floor above the threshold in $u${6:+ (slower: $(shift 5; echo "$*"))}"
	fi
	if [ "${ONE:-0}" = 1 ]; then
		python3 - "$W/a.json" "$W/b.json" <<'PY'
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    for b in d["benches"]:
        b["repetitions"] = b["repetitions"][:1]
    json.dump(d, open(f + ".1", "w"))
PY
		# shellcheck disable=SC2086
		"$SB" compare "$W/a.json.1" "$W/b.json.1" $HARGS --format json >"$W/o.json" 2>/dev/null; orc=$?
		set -- $(words "$W/o.json")
		oslow=$((${oslow:-0} + $2)); [ $orc = 3 ] && oexit3=$((${oexit3:-0} + 1))
		line="$line; one repetition a side: $2 slower, exit $orc${6:+ (slower: $(shift 5; echo "$*"))}"
	fi
	echo "$line"
	if [ -n "${POWER:-}" ]; then
		python3 - "$SB" "$W/a.json" "$W/b.json" "$W/p.json" "$POWER" \
			"${POWER_BENCHES:-fs.create fs.stat net.bind mem.mmap proc.fork net.udp}" "$HARGS" \
			"${ONE:-0}" "${DECISIVE:-8}" >>"$W/power" <<'PY'
import json, subprocess, sys
sb, a, b, tmp, factors, names, hargs, one, dec = sys.argv[1:]
hargs = hargs.split()
base = json.load(open(b))
if one == "1":  # one repetition a side, one bench DECISIVE times slower
    a1 = json.load(open(a + ".1"))
    b1 = json.load(open(b + ".1"))
    for nm in names.split():
        d = json.loads(json.dumps(b1))
        hit = [x for x in d["benches"] if x["name"] == nm][:1]
        for x in hit:
            for r in x["repetitions"]:
                for p in r["points"]:
                    for k, v in list(p["stats"].items()):
                        if k.endswith("_ns") and isinstance(v, (int, float)):
                            p["stats"][k] = v * float(dec)
        if not hit:
            continue
        json.dump(d, open(tmp, "w"))
        out = subprocess.run([sb, "compare", "-f", "json", a + ".1", tmp] + hargs, capture_output=True, text=True).stdout
        c = json.loads(out)["comparisons"][0]
        w = [x["word"] for x in c["benches"] if x["name"] == nm][0]
        print("one" + dec, nm, int(w == "slower"))
for f in factors.split():
    for nm in names.split():
        # the bench's latencies times f in place (no copy of the whole run), put back after
        hit = [x for x in base["benches"] if x["name"] == nm][:1]
        saved = []
        for x in hit:
            for r in x["repetitions"]:
                for p in r["points"]:
                    saved.append((p, dict(p["stats"])))
                    for k, v in list(p["stats"].items()):
                        if k.endswith("_ns") and isinstance(v, (int, float)):
                            p["stats"][k] = v * float(f)
        if not hit:
            continue
        json.dump(base, open(tmp, "w"))
        for p, st in saved:
            p["stats"] = st
        out = subprocess.run([sb, "compare", "-f", "json", a, tmp] + hargs, capture_output=True, text=True).stdout
        c = json.loads(out)["comparisons"][0]
        w = [x["word"] for x in c["benches"] if x["name"] == nm][0]
        print(f, nm, int(w == "slower"))
PY
	fi
	i=$((i + 1))
done
if [ -n "${POWER:-}" ] && [ -f "$W/power" ]; then
	for f in $POWER; do
		awk -v f="$f" '$1 == f { n++; s += $3 } END { printf "one bench x%s: SLOWER in %d of %d\n", f, s, n }' "$W/power"
		awk -v f="$f" '$1 == f { n[$2]++; s[$2] += $3 } END { for (b in n) printf "  %s %d/%d", b, s[b], n[b]; print "" }' "$W/power"
	done
	[ "${ONE:-0}" = 1 ] && awk -v f="one${DECISIVE:-8}" '$1 == f { n++; s += $3 } END { printf "one repetition a side, one bench x%s: SLOWER in %d of %d\n", substr(f, 4), s, n }' "$W/power"
fi
pct=$(echo "scale=2; 100 * $slow / ($tot + ($tot == 0))" | bc)
echo "total: $tot bench comparisons: $slow slower ($pct%), $fast faster, $noisy noisy; exit 3 in $exit3 of $PAIRS compares"
[ "${STRICT:-0}" = 1 ] && echo "one repetition a side with --strict: $sslow slower, exit 3 in $sexit3 of $PAIRS"
[ "${ONE:-0}" = 1 ] && echo "one repetition a side (decisive rule only): ${oslow:-0} slower, exit 3 in ${oexit3:-0} of $PAIRS"
[ "${HIST:-0}" = 1 ] && echo "(every compare with --history-from the other stored runs)"
[ "$FLOOR" = 1 ] && echo "with --noise-floor: $fslow slower ($(echo "scale=2; 100 * $fslow / ($tot + ($tot == 0))" | bc)%), exit 3 in $fexit3 of $PAIRS; the floor decided $fused bench comparisons"
[ "$FLOOR" = 1 ] && { echo "the spread per bench over all the runs (history --spread):"; "$SB" history --spread --db "$W/h.db"; }
[ -z "$FROM" ] && echo "time per run (-r $REPEAT): $(echo "scale=1; $secs / (2 * $PAIRS)" | bc) s"
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ $exit3 -eq 0 ] && [ $((100 * slow)) -le "$tot" ]; then echo "PASS"; else echo "FAIL"; fi
