#!/bin/sh
# SPDX-License-Identifier: MIT
# Cross-check of the FUSE overhead scalebench reports: in the same run, on
# the same base file system and through the same bindfs mount over it,
# scalebench's fs.stat at N=1 (one fstatat of a one-entry directory) and the
# bare fstatat loop of bench/bare.c, rounds alternating their order. Prints
# the FUSE/base ratio of each, per round and as the median of the rounds,
# and PASS when scalebench's ratio is within 10% of the bare loop's.
#
#   sh bench/fuse-crosscheck.sh [BASE_DIR]      (root: it mounts)
#
# BASE_DIR: the base file system (default: a tmpfs this script mounts).
# Environment: SB (binary, default ./scalebench), ROUNDS (default 7),
# FUSE_OPTS (bindfs -o options, default none).
set -u
cd "$(dirname "$0")/.." || exit 1
SB=${SB:-./scalebench}
ROUNDS=${ROUNDS:-7}
FUSE_OPTS=${FUSE_OPTS:-}
[ "$(id -u)" = 0 ] || { echo "needs root (mounts a tmpfs and bindfs)" >&2; exit 2; }
command -v bindfs >/dev/null || { echo "bindfs not found (Debian: bindfs; tools/setup-deps.sh installs it)" >&2; exit 2; }
[ -x "$SB" ] || { echo "$SB not built (make)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/sb-fusecheck.XXXXXX") || exit 1
TMNT=""; FMNT=""; BPID=""
cleanup() {
	[ -n "$FMNT" ] && umount "$FMNT" 2>/dev/null
	[ -n "$BPID" ] && { kill "$BPID" 2>/dev/null; wait "$BPID" 2>/dev/null; }
	[ -n "$TMNT" ] && umount "$TMNT" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
cc -O2 -Wl,-z,now -o "$W/bare" bench/bare.c || exit 2
if [ $# -ge 1 ]; then
	BASE=$(mktemp -d "$1/sb-fusecheck.XXXXXX") || exit 2
	trap 'cleanup; rm -rf "$BASE"' EXIT
else
	mkdir "$W/base" && mount -t tmpfs -o size=256m sbfuse "$W/base" || exit 2
	TMNT=$W/base; BASE=$W/base
fi
mkdir "$W/fuse" || exit 2
# shellcheck disable=SC2086
bindfs -f ${FUSE_OPTS:+-o "$FUSE_OPTS"} "$BASE" "$W/fuse" >"$W/bindfs.log" 2>&1 &
BPID=$!; FMNT=$W/fuse
i=0; while [ $i -lt 100 ] && ! grep -q " $FMNT fuse" /proc/self/mounts; do sleep 0.1; i=$((i+1)); done
grep -q " $FMNT fuse" /proc/self/mounts || { echo "bindfs did not mount: $(cat "$W/bindfs.log")" >&2; exit 1; }
# the bare loop's file, made as fs.stat makes its entries
mkdir -m 755 "$BASE/bare" && : >"$BASE/bare/e0" && chmod 644 "$BASE/bare/e0" || exit 2

p50() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["benches"][0]["repetitions"][0]["points"][0]["stats"]["p50_ns"])' "$1"; }
samples() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["benches"][0]["repetitions"][0]["points"][0]["samples"])' "$1"; }
med() { python3 -c 'import sys; v = sorted(float(x) for x in sys.argv[1:]); print("%.3f [%.3f, %.3f]" % (v[len(v) // 2], v[0], v[-1]))' "$@"; }
# sb DIR: fs.stat at N=1 on DIR; sets p (median ns) and n (samples)
sb() { $SB run fs.stat --dir "$1" --max-n 1 --budget 1 --ci 0.5 -q --no-db -o "$W/s.json" >/dev/null &&
	p=$(p50 "$W/s.json") && n=$(samples "$W/s.json"); }

echo "== $(uname -r), $(nproc) CPUs; bindfs: $(bindfs --version 2>/dev/null | head -1), options '${FUSE_OPTS}'"
echo "== base: $BASE ($(stat -f -c %T "$BASE")), FUSE: $FMNT; load: $(uptime | sed 's/.*load average: //')"
rs=""; rb=""; round=1
while [ "$round" -le "$ROUNDS" ]; do
	if [ $((round % 2)) = 1 ]; then
		sb "$BASE" && sa=$p && na=$n && sb "$FMNT" && sf=$p && nf=$n || exit 1
		ba=$("$W/bare" fstatat "$BASE/bare" e0 "$na") && bf=$("$W/bare" fstatat "$FMNT/bare" e0 "$nf") || exit 1
	else
		ba=$("$W/bare" fstatat "$BASE/bare" e0 "${na:-20000}") && bf=$("$W/bare" fstatat "$FMNT/bare" e0 "${nf:-20000}") || exit 1
		sb "$BASE" && sa=$p && na=$n && sb "$FMNT" && sf=$p && nf=$n || exit 1
	fi
	r1=$(python3 -c "print($sf/$sa)"); r2=$(python3 -c "print($bf/$ba)")
	echo "  round $round: fs.stat base $sa ns, FUSE $sf ns (ratio $(printf %.3f "$r1")); bare fstatat base $ba ns, FUSE $bf ns (ratio $(printf %.3f "$r2"))"
	rs="$rs $r1"; rb="$rb $r2"; round=$((round + 1))
done
ms=$(med $rs); mb=$(med $rb)
echo "scalebench fs.stat FUSE/base: $ms"
echo "bare fstatat      FUSE/base: $mb"
python3 -c '
import sys
a, b = float(sys.argv[1]), float(sys.argv[2])
d = abs(a / b - 1)
print("%s: scalebench ratio %.3f vs bare %.3f, %.1f%% apart (limit 10%%)" % ("PASS" if d <= 0.10 else "FAIL", a, b, 100 * d))
sys.exit(0 if d <= 0.10 else 1)' "${ms%% *}" "${mb%% *}"
