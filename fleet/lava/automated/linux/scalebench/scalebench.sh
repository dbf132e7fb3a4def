#!/bin/sh
# SPDX-License-Identifier: MIT
# scalebench as a LAVA test (scalebench.yaml beside it, in the layout of
# Linaro's test-definitions: automated/linux/scalebench/). Finds scalebench
# (or installs it), runs the job file or the benches given, and writes
# output/result.txt, one line a test case, `NAME pass|fail|skip [VALUE UNITS]`:
#
#   scalebench.install            pass, or fail when no scalebench can be had
#   scalebench.run                pass when the run exited 0, else fail (its exit code in the log)
#   scalebench.baseline           only with -B: fail when the baseline cannot be read
#   scalebench.BENCH[.VARIANT][.FS]        cost of one operation at the largest N (ns)
#   scalebench.BENCH...p99                 p99 there (ns)
#   scalebench.BENCH...exponent            the fitted log-log exponent
#
# The bench lines are `scalebench show --format lava`'s (docs/fleet.md):
# the status follows the bench's, or compare's word with a baseline. Inside
# LAVA (lava-test-case on PATH) each line is also sent with lava-test-case;
# outside, result.txt is all. The run's JSON is output/scalebench.json.
# Exit 0 when no test case failed, 1 when one did, 2 on bad arguments.
usage() {
	cat <<EOF
usage: $0 [-j JOB] [-b BENCHES] [-a ARGS] [-d DIR] [-B BASELINE] [-D DB] [-l LABEL]
          [-x SCALEBENCH] [-p DEB] [-s true|false]
  -j JOB        a job file (scalebench run FILE.job)
  -b BENCHES    benches and families, space-separated (default: all that the job or ARGS select)
  -a ARGS       more options of scalebench run (default: --quick)
  -d DIR        target directory of the run (default: /var/tmp)
  -B BASELINE   a result file or history id to judge every bench by (compare's word)
  -D DB         history database to store the run in (default: none, --no-db)
  -l LABEL      the host label the run records (--host-label; default: the host name)
  -x SCALEBENCH the binary to run (default: scalebench on PATH)
  -p DEB        when scalebench is not found, install this .deb with apt-get
                (default: apt-get install scalebench)
  -s true       never install (SKIP_INSTALL)
EOF
	exit 2
}
JOB="" BENCHES="" ARGS="--quick" DIR="/var/tmp" BASELINE="" DB="" LABEL=""
SB="" DEB="" SKIP_INSTALL="false"
while getopts "j:b:a:d:B:D:l:x:p:s:h" o; do
	case $o in
	j) JOB=$OPTARG ;;
	b) BENCHES=$OPTARG ;;
	a) ARGS=$OPTARG ;;
	d) DIR=$OPTARG ;;
	B) BASELINE=$OPTARG ;;
	D) DB=$OPTARG ;;
	l) LABEL=$OPTARG ;;
	x) SB=$OPTARG ;;
	p) DEB=$OPTARG ;;
	s) SKIP_INSTALL=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 0 ] || usage
case $SKIP_INSTALL in true | false | True | False) ;; *) usage ;; esac

OUTPUT="$(pwd)/output"
RESULT_FILE="$OUTPUT/result.txt"
JSON="$OUTPUT/scalebench.json"
mkdir -p "$OUTPUT" || exit 1
rm -f "$RESULT_FILE" "$JSON"
failed=0
# result NAME pass|fail|skip [VALUE UNITS]
result() {
	echo "$*" >>"$RESULT_FILE"
	[ "$2" = fail ] && failed=1
	return 0
}
finish() {
	if command -v lava-test-case >/dev/null 2>&1; then
		while read -r name res value units; do
			if [ -n "$value" ]; then
				lava-test-case "$name" --result "$res" --measurement "$value" --units "$units"
			else
				lava-test-case "$name" --result "$res"
			fi
		done <"$RESULT_FILE"
	fi
	exit $failed
}

# Find scalebench, or install it.
if [ -z "$SB" ]; then
	SB=$(command -v scalebench 2>/dev/null)
	if [ -z "$SB" ] && [ "$SKIP_INSTALL" != true ] && [ "$SKIP_INSTALL" != True ]; then
		export DEBIAN_FRONTEND=noninteractive
		if [ -n "$DEB" ]; then
			case $DEB in
			http://* | https://*)
				wget -q -O "$OUTPUT/scalebench.deb" "$DEB" || curl -fsSL -o "$OUTPUT/scalebench.deb" "$DEB"
				DEB="$OUTPUT/scalebench.deb" ;;
			/*) ;;
			*) DEB="./$DEB" ;;
			esac
			apt-get install -y -q "$DEB" >&2
		else
			apt-get install -y -q scalebench >&2
		fi
		SB=$(command -v scalebench 2>/dev/null)
	fi
fi
if [ -z "$SB" ] || ! "$SB" --version >/dev/null 2>&1; then
	echo "scalebench.sh: no scalebench to run (${SB:-not on PATH}; -x PATH, or -p DEB to install one)" >&2
	result scalebench.install fail
	finish
fi
result scalebench.install pass
"$SB" --version >&2

# Run. The job file and the benches are words of the command line.
set -f
# shellcheck disable=SC2086
set -- $JOB $BENCHES --dir "$DIR" $ARGS -q -o "$JSON"
set +f
if [ -n "$DB" ]; then set -- "$@" --db "$DB"; else set -- "$@" --no-db; fi
[ -n "$LABEL" ] && set -- "$@" --host-label "$LABEL"
echo "scalebench.sh: $SB run $*" >&2
"$SB" run "$@" >&2
rc=$?
if [ $rc = 0 ]; then
	result scalebench.run pass
else
	echo "scalebench.sh: scalebench run exited $rc" >&2
	result scalebench.run fail
fi

# The benches, in LAVA's words (a failed run that still wrote its JSON,
# e.g. when the database could not be written, keeps its benches).
[ -s "$JSON" ] || finish
if [ -n "$BASELINE" ]; then
	if ! "$SB" show "$JSON" --format lava --baseline "$BASELINE" ${DB:+--db "$DB"} >"$OUTPUT/lava.txt"; then
		result scalebench.baseline fail
		"$SB" show "$JSON" --format lava >"$OUTPUT/lava.txt" || result scalebench.show fail
	else
		result scalebench.baseline pass
	fi
else
	"$SB" show "$JSON" --format lava >"$OUTPUT/lava.txt" || result scalebench.show fail
fi
# lava-test-case NAME --result R [--measurement V --units U] -> NAME R [V U]
while read -r cmd name o1 res o2 value o3 units; do
	[ "$cmd" = lava-test-case ] && [ "$o1" = --result ] || continue
	if [ "$o2" = --measurement ] && [ "$o3" = --units ]; then
		result "$name" "$res" "$value" "$units"
	else
		result "$name" "$res"
	fi
done <"$OUTPUT/lava.txt"
rm -f "$OUTPUT/lava.txt"
finish
