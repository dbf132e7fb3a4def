#!/bin/sh
# SPDX-License-Identifier: MIT
# The io engines' batch parameter and `run --fio`: batch reaches the
# engines (and is capped at the depth), a bad batch is exit 2, and --fio
# prints one fio command line per variant and point, runs nothing, and its
# line runs with fio for a short job (psync and libaio with a batch), fio's
# file removed after it.
. "$(dirname "$0")/lib.sh"
SMALL="-p size_mib=8 --budget 0.05 -q --no-db"
mkdir -p "$T/d"

# ---- batch ----
if [ "${SB_VARIANT:-native}" = posix ]; then
	skip "batch: libaio and io_uring are not in the POSIX build"
else
	"$SB" run io.randread -p engine=libaio -p direct=0 -p batch=4 --dir "$T/d" --min-n 2 --max-n 8 $SMALL -o "$T/b4.json" >"$T/b4.out" 2>&1
	check "batch=4: run exits 0" test $? -eq 0
	check "batch=4: libaio measured" jtrue "$T/b4.json" "d['benches'][0]['status'] == 'ok'"
	check "batch=4: every point says batch min(4, depth)" jtrue "$T/b4.json" \
		"every(p['extra']['batch'] == min(4, p['n']) for p in d['benches'][0]['repetitions'][0]['points']) and len(d['benches'][0]['repetitions'][0]['points']) == 3"
	"$SB" run io.randread -p engine=io_uring -p direct=0 --dir "$T/d" --min-n 4 --max-n 4 $SMALL -o "$T/u.json" >"$T/u.out" 2>&1
	check "io_uring, default batch: run exits 0" test $? -eq 0
	check "io_uring, default batch: batch 1 and the ring's setup flags in the point" jtrue "$T/u.json" \
		"every(p['extra']['batch'] == 1 and isinstance(p['extra']['uring_setup'], list) and p['ops'] > 0 for p in d['benches'][0]['repetitions'][0]['points'])"
	"$SB" run io.randwrite -p engine=io_uring -p direct=0 -p batch=8 -p uring_setup=plain --dir "$T/d" --min-n 8 --max-n 8 $SMALL -o "$T/w.json" >"$T/w.out" 2>&1
	check "io_uring writes, batch=8, plain ring: measured with no setup flag" jtrue "$T/w.json" \
		"every(p['extra']['batch'] == 8 and p['extra']['uring_setup'] == [] and p['ops'] > 0 for p in d['benches'][0]['repetitions'][0]['points'])"
fi
"$SB" run io.randread -p batch=0 --dir "$T/d" $SMALL >"$T/bad.out" 2>&1
check "batch=0: exit 2" test $? -eq 2
check "batch=0: the message names batch" out_has "$T/bad.out" "batch"
check "nothing left in the target" empty_dir "$T/d"

# ---- --fio ----
"$SB" run io.randread io.seqwrite --fio --dir "$T/d" --min-n 4 --max-n 8 --budget 0.3 -p direct=1 >"$T/fio.out" 2>"$T/fio.err"
check "--fio: exit 0" test $? -eq 0
check "--fio: nothing made in the target (nothing run)" empty_dir "$T/d"
nv_r=$(grep -c '^# io.randread \[' "$T/fio.out")
nv_w=$(grep -c '^# io.seqwrite \[' "$T/fio.out")
check "--fio: one header per variant (randread 3 direct variants, seqwrite 3)" test "$nv_r" = 3 -a "$nv_w" = 3
check "--fio: randread, points 4 and 8: 4 async lines with --iodepth=4 or 8, 2 psync with --numjobs=4 or 8" \
	test "$(grep -c '^fio --name=io.randread .*--rw=randread .*--iodepth=[48] ' "$T/fio.out")" = 4 -a \
	"$(grep -c '^fio --name=io.randread .*--rw=randread .*--ioengine=psync .*--numjobs=[48] ' "$T/fio.out")" = 2
check "--fio: seqwrite, points 4 and 8 KiB: 6 fio lines with --bs=4096 or 8192" test "$(grep -c '^fio --name=io.seqwrite .*--rw=write --bs=\(4096\|8192\) ' "$T/fio.out")" = 6
check "--fio: every line O_DIRECT, time-based over the budget, file in --dir" sh -c '[ "$(grep "^fio " "$1" | grep -v -c -- "--direct=1 .*--time_based --runtime=300ms --ramp_time=0")" = 0 ] && [ "$(grep "^fio " "$1" | grep -c -- "--filename=.$2/scalebench-fio.dat.")" = 12 ]' _ "$T/fio.out" "$T/d"
"$SB" run io.randread --fio --min-n 16 --max-n 16 -p engine=libaio -p batch=8 -p direct=0 >"$T/fb.out" 2>&1
check "--fio: batch=8 maps to fio's submit and completion batch" out_has "$T/fb.out" "--iodepth=16 --iodepth_batch_submit=8 --iodepth_batch_complete_min=1 --iodepth_batch_complete_max=8 "
"$SB" run io.randread --fio --min-n 4 --max-n 4 -p engine=psync -p direct=0 >"$T/fp.out" 2>&1
check "--fio: psync at depth 4 is 4 fio jobs" out_has "$T/fp.out" "--ioengine=psync .*--numjobs=4 --thread --group_reporting"
"$SB" run io.streams --fio --min-n 3 --max-n 3 -p direct=0 -p file_mib=2 >"$T/fs.out" 2>&1
check "--fio: io.streams at 3 streams is 3 jobs of their own 2 MiB file each" out_has "$T/fs.out" "^fio --name=io.streams .*--filename_format='scalebench-fio.\$jobnum' --size=2M .*--rw=read .*--numjobs=3 --thread --group_reporting --invalidate=1 "
"$SB" run fs.create --fio >"$T/fn.out" 2>&1
check "--fio with no io bench: exit 2" test $? -eq 2
check "--fio with no io bench: says so" out_has "$T/fn.out" "no fio equivalent"

if ! command -v fio >/dev/null; then
	skip "fio runs the printed line (fio not installed)"
	exit 0
fi
fio_file_in() { # fio_file_in FIO-JSON DIR: the job's file is DIR/scalebench-fio.dat
	python3 - "$1" "$2" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["jobs"][0]["job options"]["filename"]
sys.exit(f != sys.argv[2].replace(":", "\\:") + "/scalebench-fio.dat")
PY
}
# a --dir with a quote and a ':' (fio's separator of file names) in it
Q="$T/q:x'y"
mkdir -p "$Q"
for e in psync libaio; do
	if [ $e = libaio ] && [ "${SB_VARIANT:-native}" = posix ]; then continue; fi
	line=$("$SB" run io.randread --fio --dir "$Q" --min-n 2 --max-n 2 --budget 0.3 -p engine=$e -p direct=0 -p batch=2 -p size_mib=8 | grep '^fio ')
	check "$e: --fio gives one line" test "$(printf '%s\n' "$line" | grep -c '^fio ')" = 1
	(cd "$T" && sh -c "$line --output-format=json --output='$T/fio-$e.json'") >"$T/fio-$e.err" 2>&1
	check "$e: fio runs the printed line (exit 0)" test $? -eq 0
	o=$( [ $e = psync ] && echo numjobs || echo iodepth )
	check "$e: fio read with 2 in flight ($o) and 4 KiB requests" jtrue "$T/fio-$e.json" \
		"d['jobs'][0]['read']['iops'] > 0 and d['jobs'][0]['job options']['$o'] == '2' and d['jobs'][0]['job options']['bs'] == '4096'"
	check "$e: fio's file was in the --dir given (':' escaped for fio)" fio_file_in "$T/fio-$e.json" "$Q"
	check "$e: fio's file removed after the job (--unlink=1)" sh -c '[ -z "$(ls -A "$1")" ] && [ -z "$(ls -A "$2")" ]' _ "$Q" "$T/d"
done
line=$("$SB" run io.streams --fio --dir "$Q" --min-n 2 --max-n 2 --budget 0.3 -p direct=0 -p file_mib=2 | grep '^fio ')
(cd "$T" && sh -c "$line --output-format=json --output='$T/fio-streams.json'") >"$T/fio-streams.err" 2>&1
check "io.streams: fio runs the printed line (exit 0)" test $? -eq 0
check "io.streams: fio read 2 streams of 256 KiB requests" jtrue "$T/fio-streams.json" \
	"d['jobs'][0]['read']['iops'] > 0 and d['jobs'][0]['job options']['numjobs'] == '2' and d['jobs'][0]['job options']['bs'] == '262144'"
check "io.streams: fio's files removed after the job" sh -c '[ -z "$(ls -A "$1")" ]' _ "$Q"
