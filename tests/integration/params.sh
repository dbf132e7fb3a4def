# SPDX-License-Identifier: MIT
# -p KEY=VALUE is checked against the selected benches' parameter tables
# before any work: an unknown key, a value of the wrong type or out of
# range, an unusable --dir are exit 2 with a message naming the problem,
# and nothing is created (no scratch directory, no result file, no history
# database). A seeded set of random -p strings gives exit 0 or 2, never a
# crash, and leaves nothing. The parameter listings of docs/benches.md and
# the man page are those the binary prints, and the README's sample
# summary has the columns scalebench prints today.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$T/target" "$T/cwd"
cd "$T/cwd" || exit 1

# nothing_made: the target and the working directory are empty, there is
# no result file and no history database
nothing_made() {
	empty_dir "$T/target" && empty_dir "$T/cwd" && [ ! -e "$T/r.json" ] && [ ! -e "$T/xdg" ] &&
		[ ! -e "$T/h.db" ]
}

# bad DESC REGEX ARGS...: exit 2, stderr matches REGEX (grep -E), nothing made
bad() {
	d=$1 re=$2; shift 2
	b=$1; shift # the bench; options after the defaults, so that the last --dir wins
	"$SB" run $b --dir "$T/target" -o "$T/r.json" --max-n 2 -q "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc = 2 ] && grep -Eq -- "$re" "$T/err" && nothing_made; then
		echo "ok - $d"
	else
		echo "not ok - $d (exit $rc: $(head -c 400 "$T/err"))"
	fi
}

bad "typo of a key: exit 2, the closest key and the keys io.randread takes" \
	"--param engnie: no selected bench takes.*did you mean engine\?.*io.randread takes: engine, direct, cache, size_mib, file, bs" \
	io.randread -p engnie=io_uring
bad "unknown engine: the values that exist and those this build has" \
	"engine=iouring: io.randread's engine is one of psync, libaio, io_uring, mmap.*did you mean io_uring\?.*this build has (psync|none)" \
	io.randread -p engine=iouring
bad "depth=0: exit 2 with the range" "depth=0: io.seqread's depth is an integer in 1\.\.4096" \
	io.seqread -p depth=0
bad "depth on a bench without it: names the benches that take it" \
	"--param depth: no selected bench.*depth is a parameter of io.seqread, io.seqwrite" io.randread -p depth=4
bad "files=-3: exit 2 with the range" "files=-3: fs.fileserver's files is an integer in 1\.\.10000000" \
	fs.fileserver -p files=-3
bad "max_kib=abc: exit 2 with the range" "max_kib=abc: fs.fileserver's max_kib is an integer in 1\.\.65536" \
	fs.fileserver -p max_kib=abc
bad "direct=yes: 0 or 1" "direct=yes: .* is 0 or 1" io.randread -p direct=yes
bad "file= of a missing file" "file=/nonexistent.*existing file" io.randread -p file=/nonexistent/$$
bad "a bench without parameters refuses any key" "--param x: fs.create takes no parameters" fs.create -p x=1
bad "a key given twice" "given twice" io.randread -p engine=psync -p engine=io_uring
bad "no KEY=VALUE form" "not of the form KEY=VALUE" fs.stat -p engine
bad "a comma in a value: says why" "not of the form KEY=VALUE \(a value holds no comma: give each KEY=VALUE its own -p" io.randread -p engine=psync,direct=1
bad "an unknown key with the whole suite selected" "--param zzz: no selected bench takes.*the selected benches take: " "" -p zzz=1
bad "mmap for a write bench: its engines" "io.randwrite's engine is one of psync, libaio, io_uring, not 'mmap'" \
	io.randwrite -p engine=mmap
# (the POSIX-only build cannot tell the file system type: its probe
# directory, which the kernel refuses there, says it instead)
bad "--dir /proc is exit 2, not 1" "--dir /proc: (a proc pseudo file system|cannot make a directory there)" fs.create --dir /proc
bad "--dir /sys/kernel is exit 2, not 1" "--dir /sys/kernel: (a sysfs pseudo file system|cannot make a directory there)" fs.create --dir /sys/kernel
bad "--db given, bad key: no database made" "did you mean redirty\?" fs.fsync -p redity=0 --db "$T/h.db"

# matrix checks the same way (before it asks for root)
"$SB" matrix --fs tmpfs io.randread -p engnie=io_uring --dir "$T/target" -q >"$T/out" 2>"$T/err"
rc=$?
check "matrix: typo of a key is exit 2 with the closest key" sh -c "[ $rc = 2 ] && grep -q 'did you mean engine?' '$T/err'"
check "matrix: nothing made" nothing_made

# a good key and value still run (and only what the table allows is read)
"$SB" run fs.fsync -p redirty=0 -p append=512 --dir "$T/target" --max-n 1 --budget 0.01 -q --no-db \
	-o "$T/ok.json" >"$T/out" 2>"$T/err"
rc=$?
check "valid -p runs: exit 0, the bench ok, no bug message" \
	sh -c "[ $rc = 0 ] && jget '$T/ok.json' \"[b['status'] for b in d['benches']]\" | grep -q \"\\['ok'\\]\" && ! grep -q 'bug:' '$T/err'"
check "valid -p: the parameters are in the result" \
	jtrue "$T/ok.json" "d['benches'][0]['params'] == {'redirty': '0', 'append': '512'}"
rm -f "$T/ok.json"
check "valid -p: the target is left empty" empty_dir "$T/target"

# a key that only some of the selected benches take reaches those alone
"$SB" run io.seqread io.randread -p depth=2 -p engine=psync -p direct=0 -p size_mib=4 --dir "$T/target" \
	--max-n 4 --budget 0.01 -q --no-db -o "$T/ok.json" >/dev/null 2>"$T/err"
rc=$?
check "depth for io.seqread and io.randread: exit 0, in seqread's parameters only" \
	sh -c "[ $rc = 0 ] && jget '$T/ok.json' \"[(b['name'], b['status'], 'depth' in b['params']) for b in d['benches']]\" | grep -Fxq \"[('io.seqread', 'ok', True), ('io.randread', 'ok', False)]\""
rm -f "$T/ok.json"
check "the target is left empty" empty_dir "$T/target"

# list BENCH prints the parameters; --help says how
"$SB" list io.randread >"$T/list" 2>&1
check "list io.randread: engine with its values and default" \
	out_has "$T/list" "^ *engine *psync|libaio|io_uring|mmap *psync "
check "list io.randread: bs with its range" out_has "$T/list" "^ *bs *integer 512\.\.67108864 *4096 "
"$SB" list --help >"$T/help" 2>&1
check "list --help says how to see a bench's parameters" out_has "$T/help" "list \[BENCH|FAMILY"
"$SB" list nosuch >/dev/null 2>&1
check "list of an unknown bench is exit 2" test $? = 2
"$SB" list --format json >"$T/list.json"
check "list --format json: every bench has its parameter table" \
	jtrue "$T/list.json" "len(d) >= 20 and all(isinstance(b['params'], list) for b in d) and any(p['name'] == 'engine' and 'io_uring' in p['values'] for b in d for p in b['params'])"

# every key a bench file reads with bench_param*() is declared: in that
# bench's own table (a file with a descriptor), or in some bench's (helpers
# such as iofile.c). The same holds at run time: SCALEBENCH_PARAM_STRICT
# (lib.sh) makes every integration test abort on an undeclared read.
cat >"$T/keys.py" <<'PY'
import glob, json, re, sys
benches = {b["name"]: {p["name"] for p in (b["params"] or [])} for b in json.load(open(sys.argv[1]))}
every = set().union(*benches.values())
bad, n = [], 0
for f in sorted(glob.glob(sys.argv[2] + "/src/bench/*.c")):
    text = open(f).read()
    name = re.search(r'^const struct bench bench_\w+ = \{.*?\.name = "([^"]+)"', text, re.S | re.M)
    for key in re.findall(r'bench_param(?:_u64)?\([^;"]*"([^"]+)"', text):
        n += 1
        known = benches.get(name.group(1), set()) if name else every
        if key not in known:
            bad.append("%s: %s" % (f, key))
if n < 20 or bad:
    sys.exit("%d reads; undeclared: %s" % (n, bad))
PY
check "every key read by bench_param*() in src/bench/ is declared in the bench's table" \
	python3 "$T/keys.py" "$T/list.json" "$ROOT"

# ... and at run time: every bench, every variant, briefly, with
# SCALEBENCH_PARAM_STRICT set (lib.sh): a read of an undeclared key would
# abort the worker (a failure of kind crash) and say "bug:" on stderr. The
# -p keys each reach only the benches that take them.
mkdir -p "$T/all"
"$SB" run --dir "$T/all" --max-n 5 --budget 0.005 -q --no-db -p size_mib=4 -p file_mib=1 -p files=20 \
	-o "$T/all.json" >/dev/null 2>"$T/all.err"
rc=$?
strict_ok() {
	[ $rc = 0 ] && ! grep -q 'bug:' "$T/all.err" && jtrue "$T/all.json" \
		"len(d['benches']) >= 40 and not any((r.get('failure') or {}).get('kind') == 'crash' for b in d['benches'] for r in b.get('repetitions', []))"
}
check "every bench and variant run with strict parameter reads: exit 0, no bug, no crash" strict_ok
check "that run ran the benches (most ok)" \
	jtrue "$T/all.json" "sum(b['status'] == 'ok' for b in d['benches']) >= 30"
check "that run left its target empty" empty_dir "$T/all"
rm -f "$T/all.json"

# docs/benches.md and the man page carry exactly what the tables say
"$SB" list --params-md >"$T/md"
sed -n '/^<!-- params: begin/,/^<!-- params: end/p' "$ROOT/docs/benches.md" | sed '1d;$d' >"$T/md.doc"
check "docs/benches.md parameter table = list --params-md (sh tools/params-docs.sh)" cmp "$T/md" "$T/md.doc"
check "the parameter table is not empty" sh -c "[ \$(wc -l <'$T/md') -ge 20 ]"
"$SB" list --params-man >"$T/man"
sed -n '/^\.\\" params: begin/,/^\.\\" params: end/p' "$ROOT/man/scalebench.1" | sed '1d;$d' >"$T/man.doc"
check "man page parameter block = list --params-man (sh tools/params-docs.sh)" cmp "$T/man" "$T/man.doc"
check "the man page block is not empty" sh -c "[ \$(wc -l <'$T/man') -ge 20 ]"

# the README's sample summary has today's columns: header identical, each
# row's cells where the header puts them (checked on a real run too)
"$SB" run fs.stat proc.fork --dir "$T/target" --max-n 5 --budget 0.005 -q --no-db >"$T/sum" 2>&1
sed -n '/^<!-- summary sample: begin/,/^<!-- summary sample: end/p' "$ROOT/README.md" | sed '1d;$d' |
	sed 's/^    //' >"$T/readme.sum"
cat >"$T/cols.py" <<'PY'
import re, sys
def rows(path):
    # the first line, a findings block, the header, the rows (families
    # apart by blank lines), then notes, why, rep and stop lines
    lines = open(path).read().split("\n")
    h = [i for i, l in enumerate(lines) if l.startswith("bench ")]
    if not h:
        sys.exit("no header in " + path)
    if "findings:" not in lines[1:h[0]]:
        sys.exit(path + ": no findings block above the header")
    first = lines[0]
    out = []
    for l in lines[h[0] + 1:]:
        if re.match(r"(note|why|rep|stop|skip) |interrupted", l):
            break
        if l.strip():
            out.append(l)
    return first, lines[h[0]], out
dur = r"(\d+(\.\d+)? (ns|us|ms|s))"
cls = r"(O\(1\)|O\(log n\)|O\(n\)|O\(n log n\)|worse|unclear)"
def check(path, hdr):
    first, h, rs = rows(path)
    if not re.match(r"^scalebench \S+  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ  clock ", first):
        sys.exit(path + ": first line: " + first)
    if hdr is not None and h != hdr:
        sys.exit(path + ": header differs:\n%r\n%r" % (h, hdr))
    if len(rs) < 2:
        sys.exit(path + ": fewer than 2 rows")
    st, n = h.index("status"), h.index(" N ") + 1
    ends = [h.index(c) + len(c) for c in ("cost@min", "cost@max", "p99@max")]
    v = h.index("verdict")
    for r in rs:
        ok = (r[st - 1] == " " and r[st:].split()[0] in ("ok", "stopped", "failed", "crash")
              and r[n - 1] == " " and re.match(r"\d+\.\.\d+ ", r[n:])
              and all(r[e] == " " and re.search(dur + "$", r[:e]) for e in ends)
              and re.match(cls + r" +n\^-?\d+\.\d+ \[-?\d+\.\d+,-?\d+\.\d+\] x\d+\.\d+$", r[v:]))
        if not ok:
            sys.exit(path + ": row not in the columns of the header: " + r)
    return h
h = check(sys.argv[1], None)   # the real run validates the checker
check(sys.argv[2], h)
PY
check "a real summary passes the column check" python3 "$T/cols.py" "$T/sum" "$T/sum"
python3 "$T/cols.py" "$T/sum" "$T/readme.sum" >"$T/cols.err" 2>&1
rc=$?
if [ $rc = 0 ]; then echo "ok - README's sample summary has the header and columns of today's summary"
else echo "not ok - README's sample summary: $(cat "$T/cols.err")"; fi
rm -rf "$T/target"/* 2>/dev/null

# fuzz: seeded random -p strings (keys: real, misspelt, random bytes;
# values: in range, out of range, negative, huge, empty, random bytes
# (printable and 128..254, not always UTF-8);
# separators =, ==, none, commas). Against a missing --dir the run can
# never start, so every case is exit 2 from the parameter check or the
# --dir check; a second set runs for real on fs.fsync and must give 0 or 2.
SEED=${FUZZ_SEED:-20261204}
gen() { # count seed keys...
	LC_ALL=C awk -v n="$1" -v seed="$2" -v keys="$3" 'BEGIN {
		srand(seed); nk = split(keys, k, " ")
		split("0 1 2 -1 -3 4096 0x10 010 99999999999999999999 abc 1e3 io_uring iouring psync mmap /proc / , = ==", v, " ")
		for (i = 0; i < n; i++) {
			r = rand()
			if (r < 0.5) key = k[1 + int(rand() * nk)]
			else if (r < 0.8) { key = k[1 + int(rand() * nk)]; p = 1 + int(rand() * length(key))
				key = substr(key, 1, p - 1) substr(key, p + 1) }   # one letter dropped
			else { key = ""; m = int(rand() * 8); for (j = 0; j < m; j++) key = key sprintf("%c", 33 + int(rand() * 222)) }
			if (rand() < 0.7) val = v[1 + int(rand() * 19)]
			else { val = ""; m = int(rand() * 6); for (j = 0; j < m; j++) val = val sprintf("%c", 32 + int(rand() * 223)) }
			s = rand(); sep = s < 0.8 ? "=" : s < 0.9 ? "==" : s < 0.95 ? "" : ","
			print key sep val
		}
	}'
}
KEYS="engine direct cache size_mib file bs depth files dirs reads min_kib max_kib overwrite_pct interval_ms stall_ms seed redirty append mech gap_us gap_wait sender file_mib inject"
gen 300 "$SEED" "$KEYS" >"$T/fuzz"
bad_rc="" crashed="" n=0
while IFS= read -r p; do
	n=$((n + 1))
	"$SB" run io fs.fsync fs.fileserver net.request -p "$p" --dir "$T/missing" -o "$T/r.json" -q >/dev/null 2>"$T/ferr"
	rc=$?
	[ $rc = 2 ] || bad_rc="$bad_rc [$p]=$rc"
	grep -Eqi "sanitizer|runtime error|bug:" "$T/ferr" && crashed="$crashed [$p]"
	nothing_made && [ ! -e "$T/missing" ] || { echo "not ok - fuzz: [$p] left files"; break; }
done <"$T/fuzz"
check "fuzz (seed $SEED): $n random -p strings against a missing --dir: each exit 2" test -z "$bad_rc$crashed" -a "$n" = 300
[ -n "$bad_rc$crashed" ] && echo "# fuzz: unexpected:$bad_rc$crashed"
gen 25 "$((SEED + 1))" "redirty append" >"$T/fuzz2"
bad_rc="" ran=0 n=0
while IFS= read -r p; do
	n=$((n + 1))
	"$SB" run fs.fsync -p "$p" --dir "$T/target" --max-n 1 --budget 0.005 -q --no-db -o "$T/r.json" >/dev/null 2>"$T/ferr"
	rc=$?
	case $rc in 0) ran=$((ran + 1)); rm -f "$T/r.json" ;; 2) ;; *) bad_rc="$bad_rc [$p]=$rc" ;; esac
	grep -q "bug:" "$T/ferr" && bad_rc="$bad_rc [$p]:bug"
	nothing_made || { echo "not ok - fuzz: [$p] left files"; break; }
done <"$T/fuzz2"
check "fuzz (seed $((SEED + 1))): $n -p strings on fs.fsync: exit 0 ($ran ran) or 2, nothing left" \
	test -z "$bad_rc" -a "$n" = 25 -a "$ran" -ge 1
[ -n "$bad_rc" ] && echo "# fuzz: unexpected:$bad_rc"
exit 0
