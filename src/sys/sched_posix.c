/* SPDX-License-Identifier: MIT */
/* CPU placement through POSIX alone: there is no affinity interface. */
#include <math.h>
#include <stdio.h>
#include "sys/sys.h"

int sys_set_cpus(const char *list, char *err, size_t errlen)
{
	snprintf(err, errlen, "--cpus %s: CPU pinning is not available through POSIX interfaces", list);
	return -1;
}

int sys_current_cpu(void) { return -1; }

int sys_task_list(int pid, int *tids, int max)
{
	(void)pid;
	(void)tids;
	(void)max;
	return -1;
}

int sys_thread_id(void) { return -1; }

int sys_task_where(int pid, int tid, int *cpu, long *migrations)
{
	(void)pid;
	(void)tid;
	*cpu = -1;
	*migrations = -1;
	return -1;
}

int sys_task_sched(int pid, int tid, double *run_s, double *wait_s)
{
	(void)pid;
	(void)tid;
	*run_s = *wait_s = NAN;
	return -1;
}

/* getrusage counts per process only in POSIX */
int sys_thread_counters(void) { return 0; }

double sys_thread_cpu_s(void) { return NAN; }

int sys_thread_rusage(struct rusage *ru)
{
	(void)ru;
	return -1;
}
