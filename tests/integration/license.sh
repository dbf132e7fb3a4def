# SPDX-License-Identifier: MIT
# The license: LICENSE is the MIT license, and every file git tracks starts
# with an "SPDX-License-Identifier: MIT" line (the second line after a
# shebang), except the files listed in exempt() below, which cannot carry a
# comment. Runs over `git ls-files`, so that a file someone adds later is
# checked too; the checker is also shown to catch a file without the line.
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)

# exempt PATH: 0 (with the reason on stdout) when PATH need not carry the line
exempt() {
	case $1 in
	LICENSE) echo "the license text itself" ;;
	*.json) echo "JSON has no comments" ;;
	tests/golden/*) echo "expected output, compared byte for byte" ;;
	tests/data/*) echo "input data of the tests" ;;
	fuzz/corpus/*|fuzz/corpus-*/*) echo "fuzzer inputs, data" ;;
	debian/changelog) echo "dpkg's changelog format has no comment lines" ;;
	debian/source/format) echo "one literal line read by dpkg-source" ;;
	debian/copyright) echo "machine-readable copyright file (no comment syntax); it states the license itself" ;;
	*.png | *.gz | *.xz) echo "binary" ;;
	*) return 1 ;;
	esac
}

# has_spdx FILE: line 1 is the SPDX line, or line 2 after a "#!" line (or a
# man page's preprocessor line '\")
has_spdx() {
	l1=$(sed -n 1p "$1"); l2=$(sed -n 2p "$1")
	pat='SPDX-License-Identifier: MIT\( \*/\| -->\)\{0,1\}$'
	printf '%s\n' "$l1" | grep -q "$pat" && return 0
	case $l1 in '#!'* | "'\\\""*) printf '%s\n' "$l2" | grep -q "$pat" ;; *) return 1 ;; esac
}

# lacking DIR FILE...: print the files (relative to DIR) that lack the line
lacking() {
	d=$1; shift
	for f in "$@"; do
		exempt "$f" >/dev/null && continue
		[ -f "$d/$f" ] || continue # deleted in the work tree, not yet in the index
		has_spdx "$d/$f" || echo "$f"
	done
}

check "LICENSE is the MIT license of the scalebench authors" sh -c \
	'head -1 "$1" | grep -qx "MIT License" && grep -q "^Copyright (c) 2026 the scalebench authors$" "$1" &&
	 grep -q "^Permission is hereby granted, free of charge" "$1"' _ "$root/LICENSE"

# The libraries the binary links (its NEEDED entries, and those
# tools/probe.sh links statically): each must be one whose license allows
# linking into an MIT program (no GPL-only library), and the README's
# library table must name its Debian package. A library not in this list
# fails until its license is checked and added here and to the README.
# name|Debian package|license (from /usr/share/doc/PACKAGE/copyright)
LIBS='c|libc6|LGPL-2.1+
m|libc6|LGPL-2.1+
pthread|libc6|LGPL-2.1+
dl|libc6|LGPL-2.1+
rt|libc6|LGPL-2.1+
jansson|libjansson4|Expat (MIT)
uring|liburing2|MIT or LGPL-2.1+
aio|libaio1|LGPL-2.1+
sqlite3|libsqlite3-0|public domain
pq|libpq5|PostgreSQL
archive|libarchive13|BSD-2-clause
sodium|libsodium23|ISC
crypto|libssl3|Apache-2.0
ssl|libssl3|Apache-2.0
z|zlib1g|Zlib
bz2|libbz2-1.0|BSD-style
lzma|liblzma5|public domain
zstd|libzstd1|BSD-3-clause
lz4|liblz4-1|BSD-2-clause
xml2|libxml2|MIT
acl|libacl1|LGPL-2.1+
attr|libattr1|LGPL-2.1+'
linked=$( { readelf -d "$SB" 2>/dev/null | sed -n 's/.*Shared library: \[lib\([^].]*\)\.so.*/\1/p'
	STATIC=1 sh "$root/tools/probe.sh" cc native | tr ' ' '\n' | sed -n 's/^-l//p'; } | sort -u)
check "the binary links libraries ($(echo $linked))" sh -c 'printf "%s\n" "$1" | grep -qx c' _ "$linked"
unknown=""; unnamed=""; gpl=""
for l in $linked; do
	row=$(printf '%s\n' "$LIBS" | grep "^$l|") || { unknown="$unknown $l"; continue; }
	case $(printf '%s\n' "$row" | cut -d'|' -f3) in GPL*) gpl="$gpl $l" ;; esac
	pkg=$(printf '%s\n' "$row" | cut -d'|' -f2)
	grep -q "^| .*\b$pkg\b" "$root/README.md" || unnamed="$unnamed $l($pkg)"
done
check "every linked library has a license that allows it (unknown:${unknown:- none})" test -z "$unknown"
check "the README's library table names each (missing:${unnamed:- none})" test -z "$unnamed"
check "no linked library is GPL-only (GPL:${gpl:- none})" test -z "$gpl"

if ! command -v git >/dev/null 2>&1 || ! git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
	skip "SPDX lines: $root is not a git checkout (git ls-files names the files to check)"
	exit 0
fi
files=$(git -C "$root" ls-files)
n=$(printf '%s\n' "$files" | grep -c .)
check "git ls-files names the sources ($n files)" sh -c \
	'printf "%s\n" "$1" | grep -qx src/main.c && printf "%s\n" "$1" | grep -qx Makefile' _ "$files"
# shellcheck disable=SC2086
missing=$(cd "$root" && lacking "$root" $files)
if [ -n "$missing" ]; then
	echo "not ok - every tracked file starts with SPDX-License-Identifier: MIT; lacking:"
	printf '%s\n' "$missing" | sed 's/^/#   /'
else
	echo "ok - every tracked file starts with SPDX-License-Identifier: MIT"
fi
# the exemptions: name each with its reason, so the list stays deliberate
for f in $files; do
	r=$(exempt "$f") && echo "# exempt: $f ($r)"
done

# The checker itself: files without the line (or with it too low, or
# another license) are named, good ones are not.
mkdir -p "$T/tree"
printf '/* SPDX-License-Identifier: MIT */\nint x;\n' >"$T/tree/good.c"
printf '#!/bin/sh\n# SPDX-License-Identifier: MIT\n' >"$T/tree/good.sh"
printf '.\\" SPDX-License-Identifier: MIT\n.TH X 1\n' >"$T/tree/good.1"
printf 'int x;\n' >"$T/tree/none.c"
printf '#!/bin/sh\necho\n# SPDX-License-Identifier: MIT\n' >"$T/tree/late.sh"
printf '# SPDX-License-Identifier: GPL-2.0\n' >"$T/tree/gpl.mk"
printf '{}\n' >"$T/tree/data.json"
got=$(lacking "$T/tree" good.c good.sh good.1 none.c late.sh gpl.mk data.json | tr '\n' ' ')
check "the checker names exactly the files lacking the line (got: $got)" test "$got" = "none.c late.sh gpl.mk "
