#!/bin/sh
# SPDX-License-Identifier: MIT
# scalebench matrix sizes each image from the selected benches' parameters:
# the README's fs.fileserver example (20,000 files of up to 100 KiB) runs
# without ENOSPC, the size chosen is in the summary and the result, and a
# backing directory too small for it is refused before anything is made.
. "$(dirname "$0")/lib.sh"
if ! is_root; then
	skip "matrix image sizing (needs root)"
	exit 0
fi
mkdir -p "$T/d" "$T/small"

# a backing directory with 200 MiB: the fileserver's images do not fit
mount -t tmpfs -o size=200m "sbsize$$" "$T/small" || { echo "not ok - mount a small tmpfs"; exit 1; }
at_exit "umount '$T/small'"
"$SB" matrix --fs ext4 fs.fileserver -p files=20000 -p max_kib=100 --dir "$T/small" -q >"$T/o" 2>"$T/e"
rc=$?
check "too little free space: exit 2" test $rc -eq 2
check "too little free space: the message names the bench and the size" sh -c 'grep -q "has [0-9]* MiB free; an image needs [0-9]* MiB (sized to the benches: fs.fileserver needs" "$1" && [ $(wc -l <"$1") -eq 1 ]' _ "$T/e"
check "too little free space: nothing made" empty_dir "$T/small"

# the README's example, one point on ext3 and ext4
"$SB" matrix --fs ext3,ext4 fs.fileserver -p files=20000 -p max_kib=100 --max-n 1 --dir "$T/d" -q \
	-o "$T/m.json" >"$T/m.out" 2>"$T/m.err"
rc=$?
check "fileserver, 20,000 files of up to 100 KiB: matrix exits 0" test $rc -eq 0
[ $rc -eq 0 ] || cat "$T/m.err" >&2
check "no ENOSPC: both file systems measured ok" jtrue "$T/m.json" \
	"sorted((b['target'], b['status']) for b in d['benches']) == [('ext3', 'ok'), ('ext4', 'ok')]"
check "image larger than the fileserver's data (>1 GiB), recorded per target" jtrue "$T/m.json" \
	"all(d['targets'][t]['size_bytes'] > 1 << 30 and d['targets'][t]['image']['size_bytes'] == d['targets'][t]['size_bytes'] for t in ('ext3', 'ext4'))"
check "summary says the image size and why" sh -c 'grep -q "^  ext4 .* [0-9]* MiB, wall" "$1" && grep -q "image size: sized to the benches: fs.fileserver needs [0-9]* MiB" "$1"' _ "$T/m.out"
# a small parameter set gets the 512 MiB floor, not the big image
"$SB" matrix --fs tmpfs fs.fileserver -p files=100 --max-n 1 --dir "$T/d" -q -o "$T/s.json" >"$T/s.out" 2>&1
check "small parameters: the 512 MiB floor" jtrue "$T/s.json" "d['targets']['tmpfs']['size_bytes'] == 512 << 20"
check "nothing left: no mount, loop device or file" none_left
