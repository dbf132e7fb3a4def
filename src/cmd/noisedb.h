/* SPDX-License-Identifier: MIT */
/* Noise floors from the history database (compare --noise-floor,
 * history --spread): which earlier runs count; the arithmetic is in
 * src/core/noise.c. */
#ifndef SB_NOISEDB_H
#define SB_NOISEDB_H

#include "out/db.h"
#include "core/noise.h"

/* The runs of d matching f added to s, then noise_finish; with self, only
 * runs started no later than self, and never self itself (a run stores
 * itself in the history). *nruns = runs read. 0, or -1 and err. */
int noise_from_db(struct db *d, const struct db_filter *f, const struct run_result *self,
		  struct noise_set *s, int *nruns, char *err, size_t errlen);

/* For compare: the earlier runs of b's host, kernel and file system in
 * dbspec (NULL: the default database). */
int noise_for_result(const char *dbspec, const struct run_result *b, struct noise_set *s,
		     int *nruns, char *err, size_t errlen);

#endif
