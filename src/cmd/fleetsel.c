/* SPDX-License-Identifier: MIT */
/* The latest run of every host, from the history database (fleetsel.h). */
#include "cmd/fleetsel.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/db.h"

int fleetsel_check(const struct fleet_sel *s, int npos, int need_baseline, char *err,
		   size_t errlen)
{
	const char *without = s->baseline_host ? "--baseline-host" : s->bench ? "--bench"
			      : s->kernel ? "--kernel" : s->fs ? "--fs" : s->since ? "--since" : NULL;
	if (!s->latest) {
		if (without) {
			snprintf(err, errlen, "%s selects runs with --latest-per-host", without);
			return -1;
		}
		return 0;
	}
	if (npos) {
		snprintf(err, errlen, "--latest-per-host takes no RESULTs: it selects them");
		return -1;
	}
	if (need_baseline && !s->baseline_host) {
		snprintf(err, errlen, "--latest-per-host needs --baseline-host HOST: what to compare with");
		return -1;
	}
	if (s->since && (strlen(s->since) < 4 || s->since[0] < '0' || s->since[0] > '9')) {
		snprintf(err, errlen, "--since: '%s' is not a date such as 2026-12-01", s->since);
		return -1;
	}
	return 0;
}

struct pick {
	int64_t id;
	char host[128];
};

struct pick_ctx {
	struct pick *p;
	int n, over;
};

/* db_list gives runs newest first: the first row of a host is its latest. */
static int take(void *ctx, const struct db_run *m)
{
	struct pick_ctx *c = ctx;
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->p[i].host, m->host))
			return 0;
	if (c->n == FLEETSEL_MAX) {
		c->over = 1;
		return 1;
	}
	c->p[c->n].id = m->id;
	snprintf(c->p[c->n].host, sizeof(c->p[0].host), "%s", m->host);
	c->n++;
	return 0;
}

static const char *base_host;

static int by_host(const void *a, const void *b)
{
	const struct pick *x = a, *y = b;
	int bx = base_host && !strcmp(x->host, base_host), by = base_host && !strcmp(y->host, base_host);
	if (bx != by)
		return by - bx;
	return strcmp(x->host, y->host);
}

int fleetsel_load(const struct fleet_sel *s, const char *dbspec, struct run_result **rs,
		  char (**labels)[160], int *n, int *usage, char *err, size_t errlen)
{
	*rs = NULL;
	*labels = NULL;
	*n = 0;
	*usage = 0;
	struct db *d;
	if (db_open(dbspec, DB_READ, &d, err, errlen))
		return -1;
	struct pick_ctx c = {calloc(FLEETSEL_MAX, sizeof(struct pick)), 0, 0};
	struct db_filter f = {.bench = s->bench, .kernel = s->kernel, .fs_type = s->fs,
			      .since = s->since};
	int rc = c.p ? db_list(d, &f, take, &c, err, errlen) : -1;
	if (!c.p)
		snprintf(err, errlen, "out of memory");
	if (!rc && c.over) {
		snprintf(err, errlen, "more than %d hosts match: narrow the selection (--bench, "
				      "--kernel, --fs, --since)", FLEETSEL_MAX);
		*usage = 1;
		rc = -1;
	}
	int found = 0;
	for (int i = 0; !rc && s->baseline_host && i < c.n; i++)
		found |= !strcmp(c.p[i].host, s->baseline_host);
	if (!rc && !c.n) {
		snprintf(err, errlen, "%s: no stored run matches the selection", d->label);
		*usage = 1;
		rc = -1;
	} else if (!rc && s->baseline_host && !found) {
		snprintf(err, errlen, "--baseline-host %s: no stored run of that host matches the "
				      "selection in %s", s->baseline_host, d->label);
		*usage = 1;
		rc = -1;
	}
	if (!rc) {
		base_host = s->baseline_host;
		qsort(c.p, (size_t)c.n, sizeof(c.p[0]), by_host);
		base_host = NULL;
		*rs = calloc((size_t)c.n, sizeof(**rs));
		*labels = calloc((size_t)c.n, sizeof(**labels));
		if (!*rs || !*labels) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		}
	}
	for (int i = 0; !rc && i < c.n; i++) {
		if ((rc = db_get_result(d, c.p[i].id, &(*rs)[i], NULL, err, errlen)))
			break;
		snprintf((*labels)[i], sizeof((*labels)[0]), "%s #%lld", c.p[i].host,
			 (long long)c.p[i].id);
		*n = i + 1;
	}
	db_close(d);
	free(c.p);
	return rc;
}
