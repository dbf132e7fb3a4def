#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian packages scalebench needs, when they are missing. As
# root it runs apt-get; otherwise it names what is missing and fails.
#
#   setup-deps.sh run     what `make run` needs: build ./scalebench and run
#                         the quick suite (nothing a test or a cross-check needs)
#   setup-deps.sh deb     run's, and what `make deb` needs (the Debian package)
#   setup-deps.sh check   everything the tests need (`make check`, CI); the default
#   setup-deps.sh --list run|runtime|suggests|deb|check   print a list, one a line
#
# The lists are the one source: debian/control's Recommends is RUNTIME and
# its Suggests is SUGGESTS, word for word (tests/integration/deps.sh
# compares them), so that a host installed from the package and a host
# set up with `make run` hold the same.
set -eu

# Building ./scalebench: the compiler, jansson, the io engines (linked),
# and the headers of the libraries loaded at run time (SQLite, libpq,
# libarchive: src/out/db_*.c, work.round2).
BUILD="gcc make libc6-dev pkg-config libjansson-dev liburing-dev libaio-dev
       libsqlite3-dev libpq-dev libarchive-dev"
# What the default run loads: SQLite (every run is stored in the history
# database) and libarchive (work.round2). The package Recommends these.
RUNTIME="libsqlite3-0 libarchive13"
# What scalebench uses beyond the default run, each for one feature (the
# package Suggests these): libpq5 the PostgreSQL history; libssl3
# (libcrypto) serve and run --peer; iproute2 --netns; the mkfs tools and
# bindfs + fuse3 the matrix; fio, iperf3, rt-tests, stress-ng, wrk the
# cross-check scripts (bench/).
SUGGESTS="libpq5 libssl3 iproute2 e2fsprogs xfsprogs btrfs-progs bindfs fuse3
          fio iperf3 rt-tests stress-ng wrk"
# `make deb`: make dist (git archive), dpkg-buildpackage and debhelper.
DEB="git dpkg-dev debhelper"
# The tests alone: util-linux, mount, procps (losetup, mount, pgrep);
# valgrind; python3 + python3-jsonschema (results against
# docs/result-schema.json, the KCIDB output against its schema) and
# python3-yaml (the LAVA test definition); postgresql (its test server);
# chromium (the report test); clang + libclang-rt-14-dev (the libFuzzer
# target); strace (kills a run in the middle of storing it); lintian and
# man-db (tests/integration/deb.sh); ansible-core + python3-apt
# (ansible-playbook and its apt module: tests/integration/fleet_ansible.sh).
CHECK="util-linux mount procps valgrind python3 python3-jsonschema python3-yaml
       postgresql chromium clang libclang-rt-14-dev strace lintian man-db
       ansible-core python3-apt"

list() {
	case $1 in
	run) echo $BUILD $RUNTIME ;;
	runtime) echo $RUNTIME ;;
	suggests) echo $SUGGESTS ;;
	deb) echo $BUILD $RUNTIME $DEB ;;
	check) echo $BUILD $RUNTIME $DEB $SUGGESTS $CHECK ;;
	*) return 1 ;;
	esac
}
usage() {
	echo "usage: setup-deps.sh [run|deb|check]  or  setup-deps.sh --list run|runtime|suggests|deb|check" >&2
	exit 2
}

if [ "${1:-}" = --list ]; then
	[ $# = 2 ] && list "$2" >/dev/null || usage
	list "$2" | tr ' ' '\n'
	exit 0
fi
[ $# -le 1 ] || usage
PKGS=$(list "${1:-check}") || usage
# one dpkg-query for all (one a package took a second and more of a
# fresh machine's `make run`); a package it does not know prints nothing
# shellcheck disable=SC2086
installed=$(dpkg-query -W -f='${Package} ${Status}\n' $PKGS 2>/dev/null |
	awk '$NF == "installed" && $(NF-1) == "ok" { sub(/:.*/, "", $1); print $1 }')
# shellcheck disable=SC2086
missing=$({ printf '%s\n' "$installed" --; printf '%s\n' $PKGS; } |
	awk '$0 == "--" { l = 1; next } !l { i[$0] = 1; next } !($0 in i) { printf " %s", $0 }')
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "scalebench setup: missing Debian packages:$missing" >&2
	echo "scalebench setup: run as root, or: sudo apt-get install$missing" >&2
	exit 1
fi
echo "scalebench setup: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# apt's own lines are dropped; one line a stage says where the time goes
# (bench/fresh-run.sh times them): the download's size, then the unpacking
# (dpkg's own lines come in bursts: unpacking and configuring are one stage).
apt_install() {
	st=$(mktemp)
	# shellcheck disable=SC2086
	{ apt-get install -y -q --no-install-recommends $missing; echo $? >"$st"; } | awk '
		/^Need to get / { sub(/ of archives\.$/, ""); sub(/^Need to get /, ""); print "scalebench setup: downloading " $0; fflush() }
		/^(Preparing to unpack|Unpacking) / && !u { u = 1; print "scalebench setup: unpacking"; fflush() }' >&2
	rc=$(cat "$st"); rm -f "$st"
	return "$rc"
}
apt_update() {
	echo "scalebench setup: apt-get update" >&2
	apt-get update -q >/dev/null || true
}
# The package lists are updated first unless every one was fetched less than
# an hour ago (the quick start's `apt-get update && apt-get install git
# make` just did it; one more update is 7-14 s against deb.debian.org here);
# when the install fails on lists that recent, they are updated and it is
# tried again. apt gives a list the server's time (mtime) but rewrites each
# InRelease on every update (ctime).
lists=/var/lib/apt/lists
if [ -n "$(find "$lists" -maxdepth 1 -name '*InRelease' 2>/dev/null | head -n 1)" ] &&
	[ -z "$(find "$lists" -maxdepth 1 -name '*InRelease' -cmin +60 2>/dev/null | head -n 1)" ]; then
	echo "scalebench setup: the package lists were fetched less than an hour ago" >&2
	apt_install || { apt_update; apt_install; } || rc=$?
else
	apt_update
	apt_install || rc=$?
fi
[ "${rc:-0}" = 0 ] || { echo "scalebench setup: apt-get install failed (exit $rc)" >&2; exit 1; }
echo "scalebench setup: installed" >&2
