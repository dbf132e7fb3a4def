#!/bin/sh
# SPDX-License-Identifier: MIT
# The benches and parameters von Leitner's 2003 set added (docs/benches.md):
# net.bind family=ipv6, proc.fork image=static, proc.cleanup, mem.mmap
# backing=file, proc.thread, fs.manymap, each on real sockets, processes,
# threads, files and mappings at small N: each measures every point, holds
# the load it says (the kernel's view: /proc of the worker while it runs),
# and leaves nothing behind (no process, no file), also after Ctrl-C.
# No timing is asserted: the figures are for bench/leitner-crosscheck.sh.
# tier: fast (tests/run.sh --fast, make test)
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/target"
R="--no-db -q -b 0.05 --dir $T/target"
# ran FILE BENCH NS: the bench ran and measured exactly the points NS ("1,2,5")
ran() { jtrue "$1" "$(B "$2")['status'] == 'ok' and [p['n'] for p in $(B "$2")['repetitions'][0]['points']] == [$3]"; }

# net.bind: IPv4 by default, IPv6 with family=ipv6 (skipped without ::1)
"$SB" run net.bind -n 20 $R -o "$T/b4.json" >/dev/null 2>&1
check "net.bind: measured 1..20" ran "$T/b4.json" net.bind "1,2,5,10,20"
"$SB" run net.bind -p family=ipv6 -n 20 $R -o "$T/b6.json" >/dev/null 2>&1
if jtrue "$T/b6.json" "$(B net.bind)['status'] == 'skipped'"; then
	skip "net.bind family=ipv6: $(jget "$T/b6.json" "$(B net.bind)['skip_reason']")"
else
	check "net.bind family=ipv6: measured 1..20" ran "$T/b6.json" net.bind "1,2,5,10,20"
fi
"$SB" run net.bind -p family=ipv5 -n 20 $R -o "$T/bad.json" >/dev/null 2>"$T/bad.err"
check "net.bind family=ipv5: exit 2 naming the value" sh -c "test $? -eq 2 && grep -q ipv5 '$T/bad.err' && test ! -e '$T/bad.json'"

# mem.mmap backing=file: a 1 MiB file has 128 every-other pages: at N=200
# the note says the mappings wrap; the worker holds N shared mappings of it
"$SB" run mem.mmap -p backing=file -p file_mib=1 -n 200 --min-n 200 $R -o "$T/m.json" >/dev/null 2>&1
check "mem.mmap backing=file: measured N=200" ran "$T/m.json" mem.mmap 200
check "mem.mmap backing=file: the note says the file's pages are mapped again" jtrue "$T/m.json" "any('map its pages again' in n for n in $(B mem.mmap)['notes'])"
check "mem.mmap backing=file: the file is gone" empty_dir "$T/target"

# most_children PID: the most children any process at or below PID has
# (one ps for the whole tree: a walk with pgrep per process is too slow to
# see a short point)
most_children() {
	ps -e -o pid=,ppid= | awk -v root="$1" '
		{ par[$1] = $2; kids[$2]++ }
		END { m = 0; for (p in par) { q = p; while (q != "" && q != root && q in par && q != 1) q = par[q];
			if (q == root && kids[p] > m) m = kids[p] }
			if (kids[root] > m) m = kids[root]; print m + 0 }'
}
# holds WHAT WANT BENCH ARGS: run it with a long budget, four repetitions
# (four windows: a loaded machine may miss one between two looks), and while
# it runs read its processes' /proc, until WANT of WHAT are seen (then it is
# interrupted: the check needs no more looks) or for 600 looks; prints the
# most WHAT seen (mapfile|manymap: mappings of the bench's files; threads;
# children)
holds() {
	what=$1 want=$2; shift 2
	"$SB" run "$@" -r 4 --no-db -q -b 3 --ci 0.1 --dir "$T/target" -o "$T/h.json" >/dev/null 2>&1 &
	pid=$!
	best=0
	i=0
	while kill -0 $pid 2>/dev/null && [ $i -lt 600 ] && [ "$best" -lt "$want" ]; do
		if [ "$what" = children ]; then
			v=$(most_children $pid)
			[ "${v:-0}" -gt "$best" ] && best=$v
		else
			for p in $pid $(pgrep -P $pid); do
				case $what in
				mapfile) v=$(grep -c "$T/target/.*/mapped" "/proc/$p/maps" 2>/dev/null) ;;
				threads) v=$(awk '/^Threads:/ {print $2}' "/proc/$p/status" 2>/dev/null) ;;
				manymap) v=$(grep -c "$T/target/.*/d0" "/proc/$p/maps" 2>/dev/null) ;;
				esac
				[ "${v:-0}" -gt "$best" ] && best=$v
			done
		fi
		i=$((i + 1))
		sleep 0.02
	done
	kill -INT $pid 2>/dev/null
	wait $pid
	echo "$best"
}
if [ "$(uname -s)" = Linux ]; then
	n=$(holds mapfile 300 mem.mmap -p backing=file -p file_mib=4 -n 300 --min-n 300)
	check "mem.mmap backing=file: the worker held 300 mappings of the file (saw $n)" test "$n" -ge 300
	n=$(holds threads 201 proc.thread -n 200 --min-n 200)
	check "proc.thread: the worker had 200 threads and more (saw $n)" test "$n" -gt 200
	n=$(holds children 100 proc.cleanup -n 100 --min-n 100)
	check "proc.cleanup: the worker had 100 sleeping children (saw $n)" test "$n" -ge 100
	n=$(holds manymap 50 fs.manymap -p per_dir=10 -n 50 --min-n 50)
	check "fs.manymap: the worker held 50 mapped files (saw $n)" test "$n" -ge 50
fi
check "nothing left in the target after the interrupted runs" empty_dir "$T/target"

# proc.thread, proc.cleanup: every point, nothing alive after
"$SB" run proc.thread proc.cleanup -n 50 $R -o "$T/p.json" >/dev/null 2>&1
check "proc.thread: measured 1..50" ran "$T/p.json" proc.thread "1,2,5,10,20,50"
check "proc.cleanup: measured 1..50" ran "$T/p.json" proc.cleanup "1,2,5,10,20,50"

# fs.manymap: 100 per directory by default; per_dir=7 at N=50 too
"$SB" run fs.manymap -n 200 $R -o "$T/f.json" >/dev/null 2>&1
check "fs.manymap: measured 1..200" ran "$T/f.json" fs.manymap "1,2,5,10,20,50,100,200"
"$SB" run fs.manymap -p per_dir=7 -p file_bytes=5000 -n 50 --min-n 50 $R -o "$T/f7.json" >/dev/null 2>&1
check "fs.manymap per_dir=7, 5000-byte files: measured N=50" ran "$T/f7.json" fs.manymap 50
check "fs.manymap: nothing left in the target" empty_dir "$T/target"

# proc.fork image=static: scalebench-forker forks, a static program with
# fewer mappings than scalebench (the note gives both), gone afterwards
FORKER="$(dirname "$SB")/scalebench-forker"
if [ ! -x "$FORKER" ]; then
	skip "proc.fork image=static: no scalebench-forker beside $SB (POSIX-only build?)"
else
	check "scalebench-forker is statically linked (no program interpreter)" sh -c "! LC_ALL=C readelf -l '$FORKER' | grep -q INTERP"
	check "scalebench-forker alone: exit 2 and a usage line" sh -c "'$FORKER' x 2>&1 | grep -q 'started by scalebench'; '$FORKER' x 2>/dev/null; test \$? -eq 2"
	"$SB" run proc.fork -p image=static -n 20 $R -o "$T/s.json" >/dev/null 2>&1
	check "proc.fork image=static: measured 1..20" ran "$T/s.json" proc.fork "1,2,5,10,20"
	note=$(jget "$T/s.json" "[n for n in $(B proc.fork)['notes'] if 'forker' in n][0]")
	m=$(echo "$note" | sed -n 's/.*(static), \([0-9]*\) mappings; scalebench.s has \([0-9]*\).*/\1 \2/p')
	check "proc.fork image=static: the forker has fewer mappings than scalebench ($m)" sh -c "set -- $m; test \$# = 2 && test \$1 -lt \$2"
	check "proc.fork image=static: no forker left" no_procs "$FORKER"
	n=$(holds children 60 proc.fork -p image=static -n 60 --min-n 60)
	check "proc.fork image=static: the forker had the 60 sleepers (saw $n)" test "$n" -ge 60
	check "proc.fork image=static: no forker left after Ctrl-C" no_procs "$FORKER"
	"$SB" run proc.fork -p image=static --tasks 1 -n 5 $R -o "$T/st.json" >/dev/null 2>&1
	check "proc.fork image=static under --tasks: fails naming it" jtrue "$T/st.json" "$(B proc.fork)['status'] == 'failed' and 'not under --tasks' in $(B proc.fork)['repetitions'][0]['failure']['message']"
fi
