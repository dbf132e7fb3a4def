/* SPDX-License-Identifier: MIT */
/* Noise floors from the history: the earlier runs of one host, kernel and
 * file system, read back one at a time through the backend-neutral
 * interface (db_list, db_get_result), so SQLite and PostgreSQL behave
 * alike. */
#include "cmd/noisedb.h"

#include <stdlib.h>
#include <string.h>

struct ids {
	int64_t *v;
	int n, cap;
	const char *before;
};

static int collect(void *ctx, const struct db_run *m)
{
	struct ids *c = ctx;
	if (c->before && strcmp(m->started, c->before) > 0)
		return 0; /* later than the new run (same second: see same_run) */
	if (m->interrupted)
		return 0;
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 16;
		int64_t *v = realloc(c->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = m->id;
	return 0;
}

static int same_str(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* The new run itself, stored by its own `run`: same start, end and
 * duration (started has whole seconds, so it alone cannot tell). */
static int same_run(const struct run_result *a, const struct run_result *b)
{
	return b && same_str(a->started, b->started) && same_str(a->finished, b->finished) &&
	       a->duration_s == b->duration_s && same_str(a->host, b->host);
}

int noise_from_db(struct db *d, const struct db_filter *f, const struct run_result *self,
		  struct noise_set *s, int *nruns, char *err, size_t errlen)
{
	struct ids c = {.before = self && self->started && *self->started ? self->started : NULL};
	*nruns = 0;
	if (db_list(d, f, collect, &c, err, errlen)) {
		free(c.v);
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < c.n && !rc; i++) {
		struct run_result r;
		if (db_get_result(d, c.v[i], &r, NULL, err, errlen)) {
			rc = -1;
			break;
		}
		if (same_run(&r, self)) {
			result_free(&r);
			continue;
		}
		if (noise_add_run(s, &r)) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		}
		result_free(&r);
		++*nruns;
	}
	free(c.v);
	if (!rc)
		noise_finish(s);
	return rc;
}

int noise_for_result(const char *dbspec, const struct run_result *b, struct noise_set *s,
		     int *nruns, char *err, size_t errlen)
{
	struct db *d;
	struct db_run m;
	db_run_meta(b, &m);
	if (db_open(dbspec, DB_READ, &d, err, errlen))
		return -1;
	struct db_filter f = {.host = m.host, .kernel = *m.kernel ? m.kernel : NULL,
			      .fs_type = *m.fs_type ? m.fs_type : NULL};
	int rc = noise_from_db(d, &f, b, s, nruns, err, errlen);
	db_close(d);
	return rc;
}
