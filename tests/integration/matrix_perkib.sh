#!/bin/sh
# SPDX-License-Identifier: MIT
# scalebench matrix's side-by-side cell takes the summary's headline by axis
# kind: a size axis (io.seqread: request bytes) shows the median cost per KiB
# at the largest N, the same figure as the result's per_kib, not a growth
# class (cost grows with the bytes, O(n) says nothing); a load axis bench in
# the same table keeps its class. tmpfs and a small ext4 on a loop device.
. "$(dirname "$0")/lib.sh"
if ! is_root; then
	skip "matrix cells of a size axis (needs root)"
	exit 0
fi
mkdir -p "$T/d"

"$SB" matrix --fs tmpfs,ext4 io.seqread fs.create -p engine=psync -p direct=0 -p size_mib=8 \
	--max-n 16 --budget 0.01 --image-size 64M --dir "$T/d" -q --no-db -o "$T/m.json" >"$T/m.out" 2>"$T/m.err"
rc=$?
check "matrix of io.seqread and fs.create on tmpfs and ext4 exits 0" test $rc -eq 0
[ $rc -eq 0 ] || cat "$T/m.err" >&2
check "io.seqread has a size axis and per_kib on both file systems" jtrue "$T/m.json" \
	"sorted(b['target'] for b in d['benches'] if b['name'] == 'io.seqread' and b['axis_kind'] == 'size' and b['per_kib']['ns_at_n_max'] > 0) == ['ext4', 'tmpfs']"
# the table row: "io.seqread[...]  <cost> <per KiB>/KiB  <cost> <per KiB>/KiB"
row=$(grep -m1 '^io\.seqread' "$T/m.out") # the first table (the second is MiB/s)
echo "# $row"
check "the io.seqread row shows a cost per KiB in both cells" sh -c \
	'[ $(printf "%s\n" "$1" | grep -o "[0-9.]* [nums]*s/KiB" | wc -l) -eq 2 ]' _ "$row"
check "... and no growth class" sh -c '! printf "%s\n" "$1" | grep -q "O(\|unclear"' _ "$row"
# each cell's figure is the result's per_kib at the largest N (fmt_ns: whole ns,
# or 3 significant digits)
for fs in tmpfs ext4; do
	want=$(jget "$T/m.json" "[b for b in d['benches'] if b['name'] == 'io.seqread' and b['target'] == '$fs'][0]['per_kib']['ns_at_n_max']")
	k=1; [ $fs = ext4 ] && k=2
	got=$(printf '%s\n' "$row" | grep -o "[0-9.]* [nums]*s/KiB" | sed -n ${k}p)
	check "$fs: the cell's per KiB ($got) is per_kib.ns_at_n_max ($want ns)" python3 -c '
import sys
v, u = sys.argv[1].split()[:2]
ns = float(v) * {"ns/KiB": 1, "us/KiB": 1e3, "ms/KiB": 1e6, "s/KiB": 1e9}[u]
w = float(sys.argv[2])
sys.exit(0 if w > 0 and abs(ns - w) <= max(0.51, 0.006 * w) else 1)' "$got" "$want"
done
check "a load-axis bench in the same table keeps its growth class" sh -c \
	'[ $(grep "^fs\.create " "$1" | grep -o "O([^)]*)\|unclear" | wc -l) -eq 2 ]' _ "$T/m.out"
check "the heading says what a size axis's cell holds" out_has "$T/m.out" "cost per KiB at the largest N (size axes)"
check "nothing left: no mount, loop device or file" none_left
