#!/bin/sh
# SPDX-License-Identifier: MIT
# poll's cost curve on this machine, outside scalebench (issue 12): builds
# bench/bare-poll.c and runs it pinned to one CPU, rerunnable:
#   sh bench/bare-poll.sh [CPU] [bare-poll options]     (CPU: default 0)
# e.g. sh bench/bare-poll.sh 0 -r 11 -s 31
# It prints, per N idle TCP loopback connections (plus one active one),
# the time of poll (a plain scan, and one that registers on every socket as
# a server going to sleep does), select, epoll_wait, and a round trip to a
# server process waiting in poll, with the cost per idle descriptor; and
# the machine's load before and after (the machine is shared: report it).
# See docs/net.md, "poll's cost per connection".
set -u
cd "$(dirname "$0")/.." || exit 2
CPU=${1:-0}
[ $# -gt 0 ] && shift
W=$(mktemp -d /tmp/sb-barepoll.XXXXXX) || exit 2
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
cc -O2 -Wall -Wextra -Werror -o "$W/bare-poll" bench/bare-poll.c || exit 2
echo "== $(uname -r), $(nproc) CPUs, pinned to CPU $CPU; load before: $(uptime)"
taskset -c "$CPU" "$W/bare-poll" "$@" || exit 1
echo "== load after: $(uptime)"
