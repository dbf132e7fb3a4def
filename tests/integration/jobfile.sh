# SPDX-License-Identifier: MIT
# Job files (docs/studies.md): every refusal before any work (exit 2, one
# line naming the file and line, nothing made, no result), variables and
# includes, the command line over the file, the job recorded in the
# result, and the round trip: show --job prints a job file that runs the
# same benches, parameters and N. Also -o where no file can be made,
# found before any work.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/target" "$T/jobs"
export TMPDIR="$T/target"
# expect_job "desc" pattern FILE-TEXT [options]: exit 2, one stderr line matching pattern
expect_job() {
	d=$1; pat=$2; printf '%b' "$3" >"$T/jobs/bad.job"; shift 3
	"$SB" run "$T/jobs/bad.job" -q --no-db -o "$T/bad.json" "$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$pat" "$T/err" && [ ! -s "$T/out" ] &&
	   [ ! -e "$T/bad.json" ]; then
		echo "ok - $d"
	else
		echo "not ok - $d (exit $rc: $(cat "$T/err"))"
	fi
}
J="$T/jobs/bad.job"
expect_job "a bad value: file and line" "^scalebench run: $J:3: --max-n: 'ten' is not" '[a]\nbench = net.socket\nmax-n = ten\n'
expect_job "an unknown bench" "$J:2: unknown bench or family 'net.sokcet'" '[a]\nbench = net.sokcet\n'
expect_job "an unknown key (no bench takes it)" "$J:4: \\[a\\]: --param famly" '# c\n[a]\nbench = net.request\nfamly = 6\n'
expect_job "a parameter value out of range" "$J:3: \\[a\\]: .*mech" '[a]\nbench = net.request\nmech = kqueue\n'
expect_job "a [global] key no job takes" "$J:2: " '[global]\nwidth = 5\n[a]\nbench = net.socket\n'
expect_job "a whole-run option in a job section" "$J:3: output: only in \\[global\\]" '[a]\nbench = net.socket\noutput = x.json\n'
expect_job "a job without a bench" "$J:1: \\[a\\]: which bench" '[a]\nmax-n = 5\n'
expect_job "a key outside any section" "$J:1: max-n: outside any section" 'max-n = 5\n[a]\nbench = net.socket\n'
expect_job "a key given twice" "$J:3: max-n given twice in this section (first at $J:2)" '[a]\nmax-n = 5\nmax-n = 6\nbench = net.socket\n'
expect_job "an unset variable" "$J:3: \$SB_TEST_UNSET_VAR: no such variable" '[a]\nbench = net.socket\nmax-n = $SB_TEST_UNSET_VAR\n'
expect_job "a missing include" "$J:2: include .*nothere.inc: No such file" '[a]\ninclude nothere.inc\nbench = net.socket\n'
printf '[b]\ninclude loop-b.inc\n' >"$T/jobs/loop-a.inc"
printf 'bench = net.socket\ninclude loop-a.inc\n' >"$T/jobs/loop-b.inc"
expect_job "a loop of includes" "loop-b.inc:2: include loop: .*loop-a.inc -> .*loop-b.inc -> .*loop-a.inc" '[a]\nbench = net.socket\ninclude loop-a.inc\n'
expect_job "a switch with a value" "$J:3: quick: a switch" '[a]\nbench = net.socket\nquick = maybe\n'
expect_job "a file with no job" "bad.job: no job in it" '[global]\nrepeat = 2\n'
expect_job "the command line's values are checked too" "\\-\\-max-n: '0' is not" '[a]\nbench = net.socket\n' -n 0
expect_usage_run() { "$SB" run "$@" >"$T/out" 2>"$T/err"; echo $?; }
check "a missing job file: exit 2" test "$(expect_usage_run "$T/jobs/absent.job" -q --no-db)" = 2
check "a missing job file: named" out_has "$T/err" "absent.job: No such file"
check "a job file with bench names beside it: exit 2" test "$(expect_usage_run "$T/jobs/bad.job" net.socket -q --no-db)" = 2
check "nothing left in the target after the refusals" empty_dir "$T/target"

# -o where no file can be made (root passes access() in /proc): before any work
"$SB" run net.socket -n 5 --quick --no-db -o /proc/sbtest.json >"$T/out" 2>"$T/err"; rc=$?
check "-o /proc/x.json: exit 2 before any work" sh -c "[ $rc -eq 2 ] && grep -q 'cannot make a file there' '$T/err' && [ ! -s '$T/out' ]"
check "-o /proc/x.json: nothing left" empty_dir "$T/target"

# a job with a variable, an include, [global] defaults, two sections
cat >"$T/jobs/common.inc" <<'EOF'
[global]
# every section's, unless it says otherwise
study = test-study
title = A <test> study
repeat = 2
quick
in-process
EOF
cat >"$T/jobs/rt.job" <<'EOF'
include common.inc
[sockets]
bench = net.socket
max-n = ${SB_TEST_MAXN}
title = socket with $$ in the title
reference = then: flat at 5,000 cycles
reference-us = 3
[stat]
bench = fs.stat
max_n = 50
repeat = 1
profile-apart
[requests]
bench = net.request
mech = poll
max-n = 5
EOF
SB_TEST_MAXN=20 "$SB" run "$T/jobs/rt.job" -q --no-db -o "$T/r1.json" --budget 0.02 --no-decide --report "$T/r1.html" >/dev/null 2>"$T/err1"
check "the job runs" test -s "$T/r1.json"
check "the report leads with the study view (escaped title)" sh -c \
	"grep -q '<h2 id=\"study\">Study: A &lt;test&gt; study</h2>' '$T/r1.html' && [ \$(grep -o '<h3 id=\"job-' '$T/r1.html' | wc -l) = 3 ]"
check "the study view: the section's reference beside its graph, and its line" sh -c \
	"grep -q '<b>Then:</b> then: flat at 5,000 cycles' '$T/r1.html' && grep -q 'reference (then): 3 us' '$T/r1.html'"
check "the result records the job, resolved" jtrue "$T/r1.json" \
	"[j['name'] for j in d['job']['jobs']] == ['sockets', 'stat', 'requests'] and d['job']['jobs'][0]['keys']['max-n'] == '20' and d['job']['jobs'][0]['keys']['repeat'] == '2' and d['job']['jobs'][1]['keys']['repeat'] == '1' and d['job']['jobs'][0]['keys']['title'] == 'socket with \$ in the title'"
check "each bench ran in its section, with its N and passes" jtrue "$T/r1.json" \
	"[(b['name'], b['job'], b['max_n'], len(b['repetitions'])) for b in d['benches']] == [('net.socket', 'sockets', 20, 2), ('fs.stat', 'stat', 50, 1), ('net.request', 'requests', 5, 2)] and $(B net.request)['params']['mech'] == 'poll'"
"$SB" show --job "$T/r1.json" >"$T/jobs/back.job" 2>"$T/err"
check "show --job prints a job file" out_has "$T/jobs/back.job" "^\\[sockets\\]"
check "show --job keeps a dollar sign a dollar sign" out_has "$T/jobs/back.job" "^title = socket with \\$\\$ in the title"
"$SB" run "$T/jobs/back.job" -q --no-db -o "$T/r2.json" --budget 0.02 --no-decide >/dev/null 2>"$T/err2"
same="[(b['name'], b.get('job'), b.get('params'), [[p['n'] for p in r['points']] for r in b['repetitions']]) for b in d['benches']]"
check "round trip: the same benches, parameters and N" sh -c \
	'[ "$(jget "$1" "$2")" = "$(jget "$3" "$2")" ] && [ -n "$(jget "$1" "$2")" ]' _ "$T/r1.json" "$same" "$T/r2.json"
check "round trip: the same job, keys and resolved descriptions" python3 -c '
import json, sys
a, b = (json.load(open(f))["job"]["jobs"] for f in sys.argv[1:3])
assert a == b and len(a) == 3 and all(len(j["resolved"]) == 1 for j in a), (a, b)' "$T/r1.json" "$T/r2.json"
check "round trip: --profile-apart, a switch of the section, kept" jtrue "$T/r2.json" \
	"d['job']['jobs'][1]['resolved'][0]['profile_apart'] and d['job']['jobs'][1]['resolved'][0]['profile'] and not d['job']['jobs'][0]['resolved'][0]['profile'] and $(B fs.stat)['profile'] is not None"
check "the resolved job: the core's description of each bench" jtrue "$T/r1.json" \
	"[(j['resolved'][0]['bench'], j['resolved'][0]['max_n'], j['resolved'][0]['repeat'], j['resolved'][0]['quick']) for j in d['job']['jobs']] == [('net.socket', 20, 2, True), ('fs.stat', 50, 1, True), ('net.request', 5, 2, True)] and d['job']['jobs'][2]['resolved'][0]['params'] == {'mech': 'poll'}"
# the command line over the file
SB_TEST_MAXN=20 "$SB" run "$T/jobs/rt.job" -q --no-db -o "$T/r3.json" --budget 0.02 --no-decide -n 10 -r 1 -p mech=epoll >/dev/null 2>&1
check "command-line options override the file's" jtrue "$T/r3.json" \
	"every(b['max_n'] == 10 and len(b['repetitions']) == 1 for b in d['benches']) and $(B net.request)['params']['mech'] == 'epoll' and d['job']['jobs'][2]['keys']['mech'] == 'epoll' and d['job']['jobs'][0]['keys']['max-n'] == '10'"
"$SB" show --job "$T/jobs/rt.job" >/dev/null 2>"$T/err"; rc=$?
check "show --job on what is no result: exit 2" test $rc = 2
"$SB" run net.socket -n 5 --quick --no-db -q -o "$T/plain.json" --in-process >/dev/null 2>&1
"$SB" show --job "$T/plain.json" >"$T/out" 2>"$T/err"; rc=$?
check "show --job on a result of no job file: exit 2, said" sh -c "[ $rc = 2 ] && grep -q 'records no job' '$T/err'"
check "nothing left in the target after the runs" empty_dir "$T/target"

# matrix FILE.job: [global] fs, a job on some file systems only
if is_root; then
	mkdir -p "$T/d"
	cat >"$T/jobs/m.job" <<EOF2
[global]
fs = tmpfs
dir = $T/d
image-size = 64M
in-process
[stat]
bench = fs.stat
max-n = 20
[sock]
bench = net.socket
fs = tmpfs
max-n = 10
EOF2
	"$SB" matrix "$T/jobs/m.job" -q --no-db -o "$T/m.json" --budget 0.02 >/dev/null 2>"$T/err"
	check "matrix FILE.job: each job on the file system" jtrue "$T/m.json" \
		"[(b['name'], b['job'], b['target'], b['max_n']) for b in d['benches']] == [('fs.stat', 'stat', 'tmpfs', 20), ('net.socket', 'sock', 'tmpfs', 10)] and d['job']['global']['fs'] == 'tmpfs'"
	check "matrix FILE.job: nothing left" none_left
	printf '[global]\nfs = tmpfs\n[a]\nbench = fs.stat\nfs = ext4\n' >"$T/jobs/mbad.job"
	"$SB" matrix "$T/jobs/mbad.job" -q --no-db >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc = 2 ] && grep -q 'mbad.job:5: fs: ext4 is not among the run' "$T/err"; then
		echo "ok - matrix FILE.job: a job's fs outside the run's: exit 2 at its line"
	else
		echo "not ok - matrix FILE.job: a job's fs outside the run's: exit 2 at its line (exit $rc: $(cat "$T/err"))"
	fi
	printf '[a]\nbench = fs.stat\nfs = tmpfs\n' >"$T/jobs/rbad.job"
	"$SB" run "$T/jobs/rbad.job" -q --no-db >"$T/out" 2>"$T/err"; rc=$?
	check "run FILE.job: fs in a job is matrix's: exit 2 at its line" sh -c \
		"[ $rc = 2 ] && grep -q 'rbad.job:3: fs: ' '$T/err'"
else
	skip "matrix FILE.job (needs root)"
fi
