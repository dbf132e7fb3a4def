# SPDX-License-Identifier: MIT
# Every bench file is registered in src/bench/list.h and shown by `list`;
# the check fails on a sample tree with a bench left out of list.h; a
# selection longer than run's limit is a usage error, not truncated.
# tier: fast (tests/run.sh --fast, make test)
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 1

# unregistered ROOT: print each bench defined in ROOT/src/bench/*.c whose
# BENCH(...) line is missing from ROOT/src/bench/list.h. Any definition of a
# `struct bench bench_X` counts, however it is laid out (const or not, the
# brace on the next line, no space before =): only extern declarations do not.
defs() { # FILE: the bench symbols it defines
	grep -v '^[[:space:]]*extern' "$1" |
		sed -n 's/^.*struct[[:space:]][[:space:]]*bench[[:space:]][[:space:]]*bench_\([a-z0-9_]*\)[[:space:]]*\(=.*\)\{0,1\}$/\1/p'
}
unregistered() {
	for f in "$1"/src/bench/*.c; do
		defs "$f" | while read -r sym; do
			grep -q "^BENCH($sym)\$" "$1/src/bench/list.h" || echo "$f: bench_$sym"
		done
	done
}
defined=$(for f in src/bench/*.c; do defs "$f"; done | wc -l)
listed=$(grep -c '^BENCH(' src/bench/list.h)
check "bench definitions found ($defined) match list.h's lines ($listed)" test "$defined" -gt 0 -a "$defined" = "$listed"
unregistered . >"$T/unreg"
check "every bench in src/bench/ is in list.h" test ! -s "$T/unreg"
[ -s "$T/unreg" ] && sed 's/^/# unregistered: /' "$T/unreg"

# the check can fail: a sample tree with one registered and two unregistered
# benches (one with its brace on the next line)
mkdir -p "$T/bad/src/bench"
printf 'BENCH(fs_a)\n' >"$T/bad/src/bench/list.h"
printf 'const struct bench bench_fs_a = {\n\t.name = "fs.a",\n};\n' >"$T/bad/src/bench/fs_a.c"
printf 'const struct bench bench_fs_b =\n{\n\t.name = "fs.b",\n};\n' >"$T/bad/src/bench/fs_b.c"
printf 'extern const struct bench bench_fs_a;\nconst struct bench bench_fs_c={.name = "fs.c"};\n' >"$T/bad/src/bench/fs_c.c"
unregistered "$T/bad" >"$T/badout"
check "the check finds the two unregistered sample benches" test "$(wc -l <"$T/badout")" = 2
check "... and names them" sh -c "grep -q 'bench_fs_b\$' '$T/badout' && grep -q 'bench_fs_c\$' '$T/badout'"

"$SB" list >"$T/list"
for f in src/bench/*.c; do
	sym=$(sed -n 's/^const struct bench bench_\([a-z0-9_]*\) = {.*/\1/p' "$f")
	[ -z "$sym" ] && continue
	# the descriptor's name (parameter tables above it have .name too)
	name=$(sed -n '/^const struct bench bench_/,$p' "$f" | grep -o '\.name = "[^"]*"' | head -1 | sed 's/.*"\(.*\)"/\1/')
	check "$f: $name in scalebench list" out_has "$T/list" "^$name "
done

# a selection longer than run takes: exit 2 with the limit named
words=$(for i in $(seq 65); do printf 'fs '; done)
# shellcheck disable=SC2086
"$SB" run --quick --no-db -d "$T" $words >"$T/sel.out" 2>"$T/sel.err"
check "65 selection words: exit 2" test $? = 2
check "... saying the limit" out_has "$T/sel.err" "at most 64 arguments"
