#!/bin/sh
# SPDX-License-Identifier: MIT
# Crowded points (docs/method.md, "Crowded points"): the scheduler's
# account of a point's own tasks sees another process share their CPU,
# which the machine-speed probe does not. A real busy process started by
# this test on the CPU the run is pinned to (--cpus) takes the CPU from
# every point: each point records the account (tasks_run, tasks_wait,
# cpu_lost) and the first measurements lose 0.2 of a CPU or more. For
# mem.mmap, whose operation (a few microseconds) runs in the harness's
# thread alone, the thread is switched out inside few of its samples: the
# loss fell between them, the points say so (lost_between_samples), are
# kept as measured, and the summary says "between the samples alone". For
# net.request, whose client and server share that CPU and wake each other
# in every sample, the points are crowded, the bench counts them
# (machine), the summary says "crowded", and they are measured again. That
# a point alone on its CPU is not crowded is not asserted here: other
# tests run beside this one (test_probe's crowded sweep has the busy
# process over one point only). The busy process is removed at exit.
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
check "a busy process on its CPU, mem.mmap: exit 0" test $? = 0
PTS="[p for r in d['benches'][0]['repetitions'] for p in r['points']]"
check "every point records its tasks' account" jtrue "$T/c.json" \
	"len($PTS) >= 3 and every(p['probe']['tasks_run'] > 0 and 0 <= p['probe']['cpu_lost'] <= p['probe']['tasks_wait'] + 1e-9 for p in $PTS)"
check "mem.mmap's first measurements lost 0.2 of a CPU or more, counted" jtrue "$T/c.json" \
	"d['benches'][0]['machine']['crowded_points_first'] >= 1 and d['benches'][0]['machine']['max_cpu_lost'] >= 0.2"
# the bound: 1 - 0.5 / (0.5 + 0.98 / sqrt(samples)) of the samples
FEW="(p['per_op']['voluntary_csw'] + p['per_op']['involuntary_csw']) * p['ops'] <= (1 - 0.5 / (0.5 + 0.98 / p['samples'] ** 0.5)) * p['samples'] + 1e-6"
check "mem.mmap: lost between its samples, said per point, and only where the thread was switched out inside few samples" jtrue "$T/c.json" \
	"any(p['probe'].get('lost_between_samples') for p in $PTS) and every($FEW and p['probe']['cpu_lost'] >= 0.2 and p['per_op']['scope'] == 'timed' for p in $PTS if p['probe'].get('lost_between_samples'))"
check "mem.mmap: such points counted apart, not as crowded" jtrue "$T/c.json" \
	"d['benches'][0]['machine']['crowded_between_points'] == sum(1 for p in $PTS if p['probe'].get('lost_between_samples')) and d['benches'][0]['machine']['crowded_points'] == sum(1 for p in $PTS if p['probe']['cpu_lost'] >= 0.2 and not p['probe'].get('lost_between_samples'))"
check "the summary says between the samples alone" grep -q "^  crowded  other processes took up to .* between the samples alone (kept)" "$T/c.out"
"$SB" run net.request -p mech=epoll --cpus "$cpu" --max-n 100 --budget 0.05 --no-db -o "$T/n.json" >"$T/n.out" 2>&1
check "a busy process on its CPU, net.request: exit 0" test $? = 0
check "net.request's points crowded, counted, none between the samples" jtrue "$T/n.json" \
	"d['benches'][0]['machine']['crowded_points_first'] >= 1 and d['benches'][0]['machine']['crowded_between_points'] == 0"
check "crowded points measured again, the first measurement's loss kept" jtrue "$T/n.json" \
	"any(p['probe'].get('remeasured', 0) >= 1 and p['probe']['cpu_lost_first'] >= 0.2 for p in $PTS)"
check "the summary says crowded" grep -q "^  crowded  other processes took up to .* measured again" "$T/n.out"
kill $hog 2>/dev/null; wait $hog 2>/dev/null
check "the busy process is gone" sh -c "! kill -0 $hog 2>/dev/null"
