/* SPDX-License-Identifier: MIT */
#include "fdhold.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>
#include "registry.h"

#define FD_MARGIN 64 /* descriptors kept free for the harness and the op */

void fdhold_raise_limit(struct bench_env *env, uint64_t need)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	rlim_t want = (rlim_t)(need + FD_MARGIN);
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		rlim_t old = rl.rlim_cur;
		rl.rlim_cur = (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want) ? want : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
			snprintf(env->note, sizeof(env->note),
				 "raised RLIMIT_NOFILE soft limit from %llu to %llu%s",
				 (unsigned long long)old, (unsigned long long)rl.rlim_cur,
				 rl.rlim_cur < want ? " (the hard limit): the sweep will stop there" : "");
	}
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want && !env->note[0])
		snprintf(env->note, sizeof(env->note),
			 "RLIMIT_NOFILE hard limit %llu is below the %llu descriptors the sweep needs",
			 (unsigned long long)rl.rlim_max, (unsigned long long)want);
}

int fdhold_add(struct fdhold *h, int fd)
{
	if (h->n == h->cap) {
		uint64_t nc = h->cap ? h->cap * 2 : 1024;
		int *p = realloc(h->fd, nc * sizeof(*p));
		if (!p) {
			close(fd);
			errno = ENOMEM;
			return bench_fail(h->env, "realloc");
		}
		h->fd = p;
		h->cap = nc;
	}
	if (reg_add_fd(fd)) {
		close(fd);
		errno = ENOMEM;
		return bench_fail(h->env, "registry");
	}
	h->fd[h->n++] = fd;
	return 0;
}

void fdhold_release(struct fdhold *h)
{
	for (uint64_t i = h->n; i-- > 0;)
		reg_close_fd(h->fd[i]);
	free(h->fd);
	h->fd = NULL;
	h->n = h->cap = 0;
}
