/* SPDX-License-Identifier: MIT */
/* The load of the proc.* benches: N sleeping child processes, each
 * registered (so that Ctrl-C and a failure kill them) and dying with the
 * bench's process (prctl on Linux; elsewhere a sleeper notices within a
 * second that it was re-parented), killed and reaped newest first. */
#ifndef SB_PROCHOLD_H
#define SB_PROCHOLD_H

#include <stdint.h>
#include <sys/types.h>
#include "core/bench.h"

struct prochold {
	struct bench_env *env;
	pid_t *kids;
	uint64_t n, cap;
};

/* Fork one more sleeper; 0, or the bench's failure. */
int prochold_add(struct prochold *h);
/* The body of a sleeper, in a child just forked by parent: never returns.
 * ready >= 0: one byte is written to it first (the child is running). */
void prochold_sleep(pid_t parent, int ready);
/* Kill and reap every sleeper, newest first. */
void prochold_release(struct prochold *h);

#endif
