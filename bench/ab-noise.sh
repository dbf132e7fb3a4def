#!/bin/sh
# SPDX-License-Identifier: MIT
# Two builds' repetition noise side by side, on the same machine in one
# invocation: ROUNDS runs of each, alternated A B A B ..., of
#   run BENCHES --quick -r REPS --dir DIR --no-db
# then bench/compare-noise.sh over each build's runs (the repetitions' sd
# within a run, the run means' sd, and the change a test of two such runs
# could find; docs/compare.md, "Power").
#
#   SB_A=path/to/old/scalebench SB_B=./scalebench [ROUNDS=4] [REPS=3] \
#     [DIR=/dev/shm] [KEEP=DIR] sh bench/ab-noise.sh [BENCH|FAMILY ...]
# (default benches: fs mem.mmap mem.fault net.socket net.bind)
set -u
cd "$(dirname "$0")/.." || exit 2
A=${SB_A:?SB_A: the scalebench of the first build}
B=${SB_B:-./scalebench}
ROUNDS=${ROUNDS:-4}
REPS=${REPS:-3}
DIR=${DIR:-/dev/shm}
[ $# -gt 0 ] || set -- fs mem.mmap mem.fault net.socket net.bind
for x in "$A" "$B"; do
	[ -x "$x" ] || { echo "ab-noise: $x is not an executable" >&2; exit 2; }
done
[ "$ROUNDS" -ge 3 ] 2>/dev/null || { echo "ab-noise: ROUNDS must be 3 or more" >&2; exit 2; }
if [ -n "${KEEP:-}" ]; then
	mkdir -p "$KEEP" || exit 1
	W=$KEEP
else
	W=$(mktemp -d /tmp/scalebench-abnoise.XXXXXX) || exit 1
	trap 'rm -rf "$W"' EXIT
fi
trap 'exit 130' INT TERM
echo "ab-noise: A=$A B=$B, $ROUNDS rounds of 'run $* --quick -r $REPS --dir $DIR', load $(cut -d' ' -f1 /proc/loadavg)"
i=1
while [ "$i" -le "$ROUNDS" ]; do
	for side in a b; do
		sb=$A
		[ "$side" = b ] && sb=$B
		t0=$(date +%s)
		"$sb" run "$@" --quick -r "$REPS" --dir "$DIR" --no-db -o "$W/$side$i.json" \
			>"$W/$side$i.txt" 2>&1
		rc=$?
		echo "run $i $side exit $rc $(($(date +%s) - t0)) s load $(cut -d' ' -f1 /proc/loadavg)"
		[ "$rc" -eq 0 ] || { tail -5 "$W/$side$i.txt" >&2; exit 1; }
	done
	i=$((i + 1))
done
echo "== A: $A"
sh bench/compare-noise.sh "$W"/a[0-9]*.json | tail -3
echo "== B: $B"
sh bench/compare-noise.sh "$W"/b[0-9]*.json | tail -3
