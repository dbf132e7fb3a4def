/* SPDX-License-Identifier: MIT */
/* perf.h where there is no perf_event_open: profiling is unavailable. */
#include "sys/perf.h"

#include <errno.h>
#include <stdio.h>

int sys_perf_open(pid_t pid, uint64_t period_ns, size_t buf_kib, struct sys_perf **out,
		  char *why, size_t whylen)
{
	(void)pid;
	(void)period_ns;
	(void)buf_kib;
	*out = NULL;
	snprintf(why, whylen, "not Linux: no perf_event_open in this build");
	return -ENOSYS;
}

const char *sys_perf_event(const struct sys_perf *p)
{
	(void)p;
	return "none";
}

void sys_perf_all(int on) { (void)on; }

size_t sys_perf_pending(const struct sys_perf *p)
{
	(void)p;
	return 0;
}

void sys_perf_drain(struct sys_perf *p, void (*fn)(void *ctx, const struct sys_perf_sample *s),
		    void *ctx, uint64_t *lost)
{
	(void)p;
	(void)fn;
	(void)ctx;
	(void)lost;
}

uint64_t sys_perf_running_ns(const struct sys_perf *p)
{
	(void)p;
	return 0;
}

void sys_perf_close(struct sys_perf *p) { (void)p; }

char *sys_kallsyms(char *why, size_t whylen)
{
	snprintf(why, whylen, "not Linux: no kernel symbol table");
	return NULL;
}

uint64_t sys_kmodules_hash(void) { return 0; }

char *sys_maps(pid_t pid)
{
	(void)pid;
	return NULL;
}
