#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian packages scalebench needs to build and test, when
# they are missing. As root it runs apt-get; otherwise it names what is
# missing and fails. One list, used by `make run`, `make check` and CI.
set -eu
# liburing-dev, libaio-dev: io engines; xfsprogs, btrfs-progs: the matrix;
# fio, iperf3: cross-checks; iproute2: --netns; libsqlite3-dev, libpq-dev:
# history backends; postgresql: its test server; chromium: the report test;
# clang + libclang-rt-14-dev: the libFuzzer target; strace: kills a run in
# the middle of storing it; git: make dist; dpkg-dev, debhelper, lintian,
# man-db: the Debian package and its test (tests/integration/deb.sh);
# python3-jsonschema: results checked against docs/result-schema.json,
# and the KCIDB output against its schema; rt-tests (cyclictest) and
# stress-ng: bench/cyclictest-crosscheck.sh; libarchive-dev: work.round2
# (headers; the library is loaded at run time); wrk: its cross-check;
# bindfs, fuse3: the matrix's TYPE+fuse pass-through (and bench/fuse-crosscheck.sh).
# libssl3: libcrypto, loaded by serve and run --peer for the
# challenge-response (strace also shows what the serve client sends).
PKGS="gcc make libc6-dev libjansson-dev e2fsprogs util-linux procps valgrind python3
      liburing-dev libaio-dev xfsprogs btrfs-progs fio mount iperf3 iproute2
      pkg-config libsqlite3-dev libpq-dev postgresql chromium clang libclang-rt-14-dev strace
      git dpkg-dev debhelper lintian man-db python3-jsonschema
      rt-tests stress-ng libarchive-dev wrk libssl3 bindfs fuse3"
missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "scalebench setup: missing Debian packages:$missing" >&2
	echo "scalebench setup: run as root, or: sudo apt-get install$missing" >&2
	exit 1
fi
echo "scalebench setup: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || true
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
