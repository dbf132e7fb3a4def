#!/bin/sh
# SPDX-License-Identifier: MIT
# The test runner: unit tests of every build variant (native, ASan+UBSan,
# POSIX-only), integration tests against the real binary, and a valgrind
# pass. Each check prints a line; the last line is the tally
# "N passed, N failed, N skipped", after the wall time of the slowest steps.
# tests/run.sh --fast (`make test`): the native unit tests and the
# integration scripts that carry a line "# tier: fast" (each a few seconds),
# for everyday work; `make check` runs everything.
# The unit, integration and valgrind steps run TEST_JOBS at a time (default
# 2: the machine's two cores), the longest first (tests/durations); each
# test has its own scratch directory, database, names and ports (lib.sh,
# COMMON.md), so they do not meet. A script with a line "# tier: serial"
# runs alone, after the others. TEST_JOBS=1: one at a time.
# tests/run.sh --build (`make check`, after the native build): the
# ASan+UBSan and the POSIX-only builds run beside the TEST_JOBS workers,
# one after the other, by a worker of their own (at nice 5, make -s
# -jTEST_JOBS), and the steps of a variant wait for its build: the builds
# take the CPU time the tests leave idle (a test step waits on files,
# sockets and sleeps some of its time) instead of 70 s before any test.
# A failed build fails the steps that wait for it (not run), the
# POSIX-only build included.
# A failing step's whole output is kept in $FAILED_LOGS (/tmp).
cd "$(dirname "$0")/.." || exit 2
fast=0 build=0
case ${1:-} in --fast) fast=1 ;; --build) build=1 ;; esac
passed=0; failed=0; skipped=0
log=$(mktemp -d /tmp/scalebench-tests.XXXXXX)
trap 'rm -rf "$log"' EXIT
STEP_TIMEOUT=${STEP_TIMEOUT:-600}
# The Debian package is built once per run, by the first test that needs
# it (deb.sh, fleet_ansible.sh: lib.sh deb_build), here
SB_DEB_CACHE="$log/deb"; export SB_DEB_CACHE
FAILED_LOGS=${FAILED_LOGS:-/tmp}
TEST_JOBS=${TEST_JOBS:-2}

count() { # $1 = file with "ok|not ok|skip" lines or "name: N passed, M failed"
	p=$(grep -c '^ok ' "$1"); f=$(grep -c '^not ok ' "$1"); s=$(grep -c '^skip ' "$1")
	for t in $(sed -n 's/^[a-z_]*: \([0-9]*\) passed, \([0-9]*\) failed$/\1:\2/p' "$1"); do
		p=$((p + ${t%%:*})); f=$((f + ${t##*:}))
	done
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
}

# report NAME OUT RC SECS: count a finished step's checks, show failing
# output; a step that exits non-zero without a failing check counts one
# failure. Every step's wall time goes to $log/times.
report() {
	name=$1 out=$2 rc=$3 secs=$4
	echo "$secs $name" >>"$log/times"
	before=$failed
	count "$out"
	if [ "$rc" -ne 0 ] && [ $failed -eq $before ]; then
		failed=$((failed + 1))
		echo "not ok - $name exited $rc"
	fi
	if [ $failed -ne $before ]; then
		keep="$FAILED_LOGS/scalebench-test-$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' _).log"
		cp "$out" "$keep" 2>/dev/null || keep="(not kept: $FAILED_LOGS not writable)"
		echo "--- $name (exit $rc, ${secs}s; whole output: $keep):"; sed 's/^/    /' "$out" | tail -60
	else
		echo "$name: $(grep -c '^ok \|passed,' "$out") checks passed, exit $rc, ${secs}s"
	fi
}

# run NAME CMD...: run a step now, in this shell, and report it
run() {
	name=$1; shift
	t0=$(date +%s)
	timeout -k 10 "$STEP_TIMEOUT" "$@" >"$log/out" 2>&1 </dev/null
	rc=$?
	report "$name" "$log/out" $rc $(( $(date +%s) - t0 ))
}

# queue NAME 'CMD' [AFTER]: a step for the pool (run_queue); CMD is a shell
# command line, quoted as such (no tab or newline); AFTER, the name of a
# step that must end before this one starts (its build)
queue() {
	printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >>"$log/queue"
}
# done_mark NAME: the file that holds a finished step's exit status
done_mark() { printf '%s/done.%s' "$log" "$(printf '%s' "$1" | tr -c 'A-Za-z0-9._-' _)"; }

# run_queue: TEST_JOBS workers take the queued steps in order (each claims
# the first one it may start with mkdir, atomic; a step whose AFTER has not
# ended is passed over, and taken once it has), each step's output in a
# file of its own; then every step is reported in queue order. A step
# whose AFTER failed is not run: it fails, naming it. The build/* steps
# (--build) are taken by one more worker (w = -1) of their own, beside.
run_queue() {
	[ -s "$log/queue" ] || return 0
	w=0
	grep -q '^build/' "$log/queue" && w=-1
	while [ $w -lt "$TEST_JOBS" ]; do
		(
			trap - EXIT
			while :; do
				i=0 took=0 waiting=0
				while IFS='	' read -r name cmd after; do
					i=$((i + 1))
					case $name in build/*) [ $w = -1 ] || continue ;; *) [ $w = -1 ] && continue ;; esac
					[ -e "$log/claim.$i" ] && continue
					if [ -n "$after" ] && [ ! -s "$(done_mark "$after")" ]; then waiting=1; continue; fi
					mkdir "$log/claim.$i" 2>/dev/null || continue
					took=1
					t0=$(date +%s)
					if [ -n "$after" ] && [ "$(cat "$(done_mark "$after")")" != 0 ]; then
						echo "not ok - $name: not run ($after failed)" >"$log/q$i.out"; rc=1
					else
						eval "timeout -k 10 \"\$STEP_TIMEOUT\" $cmd" >"$log/q$i.out" 2>&1 </dev/null
						rc=$?
					fi
					echo "$rc $(( $(date +%s) - t0 ))" >"$log/q$i.rc"
					echo "$rc" >"$(done_mark "$name").tmp" && mv "$(done_mark "$name").tmp" "$(done_mark "$name")"
					break # from the top again: the longest step that may start now
				done <"$log/queue"
				[ $took = 1 ] && continue
				[ $waiting = 1 ] || break
				sleep 1
			done
		) &
		w=$((w + 1))
	done
	wait
	i=0
	while IFS='	' read -r name cmd after; do
		i=$((i + 1))
		read -r rc secs <"$log/q$i.rc" || { rc=1; secs=0; }
		report "$name" "$log/q$i.out" "$rc" "$secs"
	done <"$log/queue"
	rm -f "$log/queue" "$log"/q*.out "$log"/q*.rc "$log"/done.*; rm -rf "$log"/claim.*
}

variants="native native-san posix"
[ $fast = 1 ] && variants=native
# after VARIANT: the step that builds it (--build), which its steps wait for
after() { [ $build = 1 ] && [ "$1" != native ] && echo "build/$1"; }
if [ $build = 1 ]; then
	queue build/native-san "nice -n 5 make -s -j$TEST_JOBS unit SANITIZE=address,undefined"
	queue build/posix "nice -n 5 make -s -j$TEST_JOBS unit POSIX_ONLY=1" build/native-san
fi
for variant in $variants; do
	if [ -n "$(after $variant)" ]; then
		# not built yet: the programs its build makes, one per tests/unit/test_*.c
		for c in tests/unit/test_*.c; do
			t=build/$variant/tests/$(basename "$c" .c)
			queue "unit/$variant/$(basename "$t")" "$t" "build/$variant"
		done
		continue
	fi
	for t in build/$variant/tests/test_*; do
		[ -x "$t" ] && queue "unit/$variant/$(basename "$t")" "$t"
	done
done

serial=""
if [ $fast = 0 ] && command -v valgrind >/dev/null 2>&1; then
	# --vgdb=no: valgrind's gdbserver FIFOs (/tmp/vgdb-pipe-*) stay behind
	# when a process under it is killed (a worker, a peer): 123 per run of
	# valgrind_run.sh before
	VG="valgrind -q --vgdb=no --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99"
	queue "valgrind/run" "env SB_WRAP='$VG' SB='$PWD/scalebench' sh tests/valgrind_run.sh"
fi
for t in tests/integration/*.sh; do
	b=$(basename "$t" .sh)
	[ "$b" = lib ] && continue
	[ $fast = 1 ] && ! grep -q '^# tier: fast' "$t" && continue
	if grep -q '^# tier: serial' "$t"; then serial="$serial $t"; continue; fi
	queue "integration/$b" "env SB='$PWD/scalebench' sh $t"
done
if [ $fast = 0 ]; then
	# The same binary behaviours under the sanitizers and the POSIX-only build.
	for variant in native-san posix; do
		for t in cli quick_tmpdir sigint worker ulimit badinput io_benches placement params; do
			queue "integration/$variant/$t" "env SB='$PWD/build/$variant/scalebench' SB_VARIANT=$variant sh tests/integration/$t.sh" "$(after $variant)"
		done
	done
	if [ -n "${VG:-}" ]; then
		for t in build/native/tests/test_*; do
			# pure arithmetic, or (test_sweep) verdicts on timed synthetic costs that
			# valgrind's slowdown makes flaky (1 run in 2 at the base commit): ASan covers them
			case $t in *test_fit|*test_hist|*test_sweep) continue ;; esac
			queue "valgrind/$(basename "$t")" "env SB_TEST_QUICK=1 $VG $t"
		done
	fi
fi
# The longest steps first (tests/durations: each step's wall time in a
# full run; a step not listed counts 10 s), so that the workers end
# together; steps of equal time in the order queued. The builds (--build)
# come first whatever their time: every step of their variant waits for them.
if [ -s "$log/queue" ]; then
	awk -F'\t' -v durs=tests/durations 'BEGIN { while ((getline l <durs) > 0) if (l !~ /^#/ && split(l, f, " ") == 2) dur[f[2]] = f[1] }
		{ printf "%d\t%d\t%s\n", ($1 ~ /^build\//) ? 1000000 : ($1 in dur) ? dur[$1] : 10, FNR, $0 }' "$log/queue" |
		sort -k1,1rn -k2,2n | cut -f3- >"$log/queue.sorted" && mv "$log/queue.sorted" "$log/queue"
fi
run_queue
for t in $serial; do
	run "integration/$(basename "$t" .sh)" env SB="$PWD/scalebench" sh "$t"
done

# this run's times, the form of tests/durations (refreshed from a full run)
[ $fast = 0 ] && [ -d build ] && sort -k1,1rn -k2,2 "$log/times" >build/test-durations 2>/dev/null
echo "slowest steps (wall seconds, $TEST_JOBS at a time):"
sort -rn "$log/times" | head -10 | sed 's/^/    /'
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
