# SPDX-License-Identifier: MIT
# The Debian package, end to end (root): `make dist` (git archive of HEAD,
# so what is committed, not the work tree), `make deb` (that tarball
# unpacked in a scratch directory, since dpkg-buildpackage writes beside
# the source tree, so nothing lands next to the checkout, and
# `dpkg-buildpackage -us -uc -b` with the package's unit tests; built once
# per test run and shared with fleet_ansible.sh: lib.sh deb_build), lintian
# without errors, `apt-get install ./scalebench_*.deb`, `scalebench list`,
# a short run and the history from /usr/bin/scalebench, the man page, then
# `apt-get purge` and nothing of it left.
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)

if ! is_root; then skip "deb: installing a package needs root"; exit 0; fi
for t in dpkg-buildpackage dh lintian apt-get git flock; do
	if ! command -v "$t" >/dev/null 2>&1; then
		skip "deb: $t is not installed (tools/setup-deps.sh installs it)"; exit 0
	fi
done
if ! git -C "$root" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	skip "deb: $root is not a git checkout (the package is built from make dist)"; exit 0
fi
v=$(make -s -C "$root" print-version)
check "the Makefile names a version ($v)" sh -c 'printf "%s\n" "$1" | grep -Eq "^[0-9]+\.[0-9]+\.[0-9]+$"' _ "$v"
mkdir -p "$T/dist" "$T/pkg"
check "make dist writes scalebench-$v.tar.gz" sh -c \
	'make -s -C "$1" dist DIST_DIR="$2" >/dev/null 2>&1 && test -s "$2/scalebench-$3.tar.gz"' _ "$root" "$T/dist" "$v"

# make deb (make dist, unpacked in a scratch directory, dpkg-buildpackage
# with the package's unit tests), once per test run (lib.sh deb_build:
# fleet_ansible.sh installs the same package)
deb_build "$root"
check "make deb: dpkg-buildpackage -us -uc -b builds, unit tests included (exit $DEB_RC)" test "$DEB_RC" = 0
[ "$DEB_RC" = 0 ] || { tail -30 "$DEB_LOG" | sed 's/^/#   /'; exit 1; }
check "make deb built from make dist's tarball" test -s "$DEB_BUILD/scalebench-$v.tar.gz"
deb=$(ls "$DEB_BUILD"/scalebench_"$v"_*.deb 2>/dev/null | head -1)
check "the package is scalebench_${v}_ARCH.deb, beside the source tree" sh -c 'test -f "$1" && test -d "$2/scalebench-$3"' _ "$deb" "$DEB_BUILD" "$v"
case " ${DEB_BUILD_OPTIONS:-} " in
*" nocheck "*) skip "deb: the package's unit tests (DEB_BUILD_OPTIONS=nocheck)" ;;
*) check "the build ran the package's unit tests" grep -q "^build/native/tests/test_" "$DEB_BUILD/build.log" ;;
esac
check "the package holds the binary and the man page" sh -c \
	'dpkg-deb -c "$1" | grep -q " ./usr/bin/scalebench$" && dpkg-deb -c "$1" | grep -q " ./usr/share/man/man1/scalebench.1.gz$"' _ "$deb"
check "the package holds the studies (job files)" sh -c \
	'dpkg-deb -c "$1" | grep -q " ./usr/share/scalebench/studies/vonleitner-2003.job$" && dpkg-deb -c "$1" | grep -q " ./usr/share/scalebench/studies/vonleitner-2006.job$"' _ "$deb"
check "the package's version is the Makefile's" sh -c '[ "$(dpkg-deb -f "$1" Version)" = "$2" ]' _ "$deb" "$v"
check "the SQLite and PostgreSQL libraries are only recommended/suggested (loaded on use)" sh -c \
	'dpkg-deb -f "$1" Recommends | grep -q libsqlite3-0 && dpkg-deb -f "$1" Suggests | grep -q libpq5 &&
	 ! dpkg-deb -f "$1" Depends | grep -q "libsqlite3\|libpq"' _ "$deb"
lintian --no-tag-display-limit "$DEB_BUILD"/scalebench_"$v"_*.changes >"$T/lintian.log" 2>&1
check "lintian reports no error" sh -c '! grep -q "^E: " "$1"' "_" "$T/lintian.log"
grep "^[EW]: " "$T/lintian.log" | sed 's/^/#   lintian: /'

# From here on the machine's package database is touched: one such test at
# a time (fleet_ansible.sh installs the package too; flock on the directory
# /var/lib/dpkg is machine-wide and leaves no file), and never a scalebench
# this test did not install.
exec 9</var/lib/dpkg
flock -w 400 9 || { echo "not ok - deb: the package lock was not free in 400 s"; exit 1; }
if dpkg-query -W -f='${Status}' scalebench 2>/dev/null | grep -q "installed"; then
	skip "deb: a scalebench package is already installed (not this test's to remove)"; exit 0
fi
for f in /usr/bin/scalebench /usr/share/man/man1/scalebench.1.gz; do
	if [ -e "$f" ]; then skip "deb: $f exists and belongs to no package of this test"; exit 0; fi
done
# Install it into this machine; from here on, remove it on any exit.
at_exit 'apt-get purge -y -q -o DPkg::Lock::Timeout=120 scalebench >/dev/null 2>&1'
cp "$deb" "$T/pkg/"
( cd "$T/pkg" && DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=120 \
	"./$(basename "$deb")" ) >"$T/apt.log" 2>&1
rc=$?
check "apt-get install ./$(basename "$deb") (exit $rc)" test "$rc" = 0
[ "$rc" = 0 ] || { tail -20 "$T/apt.log" | sed 's/^/#   /'; exit 1; }
check "/usr/bin/scalebench belongs to the package" sh -c 'dpkg -S /usr/bin/scalebench | grep -q "^scalebench:"'
check "the installed binary says version $v" sh -c '[ "$(/usr/bin/scalebench --version)" = "scalebench $1" ]' _ "$v"
check "the installed scalebench lists fs.stat" sh -c '/usr/bin/scalebench list | grep -q "^fs\.stat"'
check "man finds the installed page" sh -c 'MANWIDTH=80 man scalebench 2>/dev/null | grep -q "EXIT STATUS"'
mkdir -p "$T/run"
check "a short run from /usr/bin/scalebench (fs.stat --quick)" \
	/usr/bin/scalebench run fs.stat --quick -q --dir "$T/run" -o "$T/r.json"
check "its result says tool.version $v and fs.stat ok" jtrue "$T/r.json" \
	"d['tool']['version'] == '$v' and [b for b in d['benches'] if b['name'] == 'fs.stat'][0]['status'] == 'ok'"
check "the run is in the history (SQLite loaded on use)" sh -c \
	'/usr/bin/scalebench history | grep -Eq "^ +1 .* fs\.stat$"'
check "the run left nothing in its target directory" empty_dir "$T/run"

apt-get purge -y -q -o DPkg::Lock::Timeout=120 scalebench >"$T/purge.log" 2>&1
rc=$?
check "apt-get purge -y scalebench (exit $rc)" test "$rc" = 0
check "the package is gone" sh -c '! dpkg-query -W -f="\${Status}" scalebench 2>/dev/null | grep -q "installed"'
check "/usr/bin/scalebench and its man page are gone" sh -c \
	'! test -e /usr/bin/scalebench && ! test -e /usr/share/man/man1/scalebench.1.gz && ! test -e /usr/share/doc/scalebench'
