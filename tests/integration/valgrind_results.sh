# SPDX-License-Identifier: MIT
# history, show, compare and report under valgrind: no leak, no memory
# error (valgrind exits 99 on either), on real results and a bad file.
. "$(dirname "$0")/lib.sh"
if ! command -v valgrind >/dev/null 2>&1; then
	skip "valgrind: not installed"; exit 0
fi
VG="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99"
mkdir -p "$T/target"
"$SB" run fs.stat --dir "$T/target" --max-n 5 --budget 0.005 -q --db "$T/h.db" -o "$T/a.json" >/dev/null 2>&1
python3 "$(dirname "$0")/helpers/doctor.py" "$T/a.json" "$T/b.json" --factor 1.5
head -c 300 "$T/a.json" >"$T/bad.json"
vg() { # description expected-exit args...
	d=$1; want=$2; shift 2
	$VG "$SB" "$@" >/dev/null 2>"$T/vg.err"; rc=$?
	if [ $rc -eq "$want" ]; then echo "ok - valgrind: $d"; else echo "not ok - valgrind: $d (exit $rc)"; cat "$T/vg.err"; fi
}
vg "run stores into sqlite" 0 run fs.stat --dir "$T/target" --max-n 3 --budget 0.002 -q --db "$T/h.db" --report "$T/r0.html"
vg "history" 0 history --db "$T/h.db"
vg "show json" 0 show 1 --db "$T/h.db" --format json
vg "report csv of a history id" 0 report 1 --db "$T/h.db" --format csv
vg "compare: regression (--strict: one repetition a side)" 3 compare --strict "$T/a.json" "$T/b.json" 1 --db "$T/h.db"
vg "report html" 0 report "$T/a.json" "$T/b.json" -o "$T/r.html"
vg "compare of a truncated file" 2 compare "$T/a.json" "$T/bad.json"
vg "show of a missing run" 1 show 99 --db "$T/h.db"
