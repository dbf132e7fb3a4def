#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/result-schema.json is a valid JSON Schema (draft 2020-12), is
# installed by `make install`, and the results scalebench writes match it:
# a quick run of several families on tmpfs, a failure with first-failure
# data, skipped benches, a result read back from the history, a matrix
# (root); a broken document is refused, so the check can fail. (lib.sh
# also checks every result any integration test leaves behind.)
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
V=validate-result
if ! python3 -c 'import jsonschema' 2>/dev/null; then
	skip "result schema (python3-jsonschema missing; Debian: python3-jsonschema)"
	exit 0
fi
check "the schema is a valid draft 2020-12 schema" python3 -c '
import json, sys, jsonschema
s = json.load(open(sys.argv[1]))
assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
jsonschema.Draft202012Validator.check_schema(s)' "$ROOT/docs/result-schema.json"

make -s -C "$ROOT" install DESTDIR="$T/inst" PREFIX=/usr >"$T/inst.log" 2>&1
check "make install puts it in \$(PREFIX)/share/scalebench" cmp "$ROOT/docs/result-schema.json" "$T/inst/usr/share/scalebench/result-schema.json"
rm -rf "$T/inst"

D="$T/target"
mkdir -p "$D"
if is_root && mount -t tmpfs "sbschema$$" "$D" 2>/dev/null; then
	at_exit "umount '$D'"
fi
"$SB" run fs.create fs.fileserver proc.fork mem.mmap net.socket net.request io.randread -p engine=psync \
	--quick --dir "$D" -q -o "$T/quick.json" >/dev/null 2>"$T/quick.err"
check "quick run of fs, proc, mem, net and io benches exits 0" test $? -eq 0
check "quick run: every family present" jtrue "$T/quick.json" \
	"{b['name'].split('.')[0] for b in d['benches'] if b['status'] == 'ok'} >= {'fs', 'proc', 'mem', 'net', 'io'}"
check "quick run: matches the schema" $V "$T/quick.json"

# a sweep stopped by a limit: the failure object with its state
(ulimit -n 64; "$SB" run net.socket -n 1000 -b 0.01 --no-db --dir "$D" -q -o "$T/fail.json" >/dev/null 2>&1)
check "limit failure: recorded" jtrue "$T/fail.json" "d['benches'][0]['repetitions'][0]['failure']['kind'] == 'limit'"
check "limit failure: matches the schema" $V "$T/fail.json"

# a document stored in the history database and read back
"$SB" run fs.create -n 20 -b 0.01 --dir "$D" -q -o "$T/h.json" >/dev/null 2>&1
"$SB" show 1 --format json >"$T/show.json" 2>"$T/show.err"
check "history: show --format json gives the document back" jtrue "$T/show.json" "d['benches'][0]['name'] == 'fs.create'"
check "history: the document read back matches the schema" $V "$T/show.json"

if is_root; then
	"$SB" matrix --fs tmpfs fs.create -n 20 -b 0.01 --dir "$T" -q -o "$T/matrix.json" >/dev/null 2>&1
	check "matrix result (targets) matches the schema" sh -c 'jget "$1" "list(d[\"targets\"])" | grep -q tmpfs && validate-result "$1"' _ "$T/matrix.json"
else
	skip "matrix result against the schema (needs root)"
fi

# the check can fail: a missing core field, a wrong type, an unknown status
for bad in "del d['benches'][0]['verdict']" "d['benches'][0]['repetitions'][0]['points'][0]['n'] = -1" \
	"d['benches'][0]['status'] = 'fine'" "d['schema_version'] = 2" \
	"d['benches'][0]['repetitions'][0]['points'][0]['stats']['p50_ns'] = 'fast'"; do
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); exec(sys.argv[3]); json.dump(d, open(sys.argv[2], "w"))' "$T/quick.json" "$T/broken.jsn" "$bad"
	check "a broken document is refused: $bad" sh -c '! validate-result "$1" >"$1.out" && grep -q "broken.jsn: " "$1.out"' _ "$T/broken.jsn"
done
# what benches add of their own is free: a new figure in extra, a new field
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["benches"][0]["repetitions"][0]["points"][0].setdefault("extra", {})["new_figure"] = {"x": [1, 2]}
d["benches"][0]["new_field"] = 1
json.dump(d, open(sys.argv[2], "w"))' "$T/quick.json" "$T/extended.jsn"
check "fields added within schema version 1 are accepted" $V "$T/extended.jsn"
