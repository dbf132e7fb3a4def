#!/bin/sh
# SPDX-License-Identifier: MIT
# Cross-check of net.stream against iperf3 on the same job, in one run
# (absolute figures drift between runs: only same-run ratios count).
#
#   sh bench/iperf3-crosscheck.sh [SECONDS] [OUTDIR]
#
# The matched job (iperf3 3.12's defaults on both sides):
#   - TCP, 128 KiB blocks, plain send()/write() (net.stream -p
#     sender=send; iperf3 without -Z), default socket buffers, Nagle on
#     (neither tool sets TCP_NODELAY), the receiver reading one 128 KiB
#     block from each ready stream per wait (iperf3's Nread(): read() until
#     the block is complete or the socket is empty);
#   - the sender's loop: nonblocking sockets, a wait for the writable
#     ones, then 10 rounds of one block on each of them in stream order, a
#     block a full socket cut short finished by the next call (iperf3's
#     iperf_send(); net.stream version 3: version 2 sent up to 10 blocks on
#     one stream before the next and read 0.86 and 0.91 of iperf3 at P=4);
#   - 1 and 4 parallel streams from one single-threaded sender process to
#     one single-threaded receiver process (net.stream --min-n P --max-n P;
#     iperf3 -c -P P);
#   - the same duration (SECONDS per point, default 5: net.stream
#     --budget SECONDS spends it whole; iperf3 -t SECONDS);
#   - the same placement: PLACEMENT=spread (default) puts the sender on the
#     first CPU this script may use and the receiver on the second
#     (net.stream -p placement=spread; iperf3 client and server under
#     taskset on the same CPUs); PLACEMENT=same puts both on the first.
# Each stream count runs ROUNDS (default 9) runs alternated A B A ... A
# (A = scalebench, B = iperf3), the received Gbit/s of each run is printed,
# then the medians with their spread (min..max) and the ratio scalebench /
# iperf3 taken run by run: each iperf3 run against the mean of the two
# scalebench runs around it, the median over the iperf3 runs (a slow
# stretch of the machine then falls in one ratio, not in a side's median;
# until 2026-12-06: 5 runs and the ratio of the medians).
# PASS when every ratio lies within 0.90..1.10; exit 0 on PASS, 1 on FAIL,
# 2 on bad usage or a missing tool.
#
# Environment: SB (the binary, default ./scalebench), PORT (iperf3's port,
# default: one the kernel picks), PLACEMENT (spread|same), ROUNDS (odd,
# >= 3), NETNS=1 (root: both tools between two network namespaces this
# script makes, joined by a veth pair, and removes on exit or Ctrl-C).
# Needs: iperf3, python3, taskset (util-linux), ss (iproute2).
set -u
cd "$(dirname "$0")/.." || exit 2
D=${1:-5}
OUT=${2:-}
SB=${SB:-./scalebench}
PLACEMENT=${PLACEMENT:-spread}
ROUNDS=${ROUNDS:-9}
NETNS=${NETNS:-0}
case $D in ''|0|*[!0-9]*) echo "usage: $0 [SECONDS] [OUTDIR] (SECONDS: whole seconds, at least 1 (iperf3 -t), not '$D')" >&2; exit 2 ;; esac
case $PLACEMENT in spread|same) ;; *) echo "PLACEMENT must be spread or same, not '$PLACEMENT'" >&2; exit 2 ;; esac
case $ROUNDS in 3|5|7|9|11) ;; *) echo "ROUNDS must be odd, 3..11, not '$ROUNDS'" >&2; exit 2 ;; esac
[ -x "$SB" ] || { echo "$SB not built (make)" >&2; exit 2; }
for t in iperf3 python3 taskset ss; do
	command -v $t >/dev/null || { echo "$t is missing (tools/setup-deps.sh installs it)" >&2; exit 2; }
done

W=$(mktemp -d "${TMPDIR:-/tmp}/sb-iperf3.XXXXXX") || exit 2
[ -n "$OUT" ] || OUT=$W
mkdir -p "$OUT" || exit 2
NSA=sbx$$a; NSB=sbx$$b; MADE_NS=0; SPID=""
cleanup() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
	if [ $MADE_NS = 1 ]; then
		ip netns del $NSA 2>/dev/null
		ip netns del $NSB 2>/dev/null
	fi
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The first two CPUs this script may run on: sender, receiver.
set -- $(python3 -c 'import os; c = sorted(os.sched_getaffinity(0)); print(c[0], c[1 % len(c)])')
C0=$1; C1=$2
[ "$PLACEMENT" = same ] && C1=$C0
[ -n "${PORT:-}" ] || PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

ADDR=127.0.0.1; SRVPFX=""; CLIPFX=""; SBNET=""
if [ "$NETNS" = 1 ]; then
	[ "$(id -u)" = 0 ] || { echo "NETNS=1 needs root" >&2; exit 2; }
	command -v ip >/dev/null || { echo "ip (iproute2) is missing" >&2; exit 2; }
	MADE_NS=1
	ip netns add $NSA && ip netns add $NSB || { echo "cannot make network namespaces" >&2; exit 1; }
	ip link add sbx$$x netns $NSA type veth peer name sbx$$y netns $NSB || exit 1
	ip -n $NSA addr add 10.79.0.1/24 dev sbx$$x && ip -n $NSA link set sbx$$x up && ip -n $NSA link set lo up &&
	ip -n $NSB addr add 10.79.0.2/24 dev sbx$$y && ip -n $NSB link set sbx$$y up && ip -n $NSB link set lo up || exit 1
	ADDR=10.79.0.1; SRVPFX="ip netns exec $NSA"; CLIPFX="ip netns exec $NSB"; SBNET=--netns
fi

# sb P K: net.stream at the one point P; prints the received Gbit/s
sb() {
	f="$OUT/scalebench-P$1-$2.json"
	"$SB" run net.stream -p sender=send -p placement=$PLACEMENT --min-n "$1" --max-n "$1" --budget "$D" \
		$SBNET -q --no-db -o "$f" >"$OUT/scalebench-P$1-$2.log" 2>&1 || { echo "scalebench failed: $OUT/scalebench-P$1-$2.log" >&2; return 1; }
	python3 - "$f" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benches"][0]
if b["status"] != "ok":
    sys.exit("net.stream: %s %s" % (b["status"], b.get("skip_reason", "")))
p = [p for r in b["repetitions"] for p in r["points"] if p["n"] == int(sys.argv[2])][0]
print("%.3f" % p["extra"]["stream"]["received_gbit_per_s"])
PY
}

# ip3 P K: iperf3 with P streams, server and client pinned like net.stream's sides
ip3() {
	f="$OUT/iperf3-P$1-$2.json"
	$SRVPFX taskset -c "$C1" iperf3 -s -B "$ADDR" -p "$PORT" -1 >/dev/null 2>&1 &
	SPID=$!
	i=0
	while [ $i -lt 50 ]; do # until the server listens (at most 5 s); a probe connection would be taken as a test
		$SRVPFX ss -Hltn "sport = :$PORT" 2>/dev/null | grep -q . && break
		sleep 0.1; i=$((i + 1))
	done
	$CLIPFX taskset -c "$C0" iperf3 -c "$ADDR" -p "$PORT" -t "$D" -P "$1" -J >"$f" 2>"$OUT/iperf3-P$1-$2.err"
	rc=$?
	wait "$SPID" 2>/dev/null
	SPID=""
	[ $rc = 0 ] || { echo "iperf3 failed: $f" >&2; return 1; }
	python3 -c 'import json, sys; print("%.3f" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 1e9))' "$f"
}

echo "== net.stream vs iperf3: scalebench $("$SB" --version | cut -d' ' -f2), $(iperf3 --version | head -1 | cut -d' ' -f1-2), $(uname -r), $(nproc) CPUs, $(date -u +%FT%TZ)"
echo "   $D s per run, placement $PLACEMENT (sender CPU $C0, receiver CPU $C1), $([ "$NETNS" = 1 ] && echo "veth between two namespaces" || echo loopback), $ROUNDS runs alternating A B A ... (A scalebench, B iperf3), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "   scalebench: $SB run net.stream -p sender=send -p placement=$PLACEMENT --min-n P --max-n P --budget $D $SBNET"
echo "   iperf3:     taskset -c $C1 iperf3 -s -1; taskset -c $C0 iperf3 -c $ADDR -t $D -P P"
fail=0
for P in 1 4; do
	A=""; B=""; k=0
	while [ $k -lt "$ROUNDS" ]; do
		if [ $((k % 2)) = 0 ]; then
			v=$(sb $P $k) || exit 1
			A="$A $v"; echo "   P=$P run $((k + 1)): scalebench $v Gbit/s"
		else
			v=$(ip3 $P $k) || exit 1
			B="$B $v"; echo "   P=$P run $((k + 1)): iperf3     $v Gbit/s"
		fi
		k=$((k + 1))
	done
	python3 - "$P" "$A" "$B" <<'PY' || fail=1
import statistics as st, sys
p, a, b = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
ma, mb = st.median(a), st.median(b)
# iperf3's run k lies between scalebench's runs k and k + 1
rk = [(a[k] + a[k + 1]) / 2 / b[k] if b[k] > 0 else float("inf") for k in range(len(b))]
r = round(st.median(rk), 2)  # judged as printed
print("   P=%s ratio by iperf3 run (the scalebench runs around it / it): %s" % (p, " ".join("%.2f" % x for x in rk)))
ok = 0.90 <= r <= 1.10
print("P=%s  scalebench median %.2f Gbit/s (%.2f..%.2f, %d runs)  iperf3 median %.2f (%.2f..%.2f, %d runs)  ratio %.2f  %s"
      % (p, ma, min(a), max(a), len(a), mb, min(b), max(b), len(b), r, "PASS" if ok else "FAIL (outside 0.90..1.10)"))
sys.exit(0 if ok else 1)
PY
done
echo "   load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$OUT" != "$W" ] && echo "   results: $OUT/"
if [ $fail = 0 ]; then echo "PASS"; exit 0; fi
echo "FAIL"
exit 1
