/* SPDX-License-Identifier: MIT */
/* A selection of stored runs across hosts, for compare and report:
 * the latest run of every host that matches the filters, the baseline
 * host's first (docs/fleet.md). */
#ifndef SB_FLEETSEL_H
#define SB_FLEETSEL_H

#include <stddef.h>
#include "cmd/opt.h"
#include "core/result.h"

#define FLEETSEL_MAX 256 /* hosts in one selection */

struct fleet_sel {
	int latest;                 /* --latest-per-host */
	const char *baseline_host;  /* --baseline-host */
	const char *bench, *kernel, *fs, *since;
};

/* The options, as opt table entries. */
#define FLEETSEL_OPTS(s)                                                                            \
	{"latest-per-host", 0, OPT_FLAG, NULL, "instead of RESULTs: the latest stored run of every host (with --db)", 0, 0, NULL, &(s).latest, NULL}, \
	{"baseline-host", 0, OPT_STR, "HOST", "with --latest-per-host: this host's latest run is the baseline", 0, 0, NULL, &(s).baseline_host, NULL}, \
	{"bench", 0, OPT_STR, "NAME", "with --latest-per-host: only runs that measured this bench", 0, 0, NULL, &(s).bench, NULL}, \
	{"kernel", 0, OPT_STR, "RELEASE", "with --latest-per-host: only runs on this kernel release", 0, 0, NULL, &(s).kernel, NULL}, \
	{"fs", 0, OPT_STR, "TYPE", "with --latest-per-host: only runs on this file system type", 0, 0, NULL, &(s).fs, NULL}, \
	{"since", 0, OPT_STR, "DATE", "with --latest-per-host: only runs started at or after DATE", 0, 0, NULL, &(s).since, NULL}

/* 0 when s is consistent (a filter or --baseline-host without
 * --latest-per-host is not), else -1 and err. need_baseline: the command
 * cannot do without --baseline-host. */
int fleetsel_check(const struct fleet_sel *s, int npos, int need_baseline, char *err,
		   size_t errlen);
/* Loads the selection from dbspec: *rs and *labels (calloc'd, caller
 * frees each result and both arrays) hold *n runs, the baseline host's
 * first (when given), then every other host's by name; labels are
 * "HOST #ID". 0, or -1 and err (EXIT_USAGE: no such host, nothing matches;
 * *usage set) */
int fleetsel_load(const struct fleet_sel *s, const char *dbspec, struct run_result **rs,
		  char (**labels)[160], int *n, int *usage, char *err, size_t errlen);

#endif
