#!/bin/sh
# SPDX-License-Identifier: MIT
# --decide, sequential testing: a load-axis bench whose verdict is
# undecided after its sweep (unclear, or a growing class on one sweep with
# weak evidence: growth under half the cost at the top, or b under 8
# standard errors) gets more repetitions, each visiting its N in a
# shuffled order (each point in a fresh worker), until settled or once
# (--quick), twice or three times (--full) the sweep's time is spent; a
# note says what was added, added_repetitions how many. On by default
# without -r; -r K keeps exactly K. fs.stat on tmpfs in the quick suite is
# usually unclear (a real step in cost between 2,000 and 5,000 entries);
# when its sweep happens to decide, the test checks that nothing was added.
# The same with --in-process (no worker processes).
. "$(dirname "$0")/lib.sh"
# a tmpfs (lib.sh): the test is about the rounds --decide adds, not a disk
# file system, and its sweeps make up to 10,000 entries eleven times
tmpfs_dir "$T/target"
# rule FILE [MULT]: for every bench of a run of one sweep each, repetitions
# were added exactly when its sweep's verdict was undecided (a load axis
# with >= 3 points: unclear, or O(log n) and up with growth under half the
# cost at the top or b under 8 standard errors, or a tie); each added one is marked
# and counted, with the note; and the budget was kept: the note's time
# within its budget (plus one point's worth of estimate error: 25% and
# 0.5 s), the budget MULT (1: --quick) times the sweep's time, which is at
# most the run's time less the rounds'; or, with --quick, no repetitions
# and a note that the run's time for them was spent
rule() {
	python3 - "$1" "${2:-1}" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1])); mult = int(sys.argv[2])
word = {1: "once", 2: "twice", 3: "three times"}[mult]
bad = []
for b in d["benches"]:
    reps = b["repetitions"]; v0 = reps[0]["verdict"]
    grow = v0["class"] in ("O(log n)", "O(n)", "O(n log n)", "worse")
    se = v0.get("b_se_ns") or 0
    weak = grow and ((v0.get("growth_share") or 0) < 0.5 or (se > 0 and (v0.get("b_ns") or 0) / se < 8))
    tied = grow and "tie" in v0  # O(n) named, O(n log n) fitting as well
    # a sweep that ended on a limit (ENOSPC...) measured every N below it: rounds too
    fails = [r.get("failure") for r in reps if r.get("failure")]
    limited = b["status"] == "failed" and fails and all(f.get("kind") == "limit" for f in fails)
    want = b.get("axis_kind", "load") == "load" and (b["status"] == "ok" or limited) and (v0["class"] == "unclear" or weak or tied)
    added = [r for r in reps if r.get("added")]
    notes = [n for n in b["notes"] if "more repetition" in n and "shuffled order" in n]
    name = b["name"] + (("[" + b["variant"] + "]") if b.get("variant") else "")
    if not want:
        if added or notes or len(reps) != 1 or "added_repetitions" in b:
            bad.append(name + ": decided by its sweep, yet repetitions added")
        continue
    if not added and any("no repetitions added: the run's time for them" in n for n in b["notes"]):
        continue  # --quick: the run's time for rounds went to cheaper benches
    if not added or len(added) != b.get("added_repetitions") or len(added) != len(reps) - 1 or reps[0].get("added") or len(notes) != 1:
        bad.append(name + ": undecided sweep (%s), %d added, %s counted, %d notes" % (v0["class"], len(added), b.get("added_repetitions"), len(notes)))
        continue
    m = re.search(r"([0-9.]+) s of ([0-9.]+) s: (\w+(?: times)?) the sweeps", notes[0])
    if not m or m.group(3) != word:
        bad.append(name + ": the note does not say the budget (%s the sweeps): %s" % (word, notes[0]))
        continue
    spent, cap = float(m.group(1)), float(m.group(2))
    # a point is begun only when its estimated cost fits in what is left;
    # under load one may cost more than estimated (4.1 s of a 2.6 s budget
    # at load 7.5, in the first added round): the overrun is at most about
    # one more budget, never unbounded
    if spent > 2 * cap + 1:
        bad.append(name + ": %.1f s spent of a %.1f s budget" % (spent, cap))
    if len(d["benches"]) == 1 and cap > mult * (d["duration_s"] - spent) + 0.5:
        bad.append(name + ": budget %.1f s above %d x the sweep (run %.1f s less %.1f s)" % (cap, mult, d["duration_s"], spent))
for x in bad:
    print(x, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}
# undecided FILE: some bench's sweep was undecided (the rule was exercised)
undecided() {
	jtrue "$1" "any(b['repetitions'][0]['verdict']['class'] == 'unclear' or any(r.get('added') for r in b['repetitions']) for b in d['benches'])"
}
"$SB" run fs.stat --decide --no-decide -q --no-db --dir "$T/target" >/dev/null 2>"$T/e"
check "--decide with --no-decide: exit 2, named" sh -c '[ $1 = 2 ] && grep -q "exclude each other" "$2"' _ $? "$T/e"
"$SB" run fs.stat --quick --decide --dir "$T/target" -q --no-db -o "$T/d.json" >"$T/d.out" 2>&1
check "--decide run: exit 0" test $? -eq 0
check "options.decide recorded" jtrue "$T/d.json" "d['options']['decide'] is True"
sweep_n=$(jget "$T/d.json" "sorted(p['n'] for p in d['benches'][0]['repetitions'][0]['points'])")
check "--decide (quick): repetitions added exactly when the sweep was undecided, within once its time" rule "$T/d.json" 1
if jtrue "$T/d.json" "'added_repetitions' in d['benches'][0]"; then
	check "each added repetition visits distinct N of the sweep's" jtrue "$T/d.json" \
		"every(len(set(p['n'] for p in r['points'])) == len(r['points']) and set(p['n'] for p in r['points']) <= set($sweep_n) for r in d['benches'][0]['repetitions'][1:])"
	# in a shuffled order: 5 points or more in rising order by chance is 1 in 120
	long=$(jget "$T/d.json" "[[p['n'] for p in r['points']] for r in d['benches'][0]['repetitions'][1:] if len(r['points']) >= 5]")
	if [ "$long" != "[]" ]; then
		check "... in a shuffled order" jtrue "$T/d.json" "any(l != sorted(l) for l in $long)"
	fi
	check "a note says why, what was added and the verdict reached" jtrue "$T/d.json" "any(('verdict unclear after the sweep' in n or 'after the sweep on weak evidence' in n or 'after the sweep, tied with' in n) and ('now O(' in n or 'still unclear' in n) for n in d['benches'][0]['notes'])"
	check "the summary shows the note" grep -q "more repetition" "$T/d.out"
else
	skip "--decide: the sweep decided by itself (nothing added, as the rule checked)"
fi
# in-process (run --in-process): the same rounds, each point measured afresh
# in the runner itself (core/verdict.c with sweep_measure_point)
"$SB" run fs.stat --quick --decide --in-process --dir "$T/target" -q --no-db -o "$T/i.json" >"$T/i.out" 2>&1
check "--decide --in-process: exit 0" test $? -eq 0
check "--decide --in-process: options.decide recorded, isolation in-process" jtrue "$T/i.json" "d['options']['decide'] is True and d['options']['isolation'] == 'in-process'"
sweep_n=$(jget "$T/i.json" "sorted(p['n'] for p in d['benches'][0]['repetitions'][0]['points'])")
check "--decide --in-process: repetitions added exactly when the sweep was undecided, within once its time" rule "$T/i.json" 1
if jtrue "$T/i.json" "'added_repetitions' in d['benches'][0]"; then
	check "in-process: each added repetition visits distinct N of the sweep's" jtrue "$T/i.json" \
		"every(len(set(p['n'] for p in r['points'])) == len(r['points']) and set(p['n'] for p in r['points']) <= set($sweep_n) for r in d['benches'][0]['repetitions'][1:])"
	check "in-process: the note says each N was measured afresh, and the verdict reached" jtrue "$T/i.json" "any('after the sweep' in n and 'measured afresh' in n and ('now O(' in n or 'still unclear' in n) for n in d['benches'][0]['notes'])"
else
	skip "--decide --in-process: the sweep decided by itself (nothing added, as the rule checked)"
fi
# the default, without -r: on; undecided sweeps get repetitions, within the budget
"$SB" run fs.stat --quick --dir "$T/target" -q --no-db -o "$T/n.json" >"$T/n.out" 2>&1
check "without -r or --decide (quick): options.decide true (the default)" jtrue "$T/n.json" "d['options']['decide'] is True"
check "without -r: repetitions added exactly when the sweep was undecided, marked, counted, within once the sweep's time" rule "$T/n.json" 1
if jtrue "$T/n.json" "'added_repetitions' in d['benches'][0]"; then
	check "... the summary counts the added repetitions and marks them" sh -c \
		'grep -q "^  added    $(jget "$1" "d[\"benches\"][0][\"added_repetitions\"]") repetitions\? to 1 bench " "$2" && grep -q "^rep  fs.stat #2 (added): " "$2"' _ "$T/n.json" "$T/n.out"
fi
# benches of which some quick sweep is nearly always undecided: fs.open and
# fs.stat (a real but small O(log n): weak evidence, or unclear), fs.mkdir
# (two levels of cost on most file systems)
"$SB" run fs.open fs.stat fs.mkdir --quick --dir "$T/target" -q --no-db -o "$T/u.json" >"$T/u.out" 2>&1
check "default run of benches whose sweeps are mostly undecided: exit 0" test $? -eq 0
check "... repetitions added exactly where undecided, within the budget" rule "$T/u.json" 1
if undecided "$T/u.json"; then
	echo "ok - ... some sweep was undecided (the rule above was exercised)"
else
	echo "skip - ... every sweep decided by itself (nothing to add this time)"
fi
check "... the summary's unclear count is the result's" sh -c \
	'n=$(jget "$1" "sum(b[\"verdict\"][\"class\"] == \"unclear\" for b in d[\"benches\"])"); if [ "$n" = 0 ]; then ! grep -q "^  unclear " "$2"; else grep -q "^  unclear  $n of " "$2"; fi' _ "$T/u.json" "$T/u.out"
# -r K: exactly the user's K repetitions, none added, even for net.request
"$SB" run fs.open fs.mkdir --quick --dir "$T/target" -q --no-db -r 2 -o "$T/r2.json" >/dev/null 2>&1
check "-r 2 without --decide: the two repetitions asked for, none added, options.decide false" jtrue "$T/r2.json" \
	"d['options']['decide'] is False and every(len(b['repetitions']) == 2 and not any(r.get('added') for r in b['repetitions']) and 'added_repetitions' not in b and not any('more repetition' in n for n in b['notes']) for b in d['benches'])"
"$SB" run net.request --max-n 20 -b 0.05 -p gap_wait=sleep -q --no-db -r 2 -o "$T/r2n.json" >/dev/null 2>&1
check "-r 2: net.request (BENCH_DECIDE) keeps its two repetitions too" jtrue "$T/r2n.json" \
	"every(len(b['repetitions']) == 2 and 'added_repetitions' not in b for b in d['benches'])"
"$SB" run fs.stat --quick --dir "$T/target" -q --no-db --no-decide -o "$T/nd.json" >/dev/null 2>&1
check "--no-decide: one repetition, options.decide false" jtrue "$T/nd.json" "len(d['benches'][0]['repetitions']) == 1 and d['options']['decide'] is False"
# the default scale: twice the sweep's time
"$SB" run fs.mkdir --max-n 2000 --dir "$T/target" -q --no-db -o "$T/t.json" >/dev/null 2>&1
check "default scale (no --quick): repetitions added where undecided, within twice the sweep's time" rule "$T/t.json" 2
# not on other axes: concurrency, size, a list of levels
"$SB" run io.randread -p engine=psync -p direct=0 --quick --dir "$T/target" -q --no-db -o "$T/c.json" >/dev/null 2>&1
check "a concurrency axis: nothing added, whatever its verdict" jtrue "$T/c.json" \
	"every(len(b['repetitions']) == 1 and 'added_repetitions' not in b for b in d['benches'])"
# net.request spends --decide's repetitions by default (BENCH_DECIDE), not
# with --no-decide; gap_wait=sleep and a short budget leave some of its
# four sweeps unclear most of the time
"$SB" run net.request --max-n 20 -b 0.05 -p gap_wait=sleep -q --no-db -o "$T/r.json" >/dev/null 2>&1
check "net.request without --decide: exit 0" test $? -eq 0
check "net.request: repetitions added exactly where the sweep was undecided (unclear or weak), within the budget" rule "$T/r.json" 2
if undecided "$T/r.json"; then
	echo "ok - net.request: some sweep was undecided (the rule above was exercised)"
else
	echo "skip - net.request: every sweep decided by itself (nothing to add this time)"
fi
"$SB" run net.request --max-n 20 -b 0.05 -p gap_wait=sleep --no-decide -q --no-db -o "$T/s.json" >/dev/null 2>&1
check "net.request --no-decide: one repetition each, no note" jtrue "$T/s.json" \
	"len(d['benches']) == 4 and every(len(b['repetitions']) == 1 and not any('verdict unclear after' in n for n in b['notes']) for b in d['benches'])"
# a sweep that meets a limit the system sets (ENOSPC on a tmpfs of 1,500
# inodes) keeps the points below it, and they may get rounds too, each N
# at most the largest the sweep measured (root: a mount)
if is_root && mkdir -p "$T/small" &&
	mount -t tmpfs -o size=64m,nr_inodes=1500 sbtest-tmpfs "$T/small" 2>/dev/null; then
	at_exit "umount '$T/small' 2>/dev/null || umount -l '$T/small'"
	"$SB" run fs.stat fs.open fs.link --quick --dir "$T/small" -q --no-db -o "$T/l.json" >/dev/null 2>&1
	check "a limit (ENOSPC, 1,500 inodes): every sweep failed on it, kind limit" jtrue "$T/l.json" \
		"len(d['benches']) == 3 and every(b['status'] == 'failed' and b['repetitions'][0]['failure']['kind'] == 'limit' for b in d['benches'])"
	check "... repetitions added exactly where the points below it were undecided, within the budget" rule "$T/l.json" 1
	if jtrue "$T/l.json" "any(any(r.get('added') for r in b['repetitions']) for b in d['benches'])"; then
		echo "ok - a limit: some sweep got rounds below it (the rule above was exercised)"
		check "... no added point above the largest N the sweep measured; the note says so" jtrue "$T/l.json" \
			"every(max(p['n'] for r in b['repetitions'] if r.get('added') for p in r['points']) <= max(p['n'] for p in b['repetitions'][0]['points']) and any('below the limit the sweep met' in n for n in b['notes']) for b in d['benches'] if any(r.get('added') for r in b['repetitions']))"
	else
		echo "skip - a limit: every sweep decided below it by itself (nothing to add this time)"
	fi
	check "... nothing left on the small tmpfs" empty_dir "$T/small"
fi
check "nothing left in the target" empty_dir "$T/target"
