#!/bin/sh
# SPDX-License-Identifier: MIT
# rt.wakeup for real, briefly: the result's fields per load level and per
# CPU, the SCHED_OTHER fallback without privilege, --max-latency giving
# exit 3 with first-failure data, bad input giving exit 2 with nothing
# made, and Ctrl-C leaving no process, mount or file behind. Latencies
# are not judged (the machine is shared): only that they were measured.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/target"
ncpu=$(getconf _NPROCESSORS_ONLN)

nothing_left() {
	sleep 0.3
	check "$1: no process of the run left" no_procs "$T/target"
	check "$1: no mount left" sh -c "! grep -q ' $T' /proc/mounts"
	check "$1: scratch directory removed" empty_dir "$T/target"
}

# 1. three levels: none, cpu hogs, metadata storm
"$SB" run rt.wakeup --dir "$T/target" --max-n 3 -p duration=0.3 -p interval_us=1000 --no-db -q \
	-o "$T/r.json" >"$T/out" 2>"$T/err"
rc=$?
check "run: exit 0" test $rc -eq 0
R="$(B rt.wakeup)"
P="$R['repetitions'][0]['points']"
check "run: bench ok with 3 points" jtrue "$T/r.json" "$R['status'] == 'ok' and len($P) == 3"
check "run: one point per load level, in order" jtrue "$T/r.json" "[p['extra']['rt']['load'] for p in $P] == ['none', 'cpu', 'fs']"
check "run: wake-ups measured at every level" jtrue "$T/r.json" "all(p['stats']['count'] >= 50 for p in $P) and len($P) == 3"
check "run: min <= p50 <= p99 <= p99.9 <= p99.99 <= max" jtrue "$T/r.json" "len($P) == 3 and all(s['min_ns'] <= s['p50_ns'] <= s['p99_ns'] <= s['p999_ns'] <= s['p9999_ns'] <= s['max_ns'] for s in [p['stats'] for p in $P])"
check "run: a histogram per CPU, one per online CPU ($ncpu)" jtrue "$T/r.json" "len($P) == 3 and all(len(p['extra']['rt']['per_cpu']) == $ncpu and all(len(c['bins']) > 0 and c['samples'] > 0 for c in p['extra']['rt']['per_cpu']) for p in $P)"
check "run: per-CPU samples add up to the merged count" jtrue "$T/r.json" "len($P) == 3 and all(sum(c['samples'] for c in p['extra']['rt']['per_cpu']) == p['stats']['count'] for p in $P)"
check "run: the max with its CPU, time and cycle" jtrue "$T/r.json" "len($P) == 3 and all(abs(p['extra']['rt']['max']['ns'] - p['stats']['max_ns']) < 1 and p['extra']['rt']['max']['cpu'] in range($ncpu) and p['extra']['rt']['max']['at_s'] >= 0 and p['extra']['rt']['max']['utc'].endswith('Z') for p in $P)"
check "run: the load's own throughput beside the latency" jtrue "$T/r.json" "$P[1]['extra']['rt']['load_throughput']['cpu']['per_s'] > 0 and $P[2]['extra']['rt']['load_throughput']['fs']['per_s'] > 0 and $P[0]['extra']['rt']['load_throughput'] == {}"
check "run: load placement recorded" jtrue "$T/r.json" "all(p['extra']['rt']['load_cpus'] == 'any' for p in $P) and $P[1]['extra']['rt']['load_processes'] == $ncpu"
check "run: snapshot states the real-time facts" jtrue "$T/r.json" "all(k in d['snapshot']['rt'] for k in ('realtime', 'isolated_cpus', 'nohz_full_cpus', 'cpu_dma_latency', 'tracing')) and 'preempt' in d['snapshot']['kernel']"
# the levels are kinds, not a quantity: no growth verdict, the tail per kind
# and the worst kind are the headline, and it is never counted unclear
check "run: a category axis, its kinds named" jtrue "$T/r.json" "$R['axis_kind'] == 'category' and $R['categories'] == ['none', 'cpu', 'fs', 'io', 'net', 'fork', 'pagecache', 'all']"
check "run: no growth verdict, for the bench or a repetition" jtrue "$T/r.json" "$R['verdict']['class'] == 'none' and 'category axis' in $R['verdict']['reason'] and $R['verdict']['exponent'] is None and every(r['verdict']['class'] == 'none' for r in $R['repetitions'])"
check "run: the p99 per kind in the result, the worst named" jtrue "$T/r.json" "[(c['name'], c['p99_ns']) for c in $R['category_tail']['categories']] == [(p['extra']['rt']['load'], p['stats']['p99_ns']) for p in $P] and $R['category_tail']['worst_n'] == max($P, key=lambda p: p['stats']['p99_ns'])['n'] and abs($R['category_tail']['worst_ratio'] - max(p['stats']['p99_ns'] for p in $P) / $P[0]['stats']['p99_ns']) < 1e-9"
W=$(jget "$T/r.json" "max($P, key=lambda p: p['stats']['p99_ns'])['extra']['rt']['load']" 2>/dev/null)
X=" ([0-9.e+]*x none)" # the worst against none; nothing when none is the worst
[ "$W" = none ] && X=""
check "summary: the p99 per kind and the worst kind ($W) on the bench's line" out_has "$T/out" "^rt\.wakeup .* p99 none [0-9.e+]* [mun]*s, cpu [0-9.e+]* [mun]*s, fs [0-9.e+]* [mun]*s; worst $W$X\$"
check "summary: the worst kind among the findings" out_has "$T/out" "^  tail     rt\.wakeup: worst $W, p99 [0-9.e+]* [mun]*s$X\$"
check "summary: not counted unclear, no growth reason" sh -c "! grep -q 'unclear\|^why  rt.wakeup\|n^' '$T/out'"
"$SB" show "$T/r.json" >"$T/show" 2>&1
check "show: the same headline" sh -c "grep -q '^  tail     rt.wakeup: worst $W,' '$T/show' && grep -q '; worst $W$X\$' '$T/show' && ! grep -q unclear '$T/show'"
"$SB" compare "$T/r.json" "$T/r.json" >"$T/cmp" 2>&1
check "compare: each kind by name, no verdict change" sh -c "grep -q '^rt.wakeup  *none ' '$T/cmp' && grep -q '^rt.wakeup  *fs ' '$T/cmp' && ! grep -q 'verdict changes' '$T/cmp'"
if is_root; then
	check "run (root): SCHED_FIFO at priority 80, memory locked" jtrue "$T/r.json" "all(p['extra']['rt']['policy'] == 'SCHED_FIFO' and p['extra']['rt']['priority'] == 80 and p['extra']['rt']['mlockall'] is True for p in $P) and len($P) == 3"
	check "run (root): cpu_dma_latency held" jtrue "$T/r.json" "$P[0]['extra']['rt']['cpu_dma_latency'] == 'held at 0 us'"
	check "run (root): RLIMIT_RTTIME bounds the SCHED_FIFO threads" jtrue "$T/r.json" "$P[0]['extra']['rt']['rttime_limit'] == '200 ms soft, 1 s hard'"
else
	skip "run (root): SCHED_FIFO, cpu_dma_latency (not root)"
fi
nothing_left "run"

# load placement: the cpu level alone, its hogs on CPU 0, one per CPU measured
"$SB" run rt.wakeup --dir "$T/target" --min-n 2 --max-n 2 -p duration=0.2 -p load_cpus=0 -p load_procs=1 --no-db -q -o "$T/p.json" >/dev/null 2>&1
check "load_cpus: the cpu level alone, placement and process count recorded" jtrue "$T/p.json" "len($P) == 1 and $P[0]['n'] == 2 and $P[0]['extra']['rt']['load_cpus'] == '0' and $P[0]['extra']['rt']['load_processes'] == 1 and $P[0]['extra']['rt']['load_throughput']['cpu']['per_s'] > 0"

# phase_us: every thread's wake-ups at that offset in the interval, the
# measuring from the next full second on (cyclictest --secaligned); free:
# where the thread's start put them, recorded all the same
"$SB" run rt.wakeup --dir "$T/target" --max-n 1 -p duration=0.2 -p interval_us=1000 -p phase_us=250 --no-db -q -o "$T/ph.json" >/dev/null 2>&1
check "phase_us=250: every CPU's wake-ups at 250 us in the interval, recorded" jtrue "$T/ph.json" "$P[0]['extra']['rt']['phase_us'] == 250 and len($P[0]['extra']['rt']['per_cpu']) == $ncpu and all(c['phase_us'] == 250 and c['samples'] > 0 for c in $P[0]['extra']['rt']['per_cpu'])"
check "phase_us=250: the duration counted from the full second" jtrue "$T/ph.json" "0.19 <= $P[0]['extra']['rt']['duration_s'] < 1.0 and $P[0]['stats']['count'] <= $ncpu * 201"
check "phase_us free: recorded, each CPU's phase within the interval" jtrue "$T/p.json" "$P[0]['extra']['rt']['phase_us'] == 'free' and all(0 <= c['phase_us'] < 1000 for c in $P[0]['extra']['rt']['per_cpu'])"

# a CPU list with "+" (a parameter's value holds no comma): a thread on each
if [ "$ncpu" -ge 2 ]; then
	"$SB" run rt.wakeup --dir "$T/target" --max-n 1 -p duration=0.2 -p cpus=1+0 --no-db -q -o "$T/c.json" >/dev/null 2>&1
	check "cpus=1+0: a measuring thread on CPU 0 and on CPU 1" jtrue "$T/c.json" "sorted(c['cpu'] for c in $P[0]['extra']['rt']['per_cpu']) == [0, 1] and all(c['samples'] > 0 for c in $P[0]['extra']['rt']['per_cpu'])"
else
	skip "cpus=1+0: one CPU"
fi

# 2. without the privilege: SCHED_OTHER, said in the result and the summary
if is_root && command -v setpriv >/dev/null && command -v prlimit >/dev/null; then
	prlimit --rtprio=0 --memlock=65536 setpriv --bounding-set=-sys_nice,-ipc_lock --inh-caps=-sys_nice,-ipc_lock \
		"$SB" run rt.wakeup --dir "$T/target" --max-n 1 -p duration=0.2 -p cpus=0 --no-db -q -o "$T/o.json" >"$T/out" 2>"$T/err"
	rc=$?
	check "no privilege: exit 0" test $rc -eq 0
	check "no privilege: measured as SCHED_OTHER" jtrue "$T/o.json" "$P[0]['extra']['rt']['policy'] == 'SCHED_OTHER' and $P[0]['stats']['count'] > 0"
	check "no privilege: said in the result" jtrue "$T/o.json" "any('SCHED_OTHER' in n for n in $R['notes'])"
	check "no privilege: said in the summary" out_has "$T/out" "measured as SCHED_OTHER"
	nothing_left "no privilege"
elif ! is_root; then
	"$SB" run rt.wakeup --dir "$T/target" --max-n 1 -p duration=0.2 -p cpus=0 --no-db -q -o "$T/o.json" >"$T/out" 2>"$T/err"
	check "no privilege: measured as SCHED_OTHER, said in the summary" out_has "$T/out" "measured as SCHED_OTHER"
else
	skip "no privilege: setpriv or prlimit missing"
fi

# 3. --max-latency 1: exit 3, first-failure data
"$SB" run rt.wakeup --dir "$T/target" --max-n 2 -p duration=0.3 --max-latency 1 --no-db -q -o "$T/m.json" >"$T/out" 2>"$T/err"
rc=$?
check "max-latency 1: exit 3" test $rc -eq 3
F="$R['repetitions'][0]['failure']"
check "max-latency 1: a bound failure at the first level" jtrue "$T/m.json" "$R['status'] == 'failed' and $F['kind'] == 'bound' and $F['n'] == 1"
check "max-latency 1: load, CPU, cycle and latency of the first failure" jtrue "$T/m.json" "$F['state']['bench']['load'] == 'none' and $F['state']['bench']['cpu'] in range($ncpu) and $F['state']['bench']['cycle'] >= 0 and $F['state']['bench']['latency_us'] > 1 and $F['state']['bench']['bound_us'] == 1"
check "max-latency 1: a trace snapshot, or why there is none" jtrue "$T/m.json" "isinstance($F['state']['bench']['trace'], list) or 'unavailable' in $F['state']['bench']['trace']"
if is_root; then
	check "max-latency 1 (root): the trace holds scheduler events" jtrue "$T/m.json" "isinstance($F['state']['bench']['trace'], list) and any('sched_' in l or 'irq' in l for l in $F['state']['bench']['trace'])"
fi
check "max-latency 1: stderr names the failure" out_has "$T/err" "max-latency 1 us exceeded: .* on CPU [0-9]* at cycle [0-9]* under load none"
"$SB" run rt.wakeup --dir "$T/target" --max-n 1 -p duration=0.2 --max-latency 1000000 --no-db -q -o "$T/m2.json" >/dev/null 2>&1
check "max-latency 1 s: not exceeded, exit 0" test $? -eq 0
"$SB" report "$T/r.json" "$T/m2.json" -o "$T/r.html" >/dev/null 2>&1
check "report: the distributions per load level of each run" sh -c "test \$(grep -c 'Wake-up latency per load level' '$T/r.html') -eq 2"
check "report: every level with its max in the legend" sh -c "grep -q 'r.json: none (max ' '$T/r.html' && grep -q 'r.json: fs (max ' '$T/r.html'"
check "report: the bound marked" grep -q "bound 1e+06 us" "$T/r.html"
check "report: the verdict table gives the p99 per kind and the worst, no growth class" sh -c "grep -q '<td class=\"u-category\">p99 none [^<]*; worst $W$X</td>' '$T/r.html' && ! grep -q '<td class=\"g-other\">unclear' '$T/r.html'"
nothing_left "max-latency"

# 4. bad input: exit 2, a message naming the problem, nothing made
bad() {
	"$SB" run rt.wakeup --dir "$T/target" --no-db -q "$@" -o "$T/bad.json" >/dev/null 2>"$T/err"
	rc=$?
	check "bad input $*: exit 2" test $rc -eq 2
	check "bad input $*: message names it" out_has "$T/err" "$want"
	check "bad input $*: no result, nothing made" sh -c "test ! -e '$T/bad.json' && test -z \"\$(ls -A '$T/target')\""
}
want="below the clock's resolution"; bad --max-latency 0
want="interval_us is an integer in 50..1000000"; bad -p interval_us=20
want="CPU 4096 is not online\|not a CPU list"; bad -p cpus=4096
want="CPU $ncpu is not online"; bad -p cpus=$ncpu
want="load_cpus=$ncpu: CPU $ncpu is not online"; bad -p load_cpus=$ncpu
want="priority=100"; bad -p priority=100
want="a value holds no comma.*a CPU list is written 0-1 or 0+2"; bad -p cpus=0,1
want="cpus=0+: not a CPU list such as 0, 0-1 or 0+2"; bad -p cpus=0+
want="phase_us=1000: must be free or a whole number of us below interval_us (1000)"; bad -p phase_us=1000 -p duration=0.1
want="phase_us=2.5: must be free"; bad -p phase_us=2.5 -p duration=0.1
want="phase_us=300: must be free or a whole number of us below interval_us (200)"; bad -p interval_us=200 -p phase_us=300 -p duration=0.1
want="phase_us=10: needs duration="; bad -p phase_us=10

# 5. Ctrl-C in the middle of a loaded level: exit 130, loads killed and reaped
# (the cpu level alone: after 20 s of level none first, the wait below
# ran out before the loads started on a busy machine; a bound of 10 s
# keeps the trace instance in play: beside two CPU hogs a wake-up came
# more than 100 ms late and ended the run before the Ctrl-C)
setsid "$SB" run rt.wakeup --dir "$T/target" --min-n 2 --max-n 2 -p duration=20 --max-latency 10000000 -q --no-db -o "$T/i.json" >"$T/out" 2>"$T/err" &
pid=$!
i=0; while [ $i -lt 200 ] && [ "$(descendants $pid)" -lt $((ncpu + 1)) ]; do sleep 0.1; i=$((i+1)); done
check "Ctrl-C: load processes were running" test "$(descendants $pid)" -ge $((ncpu + 1))
env kill -INT -- -$pid
wait $pid; rc=$?
check "Ctrl-C: exit 130" test $rc -eq 130
check "Ctrl-C: partial result written" jtrue "$T/i.json" "d['interrupted'] and len($P) >= 1"
nothing_left "Ctrl-C"
