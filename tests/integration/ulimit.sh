# A low descriptor limit: net.socket stops with a recorded failure (EMFILE,
# kind "limit", with first-failure data), the run still completes and the
# next bench still runs.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/target"
(ulimit -n 48; exec "$SB" run net.socket fs.stat --dir "$T/target" --max-n 200 --budget 0.02 -q -o "$T/r.json") >"$T/out" 2>"$T/err"
rc=$?
check "run completes with exit 0" test $rc -eq 0
check "net.socket recorded as failed" sh -c '[ "$(jget "$1" "d[\"benches\"][0][\"status\"]")" = failed ]' _ "$T/r.json"
check "failure is EMFILE of kind limit" sh -c 'jget "$1" "(lambda f: f[\"errno\"] == 24 and f[\"kind\"] == \"limit\" and f[\"phase\"] == \"grow\")(d[\"benches\"][0][\"repetitions\"][0][\"failure\"])" | grep -q True' _ "$T/r.json"
check "failure has system state with open fds" sh -c 'jget "$1" "\"open_fds\" in d[\"benches\"][0][\"repetitions\"][0][\"failure\"][\"state\"]" | grep -q True' _ "$T/r.json"
check "points before the limit are kept" sh -c 'jget "$1" "len(d[\"benches\"][0][\"repetitions\"][0][\"points\"]) >= 3" | grep -q True' _ "$T/r.json"
check "the next bench ran" sh -c '[ "$(jget "$1" "d[\"benches\"][1][\"status\"]")" = ok ]' _ "$T/r.json"
check "summary names the stop" grep -q "stop net.socket: limit at N=" "$T/out"
check "target left empty" sh -c '[ -z "$(ls -A "$1")" ]' _ "$T/target"
