# SPDX-License-Identifier: MIT
# The io.* benches and the new fs.* benches at small sizes: every engine
# and O_DIRECT variant measures (or skips with a reason in a build without
# it), the page-cache state and the request size are in each point, and an
# O_DIRECT open refused with EINVAL (injected through the test-only param
# inject=direct-einval) is a clear skip, not a failure. On a tmpfs and on
# loop-mounted ext4 and xfs made by this test when root, else in $T.
. "$(dirname "$0")/lib.sh"
# every -p key must be one that a selected bench takes (else exit 2)
SMALL="--budget 0.02 -q"
IO_SMALL="-p size_mib=8 -p file_mib=2"
FS_SMALL="-p files=100"

run_io() { # run_io LABEL DIR
	"$SB" run io.seqread io.seqwrite io.randread io.randwrite io.streams --dir "$2" --max-n 8 $SMALL $IO_SMALL -o "$T/$1-io.json" >"$T/$1-io.out" 2>"$T/$1-io.err"
	check "$1: io benches exit 0" test $? -eq 0
	check "$1: every io variant ok or skipped with a reason" sh -c 'jget "$1" "every(b[\"status\"] == \"ok\" or (b[\"status\"] == \"skipped\" and b[\"skip_reason\"]) for b in d[\"benches\"])" | grep -q True' _ "$T/$1-io.json"
	if [ "${SB_VARIANT:-native}" != posix ]; then
		check "$1: psync, libaio, io_uring, mmap, buffered and O_DIRECT all measured" sh -c 'jget "$1" "sorted(set(b[\"variant\"] for b in d[\"benches\"] if b[\"name\"] == \"io.randread\" and b[\"status\"] == \"ok\"))" | grep -q "engine=io_uring,direct=1.*engine=libaio,direct=1.*engine=mmap,direct=0.*engine=psync,direct=1"' _ "$T/$1-io.json"
	fi
	check "$1: points say the page-cache state, request size and depth" sh -c 'jget "$1" "every(\"cache\" in p[\"extra\"] and p[\"extra\"][\"request_bytes\"] > 0 for b in d[\"benches\"] if b[\"name\"] != \"io.streams\" for r in b[\"repetitions\"] for p in r[\"points\"])" | grep -q True' _ "$T/$1-io.json"
	check "$1: randread depth axis 1..8, 4 KiB requests, bandwidth recorded" sh -c 'jget "$1" "[(p[\"n\"], p[\"extra\"][\"request_bytes\"], p[\"throughput\"][\"bytes_per_s\"] > 0) for p in d[\"benches\"][[b[\"name\"] for b in d[\"benches\"]].index(\"io.randread\")][\"repetitions\"][0][\"points\"]]" | grep -q "(1, 4096, True), (2, 4096, True), (4, 4096, True), (8, 4096, True)"' _ "$T/$1-io.json"
	check "$1: io.streams has per-stream rates and fairness" sh -c 'jget "$1" "every(len(p[\"extra\"][\"per_stream_mib_s\"]) == p[\"n\"] and 0 <= p[\"extra\"][\"fairness_min_over_max\"] <= 1 for b in d[\"benches\"] if b[\"name\"] == \"io.streams\" and b[\"status\"] == \"ok\" for p in b[\"repetitions\"][0][\"points\"])" | grep -q True' _ "$T/$1-io.json"

	"$SB" run fs.mkdir fs.rename fs.link fs.readdir fs.lookup-deep fs.fsync fs.smallfile fs.fileserver --dir "$2" --max-n 20 $SMALL $FS_SMALL -o "$T/$1-fs.json" >"$T/$1-fs.out" 2>"$T/$1-fs.err"
	check "$1: fs benches exit 0" test $? -eq 0
	check "$1: every fs bench ok" sh -c 'jget "$1" "[b[\"name\"] for b in d[\"benches\"] if b[\"status\"] != \"ok\"]" | grep -qx "\[\]"' _ "$T/$1-fs.json"
	check "$1: fs.fileserver reports four phases and findings" sh -c 'jget "$1" "every(sorted(p[\"extra\"][\"phases\"]) == [\"delete\",\"overwrite\",\"populate\",\"read\"] and isinstance(p[\"extra\"][\"findings\"], list) and p[\"extra\"][\"phases\"][\"read\"][\"files\"] == 200 for b in d[\"benches\"] if b[\"name\"] == \"fs.fileserver\" for p in b[\"repetitions\"][0][\"points\"])" | grep -q True' _ "$T/$1-fs.json"
	check "$1: fs.lookup-deep swept to depth 20" sh -c 'jget "$1" "[b[\"max_n\"] for b in d[\"benches\"] if b[\"name\"] == \"fs.lookup-deep\"]" | grep -qx "\[20\]"' _ "$T/$1-fs.json"
	check "$1: nothing left in the target" sh -c '[ -z "$(ls -A "$1" | grep -v lost+found)" ]' _ "$2"
}

# The O_DIRECT skip path, whatever the file system accepts.
mkdir -p "$T/plain"
"$SB" run io.randread -p direct=1 -p inject=direct-einval --dir "$T/plain" --max-n 2 $SMALL -p size_mib=8 -o "$T/inj.json" >"$T/inj.out" 2>&1
check "O_DIRECT refused: run exits 0" test $? -eq 0
if [ "${SB_VARIANT:-native}" = posix ]; then
	check "O_DIRECT absent in the POSIX build: skipped with the reason" sh -c 'jget "$1" "every(b[\"status\"] == \"skipped\" and (\"O_DIRECT\" in b[\"skip_reason\"] or \"not in this build\" in b[\"skip_reason\"]) for b in d[\"benches\"])" | grep -q True' _ "$T/inj.json"
else
	check "O_DIRECT refused (EINVAL): every direct variant skipped with the reason" sh -c 'jget "$1" "every(b[\"status\"] == \"skipped\" and \"O_DIRECT refused\" in b[\"skip_reason\"] and \"EINVAL\" in b[\"skip_reason\"] for b in d[\"benches\"]) and len(d[\"benches\"]) == 3" | grep -q True' _ "$T/inj.json"
fi
check "O_DIRECT refused: the summary says skipped" grep -q "skipped.*O_DIRECT" "$T/inj.out"

if ! is_root || [ -n "${SB_VARIANT:-}" ]; then # sanitizer and POSIX builds: a plain directory
	run_io plain "$T/plain"
	[ -n "${SB_VARIANT:-}" ] && exit 0
	skip "io and fs benches on tmpfs, ext4 and xfs (needs root to mount)"
	exit 0
fi
mkdir -p "$T/tmpfs"
mount -t tmpfs -o size=256m sbtest-tmpfs "$T/tmpfs" && at_exit "umount '$T/tmpfs'"
run_io tmpfs "$T/tmpfs"
for fs in ext4 xfs; do
	if ! command -v "mkfs.$fs" >/dev/null 2>&1; then skip "$fs: mkfs.$fs missing"; continue; fi
	truncate -s 320M "$T/$fs.img"
	"mkfs.$fs" -q $( [ $fs = ext4 ] && echo -F || echo -f ) "$T/$fs.img" >/dev/null 2>&1
	loop=$(losetup -f --show "$T/$fs.img") || { skip "$fs: no loop device"; continue; }
	at_exit "losetup -d $loop"
	mkdir -p "$T/$fs"
	mount "$loop" "$T/$fs" && at_exit "umount '$T/$fs'"
	run_io "$fs" "$T/$fs"
done
