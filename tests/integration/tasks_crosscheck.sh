#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/tasks-crosscheck.sh and its bare loops on short runs: bare-tasks.c
# and fault-return.c build warning-free; bare-tasks' fork runs in processes
# and threads and leaves no process (each task's sleeping child, proc.fork's
# N=1, reaped); its fault (the write in a
# called function, what the cross-check judges) and fault-inline (will-it-
# scale's shape) both fault pages in processes and threads and leave their
# directories removed; create and mmap (fs.create's names beside e0, one
# page held) run and leave nothing; tasks-anatomy.c builds and times every
# shape; fault-return prints every shape; the cross-check on
# mem.fault and proc.fork (SPREAD=0 MORE=1: one more B A pair a row, and
# every row still spread, so judged on each side's best run)
# prints a judged row per bench, as and K <= CPUs
# with the per-CPU ratio (or unknown) and scalebench's clock share beside,
# the fault-inline row beside each of mem.fault and the bare fork loop
# as built beside each of proc.fork (the judged one grown to the footprint
# scalebench's forking task reports), ends with the load, exits 0 or 1
# (never 2), and removes its scratch directory. The figures are not
# judged here (a loaded machine).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ -n "${SB_VARIANT:-}" ]; then skip "tasks-crosscheck.sh (the native build runs it)"; exit 0; fi
CC=${CC:-cc}
mkdir -p "$T/d" "$T/xc"

check "bare-tasks.c builds with -Wall -Wextra -Werror" $CC -O2 -pthread -Wall -Wextra -Werror -o "$T/bare-tasks" "$ROOT/bench/bare-tasks.c"
check "fault-return.c builds with -Wall -Wextra -Werror" $CC -O2 -Wall -Wextra -Werror -o "$T/fault-return" "$ROOT/bench/fault-return.c"

# positive K "TOTAL K1 .. KK | PER-CPU": the total the sum of the tasks',
# all > 0, and the ops per CPU second > 0 (Linux) when every task ran in
# the window (on a loaded machine one may not have run at all in 0.2 s)
positive() {
	python3 -c '
import sys
v = sys.argv[2].split(); k = int(sys.argv[1])
t = [float(x) for x in v[1:k + 1]]
sys.exit(not (len(v) == k + 3 and v[-2] == "|" and float(v[0]) > 0 and abs(float(v[0]) - sum(t)) <= k
              and float(v[-1]) >= 0 and (float(v[-1]) > 0 or min(t) == 0)))' "$@"
}
for op in fault fault-inline; do
	for as in proc thread; do
		out=$("$T/bare-tasks" $op $as 2 0.2 "$T/d" 2>&1)
		check "bare-tasks $op $as 2: total and per-task ops/s, ops per CPU second ($out)" positive 2 "$out"
	done
done
for as in proc thread; do
	out=$("$T/bare-tasks" create $as 2 0.2 "$T/d" 2>&1)
	check "bare-tasks create $as 2: total and per-task ops/s ($out)" positive 2 "$out"
	out=$("$T/bare-tasks" mmap $as 1 0.2 "$T/d" 2>&1)
	check "bare-tasks mmap $as 1: total and per-task ops/s ($out)" positive 1 "$out"
done
# fork: each task holds one sleeping child beside its loop (proc.fork's
# N=1) and kills and reaps it at the end: no process of it is left
for as in proc thread; do
	out=$("$T/bare-tasks" fork $as 2 0.2 "$T/d" 2>&1)
	check "bare-tasks fork $as 2: total and per-task ops/s ($out)" positive 2 "$out"
done
# grown to a footprint asked for (as tasks-crosscheck asks for
# scalebench's): it says what it has then
out=$(BARE_FORK_MAPS=60 BARE_FORK_ANON_KIB=400 "$T/bare-tasks" fork proc 1 0.2 "$T/d" 2>&1)
check "bare-tasks fork proc, grown to 60 mappings and 400 KiB ($out)" sh -c 'echo "$1" | grep -Eq "^bare-tasks: the forking process: 60 mappings, (39[0-9]|4[0-9][0-9]) KiB anonymous resident$"' _ "$out"
check "bare-tasks fork: no process of it left (its sleeping children reaped)" sh -c '! pgrep -f "^$1 " >/dev/null' _ "$T/bare-tasks"
check "bare-tasks removed its task directories, names and e0" empty_dir "$T/d"

# tasks-anatomy: every shape timed, the bare one at 1.000, its directory removed
check "tasks-anatomy.c builds with -Wall -Wextra -Werror" $CC -O2 -Wall -Wextra -Werror -I"$ROOT/src" -I"$ROOT/src/core" -o "$T/anat" "$ROOT/bench/tasks-anatomy.c" "$ROOT/src/core/hist.c" -lm
"$T/anat" create 1 "$T/d" >"$T/anat.out" 2>&1
check "tasks-anatomy create: exit 0" test $? -eq 0
check "tasks-anatomy create: 10 shapes with a time per op" test "$(grep -cE '^  [a-z0-9+-]+ +[0-9]+ +[0-9]+  [0-9.]+$' "$T/anat.out")" = 10
check "tasks-anatomy create: bare is the reference" grep -qE '^  bare +[0-9]+ +[0-9]+  1.000$' "$T/anat.out"
"$T/anat" mmap 1 "$T/d" >"$T/anat.out" 2>&1
check "tasks-anatomy mmap: 4 shapes with a time per op" test "$(grep -cE '^  [a-z0-9+-]+ +[0-9]+ +[0-9]+  [0-9.]+$' "$T/anat.out")" = 4
"$T/anat" bogus >/dev/null 2>&1
check "tasks-anatomy: a bad operation is exit 2" test $? -eq 2
check "tasks-anatomy removed its directories" empty_dir "$T/d"

"$T/fault-return" 1 >"$T/fr.out" 2>&1
check "fault-return: exit 0" test $? -eq 0
for shape in "inline  " "called  " "inline\\+call" "called, 2 deep"; do
	check "fault-return: a time per fault for '$shape'" grep -qE "^$shape +[0-9]+ ns per fault" "$T/fr.out"
done
if [ "$(uname -m)" = x86_64 ]; then
	check "fault-return: the system call inline and called" test "$(grep -cE '^getppid (inline|called) +[0-9]+ ns per syscall' "$T/fr.out")" = 2
fi
"$T/fault-return" 0 >/dev/null 2>&1
check "fault-return: bad ROUNDS is exit 2" test $? -eq 2

# SPREAD=0 MORE=1: every row gets one more B A pair (the path a noisy row takes)
SPREAD=0 MORE=1 SB="$SB" sh "$ROOT/bench/tasks-crosscheck.sh" 0.1 "$T/xc" "mem.fault proc.fork" >"$T/xc.out" 2>"$T/xc.err"
rc=$?
check "tasks-crosscheck: exit 0 (PASS) or 1 (FAIL), not 2" test $rc -eq 0 -o $rc -eq 1
ncpu=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
nk=0; k=1; while [ $k -le "$ncpu" ]; do nk=$((nk + 1)); k=$((k * 2)); done
# per CPU is "unknown" when a side's CPU time could not be read, or a
# task had none in a 0.1 s window (a busier task on its CPU, as when the
# suite runs beside it); the spread is "inf" when a run counted no op in
# its 0.1 s window (starved by the suite beside it: seen once in 8 runs)
row='^(PASS|FAIL) (mem.fault|proc.fork) +(proc|thread) +K=[0-9]+ +scalebench [0-9]+ [0-9]+ [0-9]+ [0-9]+ +bare [0-9]+ [0-9]+ [0-9]+ +median [0-9]+ / [0-9]+ +ratio [0-9.]+ +\(per CPU ([0-9.]+|unknown); clock [0-9.]+%; spread ([0-9]+|inf)%\)  best [0-9]+ / [0-9]+  ratio [0-9.]+, judged: the runs stayed spread$'
check "tasks-crosscheck: a judged row per bench, as and K <= $ncpu CPUs ($((4 * nk))), each with the pair more SPREAD=0 asks for, its spread, and judged on its best runs (still spread)" test "$(grep -cE "$row" "$T/xc.out")" = $((4 * nk))
# a row that is not one, for the log
grep -E '^(PASS|FAIL)' "$T/xc.out" | grep -vE "$row" | sed 's/^/  not a row: /' >&2
check "tasks-crosscheck: the fault-inline row beside each, not judged" test "$(grep -cE '^info mem.fault +(proc|thread) +K=[0-9]+ +bare fault-inline \(no return after the fault\) [0-9]+ [0-9]+ [0-9]+ +median [0-9]+ +scalebench/inline [0-9.]+, per CPU ([0-9.]+|unknown) +\(not judged\)$' "$T/xc.out")" = $((2 * nk))
check "tasks-crosscheck: the bare fork loop as built beside each proc.fork row, not judged" test "$(grep -cE '^info proc.fork +(proc|thread) +K=[0-9]+ +bare loop as built, not grown to scalebench.s footprint [0-9]+ [0-9]+ [0-9]+ +median [0-9]+ +scalebench/asbuilt [0-9.]+, per CPU ([0-9.]+|unknown) +\(not judged\)$' "$T/xc.out")" = $((2 * nk))
check "tasks-crosscheck: the exit code says whether a row failed" sh -c 'if [ $(grep -c "^FAIL" "$1") -eq 0 ]; then [ $2 = 0 ]; else [ $2 = 1 ]; fi' _ "$T/xc.out" $rc
check "tasks-crosscheck: the load is reported" out_has "$T/xc.out" "^load after: "
check "tasks-crosscheck: its scratch directory removed" empty_dir "$T/xc"
