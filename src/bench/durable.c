/* SPDX-License-Identifier: MIT */
/* Durability and writeback figures of a workload phase: see durable.h. */
#include "bench/durable.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "core/bench.h"

void durable_begin(struct durable *d)
{
	memset(d, 0, sizeof(*d));
	sys_writeback(&d->start);
	d->t0 = meter_now();
}

int durable_end(struct durable *d, int dirfd)
{
	sys_writeback(&d->presync);
	d->t_sync = meter_now();
	int rc = sys_syncfs(dirfd);
	d->t_end = meter_now();
	sys_writeback(&d->end);
	d->sync_err = -rc;
	if (rc)
		errno = -rc;
	return rc;
}

/* b - a times unit (the page size for page counters), or null if unknown. */
static json_t *delta(long long a, long long b, long long unit)
{
	return a >= 0 && b >= 0 && b >= a ? json_integer((b - a) * unit) : json_null();
}

static json_t *known(long long v) { return v >= 0 ? json_integer(v) : json_null(); }

static json_t *fit(unsigned long long cap, uint64_t bytes)
{
	if (!cap)
		return json_null();
	return json_real(bytes && cap < bytes ? (double)cap / (double)bytes : 1.0);
}

json_t *durable_json(const struct durable *d, uint64_t dataset_bytes)
{
	unsigned long long limit, background;
	json_t *lim = sys_dirty_limits(&limit, &background);
	const struct sys_wb *a = &d->start, *p = &d->presync, *e = &d->end;
	long long page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
	unsigned long long cg = e->cg_limit > 0 ? (unsigned long long)e->cg_limit : 0;
	json_t *o = json_pack("{s:I,s:f,s:f,s:f,s:o,s:{s:o,s:o,s:o},s:{s:o,s:o,s:o,s:o}}",
		"dataset_bytes", (json_int_t)dataset_bytes,
		"write_s", (double)(d->t_sync - d->t0) / 1e9,
		"sync_s", (double)(d->t_end - d->t_sync) / 1e9,
		"durable_s", (double)(d->t_end - d->t0) / 1e9,
		"dirty_limits", lim,
		"fit", "dirty_limit", fit(limit, dataset_bytes), "background",
		fit(background, dataset_bytes), "cgroup_limit", fit(cg, dataset_bytes),
		"system", "written_in_phase_bytes", delta(a->written_pages, p->written_pages, page),
		"written_by_sync_bytes", delta(p->written_pages, e->written_pages, page),
		"dirty_at_sync_bytes", known(p->dirty), "writeback_at_sync_bytes", known(p->writeback));
	if (o && e->cg_version && e->cg_limit > 0)
		json_object_set_new(o, "cgroup", json_pack("{s:i,s:I,s:o,s:o,s:o}", "version",
			e->cg_version, "limit_bytes", (json_int_t)e->cg_limit, "limit_hits",
			delta(a->cg_limit_hits, e->cg_limit_hits, 1), "dirty_at_sync_bytes",
			known(p->cg_dirty), "writeback_at_sync_bytes", known(p->cg_writeback)));
	if (o && d->sync_err)
		json_object_set_new(o, "sync_error", json_string(strerror(d->sync_err)));
	return o;
}
