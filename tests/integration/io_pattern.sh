#!/bin/sh
# SPDX-License-Identifier: MIT
# tier: fast (tests/run.sh --fast, make test)
# The submit/reap pattern of the async engines, counted with strace: at
# batch 1 (the default, fio's default job) libaio makes one io_submit of one
# request and one io_getevents(min 1, max 1) per request; at batch B at most
# B per io_submit and per io_getevents; io_uring's ring has a completion ring
# of depth entries (fio's IORING_SETUP_CQSIZE) and submits one request per
# io_uring_enter at batch 1, asking for completions (GETEVENTS) as fio does;
# every point of both records its submitting thread's own CPU apart from the
# process's (submitter_cpu_s: fio reports its job thread's).
# The counts are exact (every request of the run is one the point counted),
# so the machine's load does not matter. Skips without strace, when ptrace
# is refused, or when the engine is not in this build.
. "$(dirname "$0")/lib.sh"
if ! command -v strace >/dev/null; then skip "io_pattern.sh (strace not installed)"; exit 0; fi
if ! strace -qq -o /dev/null true 2>/dev/null; then skip "io_pattern.sh (strace cannot trace here)"; exit 0; fi

# traced ENGINE DEPTH BATCH NAME: run io.randread at one point under strace;
# the trace is $T/NAME.st, the result $T/NAME.json; 1 when the engine skipped
traced() {
	mkdir -p "$T/$4"
	strace -f -qq -e trace=io_submit,io_getevents,io_uring_setup,io_uring_enter -o "$T/$4.st" \
		"$SB" run io.randread -p engine="$1" -p direct=0 -p batch="$3" -p size_mib=4 --dir "$T/$4" \
		--min-n "$2" --max-n "$2" --budget 0.3 -r 1 -q --no-db -o "$T/$4.json" >/dev/null 2>"$T/$4.err"
	jtrue "$T/$4.json" "every(b['status'] == 'ok' for b in d['benches'])"
}
ops() { jget "$T/$1.json" "sum(p['ops'] for b in d['benches'] for r in b['repetitions'] for p in r['points'])"; }
# submitter NAME: the point's extra.submitter_cpu_s (the submitting thread's
# own CPU, fio's RUSAGE_THREAD scope) is there, took CPU, and is at most the
# whole process's CPU in the window (per_op x ops; 2 ms for the rusage reads)
submitter() {
	jtrue "$T/$1.json" "all(all((lambda t, u: t['user'] >= 0 and t['sys'] >= 0 and t['user'] + t['sys'] > 0 and \
		t['user'] + t['sys'] <= (u['user_s'] + u['sys_s']) * p['ops'] + 0.002)(p['extra']['submitter_cpu_s'], p['per_op']) \
		for p in r['points']) and r['points'] for b in d['benches'] for r in b['repetitions']) and len(d['benches']) > 0"
}
# calls NAME SYSCALL: how many times it was called
calls() { grep -c "^[0-9]* *$2(" "$T/$1.st"; }
# args NAME SYSCALL K: the K-th argument (1-based, numbers only) of every call, one a line
args() { sed -n "s/^[0-9]* *$2(\([^[{]*\).*/\1/p" "$T/$1.st" | cut -d, -f"$3" | tr -d ' '; }

if traced libaio 4 1 a1; then
	n=$(ops a1)
	check "libaio batch 1: requests were counted" test "$n" -gt 0
	check "libaio batch 1: one io_submit per request ($n)" test "$(calls a1 io_submit)" = "$n"
	check "libaio batch 1: one io_getevents per request ($n)" test "$(calls a1 io_getevents)" = "$n"
	check "libaio batch 1: every io_submit carries one request" test "$(args a1 io_submit 2 | grep -vcx 1)" = 0
	check "libaio batch 1: every io_getevents asks for at least 1 and at most 1" \
		test "$(args a1 io_getevents 2-3 | grep -vcx 1,1)" = 0
	check "libaio: the submitting thread's own CPU is recorded (submitter_cpu_s), within the process's" submitter a1
else
	skip "libaio batch 1 (engine not measured here)"
fi

if traced libaio 8 4 a4; then
	n=$(ops a4)
	check "libaio batch 4: the requests submitted are the requests counted ($n)" \
		test "$(args a4 io_submit 2 | awk '{s += $1} END {print s + 0}')" = "$n"
	check "libaio batch 4: at most 4 per io_submit, and 4 at a time at the start" \
		sh -c '[ "$(echo "$1" | sort -n | tail -1)" = 4 ]' _ "$(args a4 io_submit 2)"
	check "libaio batch 4: every io_getevents asks for at least 1 and at most 4 (or what is in flight)" \
		test "$(args a4 io_getevents 2-3 | grep -vcE '^1,[1-4]$')" = 0
	check "libaio batch 4: fewer io_getevents than requests" test "$(calls a4 io_getevents)" -lt "$n"
else
	skip "libaio batch 4 (engine not measured here)"
fi

if traced io_uring 4 1 u1; then
	n=$(ops u1)
	check "io_uring: a completion ring of depth (4) entries, as fio's" grep -q "io_uring_setup(4, {.*cq_entries=4[,}]" "$T/u1.st"
	check "io_uring batch 1: the requests submitted are the requests counted ($n)" \
		test "$(args u1 io_uring_enter 2 | awk '{s += $1} END {print s + 0}')" = "$n"
	check "io_uring batch 1: at most one request per io_uring_enter" \
		test "$(args u1 io_uring_enter 2 | grep -vcxE '[01]')" = 0
	check "io_uring batch 1: every submitting io_uring_enter asks for completions (GETEVENTS)" \
		test "$(grep "io_uring_enter([0-9]*, 1," "$T/u1.st" | grep -vc IORING_ENTER_GETEVENTS)" = 0
	check "io_uring: the submitting thread's own CPU is recorded (submitter_cpu_s), within the process's" submitter u1
else
	skip "io_uring batch 1 (engine not measured here)"
fi
