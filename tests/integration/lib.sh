# Sourced by the integration tests: ok/notok/skip lines the runner counts,
# and a scratch area removed on exit. $SB is the binary under test.
: "${SB:?SB must name the scalebench binary}"
T=$(mktemp -d /tmp/sbtest.XXXXXX)
_cleanups=""
at_exit() { _cleanups="$1; $_cleanups"; }
trap 'eval "$_cleanups"; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

check() { # check "description" command...
	d=$1; shift
	if "$@" >/dev/null 2>&1; then echo "ok - $d"; else echo "not ok - $d"; fi
}
skip() { echo "skip - $1"; }
is_root() { [ "$(id -u)" = 0 ]; }
# jq-free JSON queries through python3 (in Debian's base images) or jansson-based helper
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$@"; }
# processes whose command line is this binary (left-overs)
stray_procs() { pgrep -f -- "$SB" | grep -v "^$$\$" | wc -l; }
# Runs store their result in the history database by default: keep each
# test's database in its scratch area, never in the user's home.
export XDG_DATA_HOME="$T/xdg"
