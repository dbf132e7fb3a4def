#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds bench/NAME.c against the native build's libsb.a (the probe, the
# clock, the system layer) in a temporary directory and runs it with ARGS;
# the directory goes when it ends. Used by bench/probe-drift.sh and
# bench/cpu-speeds.sh.
#   sh bench/tool.sh NAME [ARGS ...]
set -u
cd "$(dirname "$0")/.." || exit 2
name=${1:?usage: sh bench/tool.sh NAME [ARGS ...]}
shift
[ -f "bench/$name.c" ] || { echo "tool: bench/$name.c: no such program" >&2; exit 2; }
[ -f build/native/libsb.a ] || { echo "$name: build/native/libsb.a missing (make)" >&2; exit 2; }
W=$(mktemp -d "/tmp/scalebench-$name.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
cc -O2 -std=c11 -D_GNU_SOURCE -Isrc -Isrc/core -Isrc/sys -o "$W/$name" "bench/$name.c" \
	build/native/libsb.a -ljansson -lm -lpthread || exit 1
echo "$name: load $(cut -d' ' -f1-3 /proc/loadavg)"
"$W/$name" "$@"
