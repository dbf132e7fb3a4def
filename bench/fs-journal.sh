#!/bin/sh
# SPDX-License-Identifier: MIT
# What ext4 without a journal does to the fs benches (docs/method.md, "The
# scratch file system's memory"), rerunnable, as root:
#   sh bench/fs-journal.sh [BENCH|FAMILY ...]       (default: fs)
# Makes two ext4 images of SIZE (default 64G, sparse) in a scratch
# directory under /tmp, one with a journal (J) and one without (-O
# ^has_journal, N), loop-mounts them, and runs
#   scalebench run --quick BENCHES --no-decide --no-db -q
# on them in turn, N J N J ... (ROUNDS, default 4), each under
# `perf record -g -e cpu-clock` when perf works: per run its wall time,
# the machine's load before and after, and the share of the run's CPU
# samples (scalebench and its workers) under the kernel's recently_deleted
# (ext4's scan past the inodes freed in the last 60 s - 5 min, done only
# without a journal). Then the ratio N/J of the mean wall times.
# Everything it made (mounts, loop devices, images) is removed at exit.
# env: SB (./scalebench), SIZE (64G), ROUNDS (4)
set -u
cd "$(dirname "$0")/.." || exit 2
SB=${SB:-./scalebench}
SIZE=${SIZE:-64G}
ROUNDS=${ROUNDS:-4}
[ "$(id -u)" = 0 ] || { echo "fs-journal: needs root (loop devices, mkfs, mount)" >&2; exit 2; }
[ -x "$SB" ] || { echo "fs-journal: $SB not built (make)" >&2; exit 2; }
W=$(mktemp -d /tmp/scalebench-fsj.XXXXXX) || exit 2
loops=""
cleanup() {
	for m in "$W/N" "$W/J"; do mountpoint -q "$m" && umount "$m"; done
	for l in $loops; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
for s in N J; do
	o=""; [ $s = N ] && o="-O ^has_journal"
	truncate -s "$SIZE" "$W/$s.img" || exit 1
	# shellcheck disable=SC2086
	mkfs.ext4 -q -F $o "$W/$s.img" || exit 1
	l=$(losetup -f --show "$W/$s.img") || exit 1
	loops="$loops $l"
	mkdir -p "$W/$s" && mount "$l" "$W/$s" || exit 1
done
perf=0
perf record -q -o "$W/t.perf" true >/dev/null 2>&1 && perf=1
load() { cut -d' ' -f1 /proc/loadavg; }
echo "== $(uname -r), $(nproc) CPUs; benches: ${*:-fs}; ext4 of $SIZE, N without a journal, J with; load: $(load)"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	if [ $((r % 2)) = 1 ]; then s=N; else s=J; fi
	l0=$(load)
	t0=$(date +%s.%N)
	if [ $perf = 1 ]; then
		# shellcheck disable=SC2068
		perf record -q -g -e cpu-clock -o "$W/r.perf" "$SB" run --quick ${@:-fs} --no-decide --no-db -q \
			--dir "$W/$s" -o "$W/r.json" >/dev/null 2>"$W/err"
	else
		# shellcheck disable=SC2068
		"$SB" run --quick ${@:-fs} --no-decide --no-db -q --dir "$W/$s" -o "$W/r.json" >/dev/null 2>"$W/err"
	fi
	rc=$?
	t1=$(date +%s.%N)
	[ $rc = 0 ] || [ $rc = 3 ] || { echo "round $r: scalebench exited $rc"; cat "$W/err"; exit 1; }
	share="(perf unavailable)"
	if [ $perf = 1 ]; then
		share=$(perf report -i "$W/r.perf" --children --sort sym --stdio -g none 2>/dev/null |
			awk '$NF == "recently_deleted" {print $1; f=1} END {if (!f) print "0%"}')
		share="recently_deleted $share of the CPU samples"
	fi
	wall=$(echo "$t1 - $t0" | bc)
	echo "$s $wall" >>"$W/walls"
	printf 'round %d %s %7.1f s  load %s -> %s  %s\n' "$r" "$s" "$wall" "$l0" "$(load)" "$share"
	r=$((r + 1))
done
awk '{s[$1] += $2; n[$1]++} END {
	if (n["N"] && n["J"])
		printf "mean wall: N (no journal) %.1f s over %d, J (journal) %.1f s over %d; N/J %.2f\n",
			s["N"] / n["N"], n["N"], s["J"] / n["J"], n["J"], (s["N"] / n["N"]) / (s["J"] / n["J"])
}' "$W/walls"
