/* fs.rename: rename a file to a new name within a directory of N entries. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
#include "fsdir.h"

struct st {
	struct fsdir d; /* first: the fsdir helpers take the state as a struct fsdir */
	char to[FSDIR_SLOTS][24];
};

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->d.env = env;
	s->d.rng = 0x9e3779b97f4a7c15ull;
	*state = s;
	return 0;
}

static int prep(void *state, unsigned slot)
{
	struct st *s = state;
	int rc = fsdir_create_probe(state, slot); /* p<k>, created untimed */
	char *to = s->to[slot];
	size_t len = strlen(s->d.name[slot]);
	memcpy(to, s->d.name[slot], len + 1); /* the same name with r for p */
	to[0] = 'r';
	return rc;
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	int fd = s->d.env->dirfd;
	if (renameat(fd, s->d.name[slot], fd, s->to[slot]))
		return bench_fail(s->d.env, "renameat");
	return 0;
}

static int undo(void *state, unsigned slot)
{
	struct st *s = state;
	if (unlinkat(s->d.env->dirfd, s->to[slot], 0))
		return bench_fail(s->d.env, "unlinkat");
	return 0;
}

const struct bench bench_fs_rename = {
	.name = "fs.rename", .version = 1, .axis = "entries in the directory",
	.summary = "rename a file to a new name within a directory already holding N entries",
	.op_desc = "renameat(p<k> -> r<k>), same directory; p<k> is created and r<k> unlinked untimed",
	.needs = NEED_DIR, .quick_max_n = 10000, .default_max_n = 100000, .full_max_n = 1000000,
	.max_batch = FSDIR_SLOTS, .space_mib = 64, .setup = setup, .grow = fsdir_grow, .prep = prep,
	.op = op, .undo = undo, .teardown = fsdir_teardown,
};
