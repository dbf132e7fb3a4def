#!/bin/sh
# SPDX-License-Identifier: MIT
# Cross-check of scalebench's I/O engines against fio on matched jobs only:
# every fio command line comes from `scalebench run io.randread --fio` for
# the very job scalebench then runs (same file, size, offsets distribution
# (uniform, with replacement: --norandommap), O_DIRECT, depth, submit and
# completion batch, time window, no ramp; the same measurement per request:
# one latency read from CLOCK_MONOTONIC, --clocksource=clock_gettime
# --disable_slat=1 --disable_clat=1 --lat_percentiles=1, see
# docs/io-engines.md), and the figures compared are fio's read IOPS and
# scalebench's throughput (requests/s) at that point. Beside them, each
# tool's own CPU per request (user + system, medians, from its rusage: fio's
# usr_cpu/sys_cpu, its job thread's getrusage(RUSAGE_THREAD); scalebench's
# per_op for psync, and for libaio and io_uring its submitting thread alone,
# extra.submitter_cpu_s, the same scope as fio's: per_op would add the
# io-wq worker threads that do io_uring's tmpfs reads, which fio's figure
# leaves out, see docs/io-engines.md): where the submitting thread is
# CPU-bound (tmpfs, batch 1), requests/s is the inverse of that CPU, and
# the user column is mostly the tool's own loop.
#
#   sh bench/fio-crosscheck.sh            (root: it mounts what it measures)
#
# Jobs: 4 KiB random reads, O_DIRECT, of one SIZE_MIB file: psync at depth
# 1; libaio and io_uring at depth 32 with batch 1 (fio's default) and batch
# 32; on a tmpfs and on ext4 on a loop device, both made here and removed
# at the end (also on error and Ctrl-C). Each job runs ROUNDS (default 9)
# runs alternated A B A B ... A (A = scalebench, B = fio); the medians and
# their spread (min..max) are printed, and the ratio judged is the median,
# over the fio runs, of scalebench's mean in the two runs around it over
# fio's: this guest's speed moves in stretches of seconds (the whole machine
# 1.5-1.8x slower for a while, both tools alike), and a run compared with its
# own neighbours leaves such a stretch in one ratio instead of in a side's
# median. PASS only when every such ratio lies within 0.90..1.10 (exit 0;
# else exit 1; 2: cannot run).
# Environment: SB (default ./scalebench), RUNTIME (seconds per run, default
# 3), ROUNDS (runs per job, odd, at least 3, default 9; 5 was this script's
# A B A B A until 2026-12-06), SIZE_MIB (default 64), FS (default "tmpfs ext4"), JOBS (default all,
# e.g. "io_uring:32:1"), FIO_EXTRA (options added to every fio line, e.g.
# --gtod_reduce=1 to take most of fio's own per-request accounting out: an
# investigation aid, printed in the header when set; the job is unchanged),
# CPUS (default: the last CPU allowed, e.g. 1 on 2 CPUs: both tools run
# under `taskset -c CPUS`, the same placement for both, io_uring's io-wq
# workers included, since they inherit it; CPUS=0,1 or any list taskset
# takes; CPUS= (empty): free, neither tool pinned, the scheduler placing
# fio's job process and scalebench's worker each its own way; the header
# says which). Pinned is the default since 2026-12-06: free, io_uring on
# tmpfs at batch 32 read 1.32 and 1.45 (fio's submitting thread used 0.44
# us of user CPU per request against scalebench's 0.17-0.19, its
# completions coming from io-wq workers on the other CPU), pinned 1.00,
# 1.00 and 1.02 (0.34 against 0.27): docs/io-engines.md, "Placement,
# again".
set -u
cd "$(dirname "$0")/.." || exit 2
SB=${SB:-./scalebench}
RUNTIME=${RUNTIME:-3}
ROUNDS=${ROUNDS:-9}
case $ROUNDS in *[!0-9]* | '') echo "ROUNDS='$ROUNDS': not a number" >&2; exit 2 ;; esac
[ "$ROUNDS" -ge 3 ] && [ $((ROUNDS % 2)) = 1 ] || { echo "ROUNDS=$ROUNDS: an odd number, at least 3 (A B A ... A)" >&2; exit 2; }
SIZE_MIB=${SIZE_MIB:-64}
FS=${FS:-tmpfs ext4}
JOBS=${JOBS:-psync:1:1 libaio:32:1 libaio:32:32 io_uring:32:1 io_uring:32:32}
FIO_EXTRA=${FIO_EXTRA:-}
if [ -z "${CPUS+set}" ]; then # unset: the last CPU this script may run on
	CPUS=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))' 2>/dev/null) || CPUS=""
fi
PIN=""
if [ -n "$CPUS" ]; then
	command -v taskset >/dev/null || { echo "CPUS= needs taskset (Debian: util-linux)" >&2; exit 2; }
	taskset -c "$CPUS" true 2>/dev/null || { echo "CPUS='$CPUS': not a CPU list taskset accepts here" >&2; exit 2; }
	PIN="taskset -c $CPUS"
fi
command -v fio >/dev/null || { echo "fio not found (Debian: fio; tools/setup-deps.sh installs it)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 2; }
[ -x "$SB" ] || { echo "$SB not built (make)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "needs root (it mounts a tmpfs and a loop-device ext4)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/sb-fioxc.XXXXXX") || exit 2
MOUNTS="" LOOPS=""
cleanup() {
	for m in $MOUNTS; do umount "$m" 2>/dev/null; done
	for l in $LOOPS; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mount_fs() { # mount_fs FS: sets mp to the mount point (no subshell: cleanup must see it)
	mp="$W/$1"; mkdir -p "$mp" || return 1
	case $1 in
	tmpfs) mount -t tmpfs -o size=$((SIZE_MIB * 2 + 64))m "sb-fioxc$$" "$mp" || return 1 ;;
	ext4)
		command -v mkfs.ext4 >/dev/null || { echo "mkfs.ext4 missing" >&2; return 1; }
		truncate -s $((SIZE_MIB * 2 + 128))M "$W/ext4.img" && mkfs.ext4 -q -F "$W/ext4.img" >/dev/null 2>&1 || return 1
		loop=$(losetup -f --show "$W/ext4.img") || return 1
		LOOPS="$LOOPS $loop"
		mount "$loop" "$mp" || return 1 ;;
	*) echo "unknown FS '$1' (tmpfs, ext4)" >&2; return 1 ;;
	esac
	MOUNTS="$mp $MOUNTS"
}

sb_run() { # sb_run ENGINE DEPTH BATCH FILE: requests/s at the point
	$PIN "$SB" run io.randread -p engine="$1" -p direct=1 -p batch="$3" -p file="$4" --min-n "$2" --max-n "$2" \
		--budget "$RUNTIME" -q --no-db -o "$W/s.json" >/dev/null 2>"$W/s.err" || { cat "$W/s.err" >&2; return 1; }
	python3 - "$W/s.json" "$2" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["benches"][0]
if b["status"] != "ok":
    sys.exit("scalebench: %s %s" % (b["status"], b.get("skip_reason", "")))
p = [p for p in b["repetitions"][0]["points"] if p["n"] == int(sys.argv[2])][0]
u = p.get("per_op") or {}
us, ss = u.get("user_s", float("nan")) * 1e6, u.get("sys_s", float("nan")) * 1e6
t = (p.get("extra") or {}).get("submitter_cpu_s")
if t and p.get("ops"):  # libaio, io_uring: the submitting thread alone, as fio's RUSAGE_THREAD
    us, ss = t["user"] / p["ops"] * 1e6, t["sys"] / p["ops"] * 1e6
print("%.0f %.3f %.3f" % (p["throughput"]["ops_per_s"], us, ss))
PY
}

fio_run() { # fio_run "FIO COMMAND LINE": read IOPS, user and system CPU us per request
	sh -c "$PIN $1 $FIO_EXTRA --output-format=json --output='$W/f.json'" >/dev/null 2>"$W/f.err" || { cat "$W/f.err" >&2; return 1; }
	python3 - "$W/f.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
r = j["read"]
per = r["runtime"] * 1e3 / r["total_ios"] if r["total_ios"] else float("nan")  # us of the job per request
print("%.0f %.3f %.3f" % (r["iops"], j["usr_cpu"] / 100 * per, j["sys_cpu"] / 100 * per))
PY
}

echo "== scalebench vs fio $(fio --version), $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -r)"
echo "== load at start:$(uptime | sed 's/.*load average//')"
echo "== 4 KiB random reads, O_DIRECT, ${SIZE_MIB} MiB file, ${RUNTIME} s per run, $ROUNDS runs alternated A B A ... A (A = scalebench); ratio: median over fio's runs of the scalebench runs around each / that run"
[ -n "$FIO_EXTRA" ] && echo "== FIO_EXTRA: every fio line with $FIO_EXTRA"
if [ -n "$CPUS" ]; then echo "== placement: both tools under taskset -c $CPUS"; else echo "== placement: free (neither tool pinned; unset CPUS pins both to the last CPU)"; fi
printf '%-6s %-9s %5s %5s  %-26s %-26s %6s  %-7s %s\n' fs engine depth batch "scalebench req/s (spread)" "fio IOPS (spread)" ratio verdict \
	"cpu us/req usr+sys: scalebench | fio"
fails=0 total=0
for fs in $FS; do
	mount_fs "$fs" || { echo "$fs: could not be made" >&2; fails=$((fails + 1)); continue; }
	F="$mp/xc.dat"
	dd if=/dev/urandom of="$F" bs=1M count="$SIZE_MIB" conv=fsync status=none || exit 2
	for job in $JOBS; do
		IFS=: read -r eng depth batch <<EOJ
$job
EOJ
		cmd=$($PIN "$SB" run io.randread -p engine="$eng" -p direct=1 -p batch="$batch" -p file="$F" \
			--min-n "$depth" --max-n "$depth" --budget "$RUNTIME" --fio | grep '^fio ')
		[ "$(printf '%s\n' "$cmd" | wc -l)" = 1 ] || { echo "$fs $job: no single fio line from --fio" >&2; fails=$((fails + 1)); continue; }
		: >"$W/sb"; : >"$W/fio"
		i=1
		while [ $i -le "$ROUNDS" ]; do
			if [ $((i % 2)) = 1 ]; then sb_run "$eng" "$depth" "$batch" "$F" >>"$W/sb"; else fio_run "$cmd" >>"$W/fio"; fi
			i=$((i + 1))
		done
		total=$((total + 1))
		line=$(python3 - "$W/sb" "$W/fio" "$ROUNDS" "$W/runs" <<'PY'
import statistics, sys
rows = lambda f: [[float(x) for x in l.split()] for l in open(f) if l.strip()]
S, F = rows(sys.argv[1]), rows(sys.argv[2])
nb = (int(sys.argv[3]) - 1) // 2
if len(S) != nb + 1 or len(F) != nb:
    print("- - - - - - - FAIL(runs missing) -"); sys.exit(0)
s, f = [x[0] for x in S], [x[0] for x in F]
ms, mf = statistics.median(s), statistics.median(f)
# fio's run k lies between scalebench's runs k and k + 1
rk = [(s[k] + s[k + 1]) / 2 / f[k] for k in range(nb)]
r = round(statistics.median(rk), 2)  # judged as printed
order = [x for k in range(nb) for x in (s[k], f[k])] + [s[nb]]
with open(sys.argv[4], "w") as o:  # the runs in their order, and each fio run's ratio
    o.write("runs in order, k/s: %s; ratio by fio run: %s\n" % (" ".join("%.0f" % (x / 1e3) for x in order),
            " ".join("%.2f" % x for x in rk)))
med = lambda rs, i: statistics.median(x[i] for x in rs)
print("%.0f (%.0f..%.0f) %.0f (%.0f..%.0f) %.2f %s %.2f+%.2f|%.2f+%.2f" % (ms, min(s), max(s), mf, min(f), max(f), r,
      "PASS" if 0.90 <= r <= 1.10 else "FAIL", med(S, 1), med(S, 2), med(F, 1), med(F, 2)))
PY
)
		set -- $line
		printf '%-6s %-9s %5s %5s  %-26s %-26s %6s  %-7s %s\n' "$fs" "$eng" "$depth" "$batch" "$1 $2" "$3 $4" "$5" "$6" "$7"
		[ -s "$W/runs" ] && printf '       %s\n' "$(cat "$W/runs")" && rm -f "$W/runs"
		[ "$6" = PASS ] || fails=$((fails + 1))
	done
	rm -f "$F"
	echo "   fio's line for the last job: $cmd"
done
echo "== load at end:$(uptime | sed 's/.*load average//')"
if [ "$fails" = 0 ] && [ "$total" -gt 0 ]; then
	echo "PASS: $total matched jobs within 0.90..1.10"
	exit 0
fi
echo "FAIL: $fails of $total jobs outside 0.90..1.10 (or not measured)"
exit 1
