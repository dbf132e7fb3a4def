#!/bin/sh
# SPDX-License-Identifier: MIT
# A large change is never waved through (issue 35, item 6): fs.create to
# N = 10,000 on ext4 against ext2 without dir_index (a linear directory
# scan: the top of the sweep about ten times dearer), one repetition a
# side, is SLOWER and exits 3 because the change at the top of the sweep is
# beyond compare's decisive factor (6x without history); each result
# compared with itself exits 0. Both ways: two `run --dir` results on
# loop-mounted file systems this test makes, and `matrix --fresh`.
. "$(dirname "$0")/lib.sh"
if ! is_root; then skip "compare decisive (needs root for loop mounts)"; exit 0; fi
if ! command -v mkfs.ext2 >/dev/null; then skip "compare decisive (no mkfs.ext2)"; exit 0; fi
mkdir -p "$T/d" "$T/m4" "$T/m2"
at_exit 'umount "$T/m4" 2>/dev/null; umount "$T/m2" 2>/dev/null'
truncate -s 512M "$T/e4.img" "$T/e2.img"
mkfs.ext4 -q -F "$T/e4.img" && mkfs.ext2 -q -F -O ^dir_index "$T/e2.img" &&
	mount -o loop "$T/e4.img" "$T/m4" && mount -o loop "$T/e2.img" "$T/m2"
check "two loop-mounted file systems made (ext4; ext2 without dir_index)" sh -c \
	'grep -q " $1 ext4 " /proc/self/mounts && grep -q " $2 ext2 " /proc/self/mounts' _ "$T/m4" "$T/m2"

# one sweep a side (-r 1: --decide's rounds, on by default without -r,
# would add repetitions to whichever side's verdict is undecided, and the
# rule under test is the one for a single repetition)
"$SB" run fs.create -r 1 --max-n 10000 --dir "$T/m4" -q --no-db -o "$T/c4.json" >/dev/null 2>"$T/r4.err"
"$SB" run fs.create -r 1 --max-n 10000 --dir "$T/m2" -q --no-db -o "$T/c2.json" >/dev/null 2>"$T/r2.err"
one_rep="len(d['benches'][0]['repetitions']) == 1 and d['benches'][0]['max_n'] == 10000"
check "one repetition each, to N = 10,000: ext4" jtrue "$T/c4.json" "$one_rep"
check "... and ext2" jtrue "$T/c2.json" "$one_rep"
"$SB" compare "$T/c4.json" "$T/c2.json" >"$T/c.out" 2>"$T/c.err"; rc=$?
check "run --dir: ext4 against ext2 without dir_index, one repetition a side: exit 3" test $rc -eq 3
check "... fs.create SLOWER, decisive at the top of the sweep" \
	grep -q "^fs.create  *bench.*[0-9] and 1 repetitions.*decisive: the top two points +[0-9.]*%, beyond 6x.*=> SLOWER" "$T/c.out"
[ $rc -eq 3 ] || cat "$T/c.out" >&2
"$SB" compare "$T/c4.json" "$T/c4.json" >/dev/null 2>&1
check "... ext4 compared with itself: exit 0" test $? -eq 0
"$SB" compare "$T/c2.json" "$T/c2.json" >/dev/null 2>&1
check "... ext2 compared with itself: exit 0" test $? -eq 0
"$SB" compare "$T/c4.json" "$T/c2.json" --format json >"$T/c.json" 2>/dev/null
check "... the JSON says where: decisive slower, the top's change beyond the factor" jtrue "$T/c.json" \
	"(lambda b: b['word'] == 'slower' and b['test'] == 'decisive' and b['decisive']['word'] == 'slower' and b['decisive']['basis'] == 'default' and b['decisive']['top_change_pct'] >= 100 * (b['decisive']['factor'] - 1))(d['comparisons'][0]['benches'][0])"
umount "$T/m4" && umount "$T/m2"

E2='ext2:-O ^dir_index'
"$SB" matrix --fs "ext4,$E2" fs.create --max-n 10000 --image-size 512M --fresh --dir "$T/d" \
	-q --no-db -o "$T/m.json" >/dev/null 2>"$T/m.err"
check "matrix --fresh, one repetition a target: exit 0" test $? -eq 0
"$SB" compare "$T/m.json@ext4" "$T/m.json@$E2" >"$T/mc.out" 2>&1; rc=$?
check "matrix: ext4 against ext2 without dir_index, one repetition a side: exit 3, SLOWER" sh -c \
	'[ $1 -eq 3 ] && grep -q "^fs.create  *bench.*decisive.*=> SLOWER" "$2"' _ $rc "$T/mc.out"
[ $rc -eq 3 ] || cat "$T/mc.out" >&2
"$SB" compare "$T/m.json@$E2" "$T/m.json@$E2" >/dev/null 2>&1
check "... a target compared with itself: exit 0" test $? -eq 0
check "nothing left after the runs" none_left
check "the test's mounts are gone" sh -c '! grep -q "$1" /proc/self/mounts' _ "$T/m"
