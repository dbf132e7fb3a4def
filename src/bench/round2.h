/* SPDX-License-Identifier: MIT */
/* work.round2's parts (the bench: work_round2.c, its top comment says
 * what it measures), one file per idea:
 *   round2_rec.c   the phase records: completions per interval, stalls,
 *                  dirty/writeback pages, the jbd2 journal's figures;
 *   round2_tar.c   libarchive (loaded with dlopen), making the two tars,
 *                  unpacking one (libarchive's disk writer), deleting the
 *                  tree as rm -rf does;
 *   round2_http.c  the HTTP server on the tree and its K keep-alive
 *                  clients replaying the request log.
 * Everything here is the bench's own state; nothing else in bench/ uses it. */
#ifndef SB_ROUND2_H
#define SB_ROUND2_H

#if defined(HAVE_LIBARCHIVE) && !defined(SB_POSIX_ONLY)
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "core/bench.h"

#define MAXK 8
#define LOGLEN 65536

struct rec { /* one phase, under st.lock */
	uint64_t t0, last, files, bytes, errors;
	double *cnt; int nint, capint; /* completions per interval */
	uint64_t dirty_max, wb_max;    /* KiB */
	uint64_t *dirty, *wb;          /* per interval, sampled at its first completion */
	struct hist *h;                /* HTTP phases: latency */
	const char *phase;
};

struct st {
	struct bench_env *env;
	uint64_t n, per_dir, min_b, max_b, over_pct, seed, interval_ns, stall_ns;
	uint64_t serve_ns, rate, uniq, max_head, max_conns, idle_ns, hold_s;
	uint64_t conns[MAXK]; int nconns;
	double zipf_s;
	int mech;
	char *buf; size_t buflen;
	char tree[4200], tar[4200], tar_over[4200], jbd2[256];
	struct meter *m;
	pthread_mutex_t lock;
	struct rec r, r2;   /* the phase; HTTP beside unpack_over */
	struct rec *crec;   /* where the clients record */
	json_t *findings;
	uint32_t *log;
	/* server */
	int lfd, port, treefd;
	atomic_int srv_stop;
	atomic_uint_fast64_t srv_requests, srv_refused;
	char srv_why[160];
	/* clients */
	atomic_uint_fast64_t next_req;
	uint64_t cl_rate, cl_reqs, reqs_per_file;
	atomic_uint_fast64_t cl_end; /* ns; 0 stops the clients */
	int cl_threads;
};

struct cthread { struct st *s; int idx, k; pthread_t th; };

/* round2_tar.c */
int r2_la_load(char *why, size_t len); /* 0, or -1 with why */
size_t r2_file_size(const struct st *s, uint64_t i, uint64_t v);
void r2_name_of(const struct st *s, uint64_t i, char *b, size_t len);
int r2_make_tar(struct st *s, const char *path, int over);
int r2_unpack(struct st *s, const char *tar);
int r2_remove_tree(struct st *s, int dfd, int depth);

/* round2_rec.c */
void r2_find_jbd2(struct st *s);
json_t *r2_jbd2_read(const struct st *s);
void r2_record(struct st *s, struct rec *r, uint64_t issued, uint64_t now, uint64_t bytes);
void r2_phase_begin(struct rec *r, const char *name, int http);
json_t *r2_phase_end(struct st *s, struct rec *r, json_t *jbd0);

/* round2_http.c */
int r2_server_start(struct st *s, pthread_t *th);
void r2_server_stop(struct st *s, pthread_t th);
int r2_clients_start(struct st *s, struct cthread *ct, uint64_t k, uint64_t rate, uint64_t end,
		     uint64_t reqs);
json_t *r2_http_fields(json_t *o, uint64_t k, uint64_t rate);
json_t *r2_serve_phase(struct st *s, const char *name, uint64_t k, uint64_t rate);

#endif
#endif
