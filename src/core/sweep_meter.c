/* SPDX-License-Identifier: MIT */
/* The meter, for benches that report their own completions (run(),
 * bench.h): a completion's latency into the point's histogram, its ops
 * and bytes per interval into the series; meter_stop says when the point
 * ends (budget, the median's CI, a signal). measure_run (sweep.c) sets it
 * up and reads it. */
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/profile.h"
#include "core/registry.h"
#include "core/sweep_int.h"

#define MAX_SERIES 100000

uint64_t meter_now(void) { return clock_ns(); }

void meter_done(struct meter *m, uint64_t issued_ns, uint64_t bytes)
{
	meter_done_at(m, issued_ns, clock_ns(), bytes);
}

void meter_done_at(struct meter *m, uint64_t issued_ns, uint64_t now, uint64_t bytes)
{
	if (now < m->start)
		now = m->start;
	hist_add(m->h, now > issued_ns ? (double)(now - issued_ns) : 0.0);
	m->ops++;
	m->bytes += bytes;
	uint64_t i = (now - m->start) / m->interval_ns;
	if (i >= MAX_SERIES)
		return;
	if ((int)i >= m->capseries) {
		int nc = m->capseries ? m->capseries : 64;
		while (nc <= (int)i)
			nc *= 2;
		double *a = realloc(m->s_ops, (size_t)nc * sizeof(*a));
		if (a)
			m->s_ops = a;
		double *b = realloc(m->s_bytes, (size_t)nc * sizeof(*b));
		if (b)
			m->s_bytes = b;
		if (!a || !b)
			return;
		memset(m->s_ops + m->capseries, 0, (size_t)(nc - m->capseries) * sizeof(double));
		memset(m->s_bytes + m->capseries, 0, (size_t)(nc - m->capseries) * sizeof(double));
		m->capseries = nc;
	}
	m->s_ops[i] += 1;
	m->s_bytes[i] += (double)bytes;
	if ((int)i + 1 > m->nseries)
		m->nseries = (int)i + 1;
}

int meter_stop(struct meter *m)
{
	if (m->stopped)
		return 1;
	if (reg_stop_requested()) {
		m->stop = STOP_INTERRUPT;
		return m->stopped = 1;
	}
	uint64_t now = clock_ns();
	if ((now >= m->deadline || profile_enough(m->prof)) &&
	    (m->h->count > 0 || now >= m->hard_deadline)) {
		m->stop = STOP_BUDGET;
		return m->stopped = 1;
	}
	if (!m->no_ci && m->h->count >= m->next_check) {
		if (hist_median_ci_rel(m->h) <= m->o->ci_target) {
			m->stop = STOP_CI;
			return m->stopped = 1;
		}
		m->next_check = m->h->count + m->h->count / 4 + 1;
	}
	return 0;
}

void meter_extra(struct meter *m, const char *key, json_t *value)
{
	if (!value)
		return;
	if (!m->extra)
		m->extra = json_object();
	json_object_set_new(m->extra, key, value);
}
