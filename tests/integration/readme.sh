#!/bin/sh
# SPDX-License-Identifier: MIT
# Every command of README.md's "Use" section runs: the commands are read
# from the README itself (so this breaks when the README drifts from the
# tool), each run in a scratch working directory, and each must exit 0;
# a result it writes must be a scalebench result (lib.sh then checks it
# against the schema). Commands that need another host (--peer, serve on
# a documented address) are skipped, sudo ones need root. To keep this
# under two minutes, `run` and `matrix` commands get `--max-n $README_CAP
# --budget 0.01` appended (README_CAP=4; README_CAP=0 runs them exactly
# as written, which takes long: --full sweeps to 1,000,000 entries), and a
# --dir PATH of the README, and $TMPDIR (the default --dir), are a scratch
# directory. A command must exit 0 and no bench may stop on a failure
# (a matrix that runs out of space exits 0 but says "stop ...").
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CAP=${README_CAP:-4}
mkdir -p "$T/w" "$T/target"

scalebench() {
	case $1 in
	run | matrix) if [ "$CAP" != 0 ]; then "$SB" "$@" --max-n "$CAP" --budget 0.01; else "$SB" "$@"; fi ;;
	*) "$SB" "$@" ;;
	esac
}
# commands FILE SECTION: the commands of that section, one a line
commands() {
	# (the sample summary between its markers is output, not a command)
	awk -v s="## $2" '$0 == s {f=1; next} /^## / {f=0} /^<!-- summary sample: begin/ {x=1} /^<!-- summary sample: end/ {x=0} f && !x && /^    (sudo )?scalebench /' "$1" |
		sed 's/^    //; s/  *#.*$//'
}
# run_all FILE: run each command listed in FILE, with ok/not ok lines
run_all() {
	i=0
	while IFS= read -r cmd; do
		i=$((i + 1))
		case $cmd in
		*--peer* | *" serve "* | *192.0.2.*) skip "README: $cmd (needs another host)"; continue ;;
		sudo\ *)
			if ! is_root; then skip "README: $cmd (needs root)"; continue; fi
			cmd=${cmd#sudo } ;;
		esac
		run=$(printf '%s\n' "$cmd" | sed "s#--dir /[^ ]*#--dir $T/target#g")
		rm -rf "$T/w" && mkdir -p "$T/w"
		(cd "$T/w" && TMPDIR="$T/target" && export TMPDIR && eval "$run") >"$T/out.$i" 2>"$T/err.$i" </dev/null
		rc=$?
		check "README: $cmd (exit 0)" test $rc -eq 0
		check "README: $cmd (no bench stopped by a failure)" sh -c '! grep -q "^stop " "$1"' _ "$T/out.$i"
		[ $rc -eq 0 ] || { echo "# $run: exit $rc" >&2; tail -5 "$T/err.$i" >&2; }
		check "README: $cmd (printed or wrote something)" sh -c '[ -s "$1" ] || [ -n "$(ls "$2")" ]' _ "$T/out.$i" "$T/w"
		for f in "$T"/w/*.json; do
			[ -e "$f" ] || continue
			check "README: $cmd (wrote a scalebench result, $(basename "$f"))" jtrue "$f" \
				"d['tool']['name'] == 'scalebench' and len(d['benches']) > 0"
			mv "$f" "$T/result.$i.json" # lib.sh checks it against the schema at exit
		done
	done <"$1"
}

# the harness catches drift: a README naming an option or a bench that
# does not exist gives failures
printf '## Use\n\n    scalebench run fs.create --no-such-option\n    scalebench run fs.nosuch\n\n## Next\n' >"$T/drift.md"
commands "$T/drift.md" Use >"$T/drift.cmds"
run_all "$T/drift.cmds" >"$T/drift.out" 2>&1
check "a drifted README fails: both commands refused" test "$(grep -c '^not ok - README: .* (exit 0)' "$T/drift.out")" -eq 2
rm -f "$T"/result.*.json

commands "$ROOT/README.md" Use >"$T/cmds"
n=$(wc -l <"$T/cmds")
check "the README's \"Use\" section has commands ($n)" test "$n" -ge 4
run_all "$T/cmds"
check "nothing left in the --dir given to the commands" empty_dir "$T/target"
