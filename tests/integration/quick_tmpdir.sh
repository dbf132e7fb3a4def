# SPDX-License-Identifier: MIT
# A small run of every bench in a plain temporary directory: JSON result
# with every bench, points, verdicts, snapshot; nothing left behind.
# tier: fast (tests/run.sh --fast, make test)
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/target"
"$SB" run --dir "$T/target" --max-n 50 --budget 0.02 -p files=100 -q -o "$T/r.json" >"$T/out" 2>"$T/err"
rc=$?
check "run exits 0" test $rc -eq 0
for b in fs.create fs.open fs.stat fs.unlink proc.fork mem.mmap net.socket net.bind; do
	check "summary has a line for $b" out_has "$T/out" "^$b "
done
check "result names schema 1" jtrue "$T/r.json" "d['schema_version'] == 1"
# (rt.wakeup's N indexes its 8 load levels: it stops at the last)
check "every bench measured is swept to 50 (rt.wakeup to its last level, 8)" jtrue "$T/r.json" "every(max(p['n'] for r in b['repetitions'] for p in r['points']) == (8 if b['name'] == 'rt.wakeup' else 50) for b in d['benches'] if b['status'] != 'skipped')"
# a category axis (rt.wakeup's load kinds) has no growth class: its tail per kind
check "every bench measured has a verdict class (a category axis its tail per kind)" jtrue "$T/r.json" "every(b['verdict']['class'] in ('O(1)','O(log n)','O(n)','O(n log n)','worse','unclear') if b.get('axis_kind') != 'category' else bool(b.get('category_tail', {}).get('categories')) for b in d['benches'] if b['status'] != 'skipped')"
check "every skipped bench says why" jtrue "$T/r.json" "all(b.get('skip_reason') for b in d['benches'] if b['status'] == 'skipped')"
check "points carry p99, CI, rusage and a histogram summing to the samples" jtrue "$T/r.json" "every(p['stats']['p99_ns'] > 0 and len(p['stats']['median_ci95_ns']) == 2 and 'sys_s' in p['per_op'] and sum(c for i, c in p['histogram']['bins']) == p['samples'] for b in d['benches'] for r in b['repetitions'] for p in r['points'])"
check "snapshot has kernel, cpu, memory, filesystem, limits" jtrue "$T/r.json" "every(k in d['snapshot'] for k in ('kernel', 'cpu', 'memory', 'filesystem', 'limits'))"
check "clock read cost recorded" jtrue "$T/r.json" "d['clock']['read_cost_ns'] > 0"
check "command line and options recorded" jtrue "$T/r.json" "d['command_line'][1] == 'run' and d['options']['max_n'] == 50"
check "target directory left empty" empty_dir "$T/target"
check "no process left" no_procs "$T/target"
"$SB" run fs.stat --dir "$T/target" --max-n 5 --budget 0.01 -q --format json >"$T/stdout.json" 2>/dev/null
check "--format json prints the result on stdout" jtrue "$T/stdout.json" "d['benches'][0]['name'] == 'fs.stat'"
# fork copies the forking process: the result says how big it is (Linux),
# and the binary is linked so that children never enter the dynamic linker
if [ "$(jget "$T/r.json" "d['snapshot']['impl']")" = linux ]; then
	check "proc.fork notes the forking process's mappings and memory" jtrue "$T/r.json" "any(__import__('re').match(r'the forking process: [1-9][0-9]* mappings, [1-9][0-9]* KiB anonymous resident$', n) for n in $(B proc.fork).get('notes', []))"
	if command -v readelf >/dev/null; then
		check "the binary is linked with immediate binding (-z now)" sh -c "readelf -d '$SB' | grep -q 'BIND_NOW'"
	fi
fi
# What benches create has the modes a default umask gives (the kernel's
# permission check is faster on them), whatever the user's umask; the
# scratch directory above it stays private.
mkdir -p "$T/modes"
(umask 077; exec "$SB" run fs.stat --dir "$T/modes" --max-n 20000 --repeat 5 --budget 0.05 -q -o "$T/modes.json" >/dev/null 2>&1) &
pid=$!
i=0
while [ $i -lt 500 ] && ! [ -e "$T"/modes/scalebench.*/fs.stat.1/e0 ]; do sleep 0.01; i=$((i + 1)); done
modes=$(stat -c %a "$T"/modes/scalebench.* "$T"/modes/scalebench.*/fs.stat.1 "$T"/modes/scalebench.*/fs.stat.1/e0 2>/dev/null | tr '\n' ' ')
if [ -r /proc/$pid/maps ]; then # SQLite is loaded to store the result, not while benches run
	check "SQLite is not mapped while the benches run" sh -c "grep -q scalebench /proc/$pid/maps && ! grep -q libsqlite3 /proc/$pid/maps"
	command -v nm >/dev/null && check "SQLite is not linked into the binary" sh -c "nm '$SB' | grep -q ' T main$' && ! nm '$SB' | grep -q ' T sqlite3_open_v2$'"
fi
kill -INT $pid
wait $pid
check "under umask 077: scratch 700, bench directory 755, entry 644 (got: $modes)" test "$modes" = "700 755 644 "
(umask 077; "$SB" run fs.stat --dir "$T/modes" --max-n 1 --budget 0.01 -q --no-db -o "$T/modes2.json" >/dev/null 2>&1)
check "the user's umask still applies to the result file" test "$(stat -c %a "$T/modes2.json")" = 600
