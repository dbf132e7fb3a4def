# SPDX-License-Identifier: MIT
# The PostgreSQL history backend against a real server that this test
# starts itself (Debian's postgresql): initdb into the scratch directory as
# the postgres user, a unix socket there and no TCP, stopped and removed at
# the end. Two runs stored, listed, shown back equal, compared by id.
. "$(dirname "$0")/lib.sh"
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if ! is_root; then
	skip "postgresql: needs root to run the server as the postgres user"; exit 0
fi
if [ -z "$PGBIN" ] || ! id postgres >/dev/null 2>&1; then
	skip "postgresql: server not installed (Debian package postgresql)"; exit 0
fi
pg_start postgresql 5432 30 # the default port: the URLs below name none

mkdir -p "$T/target"
quick() { "$SB" run --dir "$T/target" --max-n 10 --budget 0.005 -q --db "$URL" "$@"; }
quick fs.stat net.bind -o "$T/r1.json" >/dev/null 2>"$T/e1"; r1=$?
quick fs.stat -o "$T/r2.json" >/dev/null 2>"$T/e2"; r2=$?
check "two runs stored into postgresql (exit 0)" test $r1 -eq 0 -a $r2 -eq 0
[ $r1 -eq 0 ] || cat "$T/e1"
check "history lists both, newest first" sh -c '[ "$("$1" history --db "$2" --format json | python3 -c "import json,sys; print([r[\"id\"] for r in json.load(sys.stdin)])")" = "[2, 1]" ]' _ "$SB" "$URL"
check "history --bench filters" sh -c '[ "$("$1" history --db "$2" --bench net.bind | wc -l)" = 2 ]' _ "$SB" "$URL"
"$SB" show 1 --db "$URL" --format json >"$T/s1.json"
check "show 1 equals the first run's file" python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' "$T/s1.json" "$T/r1.json"
check "compare by ids from postgresql" sh -c '"$1" compare 1 1 --db "$2" | grep -q "0 slower"' _ "$SB" "$URL"
check "the schema is versioned" sh -c 'runuser -u postgres -- "$1/psql" -h "$2" -At -c "SELECT max(version) FROM schema_migrations" postgres | grep -qx 1' _ "$PGBIN" "$PGD"
check "per-point rows stored" sh -c '[ "$(runuser -u postgres -- "$1/psql" -h "$2" -At -c "SELECT count(*) FROM points" postgres)" -gt 5 ]' _ "$PGBIN" "$PGD"
# the noise floor from a PostgreSQL history: r1, r2 and a third run earlier than r4
quick fs.stat -o "$T/r3.json" >/dev/null 2>&1 && quick fs.stat -o "$T/r4.json" >/dev/null 2>&1
check "history --spread from postgresql: fs.stat over 4 runs" sh -c '"$1" history --db "$2" --spread | grep -Eq "fs\.stat +4 +[0-9]+ +[0-9.]+%"' _ "$SB" "$URL"
"$SB" compare "$T/r1.json" "$T/r4.json" --noise-floor --db "$URL" -f json >"$T/nf.json" 2>/dev/null
check "compare --noise-floor from postgresql: fs.stat's floor over 3 earlier runs" jtrue "$T/nf.json" "[b for b in d['comparisons'][0]['benches'] if b['name'] == 'fs.stat'][0]['noise_floor']['runs'] == 3"
"$SB" history --db "postgresql://postgres:secret@/nosuchdb?host=$PGD" >/dev/null 2>"$T/e3"; rc=$?
check "unknown database: exit 1, password not shown" sh -c '[ $1 = 1 ] && grep -q "nosuchdb" "$2" && ! grep -q secret "$2"' _ $rc "$T/e3"
