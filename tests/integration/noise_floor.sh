#!/bin/sh
# SPDX-License-Identifier: MIT
# compare --noise-floor on a real SQLite history: four runs of fs.stat (3
# repetitions each, on tmpfs when /dev/shm is one) give history --spread a
# run-to-run spread and compare a floor from the earlier runs of the same
# host, kernel and file system. A shift within the floor is "same" (exit
# 0), a shift far beyond it still SLOWER (exit 3); with too few earlier
# runs, or no database, compare says so and keeps its threshold.
# tier: fast (tests/run.sh --fast, make test)
. "$(dirname "$0")/lib.sh"
H="$(dirname "$0")/helpers"
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	TG=$(mktemp -d /dev/shm/sbnoise.XXXXXX)
	at_exit "rm -rf '$TG'"
else
	TG="$T/target"
	mkdir -p "$TG"
fi
DB="$T/h.db"
for i in 1 2 3 4; do
	"$SB" run fs.stat --dir "$TG" --max-n 20 --budget 0.01 -r 3 -q --db "$DB" -o "$T/r$i.json" >/dev/null 2>&1
done
check "four runs of fs.stat with 3 repetitions, stored" sh -c '[ "$("$1" history --db "$2" --format json | grep -c "\"id\":")" = 4 ] && jget -t "$3" "every(len(b[\"repetitions\"]) == 3 for b in d[\"benches\"])"' _ "$SB" "$DB" "$T/r4.json"

"$SB" history --db "$DB" --spread >"$T/sp" 2>&1
check "history --spread: one fs.stat row over 4 runs with a spread in %" grep -Eq "fs\.stat +4 +[0-9]+ +[0-9.]+%" "$T/sp"
"$SB" history --db "$DB" --spread --format json >"$T/sp.json" 2>&1
check "history --spread --format json: runs 4, a finite spread, this host" jtrue "$T/sp.json" "len(d) == 1 and d[0]['bench'] == 'fs.stat' and d[0]['runs'] == 4 and d[0]['points'] >= 3 and d[0]['spread_pct'] >= 0 and d[0]['host'] == '$(hostname)'"
check "history --spread --bench other: no rows" sh -c '"$1" history --db "$2" --spread --bench net.bind 2>&1 | grep -q "no runs match"' _ "$SB" "$DB"

# The floor of run 4: the 3 runs before it (never itself)
"$SB" compare "$T/r1.json" "$T/r4.json" --noise-floor --db "$DB" -f json >"$T/c.json" 2>"$T/c.err"
NF="d['comparisons'][0]['benches'][0]['noise_floor']"
check "compare --noise-floor: fs.stat's floor from the 3 earlier runs, floor = expm1(3 x spread)" jtrue "$T/c.json" "$NF['runs'] == 3 and $NF['note'] is None and $NF['k'] == 3 and abs($NF['floor_pct'] - 100 * __import__('math').expm1(3 * $NF['spread_pct'] / 100)) < 1e-9"
check "compare --noise-floor text: a floor line" sh -c '"$1" compare "$2" "$3" --noise-floor --db "$4" | grep -Eq "^fs\.stat +floor +run-to-run spread [0-9.]+% over 3 earlier runs"' _ "$SB" "$T/r1.json" "$T/r4.json" "$DB"

# Doctored copies of run 4 (same host, kernel, file system; repetitions 1%
# apart, so that only the floor can decide): a 1.3x shift, and a 3x one.
python3 "$H/doctor.py" "$T/r4.json" "$T/a.json" --replicate 3
python3 "$H/doctor.py" "$T/a.json" "$T/s13.json" --factor 1.3
python3 "$H/doctor.py" "$T/a.json" "$T/s3.json" --factor 3
sp=$(jget "$T/c.json" "d['comparisons'][0]['benches'][0]['noise_floor']['spread_pct']")
# K that puts the floor at 50%: 1.3x is within it, 3x far beyond it
K=$(python3 -c "import math; s = max($sp, 0.05) / 100; print(min(1000, round(math.log(1.5) / s, 3)))")
"$SB" compare "$T/a.json" "$T/s13.json" >/dev/null 2>&1; rc=$?
check "1.3x slower without a floor: exit 3" test $rc -eq 3
"$SB" compare "$T/a.json" "$T/s13.json" --noise-floor --floor-k "$K" --db "$DB" -f json >"$T/f13.json" 2>/dev/null; rc=$?
check "1.3x slower within a floor of ~50% (--floor-k $K): exit 0" test $rc -eq 0
BB="d['comparisons'][0]['benches'][0]"
check "... the word same, the floor used as the threshold" jtrue "$T/f13.json" "$BB['word'] == 'same' and $BB['noise_floor']['used'] and $BB['noise_floor']['threshold_pct'] > 30"
"$SB" compare "$T/a.json" "$T/s3.json" --noise-floor --floor-k "$K" --db "$DB" >"$T/f3" 2>&1; rc=$?
check "3x slower, far beyond that floor: exit 3, SLOWER" sh -c '[ $1 = 3 ] && grep -q "=> SLOWER" "$2" && grep -q "floor.*: the threshold" "$2"' _ $rc "$T/f3"
"$SB" compare "$T/a.json" "$T/s3.json" --noise-floor --db "$DB" >/dev/null 2>&1; rc=$?
check "3x slower with the default floor (k 3): exit 3" test $rc -eq 3
"$SB" compare "$T/a.json" "$T/s13.json" --noise-floor --floor-k "$K" --floor-runs 5 --db "$DB" >"$T/few" 2>&1; rc=$?
check "--floor-runs 5 with 3 earlier runs: no floor: 3 runs, the threshold decides (exit 3)" sh -c '[ $1 = 3 ] && grep -q "no floor: 3 runs" "$2"' _ $rc "$T/few"
"$SB" compare "$T/a.json" "$T/s13.json" --noise-floor --db "$T/none.db" >"$T/nodb" 2>&1; rc=$?
check "no history database: said, the threshold decides (exit 3), nothing created" sh -c '[ $1 = 3 ] && grep -q "no noise floor for" "$2" && grep -q "no floor: 0 runs" "$2" && [ ! -e "$3" ]' _ $rc "$T/nodb" "$T/none.db"
"$SB" compare --latest-per-host --baseline-host x --noise-floor --db "$DB" >/dev/null 2>"$T/lp"; rc=$?
check "--noise-floor with --latest-per-host: exit 2, named" sh -c '[ $1 = 2 ] && grep -q noise-floor "$2"' _ $rc "$T/lp"
"$SB" report "$T/r4.json" "$T/r1.json" --noise-floor --db "$DB" -o "$T/rep.html" 2>"$T/rep.err"; rc=$?
check "report --noise-floor: exit 0, the baseline's floor drawn as a band" sh -c '[ $1 = 0 ] && grep -q "class=\"floor\"" "$2" && grep -q "grey: noise floor +-" "$2"' _ $rc "$T/rep.html"
"$SB" report "$T/r4.json" "$T/r1.json" -o "$T/rep0.html" 2>/dev/null
check "report without --noise-floor: no band" sh -c '! grep -q "class=\"floor\"" "$1"' _ "$T/rep0.html"
"$SB" report "$T/r4.json" --noise-floor --floor-runs 5 --db "$DB" -o "$T/rep1.html" 2>/dev/null
check "report --noise-floor --floor-runs 5 (3 earlier runs): no band" sh -c '! grep -q "class=\"floor\"" "$1"' _ "$T/rep1.html"
"$SB" compare "$T/a.json" "$T/s13.json" --floor-k 0 >/dev/null 2>"$T/k0"; rc=$?
check "--floor-k 0: exit 2" test $rc -eq 2
