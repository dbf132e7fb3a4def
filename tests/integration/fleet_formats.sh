#!/bin/sh
# SPDX-License-Identifier: MIT
# The formats of kernel-testing systems (docs/fleet.md): show and run
# write KCIDB v4 JSON (validated with python3-jsonschema against a subset
# of the published schema), KTAP, LAVA lava-test-case lines and lkp
# `key: value` lines; statuses follow the bench's status, or compare's word
# with --baseline; bad input exits 2.
. "$(dirname "$0")/lib.sh"
FC="$(dirname "$0")/helpers/fleetcheck.py"
D="$(dirname "$0")/../data"
fc() { python3 "$FC" "$@"; }

if ! python3 -c 'import jsonschema' 2>/dev/null; then
	skip "fleet formats: python3-jsonschema not installed"; exit 0
fi
# fixtures: slow.json is base.json with fs.stat made slower
for f in kcidb ktap lava lkp; do
	"$SB" show "$D/slow.json" --format $f >"$T/s.$f" 2>"$T/e.$f"; rc=$?
	check "show FILE --format $f: exit 0, the published format" sh -c '[ $1 = 0 ] && python3 "$2" $3 "$4"' _ $rc "$FC" $f "$T/s.$f"
done
check "kcidb: one test per bench with its file system, PASS without a baseline" fc kcidb "$T/s.kcidb" scalebench.fs.stat.xfs=PASS,scalebench.net.bind=PASS
check "kcidb: cost at the largest N as number (value, unit ns), p99 and exponent as child tests" jtrue "$T/s.kcidb" \
	"[t['number'] for t in d['tests'] if t['path'] == 'scalebench.fs.stat.xfs'] == [{'value': 1970.8, 'unit': 'ns'}] and any(t['path'] == 'scalebench.fs.stat.xfs.p99' for t in d['tests']) and 'number' in [t for t in d['tests'] if t['path'] == 'scalebench.fs.stat.xfs.exponent'][0]"
check "kcidb: the verdict as text, the checkout names the snapshot's kernel" jtrue "$T/s.kcidb" \
	"d['tests'][0]['misc']['verdict'] == 'O(1)' and d['checkouts'][0]['misc']['kernel_release'] == '6.18.44-fc-v1147' and 'O(1)' in d['tests'][0]['comment']"
check "ktap: dotted path with the file system in brackets" fc ktap "$T/s.ktap" "scalebench.fs.stat[xfs]=ok,scalebench.net.bind=ok"
check "lava: measurement in ns" grep -qx "lava-test-case scalebench.fs.stat.xfs --result pass --measurement 1970.8 --units ns" "$T/s.lava"
check "lkp: cost, p99, exponent and verdict keys" sh -c 'grep -qx "scalebench.fs.stat\[xfs\].cost_ns: 1970.8" "$1" && grep -q "^scalebench.fs.stat\[xfs\].p99_ns: " "$1" && grep -q "^scalebench.fs.stat\[xfs\].exponent: " "$1" && grep -qx "scalebench.fs.stat\[xfs\].verdict: O(1)" "$1"' _ "$T/s.lkp"

# --baseline: compare's word decides (these fixtures have one repetition a
# side: judged on their samples with --strict; without, the word is
# "insufficient" and the status DONE)
"$SB" show "$D/slow.json" --format kcidb --baseline "$D/base.json" >"$T/ins.kcidb" 2>/dev/null
check "--baseline, one repetition a side: DONE, not FAIL" fc kcidb "$T/ins.kcidb" scalebench.fs.stat.xfs=DONE
for f in kcidb ktap lava lkp; do
	"$SB" show "$D/slow.json" --format $f --baseline "$D/base.json" --strict >"$T/b.$f" 2>"$T/eb.$f"
done
check "--baseline: the slower bench fails in kcidb" fc kcidb "$T/b.kcidb" scalebench.fs.stat.xfs=FAIL,scalebench.fs.stat.xfs.p99=FAIL
check "--baseline: not ok in ktap" fc ktap "$T/b.ktap" "scalebench.fs.stat[xfs]=not ok"
check "--baseline: fail in lava" fc lava "$T/b.lava" scalebench.fs.stat.xfs=fail
check "--baseline: fail in lkp" fc lkp "$T/b.lkp" "scalebench.fs.stat[xfs]=fail"
"$SB" show "$D/base.json" --format ktap --baseline "$D/base.json" >"$T/self.ktap"
check "--baseline itself: ok" fc ktap "$T/self.ktap" "scalebench.fs.stat[ext4]=ok,scalebench.net.bind=ok"

# a real run: -f on run, stored and shown back by id
mkdir -p "$T/target"
DB="$T/h.db"
"$SB" run fs.stat net.bind --dir "$T/target" --max-n 10 --budget 0.005 -q --db "$DB" -f kcidb >"$T/r.kcidb" 2>"$T/er"; rc=$?
check "run -f kcidb: exit 0 and valid" sh -c '[ $1 = 0 ] && python3 "$2" kcidb "$3"' _ $rc "$FC" "$T/r.kcidb"
fst=$(stat -f -c %T "$T/target" 2>/dev/null)
check "run -f kcidb: the build names this kernel" jtrue "$T/r.kcidb" "d['builds'][0]['misc']['kernel_release'] == '$(uname -r)'"
check "run -f kcidb: fs.stat carries the target's file system" jtrue "$T/r.kcidb" \
	"len([t for t in d['tests'] if t['path'].startswith('scalebench.fs.stat.') and not t['path'].endswith(('.p99', '.exponent'))]) == 1"
"$SB" show 1 --db "$DB" --format ktap >"$T/r.ktap"; rc=$?
check "show ID --format ktap: two tests" sh -c '[ $1 = 0 ] && python3 "$2" ktap "$3" && grep -qx "1..2" "$3"' _ $rc "$FC" "$T/r.ktap"
"$SB" run fs.stat --dir "$T/target" --max-n 10 --budget 0.005 -q --no-db -f lava >"$T/r.lava"
check "run -f lava" fc lava "$T/r.lava"
"$SB" run fs.stat --dir "$T/target" --max-n 10 --budget 0.005 -q --no-db -f lkp >"$T/r.lkp"
check "run -f lkp" fc lkp "$T/r.lkp"
check "the scratch area is gone" empty_dir "$T/target"

# matrix: one test per file system; the kernel from the targets' snapshots
if is_root; then
	mkdir -p "$T/m"
	"$SB" matrix --fs ext4,tmpfs fs.stat --max-n 10 --budget 0.005 --dir "$T/m" -q --db "$DB" -f ktap >"$T/m.ktap" 2>"$T/em"; rc=$?
	check "matrix -f ktap: a test per file system" sh -c '[ $1 = 0 ] && python3 "$2" ktap "$3" "scalebench.fs.stat[ext4]=ok,scalebench.fs.stat[tmpfs]=ok" && grep -q "Linux $4\$" "$3"' _ $rc "$FC" "$T/m.ktap" "$(uname -r)"
	mid=$("$SB" history --db "$DB" --limit 1 --format json | jget /dev/stdin "d[0]['id']")
	"$SB" show "$mid" --db "$DB" --format kcidb >"$T/m.kcidb"
	check "matrix run shown as kcidb: valid, the build names this kernel" sh -c 'python3 "$1" kcidb "$2" scalebench.fs.stat.ext4=PASS,scalebench.fs.stat.tmpfs=PASS && grep -q "\"kernel_release\": \"$3\"" "$2"' _ "$FC" "$T/m.kcidb" "$(uname -r)"
	check "history --kernel finds the matrix run" sh -c '"$1" history --db "$2" --kernel "$(uname -r)" --format json | grep -q "\"id\": $3,"' _ "$SB" "$DB" "$mid"
	check "matrix left nothing in --dir" empty_dir "$T/m"
else
	skip "fleet formats: matrix needs root"
fi

# bad input
"$SB" show "$D/slow.json" --format text --baseline "$D/base.json" >/dev/null 2>"$T/e1"; rc=$?
check "--baseline with --format text: exit 2, says why" sh -c '[ $1 = 2 ] && grep -q "baseline needs" "$2"' _ $rc "$T/e1"
"$SB" show "$D/slow.json" --format ktap --baseline "$T/nosuch.json" >/dev/null 2>"$T/e2"; rc=$?
check "--baseline that cannot be read: exit 2, names it" sh -c '[ $1 = 2 ] && grep -q "nosuch.json" "$2"' _ $rc "$T/e2"
"$SB" show "$D/slow.json" --format tap >/dev/null 2>"$T/e3"; rc=$?
check "unknown format: exit 2" test $rc = 2
"$SB" show "$T/nosuch.json" --format ktap >/dev/null 2>"$T/e4"; rc=$?
check "a result file that does not exist: exit 2, names it" sh -c '[ $1 = 2 ] && grep -q "nosuch.json" "$2"' _ $rc "$T/e4"

# The test paths, in one file ready to propose to KCIDB's catalog
# (fleet/kernelci/tests.yaml): one key, scalebench, as the catalog wants;
# every path of every KCIDB document above is of the form it describes and
# of a family it lists; every family of `scalebench list` is listed.
CAT="$(dirname "$0")/../../fleet/kernelci/tests.yaml"
if python3 -c 'import yaml' 2>/dev/null; then
	"$SB" list | awk 'NR > 1 && $1 ~ /\./ { split($1, a, "."); print a[1] }' | sort -u >"$T/families"
	python3 "$(dirname "$0")/helpers/kcidbcat.py" "$CAT" "$T/families" "$T"/*.kcidb >"$T/cat.out" 2>&1
	check "fleet/kernelci/tests.yaml: the catalog's form, every path written is one it lists, every family listed" test $? = 0
	sed 's/^/#   /' "$T/cat.out" | tail -3
else
	skip "fleet formats: the KCIDB catalog entry needs python3-yaml"
fi
