#!/bin/sh
# SPDX-License-Identifier: MIT
# io_uring on a tmpfs, scalebench against fio on the same job (the line
# `scalebench run io.randread -p engine=io_uring -p direct=1 -p batch=B
# --fio` prints; 4 KiB random O_DIRECT reads of a 64 MiB file, depth 32),
# per request and per thread, in steady state: CPU of the submitting thread
# and of the io-wq workers (each thread's /proc/PID/task/TID/schedstat
# runtime over a 1 s window in the middle of a RUNTIME s run, the process
# being the one that owns an iou-wrk thread: fio's job process,
# scalebench's worker), divided by the run's requests/s; then, under
# `perf stat` (whole runs), requests punted to io-wq
# (io_uring:io_uring_queue_async_work), io_uring_enter calls and context
# switches per request. The tools alternate (scalebench, fio, twice).
# docs/io-engines.md ("io_uring's system CPU") explains the figures.
#
#   sudo sh bench/io-uring-threads.sh     (root: mounts, perf tracepoints)
#
# Environment: SB (default ./scalebench), RUNTIME (default 2.5, at least
# 2), BATCHES (default "1 32"). Without perf the second part is skipped.
set -u
cd "$(dirname "$0")/.." || exit 2
SB=${SB:-./scalebench}
RUNTIME=${RUNTIME:-2.5}
BATCHES=${BATCHES:-1 32}
for c in fio python3; do command -v $c >/dev/null || { echo "$c not found" >&2; exit 2; }; done
[ -x "$SB" ] || { echo "$SB not built (make)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "needs root (it mounts a tmpfs; perf tracepoints)" >&2; exit 2; }
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 2 else 1)" "$RUNTIME" 2>/dev/null ||
	{ echo "RUNTIME='$RUNTIME': a number of seconds, at least 2" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/sb-iouth.XXXXXX") || exit 2
MP="" BG=""
cleanup() {
	[ -n "$BG" ] && kill "$BG" 2>/dev/null && wait "$BG" 2>/dev/null
	[ -n "$MP" ] && umount "$MP" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$W/mnt" && mount -t tmpfs -o size=200m "sb-iouth$$" "$W/mnt" || exit 2
MP="$W/mnt"
F="$MP/x.dat"
dd if=/dev/urandom of="$F" bs=1M count=64 conv=fsync status=none || exit 2

# owner COMM: the pid of a process named COMM below this script with an iou-wrk thread
owner() {
	for t in /proc/[0-9]*/task/*/comm; do
		case $(cat "$t" 2>/dev/null) in iou-wrk*) ;; *) continue ;; esac
		p=${t#/proc/}; p=${p%%/*}
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$1" ] || continue
		q=$p # one of ours: an ancestor is this script
		while [ -n "$q" ] && [ "$q" -gt 1 ]; do
			[ "$q" = $$ ] && { echo "$p"; return; }
			q=$(awk '{print $4}' "/proc/$q/stat" 2>/dev/null)
		done
	done
}
# snap PID: "tid comm runtime_ns" for each of its threads
snap() {
	for d in /proc/"$1"/task/*; do
		read -r ns _ <"$d/schedstat" 2>/dev/null && echo "${d##*/} $(cat "$d/comm" 2>/dev/null) $ns"
	done
}
sb_cmd() { echo "$SB run io.randread -p engine=io_uring -p direct=1 -p batch=$1 -p file=$F --min-n 32 --max-n 32 --budget $2"; }
rate() { # rate TOOL: requests/s of the run just finished
	if [ "$1" = scalebench ]; then
		python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["benches"][0]["repetitions"][0]["points"][-1]["throughput"]["ops_per_s"])' "$W/s.json"
	else
		python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"])' "$W/f.json"
	fi
}

echo "== $(uname -r), fio $(fio --version), $(date -u +%Y-%m-%dT%H:%M:%SZ), load:$(uptime | sed 's/.*load average//')"
echo "== io_uring, tmpfs, 4 KiB random O_DIRECT reads, depth 32; steady state (1 s window), us of CPU per request:"
printf '%-10s %5s %9s  %9s %9s %9s %7s\n' tool batch "req/s" submitter "io-wq" total busy
for b in $BATCHES; do
	fcmd=$($(sb_cmd "$b" "$RUNTIME") --fio | grep '^fio ') || { echo "no fio line from --fio" >&2; exit 2; }
	for _ in 1 2; do
		for tool in scalebench fio; do
			if [ $tool = scalebench ]; then
				$(sb_cmd "$b" "$RUNTIME") -q --no-db -o "$W/s.json" >/dev/null 2>&1 &
			else
				sh -c "$fcmd --output-format=json --output='$W/f.json'" >/dev/null 2>&1 &
			fi
			BG=$!
			p="" i=0
			while [ -z "$p" ] && [ $i -lt 100 ]; do sleep 0.05; p=$(owner $tool); i=$((i + 1)); done
			if [ -z "$p" ]; then echo "$tool: no process with an io-wq worker found" >&2; wait "$BG"; BG=""; continue; fi
			sleep 0.3
			snap "$p" >"$W/a"; t0=$(date +%s%N)
			sleep 1
			snap "$p" >"$W/b"; t1=$(date +%s%N)
			wait "$BG"; rc=$?; BG=""
			[ $rc = 0 ] || { echo "$tool run failed (exit $rc)" >&2; continue; }
			python3 - "$W/a" "$W/b" "$t0" "$t1" "$(rate $tool)" "$tool" "$b" <<'PY'
import sys
a = {l.split()[0]: l.split() for l in open(sys.argv[1])}
dt = (int(sys.argv[4]) - int(sys.argv[3])) / 1e9
rate = float(sys.argv[5])
sub = wrk = 0.0
for l in open(sys.argv[2]):
    tid, comm, ns = l.split()
    d = (int(ns) - int(a[tid][2] if tid in a else 0)) / 1e9 / dt  # CPUs
    if comm.startswith("iou-wrk"): wrk += d
    else: sub += d
us = lambda c: c / rate * 1e6
print("%-10s %5s %9.0f  %9.2f %9.2f %9.2f %7.2f" % (sys.argv[6], sys.argv[7], rate, us(sub), us(wrk), us(sub + wrk), sub + wrk))
PY
		done
	done
done
echo "   (submitter: every thread of the process but the io-wq workers; busy: CPUs those threads used)"
if command -v perf >/dev/null && perf stat -e io_uring:io_uring_queue_async_work true >/dev/null 2>&1; then
	EV=context-switches,io_uring:io_uring_queue_async_work,io_uring:io_uring_submit_req,syscalls:sys_enter_io_uring_enter
	echo "== perf stat, whole runs of 1 s, per request:"
	printf '%-10s %5s %9s  %7s %10s %8s %7s\n' tool batch requests punted submit_req enter ctxsw
	for b in $BATCHES; do
		fcmd=$($(sb_cmd "$b" 1) --fio | grep '^fio ')
		for tool in scalebench fio scalebench fio; do
			if [ $tool = scalebench ]; then
				# shellcheck disable=SC2046 # the command line, split on purpose (no spaces in its words)
				perf stat -x';' -e "$EV" -o "$W/p" $(sb_cmd "$b" 1) -q --no-db -o "$W/s.json" >/dev/null 2>&1 || continue
				n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["benches"][0]["repetitions"][0]["points"][-1]["ops"])' "$W/s.json")
			else
				perf stat -x';' -e "$EV" -o "$W/p" sh -c "$fcmd --output-format=json --output='$W/f.json'" >/dev/null 2>&1 || continue
				n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["total_ios"])' "$W/f.json")
			fi
			python3 - "$W/p" "$n" "$tool" "$b" <<'PY'
import sys
v = {}
for line in open(sys.argv[1]):
    f = line.strip().split(";")
    if len(f) > 2 and not line.startswith("#"):
        try: v[f[2]] = float(f[0])
        except ValueError: pass
n = float(sys.argv[2])
g = lambda k: v.get(k, 0.0) / n
print("%-10s %5s %9.0f  %7.3f %10.3f %8.3f %7.3f" % (sys.argv[3], sys.argv[4], n, g("io_uring:io_uring_queue_async_work"),
      g("io_uring:io_uring_submit_req"), g("syscalls:sys_enter_io_uring_enter"), g("context-switches")))
PY
		done
	done
else
	echo "== perf or its io_uring tracepoints not available: counts skipped"
fi
echo "== load at end:$(uptime | sed 's/.*load average//')"
