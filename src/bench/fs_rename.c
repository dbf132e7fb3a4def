/* SPDX-License-Identifier: MIT */
/* fs.rename: rename a file to a new name within a directory of N entries. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
#include "bench/fsdir.h"

static int prep(void *state, unsigned slot)
{
	struct fsdir *d = state;
	int rc = fsdir_create_probe(state, slot); /* p<k>, created untimed */
	char *to = d->to[slot];
	size_t len = strlen(d->name[slot]);
	memcpy(to, d->name[slot], len + 1); /* the same name with r for p */
	to[0] = 'r';
	return rc;
}

static int op(void *state, unsigned slot)
{
	struct fsdir *d = state;
	int fd = d->env->dirfd;
	if (renameat(fd, d->name[slot], fd, d->to[slot]))
		return bench_fail(d->env, "renameat");
	return 0;
}

const struct bench bench_fs_rename = {
	.params = bench_no_params,
	.name = "fs.rename", .version = 1, .axis = "entries in the directory", .axis_kind = AXIS_LOAD,
	.flags = BENCH_ONE_THREAD,
	.summary = "rename a file to a new name within a directory already holding N entries",
	.op_desc = "renameat(p<k> -> r<k>), same directory; p<k> is created and r<k> unlinked untimed",
	.needs = NEED_DIR, .tasks = BENCH_TASKS_DIR, .quick_max_n = 10000, .default_max_n = 100000, .full_max_n = 1000000,
	.max_batch = FSDIR_SLOTS, .space_mib = 64, .setup = fsdir_setup, .grow = fsdir_grow, .prep = prep,
	.op = op, .undo = fsdir_unlink_to, .teardown = fsdir_teardown,
};
