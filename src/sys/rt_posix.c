/* SPDX-License-Identifier: MIT */
/* Real-time measurement through POSIX alone: the online CPUs are counted
 * (sysconf), nothing can be pinned, held or traced. */
#include "sys/sys.h"
#include "sys/sys_common.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int sys_cpus_online(unsigned char *set, int max)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		return -ENOSYS;
	memset(set, 0, (size_t)max);
	for (long c = 0; c < n && c < max; c++)
		set[c] = 1;
	return (int)(n < max ? n : max);
}

int sys_pin_thread(int cpu)
{
	(void)cpu;
	return -ENOSYS;
}

int sys_pin_set(const unsigned char *set, int max)
{
	(void)set;
	(void)max;
	return -ENOSYS;
}

int sys_get_pinned(unsigned char *set, int max)
{
	(void)set;
	(void)max;
	return -ENOSYS;
}

int sys_dma_latency_hold(void) { return -ENOSYS; }

int sys_rttime_limit(uint64_t soft_us, uint64_t hard_us, uint64_t old[2])
{
	(void)soft_us;
	(void)hard_us;
	old[0] = old[1] = 0;
	return -ENOSYS;
}

int sys_rttime_restore(const uint64_t old[2])
{
	(void)old;
	return -ENOSYS;
}

json_t *sys_rt_json(void) { return sb_unavailable(SB_NOT_POSIX); }

int sys_trace_open(struct sys_trace *t, const char *mnt_parent)
{
	(void)mnt_parent;
	memset(t, 0, sizeof(*t));
	t->on_fd = -1;
	t->info = sb_unavailable("tracing: " SB_NOT_POSIX);
	return -ENOSYS;
}

void sys_trace_stop(const struct sys_trace *t) { (void)t; }

json_t *sys_trace_tail(const struct sys_trace *t, int lines)
{
	(void)lines;
	return t->info ? json_incref(t->info) : sb_unavailable(SB_NOT_POSIX);
}

void sys_trace_close(struct sys_trace *t)
{
	json_decref(t->info);
	t->info = NULL;
}
