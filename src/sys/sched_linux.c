/* SPDX-License-Identifier: MIT */
/* CPU placement on Linux: sched_setaffinity and sched_getcpu. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sys.h"

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
