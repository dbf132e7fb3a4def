/* SPDX-License-Identifier: MIT */
/* Durability and writeback figures of a workload phase, for the workload
 * benches (fs.fileserver and others that write a data set over time).
 *
 *   struct durable d;
 *   durable_begin(&d);                  at the phase's start
 *   ... the phase's file operations ...
 *   rc = durable_end(&d, dirfd);        syncfs, timed: part of the phase
 *   json_t *j = durable_json(&d, bytes); the figures, for meter_extra
 *
 * A phase that only wrote to the page cache has not done its work: a
 * machine whose memory is smaller than the data set would have written it
 * back during the phase, with the stalls that brings. So the phase ends
 * when its data is durable (syncfs of the file system), and the figures
 * say how long that took, how much of the data set the dirty-page
 * thresholds (vm.dirty_*) and the memory cgroup's limit could hold, and
 * what writeback did during the phase (system-wide: nr_written, Dirty;
 * in our memory cgroup: limit hits, dirty and writeback bytes). */
#ifndef SB_DURABLE_H
#define SB_DURABLE_H

#include <stdint.h>
#include <jansson.h>
#include "sys/sys.h"

struct durable {
	uint64_t t0, t_sync, t_end;      /* meter_now() at start, sync start, end */
	struct sys_wb start, presync, end;
	int sync_err;                    /* errno of syncfs, 0 */
};

void durable_begin(struct durable *d);
/* syncfs on the file system of dirfd, timed. 0, or -errno (errno set). */
int durable_end(struct durable *d, int dirfd);
/* {"dataset_bytes", "write_s", "sync_s", "durable_s", "dirty_limits": {...},
 *  "fit": {"dirty_limit", "background", "cgroup_limit"} (fractions of the
 *  data set that the threshold could hold, at most 1), "system":
 *  {"written_in_phase_bytes", "written_by_sync_bytes", "dirty_at_sync_bytes",
 *  "writeback_at_sync_bytes"}, "cgroup": {...} when in a limited memory
 *  cgroup}. A figure that could not be read is null. */
json_t *durable_json(const struct durable *d, uint64_t dataset_bytes);

#endif
