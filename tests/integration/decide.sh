#!/bin/sh
# SPDX-License-Identifier: MIT
# --decide: a bench whose verdict is unclear after its sweep gets more
# repetitions, each visiting its N in a shuffled order (each point in a
# fresh worker), until decided or three times the sweep's time is spent;
# a note says what was added. fs.stat on tmpfs in the quick suite is
# usually unclear (a real step in cost between 2,000 and 5,000 entries);
# when its sweep happens to decide, the test checks that nothing was added.
# The same with --in-process (no worker processes).
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/target"
"$SB" run fs.stat --decide --no-decide -q --no-db --dir "$T/target" >/dev/null 2>"$T/e"
check "--decide with --no-decide: exit 2, named" sh -c '[ $1 = 2 ] && grep -q "exclude each other" "$2"' _ $? "$T/e"
"$SB" run fs.stat --quick --decide --dir "$T/target" -q --no-db -o "$T/d.json" >"$T/d.out" 2>&1
check "--decide run: exit 0" test $? -eq 0
check "options.decide recorded" jtrue "$T/d.json" "d['options']['decide'] is True"
sweep_n=$(jget "$T/d.json" "sorted(p['n'] for p in d['benches'][0]['repetitions'][0]['points'])")
if jtrue "$T/d.json" "d['benches'][0]['repetitions'][0]['verdict']['class'] == 'unclear'"; then
	check "unclear sweep: repetitions added" jtrue "$T/d.json" "len(d['benches'][0]['repetitions']) > 1"
	check "each added repetition visits distinct N of the sweep's" jtrue "$T/d.json" \
		"every(len(set(p['n'] for p in r['points'])) == len(r['points']) and set(p['n'] for p in r['points']) <= set($sweep_n) for r in d['benches'][0]['repetitions'][1:])"
	# in a shuffled order: 5 points or more in rising order by chance is 1 in 120
	long=$(jget "$T/d.json" "[[p['n'] for p in r['points']] for r in d['benches'][0]['repetitions'][1:] if len(r['points']) >= 5]")
	if [ "$long" != "[]" ]; then
		check "... in a shuffled order" jtrue "$T/d.json" "any(l != sorted(l) for l in $long)"
	fi
	check "a note says what was added and the verdict reached" jtrue "$T/d.json" "any('verdict unclear after the sweep' in n and ('now O(' in n or 'still unclear' in n) for n in d['benches'][0]['notes'])"
	check "the summary shows the note" grep -q "more repetition" "$T/d.out"
else
	check "decided by its sweep: nothing added" jtrue "$T/d.json" "len(d['benches'][0]['repetitions']) == 1 and not any('verdict unclear' in n for n in d['benches'][0]['notes'])"
fi
# in-process (run --in-process): the same rounds, each point measured afresh
# in the runner itself (core/verdict.c with sweep_measure_point)
"$SB" run fs.stat --quick --decide --in-process --dir "$T/target" -q --no-db -o "$T/i.json" >"$T/i.out" 2>&1
check "--decide --in-process: exit 0" test $? -eq 0
check "--decide --in-process: options.decide recorded, isolation in-process" jtrue "$T/i.json" "d['options']['decide'] is True and d['options']['isolation'] == 'in-process'"
sweep_n=$(jget "$T/i.json" "sorted(p['n'] for p in d['benches'][0]['repetitions'][0]['points'])")
if jtrue "$T/i.json" "d['benches'][0]['repetitions'][0]['verdict']['class'] == 'unclear'"; then
	check "in-process, unclear sweep: repetitions added, each visiting distinct N of the sweep's" jtrue "$T/i.json" \
		"len(d['benches'][0]['repetitions']) > 1 and every(len(set(p['n'] for p in r['points'])) == len(r['points']) and set(p['n'] for p in r['points']) <= set($sweep_n) for r in d['benches'][0]['repetitions'][1:])"
	check "in-process: the note says each N was measured afresh, and the verdict reached" jtrue "$T/i.json" "any('verdict unclear after the sweep' in n and 'measured afresh' in n and ('now O(' in n or 'still unclear' in n) for n in d['benches'][0]['notes'])"
else
	check "in-process, decided by its sweep: nothing added" jtrue "$T/i.json" "len(d['benches'][0]['repetitions']) == 1 and not any('verdict unclear' in n for n in d['benches'][0]['notes'])"
fi
"$SB" run fs.stat --quick --dir "$T/target" -q --no-db -o "$T/n.json" >/dev/null 2>&1
check "without --decide (quick): one repetition, options.decide false" jtrue "$T/n.json" "len(d['benches'][0]['repetitions']) == 1 and d['options']['decide'] is False"
# net.request spends --decide's repetitions by default (BENCH_DECIDE), not
# with --no-decide; gap_wait=sleep and a short budget leave some of its
# four sweeps unclear most of the time
"$SB" run net.request --max-n 20 -b 0.05 -p gap_wait=sleep -q --no-db -o "$T/r.json" >/dev/null 2>&1
check "net.request without --decide: exit 0" test $? -eq 0
check "net.request: an unclear sweep got repetitions and a note, a decided one none" jtrue "$T/r.json" \
	"every((len(b['repetitions']) > 1 and any('verdict unclear after the sweep' in n for n in b['notes'])) if b['repetitions'][0]['verdict']['class'] == 'unclear' else (len(b['repetitions']) == 1 and not any('verdict unclear after' in n for n in b['notes'])) for b in d['benches'])"
if jtrue "$T/r.json" "any(b['repetitions'][0]['verdict']['class'] == 'unclear' for b in d['benches'])"; then
	echo "ok - net.request: some sweep was unclear (the rule above was exercised)"
else
	echo "skip - net.request: every sweep decided by itself (nothing to add this time)"
fi
"$SB" run net.request --max-n 20 -b 0.05 -p gap_wait=sleep --no-decide -q --no-db -o "$T/s.json" >/dev/null 2>&1
check "net.request --no-decide: one repetition each, no note" jtrue "$T/s.json" \
	"len(d['benches']) == 4 and every(len(b['repetitions']) == 1 and not any('verdict unclear after' in n for n in b['notes']) for b in d['benches'])"
check "nothing left in the target" empty_dir "$T/target"
