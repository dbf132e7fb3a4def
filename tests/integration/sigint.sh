# SPDX-License-Identifier: MIT
# SIGINT mid-run: exit 130, the partial result is written and valid, the
# scratch directory and every sleeping child process are gone. Three ways:
# a SIGINT sent to scalebench alone (it forwards it to the bench's worker
# process), a Ctrl-C (SIGINT to the whole process group: scalebench and
# the worker both get it), and a run with --in-process (no worker).
# --ci 0.1 is narrower than one histogram bucket (the median's CI is never
# tighter than the bucket holding it), so every point spends its whole
# 2 s budget: the sweep to N=200 takes 16 s and cannot finish before the
# signal, however quick the machine (it did in 3 of 12 runs with --ci 2).
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/target"

# interrupt HOW [options]: HOW = process | group
interrupt() {
	how=$1; shift
	rm -f "$T/r.json"
	setsid "$SB" run proc.fork fs.create --dir "$T/target" --max-n 200 --budget 2 --ci 0.1 -q -o "$T/r.json" "$@" \
		>"$T/out" 2>"$T/err" &
	pid=$!
	# wait until the sweep is under way: 5 sleeping children (and the worker
	# above them, unless --in-process)
	want=6; [ "$*" = --in-process ] && want=5
	i=0; while [ $i -lt 300 ] && [ "$(descendants $pid)" -lt $want ]; do sleep 0.1; i=$((i+1)); done
	check "$how${*:+ $*}: children were running before the signal" test "$(descendants $pid)" -ge $want
	if [ "$how" = group ]; then env kill -INT -- -$pid; else kill -INT $pid; fi
	wait $pid; rc=$?
	check "$how${*:+ $*}: exit code 130 after SIGINT" test $rc -eq 130
	check "$how${*:+ $*}: partial result written, marked interrupted" jtrue "$T/r.json" "d['interrupted'] and d['benches'][0]['status'] == 'interrupted'"
	check "$how${*:+ $*}: partial result keeps the points measured" jtrue "$T/r.json" "len(d['benches'][0]['repetitions'][0]['points']) >= 1"
	check "$how${*:+ $*}: no failure recorded for the interrupted bench" jtrue "$T/r.json" "d['benches'][0]['repetitions'][0]['failure'] is None"
	check "$how${*:+ $*}: the second bench did not start" jtrue "$T/r.json" "len(d['benches']) == 1"
	check "$how${*:+ $*}: stderr says interrupted" out_has "$T/err" "interrupted by signal 2"
	check "$how${*:+ $*}: no temporary result file left" test -z "$(ls "$T" | grep 'r.json.tmp')"
	check "$how${*:+ $*}: scratch directory removed" empty_dir "$T/target"
	sleep 0.2
	check "$how${*:+ $*}: no child process left" no_procs "$T/target"
	check "$how${*:+ $*}: no worker process left" no_procs "__worker .* $T/target"
}
interrupt process
interrupt group
interrupt process --in-process
