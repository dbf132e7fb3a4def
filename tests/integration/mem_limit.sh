#!/bin/sh
# SPDX-License-Identifier: MIT
# Workloads larger than the page cache: fs.fileserver's writing phases end
# with a timed syncfs and say how much of the data set fit the dirty-page
# thresholds; `--mem-limit SIZE` runs the workers in a memory cgroup (made
# below our own, removed at the end and on Ctrl-C), where the phase shows
# the limit being hit and writeback during the phase.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/d"
"$SB" run fs.fileserver --mem-limit 1Q --dir "$T/d" >"$T/o" 2>"$T/e"
check "bad --mem-limit: exit 2, named" sh -c '[ $1 -eq 2 ] && grep -q "mem-limit" "$2"' _ $? "$T/e"
"$SB" run fs.fileserver --mem-limit 64M --in-process --dir "$T/d" >"$T/o" 2>"$T/e"
check "--mem-limit with --in-process: exit 2" sh -c '[ $1 -eq 2 ] && grep -q "worker processes" "$2"' _ $? "$T/e"
check "--help documents --mem-limit" sh -c '"$1" run --help | grep -q -- "--mem-limit SIZE"' _ "$SB"

# without a limit: the sync is part of each writing phase, the fit is said
"$SB" run fs.fileserver -n 1 -p files=500 --no-db -q --dir "$T/d" -o "$T/plain.json" >/dev/null 2>"$T/plain.err"
check "plain run exits 0" test $? -eq 0
P="d['benches'][0]['repetitions'][0]['points'][0]['extra']['phases']"
check "writing phases end with a timed syncfs counted in the phase" jtrue "$T/plain.json" \
	"all($P[ph]['durability']['sync_s'] >= 0 and abs($P[ph]['durability']['durable_s'] - $P[ph]['seconds']) < 0.05 for ph in ('populate', 'overwrite', 'delete'))"
check "the read phase has no sync" jtrue "$T/plain.json" "'durability' not in $P['read']"
check "how much of the data set fit the dirty-page thresholds" jtrue "$T/plain.json" \
	"(lambda x: x['dataset_bytes'] > 0 and 0 < x['fit']['dirty_limit'] <= 1 and x['dirty_limits']['limit_bytes'] > x['dirty_limits']['background_bytes'] > 0)($P['populate']['durability'])"
check "no cgroup without --mem-limit" jtrue "$T/plain.json" "d['options']['mem_limit'] is None and 'cgroup' not in $P['populate']['durability']"

if ! is_root; then
	"$SB" run fs.fileserver --mem-limit 64M --dir "$T/d" >"$T/o" 2>"$T/e"
	check "not root: --mem-limit is refused with exit 2" sh -c '[ $1 -eq 2 ] && grep -q "needs root" "$2"' _ $? "$T/e"
	skip "memory-limited runs (need root)"
	exit 0
fi
cgdirs() { find /sys/fs/cgroup -maxdepth 8 -type d -name "scalebench-$1" 2>/dev/null; }

# 64 MiB for a data set of some 240 MB
"$SB" run fs.fileserver -n 1 -p files=3000 -p max_kib=400 --mem-limit 64M --no-db -q --dir "$T/d" \
	-o "$T/mem.json" >/dev/null 2>"$T/mem.err" &
pid=$!
wait $pid
rc=$?
check "memory-limited run exits 0" test $rc -eq 0
[ $rc -eq 0 ] || cat "$T/mem.err" >&2
check "the result names the limit and the cgroup" jtrue "$T/mem.json" \
	"d['options']['mem_limit']['bytes'] == 64 << 20 and d['options']['mem_limit']['cgroup'].endswith('/scalebench-$pid')"
check "populate: the cgroup's limit held only part of the data set" jtrue "$T/mem.json" \
	"0 < $P['populate']['durability']['fit']['cgroup_limit'] < 0.5"
check "populate: the limit was hit (reclaim and writeback in the cgroup)" jtrue "$T/mem.json" \
	"$P['populate']['durability']['cgroup']['limit_hits'] > 0"
check "populate: dirty data in the cgroup stayed under its limit" jtrue "$T/mem.json" \
	"0 <= $P['populate']['durability']['cgroup']['dirty_at_sync_bytes'] <= 64 << 20"
check "populate: data was written back during the phase, not only by the sync" jtrue "$T/mem.json" \
	"$P['populate']['durability']['system']['written_in_phase_bytes'] > 0"
check "the cgroup is gone after the run" sh -c '[ -z "$(find /sys/fs/cgroup -maxdepth 8 -type d -name "scalebench-$1")" ]' _ $pid

# Ctrl-C while the workload runs in the cgroup
"$SB" run fs.fileserver -n 1 -p files=20000 -p reads=10000000 --mem-limit 64M --no-db -q --dir "$T/d" \
	-o "$T/int.json" >/dev/null 2>"$T/int.err" &
pid=$!
at_exit "kill $pid 2>/dev/null"
i=0; while [ $i -lt 100 ] && [ -z "$(cgdirs $pid)" ]; do sleep 0.1; i=$((i+1)); done
cg=$(cgdirs $pid)
check "a cgroup was made before the signal" test -n "$cg"
i=0; while [ $i -lt 100 ] && [ ! -s "$cg/cgroup.procs" ]; do sleep 0.1; i=$((i+1)); done
check "the worker runs in it" sh -c '[ -n "$(cat "$1/cgroup.procs")" ] && ! grep -qx "$2" "$1/cgroup.procs"' _ "$cg" $pid
sleep 1
kill -INT $pid
wait $pid
rc=$?
check "Ctrl-C: exit 130" test $rc -eq 130
check "Ctrl-C: the cgroup is gone" test ! -e "$cg"
check "Ctrl-C: scratch directory removed" empty_dir "$T/d"
