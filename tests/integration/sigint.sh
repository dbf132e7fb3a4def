# SIGINT mid-run: exit 130, the partial result is written and valid, the
# scratch directory and every sleeping child process are gone.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/target"
"$SB" run proc.fork fs.create --dir "$T/target" --max-n 200 --budget 2 -q -o "$T/r.json" >"$T/out" 2>"$T/err" &
pid=$!
# wait until the sweep is under way (sleeping children exist)
i=0; while [ $i -lt 200 ] && [ "$(pgrep -P $pid | wc -l)" -lt 5 ]; do sleep 0.1; i=$((i+1)); done
check "children were running before the signal" test "$(pgrep -P $pid | wc -l)" -ge 5
kill -INT $pid
wait $pid; rc=$?
check "exit code 130 after SIGINT" test $rc -eq 130
check "partial result written, marked interrupted" jtrue "$T/r.json" "d['interrupted'] and d['benches'][0]['status'] == 'interrupted'"
check "partial result keeps the points measured" jtrue "$T/r.json" "len(d['benches'][0]['repetitions'][0]['points']) >= 1"
check "stderr says interrupted" out_has "$T/err" "interrupted by signal 2"
check "no temporary result file left" test -z "$(ls "$T" | grep 'r.json.tmp')"
check "scratch directory removed" empty_dir "$T/target"
sleep 0.2
check "no child process left" no_procs "$T/target"
