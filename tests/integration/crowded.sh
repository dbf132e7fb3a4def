#!/bin/sh
# SPDX-License-Identifier: MIT
# Crowded points (docs/method.md, "Crowded points"): the scheduler's
# account of a point's own tasks sees another process share their CPU,
# which the machine-speed probe does not. A real busy process started by
# this test on the CPU the run is pinned to (--cpus) crowds every point of
# mem.mmap: each point records the account (tasks_run, tasks_wait,
# cpu_lost), the first measurements lose 0.2 of a CPU or more, the bench
# counts them (machine), the summary says "crowded", and the points are
# measured again. That a point alone on its CPU is not crowded is not
# asserted here: other tests run beside this one (test_probe's crowded
# sweep has the busy process over one point only). The busy process is
# removed at exit.
# tier: fast
. "$(dirname "$0")/lib.sh"
if [ "${SB_VARIANT:-native}" = posix ]; then
	"$SB" run mem.mmap --max-n 20 --budget 0.02 -q --no-db -o "$T/p.json" >/dev/null 2>&1
	check "POSIX build: no scheduler account, no crowding recorded" jtrue "$T/p.json" \
		"'crowded_points_first' not in d['benches'][0]['machine'] and all('cpu_lost' not in p['probe'] for r in d['benches'][0]['repetitions'] for p in r['points'])"
	exit 0
fi
cpu=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
taskset -c "$cpu" sh -c 'while :; do :; done' &
hog=$!
at_exit "kill $hog 2>/dev/null; wait $hog 2>/dev/null"
"$SB" run mem.mmap --cpus "$cpu" --max-n 1000 --budget 0.05 --no-db -o "$T/c.json" >"$T/c.out" 2>&1
check "crowded run: exit 0" test $? = 0
PTS="[p for r in d['benches'][0]['repetitions'] for p in r['points']]"
check "every point records its tasks' account" jtrue "$T/c.json" \
	"len($PTS) >= 3 and every(p['probe']['tasks_run'] > 0 and 0 <= p['probe']['cpu_lost'] <= p['probe']['tasks_wait'] + 1e-9 for p in $PTS)"
check "a busy process on its CPU: the first measurements crowded, counted" jtrue "$T/c.json" \
	"d['benches'][0]['machine']['crowded_points_first'] >= 1 and d['benches'][0]['machine']['max_cpu_lost'] >= 0.2"
check "crowded points measured again, the first measurement's loss kept" jtrue "$T/c.json" \
	"any(p['probe'].get('remeasured', 0) >= 1 and p['probe']['cpu_lost_first'] >= 0.2 for p in $PTS)"
check "the summary says crowded" grep -q "^  crowded  other processes took up to" "$T/c.out"
kill $hog 2>/dev/null; wait $hog 2>/dev/null
check "the busy process is gone" sh -c "! kill -0 $hog 2>/dev/null"
