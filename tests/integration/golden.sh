# SPDX-License-Identifier: MIT
# Golden files: compare (text and JSON) and report --format csv over two
# fixed results (tests/data: a real run, and a copy doctored 1.3x slower,
# on "xfs", with net.bind at version 2). Any change of the output shows
# as a diff; after an intended change, regenerate with
#   SB_UPDATE_GOLDEN=1 SB=./scalebench sh tests/integration/golden.sh
# tier: fast (tests/run.sh --fast, make test)
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 1
D=tests/data G=tests/golden
golden() { # name exit-status command...
	name=$1; want=$2; shift 2
	"$@" >"$T/$name" 2>"$T/err"; rc=$?
	if [ -n "$SB_UPDATE_GOLDEN" ]; then cp "$T/$name" "$G/$name"; fi
	if [ $rc -eq "$want" ] && cmp -s "$T/$name" "$G/$name"; then
		echo "ok - golden $name"
	else
		echo "not ok - golden $name (exit $rc)"; diff -u "$G/$name" "$T/$name" | head -40; cat "$T/err"
	fi
}
golden compare.txt 3 "$SB" compare --strict $D/base.json $D/slow.json
golden compare.json 3 "$SB" compare --strict $D/base.json $D/slow.json --format json
golden compare-self.txt 0 "$SB" compare $D/base.json $D/base.json
golden compare-default.txt 0 "$SB" compare $D/base.json $D/slow.json
golden report.csv 0 "$SB" report $D/base.json $D/slow.json --format csv
