/* SPDX-License-Identifier: MIT */
/* For unit tests that sweep one bench into a struct bench_result of their
 * own: free it as result_free frees a run's benches. */
#ifndef SB_T_RESULT_H
#define SB_T_RESULT_H

#include <stdlib.h>
#include "core/result.h"

static inline void free_br(struct bench_result *br)
{
	struct run_result r = {0};
	r.benches = malloc(sizeof(*br));
	r.benches[0] = *br;
	r.nbenches = 1;
	result_free(&r);
}

#endif
