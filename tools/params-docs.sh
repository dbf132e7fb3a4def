#!/bin/sh
# SPDX-License-Identifier: MIT
# Rewrites the generated parameter blocks of docs/benches.md and
# man/scalebench.1 from the benches' own tables (`scalebench list
# --params-md` / `--params-man`); tests/integration/params.sh fails when
# they differ. Usage: sh tools/params-docs.sh [SCALEBENCH]
set -e
cd "$(dirname "$0")/.."
SB=${1:-./scalebench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$SB" list --params-md >"$tmp/md"
"$SB" list --params-man >"$tmp/man"
# splice FILE BEGIN-REGEX END-REGEX BLOCK: replace the lines between the markers
splice() {
	B=$2 E=$3 BLK=$4 awk '
		$0 ~ ENVIRON["B"] { print; while ((getline l < ENVIRON["BLK"]) > 0) print l; skip = 1; next }
		$0 ~ ENVIRON["E"] { skip = 0 }
		!skip { print }' "$1" >"$tmp/out"
	grep -q "$2" "$1" && grep -q "$3" "$1" || { echo "$1: markers missing" >&2; exit 1; }
	cat "$tmp/out" >"$1"
}
splice docs/benches.md '^<!-- params: begin' '^<!-- params: end' "$tmp/md"
splice man/scalebench.1 '^\.\\" params: begin' '^\.\\" params: end' "$tmp/man"
