#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/fio-crosscheck.sh on one short job: it prints a row with both
# tools' medians, a ratio and a verdict for tmpfs and for ext4 on a loop
# device, ends with PASS or FAIL (exit 0 or 1, never 2 here), and removes
# its mounts, loop device and scratch directory, also when stopped by a
# signal midway. Root only (it mounts); the figures are not judged here.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if ! is_root || [ -n "${SB_VARIANT:-}" ]; then skip "fio-crosscheck.sh (needs root and the native build)"; exit 0; fi
if ! command -v fio >/dev/null; then skip "fio-crosscheck.sh (fio not installed)"; exit 0; fi
if ! command -v mkfs.ext4 >/dev/null; then skip "fio-crosscheck.sh (mkfs.ext4 missing)"; exit 0; fi
mkdir -p "$T/tmp"
left() { # nothing of the script's left: no mount or loop device under $T/tmp, the directory empty
	! grep -q " $T/tmp/" /proc/mounts && ! losetup -a | grep -q "$T/tmp/" && empty_dir "$T/tmp"
}
TMPDIR="$T/tmp" SB="$SB" RUNTIME=0.3 SIZE_MIB=8 JOBS="psync:1:1 libaio:4:2" sh "$ROOT/bench/fio-crosscheck.sh" >"$T/xc.out" 2>"$T/xc.err"
rc=$?
check "exit 0 (PASS) or 1 (FAIL), not 2" test $rc -eq 0 -o $rc -eq 1
check "a row per file system and job, with medians, spread, ratio, verdict and both tools' CPU per request" test "$(grep -cE '^(tmpfs|ext4) +(psync|libaio) +[0-9]+ +[0-9]+ +[0-9]+ \([0-9]+\.\.[0-9]+\) +[0-9]+ \([0-9]+\.\.[0-9]+\) +[0-9.]+ +(PASS|FAIL) +[0-9]+\.[0-9]+\+[0-9]+\.[0-9]+\|[0-9]+\.[0-9]+\+[0-9]+\.[0-9]+$' "$T/xc.out")" = 4
check "the fio line measures what scalebench measures (clock_gettime, one latency per request)" out_has "$T/xc.out" "fio's line for the last job: fio .*--clocksource=clock_gettime --disable_slat=1 --disable_clat=1 --lat_percentiles=1 "
check "the fio line shown is --fio's, batch included" out_has "$T/xc.out" "fio's line for the last job: fio --name=io.randread .*--iodepth=4 --iodepth_batch_submit=2 "
check "the load is reported" out_has "$T/xc.out" "load at end"
check "a final PASS or FAIL line" sh -c 'tail -1 "$1" | grep -qE "^(PASS|FAIL): "' _ "$T/xc.out"
check "mounts, loop device and scratch removed" left

# stopped midway (TERM while the second file system runs): still removed
# (TERM, not INT: a background job of a non-interactive shell ignores INT,
# and an ignored signal cannot be trapped; the script traps both the same way)
TMPDIR="$T/tmp" SB="$SB" RUNTIME=1 SIZE_MIB=8 JOBS="psync:1:1" sh "$ROOT/bench/fio-crosscheck.sh" >"$T/xc2.out" 2>&1 &
pid=$!
at_exit "kill $pid 2>/dev/null"
i=0
while [ $i -lt 600 ] && ! grep -q " $T/tmp/.*/ext4 " /proc/mounts; do sleep 0.1; i=$((i + 1)); done
check "the ext4 loop mount was made" grep -q " $T/tmp/.*/ext4 " /proc/mounts
kill -TERM $pid
wait $pid
check "TERM: exit 143" test $? -eq 143
check "TERM: mounts, loop device and scratch removed" left
