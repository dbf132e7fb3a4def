#!/bin/sh
# SPDX-License-Identifier: MIT
# serve under a flood (issue 22): 200 connections that never say HELLO and
# a stream of garbage connections held against it must not keep a
# right-key client out. The client's run completes within 2 s of starting;
# after the attack, serve's descriptors return to their idle count and it
# still serves. Once on loopback, once with the attack coming from another
# network namespace (root; a veth pair made and removed here).
. "$(dirname "$0")/lib.sh"
KEY=fl00d-$$
mkdir -p "$T/target"

# The attacker: NIDLE connections that send nothing, then connections that
# send garbage and close, in a loop, until killed. "ready" in a file once
# the idle ones are open.
cat >"$T/flood.py" <<'PY'
import socket, sys, time
host, port, nidle, ready = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
idle = []
for i in range(nidle):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.connect((host, port))
    idle.append(s)
open(ready, "w").write("ready\n")
n = 0
while True:
    try:
        s = socket.create_connection((host, port), timeout=2)
        s.sendall(b"GET / HTTP/1.0\r\n\r\n" if n % 2 else b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\n")
        s.close()
    except OSError:
        pass
    n += 1
    time.sleep(0.002)
PY

fds() { ls /proc/$1/fd 2>/dev/null | wc -l; }
# settle PID IDLE: wait (up to 6 s) for serve's descriptors to be back at IDLE
settle() {
	i=0; while [ $i -lt 60 ] && [ "$(fds $1)" != "$2" ]; do sleep 0.1; i=$((i+1)); done
	[ "$(fds $1)" = "$2" ]
}
# flood_case NAME HOST PORT SERVE_PREFIX ATTACK_PREFIX CLIENT_PREFIX
flood_case() {
	name=$1; host=$2; port=$3; sp=$4; ap=$5; cp=$6
	$sp "$SB" serve --listen $host:$port --key $KEY >"$T/$name.sout" 2>"$T/$name.serr" &
	spid=$!
	at_exit "kill $spid 2>/dev/null"
	i=0; while [ $i -lt 50 ] && ! grep -q listening "$T/$name.sout" 2>/dev/null; do sleep 0.1; i=$((i+1)); done
	if [ "$port" = 0 ]; then # the port the kernel gave
		port=$(sed -n "s/.*listening on $host:\([1-9][0-9]*\) (protocol 2).*/\1/p" "$T/$name.sout" | head -1)
		port=${port:-0}
	fi
	check "$name: serve listens" out_has "$T/$name.sout" "listening on $host:$port (protocol 2)"
	idle=$(fds $spid)
	$ap python3 "$T/flood.py" $host $port 200 "$T/$name.ready" 2>/dev/null &
	apid=$!
	at_exit "kill $apid 2>/dev/null"
	i=0; while [ $i -lt 100 ] && [ ! -s "$T/$name.ready" ]; do sleep 0.1; i=$((i+1)); done
	check "$name: the attacker holds 200 idle connections" test -s "$T/$name.ready"
	sleep 0.5 # let the garbage stream run
	t0=$(date +%s%N)
	$cp "$SB" run net.stream -p sender=send --max-n 1 --budget 0.02 --peer $host:$port --key $KEY \
		--dir "$T/target" -q -o "$T/$name.json" >"$T/$name.out" 2>&1
	rc=$?
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	check "$name: the right-key client's run exits 0 during the attack" test $rc -eq 0
	check "$name: its net.stream is ok" jtrue "$T/$name.json" "d['benches'][0]['status'] == 'ok'"
	if [ $ms -le 2000 ]; then echo "ok - $name: it completed within 2 s of starting (${ms} ms)"
	else echo "not ok - $name: it completed within 2 s of starting (${ms} ms)"; fi
	check "$name: the attack was still running" kill -0 $apid
	kill $apid; wait $apid 2>/dev/null
	check "$name: after the attack, serve's descriptors are back at their idle count ($idle)" settle $spid $idle
	$cp "$SB" run net.rr --max-n 2 --budget 0.02 --peer $host:$port --key $KEY --dir "$T/target" -q -o "$T/$name-after.json" >/dev/null 2>&1
	check "$name: serve still serves after the attack" jtrue "$T/$name-after.json" "d['benches'][0]['status'] == 'ok'"
	check "$name: serve counted dropped pending connections" sh -c "kill -INT $spid; sleep 1; grep -q 'stopped ([1-9][0-9]* sessions.*[1-9][0-9]* pending dropped)' '$T/$name.serr'"
	wait $spid 2>/dev/null
}

mkdir -p "$T/nolib" && : >"$T/nolib/libcrypto.so.3" # a libcrypto that cannot load
LD_LIBRARY_PATH="$T/nolib" timeout 10 "$SB" serve --listen 127.0.0.1:0 --key $KEY >/dev/null 2>"$T/nolib.err"
check "without libcrypto: serve exits 1" test $? -eq 1
check "without libcrypto: serve says the challenge-response needs it and which package has it" out_has "$T/nolib.err" "needs OpenSSL's libcrypto: cannot load libcrypto.so.3 (Debian: libssl3)"

# port 0: the kernel's choice (a fixed one may be some other test's
# connection's ephemeral port when tests run side by side)
flood_case loopback 127.0.0.1 0 "" "" ""

if ! is_root; then skip "the attack from another network namespace (needs root)"; exit 0; fi
A=sbfA$$; B=sbfB$$; VA=sbf$$a; VB=sbf$$b
ip netns add $A && ip netns add $B || { echo "not ok - cannot make namespaces"; exit 0; }
at_exit "ip netns del $A 2>/dev/null; ip netns del $B 2>/dev/null"
ip link add $VA netns $A type veth peer name $VB netns $B
ip -n $A addr add 10.79.0.1/24 dev $VA; ip -n $A link set $VA up; ip -n $A link set lo up
ip -n $B addr add 10.79.0.2/24 dev $VB; ip -n $B link set $VB up; ip -n $B link set lo up
flood_case netns 10.79.0.1 7413 "ip netns exec $A" "ip netns exec $B" "ip netns exec $A"
