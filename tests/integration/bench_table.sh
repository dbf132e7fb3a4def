# SPDX-License-Identifier: MIT
# Every bench file is registered in src/bench/list.h and shown by `list`.
# tier: fast (tests/run.sh --fast, make test)
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 1
"$SB" list >"$T/list"
for f in src/bench/*.c; do
	sym=$(sed -n 's/^const struct bench bench_\([a-z0-9_]*\) = {.*/\1/p' "$f")
	[ -z "$sym" ] && continue
	check "$f: BENCH($sym) in list.h" grep -q "^BENCH($sym)\$" src/bench/list.h
	# the descriptor's name (parameter tables above it have .name too)
	name=$(sed -n '/^const struct bench bench_/,$p' "$f" | grep -o '\.name = "[^"]*"' | head -1 | sed 's/.*"\(.*\)"/\1/')
	check "$f: $name in scalebench list" out_has "$T/list" "^$name "
done
