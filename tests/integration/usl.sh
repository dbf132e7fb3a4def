# SPDX-License-Identifier: MIT
# The headline verdict by axis kind, on real runs: a concurrency axis
# (io.randread's requests in flight, io.streams' reader threads) is judged
# by throughput with the Universal Scalability Law, a size axis
# (io.seqread's request size) by cost per KiB; points with more tasks than
# online CPUs are counted and left out of the fit unless
# --fit-oversubscribed; compare calls a throughput drop at the largest N
# WORSE (exit 3); the report plots throughput with the fitted curve.
# tier: fast (tests/run.sh --fast, make test)
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/target"
"$SB" run io.randread io.seqread io.streams -p engine=psync -p direct=0 --quick --budget 0.05 \
	--dir "$T/target" --no-db -q -o "$T/a.json" >"$T/a.txt" 2>"$T/a.err"
check "run: exit 0" test $? = 0
RR=$(B io.randread) SR=$(B io.seqread) ST=$(B io.streams)
check "io.randread ran (5 points)" jtrue "$T/a.json" "$RR['status'] == 'ok' and len($RR['repetitions'][0]['points']) == 5"
check "axis kinds: io.randread concurrency, io.seqread size, io.streams concurrency counting tasks" \
	jtrue "$T/a.json" "$RR['axis_kind'] == 'concurrency' and $SR['axis_kind'] == 'size' and $ST['axis_kind'] == 'concurrency' and $ST.get('axis_tasks') is True and 'axis_tasks' not in $RR"
check "io.randread: a throughput verdict fitted on its 5 points, sigma and kappa with intervals" \
	jtrue "$T/a.json" "(lambda u: u['class'] in ('linear', 'saturates', 'retrograde', 'unclear') and u['points'] == 5 and u['sigma_ci95'][0] <= u['sigma'] <= u['sigma_ci95'][1] and u['kappa_ci95'][0] <= u['kappa'] <= u['kappa_ci95'][1] and u['lambda_ops_per_s'] > 0 and u['efficiency'] > 0)($RR['throughput_verdict'])"
check "io.randread: the latency verdict stays in the JSON" jtrue "$T/a.json" "$RR['verdict']['class'] != ''"
check "summary: io.randread's headline is the throughput verdict, not a growth class" \
	sh -c 'r=$(grep "^io.randread" "$1"); echo "$r" | grep -Eq "(linear|saturates|retrograde past N\*=[0-9.]+|unclear) +sigma [0-9.-]+ \[" && ! echo "$r" | grep -q "O("' _ "$T/a.txt"
check "summary: io.seqread's headline is its cost per KiB" sh -c 'grep "^io.seqread" "$1" | grep -q "per KiB [0-9.]* [nu]s@min"' _ "$T/a.txt"
check "io.seqread: per_kib in the JSON, cost per KiB falling as requests grow" \
	jtrue "$T/a.json" "$SR['per_kib']['ns_at_n_max'] < $SR['per_kib']['ns_at_n_min']"
# oversubscription: io.streams' points above the online CPUs are counted
# and left out (how many depends on this machine's CPUs)
check "io.streams: points above the online CPUs counted as oversubscribed and not fitted" \
	jtrue "$T/a.json" "(lambda b, u: u['oversubscribed_points'] == sum(p['n'] > b['cpus_online'] for r in b['repetitions'] for p in r['points']) and u['points'] + u['oversubscribed_points'] == sum(len(r['points']) for r in b['repetitions']) and u['oversubscribed_fitted'] is False)($ST, $ST['throughput_verdict'])"
"$SB" run io.streams -p direct=0 --quick --budget 0.05 --fit-oversubscribed --dir "$T/target" --no-db -q -o "$T/o.json" >/dev/null 2>&1
check "--fit-oversubscribed: every io.streams point fitted" \
	jtrue "$T/o.json" "(lambda b: b['fit_oversubscribed'] and b['throughput_verdict']['oversubscribed_fitted'] and b['throughput_verdict']['points'] == sum(len(r['points']) for r in b['repetitions']))($ST)"

# compare: the same run is no regression; a copy with half the throughput
# at the top half of io.randread's points is WORSE (exit 3): a tenth, not
# a half, so that a run whose points scatter under load still shows it
# significant (-50% flaked at load 9)
"$SB" compare --strict "$T/a.json" "$T/a.json" >"$T/self.txt" 2>&1
check "compare with itself: exit 0, throughput same" sh -c '[ $1 = 0 ] && grep -Eq "^  io.randread.* same$" "$2"' _ $? "$T/self.txt"
"$SB" compare --strict "$T/a.json" "$T/a.json" --format json >"$T/self.json" 2>&1
check "compare reads the throughput verdict back as written (refitted from the points)" \
	python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["comparisons"][0]["throughput_changes"]
a = json.load(open(sys.argv[2]))["benches"]
got = [x["verdict_from"] for x in c if x["bench"].startswith("io.randread")]
want = [b["throughput_verdict"]["word"] for b in a if b["name"] == "io.randread"]
sys.exit(not (len(want) == 1 and got == want))' "$T/self.json" "$T/a.json"
python3 - "$T/a.json" "$T/half.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for b in d['benches']:
    if b['name'] == 'io.randread':
        for r in b['repetitions']:
            for p in r['points']:
                if p['n'] >= 4:
                    p['throughput']['ops_per_s'] /= 10
                    if 'over_time' in p:
                        p['over_time']['ops'] = [x / 10 for x in p['over_time']['ops']]
json.dump(d, open(sys.argv[2], 'w'))
EOF
"$SB" compare --strict "$T/a.json" "$T/half.json" >"$T/half.txt" 2>&1
check "a tenth of the throughput at the top: exit 3, io.randread WORSE, -90%" \
	sh -c '[ $1 = 3 ] && grep -Eq "^  io.randread.*at N=16 .*\(-90.0%\)\*  WORSE$" "$2"' _ $? "$T/half.txt"
"$SB" compare "$T/a.json" "$T/half.json" >/dev/null 2>&1
check "one repetition a side without --strict: not judged (exit 0)" test $? = 0
# the same drop with B's probe unmap times 4x A's (the other CPUs busy
# during B's run, as beside a CPU hog on a VM): the CPUs the load could use
# differed, so throughput is not judged, and the caveat says so
python3 - "$T/half.json" "$T/busy.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for b in d['benches']:
    for r in b['repetitions']:
        for p in r['points']:
            for s in ('before', 'after'):
                if (p.get('probe') or {}).get(s) and p['probe'][s].get('unmap_ns'):
                    p['probe'][s]['unmap_ns'] *= 4
json.dump(d, open(sys.argv[2], 'w'))
EOF
"$SB" compare --strict "$T/a.json" "$T/busy.json" >"$T/busy.txt" 2>&1
check "... B's probe unmap 4x A's (other CPUs busy): not judged (exit 0), said" \
	sh -c '[ $1 = 0 ] && grep -q "unmap time was +300% on B.s side.*throughput over concurrency not judged" "$2" && grep -Eq "^  io.randread.*WORSE \(not judged: other CPUs busy on one side\)$" "$2"' _ $? "$T/busy.txt"

"$SB" report "$T/a.json" -o "$T/r.html" >/dev/null 2>&1
check "report: a throughput plot with the fitted curve and the ideal line" \
	sh -c 'grep -q "A concurrency axis: the verdict is on throughput" "$1" && grep -q "ideal: X(1) \* N" "$1" && grep -q "throughput (request/s)" "$1"' _ "$T/r.html"
check "nothing left in the target directory" empty_dir "$T/target"
