/* SPDX-License-Identifier: MIT */
/* The loads rt.wakeup measures under, made by scalebench itself in child
 * processes: each level starts K processes per kind (K = load_procs),
 * placed on load_cpus when given, each counting its own work in a shared
 * counter so that the load's throughput is recorded beside the latency.
 * Every process is registered (registry.h): killed and reaped at the end
 * of the level, on error, and on Ctrl-C; each dies with its parent. */
#ifndef SB_RTLOAD_H
#define SB_RTLOAD_H

#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

enum rtload_level {
	RL_NONE = 0, RL_CPU, RL_FS, RL_IO, RL_NET, RL_FORK, RL_PAGECACHE, RL_ALL, RL_NLEVELS
};
extern const char *const rtload_names[RL_NLEVELS];

#define RTLOAD_MAX 128 /* processes */

struct rtload {
	int dirfd;
	int procs;                  /* K: processes per kind */
	const unsigned char *cpus;  /* where they run (NULL: anywhere) */
	int ncpus_set;
	pid_t pid[RTLOAD_MAX];
	int kind[RTLOAD_MAX];       /* what slot i counts */
	int n;
	volatile uint64_t *ctr;     /* RTLOAD_MAX counters shared with the children */
	int direct;                 /* the io load got O_DIRECT (0: buffered, refused) */
	char note[160];
};

/* 0, or -errno naming the failing call in *call. */
int rtload_init(struct rtload *l, int dirfd, int procs, const unsigned char *cpus, int ncpus_set,
		const char **call);
int rtload_start(struct rtload *l, int level, const char **call);
/* Work done so far per kind (units: rtload_unit). */
void rtload_read(const struct rtload *l, uint64_t per_kind[RL_NLEVELS]);
const char *rtload_unit(int kind);
/* {kind: {"per_s": x, "unit": ...}} between two readings secs apart. */
json_t *rtload_rates(const struct rtload *l, const uint64_t *a, const uint64_t *b, double secs);
void rtload_stop(struct rtload *l);
void rtload_fini(struct rtload *l);

#endif
