#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds bench/cpu-speeds.c against the native build's libsb.a and runs it:
#   sh bench/cpu-speeds.sh [SECONDS (60)] [PERIOD_MS (200)]
# (docs/method.md, "Slowed CPUs").
exec sh "$(dirname "$0")/tool.sh" cpu-speeds "${1:-60}" "${2:-200}"
