#!/bin/sh
# SPDX-License-Identifier: MIT
# run --tasks: K processes or threads doing a per-op bench at once, on a
# tmpfs and a loop-mounted ext4 made by this test. Checks the structure of
# the sweep (points K = 1, 2; per-task figures; fairness within Jain's
# bounds; the idle share a fraction; placement and oversubscription
# recorded), that as=proc and as=thread both run and differ where they
# must (task processes below the worker, or none), that shared=1 puts every
# task's names in one directory without collisions, bad input (exit 2),
# and that nothing is left behind. No timing is asserted: the machine may
# be loaded.
# tier: fast (tests/run.sh --fast, make test)
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/tmpfs" "$T/ext4"
if is_root; then
	mount -t tmpfs -o size=256m sbtest-tasks-$$ "$T/tmpfs" && at_exit "umount '$T/tmpfs'"
	if truncate -s 128M "$T/ext4.img" && mkfs.ext4 -q -F "$T/ext4.img" 2>/dev/null &&
		loop=$(losetup -f --show "$T/ext4.img" 2>/dev/null); then
		at_exit "losetup -d $loop"
		mount "$loop" "$T/ext4" && at_exit "umount '$T/ext4'" || loop=""
	fi
fi
ncpu=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')

# tasks_ok FILE BENCH AS K: the sweep's structure for one bench
tasks_ok() {
	jtrue "$1" "(lambda b: (lambda pts: (lambda t: (
b['status'] == 'ok' and b['axis_kind'] == 'concurrency' and b['axis_tasks'] and b['cpus_online'] >= 1
and b['params']['as'] == '$3' and [p['n'] for p in pts] == $4
and every(x['k'] == p['n'] and len(x['per_task']) == p['n'] and x['as'] == '$3' for x, p in zip(t, pts))
and every(p['ops'] == sum(y['ops'] for y in x['per_task']) for x, p in zip(t, pts))
and every(abs(x['ops_per_s'] - sum(y['ops_per_s'] for y in x['per_task'])) <= 1e-6 * max(1, x['ops_per_s']) for x in t)
and every(x['fairness'] is None or 1.0 / x['k'] - 1e-9 <= x['fairness'] <= 1 + 1e-9 for x in t)
and every(x['idle_share'] is None or 0 <= x['idle_share'] <= 1 for x in t)
and every(x['oversubscribed'] == (x['k'] > x['cpus_allowed']) and x['pinned'] == (not x['oversubscribed']) for x in t)
and every(len(set(y['cpu'] for y in x['per_task'])) == x['k'] for x in t if x['pinned'])
and every(x['window_s'] > 0 and len(p['over_time']['ops']) == 20 for x, p in zip(t, pts))
and every(sum(c for _, c in p['histogram']['bins']) == p['samples'] and 0 < p['samples'] <= p['ops'] for p in pts)
and every(abs(x['timed_share'] - p['samples'] / p['ops']) < 1e-9 and x['timed_share'] >= 1 / 16 - 1e-9 for x, p in zip(t, pts))
))([p['extra']['tasks'] for p in pts]))(b['repetitions'][0]['points']))($(B "$2"))"
}

# 1. threads and processes on the tmpfs
"$SB" run fs.create mem.fault net.socket --tasks 2 -b 0.05 -p as=thread --dir "$T/tmpfs" -q --no-db -o "$T/thread.json" >"$T/thread.out" 2>"$T/thread.err"
check "as=thread: exit 0" sh -c '[ $1 = 0 ]' _ $?
for b in fs.create mem.fault net.socket; do
	check "as=thread: $b swept K = 1, 2 with per-task figures, fairness, idle share, placement" tasks_ok "$T/thread.json" $b thread "[1, 2]"
done
check "the note says how the tasks ran" jtrue "$T/thread.json" "'2 threads, each in a directory of its own' in ' '.join($(B fs.create)['notes'])"
check "the option is in the result's options" jtrue "$T/thread.json" "d['options']['tasks'] == 2"
check "as=thread: the threads share one malloc arena, and the note says so" jtrue "$T/thread.json" "'share one malloc arena (M_ARENA_MAX=1)' in ' '.join($(B fs.create)['notes'])"

# as=proc: the K task processes exist below the run while it measures
"$SB" run mem.fault fs.stat --tasks 2 -b 0.5 --ci 0.1 -p as=proc --dir "$T/tmpfs" -q --no-db -o "$T/proc.json" >/dev/null 2>&1 &
pid=$!
most=0; i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 100 ]; do
	n=$(descendants $pid); [ "$n" -gt "$most" ] && most=$n
	sleep 0.05; i=$((i+1))
done
wait $pid
check "as=proc: exit 0" sh -c '[ $1 = 0 ]' _ $?
check "as=proc: task processes below the worker (most seen: $most, >= 3: the worker and 2 tasks)" sh -c '[ $1 -ge 3 ]' _ "$most"
for b in mem.fault fs.stat; do
	check "as=proc: $b swept K = 1, 2 with per-task figures" tasks_ok "$T/proc.json" $b proc "[1, 2]"
done
# fs.stat's op (~2 us on tmpfs) is short: a task times one in several
# (task_loop: 10 us over the timed ops' mean, rounded down), all counted;
# the latency histogram is that sample. On a busy machine an op's time
# grows with what preempts it: every op timed is right only if their mean
# was over 5 us (4 us here: the mean at the last of the updates, every 32
# timed ops, is not quite the whole window's)
check "as=proc: fs.stat's short ops timed one in several, all counted" jtrue "$T/proc.json" \
	"every((p['extra']['tasks']['timed_share'] < 1 or p['stats']['mean_ns'] > 4000) and p['samples'] <= p['ops'] and p['stats']['p50_ns'] > 0 for p in $(B fs.stat)['repetitions'][0]['points'])"
check "the default is as=proc, shared=0" jtrue "$T/proc.json" "$(B fs.stat)['params'] == {'as': 'proc', 'shared': '0'}"
check "as=proc: no malloc arena note (processes have one each)" jtrue "$T/proc.json" "'malloc arena' not in ' '.join($(B fs.stat)['notes'])"
# each task process is scalebench started afresh (exec), not a copy of the worker
# (the POSIX build has no memfd to pass its memory by: copies, and says so)
if [ "${SB_VARIANT:-}" = posix ]; then fresh="is a copy of the process running the sweep"; else fresh="is scalebench started afresh (exec)"; fi
check "as=proc: the note says how the task processes started ($fresh)" jtrue "$T/proc.json" "'each task process $fresh' in ' '.join($(B fs.stat)['notes'])"
check "as=thread: no note on task processes" jtrue "$T/thread.json" "'each task process' not in ' '.join($(B fs.create)['notes'])"
"$SB" __task >"$T/task.out" 2>&1
check "__task with no arguments: exit 2 and says it is internal" sh -c '[ $1 = 2 ] && grep -q "internal; started by run --tasks" "$2"' _ $? "$T/task.out"

# 2. shared=1: every task's names in one directory (ext4 where it was made)
dir="$T/tmpfs"; [ -n "${loop:-}" ] && dir="$T/ext4"
"$SB" run fs.create fs.rename fs.unlink --tasks 2 -b 0.05 -p as=thread -p shared=1 --dir "$dir" -q --no-db -o "$T/shared.json" >/dev/null 2>"$T/shared.err"
check "shared=1 on $(basename "$dir"): exit 0, no failure (no two tasks made one name)" sh -c '[ $1 = 0 ]' _ $?
for b in fs.create fs.rename fs.unlink; do
	check "shared=1: $b" jtrue "$T/shared.json" "$(B $b)['status'] == 'ok' and $(B $b)['params']['shared'] == '1' and every(p['extra']['tasks']['shared'] for p in $(B $b)['repetitions'][0]['points']) and [p['n'] for p in $(B $b)['repetitions'][0]['points']] == [1, 2]"
done
check "shared=1: the note says one directory" jtrue "$T/shared.json" "'all in one shared directory' in ' '.join($(B fs.create)['notes'])"

# 3. more tasks than CPUs: the last point oversubscribed, its tasks unpinned
k=$((ncpu + 1))
"$SB" run mem.mmap --tasks $k -b 0.02 -p as=thread --dir "$T/tmpfs" -q --no-db -o "$T/over.json" >/dev/null 2>&1
check "--tasks $k on $ncpu CPUs: the last point is oversubscribed and unpinned, the first is not" jtrue "$T/over.json" "(lambda t:
t[-1]['k'] == $k and t[-1]['oversubscribed'] and every(y['cpu'] is None for y in t[-1]['per_task'])
and not t[0]['oversubscribed'] and t[0]['pinned'])([p['extra']['tasks'] for p in $(B mem.mmap)['repetitions'][0]['points']])"

# 4. bad input: exit 2, named, nothing made
bad() { # bad NAME REGEX ARGS...
	name=$1 re=$2; shift 2
	"$SB" run "$@" -b 0.01 --dir "$T/tmpfs" -q --no-db -o "$T/bad.json" >/dev/null 2>"$T/bad.err"
	check "$name: exit 2, named" sh -c '[ $1 = 2 ] && grep -q -- "$2" "$3" && [ ! -e "$4" ]' _ $? "$re" "$T/bad.err" "$T/bad.json"
}
bad "--tasks 0" "--tasks: '0'" mem.mmap --tasks 0
bad "--tasks two" "--tasks: 'two'" mem.mmap --tasks two
bad "--tasks on a bench without a per-op loop" "fs.readdir is not a per-op bench" fs.readdir --tasks 2
bad "-p as= without --tasks" "give --tasks" mem.mmap -p as=thread
bad "-p as=bogus" "as=bogus" mem.mmap --tasks 2 -p as=bogus
bad "-p shared=1 on a bench with nothing to share" "shared" mem.fault --tasks 2 -p shared=1

check "nothing left in the tmpfs" empty_dir "$T/tmpfs"
check "nothing left in the ext4" empty_dir "$T/ext4"
left=$(for p in $(below $$); do cat /proc/$p/comm 2>/dev/null; done | grep -c scalebench)
check "no scalebench process left below this test ($left)" [ "$left" = 0 ]
