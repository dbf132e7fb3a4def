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
# the source paragraph's Build-Depends (awk from the top to the first blank line)
awk '/^$/ { exit } $1 == "Build-Depends:" { on = 1; sub(/^[^:]*:/, ""); print; next }
	on && /^[ \t]/ { print; next } { on = 0 }' "$root/debian/control" |
	tr ',' '\n' | sed 's/([^)]*)//; s/^[ \t]*//; s/[ \t]*$//' | grep . >"$T/build-depends"
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
# every library make run builds against is a Build-Depends of the package, and
# the reverse ("pkgconf | pkg-config": either name is the run list's)
grep -- '-dev$' "$T/run" | grep -vx 'libc6-dev' >"$T/run-dev"
tr '|' '\n' <"$T/build-depends" | sed 's/^[ \t]*//; s/[ \t]*$//' | grep -- '-dev$' | sort -u >"$T/bd-dev"
check "debian/control Build-Depends names the -dev packages make run installs, and no other" cmp "$T/run-dev" "$T/bd-dev"
[ -n "$(comm -3 "$T/run-dev" "$T/bd-dev")" ] && comm -3 "$T/run-dev" "$T/bd-dev" | sed 's/^/#   run|Build-Depends: /'
check "debian/control Build-Depends has the pkg-config make run installs" grep -Eq '(^|[ |])pkg-config($|[ |])' "$T/build-depends"
check "make run runs the first look (studies/first-look.job), not the whole quick suite" sh -c \
	'make -s -n -C "$1" run | grep -q "scalebench run studies/first-look.job"' _ "$root"
# the first look at tiny sizes: it runs with what make run installs (no
# bench of it needs a suggested package), every family, every bench ok
"$SB" run "$root/studies/first-look.job" -n 4 -b 0.01 --no-db -o "$T/first.json" >/dev/null 2>"$T/first.err"; rc=$?
check "the first look at -n 4: exit 0" test $rc = 0
check "the first look: ten variants, all ok, of every family (fs, proc, mem, net, io)" jtrue "$T/first.json" \
	"len(d['benches']) == 10 and every(b['status'] == 'ok' for b in d['benches']) and sorted(set(b['name'].split('.')[0] for b in d['benches'])) == ['fs', 'io', 'mem', 'net', 'proc']"
sh "$root/tools/setup-deps.sh" --list nosuch >/dev/null 2>&1; rc=$?
check "setup-deps.sh --list of no such list: exit 2" test $rc = 2
missing=""
for p in $(cat "$T/check"); do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
check "every package make check needs is installed${missing:+ (missing:$missing)}" test -z "$missing"
