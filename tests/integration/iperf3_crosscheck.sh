#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/iperf3-crosscheck.sh: bad usage is exit 2 with the problem named;
# a short real run (1 s per run, A B A scalebench/iperf3 for 1 and 4
# streams on loopback) prints each run, the medians with their spread and
# the ratio, and its exit status agrees with its verdict (0 with PASS, 1
# with FAIL and a ratio outside 0.90..1.10); it leaves no process below
# it and no temporary directory. (The figures are not judged: the machine
# may be busy.)
. "$(dirname "$0")/lib.sh"
X="$(cd "$(dirname "$0")/../.." && pwd)/bench/iperf3-crosscheck.sh"
command -v iperf3 >/dev/null || { skip "iperf3 missing"; exit 0; }
command -v taskset >/dev/null || { skip "taskset missing"; exit 0; }
[ "$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')" -ge 2 ] || { skip "one CPU allowed"; exit 0; }
mkdir -p "$T/tmp"
SB="$SB" sh "$X" abc >/dev/null 2>"$T/bad1.err"
check "SECONDS not a number: exit 2, named" sh -c '[ $1 = 2 ] && grep -q "whole seconds.*abc" "$2"' _ $? "$T/bad1.err"
SB="$SB" ROUNDS=4 sh "$X" 1 >/dev/null 2>"$T/bad2.err"
check "ROUNDS even: exit 2, named" sh -c '[ $1 = 2 ] && grep -q "ROUNDS must be odd" "$2"' _ $? "$T/bad2.err"
SB="$SB" PLACEMENT=far sh "$X" 1 >/dev/null 2>"$T/bad3.err"
check "PLACEMENT unknown: exit 2, named" sh -c '[ $1 = 2 ] && grep -q "PLACEMENT must be spread or same" "$2"' _ $? "$T/bad3.err"

TMPDIR="$T/tmp" SB="$SB" ROUNDS=3 sh "$X" 1 "$T/out" >"$T/x.out" 2>"$T/x.err"
rc=$?
cat "$T/x.out" | sed 's/^/# /'
check "run: exit 0 or 1 (rc $rc)" sh -c '[ $1 = 0 ] || [ $1 = 1 ]' _ $rc
check "run: A B A for 1 and 4 streams, each run's Gbit/s" sh -c '[ $(grep -c "P=1 run [123]: " "$1") = 3 ] && [ $(grep -c "P=4 run [123]: " "$1") = 3 ] && grep -q "P=1 run 2: iperf3" "$1" && grep -q "P=4 run 3: scalebench" "$1"' _ "$T/x.out"
check "run: medians with spread and a ratio per stream count" sh -c '[ $(grep -Ec "^P=[14]  scalebench median [0-9.]+ Gbit/s \([0-9.]+\.\.[0-9.]+, 2 runs\)  iperf3 median [0-9.]+ \([0-9.]+\.\.[0-9.]+, 1 runs\)  ratio [0-9.]+  (PASS|FAIL)" "$1") = 2 ]' _ "$T/x.out"
check "run: the exit status agrees with the verdict" sh -c '
	last=$(tail -1 "$2")
	if [ $1 = 0 ]; then [ "$last" = PASS ] && ! grep -q "FAIL" "$2"
	else [ "$last" = FAIL ] && grep -Eq "ratio ([0-9.]+)  FAIL \(outside 0.90..1.10\)" "$2"; fi' _ $rc "$T/x.out"
check "run: every ratio marked PASS lies in 0.90..1.10, every FAIL outside" python3 -c '
import re, sys
rs = re.findall(r"ratio ([0-9.]+)  (PASS|FAIL)", open(sys.argv[1]).read())
sys.exit(0 if len(rs) == 2 and all((0.90 <= float(r) <= 1.10) == (v == "PASS") for r, v in rs) else 1)' "$T/x.out"
check "run: scalebench's results kept in OUTDIR" sh -c 'ls "$1"/scalebench-P1-0.json "$1"/iperf3-P4-1.json' _ "$T/out"
left=$(for p in $(below $$); do cat /proc/$p/comm 2>/dev/null; done | grep -cE '^(iperf3|scalebench|taskset)$')
check "run: no iperf3 or scalebench left below this test ($left)" [ "$left" = 0 ]
check "run: its temporary directory removed" empty_dir "$T/tmp"
