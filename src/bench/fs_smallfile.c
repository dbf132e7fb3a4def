/* SPDX-License-Identifier: MIT */
/* fs.smallfile: create a file, write 4 KiB, fsync, close, in a directory of
 * N entries: the durable small-file write (mail spools, package managers). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench/fsdir.h"

#define SMALL 4096

static const char data[SMALL]; /* zeros, in .rodata */

static int op(void *state, unsigned slot)
{
	struct fsdir *d = state;
	int fd = openat(d->env->dirfd, d->name[slot], O_CREAT | O_EXCL | O_WRONLY, BENCH_FILE_MODE);
	if (fd < 0)
		return bench_fail(d->env, "openat(O_CREAT|O_EXCL)");
	int rc = 0;
	if (write(fd, data, SMALL) != SMALL)
		rc = bench_fail(d->env, "write 4 KiB");
	else if (fsync(fd))
		rc = bench_fail(d->env, "fsync");
	if (close(fd) && rc == 0)
		rc = bench_fail(d->env, "close");
	return rc;
}

const struct bench bench_fs_smallfile = {
	.params = bench_no_params,
	.name = "fs.smallfile", .version = 1, .axis = "entries in the directory", .axis_kind = AXIS_LOAD,
	.flags = BENCH_ONE_THREAD | BENCH_MAKES_INODES,
	.summary = "create + write 4 KiB + fsync + close a new file in a directory of N entries",
	.op_desc = "openat(O_CREAT|O_EXCL) + write 4 KiB + fsync + close; unlinked untimed",
	.needs = NEED_DIR, .quick_max_n = 1000, .default_max_n = 10000, .full_max_n = 100000,
	.max_batch = 1, .space_mib = 64, .setup = fsdir_setup, .grow = fsdir_grow,
	.prep = fsdir_pick_probe, .op = op, .undo = fsdir_unlink_slot, .teardown = fsdir_teardown,
};
