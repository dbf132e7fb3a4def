# SPDX-License-Identifier: MIT
# Every net.* bench at small N over loopback, IPv4 and IPv6: results with
# points and the bench's own figures; select stops at FD_SETSIZE and says
# so; net.request spins through its gap (gap_wait); a low descriptor
# limit stops net.connect with a "limit" failure that says how far it
# got; Ctrl-C leaves no process or socket.
. "$(dirname "$0")/lib.sh"
NET="net.socket net.bind net.connect net.accept net.request net.stream net.rr net.udp"
mkdir -p "$T/target"
okish="every(b['status'] == 'ok' or (b['status'] == 'skipped' and b['skip_reason']) for b in d['benches'])"
# the sweep's own repetitions; one that --decide's rounds added may stop
# at its time with a single N (repetition.added, by design)
points="every(len(r['points']) >= 2 for b in d['benches'] if b['status'] == 'ok' for r in b['repetitions'] if not r.get('added'))"
has_ipv6() { python3 -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null; }
for fam in 4 6; do
	if [ $fam = 6 ] && ! has_ipv6; then skip "IPv$fam (no IPv6 on this host)"; continue; fi
	"$SB" run $NET -$fam --dir "$T/target" --max-n 20 --budget 0.03 -q -o "$T/r$fam.json" >"$T/out$fam" 2>"$T/err$fam"
	check "IPv$fam: run exits 0" test $? -eq 0
	check "IPv$fam: every net bench ok (or skipped with a reason)" jtrue "$T/r$fam.json" "$okish"
	check "IPv$fam: measured benches have points" jtrue "$T/r$fam.json" "$points"
	check "IPv$fam: the family is recorded" jtrue "$T/r$fam.json" "d['options']['net']['family'] == 'ipv$fam' and d['options']['net']['path'] == 'loopback'"
done
R=$T/r4.json
check "net.request: one sweep per mechanism" jtrue "$R" "sorted(b['params']['mech'] for b in d['benches'] if b['name'] == 'net.request') == ['epoll', 'io_uring', 'poll', 'select']"
check "net.stream: one sweep per sender" jtrue "$R" "sorted(b['params']['sender'] for b in d['benches'] if b['name'] == 'net.stream') == ['send', 'sendfile', 'splice', 'zerocopy']"
check "net.stream: Gbit/s, CPU per GB at both ends, fairness" jtrue "$R" "every(every(k in p['extra']['stream'] for k in ('received_gbit_per_s', 'sender_cpu_s_per_gb', 'receiver_cpu_s_per_gb', 'fairness_jain', 'min_share')) for b in d['benches'] if b['name'] == 'net.stream' and b['status'] == 'ok' for r in b['repetitions'] for p in r['points'])"
check "net.stream: bytes/s from the core" jtrue "$R" "every(p['throughput']['bytes_per_s'] > 0 for b in d['benches'] if b['name'] == 'net.stream' and b['status'] == 'ok' for r in b['repetitions'] for p in r['points'])"
check "net.rr: transactions/s" jtrue "$R" "every(p['throughput']['ops_per_s'] > 0 for r in $(B net.rr)['repetitions'] for p in r['points']) and $(B net.rr)['unit'] == 'transaction'"
check "net.udp: sent and received packets/s" jtrue "$R" "every(p['throughput']['ops_per_s'] > 0 and p['extra']['udp']['received_packets_per_s'] > 0 for r in $(B net.udp)['repetitions'] for p in r['points'])"
check "net.socket is version 2 (the hole)" jtrue "$R" "$(B net.socket)['version'] == 2"
check "no process left" no_procs "$T/target"

# select: the server's descriptors pass FD_SETSIZE (1024) before N = 1100
"$SB" run net.request -p mech=select --dir "$T/target" --max-n 1100 --budget 0.01 -q -o "$T/sel.json" >"$T/sel.out" 2>&1
check "select: run completes" test $? -eq 0
check "select: stops with a limit failure naming FD_SETSIZE" jtrue "$T/sel.json" "(lambda f: f['kind'] == 'limit' and 'FD_SETSIZE' in f['call'] and 1000 <= f['n'] < 1024)(d['benches'][0]['repetitions'][0]['failure'])"
check "select: a note says why" jtrue "$T/sel.json" "any('FD_SETSIZE' in n for n in d['benches'][0]['notes'])"
check "select: points up to 1000 kept" jtrue "$T/sel.json" "max(p['n'] for p in d['benches'][0]['repetitions'][0]['points']) == 1000"

# the gap between requests: spun through on sched_yield (the default: the
# CPU never idles) or slept in nanosleep. Counted with strace, so the
# machine's load does not matter: the CPU a spinning client gets depends on
# who else is runnable (under six CPU hogs it was 35 us per request of a
# 2 ms gap, as little as a sleeping one's), so its CPU is no test of it.
for w in spin sleep; do
	if command -v strace >/dev/null && strace -qq -o /dev/null true 2>/dev/null; then
		tr="strace -f -qq -e trace=sched_yield,nanosleep,clock_nanosleep -o $T/gap$w.st"
	else
		tr=
	fi
	$tr "$SB" run net.request -p mech=epoll -p gap_us=2000 -p gap_wait=$w --dir "$T/target" --min-n 5 --max-n 5 --budget 0.1 -r 1 --no-decide -q -o "$T/gap$w.json" >"$T/gap$w.out" 2>&1
	check "gap_wait=$w: run exits 0" test $? -eq 0
done
check "net.request is version 2 (spins through the gap)" jtrue "$T/gapspin.json" "d['benches'][0]['version'] == 2 and d['benches'][0]['params']['gap_wait'] == 'spin'"
if [ -f "$T/gapspin.st" ]; then
	# calls NAME SYSCALL: how many times the run made it; reqs NAME: requests timed
	calls() { grep -c "^[0-9]* *$2(" "$T/gap$1.st"; }
	reqs() { jget "$T/gap$1.json" "sum(p['ops'] for r in d['benches'][0]['repetitions'] for p in r['points'])"; }
	n=$(reqs spin); y=$(calls spin sched_yield); z=$(( $(calls spin nanosleep) + $(calls spin clock_nanosleep) ))
	check "gap_wait=spin: sched_yield in every gap, no sleep ($n requests, $y yields, $z sleeps)" test "$n" -gt 0 -a "$y" -ge "$n" -a "$z" -lt "$n"
	n=$(reqs sleep); y=$(calls sleep sched_yield); z=$(( $(calls sleep nanosleep) + $(calls sleep clock_nanosleep) ))
	check "gap_wait=sleep: a sleep in every gap, no yield ($n requests, $y yields, $z sleeps)" test "$n" -gt 0 -a "$z" -ge "$n" -a "$y" -lt "$n"
else
	skip "gap_wait: the yields and sleeps (strace missing or not allowed to trace)"
fi
"$SB" run net.request -p gap_wait=doze --dir "$T/target" -q -o "$T/gapbad.json" >"$T/gapbad.out" 2>&1
rc=$?
check "gap_wait=doze: exit 2 naming the key" sh -c "test $rc -eq 2 && grep -q gap_wait '$T/gapbad.out'"

# a descriptor limit of 300: the server stops accepting near 300
(ulimit -n 300; exec "$SB" run net.connect --dir "$T/target" --max-n 1000 --budget 0.01 -q -o "$T/lim.json") >"$T/lim.out" 2>&1
check "limit: run completes" test $? -eq 0
# (usually while growing to 500; a probe may meet it first while measuring 200)
check "limit: failure of kind limit, EMFILE, with first-failure data" jtrue "$T/lim.json" "(lambda f: f['kind'] == 'limit' and f['errno'] == 24 and f['phase'] in ('grow', 'op') and 200 <= f['n'] < 300 and 'open_fds' in f['state'])(d['benches'][0]['repetitions'][0]['failure'])"
check "limit: the failure names the server's count" jtrue "$T/lim.json" "'accept (server, at 2' in d['benches'][0]['repetitions'][0]['failure']['call']"
check "limit: the summary says how far it got" out_has "$T/lim.out" "stop net.connect: limit at N=2[0-9][0-9] "
check "limit: points before it are kept" jtrue "$T/lim.json" "max(p['n'] for p in d['benches'][0]['repetitions'][0]['points']) >= 100"

# Ctrl-C in the middle of building connections
"$SB" run net.connect --dir "$T/target" --max-n 5000 --budget 1 -q -o "$T/int.json" >/dev/null 2>&1 &
pid=$!
i=0; while [ $i -lt 100 ] && [ "$(descendants $pid)" -lt 2 ]; do sleep 0.1; i=$((i+1)); done
sleep 0.3
kids=$(below $pid)
port=$(ss -ltnpH 2>/dev/null | grep -E "pid=($(echo $kids | tr ' ' '|')),"  | awk '{print $4}' | sed 's/.*://' | head -1)
check "Ctrl-C: server and helper processes were running" test -n "$kids"
check "Ctrl-C: the server was listening" test -n "$port"
kill -INT $pid
wait $pid
check "Ctrl-C: exit 130" test $? -eq 130
sleep 0.3
gone() { for k in $kids; do kill -0 "$k" 2>/dev/null && return 1; done; return 0; }
check "Ctrl-C: no server or helper process left" gone
check "Ctrl-C: no process left" no_procs "$T/target"
nosock() { [ -z "$(ss -tanH 2>/dev/null | grep ":$port " | grep -v TIME-WAIT)" ]; }
check "Ctrl-C: no socket left on the server's port (TIME-WAIT aside)" nosock
check "Ctrl-C: partial result marked interrupted" jtrue "$T/int.json" "d['interrupted']"
