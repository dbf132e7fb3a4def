#!/bin/sh
# SPDX-License-Identifier: MIT
# Per-operation CPU counts the timed region only (issue 24): for CPU-bound
# system calls (fs.stat, net.socket) the caller's CPU per op is within
# 0.5-1.5x the median; proc.fork's child runs on another CPU, partly
# while the caller waits and partly beside it (its exit while the caller
# returns from wait), so the caller's CPU is at most 1.5x the median and
# the caller's plus the reaped children's ("children" side) at least
# 0.75x the fastest sample and at most 2x the mean (two CPUs busy at
# once can spend twice the wall time);
# fs.fsync's untimed re-write of N MiB shows as setup per sample, not in
# the per-op figure, and its verdict is fitted on the op less its
# control; net.*
# peers (helpers, server) get their own figure.
# On a tmpfs made by the test (root), else in /dev/shm.
. "$(dirname "$0")/lib.sh"

if is_root; then
	D="$T/tmpfs"
	mkdir -p "$D"
	mount -t tmpfs -o size=256m "sbtest-cpu$$" "$D" && at_exit "umount '$D'"
elif [ -d /dev/shm ] && [ -w /dev/shm ]; then
	D=$(mktemp -d /dev/shm/sbtest-cpu.XXXXXX)
	at_exit "rm -rf '$D'"
else
	skip "per-op CPU on tmpfs (no tmpfs: not root and no /dev/shm)"; exit 0
fi
check "the target is a tmpfs" sh -c "stat -f -c %T '$D' | grep -q tmpfs"

"$SB" run fs.stat net.socket proc.fork --max-n 1000 -b 0.3 --dir "$D" -q --no-db -o "$T/cpu.json" >"$T/cpu.out" 2>"$T/cpu.err"
rc=$?
check "fs.stat, net.socket, proc.fork: run exits 0" test $rc -eq 0
[ $rc -eq 0 ] || cat "$T/cpu.err"

# the median over a sweep's points of the per-point ratio of CPU per op
# to the median cost: one point preempted on a busy machine does not decide
ratio() { # ratio BENCH EXPR-OF-p (a point)
	echo "sorted([($2) / (p['stats']['p50_ns'] * 1e-9) for p in $(B "$1")['repetitions'][0]['points']])[len($(B "$1")['repetitions'][0]['points']) // 2]"
}
npts() { echo "len($(B "$1")['repetitions'][0]['points']) >= 3"; }
for b in fs.stat net.socket; do
	check "$b: at least 3 points" jtrue "$T/cpu.json" "$(npts $b)"
	check "$b: counted by the thread over the timed region" jtrue "$T/cpu.json" \
		"all(p['per_op']['counter'] == 'thread' and p['per_op']['scope'] == 'timed' for p in $(B $b)['repetitions'][0]['points'])"
	r=$(jget "$T/cpu.json" "round($(ratio $b "p['per_op']['cpu_s']"), 3)" 2>/dev/null)
	echo "# $b: CPU per op / p50 = $r (median over the points); $(uptime | sed 's/.*load/load/')"
	check "$b: CPU per op within 0.5-1.5x the median cost" jtrue "$T/cpu.json" \
		"0.5 <= $(ratio $b "p['per_op']['cpu_s']") <= 1.5"
done

b=proc.fork
check "$b: at least 3 points" jtrue "$T/cpu.json" "$(npts $b)"
own="p['per_op']['cpu_s']"
both="p['per_op']['cpu_s'] + p['peer_per_op']['children']['cpu_s']"
check "$b: the reaped children are a side of their own" jtrue "$T/cpu.json" \
	"all(p['peer_per_op']['children']['cpu_s'] > 0 for p in $(B $b)['repetitions'][0]['points'])"
r1=$(jget "$T/cpu.json" "round($(ratio $b "$own"), 3)" 2>/dev/null)
r2=$(jget "$T/cpu.json" "round($(ratio $b "$both"), 3)" 2>/dev/null)
echo "# $b: caller's CPU / p50 = $r1, with the children = $r2"
check "$b: the caller's CPU per op at most 1.5x the median cost" jtrue "$T/cpu.json" \
	"0 < $(ratio $b "$own") <= 1.5"
mratio() { # as ratio, against the mean (CPU per op is a mean too)
	echo "sorted([($2) / (p['stats']['mean_ns'] * 1e-9) for p in $(B "$1")['repetitions'][0]['points']])[len($(B "$1")['repetitions'][0]['points']) // 2]"
}
# the lower bound against the fastest sample, not the median: on a busy
# machine the median waits for a CPU (beside a load of 12: the median 3x
# the CPU, the fastest sample 0.6-1.0x); the caller alone is 0.45-0.65x
# the fastest sample, so the children must be in
minratio() {
	echo "sorted([($2) / (p['stats']['min_ns'] * 1e-9) for p in $(B "$1")['repetitions'][0]['points']])[len($(B "$1")['repetitions'][0]['points']) // 2]"
}
echo "# $b: caller's and children's CPU / fastest sample = $(jget "$T/cpu.json" "round($(minratio $b "$both"), 3)" 2>/dev/null)"
check "$b: caller's and children's CPU per op at least 0.75x the fastest sample, at most 2x the mean" jtrue "$T/cpu.json" \
	"0.75 <= $(minratio $b "$both") and $(mratio $b "$both") <= 2.0"

# fs.fsync: N MiB re-written before every sample are setup, not the op
"$SB" run fs.fsync --max-n 8 -b 0.3 --dir "$D" -q --no-db -o "$T/fsync.json" >/dev/null 2>"$T/fsync.err"
check "fs.fsync: run exits 0" test $? -eq 0
top="$(B fs.fsync)['repetitions'][0]['points'][-1]"
check "fs.fsync: the largest point is N=8" jtrue "$T/fsync.json" "$top['n'] == 8"
check "fs.fsync: the re-write shows as setup per sample (over 10x the op's CPU)" jtrue "$T/fsync.json" \
	"$top['setup_per_sample']['cpu_s'] > 10 * $top['per_op']['cpu_s'] > 0"
check "fs.fsync: a note says the untimed work is reported apart" jtrue "$T/fsync.json" \
	"any('setup_per_sample' in n for n in $(B fs.fsync)['notes'])"
# on tmpfs fsync has nothing to write: append + fsync is CPU-bound too
r=$(jget "$T/fsync.json" "round($top['per_op']['cpu_s'] / ($top['stats']['p50_ns'] * 1e-9), 3)" 2>/dev/null)
echo "# fs.fsync N=8: CPU per op / p50 = $r"
# (CPU per op is a mean, and fsync's tail is long: at most its mean wall time)
check "fs.fsync: the op's CPU is its own, not the re-write's (0.5x its median to its mean cost)" jtrue "$T/fsync.json" \
	"0.5 * $top['stats']['p50_ns'] <= $top['per_op']['cpu_s'] * 1e9 <= 1.01 * $top['stats']['mean_ns']"

# fs.fsync against its control (the same re-write and append, no fsync):
# the verdict is fitted on what the fsync adds, the op less its control.
# Which class that is, is a statistical call, not a fact to test: on
# tmpfs the difference is ~1 us (version 3 stepped to ~2 us from N = 20
# MiB re-written, the fsync call's path gone cold; version 4 warms it with
# an untimed fsync of a memfd: 0.8-1.4 us over N = 1..64, O(1) 3 of 3 on a
# quiet 2-vCPU guest, 2026-12-06). What is tested is the mechanism: the
# fit's constant is the difference's scale, not the op's, the note names
# the verdict and the op's and control's own, and the warm-up is said.
"$SB" run fs.fsync --max-n 64 --dir "$D" -q --no-db -o "$T/ctl.json" >/dev/null 2>"$T/ctl.err"
check "fs.fsync to N = 64: run exits 0" test $? -eq 0
pts="$(B fs.fsync)['repetitions'][0]['points']"
check "fs.fsync: every point has its control's statistics" jtrue "$T/ctl.json" \
	"len($pts) >= 3 and all(p['control']['stats']['p50_ns'] > 0 for p in $pts)"
echo "# fs.fsync: $(jget "$T/ctl.json" "$(B fs.fsync)['verdict']['class']"); $(jget "$T/ctl.json" "[n for n in $(B fs.fsync)['notes'] if n.startswith('control:')]" 2>/dev/null)"
echo "# fs.fsync: (n, op p50, control p50) $(jget "$T/ctl.json" "[(p['n'], p['stats']['p50_ns'], p['control']['stats']['p50_ns']) for p in $pts]" 2>/dev/null)"
# the fitted constant: within 0.5-2x the smallest point's difference, and
# under half the op's own cost there (the op costs ~5x what it adds)
check "fs.fsync: the verdict is fitted on the op less its control" jtrue "$T/ctl.json" \
	"(lambda v, p: 0.5 * (p['stats']['p50_ns'] - p['control']['stats']['p50_ns']) <= v['a_ns'] + v['b_ns'] * (1 if v['model'] in ('n', 'n^2') else 0) <= min(2 * (p['stats']['p50_ns'] - p['control']['stats']['p50_ns']), 0.5 * p['stats']['p50_ns']))($(B fs.fsync)['verdict'], $pts[0])"
check "fs.fsync: a note gives the op's and the control's own verdicts" jtrue "$T/ctl.json" \
	"any(n.startswith('control: the verdict (%s) is on the op less its control; the op alone: ' % $(B fs.fsync)['verdict']['class']) and ', the control alone: ' in n for n in $(B fs.fsync)['notes'])"
check "fs.fsync: a note says each sample's preparation ends with an fsync of a memfd" jtrue "$T/ctl.json" \
	"any(n.startswith('N = MiB written') and n.endswith('then an untimed fsync of a memfd (fsync\\'s common path warm)') for n in $(B fs.fsync)['notes'])"
check "fs.fsync: version 4 (the warm-up changed what the op finds)" jtrue "$T/ctl.json" "$(B fs.fsync)['version'] == 4"

# the other side of net.*: helpers (op mode), the server (run mode)
"$SB" run net.accept net.stream -p sender=send --max-n 4 -b 0.2 -q --no-db -o "$T/net.json" >/dev/null 2>"$T/net.err"
check "net.accept, net.stream: run exits 0" test $? -eq 0
check "net.accept: the connecting helpers' CPU per op is a side of its own" jtrue "$T/net.json" \
	"all(p['peer_per_op']['helpers']['cpu_s'] > 0 and p['peer_per_op']['helpers']['processes'] >= 1 for p in $(B net.accept)['repetitions'][0]['points'])"
check "net.stream: the server's CPU per op is a side of its own, over the meter window" jtrue "$T/net.json" \
	"all(p['peer_per_op']['server']['cpu_s'] > 0 and p['per_op']['scope'] == 'window' and p['per_op']['counter'] == 'process' for p in $(B net.stream)['repetitions'][0]['points'])"
left=$(for p in $(below $$); do cat "/proc/$p/comm" 2>/dev/null; done | grep -c '^scalebench$')
check "no scalebench process (or its helpers) left below this test" test "$left" -eq 0
