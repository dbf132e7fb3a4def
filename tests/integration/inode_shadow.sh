# SPDX-License-Identifier: MIT
# tier: fast
# The shadow of recent deletions on an ext4 without a journal (docs/method.md,
# "The scratch file system's memory"; sweep.c, inode_probe): on a fresh
# loop-mounted image each point of fs.mkdir records the probe (creates and
# hard links in the bench's directory just before it), the create under 3
# links, and the verdict is its own; after 20,000 files were made and
# deleted beside the scratch directory, the probe reads a create at 3
# links or more, the verdict is unclear with the reason, and the findings
# say how many benches measured in the shadow. fs.stat (its op makes no
# file) and a file system with a journal carry no probe. The documents
# pass the schema; nothing is left.
. "$(dirname "$0")/lib.sh"
if ! is_root; then skip "inode shadow (needs root: loop devices, mkfs)"; exit 0; fi
command -v mkfs.ext4 >/dev/null || { skip "inode shadow (mkfs.ext4 missing)"; exit 0; }

ext4_mount nj 1G -O ^has_journal
ext4_mount j 1G
# a directory below the root in each: the scratch directory and the
# deleted files' one are placed near it (not spread as top-level ones are)
mkdir "$T/d/nj/sub" "$T/d/j/sub"

run() { # run NAME DIR BENCH...
	n=$1 dir=$2; shift 2
	"$SB" run "$@" --dir "$dir" --max-n 200 --budget 0.01 --no-decide --no-db -o "$T/$n.json" \
		>"$T/$n.out" 2>&1
	check "$n: run exits 0" test $? -eq 0
}
PTS="$(B fs.mkdir)['repetitions'][0]['points']"
RATIOS="[p['inode_probe']['create_ns'] / p['inode_probe']['link_ns'] for p in $PTS]"

run fresh "$T/d/nj/sub" fs.mkdir fs.stat
check "fresh: every point of fs.mkdir has the probe" jtrue "$T/fresh.json" \
	"every(p['inode_probe']['create_ns'] > 0 and p['inode_probe']['link_ns'] > 0 for p in $PTS)"
check "fresh: a create costs under 3 links" jtrue "$T/fresh.json" "max($RATIOS) < 3"
check "fresh: the verdict is not the shadow's" jtrue "$T/fresh.json" \
	"'shadowed' not in $(B fs.mkdir)['verdict']['reason']"
check "fresh: the findings name no shadow" sh -c '! grep -q "in the shadow" "$1"' _ "$T/fresh.out"
check "fs.stat (its op makes no file): no probe" jtrue "$T/fresh.json" \
	"every('inode_probe' not in p for p in $(B fs.stat)['repetitions'][0]['points'])"

mkdir "$T/d/nj/sub/big"
(cd "$T/d/nj/sub/big" && seq 20000 | xargs touch)
check "20,000 files made" test "$(ls "$T/d/nj/sub/big" | wc -l)" -eq 20000
rm -rf "$T/d/nj/sub/big"
# the kernel counts a deletion from the second after it (time_before32(dtime,
# now)): a run begun within the same second may find none shadowing
sleep 2

run shadow "$T/d/nj/sub" fs.mkdir
check "after 20,000 deletions: a create costs 3 links or more before the first point" jtrue \
	"$T/shadow.json" "${RATIOS}[0] >= 3"
check "... the verdict is unclear, the reason says so" jtrue "$T/shadow.json" \
	"$(B fs.mkdir)['verdict']['class'] == 'unclear' and 'recent deletions shadowed the scratch file system' in $(B fs.mkdir)['verdict']['reason']"
check "... the repetition's verdict too" jtrue "$T/shadow.json" \
	"$(B fs.mkdir)['repetitions'][0]['verdict']['class'] == 'unclear'"
check "... the findings say it" out_has "$T/shadow.out" \
	"^  scratch  ext4 without a journal: .*; 1 bench measured in the shadow of such deletions (a file made cost up to [0-9]*x a hard link)"
check "... and why it is unclear" out_has "$T/shadow.out" "^why  fs.mkdir: recent deletions shadowed"

run journal "$T/d/j/sub" fs.mkdir
check "journal: no probe" jtrue "$T/journal.json" "every('inode_probe' not in p for p in $PTS)"

for fs in nj j; do
	check "$fs: nothing left but the test's own directory" sh -c '[ "$(ls -A "$1" | grep -v lost+found)" = sub ]' _ "$T/d/$fs"
	check "$fs: the scratch directory is gone" empty_dir "$T/d/$fs/sub"
done
