/* SPDX-License-Identifier: MIT */
/* Clock calibration. The cost of a read is the median, over 15 trials, of
 * the mean time per read of 2,000 back-to-back reads: the median throws
 * out trials hit by an interrupt or a migration. */
#include "core/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sys/sys.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void clock_calibrate(struct clock_info *ci)
{
	memset(ci, 0, sizeof(*ci));
	snprintf(ci->id, sizeof(ci->id), "CLOCK_MONOTONIC");
	sys_clock_source(ci->source, sizeof(ci->source));
	struct timespec res;
	if (clock_getres(CLOCK_MONOTONIC, &res) == 0)
		ci->resolution_ns = (double)res.tv_sec * 1e9 + (double)res.tv_nsec;
	enum { TRIALS = 15, READS = 2000 };
	double per[TRIALS];
	volatile uint64_t sink = 0;
	for (int t = 0; t < TRIALS; t++) {
		uint64_t t0 = clock_ns();
		for (int i = 0; i < READS; i++)
			sink += clock_ns();
		per[t] = (double)(clock_ns() - t0) / (READS + 1);
	}
	(void)sink;
	qsort(per, TRIALS, sizeof(per[0]), cmp_double);
	ci->read_cost_ns = per[TRIALS / 2];
}
