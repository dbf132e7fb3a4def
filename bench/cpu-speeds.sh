#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds bench/cpu-speeds.c against the native build's libsb.a and runs it:
#   sh bench/cpu-speeds.sh [SECONDS (60)] [PERIOD_MS (200)]
# (docs/method.md, "Slowed CPUs").
set -u
cd "$(dirname "$0")/.." || exit 2
[ -f build/native/libsb.a ] || { echo "cpu-speeds: build/native/libsb.a missing (make)" >&2; exit 2; }
W=$(mktemp -d /tmp/scalebench-cpus.XXXXXX) || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
cc -O2 -std=c11 -D_GNU_SOURCE -Isrc -Isrc/core -Isrc/sys -o "$W/cpu-speeds" bench/cpu-speeds.c \
	build/native/libsb.a -ljansson -lm -lpthread || exit 1
echo "cpu-speeds: load $(cut -d' ' -f1-3 /proc/loadavg)"
"$W/cpu-speeds" "${1:-60}" "${2:-200}"
