#!/bin/sh
# SPDX-License-Identifier: MIT
# The Ansible playbook and role (fleet/ansible/) with Debian's real
# ansible-playbook, against an inventory of hosts on this machine (local
# connection, a label each): the package `make deb` builds is installed
# with apt by the role (and purged at the end: the test leaves the machine
# as it found it, and refuses to run beside a scalebench package it did not
# install; tests/integration/deb.sh and this test take turns by a lock),
# every host runs and stores into one PostgreSQL server this test starts
# (as fleet_pg.sh does) and its result file is fetched back, and the
# comparison against the baseline host ends the play.
# Then a regression (the baseline host's fs.fsync on tmpfs, another's on
# this disk) fails the play with compare's exit 3, and failing hosts (no
# scalebench, a run that exits 2, a database it cannot reach) are failed
# in the recap while the other hosts' runs are stored and fetched.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)

if ! is_root; then skip "fleet ansible: installing a package and running postgresql need root"; exit 0; fi
for t in ansible-playbook dpkg-buildpackage dh git apt-get flock; do
	if ! command -v "$t" >/dev/null 2>&1; then
		skip "fleet ansible: $t is not installed (tools/setup-deps.sh check installs it)"; exit 0
	fi
done
if [ -z "$PGBIN" ] || ! id postgres >/dev/null 2>&1; then
	skip "fleet ansible: postgresql server not installed (tools/setup-deps.sh check installs it)"; exit 0
fi
if ! git -C "$root" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	skip "fleet ansible: $root is not a git checkout (make deb builds from make dist)"; exit 0
fi

# The package, as a lab builds it (make deb, from HEAD): under tests/run.sh
# the one deb.sh also checks, built once per run (lib.sh deb_build); alone,
# built here without its unit tests (they run elsewhere).
# SB_DEB=FILE: a package make deb already built (to save the build).
mkdir -p "$T/deb"
if [ -n "${SB_DEB:-}" ]; then
	cp "$SB_DEB" "$T/deb/"
	: >"$T/deb.log"
else
	deb_build "$root" nocheck
	cp "$DEB_BUILD.out"/scalebench_*.deb "$T/deb/" 2>/dev/null
	cp "$DEB_LOG" "$T/deb.log"
fi
deb=$(ls "$T"/deb/scalebench_*.deb 2>/dev/null | head -1)
check "make deb writes the package" test -f "$deb"
[ -f "$deb" ] || { tail -20 "$T/deb.log" | sed 's/^/#   /'; exit 1; }
check "the package carries the playbook and the LAVA test definition" sh -c \
	'dpkg-deb -c "$1" | grep -q "/usr/share/scalebench/fleet/ansible/roles/scalebench/tasks/main.yml$" &&
	 dpkg-deb -c "$1" | grep -q "/usr/share/scalebench/fleet/lava/automated/linux/scalebench/scalebench.yaml$"' _ "$deb"

# PostgreSQL, in the scratch directory, on a socket of its own
pg_start "fleet ansible" $((20000 + ($$ + 7) % 20000)) 60

# From here on the machine's package database is touched: one such test at
# a time, and never a scalebench package this test did not install.
# (flock on the directory /var/lib/dpkg: machine-wide, leaves no file;
# dpkg's own lock is another file in it)
exec 9</var/lib/dpkg
flock -w 400 9 || { echo "not ok - fleet ansible: the package lock was not free in 400 s"; exit 1; }
if dpkg-query -W -f='${Status}' scalebench 2>/dev/null | grep -q "installed" || [ -e /usr/bin/scalebench ]; then
	skip "fleet ansible: a scalebench package or /usr/bin/scalebench is already here (not this test's to remove)"; exit 0
fi
at_exit 'apt-get purge -y -q -o DPkg::Lock::Timeout=120 scalebench >/dev/null 2>&1'

# Ansible keeps its temporary files under HOME: keep them in $T.
mkdir -p "$T/home" "$T/results1" "$T/results2"
export HOME="$T/home" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_LOCAL_TEMP="$T/home/tmp" \
	ANSIBLE_REMOTE_TEMP="$T/home/rtmp" ANSIBLE_RETRY_FILES_ENABLED=0 \
	ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_DEPRECATION_WARNINGS=0 ANSIBLE_PIPELINING=1
PB="$root/fleet/ansible/scalebench.yml"
# host NAME VAR=VALUE...: an inventory line of a host on this machine
host() {
	n=$1; shift
	mkdir -p "$T/dir-$n" "$T/tmp-$n"
	echo "$n ansible_connection=local scalebench_label=$n scalebench_dir=$T/dir-$n scalebench_tmp=$T/tmp-$n $*"
}
# play INVENTORY OUT: ansible-playbook -v's report in OUT; the exit code
play() {
	( cd "$T" && ansible-playbook -v -i "$1" "$PB" ) >"$2" 2>"$2.err"
}
# hostjs OUT EXPR: EXPR over ansible-playbook -v's report (the default
# callback; ansible-core has no JSON one): stats[host] the recap's counts,
# task(name, host) the task's result on that host (a dict)
hostjs() {
	python3 - "$1" "$2" <<'EOF'
import json, re, sys
stats, tasks, cur = {}, {}, None
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    m = re.match(r"TASK \[(?:[^\]]* : )?(.*?)\] \**$", line)
    if m:
        cur = m.group(1)
        continue
    m = re.match(r"(ok|changed|fatal|skipping): \[([^\]]+)\](?::| =>| FAILED!)* (\{.*\})$", line)
    if m and cur:
        r = json.loads(m.group(3))
        r["failed"] = m.group(1) == "fatal" or r.get("failed", False)
        tasks[(cur, m.group(2))] = r
        continue
    m = re.match(r"(\S+) +: (ok=.*)$", line)
    if m:
        stats[m.group(1)] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m.group(2))}
        stats[m.group(1)]["failures"] = stats[m.group(1)]["failed"]
def task(name, host):
    return tasks.get((name, host))
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
}

# 1. Two hosts, both well: installed, run, stored, fetched, compared.
cat >"$T/inv1.ini" <<EOF
[scalebench]
$(host lab-a)
$(host lab-b)
[control]
localhost ansible_connection=local
[all:vars]
scalebench_deb=$deb
scalebench_db=$URL
scalebench_baseline_host=lab-a
scalebench_benches="fs.stat net.bind"
scalebench_args="--max-n 10 --budget 0.005"
scalebench_results=$T/results1
EOF
play "$T/inv1.ini" "$T/p1.json"; rc=$?
check "two hosts: ansible-playbook exits 0" test $rc = 0
[ $rc = 0 ] || { grep "^fatal:" "$T/p1.json" | cut -c1-1500 | sed "s/^/#   /"; sed "s/^/#   /" "$T/p1.json.err" | tail -20; }
check "two hosts: the recap has both hosts ok, none failed" hostjs "$T/p1.json" \
	"all(stats[h]['failures'] == 0 and stats[h]['unreachable'] == 0 and stats[h]['ok'] > 0 for h in ('lab-a', 'lab-b', 'localhost'))"
check "the role installed the package with apt" sh -c 'dpkg -S /usr/bin/scalebench | grep -q "^scalebench:"'
check "both hosts' runs are in the shared history, labelled" sh -c \
	'"$1" history --db "$2" --format json | python3 -c "import json,sys; r=json.load(sys.stdin); sys.exit(sorted(x[\"host\"] for x in r) != [\"lab-a\", \"lab-b\"])"' _ "$SB" "$URL"
check "both result files fetched back, each with its label" sh -c \
	'jget -t "$1/lab-a.json" "d[\"host\"] == \"lab-a\" and len(d[\"benches\"]) == 2" && jget -t "$1/lab-b.json" "d[\"host\"] == \"lab-b\""' _ "$T/results1"
check "the comparison ran once, lab-b against lab-a" hostjs "$T/p1.json" \
	"task('Compare every host with the baseline host (history database)', 'localhost')['rc'] == 0 and any(l.startswith('lab-b #') for l in task('Compare every host with the baseline host (history database)', 'localhost')['stdout_lines'])"
check "the hosts' target and temporary directories are left empty" sh -c \
	'for d in "$1"/dir-lab-a "$1"/dir-lab-b "$1"/tmp-lab-a "$1"/tmp-lab-b; do [ -z "$(ls -A "$d" | grep -v "\.deb$")" ] || exit 1; done' _ "$T"

# 2. A regression and failing hosts in one play: lab-a syncs on tmpfs,
# lab-b on this disk (compare --strict: slower, exit 3); lab-c has no
# scalebench, lab-d asks for a bench that does not exist (exit 2), lab-e
# cannot reach the database (exit 1, its result still written).
fs=$(stat -f -c %T "$T")
shm=$(mktemp -d /dev/shm/sbansible.XXXXXX)
at_exit "rm -rf '$shm'"
cat >"$T/inv2.ini" <<EOF
[scalebench]
$(host lab-a scalebench_dir="$shm")
$(host lab-b)
$(host lab-c scalebench_bin="$T/nosuch/scalebench")
$(host lab-d scalebench_benches=nosuch.bench)
$(host lab-e "scalebench_db='postgresql:///postgres?host=$T/nosock&connect_timeout=2'")
[control]
localhost ansible_connection=local
[all:vars]
scalebench_deb=$deb
scalebench_db=$URL
scalebench_baseline_host=lab-a
scalebench_benches=fs.fsync
scalebench_args="--max-n 2 --budget 0.1"
scalebench_compare_args="--strict --bench fs.fsync"
scalebench_results=$T/results2
EOF
play "$T/inv2.ini" "$T/p2.json"; rc=$?
check "failing hosts: ansible-playbook exits non-zero ($rc)" test $rc != 0
check "failing hosts: lab-c (no scalebench), lab-d (exit 2), lab-e (no database) failed in the recap" hostjs "$T/p2.json" \
	"all(stats[h]['failures'] == 1 for h in ('lab-c', 'lab-d', 'lab-e'))"
check "... lab-c at the scalebench check, lab-d's run with exit 2, lab-e's with exit 1" hostjs "$T/p2.json" \
	"task('Check that scalebench runs', 'lab-c').get('failed') and task('Run scalebench', 'lab-d')['rc'] == 2 and task('Run scalebench', 'lab-e')['rc'] == 1"
check "failing hosts: lab-a and lab-b not failed, their runs stored" sh -c \
	'"$1" history --db "$2" --format json | python3 -c "import json,sys; r=json.load(sys.stdin); h=sorted(x[\"host\"] for x in r); sys.exit(h != [\"lab-a\", \"lab-a\", \"lab-b\", \"lab-b\"])"' _ "$SB" "$URL"
check "... and the recap says so" hostjs "$T/p2.json" "stats['lab-a']['failures'] == 0 and stats['lab-b']['failures'] == 0"
check "failing hosts lose nothing: lab-a, lab-b and lab-e's result files fetched (lab-e's run measured)" sh -c \
	'[ "$(ls "$1" | sort | tr "\n" " ")" = "lab-a.json lab-b.json lab-e.json " ] && jget -t "$1/lab-e.json" "d[\"benches\"][0][\"status\"] == \"ok\""' _ "$T/results2"
if [ "$fs" = tmpfs ]; then
	skip "fleet ansible: the regression needs $T on a disk, not tmpfs (fs.fsync on tmpfs against a disk)"
else
	check "a regression (fs.fsync on $fs against tmpfs): compare exits 3 and fails the play" hostjs "$T/p2.json" \
		"task('Compare every host with the baseline host (history database)', 'localhost')['rc'] == 3 and stats['localhost']['failures'] == 1"
fi

# The package is purged at exit (at_exit); check it here, before the lock goes.
apt-get purge -y -q -o DPkg::Lock::Timeout=120 scalebench >"$T/purge.log" 2>&1
check "apt-get purge scalebench: the package and /usr/bin/scalebench are gone" sh -c \
	'! dpkg-query -W -f="\${Status}" scalebench 2>/dev/null | grep -q installed && ! test -e /usr/bin/scalebench && ! test -e /usr/share/scalebench'
check "nothing left in the hosts' target directories" sh -c \
	'for d in "$1"/dir-*; do [ -z "$(ls -A "$d")" ] || exit 1; done; [ -z "$(ls -A "$2")" ]' _ "$T" "$shm"
