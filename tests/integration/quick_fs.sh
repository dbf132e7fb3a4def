# SPDX-License-Identifier: MIT
# The quick suite on a loop-mounted ext4 made by this test (root only), and
# its benches that work in the target directory (fs, io, work) on a tmpfs:
# the others (proc, mem, net, rt) measure the same whatever --dir is, so
# one pass over them is enough. The file system is recorded in the
# snapshot and nothing is left behind: no files, mounts or loop devices.
. "$(dirname "$0")/lib.sh"
if ! is_root; then skip "quick suite on tmpfs and ext4 (needs root)"; exit 0; fi

run_on() { # run_on FSTYPE DIR ["BENCH..."]: all benches without the third
	# shellcheck disable=SC2086 # the bench list, split
	"$SB" run ${3:-} --quick --dir "$2" -q -o "$T/$1.json" >"$T/$1.out" 2>"$T/$1.err"
	rc=$?
	check "$1: quick suite exits 0" test $rc -eq 0
	[ $rc -eq 0 ] || cat "$T/$1.err"
	check "$1: snapshot names the file system" jtrue "$T/$1.json" "d['snapshot']['filesystem']['type'] == '$1'"
	check "$1: every bench measured without failure" jtrue "$T/$1.json" "every(b['status'] == 'ok' for b in d['benches'])"
	check "$1: fs.create swept to 10000 entries" jtrue "$T/$1.json" "$(B fs.create)['max_n'] == 10000 and $(B fs.create)['repetitions'][0]['points'][-1]['n'] == 10000"
	# a category axis (rt.wakeup's load kinds) has no growth verdict: its
	# headline is the tail per kind (category_tail)
	check "$1: every bench has a verdict (a category axis its tail per kind)" jtrue "$T/$1.json" \
		"every(b['verdict']['class'] != 'none' if b.get('axis_kind') != 'category' else bool(b.get('category_tail', {}).get('categories')) for b in d['benches'])"
	check "$1: nothing left in the target" empty_dir "$2"
	sed -n '1,12p' "$T/$1.out"
}

mkdir -p "$T/tmpfs"
mount -t tmpfs -o size=512m sbtest-tmpfs "$T/tmpfs" && at_exit "umount '$T/tmpfs'"
truncate -s 512M "$T/ext4.img"
mkfs.ext4 -q -F "$T/ext4.img"
loop=$(losetup -f --show "$T/ext4.img")
at_exit "losetup -d $loop"
mkdir -p "$T/ext4"
mount "$loop" "$T/ext4" && at_exit "umount '$T/ext4'"

# The two runs at once (neither is judged against the other; each is
# judged on its own sweeps), their lines in this order.
run_on tmpfs "$T/tmpfs" "fs io work" >"$T/tmpfs.tap" 2>&1 &
p1=$!
run_on ext4 "$T/ext4" >"$T/ext4.tap" 2>&1 &
p2=$!
at_exit "kill $p1 $p2 2>/dev/null; wait"
wait
cat "$T/tmpfs.tap" "$T/ext4.tap"
