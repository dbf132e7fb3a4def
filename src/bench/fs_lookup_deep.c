/* SPDX-License-Identifier: MIT */
/* fs.lookup-deep: stat a directory N levels down a chain of directories
 * d/d/.../d: the cost of path lookup by depth. The chain is removed by the
 * bench itself, deepest first (a recursive removal would hold N
 * descriptors). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/bench.h"

#define MAX_DEPTH 2000 /* 2 bytes per level: within PATH_MAX (4096) */

struct st {
	struct bench_env *env;
	uint64_t depth;
	char path[2 * MAX_DEPTH + 2];
};

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->env = env;
	*state = s;
	return 0;
}

static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	if (i >= MAX_DEPTH) {
		errno = ENAMETOOLONG;
		return bench_fail(s->env, "mkdirat (deeper than 2000 levels)");
	}
	memcpy(s->path + (i ? 2 * i - 1 : 0), i ? "/d" : "d", i ? 3 : 2);
	if (mkdirat(s->env->dirfd, i ? s->path : "d", BENCH_DIR_MODE))
		return bench_fail(s->env, "mkdirat");
	s->depth = i + 1;
	return 0;
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	struct stat st;
	(void)slot;
	if (fstatat(s->env->dirfd, s->path, &st, 0))
		return bench_fail(s->env, "fstatat");
	return 0;
}

static void teardown(void *state)
{
	struct st *s = state;
	for (uint64_t k = s->depth; k > 0; k--) { /* path of level k is 2k-1 bytes */
		s->path[2 * k - 1] = 0;
		unlinkat(s->env->dirfd, s->path, AT_REMOVEDIR);
	}
	free(s);
}

const struct bench bench_fs_lookup_deep = {
	.params = bench_no_params,
	.name = "fs.lookup-deep", .version = 1, .axis = "depth of the path (directories)", .axis_kind = AXIS_LOAD,
	.flags = BENCH_ONE_THREAD,
	.summary = "stat a directory N levels down a chain d/d/.../d",
	.op_desc = "fstatat of a relative path of N components",
	.needs = NEED_DIR, .quick_max_n = 100, .default_max_n = 1000, .full_max_n = 2000,
	.max_batch = 64, .space_mib = 16, .setup = setup, .grow = grow, .op = op,
	.teardown = teardown,
};
