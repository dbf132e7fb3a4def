#!/bin/sh
# SPDX-License-Identifier: MIT
# Cross-check of the net.* benches against iperf3 on this machine, in one
# run (absolute figures drift between runs: only same-run ratios count).
#   1. net.stream (sender=send) with 1 and 4 streams on loopback vs
#      iperf3 -P 1 and -P 4 on 127.0.0.1, same duration:
#      ratio = scalebench received Gbit/s / iperf3 sum_received Gbit/s,
#      two rounds in opposite order;
#   2. net.request per event mechanism to N=10000 idle connections (select
#      stops at FD_SETSIZE and says so): the verdicts, the cost at the
#      smallest and largest N, the server's CPU time per request;
#   3. net.connect --full: how far it gets (the descriptor limit) and the
#      wall time;
#   4. the same three with --netns (iperf3 then runs in two namespaces this
#      script makes, joined by a veth pair; removed on exit).
# usage: bench/iperf3-crosscheck.sh [SECONDS per stream point, default 5] [OUTDIR]
# Needs: root for step 4 (skipped otherwise), iperf3, iproute2, python3.
set -u
cd "$(dirname "$0")/.." || exit 2
D=${1:-5}
OUT=${2:-crosscheck-$(date -u +%Y%m%dT%H%M%SZ)}
SB=${SB:-./scalebench}
PORT=${PORT:-15301}
mkdir -p "$OUT"
[ -x "$SB" ] || { echo "build first: make" >&2; exit 2; }
command -v iperf3 >/dev/null || { echo "iperf3 is missing (tools/setup-deps.sh installs it)" >&2; exit 2; }
NSA=sbx$$a; NSB=sbx$$b
cleanup() { ip netns del $NSA 2>/dev/null; ip netns del $NSB 2>/dev/null; }
trap cleanup EXIT
trap 'exit 130' INT TERM

py() { python3 -c "$@"; }
# sb_stream FILE N: received Gbit/s of net.stream's point N
sb_stream() { py 'import json,sys; d=json.load(open(sys.argv[1])); print("%.2f" % [p for b in d["benches"] for r in b["repetitions"] for p in r["points"] if p["n"] == int(sys.argv[2])][0]["extra"]["stream"]["received_gbit_per_s"])' "$1" "$2"; }
iperf_gbit() { py 'import json,sys; print("%.2f" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1e9))' "$1"; }
ratio() { py 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2"; }

# iperf3 RUNNER ADDR P FILE: server (one test) and client through RUNNER
# ("" or "ip netns exec X" for the server, the client one in $2)
iperf() {
	srvpfx=$1; clipfx=$2; addr=$3; par=$4; file=$5
	$srvpfx iperf3 -s -B "$addr" -p $PORT -1 >/dev/null 2>&1 &
	spid=$!
	sleep 0.5
	$clipfx iperf3 -c "$addr" -p $PORT -t "$D" -P "$par" -J >"$file" 2>/dev/null
	wait $spid 2>/dev/null
}

# Two rounds in opposite order (scalebench first, then iperf3 first), so
# that drift during the run does not favour either tool.
streams() { # streams LABEL SBOPTS SRVPFX CLIPFX ADDR
	label=$1; opts=$2
	for round in 1 2; do
		[ $round = 2 ] && for n in 1 4; do iperf "$3" "$4" "$5" $n "$OUT/iperf3-$label-P$n-r$round.json"; done
		$SB run net.stream -p sender=send --max-n 4 --budget "$D" $opts -q --no-db -o "$OUT/stream-$label-r$round.json" >/dev/null 2>&1
		[ $round = 1 ] && for n in 1 4; do iperf "$3" "$4" "$5" $n "$OUT/iperf3-$label-P$n-r$round.json"; done
	done
	for n in 1 4; do
		line=""; rs=""
		for round in 1 2; do
			s=$(sb_stream "$OUT/stream-$label-r$round.json" $n); i=$(iperf_gbit "$OUT/iperf3-$label-P$n-r$round.json")
			r=$(ratio "$s" "$i"); rs="$rs $r"
			line="$line  round $round: scalebench $s, iperf3 $i Gbit/s (x$r)"
		done
		printf '%-8s streams=%d%s; mean ratio %s\n' "$label" $n "$line" "$(py 'import sys; v=[float(x) for x in sys.argv[1:]]; print("%.2f" % (sum(v)/len(v)))' $rs)"
	done
}

request() { # request LABEL SBOPTS
	$SB run net.request --max-n 10000 --budget 0.5 $2 -q --no-db -o "$OUT/request-$1.json" >/dev/null 2>&1
	py 'import json,sys
d = json.load(open(sys.argv[1]))
for b in d["benches"]:
    m = b["params"]["mech"]
    if b["status"] == "skipped":
        print("%-8s net.request %-8s skipped: %s" % (sys.argv[2], m, b["skip_reason"])); continue
    pts = {p["n"]: p["stats"]["p50_ns"] for r in b["repetitions"] for p in r["points"]}
    v = b["verdict"]
    cpu = {p["n"]: p.get("extra", {}).get("server_cpu_us_per_request", 0) for r in b["repetitions"] for p in r["points"]}
    f = [r["failure"] for r in b["repetitions"] if r.get("failure")]
    if f:
        print("%-8s net.request %-8s stopped at N=%d: %s (kind %s)" % (sys.argv[2], m, f[0]["n"], f[0]["call"], f[0]["kind"]))
    print("%-8s net.request %-8s p50 N=1 %6.1f us, N=%d %6.1f us; verdict %-9s exponent %5.2f; server CPU/request %5.1f -> %5.1f us  %s" % (sys.argv[2], m, pts[min(pts)] / 1e3, max(pts), pts[max(pts)] / 1e3, v["class"], v.get("exponent") or 0, cpu[min(cpu)], cpu[max(cpu)], b["status"]))' "$OUT/request-$1.json" "$1"
}

connect() { # connect LABEL SBOPTS
	t0=$(date +%s.%N)
	$SB run net.connect --full --budget 0.3 $2 -q --no-db -o "$OUT/connect-$1.json" >"$OUT/connect-$1.txt" 2>&1
	t1=$(date +%s.%N)
	py 'import json,sys
d = json.load(open(sys.argv[1])); b = d["benches"][0]; r = b["repetitions"][0]
f = r.get("failure")
top = max(p["n"] for p in r["points"])
stop = ("stopped at N=%d: %s (kind %s)" % (f["n"], f["message"], f["kind"])) if f else "reached N=%d" % b["max_n"]
print("%-8s net.connect --full: largest measured point N=%d, %s; wall %.1f s" % (sys.argv[2], top, stop, float(sys.argv[3])))' "$OUT/connect-$1.json" "$1" "$(py "print($t1 - $t0)")"
}

echo "scalebench $($SB --version | cut -d' ' -f2), iperf3 $(iperf3 --version | head -1 | cut -d' ' -f2), $(uname -r), $(nproc) CPUs, $(date -u +%FT%TZ), $D s per stream point, load $(cut -d' ' -f1-3 /proc/loadavg)"
streams loopback "" "" "" 127.0.0.1
request loopback ""
connect loopback ""

if [ "$(id -u)" != 0 ]; then
	echo "netns: skipped (needs root)"
	exit 0
fi
ip netns add $NSA && ip netns add $NSB || { echo "netns: cannot make namespaces"; exit 1; }
ip link add sbx$$x netns $NSA type veth peer name sbx$$y netns $NSB
ip -n $NSA addr add 10.79.0.1/24 dev sbx$$x; ip -n $NSA link set sbx$$x up; ip -n $NSA link set lo up
ip -n $NSB addr add 10.79.0.2/24 dev sbx$$y; ip -n $NSB link set sbx$$y up; ip -n $NSB link set lo up
streams netns --netns "ip netns exec $NSA" "ip netns exec $NSB" 10.79.0.1
request netns --netns
connect netns --netns
echo "results: $OUT/"
