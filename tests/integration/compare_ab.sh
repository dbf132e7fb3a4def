# SPDX-License-Identifier: MIT
# compare --ab on real runs, at tiny sizes: one build against itself (A/A:
# exit 0, both merged results valid, the pairing recorded and alternating,
# the stored files compared again on their pairs), two directories (two
# file systems when root: a tmpfs), two settings (proc.syscall without a
# tracer against ptrace: exit 3, the variant key the sides differ in
# dropped so that the benches match), two builds (the binary copied to
# two paths); side spec errors give exit 2 with nothing run or left behind;
# Ctrl-C (SIGINT to compare --ab alone, or to its process group) stops
# the running side and leaves nothing (no temporary file, scratch
# directory, process or output).
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/tmp" "$T/d1" "$T/d2"
export TMPDIR="$T/tmp"
TINY="--max-n 20 -b 0.01 -r 3 -q"

# A/A: one build against itself; --alpha 0.001 so that a false alarm (at
# most alpha per compare) does not make this test flaky
"$SB" compare --ab - - fs.stat $TINY --alpha 0.001 -o "$T/aa" >"$T/aa.txt" 2>"$T/aa.err"; rc=$?
check "A/A: exit 0 (got $rc)" test $rc -eq 0
check "A/A: both merged results written" test -s "$T/aa-a.json" -a -s "$T/aa-b.json"
check "A/A: the bench line says paired, 3 pairs" grep -q "fs.stat .*bench .*paired, 3 pairs" "$T/aa.txt"
check "A/A: each side records the ab run (one id, sides a and b, 3 pairs)" sh -c '
	jget -t "$1" "d[\"ab\"][\"side\"] == \"a\" and d[\"ab\"][\"pairs\"] == 3 and d[\"ab\"][\"order\"] == \"alternating\"" &&
	jget -t "$2" "d[\"ab\"][\"side\"] == \"b\"" &&
	[ "$(jget "$1" "d[\"ab\"][\"id\"]")" = "$(jget "$2" "d[\"ab\"][\"id\"]")" ]' _ "$T/aa-a.json" "$T/aa-b.json"
check "A/A: every repetition has its pair (1, 2, 3) and the order alternates" sh -c '
	jget -t "$1" "[r[\"ab\"][\"pair\"] for r in d[\"benches\"][0][\"repetitions\"]] == [1, 2, 3] and [r[\"ab\"][\"order\"] for r in d[\"benches\"][0][\"repetitions\"]] == [1, 2, 1]" &&
	jget -t "$2" "[r[\"ab\"][\"order\"] for r in d[\"benches\"][0][\"repetitions\"]] == [2, 1, 2]"' _ "$T/aa-a.json" "$T/aa-b.json"
check "A/A: the repetitions' start times rise over the invocation" jtrue "$T/aa-b.json" \
	"(lambda s: len(s) == 3 and s == sorted(s) and s[0] > 0)([r['started_s'] for r in d['benches'][0]['repetitions']])"
"$SB" compare "$T/aa-a.json" "$T/aa-b.json" --alpha 0.001 --format json >"$T/aa2.json" 2>/dev/null; rc=$?
check "the stored sides compared later: exit 0, tested on 3 pairs" sh -c '[ $1 = 0 ] && jget -t "$2" "d[\"comparisons\"][0][\"ab\"][\"paired\"] and every(b[\"repetition_test\"][\"design\"] == \"paired\" and b[\"repetition_test\"][\"pairs\"] == 3 and b[\"repetition_test\"][\"sweep\"][\"df\"] == 2 for b in d[\"comparisons\"][0][\"benches\"])"' _ $rc "$T/aa2.json"
"$SB" compare "$T/aa-a.json" "$T/aa-b.json" --unpaired --format json >"$T/aa3.json" 2>/dev/null
check "--unpaired: Welch's test of the same runs" jtrue "$T/aa3.json" \
	"not d['comparisons'][0]['ab']['paired'] and every(b['repetition_test']['design'] == 'unpaired' for b in d['comparisons'][0]['benches'])"
rm -f "$T/aa2.json" "$T/aa3.json"

# --detect: a bench whose test would find only a larger change gets more
# pairs. A target no test reaches: fs.stat goes from 3 pairs to the cap of
# 5, the order alternating on (pair 4 starts with B); a target every test
# reaches: none added
"$SB" compare --ab - - fs.stat --max-n 20 -b 0.01 -r 3 --alpha 0.001 --detect 0.1 --max-pairs 5 -o "$T/det" >"$T/det.txt" 2>"$T/det.err"; rc=$?
check "--detect 0.1: exit 0 (got $rc)" test $rc -eq 0
check "--detect 0.1: fs.stat topped up to the cap, 5 pairs, order alternating on" sh -c '
	for f; do jget -t "$f" "[r[\"ab\"][\"pair\"] for r in d[\"benches\"][0][\"repetitions\"]] == [1, 2, 3, 4, 5] and d[\"ab\"][\"pairs_added\"] == {\"fs.stat\": 2} and d[\"ab\"][\"max_pairs\"] == 5" || exit 1; done
	jget -t "$1" "[r[\"ab\"][\"order\"] for r in d[\"benches\"][0][\"repetitions\"]] == [1, 2, 1, 2, 1]"' _ "$T/det-a.json" "$T/det-b.json"
check "--detect 0.1: the output names what was added and tests 5 pairs" sh -c '
	grep -q "^--detect 0.1%: 3 pairs each, more (up to 5) .*: fs.stat +2$" "$1" && grep -q "fs.stat .*bench .*paired, 5 pairs" "$1"' _ "$T/det.txt"
check "--detect 0.1: the progress says why (the change its test finds)" grep -q "fs.stat finds .*% with 3 pairs (--detect 0.1%): 2 more" "$T/det.err"
check "--detect 0.1: each pair's progress counts against the total so far" sh -c 'grep -q "fs.stat, pair 3 of 3 (" "$1" && grep -q "fs.stat, pair 5 of 5 (" "$1"' _ "$T/det.err"
# (at --alpha 0.01 a test finds 1000% unless its pairs' differences
# scatter by 40% or more; exit 3 is an A/A false alarm, not this check's)
"$SB" compare --ab - - fs.stat $TINY --detect 1000 -o "$T/det2" >"$T/det2.txt" 2>&1; rc=$?
check "--detect 1000: no pair added (3 pairs, max 9 by default)" sh -c '{ [ $1 = 0 ] || [ $1 = 3 ]; } &&
	grep -q "^--detect 1000%: 3 pairs each, more (up to 9) .*: none needed$" "$2" &&
	jget -t "$3" "len(d[\"benches\"][0][\"repetitions\"]) == 3 and d[\"ab\"][\"pairs_added\"] == {\"fs.stat\": 0}"' _ $rc "$T/det2.txt" "$T/det2-b.json"
"$SB" compare --ab - - fs.stat --max-n 20 -b 0.01 -r 2 --detect 0.1 --max-pairs 3 -o "$T/det3" >/dev/null 2>"$T/det3.err"; rc=$?
check "--detect with -r 2: too few pairs to test, one added to reach 3" sh -c '[ $1 = 0 ] &&
	grep -q "fs.stat: too few pairs to test (--detect 0.1%): 1 more" "$2" &&
	jget -t "$3" "len(d[\"benches\"][0][\"repetitions\"]) == 3"' _ $rc "$T/det3.err" "$T/det3-b.json"
rm -f "$T"/det*
"$SB" compare --ab - - fs.stat $TINY --detect 5 --max-pairs 2 >/dev/null 2>"$T/bad.err"; rc=$?
check "--max-pairs under -r: exit 2 naming it" sh -c '[ $1 = 2 ] && grep -q "max-pairs 2 is fewer than the 3 pairs" "$2"' _ $rc "$T/bad.err"
"$SB" compare --ab - - fs.stat $TINY --max-pairs 6 >/dev/null 2>"$T/bad.err"; rc=$?
check "--max-pairs without --detect: exit 2 naming it" sh -c '[ $1 = 2 ] && grep -q "give --detect PCT too" "$2"' _ $rc "$T/bad.err"
"$SB" compare --detect 5 "$T/aa-a.json" "$T/aa-b.json" >/dev/null 2>"$T/bad.err"; rc=$?
check "--detect without --ab: exit 2" sh -c '[ $1 = 2 ] && grep -q "of --ab only" "$2"' _ $rc "$T/bad.err"
check "--detect: nothing left in the temporary directory" test -z "$(ls -A "$T/tmp")"

# two directories; a tmpfs for B when root: two file systems
if is_root && mount -t tmpfs -o size=64m sbab "$T/d2" 2>/dev/null; then
	at_exit "umount '$T/d2' 2>/dev/null"
	fs2=tmpfs
else
	fs2=
fi
"$SB" compare --ab "dir=$T/d1,label=one" "dir=$T/d2,label=two" fs.stat $TINY -o "$T/dirs" >"$T/dirs.txt" 2>&1; rc=$?
check "two directories: exit 0 or 3 (got $rc)" sh -c '[ $1 = 0 ] || [ $1 = 3 ]' _ $rc
check "two directories: labels and the paired test in the output" sh -c 'grep -q "^A: one " "$1" && grep -q "^B: two " "$1" && grep -q "paired, 3 pairs" "$1"' _ "$T/dirs.txt"
check "two directories: each side ran in its own (options.dir)" sh -c '
	jget -t "$1" "d[\"options\"][\"dir\"] == \"$3\"" && jget -t "$2" "d[\"options\"][\"dir\"] == \"$4\""' _ "$T/dirs-a.json" "$T/dirs-b.json" "$T/d1" "$T/d2"
if [ -n "$fs2" ]; then
	check "two file systems: B's snapshot says tmpfs, A's not" sh -c '
		jget -t "$2" "d[\"snapshot\"][\"filesystem\"][\"type\"] == \"tmpfs\"" && ! jget -t "$1" "d[\"snapshot\"][\"filesystem\"][\"type\"] == \"tmpfs\""' _ "$T/dirs-a.json" "$T/dirs-b.json"
else
	skip "two file systems (needs root to mount a tmpfs)"
fi
check "two directories: nothing left in them" sh -c 'for d; do [ -z "$(ls -A "$d")" ] || exit 1; done' _ "$T/d1" "$T/d2"

# two settings: no tracer against ptrace, 20x or more dearer a system call
"$SB" compare --ab p=tracer=none p=tracer=ptrace proc.syscall -p filter=allow $TINY -o "$T/set" --format json >"$T/set.json" 2>"$T/set.err"; rc=$?
if jtrue "$T/set-b.json" "d['benches'][0]['status'] == 'skipped'" 2>/dev/null; then
	skip "two settings (proc.syscall with ptrace unavailable here)"
else
	check "two settings: ptrace against none is slower, exit 3 (got $rc)" sh -c '[ $1 = 3 ] && jget -t "$2" "d[\"comparisons\"][0][\"benches\"][0][\"word\"] == \"slower\" and d[\"comparisons\"][0][\"benches\"][0][\"repetition_test\"][\"design\"] == \"paired\""' _ $rc "$T/set.json"
	check "two settings: the key they differ in is off both variants, so the benches match" sh -c '
		for f; do jget -t "$f" "d[\"ab\"][\"variant_keys_dropped\"] == [\"tracer\"] and d[\"benches\"][0][\"variant\"] == \"filter=allow\"" || exit 1; done' _ "$T/set-a.json" "$T/set-b.json"
	check "two settings: each side's value stays in its params" sh -c '
		jget -t "$1" "d[\"benches\"][0][\"params\"][\"tracer\"] == \"none\"" && jget -t "$2" "d[\"benches\"][0][\"params\"][\"tracer\"] == \"ptrace\""' _ "$T/set-a.json" "$T/set-b.json"
fi
rm -f "$T/set.json"

# two builds: the same binary copied to two paths
mkdir -p "$T/b1" "$T/b2"
cp "$SB" "$T/b1/scalebench" && cp "$SB" "$T/b2/scalebench"
"$SB" compare --ab "bin=$T/b1/scalebench" "bin=$T/b2/scalebench" fs.stat $TINY --alpha 0.001 -o "$T/bins" >"$T/bins.txt" 2>&1; rc=$?
check "two builds (one binary at two paths): exit 0 (got $rc)" test $rc -eq 0
check "two builds: each side records its binary" sh -c '
	jget -t "$1" "d[\"ab\"][\"binary\"] == \"$3\"" && jget -t "$2" "d[\"ab\"][\"binary\"] == \"$4\""' _ "$T/bins-a.json" "$T/bins-b.json" "$T/b1/scalebench" "$T/b2/scalebench"

# side spec errors: exit 2 naming the problem, nothing run or left behind
bad() { # description expected-message side-a side-b [args]
	d=$1 msg=$2; shift 2
	"$SB" compare --ab "$@" $TINY -o "$T/bad" >"$T/bad.out" 2>"$T/bad.err"; rc=$?
	if [ $rc = 2 ] && grep -q -- "$msg" "$T/bad.err" && [ -z "$(ls -A "$T/tmp")" ] &&
	   [ ! -e "$T/bad-a.json" ] && [ ! -e "$T/bad-b.json" ] && [ ! -s "$T/bad.out" ]; then
		echo "ok - spec error: $d"
	else
		echo "not ok - spec error: $d (exit $rc)"; sed 's/^/    /' "$T/bad.err"
	fi
}
bad "unknown key" "unknown key 'foo'" - foo=1 fs.stat
bad "not KEY=VALUE" "is not KEY=VALUE" - bin fs.stat
bad "a binary that is not there" "bin=$T/none" - "bin=$T/none" fs.stat
bad "a binary that is not executable" "bin=$T/aa.txt: not executable" - "bin=$T/aa.txt" fs.stat
bad "a binary that is a directory" "bin=$T/d1: not a regular file" - "bin=$T/d1" fs.stat
bad "a directory that is not there" "dir=.*No such file" "dir=$T/none" - fs.stat
bad "p= without a value" "is not p=KEY=VALUE" - p=tracer proc.syscall
bad "a parameter the bench does not take" "side B: --param" - p=engine=io_uring fs.stat
bad "the same label twice" "both sides are labelled" label=x label=x fs.stat
bad "an unknown bench" "unknown bench or family" - - no.such
bad "one side only" "needs two sides" -
"$SB" compare -r 3 "$T/aa-a.json" "$T/aa-b.json" >/dev/null 2>"$T/bad.err"; rc=$?
check "run options without --ab: exit 2" sh -c '[ $1 = 2 ] && grep -q "of --ab only" "$2"' _ $rc "$T/bad.err"

# Ctrl-C: the running side stops and cleans up, nothing is written. Two
# ways: SIGINT to compare --ab alone (it passes it on to the running side)
# and a Ctrl-C (SIGINT to the whole process group: the side gets it too)
interrupt() {
	how=$1
	rm -rf "$T/d3" "$T/tmp"; mkdir -p "$T/d3" "$T/tmp"
	if [ "$how" = group ]; then
		setsid "$SB" compare --ab - - fs.stat --quick -r 5 -q --dir "$T/d3" -o "$T/int" >/dev/null 2>"$T/int.err" &
	else
		"$SB" compare --ab - - fs.stat --quick -r 5 -q --dir "$T/d3" -o "$T/int" >/dev/null 2>"$T/int.err" &
	fi
	pid=$!
	i=0 seen=0 # until a side's run is under way (it has made its scratch directory);
	# seen, not listed again: that run may end and the next begin in between
	while [ $i -lt 600 ]; do
		# its scratch directory, not the probe the checks before any work
		# make and remove (an interrupt then, SIGINT ignored in a background
		# job until the handlers are in, would be lost)
		if ls "$T/d3" | grep -q '^scalebench\.'; then seen=1; break; fi
		sleep 0.1; i=$((i + 1))
	done
	if [ "$how" = group ]; then env kill -INT -- -$pid; else kill -INT $pid; fi
	check "Ctrl-C ($how): a side's run was under way" test $seen = 1
	wait $pid; rc=$?
	check "Ctrl-C ($how): exit 130 (got $rc)" test $rc -eq 130
	check "Ctrl-C ($how): says nothing was written" grep -q "interrupted by signal 2: nothing written" "$T/int.err"
	check "Ctrl-C ($how): no temporary file left" test -z "$(ls -A "$T/tmp")"
	check "Ctrl-C ($how): no scratch directory left in --dir" test -z "$(ls -A "$T/d3")"
	check "Ctrl-C ($how): no output written" test ! -e "$T/int-a.json" -a ! -e "$T/int-b.json"
	check "Ctrl-C ($how): no process left" no_procs "$T/d3"
}
interrupt process
interrupt group
