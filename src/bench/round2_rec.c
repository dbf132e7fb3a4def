/* SPDX-License-Identifier: MIT */
/* work.round2: the phase records (round2.h). */
#if defined(HAVE_LIBARCHIVE) && !defined(SB_POSIX_ONLY)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/hist.h"
#include "bench/round2.h"
#include "sys/sys.h"

/* ---- what the kernel was doing: dirty and writeback pages, the journal
 * (src/sys/: sys_dirty_kib, sys_jbd2_find, sys_jbd2_info) ---- */

/* /proc/fs/jbd2/<dev>-8/info of the target's block device, or "" */
void r2_find_jbd2(struct st *s)
{
	sys_jbd2_find(s->env->dirfd, s->jbd2, sizeof(s->jbd2));
}

json_t *r2_jbd2_read(const struct st *s)
{
	return sys_jbd2_info(s->jbd2);
}

static unsigned long long jbd2_transactions(json_t *info)
{
	unsigned long long t = 0;
	if (json_array_size(info))
		sscanf(json_string_value(json_array_get(info, 0)), "%llu transactions", &t);
	return t;
}

/* ---- per-phase record ---- */
static int rec_grow(struct rec *r, int i)
{
	if (i < r->capint)
		return 0;
	if (i >= 1000000)
		return -1;
	int nc = r->capint ? r->capint : 64;
	while (nc <= i)
		nc *= 2;
	double *c = realloc(r->cnt, (size_t)nc * sizeof(*c));
	if (c)
		r->cnt = c;
	uint64_t *d = realloc(r->dirty, (size_t)nc * sizeof(*d));
	if (d)
		r->dirty = d;
	uint64_t *w = realloc(r->wb, (size_t)nc * sizeof(*w));
	if (w)
		r->wb = w;
	if (!c || !d || !w)
		return -1;
	memset(r->cnt + r->capint, 0, (size_t)(nc - r->capint) * sizeof(*c));
	memset(r->dirty + r->capint, 0xff, (size_t)(nc - r->capint) * sizeof(*d));
	memset(r->wb + r->capint, 0, (size_t)(nc - r->capint) * sizeof(*w));
	r->capint = nc;
	return 0;
}

/* One completion; under s->lock. issued: for the meter and the latency. */
void r2_record(struct st *s, struct rec *r, uint64_t issued, uint64_t now, uint64_t bytes)
{
	meter_done(s->m, issued, bytes);
	if (r->h)
		hist_add(r->h, (double)(now - issued));
	if (now - r->last >= s->stall_ns && r->files) {
		uint64_t d, w;
		sys_dirty_kib(&d, &w);
		json_array_append_new(s->findings,
			json_pack("{s:s,s:s,s:f,s:f,s:s,s:I,s:I}", "finding", "stall", "phase", r->phase,
				  "at_s", (double)(r->last - r->t0) / 1e9, "length_s",
				  (double)(now - r->last) / 1e9, "what", "nothing completed",
				  "dirty_kib", (json_int_t)d, "writeback_kib", (json_int_t)w));
	}
	r->last = now;
	r->files++;
	r->bytes += bytes;
	int i = (int)((now - r->t0) / s->interval_ns);
	if (rec_grow(r, i))
		return;
	if (r->dirty[i] == UINT64_MAX) { /* first completion in this interval */
		sys_dirty_kib(&r->dirty[i], &r->wb[i]);
		r->dirty_max = r->dirty[i] > r->dirty_max ? r->dirty[i] : r->dirty_max;
		r->wb_max = r->wb[i] > r->wb_max ? r->wb[i] : r->wb_max;
	}
	r->cnt[i]++;
	if (i + 1 > r->nint)
		r->nint = i + 1;
}

void r2_phase_begin(struct rec *r, const char *name, int http)
{
	memset(r, 0, sizeof(*r));
	r->phase = name;
	if (http)
		r->h = hist_new();
	r->t0 = r->last = meter_now();
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

json_t *r2_phase_end(struct st *s, struct rec *r, json_t *jbd0)
{
	uint64_t end = meter_now();
	double secs = (double)(end - r->t0) / 1e9, iv = (double)s->interval_ns / 1e9;
	json_t *series = json_array(), *o;
	double *sorted = malloc((size_t)(r->nint ? r->nint : 1) * sizeof(double));
	int full = r->nint > 1 ? r->nint - 1 : 0; /* the last interval is partial */
	for (int i = 0; i < r->nint; i++)
		json_array_append_new(series, json_real(r->cnt[i] / iv));
	if (sorted && full >= 5) {
		memcpy(sorted, r->cnt, (size_t)full * sizeof(double));
		qsort(sorted, (size_t)full, sizeof(double), cmp_d);
		double med = sorted[full / 2];
		for (int i = 0; i < full; i++) {
			if (!(r->cnt[i] < 0.1 * med))
				continue;
			int j = i;
			double low = r->cnt[i];
			uint64_t d = 0, w = 0;
			for (; j < full && r->cnt[j] < 0.1 * med; j++) {
				low = r->cnt[j] < low ? r->cnt[j] : low;
				if (r->dirty[j] != UINT64_MAX) {
					d = r->dirty[j] > d ? r->dirty[j] : d;
					w = r->wb[j] > w ? r->wb[j] : w;
				}
			}
			json_array_append_new(s->findings,
				json_pack("{s:s,s:s,s:f,s:f,s:f,s:f,s:I,s:I}", "finding", "dip", "phase",
					  r->phase, "at_s", i * iv, "length_s", (j - i) * iv, "lowest_per_s",
					  low / iv, "median_per_s", med / iv, "dirty_kib", (json_int_t)d,
					  "writeback_kib", (json_int_t)w));
			i = j;
		}
	}
	free(sorted);
	o = json_pack("{s:I,s:I,s:f,s:f,s:f,s:f,s:o,s:I,s:I}", "files", (json_int_t)r->files,
		      "bytes", (json_int_t)r->bytes, "seconds", secs, "files_s",
		      secs > 0 ? (double)r->files / secs : 0.0, "mib_s",
		      secs > 0 ? (double)r->bytes / (1 << 20) / secs : 0.0, "interval_s", iv,
		      "files_s_series", series, "dirty_kib_max", (json_int_t)r->dirty_max,
		      "writeback_kib_max", (json_int_t)r->wb_max);
	if (r->h) {
		json_object_set_new(o, "requests_s", json_real(secs > 0 ? (double)r->files / secs : 0));
		json_object_set_new(o, "p50_us", json_real(r->h->count ? hist_quantile(r->h, 0.5) / 1e3 : 0));
		json_object_set_new(o, "p99_us", json_real(r->h->count ? hist_quantile(r->h, 0.99) / 1e3 : 0));
		json_object_set_new(o, "p999_us", json_real(r->h->count ? hist_quantile(r->h, 0.999) / 1e3 : 0));
		json_object_set_new(o, "max_us", json_real(r->h->count ? r->h->max / 1e3 : 0));
		json_object_set_new(o, "errors", json_integer((json_int_t)r->errors));
	}
	json_t *jbd1 = r2_jbd2_read(s);
	if (jbd1) {
		json_object_set_new(o, "jbd2_transactions",
				    json_integer((json_int_t)(jbd2_transactions(jbd1) - jbd2_transactions(jbd0))));
		json_object_set_new(o, "jbd2_info", jbd1);
	}
	json_decref(jbd0);
	free(r->cnt);
	free(r->dirty);
	free(r->wb);
	hist_free(r->h);
	memset(r, 0, sizeof(*r));
	return o;
}
#endif
