# SPDX-License-Identifier: MIT
# The binary under valgrind ($SB_WRAP): a tiny run of every bench, no leaks
# and no memory errors (valgrind exits 99 on either), in the workers too.
. "$(dirname "$0")/integration/lib.sh"
mkdir -p "$T/target"
$SB_WRAP --trace-children=yes "$SB" run --dir "$T/target" --max-n 5 --budget 0.005 -q -o "$T/r.json" >"$T/out" 2>"$T/err"
rc=$?
check "valgrind: run exits 0 with no leak or error" test $rc -eq 0
[ $rc -eq 0 ] || cat "$T/err" >&2
$SB_WRAP "$SB" run nope >/dev/null 2>"$T/err2"
check "valgrind: usage error path clean (exit 2)" test $? -eq 2
