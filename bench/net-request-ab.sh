#!/bin/sh
# SPDX-License-Identifier: MIT
# How often `run net.request --max-n 1000` gives the expected verdicts
# (select O(n), poll O(n), epoll O(1), io_uring O(1)), the default and
# --decide alternated in one loop (A B A B ...), rerunnable (issue 12):
#   sh bench/net-request-ab.sh [ROUNDS]        (default 6)
#   SB=path/to/scalebench B_ARGS='--decide' sh bench/net-request-ab.sh 10
# A runs `$SB run net.request --max-n 1000 $A_ARGS`, B the same with
# $B_ARGS (default --decide; set SB_B to run B with another binary, e.g.
# the build before a change). Prints each run's four verdicts, and per
# side the runs with all four right, each mechanism's count, and for
# --decide how many unclear verdicts the added repetitions decided; the
# machine's load before and after (it is shared: report it as it is).
# See docs/net.md, "poll's cost per connection".
set -u
cd "$(dirname "$0")/.." || exit 2
ROUNDS=${1:-6}
SB=${SB:-./scalebench}
SB_B=${SB_B:-$SB}
A_ARGS=${A_ARGS:-}
B_ARGS=${B_ARGS---decide}
[ -x "$SB" ] || make -s scalebench || exit 2
W=$(mktemp -d /tmp/sb-netab.XXXXXX) || exit 2
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
echo "== $(uname -r), $(nproc) CPUs; A: $SB $A_ARGS; B: $SB_B $B_ARGS; load before: $(uptime)"
i=1
while [ "$i" -le "$ROUNDS" ]; do
	# shellcheck disable=SC2086
	"$SB" run net.request --max-n 1000 $A_ARGS -q --no-db -o "$W/A$i.json" >/dev/null 2>&1
	# shellcheck disable=SC2086
	"$SB_B" run net.request --max-n 1000 $B_ARGS -q --no-db -o "$W/B$i.json" >/dev/null 2>&1
	i=$((i + 1))
done
echo "== load after: $(uptime)"
python3 - "$W" "$ROUNDS" <<'PY'
import json, os, sys
w, rounds = sys.argv[1], int(sys.argv[2])
want = {"mech=select": "O(n)", "mech=poll": "O(n)", "mech=epoll": "O(1)", "mech=io_uring": "O(1)"}
for side in "AB":
    right = runs = trig = dec = dec_right = 0
    per = {k: 0 for k in want}
    for i in range(1, rounds + 1):
        f = os.path.join(w, "%s%d.json" % (side, i))
        try:
            d = json.load(open(f))
        except (OSError, ValueError):
            print("  %s%d: no result" % (side, i))
            continue
        runs += 1
        got = {b["variant"]: b["verdict"]["class"] for b in d["benches"]}
        ok = all(got.get(k) == v for k, v in want.items())
        right += ok
        for k, v in want.items():
            per[k] += got.get(k) == v
        for b in d["benches"]:
            for n in b.get("notes", []):
                if "unclear after the sweep" in n:
                    trig += 1
                    dec += "still unclear" not in n
                    dec_right += b["verdict"]["class"] == want.get(b["variant"])
                    print("  %s%d: %s unclear after the sweep, now %s" % (
                        side, i, b["variant"][5:], b["verdict"]["class"]))
        print("  %s%d: %s %s" % (side, i, "right" if ok else "wrong",
                                 " ".join("%s %s" % (k[5:], got.get(k)) for k in want)))
    print("%s: %d of %d runs all right; %s; unclear after the sweep %d, decided %d (right %d)"
          % (side, right, runs, ", ".join("%s %d" % (k[5:], v) for k, v in per.items()),
             trig, dec, dec_right))
PY
