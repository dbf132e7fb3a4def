#!/bin/sh
# SPDX-License-Identifier: MIT
# Where a request's CPU goes in each I/O engine, scalebench's and fio's, on
# the same job (4 KiB random O_DIRECT reads of a 64 MiB file, 32 in flight):
# CPU per request (every thread of the process, io-wq workers included),
# requests punted to io-wq workers, io_uring_enter / io_submit /
# io_getevents calls and context switches per request, from perf stat.
# CPU per request is the figure to compare on a busy machine: throughput
# follows the load, the CPU a request costs much less. docs/io-engines.md
# explains the figures.
#
#   sh bench/io-engine-anatomy.sh      (root: perf tracepoints, mounts)
#
# On a tmpfs and on ext4 on a loop device, made here and removed at the end
# (also on Ctrl-C). Environment: SB (default ./scalebench), RUNTIME
# (seconds per run, default 2), FS (default "tmpfs ext4").
set -u
cd "$(dirname "$0")/.." || exit 2
SB=${SB:-./scalebench}
RUNTIME=${RUNTIME:-2}
FS=${FS:-tmpfs ext4}
for c in perf fio python3; do command -v $c >/dev/null || { echo "$c not found" >&2; exit 2; }; done
[ -x "$SB" ] || { echo "$SB not built (make)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "needs root (perf tracepoints, mounts)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/sb-anat.XXXXXX") || exit 2
MOUNTS="" LOOPS=""
cleanup() {
	for m in $MOUNTS; do umount "$m" 2>/dev/null; done
	for l in $LOOPS; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
EV=task-clock,context-switches,io_uring:io_uring_queue_async_work,syscalls:sys_enter_io_uring_enter,syscalls:sys_enter_io_submit,syscalls:sys_enter_io_getevents

per_req() { # per_req LABEL REQUESTS PERF-OUTPUT
	python3 - "$@" <<'PY'
import sys
label, n, path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
v = {}
for line in open(path):
    f = line.strip().split(";")
    if len(f) > 2 and not line.startswith("#"):
        try: v[f[2]] = float(f[0])
        except ValueError: pass
g = lambda k: v.get(k, 0.0) / n
print("%-40s %9.0f  %6.2f  %6.2f  %6.2f  %6.2f  %6.2f  %6.2f" % (label, n, v.get("task-clock", 0) * 1e3 / n,
      g("io_uring:io_uring_queue_async_work"), g("syscalls:sys_enter_io_uring_enter"),
      g("syscalls:sys_enter_io_submit"), g("syscalls:sys_enter_io_getevents"), g("context-switches")))
PY
}

echo "== $(uname -r), fio $(fio --version), load:$(uptime | sed 's/.*load average//')"
for fs in $FS; do
	mp="$W/$fs"; mkdir -p "$mp"
	case $fs in
	tmpfs) mount -t tmpfs -o size=200m "sb-anat$$" "$mp" || exit 2 ;;
	ext4)
		truncate -s 256M "$W/ext4.img" && mkfs.ext4 -q -F "$W/ext4.img" >/dev/null 2>&1 || exit 2
		loop=$(losetup -f --show "$W/ext4.img") || exit 2
		LOOPS="$LOOPS $loop"
		mount "$loop" "$mp" || exit 2 ;;
	*) echo "unknown FS $fs" >&2; exit 2 ;;
	esac
	MOUNTS="$mp $MOUNTS"
	F="$mp/x.dat"
	dd if=/dev/urandom of="$F" bs=1M count=64 conv=fsync status=none || exit 2
	echo "== $fs: 4 KiB random reads, O_DIRECT, depth 32, $RUNTIME s; per request:"
	printf '%-40s %9s  %6s  %6s  %6s  %6s  %6s  %6s\n' job requests "cpu us" punted uring_enter io_submit getevents ctxsw
	for job in "libaio 1 fio" "io_uring 1 fio" "io_uring 1 plain" "libaio 32 fio" "io_uring 32 fio" "io_uring 32 plain"; do
		set -- $job
		perf stat -x';' -e "$EV" -o "$W/perf" "$SB" run io.randread -p engine=$1 -p batch=$2 -p uring_setup=$3 -p direct=1 \
			-p file="$F" --min-n 32 --max-n 32 --budget "$RUNTIME" -q --no-db --in-process -o "$W/s.json" >/dev/null 2>&1 || continue
		n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["benches"][0]["repetitions"][0]["points"][-1]["ops"])' "$W/s.json")
		lab="scalebench $1 batch=$2"; [ $1 = io_uring ] && lab="$lab uring_setup=$3"
		per_req "$lab" "$n" "$W/perf"
		if [ $3 = fio ]; then
			perf stat -x';' -e "$EV" -o "$W/perf" fio --name=x --filename="$F" --rw=randread --bs=4k --direct=1 --ioengine=$1 \
				--iodepth=32 --iodepth_batch_submit=$2 --iodepth_batch_complete_max=$2 --norandommap --randrepeat=0 \
				--invalidate=0 --time_based --runtime="$RUNTIME" --thread --output-format=json --output="$W/f.json" >/dev/null 2>&1 || continue
			n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["total_ios"])' "$W/f.json")
			per_req "fio $1 batch=$2" "$n" "$W/perf"
		fi
	done
	rm -f "$F"
done
echo "== load at end:$(uptime | sed 's/.*load average//')"
