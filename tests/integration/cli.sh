# SPDX-License-Identifier: MIT
# The command line: help, version, list, and bad input that must stop the
# run before any work with a one-line message and exit 2, leaving nothing.
# tier: fast (tests/run.sh --fast, make test)
. "$(dirname "$0")/lib.sh"

check "--version prints the version" sh -c '"$SB" --version | grep -q "^scalebench [0-9]"'
check "help lists run and list" sh -c '"$SB" help | grep -q "run \[BENCH" && "$SB" help | grep -q "  list"'
check "run --help documents exit codes" sh -c '"$SB" run --help | grep -q "^exit:"'
"$SB" list >"$T/list" 2>&1
check "list shows fs.create with its axis" out_has "$T/list" "^fs.create *entries in the directory"
"$SB" list --format json >"$T/list.json"
check "list --format json parses" jtrue "$T/list.json" "len(d) >= 8 and every('axis' in b for b in d)"

# expect_usage "desc" pattern args...: exit 2, one stderr line matching pattern, no stdout
expect_usage() {
	d=$1; pat=$2; shift 2
	"$SB" "$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$pat" "$T/err" && [ ! -s "$T/out" ]; then
		echo "ok - $d"
	else
		echo "not ok - $d (exit $rc: $(cat "$T/err"))"
	fi
}
mkdir -p "$T/target"
"$SB" >"$T/out" 2>"$T/err"
check "no command: exit 2 with usage on stderr" test $? -eq 2
check "no command: nothing on stdout" test ! -s "$T/out"
check "no command: usage names the commands" out_has "$T/err" "^usage: scalebench COMMAND"
expect_usage "unknown command" "unknown command 'frobnicate'" frobnicate
expect_usage "unknown bench" "unknown bench or family 'fs.nope'" run fs.nope --dir "$T/target"
expect_usage "unknown option" "unknown option '--nope'" run --nope
expect_usage "--max-n not a number" "--max-n: 'ten' is not" run --max-n ten
expect_usage "--max-n zero" "--max-n: '0' is not" run --max-n 0
expect_usage "--budget negative" "--budget: '-1' is not" run --budget -1
expect_usage "--repeat missing value" "--repeat needs a value" run --repeat
expect_usage "--format bad choice" "--format: 'xml' is not one of text|json" run --format xml
expect_usage "--quick with --full" "exclude each other" run --quick --full
expect_usage "nonexistent --dir" "--dir $T/nope: No such file or directory" run --dir "$T/nope"
expect_usage "--dir is a file" "not a directory" run --dir /etc/hostname
expect_usage "-o in a missing directory" "cannot write in $T/missing" run --dir "$T/target" -o "$T/missing/r.json"
if is_root; then
	mkdir -p "$T/ro"
	if mount -t tmpfs -o ro,size=1m sbtest-ro "$T/ro" 2>/dev/null; then
		at_exit "umount '$T/ro'"
		expect_usage "read-only --dir" "Read-only file system" run --dir "$T/ro"
	else
		skip "read-only --dir (cannot mount)"
	fi
else
	skip "read-only --dir (needs root to mount)"
fi
check "nothing left in the target after the errors" empty_dir "$T/target"
make -s -C "$(dirname "$0")/../.." install PREFIX=/usr DESTDIR="$T/inst" >/dev/null 2>&1
check "make install honours PREFIX and DESTDIR" test -x "$T/inst/usr/bin/scalebench" -a -f "$T/inst/usr/share/man/man1/scalebench.1"
if command -v man >/dev/null 2>&1; then
	check "man page renders" sh -c 'MANWIDTH=80 man -l "$1" 2>/dev/null | grep -q "EXIT STATUS"' _ "$T/inst/usr/share/man/man1/scalebench.1"
fi
expect_usage "--cpus with a bad list" "--cpus" run --cpus 7-2 --dir "$T/target"
if [ "${SB_VARIANT:-}" != posix ]; then
	"$SB" run fs.stat --cpus 0 -n 5 -b 0.01 -q --dir "$T/target" -o "$T/cpus.json" >/dev/null 2>&1
	check "--cpus 0 pins every point to CPU 0 and is recorded" jtrue "$T/cpus.json" "d['options']['cpus'] == '0' and every(p['cpu'] == [0, 0] for p in d['benches'][0]['repetitions'][0]['points'])"
fi
