#!/bin/sh
# SPDX-License-Identifier: MIT
# Rewrites the #include "NAME.h" lines of src/, tests/ and fuzz/ that name
# a header of src/ by its bare name into "LAYER/NAME.h" (src/core/bench.h:
# "core/bench.h"), so that a line shows which layer it reaches
# (docs/architecture.md); tests/integration/layers.sh fails on one that
# does not. Idempotent: a line that names its layer already, or a header
# that is not in src/ (tests/unit/t.h, <jansson.h>), is left as it is.
# The Makefile's -Isrc resolves the new lines; the per-layer -I flags stay,
# so that a branch written before this still builds.
# Usage: sh tools/layer-includes.sh [--check]   (--check: list, change nothing; exit 1 if any)
set -e
cd "$(dirname "$0")/.."
check=0
[ "${1:-}" = --check ] && check=1
# the headers of src/: NAME LAYER, one each (a name in two layers is refused)
map=$(mktemp)
trap 'rm -f "$map" "$map.new"' EXIT
for h in src/*/*.h; do
	d=${h%/*}
	echo "${h##*/} ${d##*/}"
done | sort >"$map"
dup=$(cut -d' ' -f1 "$map" | uniq -d)
if [ -n "$dup" ]; then
	echo "layer-includes: a header name in two layers: $dup" >&2
	exit 1
fi
n=0
for f in src/*.c src/*/*.[ch] tests/*/*.[ch] fuzz/*.[ch]; do
	[ -f "$f" ] || continue
	awk -v mapf="$map" '
	BEGIN { while ((getline l < mapf) > 0) { split(l, a, " "); layer[a[1]] = a[2] } }
	{
		if (match($0, /^[ \t]*#[ \t]*include[ \t]*"[^"\/]*"/)) {
			s = substr($0, RSTART, RLENGTH)
			q = index(s, "\"")
			name = substr(s, q + 1, length(s) - q - 1)
			if (name in layer) {
				sub("\"" name "\"", "\"" layer[name] "/" name "\"")
				changed++
			}
		}
		print
	}
	END { exit changed ? 0 : 3 }' "$f" >"$map.new" && rc=0 || rc=$?
	if [ $rc = 0 ]; then
		n=$((n + 1))
		if [ $check = 1 ]; then
			echo "$f"
		else
			cat "$map.new" >"$f"
		fi
	elif [ $rc != 3 ]; then
		echo "layer-includes: $f: awk failed" >&2
		exit 1
	fi
done
if [ $check = 1 ]; then
	[ $n = 0 ] || { echo "layer-includes: $n files with includes that do not name their layer" >&2; exit 1; }
else
	echo "layer-includes: $n files rewritten"
fi
