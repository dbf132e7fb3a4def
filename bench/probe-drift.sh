#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds bench/probe-drift.c against the native build's libsb.a and runs it:
#   sh bench/probe-drift.sh [SECONDS (20)] [OP: fstat|getppid|fault] [WINDOW_MS (20)]
# (docs/method.md, "Machine drift").
set -u
cd "$(dirname "$0")/.." || exit 2
[ -f build/native/libsb.a ] || { echo "probe-drift: build/native/libsb.a missing (make)" >&2; exit 2; }
W=$(mktemp -d /tmp/scalebench-drift.XXXXXX) || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
cc -O2 -std=c11 -D_GNU_SOURCE -Isrc -Isrc/core -Isrc/sys -o "$W/probe-drift" bench/probe-drift.c \
	build/native/libsb.a -ljansson -lm -lpthread || exit 1
echo "probe-drift: load $(cut -d' ' -f1-3 /proc/loadavg)"
${CSV:+env CSV=1} "$W/probe-drift" "${1:-20}" "${2:-fstat}" "${3:-20}"
