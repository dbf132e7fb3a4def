# SPDX-License-Identifier: MIT
# serve + run --peer across two namespaces made by this test (root): the
# benches run against the peer; a wrong or missing key is refused;
# garbage, oversized and out-of-turn control messages get "ERR" and that
# connection closes; one controlling client at a time; serve keeps
# serving through all of it and stops cleanly on SIGINT.
. "$(dirname "$0")/lib.sh"
if ! is_root; then skip "serve across namespaces (needs root)"; exit 0; fi
A=sbtA$$; B=sbtB$$; VA=sbt$$a; VB=sbt$$b; PORT=7412; KEY=k3y-$$
ip netns add $A && ip netns add $B || { echo "not ok - cannot make namespaces"; exit 0; }
at_exit "ip netns del $A 2>/dev/null; ip netns del $B 2>/dev/null"
ip link add $VA netns $A type veth peer name $VB netns $B
ip -n $A addr add 10.78.0.1/24 dev $VA; ip -n $A link set $VA up; ip -n $A link set lo up
ip -n $B addr add 10.78.0.2/24 dev $VB; ip -n $B link set $VB up; ip -n $B link set lo up
mkdir -p "$T/target"

ip netns exec $A "$SB" serve --listen 10.78.0.1:$PORT --key $KEY >"$T/serve.out" 2>"$T/serve.err" &
spid=$!
at_exit "kill $spid 2>/dev/null"
i=0; while [ $i -lt 50 ] && ! grep -q listening "$T/serve.out"; do sleep 0.1; i=$((i+1)); done
check "serve listens, says the protocol version and that a key is required" out_has "$T/serve.out" "listening on 10.78.0.1:$PORT (protocol 1), key required"

inB() { ip netns exec $B "$@"; }
inB "$SB" run net.connect net.accept net.request net.stream net.rr net.udp --peer 10.78.0.1:$PORT --key $KEY \
	-p mech=epoll -p sender=send --dir "$T/target" --max-n 20 --budget 0.03 -q -o "$T/peer.json" >"$T/peer.out" 2>&1
check "run --peer exits 0" test $? -eq 0
check "run --peer: every bench ok; net.accept skipped with a reason" jtrue "$T/peer.json" "every(b['status'] == 'ok' for b in d['benches'] if b['name'] != 'net.accept') and $(B net.accept)['status'] == 'skipped'"
check "run --peer: points and the peer recorded" jtrue "$T/peer.json" "every(len(r['points']) >= 2 for b in d['benches'] if b['status'] == 'ok' for r in b['repetitions']) and d['options']['net']['peer'] == '10.78.0.1:$PORT'"
check "run --peer: stream data reached the peer" jtrue "$T/peer.json" "every(p['extra']['stream']['received_bytes'] > 0 for r in $(B net.stream)['repetitions'] for p in r['points'])"

inB "$SB" run net.request -p mech=epoll --peer 10.78.0.1:$PORT --key wrong --dir "$T/target" --max-n 5 --budget 0.01 -q -o "$T/bad.json" >"$T/bad.out" 2>&1
check "wrong key: refused, recorded as a failure" jtrue "$T/bad.json" "d['benches'][0]['status'] == 'failed' and 'refused' in d['benches'][0]['repetitions'][0]['failure']['call']"
check "wrong key: serve says so" out_has "$T/serve.err" "key refused"
inB "$SB" run net.request -p mech=epoll --peer 10.78.0.1:$PORT --dir "$T/target" --max-n 5 --budget 0.01 -q -o "$T/nokey.json" >/dev/null 2>&1
check "no key: refused" jtrue "$T/nokey.json" "d['benches'][0]['status'] == 'failed'"

# A raw control client: sends each argument (\n-terminated unless it ends
# in \0), prints each reply line, and "EOF" when the server closes.
cat >"$T/ctl.py" <<'PY'
import socket, sys, time
s = socket.create_connection(("10.78.0.1", int(sys.argv[1])), timeout=5)
hold = sys.argv[2] == "hold"
for m in sys.argv[3:]:
    data = m.encode().decode("unicode_escape").encode("latin-1")
    s.sendall(data if data.endswith(b"\0") else data + b"\n")
    time.sleep(0.05)
buf = b""
s.settimeout(0.7)
try:
    while True:
        c = s.recv(4096)
        if not c:
            buf += b"EOF\n"
            break
        buf += c
        if hold and buf.count(b"\n") >= len(sys.argv) - 3:
            break
except socket.timeout:
    buf += b"TIMEOUT\n"
except ConnectionResetError:
    buf += b"RESET\n"
sys.stdout.write(buf.decode("latin-1"))
if hold:
    sys.stdout.flush()
    time.sleep(2)
PY
ctl() { inB python3 "$T/ctl.py" $PORT "$@" 2>&1; }
expect() { # expect DESC PATTERN [ARGS...]: the replies match PATTERN
	d=$1; pat=$2; shift 2
	out=$(ctl once "$@" | tr '\n' '|')
	if echo "$out" | grep -q -- "$pat"; then echo "ok - $d"; else echo "not ok - $d (got: $out)"; fi
}
expect "garbage: ERR malformed, then closed" "^ERR malformed.*|EOF|$" 'GET / HTTP/1.0'
expect "binary garbage: ERR, then closed" "^ERR malformed.*EOF" '\x01\x02\xff\xfe'
expect "oversized line: ERR oversized, then closed" "^ERR oversized.*EOF" "HELLO 1 $(head -c 3000 /dev/zero | tr '\0' x)"
expect "oversized without a newline: ERR oversized, then closed" "^ERR oversized.*EOF" "$(head -c 2000 /dev/zero | tr '\0' y)\\0"
expect "wrong protocol version: ERR version" "^ERR version.*EOF" "HELLO 2 $KEY"
expect "unknown command after HELLO: ERR, then closed" "^OK 1.*|ERR malformed.*EOF" "HELLO 1 $KEY" "FROBNICATE"
expect "malformed START: ERR, then closed" "^OK 1.*|ERR malformed START.*EOF" "HELLO 1 $KEY" "START mode=shell mech=epoll"
expect "a client that starts a server and vanishes" "^OK 1.*|READY port=" "HELLO 1 $KEY" "START mode=echo mech=epoll family=4 maxconn=10 seconds=60"
expect "serve keeps serving after all that" "^OK 1.*|PONG" "HELLO 1 $KEY" "PING"

# one controlling client at a time
ctl hold "HELLO 1 $KEY" >"$T/first.out" &
hpid=$!
sleep 0.5
expect "a second client while one controls: ERR busy" "^ERR busy" "HELLO 1 $KEY"
wait $hpid
check "the first client was served" out_has "$T/first.out" "^OK 1"
expect "after the first left, the next is served" "^OK 1.*|PONG" "HELLO 1 $KEY" "PING"

inB "$SB" run net.rr --peer 10.78.0.1:$PORT --key $KEY --dir "$T/target" --max-n 4 --budget 0.02 -q -o "$T/again.json" >/dev/null 2>&1
check "a run after the misbehaving clients still works" jtrue "$T/again.json" "d['benches'][0]['status'] == 'ok'"
check "serve is still running" kill -0 $spid
kill -INT $spid
wait $spid
check "serve exits 0 on SIGINT" test $? -eq 0
check "serve says how many sessions and refusals" out_has "$T/serve.err" "stopped ([0-9]* sessions, [1-9][0-9]* refused keys)"
sleep 0.2
check "no process left" no_procs "serve --listen 10.78.0.1:$PORT"
