#!/bin/sh
# SPDX-License-Identifier: MIT
# tier: fast
# What each goal installs (tools/setup-deps.sh): `make run` only what
# building and running need (no browser, test server, packaging or
# cross-check tool), `make deb` that and the packaging tools, `make check`
# everything; the Debian package says the same (its Recommends is the
# run's libraries, its Suggests the tools of single features, word for
# word); and every package the tests need is installed here (CI ran
# `make check`, which installs them).
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
deps() { sh "$root/tools/setup-deps.sh" --list "$1" | sort -u; }
for l in run runtime suggests deb check; do deps $l >"$T/$l"; done
# control FIELD: the packages debian/control's binary paragraph names in FIELD
control() {
	awk -v f="$1:" '/^Package:/ { bin = 1 } bin && $1 == f { on = 1; sub(/^[^:]*:/, ""); print; next }
		bin && on && /^[ \t]/ { print; next } { on = 0 }' "$root/debian/control" |
		tr ',' '\n' | sed 's/([^)]*)//; s/|.*//; s/^[ \t]*//; s/[ \t]*$//' | grep -v '^\${' | grep . | sort -u
}
control Recommends >"$T/recommends"
control Suggests >"$T/suggests.ctl"
control Depends >"$T/depends"

check "the lists are not empty" sh -c 'for l in run runtime suggests deb check; do [ -s "$1/$l" ] || exit 1; done' _ "$T"
check "debian/control Recommends is setup-deps' runtime list, word for word" cmp "$T/runtime" "$T/recommends"
[ -n "$(comm -3 "$T/runtime" "$T/recommends")" ] && comm -3 "$T/runtime" "$T/recommends" | sed 's/^/#   runtime|Recommends: /'
check "debian/control Suggests is setup-deps' suggests list, word for word" cmp "$T/suggests" "$T/suggests.ctl"
[ -n "$(comm -3 "$T/suggests" "$T/suggests.ctl")" ] && comm -3 "$T/suggests" "$T/suggests.ctl" | sed 's/^/#   suggests|Suggests: /'
check "debian/control Depends names only substitution variables (the binary's own libraries)" test ! -s "$T/depends"
check "make run installs the runtime list" sh -c '[ -z "$(comm -23 "$1/runtime" "$1/run")" ]' _ "$T"
check "make deb and make check install everything make run does; make check what make deb does" sh -c \
	'[ -z "$(comm -23 "$1/run" "$1/deb")" ] && [ -z "$(comm -23 "$1/deb" "$1/check")" ] && [ -z "$(comm -23 "$1/suggests" "$1/check")" ]' _ "$T"
check "make run installs no browser, test server, packaging, test or cross-check tool" sh -c \
	'! grep -Exq "chromium|postgresql|lintian|debhelper|dpkg-dev|python3-jsonschema|python3-yaml|valgrind|clang|strace|ansible-core|fio|iperf3|wrk|stress-ng|rt-tests|xfsprogs|btrfs-progs|bindfs" "$1/run"' _ "$T"
check "make run, make deb and make check call setup-deps with their list" sh -c \
	'make -s -n -C "$1" run | grep -q "setup-deps.sh run" && make -s -n -C "$1" deb | grep -q "setup-deps.sh deb" &&
	 make -s -n -C "$1" check | grep -q "setup-deps.sh check"' _ "$root"
sh "$root/tools/setup-deps.sh" --list nosuch >/dev/null 2>&1; rc=$?
check "setup-deps.sh --list of no such list: exit 2" test $rc = 2
missing=""
for p in $(cat "$T/check"); do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
check "every package make check needs is installed${missing:+ (missing:$missing)}" test -z "$missing"
