#!/bin/sh
# SPDX-License-Identifier: MIT
# work.round2 on a small tree in a tmpfs (and on a loop-mounted ext4 when
# root): every phase present with sane figures; the HTTP server, held up
# with hold_s, refuses "..", dot names, symbolic links out of the tree,
# other methods, oversized heads and connections over max_conns; Ctrl-C during the hold removes the
# tree, the tars and the server; nothing left behind.
. "$(dirname "$0")/lib.sh"
if ! "$SB" list | grep -q '^work.round2 .*available\|^work.round2 ' || "$SB" list | grep '^work.round2 ' | grep -qi unavailable; then
	skip "work.round2 not in this build"; exit 0
fi

if is_root; then
	mkdir -p "$T/tmpfs"
	mount -t tmpfs -o size=768m "sbtest-r2-$$" "$T/tmpfs" && at_exit "umount '$T/tmpfs'"
	D="$T/tmpfs"
elif [ -d /dev/shm ] && [ -w /dev/shm ]; then
	D=$(mktemp -d /dev/shm/sbtest-r2.XXXXXX) && at_exit "rm -rf '$D'"
else
	skip "work.round2 (needs root or a writable /dev/shm)"; exit 0
fi

phases_ok() { # phases_ok TAG FILE DIR: the checks of one measured point
	P="$(B work.round2)['repetitions'][0]['points'][-1]['extra']['phases']"
	check "$1: bench ran (status ok, one point at N=1000)" jtrue "$2" "$(B work.round2)['status'] == 'ok' and $(B work.round2)['repetitions'][0]['points'][-1]['n'] == 1000"
	check "$1: every phase present" jtrue "$2" "all(k in $P for k in ('make', 'unpack', 'serve_c4', 'serve_o4', 'unpack_over', 'delete', 'server'))"
	check "$1: unpack extracted 1000 files + 10 directories" jtrue "$2" "$P['unpack']['files'] == 1010 and $P['unpack']['files_s'] > 0 and $P['unpack']['bytes'] > 1000 * 2048"
	check "$1: unpack has a throughput series" jtrue "$2" "len($P['unpack']['files_s_series']) >= 1 and sum($P['unpack']['files_s_series']) > 0"
	check "$1: unpack over extracted 10-40% of the names" jtrue "$2" "100 <= $P['unpack_over']['files'] <= 400"
	check "$1: delete removed every entry (1000 + 10 + the tree)" jtrue "$2" "$P['delete']['files'] == 1011"
	check "$1: closed loop served requests without error, p99 > 0" jtrue "$2" "$P['serve_c4']['requests_s'] > 100 and $P['serve_c4']['errors'] == 0 and $P['serve_c4']['p99_us'] > 0"
	check "$1: open loop ran at about its rate" jtrue "$2" "$P['serve_o4']['mode'] == 'open' and $P['serve_o4']['files'] > 0"
	# beside the unpack over a request may fall between the disk writer's
	# unlink and re-create of its file: a 404, counted by both sides
	check "$1: HTTP ran beside the unpack over, open-loop" jtrue "$2" "$P['serve_during_over']['mode'] == 'open' and $P['serve_during_over']['conns'] == 4 and $P['serve_during_over']['files'] > 0"
	check "$1: every client error there is a refusal the server counted" jtrue "$2" "$P['serve_during_over']['errors'] <= $P['server']['refused']"
	check "$1: the server counted what the clients got" jtrue "$2" "$P['server']['requests'] >= $P['serve_c4']['files'] + $P['serve_o4']['files'] + $P['serve_during_over']['files']"
	check "$1: nothing left in the target" empty_dir "$3"
}

"$SB" run work.round2 -p layout=dirs -p conns=4 -p serve_ms=200 -n 1000 --min-n 1000 --quick --no-db -q \
	--dir "$D" -o "$T/dirs.json" >"$T/dirs.out" 2>"$T/dirs.err"
rc=$?
check "dirs layout: exit 0" test $rc -eq 0
[ $rc -eq 0 ] || cat "$T/dirs.err"
phases_ok tmpfs "$T/dirs.json" "$D"

# too small a target: a skip with the reason, nothing written
"$SB" run work.round2 -p layout=flat -n 1000000 --min-n 1000000 --no-db -q --dir "$D" -o "$T/big.json" >/dev/null 2>&1
check "a tree that does not fit is skipped with the reason" jtrue "$T/big.json" "$(B work.round2)['status'] == 'skipped' and 'free' in $(B work.round2)['skip_reason']"
check "nothing left after the skip" empty_dir "$D"

# the server held up: what it refuses
"$SB" run work.round2 -p layout=flat -p conns=2 -p serve_ms=100 -p hold_s=60 -p max_conns=4 -n 1000 --min-n 1000 --quick --no-db -q \
	--dir "$D" -o "$T/hold.json" >"$T/hold.out" 2>"$T/hold.err" &
sbpid=$!
at_exit "kill -9 $sbpid 2>/dev/null"
i=0
while [ $i -lt 300 ] && ! grep -q 'serving http' "$T/hold.err"; do sleep 0.1; i=$((i + 1)); done
port=$(sed -n 's/.*serving http:\/\/127\.0\.0\.1:\([0-9]*\)\/ tree \([^ ]*\) .*/\1/p' "$T/hold.err" | head -1)
tree=$(sed -n 's/.*serving http:\/\/127\.0\.0\.1:\([0-9]*\)\/ tree \([^ ]*\) .*/\2/p' "$T/hold.err" | head -1)
if [ -z "$port" ]; then
	echo "not ok - held server printed its address"; cat "$T/hold.err"
else
	echo "ok - held server printed its address"
	ln -s /etc/passwd "$tree/evil"
	cat >"$T/probe.py" <<'PY'
import socket, sys
port = int(sys.argv[1])
def ask(raw):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(raw)
    got = b""
    while b"\r\n\r\n" not in got:
        c = s.recv(4096)
        if not c:
            break
        got += c
    s.close()
    return got.split(b"\r\n", 1)[0].decode(errors="replace")
checks = [
    (b"GET /f0000000 HTTP/1.1\r\nHost: x\r\n\r\n", "200"),
    (b"GET /../../etc/passwd HTTP/1.1\r\n\r\n", "403"),
    (b"GET /f0000000/.. HTTP/1.1\r\n\r\n", "403"),
    (b"GET /evil HTTP/1.1\r\n\r\n", "403"),
    (b"GET /nosuchfile HTTP/1.1\r\n\r\n", "404"),
    (b"POST /f0000000 HTTP/1.1\r\n\r\n", "405"),
    (b"GET /f0000000 HTTP/1.1\r\nX: " + b"a" * 9000 + b"\r\n\r\n", "431"),
]
bad = 0
for raw, want in checks:
    line = ask(raw)
    ok = line.split(" ")[1:2] == [want]
    print(("ok" if ok else "not ok") + " - server answers %s to %r (%s)" % (want, raw[:30], line))
    bad += not ok
# keep-alive: two requests on one connection
s = socket.create_connection(("127.0.0.1", port), timeout=10)
s.sendall(b"GET /f0000001 HTTP/1.1\r\n\r\nGET /f0000002 HTTP/1.1\r\n\r\n")
data = b""
while data.count(b"HTTP/1.1 200") < 2:
    c = s.recv(1 << 16)
    if not c:
        break
    data += c
s.close()
print(("ok" if data.count(b"HTTP/1.1 200") == 2 else "not ok") + " - two requests answered on one keep-alive connection")
# the connection bound (max_conns=4): four held open, the fifth refused
import time
time.sleep(0.3)  # the closed probes above are gone from the server
held = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(4)]
time.sleep(0.3)
line = ask(b"GET /f0000000 HTTP/1.1\r\n\r\n")
print(("ok" if line.startswith("HTTP/1.1 503") else "not ok") + " - a connection over max_conns gets 503 (%s)" % line)
for h in held:
    h.close()
PY
	python3 "$T/probe.py" "$port"
fi
kill -INT $sbpid 2>/dev/null
wait $sbpid
rc=$?
check "Ctrl-C during the hold: exit 130" test $rc -eq 130
check "Ctrl-C removed the tree and the tars" empty_dir "$D"
check "no process of this run left (none names its target)" no_procs "$D"

if is_root && command -v mkfs.ext4 >/dev/null; then
	truncate -s 1G "$T/ext4.img"
	mkfs.ext4 -q -F "$T/ext4.img"
	loop=$(losetup -f --show "$T/ext4.img") && at_exit "losetup -d $loop"
	mkdir -p "$T/ext4"
	mount "$loop" "$T/ext4" && at_exit "umount '$T/ext4'"
	"$SB" run work.round2 -p layout=dirs -p conns=4 -p serve_ms=200 -n 1000 --min-n 1000 --quick --no-db -q \
		--dir "$T/ext4" -o "$T/ext4.json" >/dev/null 2>"$T/ext4.err"
	check "ext4: exit 0" test $? -eq 0
	phases_ok ext4 "$T/ext4.json" "$T/ext4"
	check "ext4: the journal's figures are recorded" jtrue "$T/ext4.json" "'jbd2_transactions' in $(B work.round2)['repetitions'][0]['points'][-1]['extra']['phases']['unpack']"
else
	skip "work.round2 on ext4 (needs root and mkfs.ext4)"
fi
