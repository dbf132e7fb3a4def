#!/bin/sh
# SPDX-License-Identifier: MIT
# matrix --fresh: the file system made anew before every repetition of
# every bench, so that none inherits what the one before left: on ext2
# without dir_index (served by the ext4 driver, no journal) a repetition
# that follows a mass delete creates files at about 1 ms each instead of
# ~10 us (docs/compare.md). With it, compare FILE@TARGET sets two file
# systems of one matrix side by side, and fs.create on ext2 without
# dir_index against ext4 is SLOWER (issue 21's sensitivity case). Bad
# targets are refused naming the ones there are; Ctrl-C while the file
# systems are being remade leaves nothing behind.
. "$(dirname "$0")/lib.sh"
if ! is_root; then skip "matrix --fresh (needs root)"; exit 0; fi
if ! command -v mkfs.ext2 >/dev/null; then skip "matrix --fresh (no mkfs.ext2)"; exit 0; fi
mkdir -p "$T/d"
E2='ext2:-O ^dir_index'

"$SB" matrix --fs "ext4,$E2" fs.create -r 5 --max-n 5000 --image-size 512M --fresh --dir "$T/d" \
	-q --no-db -o "$T/m.json" >"$T/m.out" 2>"$T/m.err"
rc=$?
check "matrix --fresh exits 0" test $rc -eq 0
[ $rc -eq 0 ] || cat "$T/m.err" >&2
check "each target records a file system made for each of its 5 repetitions" jtrue "$T/m.json" \
	"all(d['targets'][t]['fresh']['made'] == 5 and d['targets'][t]['fresh']['per'] == 'repetition' for t in ('ext4', '$E2'))"
check "5 repetitions of fs.create on each" jtrue "$T/m.json" \
	"sorted((b['target'], len(b['repetitions'])) for b in d['benches']) == [('$E2', 5), ('ext4', 5)]"
# each repetition on its own fresh file system starts at a create of tens
# of microseconds; inherited deletes cost ~1 ms a create from N=1
check "ext2: no repetition inherits the last one's deletes (N=1 under 200 us in every one)" jtrue "$T/m.json" \
	"(lambda b: all(r['points'][0]['n'] == 1 and r['points'][0]['stats']['p50_ns'] < 200e3 for r in b['repetitions']))([b for b in d['benches'] if b['target'] == '$E2'][0])"
check "help documents --fresh" sh -c '"$1" matrix --help | grep -q -- "--fresh"' _ "$SB"

"$SB" compare "$T/m.json@ext4" "$T/m.json@$E2" >"$T/c.out" 2>"$T/c.err"
rc=$?
check "compare FILE@ext4 FILE@ext2 without dir_index: exit 3" test $rc -eq 3
check "... fs.create is SLOWER" grep -q "^fs.create  *bench.*=> SLOWER" "$T/c.out"
check "... each side is labelled with its target and its own file system" sh -c \
	'grep -q "^A: m.json@ext4 .* fs ext4$" "$1" && grep -q "^B: m.json@ext2:-O ^dir_index .* fs ext2$" "$1"' _ "$T/c.out"
"$SB" compare "$T/m.json@ext4" "$T/m.json@ext4" >"$T/s.out" 2>&1
check "compare of a target with itself: exit 0, same" sh -c '[ $1 -eq 0 ] && grep -q "^fs.create  *bench.*=> same" "$2"' _ $? "$T/s.out"
"$SB" compare "$T/m.json@ext4" "$T/m.json@xfs" >"$T/b.out" 2>"$T/b.err"
check "an unknown target: exit 2 naming the targets there are" sh -c \
	'[ $1 -eq 2 ] && grep -q "no matrix target .xfs. (it has ext4, ext2:-O ^dir_index)" "$2"' _ $? "$T/b.err"
"$SB" run fs.stat --max-n 10 --budget 0.01 --dir "$T/d" -q --no-db -o "$T/plain.json" >/dev/null 2>&1
"$SB" compare "$T/plain.json@ext4" "$T/m.json@ext4" >"$T/p.out" 2>"$T/p.err"
check "a target of a result that is not a matrix: exit 2 saying so" sh -c \
	'[ $1 -eq 2 ] && grep -q "no matrix target .ext4. (not a matrix result)" "$2"' _ $? "$T/p.err"
check "nothing left after the runs" none_left

# Ctrl-C while file systems are made and remade, many times a second
"$SB" matrix --fs "$E2,ext4" fs.create -r 200 --max-n 20 --budget 0.01 --image-size 256M --fresh \
	--dir "$T/d" -q --no-db -o "$T/i.json" >"$T/i.out" 2>"$T/i.err" &
pid=$!
# (seen by the loop: a second look may fall in a remake, between two mounts)
seen=1; i=0
while ! grep -q "$T/d/scalebench-matrix" /proc/self/mounts; do
	i=$((i+1)); [ $i -lt 150 ] || { seen=0; break; }; sleep 0.1
done
check "a file system was mounted before the signal" test $seen = 1
sleep 1.5
kill -INT $pid
wait $pid; rc=$?
check "Ctrl-C: exit 130" test $rc -eq 130
check "Ctrl-C: partial result written, marked interrupted" jtrue "$T/i.json" "d['interrupted']"
check "Ctrl-C: no mount, loop device, image or directory left" none_left
leftovers >&2
