# SIGINT mid-run: exit 130, the partial result is written and valid, the
# scratch directory and every sleeping child process are gone.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/target"
"$SB" run proc.fork fs.create --dir "$T/target" --max-n 200 --budget 2 -q -o "$T/r.json" >"$T/out" 2>"$T/err" &
pid=$!
# wait until the sweep is under way (scratch directory and children exist)
i=0; while [ $i -lt 100 ] && [ "$(pgrep -P $pid | wc -l)" -lt 5 ]; do sleep 0.1; i=$((i+1)); done
check "children were running before the signal" test "$(pgrep -P $pid | wc -l)" -ge 5
kill -INT $pid
wait $pid; rc=$?
check "exit code 130 after SIGINT" test $rc -eq 130
check "partial result written, marked interrupted" sh -c 'jget "$1" "d[\"interrupted\"]" | grep -q True' _ "$T/r.json"
check "stderr says interrupted" grep -q "interrupted by signal 2" "$T/err"
check "no temporary result file left" sh -c '! ls "$1"/r.json.tmp.* 2>/dev/null' _ "$T"
check "scratch directory removed" sh -c '[ -z "$(ls -A "$1")" ]' _ "$T/target"
sleep 0.2
check "no child process left" sh -c '[ "$(pgrep -f -x -- "$1.*" | wc -l)" = 0 ]' _ "$SB run proc.fork"
