#!/bin/sh
# Feature probes: compile and link a small program per optional library and
# print what the build should use. `probe.sh CC cppflags` prints -DHAVE_*
# defines, `probe.sh CC libs` the matching -l flags. A probe that fails
# leaves the feature out; the benches that need it then skip with a reason.
cc=${1:-cc}; what=${2:-cppflags}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbprobe.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
probe() { # probe NAME LIB PROGRAM
	printf '%s\n' "$3" >"$tmp/$1.c"
	if "$cc" -o "$tmp/$1" "$tmp/$1.c" "$2" >/dev/null 2>&1; then
		case $what in cppflags) printf ' -DHAVE_%s=1' "$1" ;; libs) printf ' %s' "$2" ;; esac
	fi
}
probe LIBURING -luring '#include <liburing.h>
int main(void) { struct io_uring r; if (io_uring_queue_init(4, &r, 0)) return 1; io_uring_queue_exit(&r); return 0; }'
probe LIBAIO -laio '#include <libaio.h>
int main(void) { io_context_t c = 0; if (io_setup(4, &c)) return 1; io_destroy(c); return 0; }'
echo
