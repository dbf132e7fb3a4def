#!/bin/sh
# SPDX-License-Identifier: MIT
# How decisive scalebench's growth verdicts are on this machine, and what
# that costs (issue 35's goals; docs/method.md, "Machine drift").
#
#   sh bench/verdict-power.sh quick [RUNS]   RUNS (3) default `run --quick` on
#       each DIRS (/tmp and /dev/shm): per run its wall time, the load before
#       and after, how many of the benches are unclear, how many points were
#       measured again (slow machine) and the unsteady-machine line. Goal:
#       at most 3 unclear in every run.
#   sh bench/verdict-power.sh hogs [RUNS]    RUNS (10) default runs of the
#       verdicts the goals name, beside `stress-ng --cpu HOGS` (2): fs.create
#       on a fresh ext2 without dir_index (O(n)) and on ext4 (not O(n));
#       proc.fork to 3,000 and mem.mmap to 10,000 (O(1)); net.request select
#       and poll (O(n)), epoll and io_uring (O(1)). Prints each verdict and
#       per case: right, unclear, wrong. Goal: right >= 9 of 10, never wrong.
#       Needs root (loop devices, mkfs) for the fs.create cases.
#
#   env: SB ("./scalebench"; several binaries separated by spaces run in
#        turn, run by run, so that a comparison of their times sees the same
#        machine), DIRS ("/tmp /dev/shm"), HOGS (2; 0: none), CASES (the
#        hogs cases, default all: ext2 ext4 fork mmap select poll epoll
#        io_uring), OUT (a directory to keep the results in)
set -u
cd "$(dirname "$0")/.." || exit 2
MODE=${1:-}
SB=${SB:-./scalebench}
HOGS=${HOGS:-2}
for b in $SB; do
	[ -x "$b" ] || { echo "verdict-power: $b not built (make)" >&2; exit 2; }
done
W=$(mktemp -d /tmp/scalebench-vp.XXXXXX) || exit 1
HOGPID=
MNT=
LOOPS=
cleanup() {
	[ -n "$HOGPID" ] && kill "$HOGPID" 2>/dev/null && wait "$HOGPID" 2>/dev/null
	for m in $MNT; do umount "$m" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
OUT=${OUT:-}
[ -n "$OUT" ] && { mkdir -p "$OUT" || exit 2; }
keep() { [ -n "$OUT" ] && cp "$1" "$OUT/$2"; }
load() { cut -d' ' -f1 /proc/loadavg; }
now() { date +%s.%N; }
hogs_on() {
	[ "$HOGS" -gt 0 ] || return 0
	command -v stress-ng >/dev/null || { echo "verdict-power: stress-ng missing (tools/setup-deps.sh)" >&2; exit 2; }
	stress-ng --cpu "$HOGS" --quiet >/dev/null 2>&1 &
	HOGPID=$!
	sleep 1
}
# verdict FILE BENCH: the verdict's class of that bench in a result (BENCH
# is a name, or name[variant] as the summary labels a variant); with a
# tie ("O(n), tie O(n log n)") the class alone
verdict() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
def label(b):
    return b["name"] + ("[%s]" % b["variant"] if b.get("variant") else "")
v = [b for b in d["benches"] if sys.argv[2] in (b["name"], label(b))]
c = v[0].get("verdict", "none") if v else "missing"
print(c.get("class", "none") if isinstance(c, dict) else c)' "$1" "$2"
}

case $MODE in
quick)
	RUNS=${2:-3}
	DIRS=${DIRS:-/tmp /dev/shm}
	echo "verdict-power quick: $RUNS runs of 'run --quick --no-db' on $DIRS with $SB, load $(load)"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		i=$((i + 1))
		for d in $DIRS; do
			for b in $SB; do
				l0=$(load); t0=$(now)
				"$b" run --quick --no-db -q --dir "$d" -o "$W/r.json" >"$W/r.txt" 2>"$W/r.err"
				rc=$?
				t1=$(now); l1=$(load)
				unc=$(sed -n 's/^  unclear  *\([0-9]*\) of \([0-9]*\).*/\1 of \2/p' "$W/r.txt")
				again=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(sum((b.get("machine") or {}).get("remeasured_points", 0) for b in d["benches"]))' "$W/r.json" 2>/dev/null || echo -)
				printf 'run %d %-12s %-24s exit %d  %6.1f s  load %s..%s  unclear %s  remeasured %s\n' \
					"$i" "$d" "$b" "$rc" "$(echo "$t1 - $t0" | bc)" "$l0" "$l1" "${unc:-0}" "$again"
				grep '^  unsteady' "$W/r.txt" | sed 's/^/    /'
				keep "$W/r.json" "quick-$i-$(basename "$d")-$(echo "$b" | tr / _).json"
			done
		done
	done
	;;
hogs)
	RUNS=${2:-10}
	CASES=${CASES:-ext2 ext4 fork mmap select poll epoll io_uring}
	echo "verdict-power hogs: $RUNS default runs beside stress-ng --cpu $HOGS with $SB, cases: $CASES, load $(load)"
	hogs_on
	for c in $CASES; do eval "n_$c=0 r_$c=0 u_$c=0 w_$c=0"; done
	mkfs_fresh() { # TYPE OPTS -> mounts a fresh image on $W/m.TYPE
		img=$W/$1.img; m=$W/m.$1
		umount "$m" 2>/dev/null
		rm -f "$img"; truncate -s 256M "$img"; mkdir -p "$m"
		# shellcheck disable=SC2086
		mkfs."$1" -q -F $2 "$img" >/dev/null 2>&1 || return 1
		mount -o loop "$img" "$m" || return 1
		case " $MNT " in *" $m "*) ;; *) MNT="$MNT $m" ;; esac
	}
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		i=$((i + 1))
		for b in $SB; do
			for c in $CASES; do
				case $c in
				ext2) mkfs_fresh ext2 "-O ^dir_index" || { echo "verdict-power: no ext2 image (root?)" >&2; exit 2; }
				      args="fs.create --dir $W/m.ext2"; name=fs.create; want='O(n)'; bad='O(1) O(log n)' ;;
				ext4) mkfs_fresh ext4 "" || { echo "verdict-power: no ext4 image (root?)" >&2; exit 2; }
				      args="fs.create --dir $W/m.ext4"; name=fs.create; want='O(1) O(log n)'; bad='O(n) O(n log n) O(n^2)' ;;
				fork) args="proc.fork -n 3000"; name=proc.fork; want='O(1)'; bad='O(log n) O(n) O(n log n) O(n^2)' ;;
				mmap) args="mem.mmap -n 10000"; name=mem.mmap; want='O(1)'; bad='O(log n) O(n) O(n log n) O(n^2)' ;;
				select|poll) args="net.request -p mech=$c"; name="net.request[mech=$c]"; want='O(n)'; bad='O(1) O(log n)' ;;
				epoll|io_uring) args="net.request -p mech=$c"; name="net.request[mech=$c]"; want='O(1)'; bad='O(log n) O(n) O(n log n) O(n^2)' ;;
				*) echo "verdict-power: unknown case $c" >&2; exit 2 ;;
				esac
				l0=$(load); t0=$(now)
				# shellcheck disable=SC2086
				"$b" run $args --no-db -q -o "$W/r.json" >"$W/r.txt" 2>"$W/r.err"
				t1=$(now)
				v=$(verdict "$W/r.json" "$name" 2>/dev/null || echo missing)
				word=wrong
				case " $want " in *" $v "*) word=right ;; esac
				[ "$v" = unclear ] && word=unclear
				[ "$word" = wrong ] && case " $bad " in *" $v "*) ;; *) [ "$v" = missing ] || word="wrong?" ;; esac
				eval "n_$c=\$((n_$c + 1))"
				case $word in right) eval "r_$c=\$((r_$c + 1))" ;; unclear) eval "u_$c=\$((u_$c + 1))" ;; *) eval "w_$c=\$((w_$c + 1))" ;; esac
				printf 'run %2d %-9s %-10s %-8s %6.1f s  load %s  %s\n' "$i" "$c" "$v" "$word" \
					"$(echo "$t1 - $t0" | bc)" "$l0" "$(awk -v n="$name " 'index($0, n) == 1 { print $(NF-2), $(NF-1), $NF; exit }' "$W/r.txt")"
				keep "$W/r.json" "hogs-$i-$c-$(echo "$b" | tr / _).json"
			done
		done
	done
	echo "totals (beside $HOGS hogs, load now $(load)):"
	for c in $CASES; do
		eval "printf '  %-9s right %d of %d, unclear %d, wrong %d\n' $c \$r_$c \$n_$c \$u_$c \$w_$c"
	done
	;;
*)
	echo "usage: sh bench/verdict-power.sh quick|hogs [RUNS]" >&2
	exit 2
	;;
esac
