/* SPDX-License-Identifier: MIT */
/* fs.unlink: remove a file from a directory of N other entries. */
#include <fcntl.h>
#include <unistd.h>
#include "bench/fsdir.h"

/* The operation itself: always unlinkat, even where the core gave a spent
 * directory (fsdir_drop moves there what benches remove untimed). */
static int op(void *state, unsigned slot)
{
	struct fsdir *d = state;
	if (unlinkat(d->env->dirfd, d->name[slot], 0))
		return bench_fail(d->env, "unlinkat");
	return 0;
}

const struct bench bench_fs_unlink = {
	.params = bench_no_params,
	.name = "fs.unlink", .version = 1, .axis = "entries in the directory", .axis_kind = AXIS_LOAD,
	.flags = BENCH_ONE_THREAD,
	.summary = "unlink a file from a directory already holding N other entries",
	.op_desc = "unlinkat of a probe file created untimed just before",
	.needs = NEED_DIR, .tasks = BENCH_TASKS_DIR, .quick_max_n = 10000, .default_max_n = 100000, .full_max_n = 1000000,
	.max_batch = FSDIR_SLOTS, .setup = fsdir_setup, .grow = fsdir_grow,
	.prep = fsdir_create_probe, .op = op, .teardown = fsdir_teardown,
};
