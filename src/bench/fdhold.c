/* SPDX-License-Identifier: MIT */
#include "bench/fdhold.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "core/registry.h"
#include "sys/sys.h"

#define FD_MARGIN 64 /* descriptors kept free for the harness and the op */

void fdhold_raise_limit(struct bench_env *env, uint64_t need)
{
	struct sys_nofile nf;
	if (sys_nofile_get(&nf))
		return;
	uint64_t want = need + FD_MARGIN;
	if (nf.soft < want && sys_nofile_raise(want, &nf) == 0)
		snprintf(env->note, sizeof(env->note),
			 "raised RLIMIT_NOFILE soft limit from %llu to %llu%s",
			 (unsigned long long)nf.old, (unsigned long long)nf.soft,
			 nf.soft < want ? " (the hard limit): the sweep will stop there" : "");
	if (nf.hard < want && !env->note[0])
		snprintf(env->note, sizeof(env->note),
			 "RLIMIT_NOFILE hard limit %llu is below the %llu descriptors the sweep needs",
			 (unsigned long long)nf.hard, (unsigned long long)want);
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
	if (reg_add_fd(fd)) { /* it closed fd */
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
