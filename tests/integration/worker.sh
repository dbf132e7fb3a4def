# SPDX-License-Identifier: MIT
# Every bench sweeps in a fresh worker process: a bench does not measure
# what earlier benches left in the process, a worker that dies is recorded
# as a failure and the run goes on, and nothing is left behind.
. "$(dirname "$0")/lib.sh"
# a tmpfs (lib.sh): the sweeps to 2,000 files need no disk file system, and
# on this VM's /tmp they took 3 s a bench instead of 0.2 s after the other
# tests' deletions
tmpfs_dir "$T/target"
fork_note="[n for n in $(B proc.fork)['notes'] if n.startswith('the forking process')][0]"
maps() { jget "$1" "int($fork_note.split()[3])"; }
kib() { jget "$1" "int($fork_note.split()[5])"; }

"$SB" run proc.fork --dir "$T/target" --max-n 2 --budget 0.01 -q --no-db -o "$T/alone.json" >/dev/null 2>&1
# The forking process's size after the fs benches is the native binary's
# behaviour (a sanitizer's allocator maps as it goes; the POSIX build cannot
# read it): the sanitizer and POSIX passes (SB_VARIANT) run the same
# isolated and in-process paths at N=50, and leave the size comparison out.
# (-p redirty=0: fs.fsync's N=2000 is 2,000 MiB of other files' data, written
# once for the point rather than again before every sample: 2.4 s instead
# of 6.6-11 s on this VM's /tmp, and gigabytes less writeback for the tests
# beside it; the process the fs benches leave is the same)
n=2000; [ -n "${SB_VARIANT:-}" ] && n=50
"$SB" run fs proc.fork --dir "$T/target" --max-n $n --min-n $n --budget 0.01 -p redirty=0 -q --no-db -o "$T/after.json" >/dev/null 2>&1
"$SB" run fs proc.fork --dir "$T/target" --max-n $n --min-n $n --budget 0.01 -p redirty=0 -q --no-db --in-process -o "$T/inproc.json" >/dev/null 2>&1
check "options.isolation is worker by default" jtrue "$T/alone.json" "d['options']['isolation'] == 'worker'"
check "options.isolation is in-process with --in-process" jtrue "$T/inproc.json" "d['options']['isolation'] == 'in-process'"
if [ -n "${SB_VARIANT:-}" ]; then
	skip "the forking process's size after the fs benches: checked in the native build"
elif jtrue "$T/alone.json" "any(n.startswith('the forking process') for n in $(B proc.fork)['notes'])"; then
	a=$(maps "$T/alone.json"); b=$(maps "$T/after.json"); c=$(maps "$T/inproc.json")
	ka=$(kib "$T/alone.json"); kb=$(kib "$T/after.json"); kc=$(kib "$T/inproc.json")
	echo "# forking process: alone $a maps $ka KiB; after fs.* $b maps $kb KiB; in-process after fs.* $c maps $kc KiB"
	# (+/- 2 mappings)
	check "proc.fork after the fs benches forks a process of the same mappings as alone" test $((b - a)) -le 2 -a $((a - b)) -le 2
	check "... and of the same private memory (+/- 16 KiB)" test $((kb - ka)) -le 16 -a $((ka - kb)) -le 16
	check "in-process, the fs benches leave the forking process bigger (what workers avoid)" test "$kc" -gt $((ka + 16))
else
	skip "the forking process's size: this build cannot tell it"
fi
check "every bench of the isolated run is ok" jtrue "$T/after.json" "every(b['status'] in ('ok', 'skipped') for b in d['benches'])"
check "scratch directory removed" empty_dir "$T/target"

# a worker killed mid-sweep (as the OOM killer would): recorded, the run goes on
# (--ci 0.1: every point spends its 2 s budget, so the sweep cannot end first)
"$SB" run proc.fork fs.stat --dir "$T/target" --max-n 20 --budget 2 --ci 0.1 -q --no-db -o "$T/k.json" >"$T/out" 2>"$T/err" &
pid=$!
i=0; while [ $i -lt 200 ] && [ "$(descendants $pid)" -lt 6 ]; do sleep 0.1; i=$((i+1)); done
w=$(pgrep -P $pid -f "__worker .* proc.fork $T/target")
check "a worker runs proc.fork, under scalebench" test -n "$w" -a "$(ps -o ppid= -p "${w:-1}" | tr -d ' ')" = "$pid"
kill -KILL $w
wait $pid; rc=$?
check "a killed worker makes exit code 1" test $rc -eq 1
check "its bench is failed" jtrue "$T/k.json" "$(B proc.fork)['status'] == 'failed'"
check "failure: phase worker, kind crash, signal 9, at the load reached" jtrue "$T/k.json" \
	"(lambda f: f['phase'] == 'worker' and f['kind'] == 'crash' and 'signal 9' in f['message'] and f['n'] >= 5 and f['state'] is not None)($(B proc.fork)['repetitions'][-1]['failure'])"
check "the run went on with the next bench" jtrue "$T/k.json" "$(B fs.stat)['status'] == 'ok' and len($(B fs.stat)['repetitions'][0]['points']) == 5"
check "stderr names the dead worker" out_has "$T/err" "proc.fork: the worker process was killed by signal 9"
check "the summary shows the failure" out_has "$T/out" "crash at N="
check "scratch directory removed after a killed worker" empty_dir "$T/target"
sleep 0.2
check "the dead worker's sleeping children died with it" no_procs "$T/target"

"$SB" __worker >/dev/null 2>"$T/err"
check "__worker by hand: exit 2, says it is internal" test $? -eq 2 -a -n "$(grep internal "$T/err")"
"$SB" __worker 0 999 >/dev/null 2>"$T/err"
check "__worker with a descriptor that is not open: exit 2" test $? -eq 2

# --repeat: every repetition kept, each swept by a worker of its own
"$SB" run proc.fork fs.stat --repeat 3 --dir "$T/target" --max-n 5 --budget 0.01 -q --no-db -o "$T/r3.json" >/dev/null 2>&1
check "--repeat 3: three repetitions of three points each, pooled verdict over nine" jtrue "$T/r3.json" \
	"every(b['status'] == 'ok' and [len(r['points']) for r in b['repetitions']] == [3, 3, 3] and b['verdict']['points'] == 9 for b in d['benches'])"
check "--repeat 3: every repetition has its verdict" jtrue "$T/r3.json" \
	"every(r['verdict']['class'] for b in d['benches'] for r in b['repetitions'])"
check "--repeat 3: interleaved (every bench's repetition k before any bench's k + 1), each with its start" jtrue "$T/r3.json" \
	"len(d['benches']) == 2 and every(len(b['repetitions']) == 3 and every(0 <= r['started_s'] <= d['duration_s'] for r in b['repetitions']) for b in d['benches']) and every(d['benches'][0]['repetitions'][k]['started_s'] < d['benches'][1]['repetitions'][k]['started_s'] < d['benches'][0]['repetitions'][k + 1]['started_s'] for k in range(2))"

# scalebench killed outright: its worker does not go on sweeping (Linux: it
# dies with it; elsewhere it stops at its next point)
"$SB" run fs.create --dir "$T/target" --max-n 100000 --budget 0.05 -q --no-db -o "$T/kk.json" >/dev/null 2>&1 &
pid=$!
i=0; while [ $i -lt 100 ] && [ -z "$(pgrep -P $pid -f __worker)" ]; do sleep 0.1; i=$((i+1)); done
sleep 0.5
kill -KILL $pid
wait $pid 2>/dev/null
i=0; while [ $i -lt 100 ] && ! no_procs "__worker .* $T/target"; do sleep 0.1; i=$((i+1)); done
check "scalebench killed: no worker left within 10 s" no_procs "__worker .* $T/target"
rm -rf "$T/target"/scalebench.* # what a killed scalebench could not remove
