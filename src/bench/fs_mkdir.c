/* SPDX-License-Identifier: MIT */
/* fs.mkdir: make a new directory in a directory of N entries. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bench/fsdir.h"

static int op(void *state, unsigned slot)
{
	struct fsdir *d = state;
	if (mkdirat(d->env->dirfd, d->name[slot], BENCH_DIR_MODE))
		return bench_fail(d->env, "mkdirat");
	return 0;
}

static int undo(void *state, unsigned slot)
{
	struct fsdir *d = state;
	return fsdir_drop(d, d->name[slot], AT_REMOVEDIR);
}

const struct bench bench_fs_mkdir = {
	.params = bench_no_params,
	.name = "fs.mkdir", .version = 1, .axis = "entries in the directory", .axis_kind = AXIS_LOAD,
	.flags = BENCH_ONE_THREAD | BENCH_MAKES_INODES,
	.summary = "make a new directory in a directory already holding N entries",
	.op_desc = "mkdirat of a fresh name; the directory is removed untimed",
	.needs = NEED_DIR, .quick_max_n = 10000, .default_max_n = 100000, .full_max_n = 1000000,
	.max_batch = FSDIR_SLOTS, .space_mib = 64, .setup = fsdir_setup, .grow = fsdir_grow,
	.prep = fsdir_pick_probe, .op = op, .undo = undo, .teardown = fsdir_teardown,
};
