# SPDX-License-Identifier: MIT
# Sourced by the integration tests: ok/notok/skip lines the runner counts,
# and a scratch area removed on exit. $SB is the binary under test.
: "${SB:?SB must name the scalebench binary}"
T=$(mktemp -d /tmp/sbtest.XXXXXX)
_cleanups=""
at_exit() { _cleanups="$1; $_cleanups"; }
# At exit, every scalebench result document left in $T is checked against
# docs/result-schema.json (one ok/not ok line each); a test that crafts
# hostile or broken documents on purpose names them with schema_exempt.
_exempt=""
_libbin="$(cd "$(dirname "$0")" && pwd)/bin"
schema_exempt() { for _f; do _exempt="$_exempt --exempt $_f"; done; }
check_results() {
	[ -d "$T" ] || return 0
	python3 -c 'import jsonschema' 2>/dev/null || { echo "skip - results against the schema (python3-jsonschema missing)"; return 0; }
	# shellcheck disable=SC2086
	"$_libbin/validate-result" --tap-dir "$T" $_exempt
}
trap 'eval "$_cleanups"; check_results; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

# tmpfs_dir DIR [SIZE]: DIR, made, is a tmpfs of its own (mounted there as
# root, unmounted at exit; SIZE default 4g), for a test whose benches need
# files but not a disk file system: this VM's /tmp is an ext4 without a
# journal, where creating files after many deletions (the other tests')
# slows for minutes, 0.2 s to 3 s for fs.create's 2,000 files. Not root
# (or no mount): DIR stays a plain directory. At exit it is unmounted, or
# detached (umount -l) when a process the test started still uses it (a
# test stopped by a signal in the middle), so that no mount outlives $T.
tmpfs_dir() {
	mkdir -p "$1" || return 1
	if is_root && mount -t tmpfs -o "size=${2:-4g}" sbtest-tmpfs "$1" 2>/dev/null; then
		at_exit "umount '$1' 2>/dev/null || umount -l '$1'"
	fi
}

# ext4_mount NAME SIZE [MKFS_OPTION...]: a fresh ext4 image $T/d/NAME.img
# of SIZE (truncate's), made with the options given, loop-mounted at
# $T/d/NAME; unmounted and detached at exit. As root; a failing losetup
# ends the test (not ok).
ext4_mount() {
	_n=$1 _s=$2; shift 2
	mkdir -p "$T/d/$_n"
	truncate -s "$_s" "$T/d/$_n.img"
	mkfs.ext4 -q -F "$@" "$T/d/$_n.img"
	_loop=$(losetup -f --show "$T/d/$_n.img") || { echo "not ok - losetup $_n"; exit 1; }
	at_exit "losetup -d $_loop"
	mount "$_loop" "$T/d/$_n" && at_exit "umount '$T/d/$_n'"
}

# check "description" command [args...]: the command may be a function below
check() {
	d=$1; shift
	if "$@" >/dev/null 2>&1; then echo "ok - $d"; else echo "not ok - $d"; fi
}
skip() { echo "skip - $1"; }
is_root() { [ "$(id -u)" = 0 ]; }
# unpriv_ok [DIR...]: the unprivileged user (uid and gid 65534, through
# setpriv) can run $SB and write into each DIR; else false, with the
# reason in UNPRIV_WHY (for a skip line): no setpriv, or a directory on
# the way that others may not search (a clone in a 0700 mktemp directory).
unpriv_ok() {
	UNPRIV_WHY=""
	if ! command -v setpriv >/dev/null 2>&1; then
		UNPRIV_WHY="no setpriv"; return 1
	fi
	_up() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@" >/dev/null 2>&1; }
	if ! _up test -x "$SB"; then
		_d=$(dirname "$SB") _u=""
		while [ "$_d" != / ] && [ "$_d" != . ] && ! _up test -x "$_d"; do _u=$_d; _d=$(dirname "$_d"); done
		UNPRIV_WHY="uid 65534 cannot execute $SB${_u:+ ($_u is closed to others)}"
		return 1
	fi
	for _dir; do
		if ! _up test -w "$_dir" -a -x "$_dir"; then
			UNPRIV_WHY="uid 65534 cannot write into $_dir"; return 1
		fi
	done
}

# jtrue FILE EXPR: the Python expression over the JSON document d is true.
# Write every(...) rather than all(...): every() is false on an empty
# selection, so a check over "the benches that measured" cannot pass when
# none did (all() of nothing is True).
jtrue() { jget -t "$1" "$2"; }
# jget FILE EXPR: print it (tests/integration/bin/jget)
# bench FILE NAME: python expression for that bench's object
B() { echo "[b for b in d['benches'] if b['name'] == '$1'][0]"; }
# no_procs PATTERN: no process has PATTERN in its command line
no_procs() { [ "$(pgrep -f -- "$1" | wc -l)" = 0 ]; }
# descendants PID: how many processes run below PID (children, theirs...)
descendants() {
	n=0; for c in $(pgrep -P "$1"); do n=$((n + 1 + $(descendants "$c"))); done; echo $n
}
# below PID: the pids of those processes, space-separated
below() {
	for c in $(pgrep -P "$1"); do printf '%s ' "$c"; below "$c"; done
}
# empty_dir DIR: nothing in it (lost+found aside)
empty_dir() { [ -z "$(ls -A "$1" | grep -v '^lost+found$')" ]; }
# out_has FILE REGEX
out_has() { grep -q -- "$2" "$1"; }
# leftovers: what a matrix made in $T/d and left (mounts, loop devices,
# files), one count a line; none_left: all three 0
leftovers() { grep -c "$T/d" /proc/self/mounts; losetup -a | grep -c "$T/d"; find "$T/d" -mindepth 1 | wc -l; }
none_left() { [ "$(leftovers | tr -d '\n')" = 000 ]; }
# scripts beside the tests (jget) for `sh -c` checks, which cannot see functions
PATH="$(cd "$(dirname "$0")" && pwd)/bin:$PATH"; export PATH
# python3 is Debian's (tools/setup-deps.sh installs it, with python3-jsonschema
# and python3-yaml), also where another python3 comes first in PATH: a pyenv
# shim there cost 0.2-1 s of bash a call against Debian's 0.05 s, and the
# tests call python3 (jget, jtrue, the schema check) some 2,000 times a run.
# A symlink in the scratch area, first in PATH, for `python3` and the
# `#!/usr/bin/env python3` of bin/ and bench/ alike.
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
	mkdir -p "$T/.python" && ln -s /usr/bin/python3 "$T/.python/python3" && PATH="$T/.python:$PATH"
fi
# Runs store their result in the history database by default: keep each
# test's database in its scratch area, never in the user's home.
export XDG_DATA_HOME="$T/xdg"
export SCALEBENCH_PARAM_STRICT=1 # a bench reading an undeclared parameter aborts (bench.h)

# A PostgreSQL server of the test's own (Debian's postgresql, run as the
# postgres user; PGBIN its bin directory): initdb into $T/pg, a unix socket
# there on port $2 and no TCP, stopped at exit. $1 names the test in the
# line that ends it when initdb fails; $3 is pg_ctl's wait (s); the rest
# are more server options ("-c name=value"). Sets PGD, PORT and URL, and
# checks "postgresql server started".
pg_start() {
	_pgname=$1 PORT=$2 _pgwait=$3; shift 3
	chmod 711 "$T" # the postgres user must reach its directory inside
	PGD="$T/pg"
	mkdir -p "$PGD" && chown postgres: "$PGD"
	if ! runuser -u postgres -- "$PGBIN/initdb" -D "$PGD/data" -A trust -U postgres --no-sync >"$T/initdb.log" 2>&1; then
		echo "not ok - $_pgname: initdb failed"; sed 's/^/    /' "$T/initdb.log"; exit 1
	fi
	at_exit "runuser -u postgres -- '$PGBIN/pg_ctl' -D '$PGD/data' -m immediate stop >/dev/null 2>&1"
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGD/data" -l "$PGD/log" -w -t "$_pgwait" \
		-o "-k $PGD -p $PORT -c listen_addresses='' -c fsync=off $*" start >/dev/null 2>&1
	check "postgresql server started" test -S "$PGD/.s.PGSQL.$PORT"
	URL="postgresql:///postgres?host=$PGD&port=$PORT&user=postgres"
}

# deb_build ROOT [nocheck]: the Debian package of ROOT's HEAD, built by
# `make deb` (DEB_KEEP: the whole build kept). Under tests/run.sh
# (SB_DEB_CACHE, its scratch directory) it is built once per run, with the
# package's unit tests, in SB_DEB_CACHE/deb-COMMIT: the first test to ask
# builds it under a lock, the others wait for it and share it (read only:
# deb.sh and fleet_ansible.sh). Alone, a test builds its own in
# $T/debbuild ("nocheck": without the package's unit tests). Sets
# DEB_BUILD (the directory: scalebench-VERSION/ and beside it the .deb,
# .changes and build.log), DEB_RC (make deb's exit status) and DEB_LOG
# (make deb's output).
deb_build() {
	_commit=$(git -C "$1" rev-parse -q --verify HEAD 2>/dev/null)
	if [ -n "${SB_DEB_CACHE:-}" ] && [ -n "$_commit" ]; then
		DEB_BUILD="$SB_DEB_CACHE/deb-$_commit"
		mkdir -p "$SB_DEB_CACHE"
		exec 8>"$SB_DEB_CACHE/lock"
		flock 8
		if [ ! -f "$DEB_BUILD.rc" ]; then
			rm -rf "$DEB_BUILD"; mkdir -p "$DEB_BUILD.out"
			make -s -C "$1" deb DEB_KEEP="$DEB_BUILD" DEB_DIR="$DEB_BUILD.out" >"$DEB_BUILD.log" 2>&1
			echo $? >"$DEB_BUILD.rc"
		fi
		exec 8>&-
	else
		DEB_BUILD="$T/debbuild"
		schema_exempt "$DEB_BUILD" # the source tree: its fuzz corpus is hostile on purpose
		mkdir -p "$DEB_BUILD.out"
		(
			if [ "${2:-}" = nocheck ]; then
				DEB_BUILD_OPTIONS="nocheck${DEB_BUILD_OPTIONS:+ $DEB_BUILD_OPTIONS}"; export DEB_BUILD_OPTIONS
			fi
			make -s -C "$1" deb DEB_KEEP="$DEB_BUILD" DEB_DIR="$DEB_BUILD.out"
		) >"$DEB_BUILD.log" 2>&1
		echo $? >"$DEB_BUILD.rc"
	fi
	DEB_RC=$(cat "$DEB_BUILD.rc")
	DEB_LOG="$DEB_BUILD.log"
}
