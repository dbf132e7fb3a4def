# SPDX-License-Identifier: MIT
# Bad result files given to compare and report: truncated, malformed,
# wrong version, hostile values. Each gets exit 2 and one message naming
# the file and what is wrong; nothing crashes (no signal, no sanitizer
# report) and no output file is left behind.
# tier: fast (tests/run.sh --fast, make test)
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/target"
"$SB" run fs.stat --dir "$T/target" --max-n 5 --budget 0.005 -q --no-db -o "$T/good.json" >/dev/null 2>&1
check "a good result to start from" test -s "$T/good.json"

head -c 500 "$T/good.json" >"$T/truncated.json"
: >"$T/empty.json"
printf 'not json at all' >"$T/text.json"
head -c 2000 /dev/urandom >"$T/binary.json"
printf '[1, 2, 3]' >"$T/array.json"
printf '{"a": 1, "a": 2}' >"$T/dupkey.json"
mkdir -p "$T/dir.json"
# copies of good.json, each changed by one python statement (one python
# process for all: its start-up is slow)
python3 -c '
import json, sys
src, out = sys.argv[1], sys.argv[2]
cases = {
    "version.json": "d[\"schema_version\"] = 2",
    "noschema.json": "del d[\"schema_version\"]",
    "nobenches.json": "del d[\"benches\"]",
    "negn.json": "p[\"n\"] = -1",
    "hugebatch.json": "p[\"batch\"] = 10**12",
    "binidx.json": "p[\"histogram\"][\"bins\"] = [[10**9, 1]]",
    "binneg.json": "p[\"histogram\"][\"bins\"] = [[5, -3]]",
    "binshape.json": "p[\"histogram\"][\"bins\"] = [[1, 2, 3]]",
    "layout.json": "p[\"histogram\"][\"sub_buckets\"] = 64",
    "stop.json": "p[\"stop\"] = \"<b>bogus</b>\"",
    "class.json": "b[\"verdict\"][\"class\"] = \"O(n!)\"",
    "p50.json": "p[\"stats\"][\"p50_ns\"] = \"fast\"",
    "name.json": "b[\"name\"] = 42",
    "deep.json": "d[\"snapshot\"] = \"DEEP\"",
}
for name, stmt in cases.items():
    d = json.load(open(src))
    b = d["benches"][0]; r = b["repetitions"][0]; p = r["points"][0]
    exec(stmt)
    text = json.dumps(d).replace("\"DEEP\"", "[" * 5000 + "]" * 5000)
    open(out + "/" + name, "w").write(text)
' "$T/good.json" "$T"
# the hostile copies are not results (lib.sh checks good.json against the schema)
for f in "$T"/*.json; do [ "$f" = "$T/good.json" ] || schema_exempt "$f"; done

expect_bad() { # file pattern
	f=$1; pat=$2
	for cmd in compare report; do
		if [ $cmd = compare ]; then
			"$SB" compare "$T/good.json" "$T/$f" >"$T/out" 2>"$T/err"; rc=$?
		else
			"$SB" report "$T/good.json" "$T/$f" -o "$T/rep.html" >"$T/out" 2>"$T/err"; rc=$?
		fi
		if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "$T/$f" "$T/err" &&
		   grep -q -- "$pat" "$T/err" && ! grep -qi "sanitizer\|runtime error" "$T/err" && [ ! -e "$T/rep.html" ]; then
			echo "ok - $cmd: $f rejected: $pat"
		else
			echo "not ok - $cmd: $f (exit $rc): $(cat "$T/err")"
		fi
	done
}
expect_bad truncated.json "end of\|invalid token\|expected near" # where the cut falls decides jansson's words
expect_bad empty.json "end of file"
expect_bad text.json "expected near"
expect_bad binary.json "."
expect_bad array.json "not a JSON object"
expect_bad dupkey.json "duplicate"
expect_bad dir.json "."
expect_bad nope.json "No such file"
expect_bad version.json "schema_version 2 is not supported"
expect_bad noschema.json "schema_version: missing"
expect_bad nobenches.json "benches: missing"
expect_bad negn.json "points\[0\].n: not a non-negative integer"
expect_bad hugebatch.json "batch: out of range"
expect_bad binidx.json "malformed bin"
expect_bad binneg.json "malformed bin"
expect_bad binshape.json "malformed bin"
expect_bad layout.json "layout differs"
expect_bad stop.json "stop: unknown value"
expect_bad class.json "unknown growth class"
expect_bad p50.json "p50_ns: not a number"
expect_bad name.json "name: not a string"
expect_bad deep.json "depth"
