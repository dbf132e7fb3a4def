#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds bench/probe-drift.c against the native build's libsb.a and runs it:
#   sh bench/probe-drift.sh [SECONDS (20)] [OP: fstat|getppid|fault] [WINDOW_MS (20)]
# (docs/method.md, "Machine drift"). CSV=1: the windows as CSV.
exec env ${CSV:+CSV=1} sh "$(dirname "$0")/tool.sh" probe-drift "${1:-20}" "${2:-fstat}" "${3:-20}"
