# SPDX-License-Identifier: MIT
# A low descriptor limit: net.socket stops with a recorded failure (EMFILE,
# kind "limit", with first-failure data), the run still completes and the
# next bench still runs.
# tier: fast (tests/run.sh --fast, make test)
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/target"
(ulimit -n 48; exec "$SB" run net.socket fs.stat --dir "$T/target" --max-n 200 --budget 0.02 -q -o "$T/r.json") >"$T/out" 2>"$T/err"
rc=$?
check "run completes with exit 0" test $rc -eq 0
S=$(B net.socket)
check "net.socket recorded as failed" jtrue "$T/r.json" "$S['status'] == 'failed'"
check "failure is EMFILE of kind limit while growing" jtrue "$T/r.json" "(lambda f: f['errno'] == 24 and f['kind'] == 'limit' and f['phase'] == 'grow' and 20 < f['n'] < 48)($S['repetitions'][0]['failure'])"
check "failure has system state with open fds and limits" jtrue "$T/r.json" "every(k in $S['repetitions'][0]['failure']['state'] for k in ('open_fds', 'limits', 'meminfo'))"
check "the note says the hard limit is short" jtrue "$T/r.json" "any('RLIMIT_NOFILE' in n for n in $S['notes'])"
check "points before the limit are kept" jtrue "$T/r.json" "len($S['repetitions'][0]['points']) >= 4"
check "the next bench ran" jtrue "$T/r.json" "$(B fs.stat)['status'] == 'ok'"
check "summary names the stop" out_has "$T/out" "stop net.socket: limit at N="
check "target left empty" empty_dir "$T/target"
