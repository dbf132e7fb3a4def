# SPDX-License-Identifier: MIT
# A short libFuzzer run of the result reader (fuzz/fuzz_result.c) on the
# corpus kept in fuzz/corpus, and of the job file reader (fuzz/fuzz_jobfile.c,
# fuzz/corpus-jobfile): `make -j2 fuzz`, FUZZ_SECONDS (20 here) each, the two
# at once (one a CPU). Any crash, leak or undefined behaviour fails it;
# skipped without clang. Under `make check` the two targets are already
# built (with the native build, Makefile): make finds them up to date.
# tier: serial (it builds build/fuzz with make beside the tree: run alone, as it failed once in
# 2 s beside the other steps in a fresh-clone CI run, 2026-12-04, without a log of why)
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 1
if ! command -v clang >/dev/null 2>&1; then
	skip "fuzz: clang not installed"; exit 0
fi
make -s -j2 fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-20}" >"$T/fuzz.log" 2>&1; rc=$?
check "fuzz: the result and job file readers survive ${FUZZ_SECONDS:-20} s of libFuzzer" test $rc -eq 0
check "fuzz: both ran (executed units reported twice)" test "$(grep -c "stat::number_of_executed_units: [1-9]" "$T/fuzz.log")" -ge 2
[ $rc -eq 0 ] || grep -A30 "ERROR\|SUMMARY\|crash-\|leak" "$T/fuzz.log" | head -60
