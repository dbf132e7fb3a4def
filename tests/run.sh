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
# A failing step's whole output is kept in $FAILED_LOGS (/tmp).
cd "$(dirname "$0")/.." || exit 2
fast=0
[ "${1:-}" = --fast ] && fast=1
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

# queue NAME 'CMD': a step for the pool (run_queue); CMD is a shell command
# line, quoted as such (no tab or newline)
queue() {
	printf '%s\t%s\n' "$1" "$2" >>"$log/queue"
}

# run_queue: TEST_JOBS workers take the queued steps in order (each claims
# the next one with mkdir, atomic), each step's output in a file of its
# own; then every step is reported in queue order.
run_queue() {
	[ -s "$log/queue" ] || return 0
	w=0
	while [ $w -lt "$TEST_JOBS" ]; do
		(
			trap - EXIT
			i=0
			while IFS='	' read -r name cmd; do
				i=$((i + 1))
				mkdir "$log/claim.$i" 2>/dev/null || continue
				t0=$(date +%s)
				eval "timeout -k 10 \"\$STEP_TIMEOUT\" $cmd" >"$log/q$i.out" 2>&1 </dev/null
				echo "$? $(( $(date +%s) - t0 ))" >"$log/q$i.rc"
			done <"$log/queue"
		) &
		w=$((w + 1))
	done
	wait
	i=0
	while IFS='	' read -r name cmd; do
		i=$((i + 1))
		read -r rc secs <"$log/q$i.rc" || { rc=1; secs=0; }
		report "$name" "$log/q$i.out" "$rc" "$secs"
	done <"$log/queue"
	rm -f "$log/queue" "$log"/q*.out "$log"/q*.rc; rm -rf "$log"/claim.*
}

variants="native native-san posix"
[ $fast = 1 ] && variants=native
for variant in $variants; do
	for t in build/$variant/tests/test_*; do
		[ -x "$t" ] && queue "unit/$variant/$(basename "$t")" "$t"
	done
done

serial=""
if [ $fast = 0 ] && command -v valgrind >/dev/null 2>&1; then
	VG="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99"
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
			queue "integration/$variant/$t" "env SB='$PWD/build/$variant/scalebench' SB_VARIANT=$variant sh tests/integration/$t.sh"
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
# together; steps of equal time in the order queued.
if [ -s "$log/queue" ]; then
	awk -F'\t' -v durs=tests/durations 'BEGIN { while ((getline l <durs) > 0) if (l !~ /^#/ && split(l, f, " ") == 2) dur[f[2]] = f[1] }
		{ printf "%d\t%d\t%s\n", ($1 in dur) ? dur[$1] : 10, FNR, $0 }' "$log/queue" |
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
