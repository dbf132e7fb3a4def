# SPDX-License-Identifier: MIT
# scalebench matrix through FUSE and on other block devices: tmpfs+fuse and
# ext4+fuse (bindfs over the base) swept side by side with tmpfs and ext4,
# the daemon recorded; Ctrl-C during a FUSE run leaves no mount and no
# bindfs process; --dev zram hot-adds its own device and removes it (also
# on Ctrl-C); --dev dm-* is skipped with the reason where the kernel has
# no device-mapper. Bad --fs layers and --dev types are usage errors.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/d"
"$SB" matrix --fs ext4+nfs fs.stat --dir "$T/d" >"$T/o" 2>"$T/e"
check "unknown layer in --fs is a usage error" sh -c '[ $1 -eq 2 ] && grep -q "unknown layer .+nfs." "$2"' _ $? "$T/e"
"$SB" matrix --fs ext4 --dev floppy fs.stat --dir "$T/d" >"$T/o" 2>"$T/e"
check "unknown --dev is a usage error" sh -c '[ $1 -eq 2 ] && grep -q "unknown device type .floppy." "$2"' _ $? "$T/e"
check "matrix --help documents +fuse, --fuse-options and --dev" sh -c '"$1" matrix --help | grep -q "+fuse" && "$1" matrix --help | grep -q -- "--fuse-options" && "$1" matrix --help | grep -q -- "--dev TYPE"' _ "$SB"
if ! is_root; then
	skip "FUSE and zram matrix runs (need root)"
	exit 0
fi

# ours: mounts below $T, bindfs daemons serving a path below $T, files in $T/d
mounts_left() { grep -c "$T" /proc/self/mounts; }
bindfs_left() { pgrep -f "bindfs.*$T" | wc -l; }
none_left() { [ "$(mounts_left)" = 0 ] && [ "$(bindfs_left)" = 0 ] && [ -z "$(ls -A "$T/d")" ]; }

if ! command -v bindfs >/dev/null 2>&1; then
	skip "FUSE matrix (bindfs not installed: apt-get install bindfs)"
else
	"$SB" matrix --fs 'tmpfs,tmpfs+fuse,ext4,ext4+fuse' fs.stat fs.create --max-n 64 --budget 0.02 \
		--dir "$T/d" -q -o "$T/m.json" >"$T/m.out" 2>"$T/m.err"
	rc=$?
	check "FUSE matrix exits 0" test $rc -eq 0
	[ $rc -eq 0 ] || cat "$T/m.err" >&2
	check "one target per file system, base and FUSE, in order" jtrue "$T/m.json" 'list(d["targets"]) == ["tmpfs", "tmpfs+fuse", "ext4", "ext4+fuse"]'
	check "every bench measured on every target" jtrue "$T/m.json" 'sorted((b["target"], b["name"], b["status"]) for b in d["benches"]) == sorted((t, n, "ok") for t in ("tmpfs", "tmpfs+fuse", "ext4", "ext4+fuse") for n in ("fs.stat", "fs.create"))'
	check "FUSE targets record bindfs: daemon, version, options, command" jtrue "$T/m.json" 'every(d["targets"][t]["fuse"]["daemon"] == "bindfs" and d["targets"][t]["fuse"]["version"].startswith("bindfs ") and "options" in d["targets"][t]["fuse"] and d["targets"][t]["fuse"]["command"].startswith("bindfs -f ") for t in ("tmpfs+fuse", "ext4+fuse"))'
	check "base targets have no FUSE layer" jtrue "$T/m.json" 'every("fuse" not in d["targets"][t] for t in ("tmpfs", "ext4"))'
	check "the FUSE target's snapshot: fuse file system, served from the base mount, bindfs named" jtrue "$T/m.json" 'every(d["targets"][t]["snapshot"]["filesystem"]["type"] == "fuse" and d["targets"][t]["snapshot"]["filesystem"]["source"] + "-fuse" == d["targets"][t]["snapshot"]["filesystem"]["mount_point"] and d["targets"][t]["snapshot"]["matrix"]["fuse"]["daemon"] == "bindfs" for t in ("tmpfs+fuse", "ext4+fuse"))'
	check "ext4+fuse is over a loop-mounted ext4 image" jtrue "$T/m.json" 'd["targets"]["ext4+fuse"]["loop"]["device"].startswith("/dev/loop") and d["targets"]["ext4+fuse"]["snapshot"]["matrix"]["image"]["path"].endswith(".img")'
	check "summary side by side: base and FUSE columns" sh -c 'grep -q "^bench  *tmpfs  *tmpfs+fuse  *ext4  *ext4+fuse" "$1" && grep -q "^fs.create  *[0-9.]* [nu]s .* [0-9.]* [nu]s .* [0-9.]* [nu]s .* [0-9.]* [nu]s " "$1"' _ "$T/m.out"
	check "nothing left: no mount, bindfs or file" none_left

	# a bindfs option it refuses: the FUSE target is skipped with bindfs's reason
	"$SB" matrix --fs 'tmpfs+fuse' --fuse-options no-such-option=1 fs.stat --max-n 64 --budget 0.02 \
		--dir "$T/d" -q -o "$T/b.json" >"$T/b.out" 2>"$T/b.err"
	check "a bindfs failure: exit 0, target skipped with bindfs's reason" sh -c '[ $1 -eq 0 ] && jget "$2" "d[\"targets\"][\"tmpfs+fuse\"][\"skipped\"]" | grep -q "bindfs"' _ $? "$T/b.json"
	check "nothing left after a bindfs failure" none_left

	# Ctrl-C (SIGINT to the process group) while the FUSE mount is measured
	setsid "$SB" matrix --fs ext4+fuse fs.create --max-n 1000000 --budget 2 --ci 0.1 --dir "$T/d" -q \
		-o "$T/i.json" >"$T/i.out" 2>"$T/i.err" &
	pid=$!
	i=0; while [ $i -lt 300 ] && ! grep -q "$T/d/.*-fuse" /proc/self/mounts; do sleep 0.1; i=$((i+1)); done
	check "the FUSE mount was up before the signal" grep -q "$T/d/.*-fuse" /proc/self/mounts
	check "its bindfs daemon runs below scalebench, in its own process group" sh -c 'b=$(pgrep -P $1 -x bindfs) && [ "$(ps -o pgid= -p $b | tr -d " ")" = "$b" ]' _ $pid
	sleep 0.5
	env kill -INT -- -$pid # Ctrl-C: the whole process group
	wait $pid; rc=$?
	check "Ctrl-C during a FUSE run: exit 130" test $rc -eq 130
	check "Ctrl-C: partial result marked interrupted" jtrue "$T/i.json" 'd["interrupted"]'
	check "Ctrl-C: no FUSE or base mount, no bindfs process, no file left" none_left
	none_left || { mounts_left; bindfs_left; } >&2
fi

# zram: our own device, hot-added and removed; never one we did not make
if [ ! -w /sys/class/zram-control/hot_add ]; then
	skip "matrix --dev zram (no /sys/class/zram-control: modprobe zram)"
else
	before=$(ls /sys/block | grep '^zram' | sort | tr '\n' ' ')
	"$SB" matrix --fs ext4 --dev zram fs.stat --max-n 64 --budget 0.02 --dir "$T/d" -q -o "$T/z.json" \
		>"$T/z.out" 2>"$T/z.err"
	rc=$?
	check "--dev zram: exit 0" test $rc -eq 0
	[ $rc -eq 0 ] || cat "$T/z.err" >&2
	zdev=$(jget "$T/z.json" 'd["targets"]["ext4"]["zram"]["device"]' 2>/dev/null)
	check "--dev zram: ext4 made on a zram device of ours, measured there" jtrue "$T/z.json" 'd["targets"]["ext4"]["snapshot"]["filesystem"]["source"] == d["targets"]["ext4"]["zram"]["device"] and d["targets"]["ext4"]["dev"] == "zram" and every(b["status"] == "ok" for b in d["benches"])'
	check "--dev zram: the device was new (not one that existed before)" sh -c 'case " $2 " in *" ${1#/dev/} "*) exit 1;; esac; [ -n "$1" ]' _ "$zdev" "$before"
	check "--dev zram: the device is removed after the run" sh -c '[ -n "$1" ] && [ ! -e /sys/block/${1#/dev/} ]' _ "$zdev"
	check "--dev zram: the devices that were there before are still there" sh -c 'for z in $1; do [ -e /sys/block/$z ] || exit 1; done; [ -n "$1" ]' _ "$before"
	check "nothing left after --dev zram" none_left

	setsid "$SB" matrix --fs ext4 --dev zram fs.create --max-n 1000000 --budget 2 --ci 0.1 --dir "$T/d" -q \
		-o "$T/zi.json" >"$T/zi.out" 2>"$T/zi.err" &
	pid=$!
	i=0; while [ $i -lt 300 ] && ! grep -q "$T/d/" /proc/self/mounts; do sleep 0.1; i=$((i+1)); done
	zdev=$(grep "$T/d/" /proc/self/mounts | awk '{print $1}' | head -1)
	check "--dev zram: mounted from a zram device before the signal" sh -c 'case "$1" in /dev/zram*) exit 0;; esac; exit 1' _ "$zdev"
	sleep 0.5
	env kill -INT -- -$pid # Ctrl-C: the whole process group
	wait $pid; rc=$?
	check "Ctrl-C during a zram run: exit 130" test $rc -eq 130
	check "Ctrl-C: the zram device is removed" sh -c '[ -n "$1" ] && [ ! -e /sys/block/${1#/dev/} ]' _ "$zdev"
	check "nothing left after Ctrl-C on zram" none_left
fi

# device-mapper: skipped with the reason where the kernel has none
"$SB" matrix --fs ext4,tmpfs --dev dm-linear fs.stat --max-n 64 --budget 0.02 --dir "$T/d" -q -o "$T/dm.json" \
	>"$T/dm.out" 2>"$T/dm.err"
rc=$?
if [ ! -e /dev/mapper/control ]; then
	check "--dev dm-linear without device-mapper: exit 0" test $rc -eq 0
	check "--dev dm-linear: ext4 skipped, the reason names device-mapper" jtrue "$T/dm.json" '"device-mapper: not in this kernel" in d["targets"]["ext4"]["skipped"]'
	check "--dev dm-linear: tmpfs (no device) still measured" jtrue "$T/dm.json" 'every(b["status"] == "ok" for b in d["benches"] if b["target"] == "tmpfs") and "tmpfs" in [b["target"] for b in d["benches"]]'
	check "--dev dm-linear: the summary says why" grep -q "ext4 *skipped: device-mapper" "$T/dm.out"
else
	skip "device-mapper present: dm-* targets are not implemented yet (skipped with that reason)"
fi
check "nothing left after --dev dm-linear" none_left

# run --dir on a FUSE mount made outside scalebench: the snapshot says fuse and names the daemon
if command -v bindfs >/dev/null 2>&1; then
	mkdir -p "$T/fb" "$T/fm"
	bindfs -f "$T/fb" "$T/fm" >/dev/null 2>&1 &
	bpid=$!
	at_exit "umount $T/fm 2>/dev/null; kill $bpid 2>/dev/null"
	i=0; while [ $i -lt 100 ] && ! grep -q " $T/fm fuse" /proc/self/mounts; do sleep 0.1; i=$((i+1)); done
	"$SB" run fs.stat --dir "$T/fm" --max-n 16 --budget 0.01 -q -o "$T/r.json" >/dev/null 2>"$T/r.err"
	check "run --dir on FUSE: exit 0" test $? -eq 0
	check "run --dir on FUSE: the snapshot says fuse and names the daemon serving it" jtrue "$T/r.json" "d['snapshot']['filesystem']['type'] == 'fuse' and d['snapshot']['filesystem']['fuse']['daemon']['comm'] == 'bindfs' and d['snapshot']['filesystem']['fuse']['daemon']['pid'] == $bpid"
	umount "$T/fm"; wait $bpid
	check "run --dir on FUSE: our bindfs is gone after the unmount" sh -c '! kill -0 $1 2>/dev/null' _ $bpid
fi
