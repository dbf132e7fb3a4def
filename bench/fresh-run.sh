#!/bin/sh
# SPDX-License-Identifier: MIT
# `make run` as a new user meets it: a fresh Debian 12 made by debootstrap
# in a scratch directory under /var/tmp, the host's apt sources (the Debian
# mirror configured in /etc/apt), `apt-get update && apt-get install make`
# (the README's quick start; git is not needed inside, the clone is made
# outside), a clean `git clone` of HEAD copied in, then `make run` inside it as root (tools/setup-deps.sh
# installs what is missing). Every line of its output is stamped with the
# seconds since the start, and the phases are printed at the end:
#
#   apt-get update      setup-deps.sh: "apt-get update" .. "downloading"
#                       (apt-get install's resolving included); skipped when
#                       the lists were fetched less than an hour ago (the
#                       prerequisite's update just did): then "resolving"
#   download            "downloading SIZE" .. "unpacking"
#   unpack + configure  "unpacking" .. "installed"
#   build               .. the line running ./scalebench
#   run                 .. the end
#
#   sudo sh bench/fresh-run.sh                 make run (GOAL=run)
#   sudo GOAL=check sh bench/fresh-run.sh      another goal (check, deb, test)
#   env: BASE=DIR    start from a copy of DIR, a tree debootstrap made
#                    before (SAVE_BASE=DIR keeps one: debootstrap takes
#                    minutes and is not part of the figure); SUITE
#                    (bookworm), MIRROR (http://deb.debian.org/debian),
#                    KEEP_LOG=FILE (the stamped output)
#
# The chroot shares the host's kernel, network and CPUs: say the load
# (printed before and after) beside the figure; the CPU time of make and all
# it ran is printed too (on 2 CPUs the build needs about half of it in wall
# time at best). `nice -n -10 sh bench/fresh-run.sh` comes closer to an idle
# machine's figure on a busy one (others' work at nice 0 gets less). Measured 2026-12-05 on the
# project's 2-vCPU VM: docs/packaging.md, "make run on a fresh machine".
# Everything it makes (the tree, its mounts, which live in a mount
# namespace of their own) is removed at exit, also on Ctrl-C.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
GOAL=${GOAL:-run}
SUITE=${SUITE:-bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
[ "$(id -u)" = 0 ] || { echo "fresh-run.sh: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "fresh-run.sh: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }
command -v unshare >/dev/null || { echo "fresh-run.sh: needs unshare (util-linux)" >&2; exit 2; }
case $GOAL in run|check|deb|test) ;; *) echo "fresh-run.sh: GOAL must be run, check, deb or test" >&2; exit 2 ;; esac
git -C "$root" rev-parse -q --verify HEAD >/dev/null || { echo "fresh-run.sh: $root is not a git checkout" >&2; exit 2; }
[ -z "$(git -C "$root" status --porcelain --untracked-files=no)" ] ||
	echo "fresh-run.sh: note: uncommitted changes are not measured (the clone is of HEAD)" >&2

W=$(mktemp -d /var/tmp/sb-fresh.XXXXXX)
C=$W/root
cleanup() {
	# processes left in the tree (a Ctrl-C in the middle): ours, by pid
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$C" ] && kill -9 "${p#/proc/}" 2>/dev/null
	done
	# the mounts live in the namespace of the unshare below and go with it;
	# never remove a tree that still has a mount under it
	if grep -q " $W/" /proc/self/mounts; then
		echo "fresh-run.sh: mounts left under $W, not removed" >&2
	else
		rm -rf "$W"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "fresh-run.sh: load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
if [ -n "${BASE:-}" ] && [ -d "$BASE" ]; then
	cp -a "$BASE" "$C"
else
	t0=$(date +%s)
	debootstrap "$SUITE" "$C" "$MIRROR" >"$W/debootstrap.log" 2>&1 ||
		{ tail "$W/debootstrap.log" >&2; echo "fresh-run.sh: debootstrap failed" >&2; exit 1; }
	echo "fresh-run.sh: debootstrap $SUITE: $(($(date +%s) - t0)) s (not part of the figure)" >&2
	if [ -n "${SAVE_BASE:-}" ]; then rm -rf "$SAVE_BASE"; cp -a "$C" "$SAVE_BASE"; fi
fi
# a fresh machine: no package files cached, the host's sources (deb.debian.org,
# updates and security), no daemon started by a package (a chroot has no init)
rm -f "$C"/var/cache/apt/archives/*.deb
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
	cp /etc/apt/sources.list.d/debian.sources "$C/etc/apt/sources.list.d/"
	rm -f "$C/etc/apt/sources.list"
fi
cp /etc/resolv.conf "$C/etc/resolv.conf" 2>/dev/null || true
printf '#!/bin/sh\nexit 101\n' >"$C/usr/sbin/policy-rc.d"
chmod 755 "$C/usr/sbin/policy-rc.d"
git clone -q --no-local "$root" "$C/root/scalebench"

# inside: a private mount namespace (nothing reaches the host's mount table)
# with /proc, /sys, /dev (and a /dev/shm, /dev/pts of its own)
inside() {
	unshare -m --propagation private sh -c '
		C=$1; shift
		mount -t proc proc "$C/proc"
		mount --rbind /sys "$C/sys"
		mount --rbind /dev "$C/dev"
		mount -t tmpfs -o mode=1777 tmpfs "$C/dev/shm"
		chroot "$C" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 TERM=dumb sh -c "$*"
		rc=$?
		umount "$C/dev/shm"; umount -R "$C/dev" "$C/sys"; umount "$C/proc"
		exit $rc' inside "$C" "$@"
}
# since T: the seconds from T (epoch seconds with a fraction) to now
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
# stamp: each line prefixed by the seconds since $1 (epoch seconds, fraction)
stamp() {
	while IFS= read -r l; do
		printf '%7.1f %s\n' "$(since "$1")" "$l"
	done
}

# the prerequisite, timed apart: make (the quick start's `apt-get install make`)
t0=$(date +%s.%N)
inside 'apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends make >/dev/null' ||
	{ echo "fresh-run.sh: installing make failed" >&2; exit 1; }
echo "fresh-run.sh: prerequisite (apt-get update, install make): $(since "$t0") s" >&2

log=$W/make.log
t0=$(date +%s.%N)
set +e
{ inside "cd /root/scalebench && make $GOAL 2>&1; echo \"make $GOAL: exit \$?\"; echo cpu; times"; } 2>&1 | stamp "$t0" | tee "$log"
set -e
total=$(since "$t0")
[ -n "${KEEP_LOG:-}" ] && cp "$log" "$KEEP_LOG"
echo "fresh-run.sh: load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# at: the stamp of the first line matching $1 (empty when none)
at() { awk -v re="$1" '$0 ~ re { print $1; exit }' "$log"; }
upd=$(at 'scalebench setup: apt-get update$')
dl=$(at 'scalebench setup: downloading')
unp=$(at 'scalebench setup: unpacking$')
inst=$(at 'scalebench setup: installed$')
runl=$(at '^ *[0-9.]+ \./scalebench run')
size=$(awk '/scalebench setup: downloading/ { sub(/.*downloading /, ""); print; exit }' "$log")
# the CPU time of make and everything it ran (the shell's `times`: its
# children's user and system time, the line after the "cpu" line's next)
cpu=$(awk '$2 == "cpu" { c = NR } c && NR == c + 2 { print $2, $3 }' "$log" |
	awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%.1f", t }')
exitl=$(awk '/make '"$GOAL"': exit/ { print $NF; exit }' "$log")
span() { if [ -n "$1" ] && [ -n "$2" ]; then awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; else echo "-"; fi; }
echo
echo "make $GOAL on a fresh $SUITE (exit ${exitl:-?}), seconds from the start of make:"
if [ -n "$upd" ]; then
	printf '  %-22s %s\n' "setup-deps, to update" "$upd"
	printf '  %-22s %s\n' "apt-get update" "$(span "$upd" "$dl")"
else
	ins=$(at 'scalebench setup: installing')
	printf '  %-22s %s\n' "setup-deps, to install" "${ins:--}"
	printf '  %-22s %s\n' "apt-get update" "skipped (lists fetched < 1 h ago)"
	printf '  %-22s %s\n' "apt-get resolving" "$(span "$ins" "$dl")"
fi
printf '  %-22s %s\n' "download ${size:-}" "$(span "$dl" "$unp")"
printf '  %-22s %s\n' "unpack + configure" "$(span "$unp" "$inst")"
printf '  %-22s %s\n' "build" "$(span "${inst:-0}" "$runl")"
printf '  %-22s %s\n' "run" "$(span "$runl" "$total")"
printf '  %-22s %.1f\n' "total" "$total"
printf '  %-22s %s\n' "cpu (user+sys)" "${cpu:--}"
[ "${exitl:-1}" = 0 ]
