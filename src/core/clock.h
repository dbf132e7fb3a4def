/* SPDX-License-Identifier: MIT */
/* The clock every sample is read from: CLOCK_MONOTONIC, in whole ns. */
#ifndef SB_CLOCK_H
#define SB_CLOCK_H

#include <stdint.h>
#include <time.h>
#include "core/result.h"

static inline uint64_t clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Resolution, source and the median cost of one read; once per run. */
void clock_calibrate(struct clock_info *ci);

#endif
