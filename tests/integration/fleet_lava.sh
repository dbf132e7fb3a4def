#!/bin/sh
# SPDX-License-Identifier: MIT
# The LAVA test definition (fleet/lava/automated/linux/scalebench/, Linaro's
# test-definitions layout): the YAML has the fields LAVA requires; its steps,
# run the way LAVA's test shell runs them (params as shell variables, from
# the tree's root), write output/result.txt in Linaro's form, checked
# against the run's JSON; inside LAVA (lava-test-case on PATH: a stand-in
# that takes LAVA's arguments) every line is sent; and a host that fails
# (no scalebench, a run that exits 2, a database it cannot reach, a
# baseline it cannot read) is reported as failing, never as a pass, with
# whatever the run measured kept.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
LD="$here/helpers/lavadef.py"

if ! python3 -c 'import yaml' 2>/dev/null; then
	skip "fleet lava: python3-yaml not installed (tools/setup-deps.sh check installs it)"; exit 0
fi
# LAVA copies the test-definitions tree onto the device: so do we, into $T
cp -R "$root/fleet/lava" "$T/tree"
DEF="$T/tree/automated/linux/scalebench/scalebench.yaml"
OUT="$T/tree/automated/linux/scalebench/output"
check "scalebench.yaml has the fields LAVA requires, its steps run an executable script" python3 "$LD" check "$DEF"
mkdir -p "$T/target"

# lava PARAM=VALUE...: run the definition's steps as LAVA's test shell does;
# the exit code of the last step
lava() {
	python3 "$LD" runsh "$DEF" "$T/tree" "$@" >"$T/run.sh" && sh "$T/run.sh" >"$T/run.out" 2>&1
}
common="SCALEBENCH=$SB DIR=$T/target"
tiny="--max-n 10 --budget 0.005"

# shellcheck disable=SC2086
lava $common "BENCHES=fs.stat net.bind" "ARGS=$tiny"; rc=$?
check "outside LAVA: the steps exit 0" test $rc = 0
[ $rc = 0 ] || sed 's/^/#   /' "$T/run.out" | tail -20
check "result.txt: install, run and a case per bench, p99 and exponent, as the JSON says" \
	python3 "$LD" result "$OUT/result.txt" "$OUT/scalebench.json"
check "the run's JSON is kept in output/" jtrue "$OUT/scalebench.json" "len(d['benches']) == 2"
check "outside LAVA nothing calls lava-test-case" sh -c '! grep -q LAVA_SIGNAL "$1"' _ "$T/run.out"
check "the run left nothing in its target directory" empty_dir "$T/target"
cp "$OUT/scalebench.json" "$T/base.json"

# inside LAVA: lava-test-case on PATH gets every line of result.txt
export LAVA_SIGNALS="$T/signals"
# shellcheck disable=SC2086
PATH="$here/helpers/lava:$PATH" lava $common "BENCHES=fs.stat" "ARGS=$tiny" "BASELINE=$T/base.json"; rc=$?
check "inside LAVA, with a baseline file: exit 0, scalebench.baseline pass" sh -c \
	'[ $1 = 0 ] && grep -qx "scalebench.baseline pass" "$2"' _ $rc "$OUT/result.txt"
check "result.txt with a baseline: a case per bench, as the JSON says" \
	python3 "$LD" result "$OUT/result.txt" "$OUT/scalebench.json" --baseline
check "inside LAVA: one lava-test-case per line of result.txt, the same words" python3 -c '
import sys
sig = [l.strip() for l in open(sys.argv[1])]
res = []
for l in open(sys.argv[2]):
    f = l.split()
    s = "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=%s RESULT=%s" % (f[0], f[1])
    if len(f) == 4:
        s += " MEASUREMENT=%s UNITS=%s" % (f[2], f[3])
    res.append(s + ">")
sys.exit(sig != res or len(res) < 5)' "$LAVA_SIGNALS" "$OUT/result.txt"
unset LAVA_SIGNALS

# failing hosts: reported as failing, never as a pass
lava "SCALEBENCH=$T/nosuch/scalebench" SKIP_INSTALL=true "DIR=$T/target"; rc=$?
check "no scalebench: exit 1, result.txt says scalebench.install fail alone" sh -c \
	'[ $1 = 1 ] && [ "$(cat "$2")" = "scalebench.install fail" ]' _ $rc "$OUT/result.txt"
# shellcheck disable=SC2086
lava $common "BENCHES=nosuch.bench" "ARGS=$tiny"; rc=$?
check "a run that exits 2 (an unknown bench): exit 1, scalebench.run fail, no pass" sh -c \
	'[ $1 = 1 ] && grep -qx "scalebench.run fail" "$2" && ! grep -v "^scalebench.install " "$2" | grep -q " pass"' _ $rc "$OUT/result.txt"
check "... and the output names the exit code" grep -q "scalebench run exited 2" "$T/run.out"
# shellcheck disable=SC2086
lava $common "BENCHES=fs.stat" "ARGS=$tiny" "DB=postgresql:///sb?host=$T/nosock&connect_timeout=2"; rc=$?
check "a database it cannot reach: exit 1, scalebench.run fail" sh -c \
	'[ $1 = 1 ] && grep -qx "scalebench.run fail" "$2"' _ $rc "$OUT/result.txt"
check "... and the bench measured is still reported, as the JSON says" sh -c \
	'sed "/^scalebench.run fail$/d; s/^scalebench.install pass$//" "$1" | grep -q "^scalebench.fs.stat.* \(pass\|fail\|skip\) " &&
	 sed "s/^scalebench.run fail$/scalebench.run pass/" "$1" >"$1.2" && python3 "$3" result "$1.2" "$2"' \
	_ "$OUT/result.txt" "$OUT/scalebench.json" "$LD"
# shellcheck disable=SC2086
lava $common "BENCHES=fs.stat" "ARGS=$tiny" "BASELINE=$T/nosuch.json"; rc=$?
check "a baseline it cannot read: exit 1, scalebench.baseline fail, the bench still reported" sh -c \
	'[ $1 = 1 ] && grep -qx "scalebench.baseline fail" "$2" && grep -q "^scalebench.fs.stat" "$2"' _ $rc "$OUT/result.txt"
lava $common "ARGS=--nosuch-option"; rc=$?
check "an unknown option of run: scalebench.run fail" sh -c '[ $1 = 1 ] && grep -qx "scalebench.run fail" "$2"' _ $rc "$OUT/result.txt"
sh "$T/tree/automated/linux/scalebench/scalebench.sh" -q >/dev/null 2>&1; rc=$?
check "the script's bad arguments: exit 2" test $rc = 2
check "nothing left in the target directory" empty_dir "$T/target"
