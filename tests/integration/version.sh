# SPDX-License-Identifier: MIT
# One version: the Makefile's VERSION is what --version prints and what a
# result's tool.version says, and the places that must hold it literally
# (the man page's .TH line, debian/changelog's top entry, which dpkg reads)
# agree with it. And `make dist`: scalebench-VERSION.tar.gz holds exactly
# what git holds at HEAD, under scalebench-VERSION/.
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)

v=$(make -s -C "$root" print-version 2>/dev/null)
check "the Makefile names a version ($v)" sh -c 'printf "%s\n" "$1" | grep -Eq "^[0-9]+\.[0-9]+\.[0-9]+$"' _ "$v"
check "scalebench --version prints it" sh -c '[ "$("$SB" --version)" = "scalebench $1" ]' _ "$v"
th=$(sed -n 's/^\.TH SCALEBENCH 1 "[^"]*" "scalebench \([^"]*\)".*/\1/p' "$root/man/scalebench.1")
check "the man page's .TH line says scalebench $v (it says '$th')" test "$th" = "$v"
if command -v dpkg-parsechangelog >/dev/null 2>&1; then
	dv=$(cd "$root" && dpkg-parsechangelog -S Version 2>/dev/null)
else # the first line: "scalebench (VERSION) DIST; urgency=..."
	dv=$(sed -n '1s/^scalebench (\([^)]*\)).*/\1/p' "$root/debian/changelog")
fi
check "debian/changelog's top entry is $v (it is '$dv')" test "$dv" = "$v"
mkdir -p "$T/run"
check "a run" "$SB" run fs.stat -n 100 -b 0.05 -q --no-db --dir "$T/run" -o "$T/r.json"
check "its result's tool.version is $v" jtrue "$T/r.json" "d['tool']['version'] == '$v'"

if ! command -v git >/dev/null 2>&1 || ! git -C "$root" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	skip "make dist: $root is not a git checkout"
	exit 0
fi
mkdir -p "$T/dist"
check "make dist DIST_DIR=... writes scalebench-$v.tar.gz" sh -c \
	'make -s -C "$1" dist DIST_DIR="$2" >/dev/null 2>&1 && test -s "$2/scalebench-$3.tar.gz"' _ "$root" "$T/dist" "$v"
tar -tzf "$T/dist/scalebench-$v.tar.gz" 2>/dev/null | grep -v '/$' | sort >"$T/tar.list"
git -C "$root" ls-tree -r --name-only HEAD | sed "s|^|scalebench-$v/|" | sort >"$T/git.list"
check "the tarball holds exactly HEAD's files under scalebench-$v/ ($(wc -l <"$T/git.list") files)" \
	sh -c 'test -s "$1" && cmp -s "$1" "$2"' _ "$T/git.list" "$T/tar.list"
check "the tarball holds LICENSE, the Makefile and debian/" sh -c \
	'grep -qx "scalebench-$2/LICENSE" "$1" && grep -qx "scalebench-$2/Makefile" "$1" && grep -qx "scalebench-$2/debian/rules" "$1"' _ "$T/tar.list" "$v"
check "make dist wrote nothing but the tarball" sh -c '[ "$(ls -A "$1")" = "scalebench-$2.tar.gz" ]' _ "$T/dist" "$v"
# outside a git checkout, make dist refuses with a reason and exit 2
mkdir -p "$T/nogit"
cp "$root/Makefile" "$T/nogit/"
mkdir -p "$T/nogit/tools" && cp "$root/tools/probe.sh" "$T/nogit/tools/"
check "make dist outside a git checkout: exit 2 and the reason" sh -c \
	'cd "$1" && GIT_CEILING_DIRECTORIES="$1/.." make -s dist >out 2>&1; [ $? -ne 0 ] && grep -q "not a git checkout" out && ! ls *.tar.gz' \
	_ "$T/nogit"
