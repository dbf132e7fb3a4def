# Every bench file is registered in src/bench/list.h and shown by `list`.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 1
for f in src/bench/*.c; do
	sym=$(sed -n 's/^const struct bench bench_\([a-z0-9_]*\) = {.*/\1/p' "$f")
	[ -z "$sym" ] && continue
	check "$f: BENCH($sym) in list.h" grep -q "^BENCH($sym)\$" src/bench/list.h
	name=$(echo "$sym" | sed 's/_/./; s/_/-/g') # fs_lookup_deep: fs.lookup-deep
	check "$f: $name in scalebench list" sh -c '"$SB" list | grep -q "^$1 "' _ "$name"
done
