#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/fio-crosscheck.sh on one short job: it prints a row with both
# tools' medians, a ratio and a verdict for tmpfs and for ext4 on a loop
# device, ends with PASS or FAIL (exit 0 or 1, never 2 here), and removes
# its mounts, loop device and scratch directory, also when stopped by a
# signal midway; both tools run under one affinity (CPUS, by default the
# last CPU; empty: free); ROUNDS sets the runs per job (odd, at least 3).
# Root only (it mounts); the figures are not judged here.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if ! is_root || [ -n "${SB_VARIANT:-}" ]; then skip "fio-crosscheck.sh (needs root and the native build)"; exit 0; fi
if ! command -v fio >/dev/null; then skip "fio-crosscheck.sh (fio not installed)"; exit 0; fi
if ! command -v mkfs.ext4 >/dev/null; then skip "fio-crosscheck.sh (mkfs.ext4 missing)"; exit 0; fi
mkdir -p "$T/tmp"
left() { # nothing of the script's left: no mount or loop device under $T/tmp, the directory empty
	! grep -q " $T/tmp/" /proc/mounts && ! losetup -a | grep -q "$T/tmp/" && empty_dir "$T/tmp"
}
TMPDIR="$T/tmp" SB="$SB" RUNTIME=0.3 SIZE_MIB=8 ROUNDS=3 CPUS= JOBS="psync:1:1 libaio:4:2" sh "$ROOT/bench/fio-crosscheck.sh" >"$T/xc.out" 2>"$T/xc.err"
rc=$?
check "exit 0 (PASS) or 1 (FAIL), not 2" test $rc -eq 0 -o $rc -eq 1
check "a row per file system and job, with medians, spread, ratio, verdict and both tools' CPU per request" test "$(grep -cE '^(tmpfs|ext4) +(psync|libaio) +[0-9]+ +[0-9]+ +[0-9]+ \([0-9]+\.\.[0-9]+\) +[0-9]+ \([0-9]+\.\.[0-9]+\) +[0-9.]+ +(PASS|FAIL) +[0-9]+\.[0-9]+\+[0-9]+\.[0-9]+\|[0-9]+\.[0-9]+\+[0-9]+\.[0-9]+$' "$T/xc.out")" = 4
check "the fio line measures what scalebench measures (clock_gettime, one latency per request)" out_has "$T/xc.out" "fio's line for the last job: fio .*--clocksource=clock_gettime --disable_slat=1 --disable_clat=1 --lat_percentiles=1 "
check "the fio line shown is --fio's, batch included" out_has "$T/xc.out" "fio's line for the last job: fio --name=io.randread .*--iodepth=4 --iodepth_batch_submit=2 "
check "the load is reported" out_has "$T/xc.out" "load at end"
check "a final PASS or FAIL line" sh -c 'tail -1 "$1" | grep -qE "^(PASS|FAIL): "' _ "$T/xc.out"
check "mounts, loop device and scratch removed" left

# CPUS=: both tools run under that affinity (wrappers record the CPUs each
# was allowed, then run the real tool; fio's jobs, not its --version for the
# header), and the header says so; a CPU list
# taskset refuses is exit 2 with nothing left behind
mkdir -p "$T/wrap"
cat >"$T/wrap/fio" <<EOW
#!/bin/sh
[ "\$1" = --version ] || grep Cpus_allowed_list /proc/self/status >>"$T/fio.cpus"
exec $(command -v fio) "\$@"
EOW
cat >"$T/wrap/sb" <<EOW
#!/bin/sh
grep Cpus_allowed_list /proc/self/status >>"$T/sb.cpus"
exec "$SB" "\$@"
EOW
chmod +x "$T/wrap/fio" "$T/wrap/sb"
PATH="$T/wrap:$PATH" TMPDIR="$T/tmp" SB="$T/wrap/sb" RUNTIME=0.2 SIZE_MIB=8 FS=tmpfs JOBS="psync:1:1" CPUS=0 ROUNDS=5 \
	sh "$ROOT/bench/fio-crosscheck.sh" >"$T/xc3.out" 2>&1
rc=$?
check "CPUS=0: exit 0 or 1" test $rc -eq 0 -o $rc -eq 1
check "CPUS=0: the header names the placement" out_has "$T/xc3.out" "placement: both tools under taskset -c 0"
check "CPUS=0: every scalebench run was allowed CPU 0 only" sh -c '[ -s "$1" ] && ! grep -vq ":[[:space:]]*0$" "$1"' _ "$T/sb.cpus"
check "CPUS=0: every fio run was allowed CPU 0 only (2 runs)" sh -c '[ "$(grep -c ":[[:space:]]*0$" "$1")" = 2 ] && ! grep -vq ":[[:space:]]*0$" "$1"' _ "$T/fio.cpus"
check "CPUS=0: a row for the job" grep -qE '^tmpfs +psync ' "$T/xc3.out"
check "CPUS= (empty): the header says free placement" out_has "$T/xc.out" "placement: free"
check "ROUNDS=5: 3 scalebench runs (and its --fio line)" test "$(grep -c . "$T/sb.cpus")" = 4
# unset: the last CPU allowed, for both
last=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
: >"$T/sb.cpus"
: >"$T/fio.cpus"
(unset CPUS; PATH="$T/wrap:$PATH" TMPDIR="$T/tmp" SB="$T/wrap/sb" RUNTIME=0.2 SIZE_MIB=8 FS=tmpfs JOBS="psync:1:1" ROUNDS=3 \
	sh "$ROOT/bench/fio-crosscheck.sh" >"$T/xc5.out" 2>&1)
check "CPUS unset: the header names the last CPU ($last)" out_has "$T/xc5.out" "placement: both tools under taskset -c $last"
check "CPUS unset: scalebench allowed CPU $last only (2 runs and its --fio line)" sh -c '[ "$(grep -c ":[[:space:]]*$2$" "$1")" = 3 ] && [ "$(grep -c . "$1")" = 3 ]' _ "$T/sb.cpus" "$last"
check "CPUS unset: fio allowed CPU $last only (1 run)" sh -c '[ "$(grep -c ":[[:space:]]*$2$" "$1")" = 1 ] && [ "$(grep -c . "$1")" = 1 ]' _ "$T/fio.cpus" "$last"
TMPDIR="$T/tmp" SB="$SB" ROUNDS=4 sh "$ROOT/bench/fio-crosscheck.sh" >"$T/xc6.out" 2>&1
check "ROUNDS=4: exit 2" test $? -eq 2
check "ROUNDS=4: the error names ROUNDS" out_has "$T/xc6.out" "ROUNDS=4"
TMPDIR="$T/tmp" SB="$SB" CPUS="nosuchcpu" sh "$ROOT/bench/fio-crosscheck.sh" >"$T/xc4.out" 2>&1
check "CPUS=nosuchcpu: exit 2" test $? -eq 2
check "CPUS=nosuchcpu: the error names CPUS" out_has "$T/xc4.out" "CPUS='nosuchcpu'"
check "CPUS: mounts, loop device and scratch removed" left

# stopped midway (TERM while the second file system runs): still removed
# (TERM, not INT: a background job of a non-interactive shell ignores INT,
# and an ignored signal cannot be trapped; the script traps both the same way)
TMPDIR="$T/tmp" SB="$SB" RUNTIME=1 SIZE_MIB=8 ROUNDS=3 JOBS="psync:1:1" sh "$ROOT/bench/fio-crosscheck.sh" >"$T/xc2.out" 2>&1 &
pid=$!
at_exit "kill $pid 2>/dev/null"
i=0
while [ $i -lt 600 ] && ! grep -q " $T/tmp/.*/ext4 " /proc/mounts; do sleep 0.1; i=$((i + 1)); done
check "the ext4 loop mount was made" grep -q " $T/tmp/.*/ext4 " /proc/mounts
kill -TERM $pid
wait $pid
check "TERM: exit 143" test $? -eq 143
check "TERM: mounts, loop device and scratch removed" left
