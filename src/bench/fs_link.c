/* fs.link: make a hard link to a random existing file, in a directory of N
 * entries. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "fsdir.h"

struct st {
	struct fsdir d; /* first: the fsdir helpers take the state as a struct fsdir */
	char to[FSDIR_SLOTS][24];
	uint64_t links;
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
	fsdir_pick_existing(state, slot);
	snprintf(s->to[slot], sizeof(s->to[slot]), "l%llu", (unsigned long long)s->links++);
	return 0;
}

static int op(void *state, unsigned slot)
{
	struct st *s = state;
	int fd = s->d.env->dirfd;
	if (linkat(fd, s->d.name[slot], fd, s->to[slot], 0))
		return bench_fail(s->d.env, "linkat");
	return 0;
}

static int undo(void *state, unsigned slot)
{
	struct st *s = state;
	if (unlinkat(s->d.env->dirfd, s->to[slot], 0))
		return bench_fail(s->d.env, "unlinkat");
	return 0;
}

const struct bench bench_fs_link = {
	.name = "fs.link", .version = 1, .axis = "entries in the directory",
	.summary = "hard-link a random existing file under a new name, in a directory of N entries",
	.op_desc = "linkat(e<i> -> l<k>), same directory; the link is unlinked untimed",
	.needs = NEED_DIR, .quick_max_n = 10000, .default_max_n = 100000, .full_max_n = 1000000,
	.max_batch = FSDIR_SLOTS, .space_mib = 64, .setup = setup, .grow = fsdir_grow, .prep = prep,
	.op = op, .undo = undo, .teardown = fsdir_teardown,
};
