# SPDX-License-Identifier: MIT
# report: a self-contained HTML file over real results (and run --report),
# hostile names escaped, CSV with one row per point; rendered in headless
# Chromium and the screenshot checked for drawn plots.
# tier: fast (tests/run.sh --fast, make test)
. "$(dirname "$0")/lib.sh"
H="$(dirname "$0")/helpers"
mkdir -p "$T/target"
"$SB" run fs.create fs.stat --dir "$T/target" --max-n 50 --budget 0.01 -q --no-db -o "$T/a.json" --report "$T/run.html" >/dev/null 2>&1
check "run --report writes an HTML file" grep -q "<svg" "$T/run.html"
schema_exempt "$T/b.json" # a bench name with markup in it, on purpose
python3 "$H/doctor.py" "$T/a.json" "$T/b.json" --factor 1.5 --set-name 'fs.stat=fs.<script>alert(1)</script>' --snapshot filesystem.type=xfs
"$SB" report "$T/a.json" "$T/b.json" -o "$T/r.html" 2>"$T/err"; rc=$?
check "report: exit 0" test $rc -eq 0
check "report parses as HTML with balanced svg elements" python3 -c '
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    depth = 0; svgs = 0; polylines = 0
    def handle_starttag(self, tag, a):
        if tag == "svg": self.depth += 1; self.svgs += 1
        if tag == "polyline": self.polylines += 1
    def handle_endtag(self, tag):
        if tag == "svg": self.depth -= 1
p = P(); p.feed(open(sys.argv[1]).read())
assert p.depth == 0 and p.svgs >= 6 and p.polylines >= 4, (p.depth, p.svgs, p.polylines)
' "$T/r.html"
check "report is self-contained: no script, no external resource" python3 -c '
import re, sys
h = open(sys.argv[1]).read().lower()
for bad in ("<script", "<link", "<img", "<iframe", "src=", "@import", "url("):
    assert bad not in h, bad
assert set(re.findall(r"https?://[^\x22 ]*", h)) <= {"http://www.w3.org/2000/svg"}
' "$T/r.html"
check "hostile bench name escaped" grep -q "fs.&lt;script&gt;alert(1)&lt;/script&gt;" "$T/r.html"
check "snapshots side by side with differences highlighted" grep -q '<tr class="diff"><td class="mono">filesystem.type</td><td class="mono">[^<]*</td><td class="mono diff">xfs</td>' "$T/r.html"
npts=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(r["points"]) for b in d["benches"] for r in b["repetitions"]))' "$T/a.json")
"$SB" report "$T/a.json" "$T/b.json" --format csv >"$T/r.csv"
check "report --format csv: one row per input, bench and point" python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 2 * int(sys.argv[2]), len(rows)
assert {r["bench"] for r in rows} == {"fs.create", "fs.stat", "fs.<script>alert(1)</script>"}
assert all(float(r["p50_ns"]) > 0 for r in rows)
' "$T/r.csv" "$npts"
check "report of a missing file: exit 2, named" sh -c '"$1" report "$2/nope.json" -o "$2/x.html" 2>"$2/e"; [ $? = 2 ] && grep -q "nope.json" "$2/e" && [ ! -e "$2/x.html" ]' _ "$SB" "$T"

CHROMIUM=$(command -v chromium || command -v chromium-browser)
# throughput over time, with a stall the bench found shaded: a real
# fs.fileserver run, plus one finding written into it (a stall is timing
# luck on a fast disk, the drawing of one is not)
"$SB" run fs.fileserver -n 2 -b 0.05 -q --no-db --dir "$T" -o "$T/fsv.json" >/dev/null 2>&1
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["benches"][0]["repetitions"][0]["points"][-1]
p["extra"]["findings"].append({"finding": "stall", "phase": "read", "at_s": 0.001, "length_s": 0.02, "what": "test"})
json.dump(d, open(sys.argv[1], "w"))
' "$T/fsv.json"
"$SB" report "$T/fsv.json" -o "$T/fsv.html" >/dev/null 2>&1
check "report: throughput over time for a workload bench" grep -q "time into the point" "$T/fsv.html"
check "report: the stall is shaded and named" grep -q 'class="stall".*stall 0.02 s (read)' "$T/fsv.html"
# each phase its own line, at its place in the point's time
check "report: each phase of the workload has its own line, named with its unit" sh -c '
for ph in populate read overwrite delete; do grep -q ">$ph (MiB/s)<" "$1" || exit 1; done' _ "$T/fsv.html"
check "report: the phases follow one another (each line starts where the one before ends)" python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
ph = d["benches"][0]["repetitions"][0]["points"][-1]["extra"]["phases"]
html = open(sys.argv[2]).read()
svg = html[html.index("Each phase"):]
svg = svg[:svg.index("</svg>")]
# the step lines in order: the first x of each polyline
xs = [float(m.split(",")[0]) for m in re.findall(r"<polyline[^>]*points=\"([^\" ]+)", svg)]
assert len(xs) == len([k for k in ph if ph[k].get("mib_s_series")]), (xs, list(ph))
assert xs == sorted(xs) and len(set(xs)) == len(xs), xs
' "$T/fsv.json" "$T/fsv.html"

if [ -z "$CHROMIUM" ]; then
	skip "report screenshot (no chromium)"
	exit 0
fi
mkdir -p "$T/profile"
timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$T/profile" --screenshot="$T/shot.png" --window-size=1200,2000 \
	"file://$T/r.html" >"$T/chromium.log" 2>&1
check "chromium renders a screenshot" test -s "$T/shot.png"
# the first bench's plots sit about 600..1000 px down; an empty or broken
# page is a few flat colours, drawn plots have hundreds (anti-aliasing)
python3 "$H/pngstat.py" "$T/shot.png" 0 600 1200 1000 >"$T/stat" 2>&1
check "plot area is drawn: many colours, not blank" python3 -c '
import sys
kv = dict(x.split("=") for x in open(sys.argv[1]).read().split())
assert int(kv["distinct"]) > 150 and 0.02 < float(kv["nonwhite"]) < 0.9, kv
' "$T/stat"
[ -n "$SB_KEEP_SHOT" ] && cp "$T/shot.png" "$SB_KEEP_SHOT"
exit 0
