/* SPDX-License-Identifier: MIT */
/* fs.create: create a new empty file in a directory of N entries. */
#include <fcntl.h>
#include <unistd.h>
#include "bench/fsdir.h"

static int op(void *state, unsigned slot)
{
	struct fsdir *d = state;
	int fd = openat(d->env->dirfd, d->name[slot], O_CREAT | O_EXCL | O_WRONLY, BENCH_FILE_MODE);
	if (fd < 0)
		return bench_fail(d->env, "openat(O_CREAT|O_EXCL)");
	if (close(fd))
		return bench_fail(d->env, "close");
	return 0;
}

const struct bench bench_fs_create = {
	.params = bench_no_params,
	.name = "fs.create", .version = 1, .axis = "entries in the directory", .axis_kind = AXIS_LOAD,
	.flags = BENCH_ONE_THREAD | BENCH_MAKES_INODES,
	.summary = "create a new empty file in a directory already holding N entries",
	.op_desc = "openat(O_CREAT|O_EXCL) + close; the file is unlinked untimed",
	.needs = NEED_DIR, .tasks = BENCH_TASKS_DIR, .quick_max_n = 10000, .default_max_n = 100000, .full_max_n = 1000000,
	.max_batch = FSDIR_SLOTS, .setup = fsdir_setup, .grow = fsdir_grow,
	.prep = fsdir_pick_probe, .op = op, .undo = fsdir_unlink_slot, .teardown = fsdir_teardown,
};
