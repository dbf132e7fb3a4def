#!/bin/sh
# SPDX-License-Identifier: MIT
# Cross-check of scalebench's data path against fio: the same file, in the
# same run, with the same parameters; then the file-system matrix. Rerun it
# at will; it prints everything to stdout (keep it with `| tee`).
#
#   sh bench/fio-crosscheck.sh [DIR]
#
# DIR: where the test file lives (default: a tmpfs this script mounts when
# root, else $TMPDIR or /tmp). Environment: SB (the binary, default
# ./scalebench), RUNTIME (seconds per fio job and per scalebench point,
# default 5), REPS (alternating runs of each pair, default 3), SIZE (file size, default 512M), MATRIX_FS (default
# ext4,xfs,btrfs,tmpfs; empty: no matrix), MATRIX_ARGS (default --quick).
#
# Compared (goal: scalebench/fio >= 1.0, the harness is not the bottleneck):
#  1. random 4 KiB reads, O_DIRECT, 32 in flight, io_uring and libaio:
#     scalebench io.randread at the one point N = 32 (--min-n 32 --max-n 32)
#     vs fio --rw=randread --iodepth=32;
#  2. sequential 1 MiB reads, O_DIRECT, libaio, 8 in flight: scalebench
#     io.seqread at N = 1024 KiB (-p depth=8) vs fio --rw=read --bs=1M.
# Latency is issue-to-completion in both (fio: --lat_percentiles=1, the
# total latency "lat_ns", not "clat_ns").
set -u
cd "$(dirname "$0")/.." || exit 1
SB=${SB:-./scalebench}
RUNTIME=${RUNTIME:-5}
REPS=${REPS:-3}
SIZE=${SIZE:-512M}
MATRIX_FS=${MATRIX_FS-ext4,xfs,btrfs,tmpfs}
MATRIX_ARGS=${MATRIX_ARGS:---quick}
command -v fio >/dev/null || { echo "fio not found (Debian: fio; tools/setup-deps.sh installs it)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 2; }
[ -x "$SB" ] || { echo "$SB not built (make)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/sb-xcheck.XXXXXX") || exit 1
MNT=""
cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
DIR=${1:-}
if [ -z "$DIR" ]; then
	if [ "$(id -u)" = 0 ]; then
		MNT="$W/tmpfs"; mkdir -p "$MNT"
		mount -t tmpfs -o size=1g sb-xcheck "$MNT" || exit 1
		DIR=$MNT
	else
		DIR=$W
	fi
fi
F="$DIR/xcheck.$$.dat"
echo "== scalebench vs fio, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -r), file $F ($SIZE on $(stat -f -c %T "$DIR"))"
fio --name=layout --filename="$F" --size="$SIZE" --rw=write --bs=1M --ioengine=psync --direct=0 \
	--output-format=json >/dev/null || exit 1

fio_job() { # fio_job OUT ARGS...: the job's read IOPS, MiB/s, p50 and p99 latency (us)
	out=$1; shift
	fio --name=x --filename="$F" --size="$SIZE" --runtime="$RUNTIME" --time_based --direct=1 \
		--lat_percentiles=1 --output-format=json "$@" >"$out" || return 1
	python3 - "$out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["read"]
p = j["lat_ns"]["percentile"]
print("%.0f %.1f %.1f %.1f" % (j["iops"], j["bw_bytes"] / 2**20, p["50.000000"] / 1e3, p["99.000000"] / 1e3))
PY
}

sb_job() { # sb_job OUT N ARGS...: scalebench's figures at point N, same units
	out=$1; n=$2; shift 2
	"$SB" run "$@" -p file="$F" -p direct=1 --min-n "$n" --max-n "$n" --budget "$RUNTIME" -q --no-db -o "$out" >/dev/null || return 1
	python3 - "$out" "$n" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benches"][0]
if b["status"] != "ok":
    print("- - - - %s" % b.get("skip_reason", b["status"])); sys.exit(0)
p = [p for p in b["repetitions"][0]["points"] if p["n"] == int(sys.argv[2])][0]
t, s = p["throughput"], p["stats"]
print("%.0f %.1f %.1f %.1f" % (t["ops_per_s"], t["bytes_per_s"] / 2**20, s["p50_ns"] / 1e3, s["p99_ns"] / 1e3))
PY
}

# pair LABEL "fio args" "scalebench args" N: REPS alternating runs of both
# (fio first, then scalebench first...), since this machine's figures drift
# by 2x from one run to the next; prints each run and the medians' ratios.
pair() {
	label=$1; fargs=$2; sargs=$3; n=$4; : >"$W/pair"
	r=1
	while [ $r -le "$REPS" ]; do
		if [ $((r % 2)) = 1 ]; then
			# shellcheck disable=SC2086
			f=$(fio_job "$W/f.json" $fargs); s=$(sb_job "$W/s.json" "$n" $sargs)
		else
			# shellcheck disable=SC2086
			s=$(sb_job "$W/s.json" "$n" $sargs); f=$(fio_job "$W/f.json" $fargs)
		fi
		echo "$f | $s" >>"$W/pair"
		r=$((r + 1))
	done
	python3 - "$label" "$W/pair" <<'PY'
import statistics, sys
label, rows = sys.argv[1], [l.split("|") for l in open(sys.argv[2])]
try:
    F = [list(map(float, a.split())) for a, b in rows]
    S = [list(map(float, b.split())) for a, b in rows]
except ValueError:
    print("%-30s could not measure: %s" % (label, rows)); sys.exit(0)
for i, (f, s) in enumerate(zip(F, S)):
    print("  run %d: fio %9.0f IOPS %8.1f MiB/s p50/p99 %7.1f/%-8.1f | scalebench %9.0f IOPS %8.1f MiB/s p50/p99 %7.1f/%-8.1f | ratio %.2f"
          % (i + 1, f[0], f[1], f[2], f[3], s[0], s[1], s[2], s[3], s[0] / f[0]))
m = lambda X, k: statistics.median(x[k] for x in X)
print("%-30s %9.0f %9.0f  %5.2f  %8.1f %8.1f  %5.2f   %6.1f/%-7.1f %6.1f/%-7.1f" % (
    label, m(F, 0), m(S, 0), m(S, 0) / m(F, 0), m(F, 1), m(S, 1), m(S, 1) / m(F, 1),
    m(F, 2), m(F, 3), m(S, 2), m(S, 3)))
PY
}

echo "(medians of $REPS alternating runs of $RUNTIME s each; latency in us, issue to completion)"
printf '%-30s %9s %9s  %5s  %8s %8s  %5s   %-14s %-14s\n' "job" "fio IOPS" "sb IOPS" "ratio" "fio MiB/s" "sb MiB/s" "ratio" "fio p50/p99" "sb p50/p99"
for eng in io_uring libaio; do
	pair "randread 4k qd32 direct $eng" "--rw=randread --bs=4k --ioengine=$eng --iodepth=32" \
		"io.randread -p engine=$eng" 32
done
pair "seqread 1M qd8 direct libaio" "--rw=read --bs=1M --ioengine=libaio --iodepth=8" \
	"io.seqread -p engine=libaio -p depth=8" 1024
rm -f "$F"

if [ -n "$MATRIX_FS" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "== matrix skipped: needs root"
	else
		echo "== scalebench matrix --fs $MATRIX_FS $MATRIX_ARGS"
		t0=$(date +%s)
		# shellcheck disable=SC2086
		"$SB" matrix --fs "$MATRIX_FS" $MATRIX_ARGS -q --no-db -o "$W/matrix.json"
		echo "matrix wall time: $(( $(date +%s) - t0 )) s"
	fi
fi
