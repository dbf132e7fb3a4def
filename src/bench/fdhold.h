/* SPDX-License-Identifier: MIT */
/* Shared by benches whose load is N open descriptors (net.*): raise the
 * soft RLIMIT_NOFILE toward the hard limit when the sweep needs it (and
 * say so in a note), and hold descriptors registered for cleanup. */
#ifndef SB_FDHOLD_H
#define SB_FDHOLD_H

#include <stdint.h>
#include "core/bench.h"

struct fdhold {
	struct bench_env *env;
	int *fd;
	uint64_t n, cap;
};

/* Raise the soft limit so that need more descriptors fit, up to the hard
 * limit; writes a note when it changed or when the hard limit is short. */
void fdhold_raise_limit(struct bench_env *env, uint64_t need);
int fdhold_add(struct fdhold *h, int fd); /* takes ownership; closes fd on failure */
void fdhold_release(struct fdhold *h);   /* close all, newest first */

#endif
