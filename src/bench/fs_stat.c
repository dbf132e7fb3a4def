/* SPDX-License-Identifier: MIT */
/* fs.stat: stat a random existing file of a directory of N entries. */
#include <fcntl.h>
#include <sys/stat.h>
#include "bench/fsdir.h"

static int op(void *state, unsigned slot)
{
	struct fsdir *d = state;
	struct stat st;
	if (fstatat(d->env->dirfd, d->name[slot], &st, 0))
		return bench_fail(d->env, "fstatat");
	return 0;
}

const struct bench bench_fs_stat = {
	.params = bench_no_params,
	.name = "fs.stat", .version = 1, .axis = "entries in the directory", .axis_kind = AXIS_LOAD,
	.flags = BENCH_ONE_THREAD,
	.summary = "stat a random existing file in a directory of N entries",
	.op_desc = "fstatat of a random entry",
	.needs = NEED_DIR, .tasks = BENCH_TASKS_DIR, .quick_max_n = 10000, .default_max_n = 100000, .full_max_n = 1000000,
	.max_batch = FSDIR_SLOTS, .setup = fsdir_setup, .grow = fsdir_grow,
	.prep = fsdir_pick_existing, .op = op, .teardown = fsdir_teardown,
};
