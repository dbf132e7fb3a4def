# SPDX-License-Identifier: MIT
# scalebench matrix: refused without root; as root, a small matrix on ext4,
# xfs, tmpfs and a file system whose mkfs fails (skipped with the reason);
# a small full image gives ENOSPC recorded with first-failure data; Ctrl-C
# in the middle leaves no mount, loop device, image or directory behind.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/d"
"$SB" matrix --fs ext4 --image-size 1Q fs.create --dir "$T/d" >"$T/o" 2>"$T/e"
check "bad --image-size is a usage error" sh -c '[ $1 -eq 2 ] && grep -q "image-size" "$2"' _ $? "$T/e"
"$SB" matrix --fs ext9 --dir "$T/d" >"$T/o" 2>"$T/e"
check "unknown file system is a usage error" sh -c '[ $1 -eq 2 ] && grep -q "unknown file system .ext9." "$2"' _ $? "$T/e"
check "matrix --help documents --fs and --image-size" sh -c '"$1" matrix --help | grep -q -- "--image-size" && "$1" matrix --help | grep -q "root only"' _ "$SB"
if ! is_root; then
	"$SB" matrix --fs ext4 fs.create --dir "$T/d" >"$T/o" 2>"$T/e"
	check "not root: exit 2 with a clear message" sh -c '[ $1 -eq 2 ] && grep -q "needs root" "$2"' _ $? "$T/e"
	skip "matrix runs (need root)"
	exit 0
fi
chmod 755 "$T" "$T/d"
if ! unpriv_ok; then
	skip "not root: $UNPRIV_WHY"
else
	setpriv --reuid=65534 --regid=65534 --clear-groups "$SB" matrix --fs ext4 fs.create --dir "$T/d" >"$T/o" 2>"$T/e"
	check "not root: exit 2 with a clear message" sh -c '[ $1 -eq 2 ] && grep -q "needs root" "$2" && [ $(wc -l <"$2") -eq 1 ]' _ $? "$T/e"
fi


"$SB" matrix --fs 'ext4,xfs,tmpfs,btrfs:--nodesize 3' fs.create fs.readdir io.randread -p engine=io_uring \
	--max-n 64 --budget 0.02 -p size_mib=8 --dir "$T/d" -q -o "$T/m.json" >"$T/m.out" 2>"$T/m.err"
rc=$?
check "small matrix exits 0" test $rc -eq 0
[ $rc -eq 0 ] || cat "$T/m.err"
check "one target per file system, in order" sh -c 'jget "$1" "list(d[\"targets\"]) == [\"ext4\", \"xfs\", \"tmpfs\", \"btrfs:--nodesize 3\"]" | grep -q True' _ "$T/m.json"
check "each mounted target has its own snapshot naming its file system" sh -c 'jget "$1" "every(d[\"targets\"][t][\"snapshot\"][\"filesystem\"][\"type\"] == t for t in (\"ext4\", \"xfs\", \"tmpfs\"))" | grep -q True' _ "$T/m.json"
check "images: loop device with direct I/O, image path and backing fs recorded" sh -c 'jget "$1" "every(d[\"targets\"][t][\"loop\"][\"direct_io\"] and d[\"targets\"][t][\"image\"][\"path\"] and d[\"targets\"][t][\"image\"][\"backing_fs\"] for t in (\"ext4\", \"xfs\"))" | grep -q True' _ "$T/m.json"
check "the snapshot says where the image lives and what backs it" sh -c 'jget "$1" "d[\"targets\"][\"xfs\"][\"snapshot\"][\"matrix\"][\"image\"][\"path\"].endswith(\".img\") and d[\"targets\"][\"tmpfs\"][\"snapshot\"][\"matrix\"][\"backing\"].startswith(\"memory\")" | grep -q True' _ "$T/m.json"
check "failing mkfs: file system skipped with the reason" sh -c 'jget "$1" "d[\"targets\"][\"btrfs:--nodesize 3\"][\"skipped\"]" | grep -q "mkfs.btrfs failed"' _ "$T/m.json"
check "every bench of every mounted fs measured, labelled with its target" sh -c 'jget "$1" "sorted((b[\"target\"], b[\"name\"], b[\"status\"]) for b in d[\"benches\"] if b.get(\"variant\") in (None, \"engine=io_uring,direct=0\"))" | grep -q "(.ext4., .fs.create., .ok.), (.ext4., .fs.readdir., .ok.), (.ext4., .io.randread., .ok.), (.tmpfs., .fs.create., .ok.)"' _ "$T/m.json"
check "summary side by side: one column per file system" sh -c 'grep -q "^bench  *ext4  *xfs  *tmpfs  *btrfs" "$1" && grep -q "^fs.create  *[0-9.]* [nu]s " "$1"' _ "$T/m.out"
check "summary says why btrfs was skipped" grep -q "btrfs:--nodesize 3 *skipped: mkfs.btrfs failed" "$T/m.out"
check "nothing left: no mount, loop device or file" none_left

# ENOSPC: a 32 MiB ext4 filled by fs.fsync's dirty data
"$SB" matrix --fs ext4 --image-size 32M fs.fsync --max-n 100 --budget 0.02 --dir "$T/d" -q -o "$T/f.json" >"$T/f.out" 2>"$T/f.err"
check "full file system: run exits 0" test $? -eq 0
check "ENOSPC recorded as a limit with first-failure data" sh -c 'jget "$1" "(lambda f: f[\"errno\"] == 28 and f[\"kind\"] == \"limit\" and f[\"phase\"] == \"grow\" and \"memory\" in f[\"state\"] or \"open_fds\" in f[\"state\"])(d[\"benches\"][0][\"repetitions\"][0][\"failure\"])" | grep -q True' _ "$T/f.json"
check "ENOSPC: the points before it are kept" sh -c 'jget "$1" "len(d[\"benches\"][0][\"repetitions\"][0][\"points\"]) >= 3" | grep -q True' _ "$T/f.json"
check "ENOSPC: the summary names the stop" grep -q "stop ext4: fs.fsync: limit at N=" "$T/f.out"
check "nothing left after ENOSPC" none_left

# Ctrl-C while a file system is mounted and measured
"$SB" matrix --fs ext4,xfs fs.create --max-n 1000000 --budget 2 --dir "$T/d" -q -o "$T/i.json" >"$T/i.out" 2>"$T/i.err" &
pid=$!
i=0; while [ $i -lt 150 ] && ! grep -q "$T/d/scalebench-matrix" /proc/self/mounts; do sleep 0.1; i=$((i+1)); done
check "a file system was mounted before the signal" grep -q "$T/d/scalebench-matrix" /proc/self/mounts
sleep 0.5
kill -INT $pid
wait $pid; rc=$?
check "Ctrl-C: exit 130" test $rc -eq 130
check "Ctrl-C: partial result written, marked interrupted" sh -c 'jget "$1" "d[\"interrupted\"]" | grep -q True' _ "$T/i.json"
check "Ctrl-C: no mount, loop device, image or directory left" none_left
leftovers >&2
