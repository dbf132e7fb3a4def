/* SPDX-License-Identifier: MIT */
/* fs.open: open and close a random existing file of a directory of N entries. */
#include <fcntl.h>
#include <unistd.h>
#include "bench/fsdir.h"

static int op(void *state, unsigned slot)
{
	struct fsdir *d = state;
	int fd = openat(d->env->dirfd, d->name[slot], O_RDONLY);
	if (fd < 0)
		return bench_fail(d->env, "openat(O_RDONLY)");
	if (close(fd))
		return bench_fail(d->env, "close");
	return 0;
}

const struct bench bench_fs_open = {
	.params = bench_no_params,
	.name = "fs.open", .version = 1, .axis = "entries in the directory", .axis_kind = AXIS_LOAD,
	.flags = BENCH_ONE_THREAD,
	.summary = "open + close a random existing file in a directory of N entries",
	.op_desc = "openat(O_RDONLY) + close of a random entry",
	.needs = NEED_DIR, .tasks = BENCH_TASKS_DIR, .quick_max_n = 10000, .default_max_n = 100000, .full_max_n = 1000000,
	.max_batch = FSDIR_SLOTS, .setup = fsdir_setup, .grow = fsdir_grow,
	.prep = fsdir_pick_existing, .op = op, .teardown = fsdir_teardown,
};
