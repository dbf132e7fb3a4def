# SPDX-License-Identifier: MIT
# serve + run --peer across two namespaces made by this test (root): the
# benches run against the peer; a wrong or missing key is refused (the key
# never crosses the wire, a captured HELLO replayed is refused, a wrong key
# gets the same answer in the same time whatever it is); garbage, oversized
# and out-of-turn control messages get "ERR" and that connection closes;
# a version-1 client gets a clear error; one session at a time (ERR busy,
# exit 2); a data port refuses another host; serve keeps serving through
# all of it and stops cleanly on SIGINT.
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
i=0; while [ $i -lt 50 ] && ! grep -q listening "$T/serve.out" 2>/dev/null; do sleep 0.1; i=$((i+1)); done
check "serve listens, says the protocol version and that a key is required" out_has "$T/serve.out" "listening on 10.78.0.1:$PORT (protocol 2), key required"

inB() { ip netns exec $B "$@"; }
inB "$SB" run net.connect net.accept net.request net.stream net.rr net.udp --peer 10.78.0.1:$PORT --key $KEY \
	-p mech=epoll -p sender=send --dir "$T/target" --max-n 20 --budget 0.03 -q -o "$T/peer.json" >"$T/peer.out" 2>&1
check "run --peer exits 0" test $? -eq 0
# the control traffic a client sends (sendto: not the pipe to its worker);
# its exit status is strace's business (LeakSanitizer cannot run traced)
if command -v strace >/dev/null; then
	inB strace -f -e trace=sendto -s 400 -o "$T/sent.trace" "$SB" run net.rr --peer 10.78.0.1:$PORT --key $KEY \
		--dir "$T/target" --max-n 2 --budget 0.02 -q -o "$T/traced.json" >/dev/null 2>&1
	check "the client sent its challenge-response (HELLO 2, AUTH)" sh -c "grep -q 'HELLO 2 [0-9a-f]\{64\}' '$T/sent.trace' && grep -q 'AUTH [0-9a-f]\{64\}' '$T/sent.trace'"
	check "the key never crossed the wire" sh -c "! grep -q -- '$KEY' '$T/sent.trace'"
	ST=1
else
	skip "the key never crossed the wire (needs strace)"; ST=""
fi
check "run --peer: every bench ok; net.accept skipped with a reason" jtrue "$T/peer.json" "every(b['status'] == 'ok' for b in d['benches'] if b['name'] != 'net.accept') and $(B net.accept)['status'] == 'skipped'"
# (the sweeps' own repetitions: net.request decides by default, and a
# --decide round cut short by its time cap may add a repetition of one point)
check "run --peer: points and the peer recorded" jtrue "$T/peer.json" "every(len(r['points']) >= 2 for b in d['benches'] if b['status'] == 'ok' for r in b['repetitions'][:d['options']['repeat']]) and d['options']['net']['peer'] == '10.78.0.1:$PORT'"
check "run --peer: stream data reached the peer" jtrue "$T/peer.json" "every(p['extra']['stream']['received_bytes'] > 0 for r in $(B net.stream)['repetitions'] for p in r['points'])"

inB "$SB" run net.request -p mech=epoll --peer 10.78.0.1:$PORT --key wrong --dir "$T/target" --max-n 5 --budget 0.01 -q -o "$T/bad.json" >"$T/bad.out" 2>&1
check "wrong key: run exits 2, an unusable peer" test $? -eq 2
check "wrong key: the client says the key was refused" out_has "$T/bad.out" "^scalebench run: --peer 10.78.0.1:$PORT: HELLO refused by the peer: key refused"
check "wrong key: no result written" test ! -e "$T/bad.json"
check "wrong key: serve says so" out_has "$T/serve.err" "key refused"
inB "$SB" run net.request -p mech=epoll --peer 10.78.0.1:$PORT --dir "$T/target" --max-n 5 --budget 0.01 -q -o "$T/nokey.json" >"$T/nokey.out" 2>&1
check "no key: refused, exit 2" sh -c "test $? -eq 2 && grep -q 'key refused' '$T/nokey.out'"

# A raw control client: sends each argument (\n-terminated unless it ends
# in \0), prints each reply line, and "EOF" when the server closes.
cat >"$T/ctl.py" <<'PY'
import hashlib, hmac, os, socket, sys, time
s = socket.create_connection(("10.78.0.1", int(sys.argv[1])), timeout=5)
hold = sys.argv[2] == "hold"
buf = b""
def readline():
    global pending
    while b"\n" not in pending:
        c = s.recv(4096)
        if not c:
            raise EOFError
        pending += c
    line, pending = pending.split(b"\n", 1)
    return line
pending = b""
for m in sys.argv[3:]:
    if m.startswith("@auth="): # the challenge-response of protocol 2 with this key
        key = m[6:].encode()
        cn = os.urandom(32)
        s.sendall(b"HELLO 2 " + cn.hex().encode() + b"\n")
        try:
            line = readline()
            buf += line + b"\n"
            if line.startswith(b"CHALLENGE "):
                sn = bytes.fromhex(line[10:].decode())
                s.sendall(b"AUTH " + hmac.new(key, sn + cn, hashlib.sha256).hexdigest().encode() + b"\n")
                line = readline()
                ok = line.split()
                if ok[:1] == [b"OK"] and hmac.compare_digest(ok[2].decode(), hmac.new(key, cn + sn, hashlib.sha256).hexdigest()):
                    line = b"OK-PROVEN " + line
                buf += line + b"\n"
        except EOFError:
            buf += b"EOF\n"
            break
        continue
    data = m.encode().decode("unicode_escape").encode("latin-1")
    s.sendall(data if data.endswith(b"\0") else data + b"\n")
    time.sleep(0.05)
buf += pending
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
expect "a version-1 client (key in clear): ERR version naming protocol 2" "^ERR version: this server speaks protocol 2.*EOF" "HELLO 1 $KEY"
expect "a HELLO 2 without a nonce: ERR malformed" "^ERR malformed: HELLO 2 wants a nonce.*EOF" "HELLO 2"
expect "AUTH with garbage: ERR malformed" "^CHALLENGE [0-9a-f]*|ERR malformed: expected AUTH.*EOF" "HELLO 2 $(printf '%064d' 7)" "AUTH zz"
expect "right key: OK 2 with the server's proof" "^CHALLENGE [0-9a-f]*|OK-PROVEN OK 2 [0-9a-f]\{64\} scalebench" "@auth=$KEY" "PING"
expect "wrong key: ERR key refused" "^CHALLENGE [0-9a-f]*|ERR key refused|EOF" "@auth=nope"
expect "unknown command after HELLO: ERR, then closed" "OK 2.*|ERR malformed.*EOF" "@auth=$KEY" "FROBNICATE"
expect "malformed START: ERR, then closed" "OK 2.*|ERR malformed START.*EOF" "@auth=$KEY" "START mode=shell mech=epoll"
expect "a client that starts a server and vanishes" "OK 2.*|READY port=" "@auth=$KEY" "START mode=echo mech=epoll family=4 maxconn=10 seconds=60"
expect "serve keeps serving after all that" "OK 2.*|PONG" "@auth=$KEY" "PING"

# one session at a time
ctl hold "@auth=$KEY" >"$T/first.out" &
hpid=$!
sleep 0.5
expect "a second authenticated client during a session: ERR busy" "^CHALLENGE.*|ERR busy: another client's session is running.*EOF" "@auth=$KEY"
inB "$SB" run net.rr --peer 10.78.0.1:$PORT --key $KEY --dir "$T/target" --max-n 4 -q -o "$T/busy.json" >"$T/busy.out" 2>&1
check "run during a session: exit 2, busy (not refused), no result" sh -c "test $? -eq 2 && grep -q '^scalebench run: --peer 10.78.0.1:$PORT: busy: another client' '$T/busy.out' && ! grep -qi 'refused\|denied' '$T/busy.out' && test ! -e '$T/busy.json'"
wait $hpid
check "the first client was served" out_has "$T/first.out" "OK-PROVEN OK 2"
expect "after the first left, the next is served" "OK 2.*|PONG" "@auth=$KEY" "PING"

# a captured exchange replayed: the server's nonce is new, the AUTH stale
if [ -n "$ST" ]; then
	hello=$(grep -o 'HELLO 2 [0-9a-f]\{64\}' "$T/sent.trace" | head -1)
	auth=$(grep -o 'AUTH [0-9a-f]\{64\}' "$T/sent.trace" | head -1)
	expect "a captured HELLO and AUTH replayed: ERR key refused" "^CHALLENGE [0-9a-f]*|ERR key refused|EOF" "$hello" "$auth"
fi

# a wrong key says nothing about the right one: the same bytes back, in the
# same time, whether it is empty, unrelated, or the right key but its last
# character
cat >"$T/timing.py" <<'PY'
import hashlib, hmac, os, socket, statistics, sys, time
port, keys = int(sys.argv[1]), sys.argv[2:]
res = {}
for rnd in range(15):
    for k in keys:
        s = socket.create_connection(("10.78.0.1", port), timeout=5)
        f = s.makefile("rb")
        cn = os.urandom(32)
        s.sendall(b"HELLO 2 " + cn.hex().encode() + b"\n")
        sn = bytes.fromhex(f.readline()[10:].strip().decode())
        auth = b"AUTH " + hmac.new(k.encode(), sn + cn, hashlib.sha256).hexdigest().encode() + b"\n"
        t = time.perf_counter()
        s.sendall(auth)
        reply = f.readline()
        res.setdefault(k, []).append((time.perf_counter() - t, reply))
        s.close()
replies = {r for v in res.values() for _, r in v}
med = [statistics.median(t for t, _ in v) for v in res.values()]
print("replies", sorted(replies))
print("medians_ms", " ".join("%.3f" % (m * 1000) for m in med))
# same answer; medians within 5 ms of each other (the machine is shared)
sys.exit(0 if replies == {b"ERR key refused\n"} and max(med) - min(med) < 0.005 else 1)
PY
inB python3 "$T/timing.py" $PORT "" "other-$$" "${KEY%?}x" >"$T/timing.out" 2>&1
check "wrong keys (empty, unrelated, one character off): the same ERR key refused, medians within 5 ms" test $? -eq 0

# the data port accepts only the controlling client's host
cat >"$T/data.py" <<'PY'
import hashlib, hmac, os, socket, sys, time
port, key, mode = int(sys.argv[1]), sys.argv[2].encode(), sys.argv[3]
def ack(p):
    d = socket.create_connection(("10.78.0.1", p), timeout=3)
    try:
        return d.recv(1) == b"A"
    except OSError:
        return False
if mode == "other": # another host: just connect to the port given
    print("ack" if ack(port) else "refused")
    sys.exit(0)
s = socket.create_connection(("10.78.0.1", port), timeout=5)
f = s.makefile("rb")
cn = os.urandom(32)
s.sendall(b"HELLO 2 " + cn.hex().encode() + b"\n")
sn = bytes.fromhex(f.readline()[10:].strip().decode())
s.sendall(b"AUTH " + hmac.new(key, sn + cn, hashlib.sha256).hexdigest().encode() + b"\n")
f.readline()
s.sendall(b"START mode=echo mech=poll family=4 maxconn=10 seconds=30\n")
ready = f.readline().decode().strip()
p = int(ready.split("port=")[1])
print("port", p, flush=True)
print("own", "ack" if ack(p) else "refused", flush=True)
time.sleep(3)
s.sendall(b"STOP\n")
print(f.readline().decode().strip(), flush=True)
PY
inB python3 "$T/data.py" $PORT $KEY own >"$T/data.out" 2>&1 &
dpid=$!
i=0; while [ $i -lt 30 ] && ! grep -q "^own" "$T/data.out" 2>/dev/null; do sleep 0.1; i=$((i+1)); done
dport=$(sed -n 's/^port //p' "$T/data.out")
ip netns exec $A python3 "$T/data.py" "${dport:-1}" x other >"$T/other.out" 2>&1
wait $dpid
check "data port: the controlling client's host is accepted" out_has "$T/data.out" "^own ack"
check "data port: another host (10.78.0.1) is refused" out_has "$T/other.out" "^refused"
check "data port: the server counted the refusal" out_has "$T/data.out" "^DONE .*refused=1"

inB "$SB" run net.rr --peer 10.78.0.1:$PORT --key $KEY --dir "$T/target" --max-n 4 --budget 0.02 -q -o "$T/again.json" >/dev/null 2>&1
check "a run after the misbehaving clients still works" jtrue "$T/again.json" "d['benches'][0]['status'] == 'ok'"
check "serve is still running" kill -0 $spid
kill -INT $spid
wait $spid
check "serve exits 0 on SIGINT" test $? -eq 0
check "serve says how many sessions and refusals" out_has "$T/serve.err" "stopped ([0-9]* sessions, [1-9][0-9]* refused keys, [1-9][0-9]* busy"
sleep 0.2
check "no process left" no_procs "serve --listen 10.78.0.1:$PORT"
