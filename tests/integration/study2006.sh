# SPDX-License-Identifier: MIT
# The shipped 2006 study (studies/vonleitner-2006.job) at tiny sizes on two
# file systems (command-line options override the job, as in fio): the
# matrix runs every job section, and the report leads with the talk's
# tables: one row per file system, labelled by it alone, the phases as
# columns in the order they ran, one fastest cell per column (none where
# nothing completed), a stalls column; nothing left behind.
. "$(dirname "$0")/lib.sh"
if ! is_root; then
	skip "the 2006 study makes file systems (needs root)"
	exit 0
fi
mkdir -p "$T/d"
"$SB" matrix "$(dirname "$0")/../../studies/vonleitner-2006.job" --quick --fs tmpfs,ext2 --max-n 40 -r 1 \
	-p files=50 --budget 0.02 --no-decide --no-db -q --dir "$T/d" -o "$T/r.json" --report "$T/r.html" \
	>"$T/out" 2>"$T/err"
rc=$?
check "the 2006 study at tiny sizes on tmpfs and ext2 exits 0" test $rc -eq 0
[ $rc -eq 0 ] || cat "$T/err" >&2
check "every job section ran on its file systems (round2 and fileserver on both, stream and rr once, on tmpfs)" jtrue "$T/r.json" \
	"sorted((b['job'], b.get('target')) for b in d['benches']) == sorted([('round2', 'tmpfs'), ('round2', 'ext2'), ('fileserver', 'tmpfs'), ('fileserver', 'ext2'), ('stream', 'tmpfs'), ('rr', 'tmpfs')])"
# the tables of the talk, parsed from the report
cat >"$T/tables.py" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
want = {"work.round2": ["unpack", "serve_c4", "serve_o4", "serve_c32", "serve_o32",
                        "unpack_over", "serve_during_over", "delete"],
        "fs.fileserver": ["populate", "overwrite", "read", "delete"]}
for bench, phases in want.items():
    m = re.search(r"<h3>" + re.escape(bench) + r": each phase's rate.*?</table>", h, re.S)
    assert m, bench + ": no table"
    rows = re.findall(r"<tr>(.*?)</tr>", m.group(0), re.S)
    head = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<th>(.*?)</th>", rows[0], re.S)]
    assert head == ["file system / input", "N"] + phases + ["stalls named"], (bench, head)
    body = [re.findall(r"<td[^>]*>(.*?)</td>", r, re.S) for r in rows[1:]]
    labels = [re.sub(r"<[^>]+>", "", r[0]).strip() for r in body]
    assert labels == ["tmpfs", "ext2"], (bench, labels)
    for c in range(len(phases)):
        # one fastest per column; none when nothing completed (a phase
        # beside another that ended first serves 0/s at these sizes)
        stars = sum("&#9733;" in r[2 + c] for r in body)
        rates = [float(re.sub(r"[^0-9.]", "", re.sub(r"<[^>]+>|&#9733;", "", r[2 + c]).split("/s")[0]) or 0) for r in body]
        assert stars == (1 if max(rates) > 0 else 0), (bench, phases[c], stars, rates)
        assert not any("&#9733;" in r[2 + c] and x == 0 for r, x in zip(body, rates)), (bench, phases[c])
    assert all(re.sub(r"<[^>]+>", "", r[-1]).strip() for r in body), (bench, "stalls cell empty")
print("ok")
PY
check "the report's round 2 and file server tables: a row per file system named by it, the phases in order, one fastest per column, the stalls named" \
	python3 "$T/tables.py" "$T/r.html"
check "the report leads with the study's title" out_has "$T/r.html" "Study: von Leitner 2006"
check "nothing left: no mount, loop device or file below the directory" none_left
