/* SPDX-License-Identifier: MIT */
/* fs.link: make a hard link to a random existing file, in a directory of N
 * entries. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "bench/fsdir.h"

static int prep(void *state, unsigned slot)
{
	struct fsdir *d = state;
	fsdir_pick_existing(state, slot);
	snprintf(d->to[slot], sizeof(d->to[slot]), "l%llu", (unsigned long long)d->tos++);
	return 0;
}

static int op(void *state, unsigned slot)
{
	struct fsdir *d = state;
	int fd = d->env->dirfd;
	if (linkat(fd, d->name[slot], fd, d->to[slot], 0))
		return bench_fail(d->env, "linkat");
	return 0;
}

const struct bench bench_fs_link = {
	.params = bench_no_params,
	.name = "fs.link", .version = 1, .axis = "entries in the directory", .axis_kind = AXIS_LOAD,
	.flags = BENCH_ONE_THREAD,
	.summary = "hard-link a random existing file under a new name, in a directory of N entries",
	.op_desc = "linkat(e<i> -> l<k>), same directory; the link is unlinked untimed",
	.needs = NEED_DIR, .quick_max_n = 10000, .default_max_n = 100000, .full_max_n = 1000000,
	.max_batch = FSDIR_SLOTS, .space_mib = 64, .setup = fsdir_setup, .grow = fsdir_grow, .prep = prep,
	.op = op, .undo = fsdir_unlink_to, .teardown = fsdir_teardown,
};
