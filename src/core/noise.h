/* SPDX-License-Identifier: MIT */
/* The noise floor of each bench from earlier runs: see noise.c. */
#ifndef SB_NOISE_H
#define SB_NOISE_H

#include "core/compare.h"
#include "core/result.h"

struct noise_acc; /* per bench: the runs' values per N */

struct noise_set {
	struct cmp_floor *floors; /* after noise_finish: one per bench and version */
	int n;
	struct noise_acc *acc;
	int nadded; /* earlier runs added */
};

/* Adds every bench of r (one earlier run) to s. 0, or -1 out of memory. */
int noise_add_run(struct noise_set *s, const struct run_result *r);
/* Computes each bench's spread over the runs added. */
void noise_finish(struct noise_set *s);
void noise_free(struct noise_set *s);
/* The floor of key at version, or NULL when no run had it. */
const struct cmp_floor *noise_find(const struct noise_set *s, const char *key, int version);
/* The sample standard deviation of x[0..n); NAN when n < 2. */
double noise_spread(const double *x, int n);

#endif
