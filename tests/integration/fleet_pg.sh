#!/bin/sh
# SPDX-License-Identifier: MIT
# Many hosts, one PostgreSQL (docs/fleet.md): 20 scalebench processes,
# each labelled as a host of its own (--host-label), store into one fresh
# server at once: nothing is lost, the server logs no lock wait longer than
# 2 s (log_lock_waits), and history, compare --latest-per-host and report
# --latest-per-host query across the hosts. The server is Debian's
# postgresql, started in the scratch directory on a socket of its own.
. "$(dirname "$0")/lib.sh"
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if ! is_root; then
	skip "fleet postgresql: needs root to run the server as the postgres user"; exit 0
fi
if [ -z "$PGBIN" ] || ! id postgres >/dev/null 2>&1; then
	skip "fleet postgresql: server not installed (Debian package postgresql)"; exit 0
fi
pg_start "fleet postgresql" $((20000 + $$ % 20000)) 60 \
	-c log_lock_waits=on -c deadlock_timeout=2s -c max_connections=60

N=20
i=0 pids=""
while [ $i -lt $N ]; do
	mkdir -p "$T/t$i"
	"$SB" run fs.stat net.bind --dir "$T/t$i" --max-n 10 --budget 0.005 --in-process \
		--db "$URL" --host-label "host-$i" -o "$T/r$i.json" >/dev/null 2>"$T/e$i" &
	pids="$pids $!"
	i=$((i + 1))
done
fails=0
for p in $pids; do wait "$p" || fails=$((fails + 1)); done
check "$N concurrent runs into one database: all exit 0" test $fails = 0
[ $fails = 0 ] || cat "$T"/e* | head -20
"$SB" history --db "$URL" --format json >"$T/h.json"
check "every run stored: $N rows, $N distinct hosts" jtrue "$T/h.json" "len(d) == $N and len(set(r['host'] for r in d)) == $N"
check "each run says it was stored" sh -c 'cat "$1"/e* | grep -c "stored as run" | grep -qx '$N _ "$T"
check "the schema was made once (one migration row)" sh -c '[ "$(runuser -u postgres -- "$1/psql" -h "$2" -p "$3" -At -c "SELECT count(*) FROM schema_migrations" postgres)" = 1 ]' _ "$PGBIN" "$PGD" "$PORT"
check "no writer waited 2 s for a lock (server log)" sh -c '! grep -q "still waiting for" "$1"' _ "$PGD/log"
grep "still waiting for" "$PGD/log" | head -3

id7=$("$SB" history --db "$URL" --host host-7 --format json | python3 -c 'import json,sys; print([r["id"] for r in json.load(sys.stdin)])')
"$SB" show "$(echo "$id7" | tr -d '[]')" --db "$URL" --format json >"$T/s7.json" 2>/dev/null
check "history --host host-7: one run, shown back equal to its file" python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' "$T/s7.json" "$T/r7.json"
check "history --kernel this kernel: all $N" sh -c '[ "$("$1" history --db "$2" --kernel "$(uname -r)" | wc -l)" = '$((N + 1))' ]' _ "$SB" "$URL"
fst=$(jget "$T/r0.json" "d['snapshot']['filesystem']['type']")
check "history --fs $fst --bench net.bind: all $N; --fs nofs: none" sh -c '[ "$("$1" history --db "$2" --fs "$3" --bench net.bind | wc -l)" = '$((N + 1))' ] && "$1" history --db "$2" --fs nofs 2>&1 | grep -q "no runs match"' _ "$SB" "$URL" "$fst"

# one host runs again: the selection takes its latest run
"$SB" run fs.stat --dir "$T/t0" --max-n 10 --budget 0.005 -q --in-process --db "$URL" --host-label host-3 >/dev/null 2>&1
latest3=$("$SB" history --db "$URL" --host host-3 --limit 1 --format json | jget /dev/stdin "d[0]['id']")
"$SB" compare --latest-per-host --baseline-host host-0 --db "$URL" >"$T/cmp.txt" 2>"$T/cmp.err"; rc=$?
check "compare --latest-per-host: exit 0 or 3 (a regression), a table" sh -c '[ $1 = 0 -o $1 = 3 ] && grep -q "^host  *kernel  *fs.stat  *net.bind" "$2"' _ $rc "$T/cmp.txt"
check "compare --latest-per-host: one row per other host" sh -c '[ "$(grep -c "^host-[0-9]* #" "$1")" = '$((N - 1))' ] && ! grep -q "^host-0 #" "$1"' _ "$T/cmp.txt"
check "compare --latest-per-host: host-3's latest run, without net.bind" grep -Eq "^host-3 #$latest3 .* (same|slower|faster|noisy|insufficient) [-+][0-9.]+% +- *$" "$T/cmp.txt"
"$SB" compare --latest-per-host --baseline-host host-0 --db "$URL" --format json >"$T/cmp.json"; rcj=$?
check "compare --latest-per-host --format json: the same word, regression agrees with the exit" jtrue "$T/cmp.json" \
	"len(d['hosts']) == $((N - 1)) and d['benches'] == ['fs.stat', 'net.bind'] and d['regression'] == ($rcj == 3) and all(h['benches']['fs.stat']['word'] in ('same', 'slower', 'faster', 'noisy', 'insufficient') for h in d['hosts'])"
"$SB" compare --latest-per-host --baseline-host nosuch --db "$URL" >/dev/null 2>"$T/e1"; rc=$?
check "--baseline-host that has no run: exit 2, names it" sh -c '[ $1 = 2 ] && grep -q "nosuch" "$2"' _ $rc "$T/e1"
"$SB" report --latest-per-host --baseline-host host-5 --db "$URL" --format csv >"$T/rep.csv"; rc=$?
check "report --latest-per-host: one input per host, the baseline host first" sh -c '[ $1 = 0 ] && [ "$(cut -d, -f1 "$2" | sed 1d | sort -u | wc -l)" = '$N' ] && sed -n 2p "$2" | grep -q "^host-5 #"' _ $rc "$T/rep.csv"
"$SB" report --latest-per-host --db "$URL" --kernel "$(uname -r)" -o "$T/rep.html"; rc=$?
check "report --latest-per-host html: every host named" sh -c '[ $1 = 0 ] && for i in $(seq 0 19); do grep -q "host-$i #" "$2" || exit 1; done' _ $rc "$T/rep.html"
