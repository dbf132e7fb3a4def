#!/bin/sh
# SPDX-License-Identifier: MIT
# run --profile on known growths (docs/method.md, "Profiles"): a default
# run attributes select's and poll's growth N=1 -> 1000 to the kernel's
# poll scan (do_select / do_sys_poll and the socket poll functions they
# call) for at least 70% of it, while epoll's and io_uring's poll-scan
# functions do not grow; proc.syscall[filter=args]'s growth is in the
# seccomp filter run and its profile is the caller's (the process that
# runs the op); fs.create on ext2 without dir_index (matrix) grows in
# ext4's linear directory search (the lookup, __ext4_find_entry, and the
# search for a free slot, ext4_add_entry: two disjoint calls of a create).
# The profiled points are not in the
# repetitions; without permission (a non-root user, perf_event_paranoid
# above 1) the run goes on, says why, and exits 0. Ratios only: no figure
# of this machine is written here.
. "$(dirname "$0")/lib.sh"
if [ "$(uname -s)" != Linux ]; then
	skip "profile: Linux only"
	exit 0
fi
if ! is_root; then
	skip "profile: needs root (kernel call chains)"
	exit 0
fi
mkdir -p "$T/target"

# growth of function F (inclusive, ns/op) over the whole growth of bench B
G="lambda b, names: sum(f['delta_ns'] for f in b['profile']['growth']['functions'] if f['name'] in names)"
NR="[b for b in d['benches'] if b['name'] == 'net.request']"
mech() { echo "[b for b in $NR if b['params']['mech'] == '$1'][0]"; }

# 1. net.request, every mechanism, default scale (N = 1 .. 1000)
"$SB" run net.request --profile --no-decide --dir "$T/target" --no-db -q -o "$T/nr.json" >"$T/nr.out" 2>"$T/nr.err"
rc=$?
check "net.request --profile: exit 0" test $rc -eq 0
check "net.request: every mechanism has a profile with a growth" jtrue "$T/nr.json" \
	"len($NR) == 4 and every(b['profile'].get('growth') is not None for b in $NR)"
check "net.request: each profile has its smallest and largest N" jtrue "$T/nr.json" \
	"every([p['n'] for p in b['profile']['points']] == [1, 1000] for b in $NR)"
check "net.request: the server's side is profiled" jtrue "$T/nr.json" \
	"every('server' in [s['side'] for s in b['profile']['points'][-1]['sides']] for b in $NR)"
check "net.request: the profiled points are not in the repetition (one point per N)" jtrue "$T/nr.json" \
	"every(len(set(p['n'] for p in b['repetitions'][-1]['points'])) == len(b['repetitions'][-1]['points']) for b in $NR)"
for m in select:do_select poll:do_sys_poll; do
	mm=${m%%:*} fn=${m#*:}
	check "net.request[mech=$mm]: $fn's growth is >= 70% of the growth" jtrue "$T/nr.json" \
		"($G)($(mech "$mm"), ['$fn']) >= 0.7 * $(mech "$mm")['profile']['growth']['delta_ns'] > 0"
	check "net.request[mech=$mm]: the attribution names the poll scan" jtrue "$T/nr.json" \
		"$(mech "$mm")['profile']['growth']['attribution'][0]['name'] in ('$fn', 'sock_poll', 'tcp_poll', 'core_sys_select', 'do_poll', 'do_sys_poll', 'do_select', 'poll_freewait', '__pollwait', 'fdget', '__fget_light')"
	check "net.request[mech=$mm]: a 'why' line names it" out_has "$T/nr.out" "^why  net.request\[mech=$mm\]: .*explains"
done
SCAN="['do_select', 'do_sys_poll', 'sock_poll', 'tcp_poll', 'core_sys_select']"
for mm in epoll io_uring; do
	check "net.request[mech=$mm]: no poll-scan function grows (< 10% of select's)" jtrue "$T/nr.json" \
		"($G)($(mech "$mm"), $SCAN) < 0.1 * ($G)($(mech select), ['do_select'])"
done
check "the prof line says what profiling cost" out_has "$T/nr.out" "^prof 4 benches profiled: .* s of the run's"

# 2. proc.syscall[filter=args]: the growth in the seccomp filter run, in the caller
if "$SB" list proc.syscall 2>/dev/null | grep -q unavailable; then
	skip "proc.syscall: not in this build"
else
	"$SB" run proc.syscall -p filter=args -p tracer=none --profile --dir "$T/target" --no-db -q -o "$T/ps.json" >"$T/ps.out" 2>&1
	check "proc.syscall --profile: exit 0" test $? -eq 0
	PS="$(B proc.syscall)['profile']"
	check "proc.syscall: the op's process is the caller" jtrue "$T/ps.json" \
		"every(p['op_side'] == 'caller' and p['op_cpu_per_op_ns'] > 0 for p in $PS['points'])"
	check "proc.syscall: the caller holds most samples at the largest N" jtrue "$T/ps.json" \
		"[s for s in $PS['points'][-1]['sides'] if s['side'] == 'caller'][0]['samples'] > 0.5 * $PS['points'][-1]['samples']"
	check "proc.syscall[filter=args]: __seccomp_filter's growth is >= half the growth" jtrue "$T/ps.json" \
		"($G)($(B proc.syscall), ['__seccomp_filter']) >= 0.5 * $PS['growth']['delta_ns'] > 0"
	check "proc.syscall[filter=args]: a 'why' line names the filter" out_has "$T/ps.out" "^why  proc.syscall.*__seccomp_filter"
	# compare: both profiled, so the functions whose cost moved are listed
	"$SB" run proc.syscall -p filter=args -p tracer=none --profile --dir "$T/target" --no-db -q -o "$T/ps2.json" >/dev/null 2>&1
	"$SB" compare "$T/ps.json" "$T/ps2.json" >"$T/cmp.out" 2>&1
	"$SB" compare "$T/ps.json" "$T/ps2.json" --format json >"$T/cmp.json" 2>/dev/null
	check "compare of two profiled runs: a profile line at the largest N" out_has "$T/cmp.out" "profile  at N=256, CPU/op .* self cost per op: "
	check "compare --format json: the functions' changes" jtrue "$T/cmp.json" \
		"len(d['comparisons'][0]['benches'][0]['profile']['functions']) > 0 and every('self_delta_ns' in f for f in d['comparisons'][0]['benches'][0]['profile']['functions'])"
fi

# 3. fs.create on ext2 without dir_index: ext4's linear directory search
if command -v mkfs.ext2 >/dev/null 2>&1; then
	mkdir -p "$T/d"
	# -n 10000: the default 100,000 runs out of the image's inodes (a
	# sweep that stops early has no profiled point at its largest N)
	"$SB" matrix --fs 'ext2:-O ^dir_index' fs.create -n 10000 --profile --dir "$T/d" --no-db -q -o "$T/m.json" >"$T/m.out" 2>&1
	check "matrix fs.create --profile: exit 0" test $? -eq 0
	FC="[b for b in d['benches'] if b['name'] == 'fs.create'][0]"
	check "fs.create on ext2 without dir_index: the growth is in the linear search (>= 70%)" jtrue "$T/m.json" \
		"max(($G)($FC, ['__ext4_find_entry']), ($G)($FC, ['ext4_find_entry'])) + ($G)($FC, ['ext4_add_entry']) >= 0.7 * $FC['profile']['growth']['delta_ns'] > 0"
	check "fs.create on ext2: a 'why' line" out_has "$T/m.out" "^why  .*fs.create.*explains"
	check "matrix: nothing left behind" none_left
else
	skip "fs.create on ext2: no mkfs.ext2"
fi

# 4. unavailable: a non-root user with kernel.perf_event_paranoid above 1
par=$(cat /proc/sys/kernel/perf_event_paranoid)
if command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
	restore=""
	if [ "$par" -lt 2 ]; then
		echo 2 >/proc/sys/kernel/perf_event_paranoid && restore=$par
	fi
	[ -n "$restore" ] && at_exit "echo $restore >/proc/sys/kernel/perf_event_paranoid"
	mkdir -p "$T/u" && chmod 0777 "$T/u" && chmod 0711 "$T"
	setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$T/u" \
		"$SB" run fs.stat --quick --profile --dir "$T/u" --no-db -q -o "$T/u/r.json" >"$T/u.out" 2>&1
	rc=$?
	[ -n "$restore" ] && echo "$restore" >/proc/sys/kernel/perf_event_paranoid
	check "not root: exit 0" test $rc -eq 0
	check "not root: the bench ran" jtrue "$T/u/r.json" "$(B fs.stat)['status'] == 'ok'"
	check "not root: the profile is unavailable, with the reason" jtrue "$T/u/r.json" \
		"'perf_event_paranoid' in $(B fs.stat)['profile']['unavailable']"
	check "not root: the summary says so" out_has "$T/u.out" "^prof unavailable (1 bench): perf_event_open"
	check "perf_event_paranoid restored" test "$(cat /proc/sys/kernel/perf_event_paranoid)" = "$par"
else
	skip "not root: no setpriv or no user nobody"
fi
