# SPDX-License-Identifier: MIT
# tier: fast
# The scratch file system's journal, recorded and said: on ext4 made
# without one (mkfs.ext4 -O ^has_journal, loop-mounted by this test) the
# snapshot says journal false and the fs and work benches carry the note
# on the kernel's inode-reuse delay; on ext4 with a journal it says true
# and no bench has the note; on tmpfs there is no journal key at all; a
# bench of another family (net.socket) has no note on the journal-less
# one. compare names a difference in the journal as a caveat, and not when
# both sides are the same. Nothing is left: no files, mounts, loop devices.
. "$(dirname "$0")/lib.sh"
if ! is_root; then skip "fs journal (needs root: loop devices, mkfs)"; exit 0; fi
command -v mkfs.ext4 >/dev/null || { skip "fs journal (mkfs.ext4 missing)"; exit 0; }

ext4_mount nj 64M -O ^has_journal
ext4_mount j 64M
mkdir -p "$T/d/shm"
mount -t tmpfs -o size=64m sbtest-jtmpfs "$T/d/shm" && at_exit "umount '$T/d/shm'"

run() { # run NAME DIR BENCH...
	n=$1 dir=$2; shift 2
	"$SB" run "$@" --dir "$dir" --max-n 50 --budget 0.01 --no-decide -q --no-db -o "$T/$n.json" \
		>"$T/$n.out" 2>&1
	check "$n: run exits 0" test $? -eq 0
}
run nj "$T/d/nj" fs.stat net.socket
run j "$T/d/j" fs.stat
run shm "$T/d/shm" fs.stat

NOTE="has no journal: it does not reuse an inode"
has_note() { echo "any('$NOTE' in t and 'recently_deleted' in t for t in $(B "$1")['notes'])"; }
check "no journal: the snapshot says journal false" jtrue "$T/nj.json" "d['snapshot']['filesystem']['journal'] is False"
check "no journal: fs.stat has the note" jtrue "$T/nj.json" "$(has_note fs.stat)"
check "no journal: net.socket (not a file bench) has none" jtrue "$T/nj.json" "not $(has_note net.socket)"
check "no journal: the summary prints the note" out_has "$T/nj.out" "^note fs.stat: the scratch file system (ext4) $NOTE"
check "no journal: the findings say it once" out_has "$T/nj.out" "^  scratch  ext4 without a journal: the cost of files made after deletions (1 fs/work bench)"
check "journal: no such finding" sh -c '! grep -q "^  scratch" "$1"' _ "$T/j.out"
check "journal: the snapshot says journal true" jtrue "$T/j.json" "d['snapshot']['filesystem']['journal'] is True"
check "journal: no note" jtrue "$T/j.json" "not $(has_note fs.stat)"
check "tmpfs: no journal key" jtrue "$T/shm.json" "'journal' not in d['snapshot']['filesystem']"
check "tmpfs: no note" jtrue "$T/shm.json" "not $(has_note fs.stat)"

"$SB" compare "$T/nj.json" "$T/j.json" >"$T/cmp" 2>&1
check "compare: the journal's difference is a caveat" out_has "$T/cmp" "caveat: scratch file system's journal (ext2/3/4) differs: A no, B yes"
"$SB" compare "$T/nj.json" "$T/nj.json" >"$T/same" 2>&1
check "compare: the same journal is no caveat" sh -c '! grep -q "journal" "$1"' _ "$T/same"
"$SB" compare "$T/nj.json" "$T/shm.json" >"$T/shm.cmp" 2>&1
check "compare: ext4 against tmpfs (no journal key) is no journal caveat" sh -c '! grep -q "caveat: scratch file system.s journal" "$1"' _ "$T/shm.cmp"

# --decide (on by default without -r) gives no rounds to a bench that makes
# files on the journal-less one: points measured afresh after the sweep's
# deletions would measure those; an undecided verdict says so. A short
# budget leaves some sweeps undecided.
"$SB" run fs.create fs.stat fs.link fs.mkdir --dir "$T/d/nj" --max-n 200 --budget 0.01 -q --no-db \
	-o "$T/njd.json" >"$T/njd.out" 2>&1
check "no journal, --decide on: no repetitions added to a bench that makes files" jtrue "$T/njd.json" \
	"len(d['benches']) == 4 and every(len(b['repetitions']) == 1 and 'added_repetitions' not in b for b in d['benches'])"
check "... an unclear one says why" jtrue "$T/njd.json" \
	"not any(b['verdict']['class'] == 'unclear' and not any('no repetitions added: the scratch file system has no journal' in n for n in b['notes']) for b in d['benches'])"
if jtrue "$T/njd.json" "any(b['verdict']['class'] == 'unclear' for b in d['benches'])"; then
	echo "ok - no journal: some sweep was unclear (the check above was exercised)"
else
	echo "skip - no journal: every sweep decided by itself this time"
fi

# On the journal-less one a directory bench's trees (its directory and the
# spent one, where what it removes between samples goes) stay until the
# run's end, so that the next bench (here fs.stat) does not make its files
# just after their deletion; on the one with a journal each goes at once.
# A watcher notes every moment fs.create's spent directory and fs.stat's
# directory are there together.
overlap() { # overlap NAME DIR: run fs.create then fs.stat, watched
	n=$1 dir=$2
	: >"$T/$n.seen"
	"$SB" run fs.create fs.stat --dir "$dir" --max-n 200 --budget 0.05 --no-decide -q --no-db \
		-o "$T/$n.json" >"$T/$n.out" 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		for s in "$dir"/scalebench.*/fs.create.1.spent; do
			[ -d "$s" ] && [ -d "${s%/*}/fs.stat.1" ] && echo both >>"$T/$n.seen"
		done
		sleep 0.02
	done
	wait $pid
	check "$n: run exits 0" test $? -eq 0
}
overlap keepnj "$T/d/nj"
check "no journal: fs.create's trees stay while fs.stat runs" test -s "$T/keepnj.seen"
check "no journal: the note says what is moved aside and kept" jtrue "$T/keepnj.json" \
	"any('is moved aside and its trees stay until the run' in t for t in $(B fs.create)['notes'])"
overlap keepj "$T/d/j"
check "journal: no spent directory, each tree goes at once" test ! -s "$T/keepj.seen"
check "journal: fs.create's result is whole" jtrue "$T/keepj.json" "$(B fs.create)['status'] == 'ok'"

# What is moved aside keeps its inode: never so many that the sweep runs
# out where deleting would not (the 64 MiB image has 16,384 inodes; N to
# 14,000 plus the samples' files would not fit).
"$SB" run fs.create --dir "$T/d/nj" --max-n 14000 --budget 0.01 --no-decide -q --no-db \
	-o "$T/full.json" >"$T/full.out" 2>&1
check "no journal, few inodes to spare: fs.create reaches N=14,000" jtrue "$T/full.json" \
	"$(B fs.create)['status'] == 'ok' and $(B fs.create)['repetitions'][0]['points'][-1]['n'] == 14000"

for fs in nj j shm; do
	check "$fs: nothing left in the target" empty_dir "$T/d/$fs"
done
