# A small run of every bench in a plain temporary directory: JSON result
# with every bench, points, verdicts, snapshot; nothing left behind.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/target"
$SB_WRAP "$SB" run --dir "$T/target" --max-n 50 --budget 0.02 -q -o "$T/r.json" >"$T/out" 2>"$T/err"
rc=$?
check "run exits 0" test $rc -eq 0
check "summary has a line per bench" sh -c 'for b in fs.create fs.open fs.stat fs.unlink proc.fork mem.mmap net.socket net.bind; do grep -q "^$b " "$1" || exit 1; done' _ "$T/out"
check "result parses and names schema 1" sh -c '[ "$(jget "$1" "d[\"schema_version\"]")" = 1 ]' _ "$T/r.json"
check "every bench has points up to 50" sh -c '[ "$(jget "$1" "min(max(p[\"n\"] for r in b[\"repetitions\"] for p in r[\"points\"]) for b in d[\"benches\"] if b[\"status\"] != \"skipped\")")" = 50 ]' _ "$T/r.json"
check "a skipped variant says why" sh -c 'jget "$1" "all(b.get(\"skip_reason\") for b in d[\"benches\"] if b[\"status\"] == \"skipped\")" | grep -q True' _ "$T/r.json"
check "every bench has a verdict class" sh -c 'jget "$1" "all(b[\"verdict\"][\"class\"] in (\"O(1)\",\"O(log n)\",\"O(n)\",\"O(n log n)\",\"worse\",\"unclear\") for b in d[\"benches\"] if b[\"status\"] != \"skipped\")" | grep -q True' _ "$T/r.json"
check "points carry p99, CI, rusage and histogram" sh -c 'jget "$1" "all(p[\"stats\"][\"p99_ns\"] > 0 and len(p[\"stats\"][\"median_ci95_ns\"]) == 2 and \"sys_s\" in p[\"per_op\"] and sum(c for i,c in p[\"histogram\"][\"bins\"]) == p[\"samples\"] for b in d[\"benches\"] for r in b[\"repetitions\"] for p in r[\"points\"])" | grep -q True' _ "$T/r.json"
check "snapshot has kernel, cpu, memory, filesystem, limits" sh -c 'jget "$1" "all(k in d[\"snapshot\"] for k in (\"kernel\",\"cpu\",\"memory\",\"filesystem\",\"limits\"))" | grep -q True' _ "$T/r.json"
check "clock read cost recorded" sh -c 'jget "$1" "d[\"clock\"][\"read_cost_ns\"] > 0" | grep -q True' _ "$T/r.json"
check "target directory left empty" sh -c '[ -z "$(ls -A "$1")" ]' _ "$T/target"
check "no process left" sh -c '[ "$(pgrep -f -x -- "$1.*" | wc -l)" = 0 ]' _ "$SB run"
