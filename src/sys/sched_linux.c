/* SPDX-License-Identifier: MIT */
/* CPU placement on Linux: sched_setaffinity and sched_getcpu. */
#include <dirent.h>
#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <math.h>
#include <sched.h>
#include <sys/resource.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sys/sys.h"

int sys_set_cpus(const char *list, char *err, size_t errlen)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	const char *p = list;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;
		if (end == p || a < 0 || a >= CPU_SETSIZE)
			goto bad;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b >= CPU_SETSIZE)
				goto bad;
		}
		for (long c = a; c <= b; c++)
			CPU_SET((int)c, &set);
		if (*end == ',')
			end++;
		else if (*end)
			goto bad;
		p = end;
	}
	if (CPU_COUNT(&set) == 0)
		goto bad;
	if (sched_setaffinity(0, sizeof(set), &set)) {
		snprintf(err, errlen, "--cpus %s: %s", list, strerror(errno));
		return -1;
	}
	return 0;
bad:
	snprintf(err, errlen, "--cpus '%s': not a CPU list such as 0 or 0,2 or 0-1", list);
	return -1;
}

int sys_current_cpu(void) { return sched_getcpu(); }

int sys_task_list(int pid, int *tids, int max)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while (n < max && (e = readdir(d)))
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			tids[n++] = atoi(e->d_name);
	closedir(d);
	return n;
}

int sys_thread_id(void) { return (int)syscall(SYS_gettid); }

int sys_task_where(int pid, int tid, int *cpu, long *migrations)
{
	char path[96], buf[1024];
	*cpu = -1;
	*migrations = -1;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = 0;
	char *p = strrchr(buf, ')'); /* the name may hold spaces: count fields after it */
	for (int field = 2; p && *p; p++) /* field 39: processor */
		if (*p == ' ' && ++field == 39) {
			*cpu = atoi(p + 1);
			break;
		}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", pid, tid);
	if ((f = fopen(path, "r"))) { /* kernels with CONFIG_SCHED_DEBUG */
		while (fgets(buf, sizeof(buf), f))
			if (!strncmp(buf, "se.nr_migrations", 16)) {
				char *c = strchr(buf, ':');
				if (c)
					*migrations = atol(c + 1);
				break;
			}
		fclose(f);
	}
	return 0;
}

int sys_task_sched(int pid, int tid, double *run_s, double *wait_s)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	unsigned long long run, wait;
	int got = fscanf(f, "%llu %llu", &run, &wait);
	fclose(f);
	if (got != 2)
		return -1;
	*run_s = (double)run / 1e9;
	*wait_s = (double)wait / 1e9;
	return 0;
}

int sys_thread_counters(void) { return 1; }

double sys_thread_cpu_s(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return NAN;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int sys_thread_rusage(struct rusage *ru) { return getrusage(RUSAGE_THREAD, ru) ? -1 : 0; }
