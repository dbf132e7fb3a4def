/* SPDX-License-Identifier: MIT */
/* fs.readdir: list a whole directory of N entries; the sample is the cost
 * per entry (the listing's time divided by N, env->per_op_units), so that
 * O(1) means a listing costs the same per entry at every size. */
#include <dirent.h>
#include <stdlib.h>
#include "bench/fsdir.h"

struct st {
	struct fsdir d; /* first: the fsdir helpers take the state as a struct fsdir */
	DIR *dir;
};

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->d.env = env;
	s->dir = opendir(env->dir);
	if (!s->dir) {
		int rc = bench_fail(env, "opendir");
		free(s);
		return rc;
	}
	*state = s;
	return 0;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	int rc = fsdir_grow(state, i);
	s->d.env->per_op_units = s->d.n;
	return rc;
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	uint64_t seen = 0;
	(void)slot;
	rewinddir(s->dir);
	errno = 0;
	while (readdir(s->dir))
		seen++;
	if (errno)
		return bench_fail(s->d.env, "readdir");
	if (seen < s->d.n) { /* "." and ".." may or may not be listed */
		errno = EIO;
		return bench_fail(s->d.env, "readdir (listing shorter than the directory)");
	}
	return 0;
}

static void teardown(void *state)
{
	struct st *s = state;
	closedir(s->dir);
	free(s);
}

const struct bench bench_fs_readdir = {
	.params = bench_no_params,
	.name = "fs.readdir", .version = 1, .axis = "entries in the directory", .axis_kind = AXIS_LOAD,
	.flags = BENCH_ONE_THREAD,
	.summary = "list a whole directory of N entries; cost per entry",
	.op_desc = "rewinddir + readdir to the end (getdents); the listing's time divided by N",
	.needs = NEED_DIR, .quick_max_n = 10000, .default_max_n = 100000, .full_max_n = 1000000,
	.max_batch = 1, .space_mib = 64, .setup = setup, .grow = grow, .op = op,
	.teardown = teardown,
};
