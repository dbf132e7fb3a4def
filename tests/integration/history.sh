# SPDX-License-Identifier: MIT
# The history database: runs stored by default and with --db, listed and
# filtered by history, shown back as the same JSON document, concurrent
# runs both stored, a failing database leaving the run's JSON intact, and
# damaged rows or files reported, never crashing.
# tier: fast (tests/run.sh --fast, make test)
. "$(dirname "$0")/lib.sh"
H="$(dirname "$0")/helpers"
mkdir -p "$T/target"
quick() { "$SB" run --dir "$T/target" --max-n 10 --budget 0.005 -q "$@"; }
# runs listed by `history --format json` (python's start-up is slow: grep)
rows() { grep -c '"id":'; }

# default location: $XDG_DATA_HOME/scalebench/results.db
"$SB" run fs.stat --dir "$T/target" --max-n 10 --budget 0.005 -o "$T/d.json" >/dev/null 2>"$T/err"; rc=$?
check "run stores into the default database" test $rc -eq 0 -a -f "$XDG_DATA_HOME/scalebench/results.db"
check "run says where it stored" grep -q "stored as run 1 in $XDG_DATA_HOME/scalebench/results.db" "$T/err"
check "history lists it from the default database" sh -c '"$1" history | grep -q "^ *1  "' _ "$SB"
XDG_DATA_HOME="$T/xdg2" quick fs.stat --no-db >/dev/null 2>&1
check "--no-db stores nothing" test ! -e "$T/xdg2/scalebench/results.db"

# two runs into an explicit database
DB="$T/h.db"
quick fs.stat net.bind --db "$DB" -o "$T/r1.json" >/dev/null 2>&1 && quick fs.stat --db "$DB" -o "$T/r2.json" >/dev/null 2>&1
check "two runs stored" test "$("$SB" history --db "$DB" --format json | rows)" = 2
"$SB" history --db "$DB" >"$T/hist" 2>&1
check "history text: header and two rows" sh -c '[ "$(wc -l <"$1")" = 3 ] && grep -q "fs.stat net.bind" "$1"' _ "$T/hist"
check "history --bench filters" sh -c '"$1" history --db "$2" --bench net.bind >"$3" && [ "$(wc -l <"$3")" = 2 ] && grep -q "^ *1  " "$3"' _ "$SB" "$DB" "$T/hb"
check "history --host filters" sh -c '"$1" history --db "$2" --host no-such-host 2>&1 | grep -q "no runs match"' _ "$SB" "$DB"
quick fs.stat --db "$DB" --host-label "lab-7" -o "$T/r3.json" >/dev/null 2>&1
check "--host-label: the result records it, and the real name in options.hostname" jtrue "$T/r3.json" "d['host'] == 'lab-7' and d['options']['hostname'] == '$(hostname)'"
check "history --host selects the labelled run" sh -c '"$1" history --db "$2" --host lab-7 --format json | grep -c "\"id\":" | grep -qx 1' _ "$SB" "$DB"
check "history --kernel: this kernel lists all three, another none" sh -c '[ "$("$1" history --db "$2" --kernel "$(uname -r)" | wc -l)" = 4 ] && "$1" history --db "$2" --kernel 0.0-none 2>&1 | grep -q "no runs match"' _ "$SB" "$DB"
fst=$(jget "$T/r3.json" "d['snapshot']['filesystem']['type']")
check "history --fs: the target's type lists all three, another none" sh -c '[ "$("$1" history --db "$2" --fs "$3" | wc -l)" = 4 ] && "$1" history --db "$2" --fs nofs 2>&1 | grep -q "no runs match"' _ "$SB" "$DB" "$fst"
check "history --host --bench together" sh -c '"$1" history --db "$2" --host lab-7 --bench net.bind 2>&1 | grep -q "no runs match"' _ "$SB" "$DB"
"$SB" compare --latest-per-host --baseline-host lab-7 --db "$DB" >"$T/fc" 2>&1; rc=$?
check "compare --latest-per-host (SQLite): exit 0 or 3, one row for the other host" sh -c '[ $1 = 0 -o $1 = 3 ] && [ "$(grep -c "^$3 #2 " "$2")" = 1 ] && grep -q "1 host(s) against lab-7 #3" "$2"' _ $rc "$T/fc" "$(hostname)"
"$SB" compare --latest-per-host --db "$DB" >/dev/null 2>"$T/fe"; rc=$?
check "compare --latest-per-host without --baseline-host: exit 2" sh -c '[ $1 = 2 ] && grep -q "baseline-host" "$2"' _ $rc "$T/fe"
"$SB" compare --latest-per-host --baseline-host lab-7 1 2 --db "$DB" >/dev/null 2>&1; rc=$?
check "compare --latest-per-host with RESULTs: exit 2" test $rc = 2
"$SB" compare --latest-per-host --baseline-host lab-7 --kernel 0.0-none --db "$DB" >/dev/null 2>"$T/fe"; rc=$?
check "compare --latest-per-host matching nothing: exit 2, says so" sh -c '[ $1 = 2 ] && grep -q "no stored run matches" "$2"' _ $rc "$T/fe"
check "report --latest-per-host (SQLite): one input per host" sh -c '[ "$("$1" report --latest-per-host --db "$2" --format csv | cut -d, -f1 | sed 1d | sort -u | wc -l)" = 2 ]' _ "$SB" "$DB"
"$SB" run fs.stat --dir "$T/target" --no-db --host-label "two words" >/dev/null 2>"$T/hl"; rc=$?
check "--host-label with a space: exit 2, says why" sh -c '[ $1 = 2 ] && grep -q "host-label" "$2"' _ $rc "$T/hl"
check "history --since in the future lists nothing" sh -c '[ -z "$("$1" history --db "$2" --since 2999-01-01 2>/dev/null)" ]' _ "$SB" "$DB"
check "history --since in the past lists all three" sh -c '[ "$("$1" history --db "$2" --since 2000-01-01 | wc -l)" = 4 ]' _ "$SB" "$DB"
check "history --since rejects a non-date (exit 2)" sh -c '"$1" history --db "$2" --since yesterday; [ $? = 2 ]' _ "$SB" "$DB"

# show ID gives the document back
"$SB" show 1 --db "$DB" --format json >"$T/show1.json"
"$SB" show 2 --db "$DB" --format json >"$T/show2.json"
python3 -c 'import json,sys; l=lambda f: json.load(open(f)); a=sys.argv[1:]; print(l(a[0]) == l(a[1]), l(a[2]) == l(a[3]), sum(len(r["points"]) for b in l(a[1])["benches"] for r in b["repetitions"]))' \
	"$T/show1.json" "$T/r1.json" "$T/show2.json" "$T/r2.json" >"$T/eq"
read -r eq1 eq2 npts <"$T/eq"
check "show --format json equals the run's file" test "$eq1" = True
check "show of the second run equals its file" test "$eq2" = True
check "show text is the summary" sh -c '"$1" show 1 --db "$2" | grep -q "^fs.stat "' _ "$SB" "$DB"
check "show --format csv: header + one row per point" sh -c '[ "$("$1" show 1 --db "$2" --format csv | wc -l)" = $(($3 + 1)) ]' _ "$SB" "$DB" "$npts"
check "show of a missing id: exit 1, says so" sh -c '"$1" show 99 --db "$2" 2>"$3"; [ $? = 1 ] && grep -q "no run 99" "$3"' _ "$SB" "$DB" "$T/e"
check "show without an id: exit 2" sh -c '"$1" show --db "$2" 2>/dev/null; [ $? = 2 ]' _ "$SB" "$DB"

# two runs at once into one database: both land
n0=$("$SB" history --db "$DB" --format json | rows)
quick fs.stat --db "$DB" >/dev/null 2>"$T/c1" & p1=$!
quick net.bind --db "$DB" >/dev/null 2>"$T/c2" & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
check "concurrent runs both exit 0" test $r1 -eq 0 -a $r2 -eq 0
check "concurrent runs both stored" test "$("$SB" history --db "$DB" --format json | rows)" -eq $((n0 + 2))

# a writer holding the database: the run waits (busy timeout), then lands
python3 -c '
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE"); open(sys.argv[2], "w").close(); time.sleep(1.5); c.execute("COMMIT")
' "$DB" "$T/locked" & lp=$!
while [ ! -e "$T/locked" ]; do sleep 0.05; done
quick fs.stat --db "$DB" >/dev/null 2>"$T/busy"; rb=$?
wait $lp
check "a run waits for a locked database and is stored" test $rb -eq 0 -a "$("$SB" history --db "$DB" --format json | rows)" -eq $((n0 + 3))
check "the database passes its integrity check" sh -c 'python3 -c "import sqlite3,sys; sys.exit(sqlite3.connect(sys.argv[1]).execute(\"PRAGMA integrity_check\").fetchone()[0] != \"ok\")" "$1"' _ "$DB"

# the database cannot be written: the JSON is still written, exit 1, says why
quick fs.stat --db "$T/nodir/x.db" -o "$T/r3.json" >/dev/null 2>"$T/e3"; rc=$?
check "unwritable database: exit 1" test $rc -eq 1
check "unwritable database: result file still written" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/r3.json"
check "unwritable database: stderr names it" grep -q "not stored in the history: $T/nodir/x.db" "$T/e3"

# a file that is not a database
head -c 3000 /dev/urandom >"$T/junk.db"
"$SB" history --db "$T/junk.db" >/dev/null 2>"$T/e4"; rc=$?
check "junk database file: exit 1 with its name" sh -c '[ $1 = 1 ] && grep -q "junk.db" "$2"' _ $rc "$T/e4"

# damaged rows: truncated JSON, a wrong schema version, a hostile document
python3 -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE runs SET document = substr(document, 1, 200) WHERE id = 1")
c.execute("UPDATE runs SET document = ? WHERE id = 2", ("{\"schema_version\": 99}",))
c.execute("UPDATE runs SET document = ? WHERE id = 3", ("{\"schema_version\":1,\"tool\":{\"version\":\"x\"},\"benches\":[{\"name\":\"a\",\"version\":1,\"status\":\"ok\",\"verdict\":{\"class\":\"O(1)\",\"reason\":\"\"},\"repetitions\":[{\"verdict\":{\"class\":\"O(1)\",\"reason\":\"\"},\"points\":[{\"n\":-5}]}]}]}",))
c.commit()' "$DB"
for id in 1 2 3; do
	"$SB" show $id --db "$DB" >/dev/null 2>"$T/e$id"; rc=$?
	check "damaged row $id: exit 1, names the database and run" sh -c '[ $1 = 1 ] && grep -q "h.db: run $2: stored document" "$3"' _ $rc $id "$T/e$id"
done
check "truncated row: says it is not valid JSON" grep -q "not valid JSON" "$T/e1"
check "wrong version row: names the version" grep -q "schema_version 99" "$T/e2"
check "hostile row: names the field" grep -q "points\[0\].n" "$T/e3"
"$SB" compare 1 4 --db "$DB" >/dev/null 2>"$T/e5"; rc=$?
check "compare of a damaged row: exit 2, names it" sh -c '[ $1 = 2 ] && grep -q "run 1" "$2"' _ $rc "$T/e5"
"$SB" history --db "$T/missing.db" >/dev/null 2>"$T/e6"; rc=$?
check "history of a database that does not exist: exit 1, says so, creates nothing" sh -c '[ $1 = 1 ] && grep -q "missing.db: no history database here" "$2" && [ ! -e "$3" ]' _ $rc "$T/e6" "$T/missing.db"

# killed in the middle of writing its run (strace delivers SIGKILL at the
# 20th pwrite: past the shared-memory set-up, inside the write-ahead log
# frames, before the commit): the database keeps the runs it had, passes
# its integrity check, and takes the next run
if command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null; then
	K="$T/k.db"
	quick fs.stat --db "$K" >/dev/null 2>&1
	strace -o "$T/strace.log" -e trace=pwrite64 -e inject=pwrite64:signal=SIGKILL:when=20 \
		"$SB" run fs.stat net.bind --dir "$T/target" --max-n 5 --budget 0.002 -q --db "$K" -o "$T/k.json" >/dev/null 2>&1
	check "killed mid-write: the run died during the store" grep -q "killed by SIGKILL" "$T/strace.log"
	check "killed mid-write: the result file was written before" test -s "$T/k.json"
	check "killed mid-write: only the earlier run is listed" test "$("$SB" history --db "$K" --format json | rows)" = 1
	check "killed mid-write: integrity check ok" sh -c 'python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); sys.exit(c.execute(\"PRAGMA integrity_check\").fetchone()[0] != \"ok\" or c.execute(\"SELECT count(*) FROM benches\").fetchone()[0] != 1)" "$1"' _ "$K"
	quick fs.stat --db "$K" >/dev/null 2>&1
	check "killed mid-write: the next run is stored" test "$("$SB" history --db "$K" --format json | rows)" = 2
else
	skip "killed mid-write (strace missing or not allowed to trace)"
fi
