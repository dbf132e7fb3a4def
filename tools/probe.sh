#!/bin/sh
# Feature probes: compile and link a small program per optional library and
# print what the build should use. `probe.sh CC cppflags` prints -DHAVE_*
# defines, `probe.sh CC libs` the link flags of every library (jansson,
# sqlite3 and the probed engines), `probe.sh CC baselibs` those of jansson
# and sqlite3 alone (the POSIX-only build). A probe that fails leaves the
# feature out; the benches that need it then skip with a reason.
#
# Libraries are linked statically when their archive (libX.a) is installed
# and STATIC is not 0: every shared library adds some five mappings to the
# process, and proc.fork times fork() of this very process, whose cost grows
# with the mappings it copies (docs/method.md, "The forking process").
cc=${1:-cc}; what=${2:-cppflags}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbprobe.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
static=""; dynamic=""
lib() { # lib NAME: sort NAME into the static or the dynamic list
	case ${STATIC:-1}:$("$cc" -print-file-name="lib$1.a") in
	0:*) dynamic="$dynamic -l$1" ;;
	*:/*) static="$static -l$1" ;;
	*) dynamic="$dynamic -l$1" ;;
	esac
}
probe() { # probe NAME LIB PROGRAM
	printf '%s\n' "$3" >"$tmp/$1.c"
	if "$cc" -o "$tmp/$1" "$tmp/$1.c" "-l$2" >/dev/null 2>&1; then
		case $what in cppflags) printf ' -DHAVE_%s=1' "$1" ;; libs) lib "$2" ;; esac
	fi
}
case $what in libs|baselibs) lib jansson; lib sqlite3 ;; esac
if [ "$what" != baselibs ]; then
	probe LIBURING uring '#include <liburing.h>
int main(void) { struct io_uring r; if (io_uring_queue_init(4, &r, 0)) return 1; io_uring_queue_exit(&r); return 0; }'
	probe LIBAIO aio '#include <libaio.h>
int main(void) { io_context_t c = 0; if (io_setup(4, &c)) return 1; io_destroy(c); return 0; }'
fi
[ -n "$static" ] && printf ' -Wl,-Bstatic%s -Wl,-Bdynamic' "$static"
[ -n "$dynamic" ] && printf '%s' "$dynamic"
echo
