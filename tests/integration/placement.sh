#!/bin/sh
# SPDX-License-Identifier: MIT
# Placement is a controlled, recorded variable: a bench with a server
# (net.rr) runs by default with every process on one CPU; -p placement=
# spread puts its server on the next CPU, free leaves all to the
# scheduler; the CPUs each process may use are read from /proc while the
# sweep runs, and the result records the choice. A bad placement is exit 2.
# Each point records where each side ran (point.placement: CPUs, tasks,
# migrations per side) and flags a side that moved: none under a pinned
# placement, and one when this test moves the processes during a point;
# io.streams places its reader threads (one "workers" task per stream),
# work.round2 its server and client threads.
# tier: fast (tests/run.sh --fast, make test)
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/target"
"$SB" run net.rr -p placement=bogus --dir "$T/target" -q --no-db -o "$T/bad.json" >/dev/null 2>"$T/bad.err"
check "bad placement: exit 2, named" sh -c '[ $1 = 2 ] && grep -q "placement=bogus.*one of same, spread, free" "$2" && [ ! -e "$3" ]' _ $? "$T/bad.err" "$T/bad.json"
if [ "${SB_VARIANT:-native}" = posix ]; then
	"$SB" run net.rr --max-n 2 --budget 0.01 --dir "$T/target" -q --no-db -o "$T/p.json" >/dev/null 2>&1
	check "POSIX build: placement recorded as not controlled" jtrue "$T/p.json" "any('no CPU affinity control' in n for n in d['benches'][0]['notes'])"
	exit 0
fi
ncpu=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
first=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
# affinity MODE: the Cpus_allowed_list of each process below the run, once
# the server and the worker are up (--ci 0.1: every point spends its 1 s)
affinity() {
	"$SB" run net.rr --max-n 2 --budget 1 --ci 0.1 --dir "$T/target" -q --no-db -o "$T/$1.json" ${1:+-p placement=$1} >/dev/null 2>&1 &
	pid=$!
	i=0; while [ $i -lt 100 ] && [ "$(descendants $pid)" -lt 2 ]; do sleep 0.1; i=$((i+1)); done
	sleep 0.3
	for p in $(below $pid); do
		grep -h '^Cpus_allowed_list' /proc/$p/status 2>/dev/null | awk '{print $2}'
	done | sort | uniq -c | awk '{print $1 "x" $2}' | tr '\n' ' ' >"$T/$1.aff"
	wait $pid
}
affinity same
# same: every process on one CPU; with two or more allowed, the faster by
# the probe read before each repetition (docs/method.md, "Slowed CPUs")
check "same (the default): worker and server both on one CPU [$(cat "$T/same.aff")]" grep -qx "[2-9]x[0-9][0-9]* " "$T/same.aff"
PTS="[p for b in d['benches'] for r in b['repetitions'] for p in r['points']]"
ALLOWED=$(python3 -c 'import os; print(sorted(os.sched_getaffinity(0)))')
check "same: every point records the bench's and the server's CPU, one of $ALLOWED, the same for both" jtrue "$T/same.json" \
	"len($PTS) >= 2 and every(p['placement']['mode'] == 'same' and len(p['placement']['sides']['bench']['cpus']) == 1 and p['placement']['sides']['bench']['cpus'][0] in $ALLOWED and p['placement']['sides']['server']['cpus'] == p['placement']['sides']['bench']['cpus'] and p['placement']['sides']['server']['tasks'] >= 1 for p in $PTS)"
if [ "$ncpu" -ge 2 ]; then
	check "same on $ncpu CPUs: the note says each repetition takes the faster" jtrue "$T/same.json" \
		"any('in each repetition the faster of CPUs' in n for n in d['benches'][0]['notes'])"
fi
check "same: pinned, so no side moved during any point" jtrue "$T/same.json" \
	"len($PTS) >= 2 and every(not p['placement']['moved'] and not any(s['moved'] for s in p['placement']['sides'].values()) and every(s['migrations'] in (0, None) for s in p['placement']['sides'].values()) for p in $PTS)"
check "same: recorded in params and a note" jtrue "$T/same.json" "d['benches'][0]['params']['placement'] == 'same' and any('placement same' in n for n in d['benches'][0]['notes'])"
if [ "$ncpu" -ge 2 ]; then
	second=$(python3 -c 'import os; print(sorted(os.sched_getaffinity(0))[1])')
	affinity spread
	check "spread: the worker on CPU $first, the server on CPU $second [$(cat "$T/spread.aff")]" sh -c 'grep -q "1x$2 " "$1" && grep -q "[1-9]x$3 " "$1"' _ "$T/spread.aff" "$second" "$first"
	check "spread: recorded" jtrue "$T/spread.json" "d['benches'][0]['params']['placement'] == 'spread' and any('its peer on CPU' in n for n in d['benches'][0]['notes'])"
	check "spread: each point says the bench ran on CPU $first, the server on CPU $second" jtrue "$T/spread.json" \
		"len($PTS) >= 2 and every(p['placement']['sides']['bench']['cpus'] == [$first] and p['placement']['sides']['server']['cpus'] == [$second] and not p['placement']['moved'] for p in $PTS)"
	# free, and the test moves every process below the run from one CPU to
	# the other, back and forth while the points run: they must say a side moved
	"$SB" run net.rr --max-n 2 --budget 1 --ci 0.1 --dir "$T/target" -q --no-db -o "$T/moved.json" -p placement=free >/dev/null 2>&1 &
	pid=$!
	i=0; while [ $i -lt 100 ] && [ "$(descendants $pid)" -lt 2 ]; do sleep 0.1; i=$((i+1)); done
	for c in $first $second $first $second $first $second $first $second; do # ~1.2 s: into the windows
		for p in $(below $pid); do taskset -a -p -c $c $p >/dev/null 2>&1; done
		sleep 0.15
	done
	wait $pid
	check "free, processes moved by the test: a point flags the side that moved" jtrue "$T/moved.json" \
		"any(p['placement']['moved'] and any(s['moved'] for s in p['placement']['sides'].values()) for p in $PTS)"
	check "moved: the point's flag agrees with its sides'" jtrue "$T/moved.json" \
		"len($PTS) >= 2 and every(p['placement']['moved'] == any(s['moved'] for s in p['placement']['sides'].values()) for p in $PTS)"
	# io.streams: one placed reader thread per stream, spread over the CPUs
	"$SB" run io.streams -p direct=0 -p file_mib=1 -p cache=warm --max-n 2 --budget 0.1 --dir "$T/target" -q --no-db -o "$T/streams.json" >/dev/null 2>&1
	check "io.streams: placement spread by default; each point records its N reader threads on CPUs $first and $second" jtrue "$T/streams.json" \
		"d['benches'][0]['params']['placement'] == 'spread' and len($PTS) == 2 and every(p['placement']['sides']['workers']['tasks'] == p['n'] and set(p['placement']['sides']['workers']['cpus']) <= {$first, $second} and not p['placement']['moved'] for p in $PTS) and $PTS[1]['placement']['sides']['workers']['cpus'] == sorted({$first, $second})"
	# work.round2: free by default; spread puts its client threads on the
	# first CPU and its server thread on the next (bench/round2-crosscheck.sh)
	if "$SB" list | grep '^work.round2 ' | grep -qvi unavailable; then
		"$SB" run work.round2 -p layout=flat -p conns=2 -p serve_ms=100 -p placement=spread -n 100 --min-n 50 --quick \
			--dir "$T/target" -q --no-db -o "$T/r2.json" >/dev/null 2>&1
		check "work.round2 spread: recorded; each point's server and client threads on CPUs $first and $second, none moved" jtrue "$T/r2.json" \
			"d['benches'][0]['params']['placement'] == 'spread' and len($PTS) == 2 and every(p['placement']['sides']['workers']['cpus'] == sorted({$first, $second}) and p['placement']['sides']['bench']['cpus'] == [$first] and not p['placement']['moved'] for p in $PTS)"
		"$SB" list work.round2 | grep -q 'placement .* free ' 
		check "work.round2: placement free by default" [ $? = 0 ]
	fi
	affinity free
	check "free: every process may run on every CPU [$(cat "$T/free.aff")]" sh -c '! grep -q "x$2 " "$1" && [ -s "$1" ]' _ "$T/free.aff" "$first"
else
	skip "spread and free: one CPU allowed"
fi
check "nothing left in the target" empty_dir "$T/target"
