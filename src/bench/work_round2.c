/* SPDX-License-Identifier: MIT */
/* work.round2: Felix von Leitner's "round 2" file-system method (2006):
 * unpack a huge tar of small files, unpack a smaller tar over it, serve
 * the tree over HTTP, delete it. Each point N (files in the tree) runs:
 *   make:        two seeded tars written with libarchive into the scratch
 *                directory: N files (sizes log-uniform in min_kib..max_kib,
 *                as images and pages) and over_pct% of the names with new
 *                contents; layout=flat puts every file in one directory,
 *                layout=dirs per_dir (100) files per directory;
 *   unpack:      the first tar extracted with libarchive's disk writer
 *                (create, write, set times and modes, close per entry, the
 *                path GNU tar takes), each entry timed;
 *   serve_cK / serve_oK: for each K of `conns`, a minimal HTTP/1.1 server
 *                (GET only, keep-alive, sendfile, one thread on the `ev`
 *                mechanism, loopback) serves the tree to clients replaying
 *                a seeded Zipf request log over K keep-alive connections,
 *                closed-loop (c) for serve_ms (or reqs_per_file x N
 *                requests, whichever ends first, so that small points stay
 *                short), then open-loop (o) at `rate`
 *                requests/s (default: half the closed-loop rate), latency
 *                from each request's intended start (no coordinated
 *                omission);
 *   unpack_over: the second tar extracted over the tree, with clients at
 *                the first K's open-loop rate beside it (serve_during_over:
 *                the stall case, requests waiting while the file system
 *                writes);
 *   delete:      the tree removed as rm -rf does (readdir, unlinkat per
 *                entry, each directory after its entries), each timed.
 * Every entry and request goes to the meter; the extra holds per phase
 * files (or requests), bytes, seconds, files/s, MiB/s, the files/s series
 * per interval_ms, p50/p99 for HTTP, the dirty and writeback peaks of
 * /proc/meminfo and the jbd2 journal's figures where present; findings
 * list stalls: no completion for stall_ms, or intervals below 10% of the
 * phase's median, with the dirty/writeback pages at that moment.
 * The server refuses paths with "..", dot segments or symbolic links
 * (components opened one by one with O_NOFOLLOW), heads over max_head
 * bytes (431), more than max_conns connections, and connections idle for
 * idle_s; it runs only during the serve phases (and hold_s, which keeps
 * it up after them and prints its address, for cross-checks).
 * placement (free): the server thread is the peer (side 1), the client
 * threads the bench's own side (0); spread puts them on two CPUs, which
 * is how bench/round2-crosscheck.sh holds the job equal to wrk's.
 * libarchive is loaded with dlopen when the bench starts (not linked:
 * proc.fork forks this process, and libarchive brings ten libraries).
 * This file is the bench (parameters, setup, the phases in order); its
 * parts are one file per idea, declared in round2.h: round2_tar.c (the
 * tars: make, unpack, delete), round2_http.c (the server and its
 * clients), round2_rec.c (the phase records). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "core/bench.h"
#include "core/registry.h"

#if defined(HAVE_LIBARCHIVE) && !defined(SB_POSIX_ONLY)
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include "sys/ev.h"
#include "bench/round2.h"
#include "bench/webload.h"

/* ---- the bench ---- */
static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->env = env;
	*state = s;
	pthread_mutex_init(&s->lock, NULL);
	s->lfd = -1;
	const char *layout = bench_param(env, "layout");
	if (strcmp(layout, "flat") && strcmp(layout, "dirs")) {
		snprintf(env->skip, sizeof(env->skip), "layout=%s: flat or dirs", layout);
		return BENCH_SKIP;
	}
	s->per_dir = strcmp(layout, "flat") ? bench_param_u64(env, "per_dir") : 0;
	s->min_b = bench_param_u64(env, "min_kib") << 10;
	s->max_b = bench_param_u64(env, "max_kib") << 10;
	s->over_pct = bench_param_u64(env, "over_pct");
	s->seed = bench_param_u64(env, "seed");
	s->interval_ns = bench_param_u64(env, "interval_ms") * 1000000;
	s->stall_ns = bench_param_u64(env, "stall_ms") * 1000000;
	s->serve_ns = (bench_param(env, "serve_ms") ? bench_param_u64(env, "serve_ms")
						   : env->quick ? 150 : 2000) * 1000000;
	s->rate = bench_param_u64(env, "rate");
	s->reqs_per_file = bench_param_u64(env, "reqs_per_file");
	if (!s->reqs_per_file)
		s->reqs_per_file = 1;
	s->uniq = bench_param_u64(env, "uniq");
	s->zipf_s = atof(bench_param(env, "zipf_s"));
	s->max_head = bench_param_u64(env, "max_head");
	s->max_conns = bench_param_u64(env, "max_conns");
	s->idle_ns = bench_param_u64(env, "idle_s") * 1000000000ull;
	s->hold_s = bench_param_u64(env, "hold_s");
	s->mech = ev_mech_parse(bench_param(env, "ev"));
	char cl[128];
	snprintf(cl, sizeof(cl), "%s", bench_param(env, "conns"));
	for (char *save = NULL, *t = strtok_r(cl, ",", &save); t && s->nconns < MAXK; t = strtok_r(NULL, ",", &save))
		if (atoll(t) > 0)
			s->conns[s->nconns++] = (uint64_t)atoll(t);
	if (s->min_b < 1)
		s->min_b = 1;
	if (s->max_b < s->min_b)
		s->max_b = s->min_b;
	if (s->over_pct > 100)
		s->over_pct = 100;
	if (!s->interval_ns)
		s->interval_ns = 100000000;
	if (!s->stall_ns)
		s->stall_ns = 500000000;
	if (s->max_head < 64)
		s->max_head = 64;
	if (!s->idle_ns)
		s->idle_ns = 1000000000ull;
	if (s->mech < 0 || !s->nconns || !isfinite(s->zipf_s) || s->zipf_s < 0) {
		snprintf(env->skip, sizeof(env->skip), "bad parameter: ev (select|poll|epoll|io_uring), conns (K,K...) or zipf_s (>= 0)");
		return BENCH_SKIP;
	}
	env->interval_s = (double)s->interval_ns / 1e9;
	if (r2_la_load(env->skip, sizeof(env->skip)))
		return BENCH_SKIP;
	/* free space: both tars and the tree, for the largest point */
	double mean = s->max_b > s->min_b ? (double)(s->max_b - s->min_b) / log((double)s->max_b / (double)s->min_b)
					  : (double)s->min_b;
	double n = (double)env->max_n, over = (double)s->over_pct / 100;
	double need = n * (mean + 1024) * (1 + over) + n * (mean + 4096) + 16.0 * (1 << 20);
	struct statvfs sv;
	if (fstatvfs(env->dirfd, &sv) == 0) {
		double have = (double)sv.f_bavail * (double)sv.f_frsize;
		if (have < need) {
			snprintf(env->skip, sizeof(env->skip),
				 "N=%llu needs ~%.0f MiB (two tars and the tree, %.0f KiB mean file), the target has %.0f MiB free",
				 (unsigned long long)env->max_n, need / (1 << 20), mean / 1024, have / (1 << 20));
			return BENCH_SKIP;
		}
		if (sv.f_files && (double)sv.f_favail < n * 1.02 + 64) {
			snprintf(env->skip, sizeof(env->skip), "N=%llu needs %llu inodes, the target has %llu free",
				 (unsigned long long)env->max_n, (unsigned long long)(n * 1.02 + 64),
				 (unsigned long long)sv.f_favail);
			return BENCH_SKIP;
		}
	}
	s->buflen = (size_t)s->max_b + 4096;
	s->buf = malloc(s->buflen);
	s->log = malloc(LOGLEN * sizeof(*s->log));
	if (!s->buf || !s->log)
		return bench_fail(env, "malloc");
	for (size_t i = 0; i < s->buflen; i++)
		s->buf[i] = (char)(seed_mix(s->seed + i) & 0xff);
	snprintf(s->tree, sizeof(s->tree), "%s/tree", env->dir);
	snprintf(s->tar, sizeof(s->tar), "%s/round2.tar", env->dir);
	snprintf(s->tar_over, sizeof(s->tar_over), "%s/round2-over.tar", env->dir);
	r2_find_jbd2(s);
	snprintf(env->note, sizeof(env->note),
		 "layout %s (%llu files per directory; 0: one), %llu-%llu KiB, over %llu%%, HTTP %s, %llu ms per serve phase, Zipf s=%g",
		 layout, (unsigned long long)s->per_dir,
		 (unsigned long long)(s->min_b >> 10), (unsigned long long)(s->max_b >> 10),
		 (unsigned long long)s->over_pct, ev_mech_name(s->mech),
		 (unsigned long long)(s->serve_ns / 1000000), s->zipf_s);
	return 0;
}

static int set_n(void *state, uint64_t n)
{
	((struct st *)state)->n = n ? n : 1;
	return 0;
}

static int run(void *state, struct meter *m)
{
	struct st *s = state;
	json_t *phases = json_object(), *o;
	int rc = 0;
	s->m = m;
	s->findings = json_array();
	/* make (not metered: it measures the tar writer more than the target) */
	uint64_t t = meter_now();
	rc = r2_make_tar(s, s->tar, 0);
	if (rc == 0)
		rc = r2_make_tar(s, s->tar_over, 1);
	json_object_set_new(phases, "make", json_pack("{s:I,s:f}", "files", (json_int_t)s->n, "seconds",
						      (double)(meter_now() - t) / 1e9));
	if (rc == 0 && mkdir(s->tree, BENCH_DIR_MODE))
		rc = bench_fail(s->env, "mkdir(tree)");
	if (rc == 0 && !reg_stop_requested()) {
		r2_phase_begin(&s->r, "unpack", 0);
		json_t *j = r2_jbd2_read(s);
		rc = r2_unpack(s, s->tar);
		json_object_set_new(phases, "unpack", r2_phase_end(s, &s->r, j));
	}
	if (rc == 0 && !reg_stop_requested() &&
	    zipf_log(s->log, LOGLEN, s->n, s->uniq, s->zipf_s, s->seed)) {
		errno = ENOMEM;
		rc = bench_fail(s->env, "zipf_log");
	}
	pthread_t srv;
	int srv_up = 0;
	uint64_t over_rate = 0;
	if (rc == 0 && !reg_stop_requested()) {
		rc = r2_server_start(s, &srv);
		srv_up = rc == 0;
	}
	for (int i = 0; i < s->nconns && rc == 0 && !reg_stop_requested(); i++) {
		char nm[32];
		snprintf(nm, sizeof(nm), "serve_c%llu", (unsigned long long)s->conns[i]);
		o = r2_serve_phase(s, nm, s->conns[i], 0);
		double rps = json_number_value(json_object_get(o, "requests_s"));
		json_object_set_new(phases, nm, o);
		snprintf(nm, sizeof(nm), "serve_o%llu", (unsigned long long)s->conns[i]);
		uint64_t rate = s->rate ? s->rate : (uint64_t)(rps / 2);
		if (i == 0)
			over_rate = rate;
		if (rate)
			json_object_set_new(phases, nm, r2_serve_phase(s, nm, s->conns[i], rate));
	}
	if (rc == 0 && s->hold_s && srv_up) {
		fprintf(stderr, "work.round2: serving http://127.0.0.1:%d/ tree %s tar %s for %llu s\n",
			s->port, s->tree, s->tar, (unsigned long long)s->hold_s);
		fflush(stderr);
		uint64_t end = meter_now() + s->hold_s * 1000000000ull;
		while (meter_now() < end && !reg_stop_requested()) {
			struct timespec ts = {0, 50000000};
			nanosleep(&ts, NULL);
		}
	}
	/* unpack over, with HTTP at the open-loop rate of the first K beside it
	 * (the stall case: requests wait while the file system writes) */
	if (rc == 0 && !reg_stop_requested()) {
		struct cthread ct[2];
		int started = 0;
		r2_phase_begin(&s->r, "unpack_over", 0);
		json_t *j = r2_jbd2_read(s);
		if (srv_up && over_rate) {
			r2_phase_begin(&s->r2, "serve_during_over", 1);
			s->crec = &s->r2;
			started = r2_clients_start(s, ct, s->conns[0], over_rate, UINT64_MAX, UINT64_MAX);
		}
		rc = r2_unpack(s, s->tar_over);
		atomic_store(&s->cl_end, 0);
		for (int w = 0; w < started; w++)
			pthread_join(ct[w].th, NULL);
		json_object_set_new(phases, "unpack_over", r2_phase_end(s, &s->r, j));
		if (srv_up && over_rate) {
			/* "beside": it ran during unpack_over, not after it (the
			 * report places findings by summing the phases before) */
			json_t *so = r2_http_fields(r2_phase_end(s, &s->r2, NULL), s->conns[0], over_rate);
			json_object_set_new(so, "beside", json_string("unpack_over"));
			json_object_set_new(phases, "serve_during_over", so);
		}
	}
	if (srv_up) {
		r2_server_stop(s, srv);
		json_object_set_new(phases, "server",
				    json_pack("{s:I,s:I,s:s}", "requests", (json_int_t)atomic_load(&s->srv_requests),
					      "refused", (json_int_t)atomic_load(&s->srv_refused), "problem", s->srv_why));
	}
	unlink(s->tar);
	unlink(s->tar_over);
	if (rc == 0 && !reg_stop_requested()) {
		r2_phase_begin(&s->r, "delete", 0);
		json_t *j = r2_jbd2_read(s);
		int d = open(s->tree, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		rc = d < 0 ? bench_fail(s->env, "open(tree)") : r2_remove_tree(s, d, 0);
		if (rc == 0 && !reg_stop_requested()) {
			uint64_t t1 = meter_now();
			if (rmdir(s->tree))
				rc = bench_fail(s->env, "rmdir(tree)");
			else {
				pthread_mutex_lock(&s->lock);
				r2_record(s, &s->r, t1, meter_now(), 0);
				pthread_mutex_unlock(&s->lock);
			}
		}
		json_object_set_new(phases, "delete", r2_phase_end(s, &s->r, j));
	}
	meter_extra(m, "phases", phases);
	meter_extra(m, "findings", s->findings);
	s->findings = NULL;
	if (rc == 0 && reg_stop_requested())
		meter_stop(m); /* records the interrupt; the core removes what is left */
	return rc;
}

static void teardown(void *state)
{
	struct st *s = state;
	pthread_mutex_destroy(&s->lock);
	free(s->buf);
	free(s->log);
	free(s);
}

static const char *const variants[] = {"layout=dirs", "layout=flat", NULL};
#endif

static const struct bench_param_spec params[] = {
	BP_ENUM("layout", "dirs", "dirs|flat", "the tree: per_dir files per directory, or one huge directory (one variant each)"),
	BP_U64("per_dir", "100", 1, 1000000, "files per directory with layout=dirs"),
	BP_U64("min_kib", "2", 0, 1048576, "smallest file (KiB)"),
	BP_U64("max_kib", "200", 0, 1048576, "largest file (KiB)"),
	BP_U64("over_pct", "25", 0, 100, "share of the names the second tar unpacks over the tree (%)"),
	BP_U64("seed", "1", 0, 1ull << 53, "seed of the tars and the request log"),
	BP_U64("interval_ms", "100", 1, 60000, "throughput-over-time interval (ms)"),
	BP_U64("stall_ms", "500", 1, 3600000, "a window this long far below the phase's median is a stall (ms)"),
	BP_U64_DERIVED("serve_ms", "2000 (quick: 150)", 1, 3600000, "time each HTTP phase serves (ms)"),
	BP_U64("rate", "0", 0, 10000000, "open-loop target rate (requests/s); 0: from the closed-loop rate"),
	BP_U64("reqs_per_file", "20", 0, 1000000, "length of the request log, per file in the tree"),
	BP_U64("uniq", "0", 0, 1ull << 53, "distinct files the log asks for (0: every file)"),
	BP_STR("zipf_s", "1.0", "Zipf exponent of the files' popularity"),
	BP_U64("max_head", "8192", 256, 1048576, "largest request head the server reads (bytes; 431 past it)"),
	BP_U64("max_conns", "1024", 1, 100000, "connections the server holds at most (503 past it)"),
	BP_U64("idle_s", "10", 1, 3600, "an idle connection is closed after this (s)"),
	BP_U64("hold_s", "0", 0, 86400, "keep the server up this long after the serve phases and print its address"),
	BP_ENUM("ev", "epoll", "select|poll|epoll|io_uring", "the server's event mechanism"),
	BP_STR("conns", "4,32", "connection counts of the HTTP phases (comma-separated)"),
	{0},
};

const struct bench bench_work_round2 = {
	.name = "work.round2", .version = 1, .axis = "files in the tree", .axis_kind = AXIS_LOAD,
	.summary = "von Leitner's round 2: make a tar, unpack, unpack over, serve over HTTP, delete; per phase",
	.op_desc = "one tar entry extracted, one HTTP request served, or one entry removed",
	.needs = NEED_DIR | NEED_LINUX, .unit = "file", .series = SERIES_125, .flags = BENCH_FULL_BUDGET | BENCH_WHOLE_RUN | BENCH_MAKES_INODES,
	.quick_max_n = 2000, .default_max_n = 20000, .full_max_n = 1000000,
	.space_mib = 2200, .max_batch = 1,
	.placement = "free",
#if defined(HAVE_LIBARCHIVE) && !defined(SB_POSIX_ONLY)
	.variants = variants, .setup = setup, .set_n = set_n, .run = run, .teardown = teardown,
#endif
	.params = params,
#if defined(HAVE_LIBARCHIVE) && !defined(SB_POSIX_ONLY)
#elif defined(SB_POSIX_ONLY)
	.unavailable = "Linux-only (sendfile, libarchive's disk writer as loaded here)",
#else
	.unavailable = "built without libarchive's headers (Debian: libarchive-dev)",
#endif
};
