#!/bin/sh
# SPDX-License-Identifier: MIT
# Feature probes: link a small program per library and print what the build
# should use, in one line. `probe.sh CC native` prints -DHAVE_* defines for
# the optional io engines found and the link flags of every library
# (jansson and those engines); `probe.sh CC posix` the link flags of
# jansson alone (the POSIX-only build). SQLite and libpq are not linked:
# src/out/db_*.c load them when a history database is first opened. An optional library that
# does not link is left out, and the benches that need it skip with a
# reason; a required one is named anyway, so that the link error says which.
#
# A library is linked statically when its program links that way (its
# archive libX.a is installed) and STATIC is not 0: every shared library
# adds some five mappings to the process, and proc.fork times fork() of this
# very process (docs/benches.md, "The forking process").
cc=${1:-cc}; what=${2:-native}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbprobe.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
static=""; dynamic=""
links() { # links NAME FLAGS...: the program NAME.c links with FLAGS
	n=$1; shift
	"$cc" -o "$tmp/$n" "$tmp/$n.c" "$@" -lm -lpthread >/dev/null 2>&1
}
lib() { # lib NAME PROGRAM: add -lNAME to the static or the dynamic list; 1 if it does not link
	printf '%s\n' "$2" >"$tmp/$1.c"
	if [ "${STATIC:-1}" != 0 ] && links "$1" -Wl,-Bstatic "-l$1" -Wl,-Bdynamic; then
		static="$static -l$1"
	elif links "$1" "-l$1"; then
		dynamic="$dynamic -l$1"
	else
		return 1
	fi
}
JANSSON='#include <jansson.h>
int main(void) { json_t *o = json_object(); json_decref(o); return 0; }'
URING='#include <liburing.h>
int main(void) { struct io_uring r; if (io_uring_queue_init(4, &r, 0)) return 1; io_uring_queue_exit(&r); return 0; }'
AIO='#include <libaio.h>
int main(void) { io_context_t c = 0; if (io_setup(4, &c)) return 1; io_destroy(c); return 0; }'
lib jansson "$JANSSON" || dynamic="$dynamic -ljansson"
# libarchive (work.round2): only its headers are needed at build time; the
# bench loads libarchive.so.13 with dlopen when it runs (ten libraries that
# every fork of this process would otherwise copy the mappings of).
ARCHIVE='#include <archive.h>
#include <archive_entry.h>
int main(void) { return ARCHIVE_VERSION_NUMBER < 3000000; }'
if [ "$what" = native ]; then
	printf '%s\n' "$ARCHIVE" >"$tmp/archive.c"
	links archive && printf ' -DHAVE_LIBARCHIVE=1'
	lib uring "$URING" && printf ' -DHAVE_LIBURING=1'
	lib aio "$AIO" && printf ' -DHAVE_LIBAIO=1'
fi
[ -n "$static" ] && printf ' -Wl,-Bstatic%s -Wl,-Bdynamic' "$static"
[ -n "$dynamic" ] && printf '%s' "$dynamic"
echo
