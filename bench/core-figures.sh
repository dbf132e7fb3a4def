#!/bin/sh
# SPDX-License-Identifier: MIT
# Figures for the core (issue 2), rerunnable:
#   sh bench/core-figures.sh [--full | --overhead]   (--overhead: part 1 only)
#  1. harness overhead: median fs.stat at N=1 vs a bare fstatat()/stat()
#     loop, and proc.fork at N=1 vs a bare fork/wait loop, interleaved in
#     the same run (ROUNDS=15 rounds, each side first in turn; median of the
#     per-round ratios, with their range; the bare loops take as many
#     samples as scalebench did); goal <= 1.05.
#     The bare loop is linked as scalebench is (-z now). Shown too: the
#     same loop linked with lazy binding (its children pay the dynamic
#     linker's lookup of _exit, a cost of ld.so, not of fork), and linked
#     into a binary of scalebench's size and libraries (which separates the
#     harness's code path from the size of the process that forks: a
#     child's first instruction fetch maps its text's neighbouring pages,
#     and its exit unmaps them). Both sides run on CPU 0 (--cpus 0,
#     taskset -c 0): unpinned, a fork costs a third more or less depending
#     on whether the child lands on the parent's CPU or wakes the other
#     one, which swings from run to run on a 2-CPU VM;
#  2. `scalebench run --quick`: wall time and peak RSS (goal <= 60 s);
#  3. with --full: peak RSS of a --full run on tmpfs (goal <= 64 MiB);
#  4. the verdict of every bench on tmpfs and on a loop-mounted ext4
#     (root only; the script makes and removes both), with the exponent.
# Everything it creates lives in one temporary directory, removed on exit.
set -u
cd "$(dirname "$0")/.." || exit 2
[ -x ./scalebench ] || make -s scalebench || exit 2
W=$(mktemp -d /tmp/sb-figures.XXXXXX)
cleanup() {
	mountpoint -q "$W/ext4" 2>/dev/null && umount "$W/ext4"
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP"
	mountpoint -q "$W/tmpfs" 2>/dev/null && umount "$W/tmpfs"
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cc -O2 -Wl,-z,now -o "$W/bare" bench/bare.c || exit 2
cc -O2 -Wl,-z,lazy -o "$W/bare-lazy" bench/bare.c || exit 2
# the same loop in a binary as large as scalebench, with its libraries: what
# is left between it and proc.fork is the harness's own code path
cc -O2 $(make -s --no-print-directory print-link) -o "$W/bare-big" bench/bare.c || exit 2
SB=./scalebench
FULL=0; [ "${1:-}" = "--full" ] && FULL=1
ONLY_OVERHEAD=0; [ "${1:-}" = "--overhead" ] && ONLY_OVERHEAD=1

# measure CMD...: runs it, prints "wall_s maxrss_kib exit"
measure() {
	python3 -c '
import resource, subprocess, sys, time
t = time.monotonic()
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("%.1f %d %d" % (time.monotonic() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc))
' "$@"
}
p50() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["benches"][0]["repetitions"][0]["points"][0]["stats"]["p50_ns"])' "$1"; }
samples() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["benches"][0]["repetitions"][0]["points"][0]["samples"])' "$1"; }
# median [min, max] of the per-round ratios, and the 95% CI of that median
# (order statistics, ranks n/2 -/+ 1.96 sqrt(n)/2: the harness's own rule)
med3() { python3 -c '
import math, sys
v = sorted(float(x) for x in sys.argv[1:]); n = len(v); h = 1.959964 * math.sqrt(n) / 2
lo = v[max(0, int(math.floor(n / 2 - h)) - 1)]; hi = v[min(n - 1, int(math.ceil(n / 2 + h + 1)) - 1)]
print("%.3f [%.3f, %.3f], 95%% CI of the median %.3f .. %.3f" % (v[n // 2], v[0], v[-1], lo, hi))' "$@"; }

echo "== machine: $(uname -r), $(nproc) CPUs, clock $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$W/tmpfs" && mount -t tmpfs -o size=2g sbfig "$W/tmpfs" && TMPFS="$W/tmpfs"
else
	TMPFS=$W; echo "(not root: using $W for the tmpfs figures)"
fi

ROUNDS=${ROUNDS:-15}
echo "== 1. harness overhead (same run, both on CPU 0: $ROUNDS rounds, scalebench and the bare loop in turn, first one then the other; median of the per-round ratios, [min, max], and that median's 95% CI)"
# the bare loop's file is made as fs.stat makes its entries (bench.h modes, openat O_CREAT|O_EXCL)
mkdir -p "$TMPFS/bare" && chmod 755 "$TMPFS/bare" &&
	python3 -c 'import os,sys; os.umask(0o22); os.close(os.open(sys.argv[1], os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))' "$TMPFS/bare/e0" || exit 2
# The bare loops take as many samples as scalebench took in its last run
# (it stops a point when the median is known to +/-0.2% or 0.5%): on a VM a
# loop's speed drifts with its length, so both sides time the same stretch.
ss=20000; sf=1000
sb_stat() { $SB run fs.stat --cpus 0 --dir "$TMPFS" --max-n 1 --budget 1 --ci 0.2 -q --no-db -o "$W/s.json" >/dev/null &&
	a=$(p50 "$W/s.json") && ss=$(samples "$W/s.json"); }
sb_fork() { $SB run proc.fork --cpus 0 --dir "$TMPFS" --max-n 1 --budget 1 --ci 0.5 -q --no-db -o "$W/f.json" >/dev/null &&
	f=$(p50 "$W/f.json") && sf=$(samples "$W/f.json"); }
bare_stat() { b=$(taskset -c 0 "$W/bare" fstatat "$TMPFS/bare" e0 "$ss") && c=$(taskset -c 0 "$W/bare" stat "$TMPFS/bare/e0" "$ss"); }
bare_fork() { g=$(taskset -c 0 "$W/bare" fork "$sf") && l=$(taskset -c 0 "$W/bare-lazy" fork "$sf") &&
	h=$(taskset -c 0 "$W/bare-big" fork "$sf"); }
rs=""; rt=""; rf=""; rl=""; rh=""; round=1
while [ $round -le "$ROUNDS" ]; do
	if [ $((round % 2)) = 1 ]; then
		sb_stat && bare_stat && sb_fork && bare_fork || exit 1
	else
		bare_stat && sb_stat && bare_fork && sb_fork || exit 1
	fi
	echo "  round $round ($ss and $sf samples): fs.stat $a ns, bare fstatat $b ns, bare stat $c ns; proc.fork $f ns, bare fork $g ns (lazily bound: $l ns, in a binary of scalebench's size: $h ns)"
	rs="$rs $(python3 -c "print($a/$b)")"; rt="$rt $(python3 -c "print($a/$c)")"; rf="$rf $(python3 -c "print($f/$g)")"
	rl="$rl $(python3 -c "print($f/$l)")"; rh="$rh $(python3 -c "print($f/$h)")"
	round=$((round + 1))
done
echo "fs.stat N=1 / bare fstatat (the same call): ratio $(med3 $rs)"
echo "fs.stat N=1 / bare stat(path): ratio $(med3 $rt)"
echo "proc.fork N=1 / bare fork+wait: ratio $(med3 $rf)"
echo "proc.fork N=1 / bare fork+wait linked with lazy binding: ratio $(med3 $rl)"
echo "proc.fork N=1 / bare fork+wait in a binary of scalebench's size and libraries: ratio $(med3 $rh)"
[ $ONLY_OVERHEAD = 1 ] && exit 0

CORE="fs.create fs.open fs.stat fs.unlink proc.fork mem.mmap net.socket net.bind"
echo "== 2. scalebench run --quick in $TMPFS (peak RSS: the largest of scalebench, its bench workers and the helper processes they reap)"
set -- $(measure $SB run --quick --dir "$TMPFS" -q --no-db -o "$W/quick.json")
echo "every bench: wall ${1} s, peak RSS $(($2 / 1024)) MiB, exit $3"
set -- $(measure $SB run $CORE --quick --dir "$TMPFS" -q --no-db -o "$W/quick-core.json")
echo "the core benches ($CORE): wall ${1} s, peak RSS $(($2 / 1024)) MiB, exit $3"

if [ $FULL = 1 ]; then
	echo "== 3. scalebench run --full in $TMPFS, the core benches"
	set -- $(measure $SB run $CORE --full --dir "$TMPFS" -q --no-db -o "$W/full.json")
	echo "wall ${1} s, peak RSS $(($2 / 1024)) MiB, exit $3"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benches"]:
    f = [r["failure"] for r in b["repetitions"] if r["failure"]]
    print("  %-11s max_n %-8d reached %-8d %s" % (b["name"], b["max_n"], max((p["n"] for r in b["repetitions"] for p in r["points"]), default=0), ("stopped: " + f[0]["message"] + " at N=%d" % f[0]["n"]) if f else ""))
' "$W/full.json"
fi

verdicts() { python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benches"]:
    v = b["verdict"]
    nm = b["name"] + ("[%s]" % b["variant"] if b.get("variant") else "")
    if b["status"] == "skipped":
        print("  %-38s skipped: %s" % (nm, b.get("skip_reason"))); continue
    print("  %-38s %-10s exponent %5.2f [%5.2f, %5.2f]  cost x%.2f over N=%d..%d" % (nm, v["class"], v["exponent"], v["exponent_ci95"][0], v["exponent_ci95"][1], v["ratio"], v["n_min"], v["n_max"]))
' "$1"; }
echo "== 4. verdicts, --quick"
echo "tmpfs ($TMPFS):"; verdicts "$W/quick.json"
if [ "$(id -u)" = 0 ]; then
	truncate -s 1G "$W/ext4.img" && mkfs.ext4 -q -F "$W/ext4.img" && LOOP=$(losetup -f --show "$W/ext4.img") &&
		mkdir -p "$W/ext4" && mount "$LOOP" "$W/ext4" &&
		$SB run --quick --dir "$W/ext4" -q --no-db -o "$W/ext4.json" >/dev/null && { echo "ext4 (loop device, buffered):"; verdicts "$W/ext4.json"; }
fi
