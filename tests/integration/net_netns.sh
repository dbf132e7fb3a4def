# SPDX-License-Identifier: MIT
# --netns (root): every net.* bench at small N with the server and the
# client in two namespaces joined by a veth pair; afterwards, and after
# Ctrl-C, no namespace, veth, process or socket is left.
# tier: serial (it compares the namespaces of the whole machine before and
# after: another test making namespaces beside it would look like a leak)
. "$(dirname "$0")/lib.sh"
if ! is_root; then skip "--netns (needs root)"; exit 0; fi
NET="net.socket net.bind net.connect net.accept net.request net.stream net.rr net.udp"
mkdir -p "$T/target"
nslist() { lsns -t net -n -o NS 2>/dev/null | sort; }
nslist >"$T/ns.before"
has_ipv6() { python3 -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null; }
for fam in 4 6; do
	if [ $fam = 6 ] && ! has_ipv6; then skip "netns IPv$fam (no IPv6 on this host)"; continue; fi
	"$SB" run $NET --netns -$fam --dir "$T/target" --max-n 20 --budget 0.03 -q -o "$T/n$fam.json" >"$T/out$fam" 2>"$T/err$fam"
	rc=$?
	check "netns IPv$fam: run exits 0" test $rc -eq 0
	[ $rc -eq 0 ] || cat "$T/err$fam"
	check "netns IPv$fam: every net bench ok (or skipped with a reason)" jtrue "$T/n$fam.json" "every(b['status'] == 'ok' or (b['status'] == 'skipped' and b['skip_reason']) for b in d['benches'])"
	# the sweeps (--decide's added repetitions may be partial: a point
	# that would not fit in the time left is not begun)
	check "netns IPv$fam: measured benches have points" jtrue "$T/n$fam.json" "every(len(r['points']) >= 2 for b in d['benches'] if b['status'] == 'ok' for r in b['repetitions'] if not r.get('added'))"
	check "netns IPv$fam: the path is recorded" jtrue "$T/n$fam.json" "d['options']['net']['path'] == 'netns-veth'"
done
check "netns: stream crossed the veth (data received)" jtrue "$T/n4.json" "every(p['extra']['stream']['received_bytes'] > 0 for b in d['benches'] if b['name'] == 'net.stream' and b['status'] == 'ok' for r in b['repetitions'] for p in r['points'])"
sleep 0.5
nslist >"$T/ns.after"
check "netns: no namespace left" cmp -s "$T/ns.before" "$T/ns.after"
noveth() { ! ip -o link show | grep -q ': sb[0-9]*[sc][@:]'; }
check "netns: no veth in our namespace" noveth
check "netns: no process left" no_procs "$T/target"

# --netns without root: a clear error, nothing made
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$SB" run net.connect --netns --dir /tmp 2>"$T/nr.err"; [ $? -eq 2 ] && grep -q "needs root" "$T/nr.err"; }
if unpriv_ok; then
	check "netns: without root, exit 2 saying it needs root" nobody
else
	skip "netns without root: $UNPRIV_WHY"
fi

# Ctrl-C while the namespaces, the server and the helpers exist
"$SB" run net.request -p mech=poll --netns --dir "$T/target" --max-n 5000 --budget 1 -q -o "$T/int.json" >/dev/null 2>&1 &
pid=$!
i=0; while [ $i -lt 100 ] && [ "$(descendants $pid)" -lt 4 ]; do sleep 0.1; i=$((i+1)); done
sleep 0.3
kids=$(below $pid)
nsids=$(for k in $kids; do readlink /proc/$k/ns/net; done | sort -u | tr -d 'net:[]' | tr '\n' ' ')
check "Ctrl-C: holders, server and helpers were running" test "$(echo $kids | wc -w)" -ge 4
check "Ctrl-C: they were in other namespaces" test -n "$nsids"
kill -INT $pid
wait $pid
check "Ctrl-C: exit 130" test $? -eq 130
sleep 0.5
gone() { for k in $kids; do kill -0 "$k" 2>/dev/null && return 1; done; return 0; }
check "Ctrl-C: no process left" gone
nsgone() { for n in $nsids; do lsns -t net -n -o NS | grep -qx "$n" && return 1; done; return 0; }
check "Ctrl-C: no namespace left" nsgone
check "Ctrl-C: no veth left" noveth
nosock() { [ -z "$(ss -tanH 2>/dev/null | grep '10\.77\.0\.')" ]; }
check "Ctrl-C: no socket on the namespaces' addresses here" nosock
