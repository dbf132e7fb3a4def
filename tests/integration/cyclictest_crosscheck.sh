#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/cyclictest-crosscheck.sh: bad usage is exit 2 with the problem
# named; a short real run (PLACE=both, PHASE=paired: 2 rounds of 1 s, idle
# and beside two CPU hogs) puts scalebench's wake-ups at phase 0 in round 1
# and half an interval in round 2 (cyclictest the other way), both tools
# measure a whole second each (their wake-up counts agree), the summary has a
# line per series whose PASS/FAIL agrees with its ratios and the exit
# status, and nothing is left below it (no hogs, no tool). The figures are
# not judged: the machine may be busy.
. "$(dirname "$0")/lib.sh"
X="$(cd "$(dirname "$0")/../.." && pwd)/bench/cyclictest-crosscheck.sh"
if ! is_root; then skip "cyclictest cross-check (needs root: SCHED_FIFO)"; exit 0; fi
for t in cyclictest stress-ng; do command -v $t >/dev/null || { skip "$t missing"; exit 0; }; done
[ "$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')" -ge 2 ] || { skip "one CPU allowed"; exit 0; }

bad() { # WANT ENV... -- ARGS...: exit 2, the message
	want=$1; shift
	env SB="$SB" "$@" >/dev/null 2>"$T/bad.err"
	check "bad usage ($*): exit 2, named" sh -c '[ $1 = 2 ] && grep -q "$2" "$3"' _ $? "$want" "$T/bad.err"
}
bad "SECONDS must be a whole number" sh "$X" 1.5
bad "PHASE must be paired or free" PHASE=late sh "$X" 1
bad "PHASE=paired needs an INTERVAL_US that divides a second" INTERVAL_US=700 sh "$X" 1
bad "PHASE=paired needs PLACE=both or side" PLACE=alternate PHASE=paired sh "$X" 1

SB="$SB" ROUNDS=2 sh "$X" 1 1 "$T/out" >"$T/x.out" 2>"$T/x.err"
rc=$?
sed 's/^/# /' "$T/x.out"
check "run: exit 0 or 1 (rc $rc)" sh -c '[ $1 = 0 ] || [ $1 = 1 ]' _ $rc
ph() { echo "[c['phase_us'] for c in d['benches'][0]['repetitions'][0]['points'][0]['extra']['rt']['per_cpu']]"; }
for s in idle stress-ng-cpu2; do
	check "$s: round 1 scalebench at phase 0 on both CPUs" jtrue "$T/out/$s-A1.json" "$(ph) == [0, 0]"
	check "$s: round 2 at half the interval" jtrue "$T/out/$s-A2.json" "$(ph) == [500, 500]"
	check "$s: the phases printed, cyclictest's opposite" sh -c \
		'grep -q "R1 .*phase 0 us" "$1" && grep -q "cyclictest .*phase 500 us" "$1" && grep -q "R2 .*phase 500 us" "$1"' _ "$T/x.out"
	check "$s: both tools measured the whole second (wake-ups within 1%)" python3 -c '
import json, sys
for i in (1, 2):
    a = json.load(open("%s-A%d.json" % (sys.argv[1], i)))["benches"][0]["repetitions"][0]["points"][0]["stats"]["count"]
    b = sum(sum(t["histogram"].values()) for t in json.load(open("%s-B%d.json" % (sys.argv[1], i)))["thread"].values())
    if not (1900 <= a <= 2002 and abs(a - b) <= 0.01 * b):
        sys.exit("round %d: %d against %d" % (i, a, b))' "$T/out/$s"
done
check "run: a summary line per series, PASS/FAIL as its ratios say" python3 -c '
import re, sys
ls = [l for l in open(sys.argv[1]) if "pooled p50" in l]
ok = len(ls) == 4  # printed as measured, then again under "== summary"
for l in ls:
    r = [float(x) for x in re.findall(r"ratio ([0-9.]+)", l)]
    ok &= len(r) == 2 and (all(0.90 <= x <= 1.10 for x in r) == l.rstrip().endswith("PASS"))
sys.exit(0 if ok else 1)' "$T/x.out"
check "run: the exit status agrees with the summary" sh -c 'if [ $1 = 0 ]; then ! grep -q FAIL "$2"; else [ $1 = 1 ] && grep -q FAIL "$2"; fi' _ $rc "$T/x.out"
left=$(for p in $(below $$); do cat /proc/$p/comm 2>/dev/null; done | grep -cE '^(cyclictest|scalebench|stress-ng.*)$')
check "run: no hog or tool left below this test ($left)" [ "$left" = 0 ]
