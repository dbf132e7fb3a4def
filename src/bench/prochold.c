/* SPDX-License-Identifier: MIT */
#include "bench/prochold.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/registry.h"
#include "sys/sys.h"

void prochold_sleep(pid_t parent, int ready)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	int dies = sys_child_dies_with_parent();
	if (ready >= 0) {
		char c = 1;
		while (write(ready, &c, 1) < 0 && errno == EINTR)
			;
	}
	if (dies && getppid() == parent)
		for (;;)
			pause();
	while (getppid() == parent)
		sleep(1);
	_exit(0);
}

int prochold_add(struct prochold *h)
{
	if (h->n == h->cap) {
		uint64_t nc = h->cap ? h->cap * 2 : 256;
		pid_t *p = realloc(h->kids, nc * sizeof(*p));
		if (!p)
			return bench_fail(h->env, "realloc");
		h->kids = p;
		h->cap = nc;
	}
	pid_t parent = getpid(), pid = fork();
	if (pid < 0)
		return bench_fail(h->env, "fork (sleeper)");
	if (pid == 0)
		prochold_sleep(parent, -1);
	if (reg_add_pid(pid)) { /* it killed and reaped the sleeper */
		errno = ENOMEM;
		return bench_fail(h->env, "registry");
	}
	h->kids[h->n++] = pid;
	return 0;
}

void prochold_release(struct prochold *h)
{
	for (uint64_t i = 0; i < h->n; i++)
		kill(h->kids[i], SIGKILL);
	for (uint64_t i = h->n; i-- > 0;) { /* newest first: the registry finds it at once */
		while (waitpid(h->kids[i], NULL, 0) < 0 && errno == EINTR)
			;
		reg_forget_pid(h->kids[i]);
	}
	free(h->kids);
	h->kids = NULL;
	h->n = h->cap = 0;
}
