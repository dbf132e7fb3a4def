# SPDX-License-Identifier: MIT
# A target that fills up mid-sweep (a tmpfs made by this test with room for
# 300 inodes): fs.create stops with ENOSPC recorded as a limit, with
# first-failure data, the run goes on, and nothing is left behind.
. "$(dirname "$0")/lib.sh"
if ! is_root; then skip "full target (needs root to mount a small tmpfs)"; exit 0; fi
mkdir -p "$T/small"
mount -t tmpfs -o size=4m,nr_inodes=300 sbtest-small "$T/small" || { skip "cannot mount tmpfs"; exit 0; }
at_exit "umount '$T/small'"
"$SB" run fs.create fs.stat --dir "$T/small" --max-n 1000 --budget 0.02 -q -o "$T/r.json" >"$T/out" 2>"$T/err"
check "run completes with exit 0" test $? -eq 0
F="$(B fs.create)['repetitions'][0]['failure']"
check "fs.create failed with ENOSPC of kind limit while growing" jtrue "$T/r.json" "$F['errno'] == 28 and $F['kind'] == 'limit' and $F['phase'] == 'grow' and 200 < $F['n'] < 300"
check "first-failure data holds memory figures and the kernel log or its reason" jtrue "$T/r.json" "'meminfo' in $F['state'] and 'kernel_log_tail' in $F['state']"
check "points up to the failure are kept" jtrue "$T/r.json" "[p['n'] for p in $(B fs.create)['repetitions'][0]['points']] == [1, 2, 5, 10, 20, 50, 100, 200]"
check "fs.stat ran after it, and stopped the same way" jtrue "$T/r.json" "$(B fs.stat)['repetitions'][0]['failure']['errno'] == 28"
check "summary names the stop" out_has "$T/out" "stop fs.create: limit at N=.* No space left on device"
check "nothing left on the small file system" empty_dir "$T/small"
