/* SPDX-License-Identifier: MIT */
/* fs.fileserver: the file-server workload after Felix von Leitner's 2006
 * real-world test. Each point runs the whole workload with N concurrent
 * workers:
 *   1. populate: `files` files spread over `dirs` directories, sizes drawn
 *      between min_kib and max_kib, log-uniformly (many small, few large,
 *      as web images);
 *   2. overwrite: a second, smaller set (`overwrite_pct` of the files)
 *      rewritten in place with new sizes (open O_TRUNC + write + close);
 *   3. read: `reads` whole-file reads of random files by the N workers;
 *   4. delete: every file and directory removed.
 * Every completed file operation goes to the meter (histogram, throughput,
 * throughput over time at interval_ms). A phase that writes (populate,
 * overwrite, delete) ends when its work is durable: a syncfs at its end,
 * timed and counted in the phase's seconds (durable.h), so that a data set
 * that fits in the page cache still meets writeback. The extra holds per
 * phase: files, bytes, seconds, MiB/s, files/s, the series of MiB/s per
 * interval and, for the writing phases, `durability` (write and sync time,
 * how much of the data set the dirty-page thresholds and the memory
 * cgroup's limit could hold, writeback during the phase); and findings: a
 * stall (no file operation completed for stall_ms or more), a dip
 * (intervals below 10% of the phase's median rate), or a sync (the syncfs
 * took stall_ms or more), with when, how long and how deep. Run it as on a
 * machine with less memory with `run --mem-limit SIZE`. The point's time budget does not apply:
 * each point runs the workload to its end (Ctrl-C stops it).
 * Params: dirs (16), files (1000), min_kib (2), max_kib (200),
 * overwrite_pct (25), reads (2 x files), interval_ms (100), stall_ms
 * (500), seed (1), placement (spread: worker i on the allowed CPU after
 * the bench's, round robin, so that no worker moves). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sys/sys.h"
#include "core/bench.h"
#include "bench/durable.h"
#include "core/registry.h"
#include "bench/webload.h"

enum phase { PH_POPULATE, PH_OVERWRITE, PH_READ, PH_DELETE, NPHASES };
static const char *const phase_name[NPHASES] = {"populate", "overwrite", "read", "delete"};

struct rec { /* one phase's record, filled under st.lock */
	uint64_t t0, last, files, bytes;
	double *mib;  /* bytes per interval, then MiB/s */
	int nint, capint;
	json_t *stalls;
};

struct st {
	struct bench_env *env;
	uint64_t dirs, files, reads, seed, interval_ns, stall_ns;
	uint64_t min_b, max_b, overwrite;
	char *buf; size_t buflen;  /* max_b bytes of pattern for writes */
	struct meter *m;
	pthread_mutex_t lock;
	atomic_uint_fast64_t next;  /* work item counter of the phase */
	atomic_int wid;             /* workers started in the phase: each one's side */
	atomic_int stop;
	enum phase ph;
	struct rec rec[NPHASES];
	json_t *findings;
	uint64_t nworkers;
	int err; const char *call;
};


/* Size of file i at version v: log-uniform in [min_b, max_b]. */
static size_t file_size(const struct st *s, uint64_t i, uint64_t v)
{
	return seed_file_size(s->seed, i, v, s->min_b, s->max_b);
}

static void path_of(const struct st *s, uint64_t i, char *buf, size_t len)
{
	snprintf(buf, len, "d%llu/f%llu", (unsigned long long)(i % s->dirs),
		 (unsigned long long)i);
}

static const struct bench_param_spec params[] = {
	BP_U64("files", "1000", 1, 10000000, "files populated, then overwritten, read and deleted"),
	BP_U64("dirs", "16", 1, 1000000, "directories the files are spread over"),
	BP_U64_DERIVED("reads", "2*files", 0, 1000000000, "random whole-file reads per point"),
	BP_U64("min_kib", "2", 1, 65536, "smallest file (KiB)"),
	BP_U64("max_kib", "200", 1, 65536, "largest file (KiB); sizes are log-uniform in min_kib..max_kib"),
	BP_U64("overwrite_pct", "25", 0, 100, "share of the files overwritten (%)"),
	BP_U64("interval_ms", "100", 1, 60000, "interval of the throughput-over-time series (ms)"),
	BP_U64("stall_ms", "500", 1, 3600000, "an interval with no completion this long is a stall (ms)"),
	BP_U64("seed", "1", 0, 4294967295u, "seed of the file sizes and the read order"),
	{0},
};

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	s->env = env;
	s->dirs = bench_param_u64(env, "dirs");
	s->files = bench_param_u64(env, "files");
	s->reads = bench_param(env, "reads") ? bench_param_u64(env, "reads") : 2 * s->files;
	s->min_b = bench_param_u64(env, "min_kib") << 10;
	s->max_b = bench_param_u64(env, "max_kib") << 10;
	s->overwrite = s->files * bench_param_u64(env, "overwrite_pct") / 100;
	s->interval_ns = bench_param_u64(env, "interval_ms") * 1000000;
	s->stall_ns = bench_param_u64(env, "stall_ms") * 1000000;
	s->seed = bench_param_u64(env, "seed");
	if (!s->dirs)
		s->dirs = 1;
	if (!s->files)
		s->files = 1;
	if (s->min_b < 1)
		s->min_b = 1;
	if (s->max_b < s->min_b)
		s->max_b = s->min_b;
	if (!s->interval_ns)
		s->interval_ns = 100000000;
	env->interval_s = (double)s->interval_ns / 1e9;
	s->buflen = (size_t)s->max_b;
	s->buf = malloc(s->buflen);
	if (!s->buf) {
		free(s);
		return bench_fail(env, "malloc");
	}
	for (size_t i = 0; i < s->buflen; i++)
		s->buf[i] = (char)(seed_mix(i) & 0xff);
	pthread_mutex_init(&s->lock, NULL);
	snprintf(env->note, sizeof(env->note),
		 "%llu files in %llu directories, %llu-%llu KiB, %llu overwritten, %llu reads per point",
		 (unsigned long long)s->files, (unsigned long long)s->dirs,
		 (unsigned long long)(s->min_b >> 10), (unsigned long long)(s->max_b >> 10),
		 (unsigned long long)s->overwrite, (unsigned long long)s->reads);
	*state = s;
	return 0;
}

/* Space the workload needs: the expected bytes of `files` files of
 * log-uniform sizes (mean (max - min) / ln(max / min)), each rounded up to
 * a 4 KiB block plus 4 KiB of inode and directory share, and 16 of the
 * largest files of slack for the draw. The same at every N (the workers
 * share one file set); overwrite replaces files in place. */
static uint64_t space_bytes(const struct bench_env *env)
{
	double files = (double)bench_param_u64(env, "files");
	double lo = (double)(bench_param_u64(env, "min_kib") << 10);
	double hi = (double)(bench_param_u64(env, "max_kib") << 10);
	lo = lo < 1 ? 1 : lo;
	hi = hi < lo ? lo : hi;
	double mean = hi > lo ? (hi - lo) / log(hi / lo) : lo;
	return (uint64_t)(files * (mean + 8192) + 16 * hi);
}

/* One file operation of the current phase on item k; bytes moved or -1. */
static int64_t file_op(struct st *s, uint64_t k, char *rbuf, uint64_t *rng)
{
	char p[64];
	int dfd = s->env->dirfd, fd;
	size_t len;
	switch (s->ph) {
	case PH_POPULATE:
	case PH_OVERWRITE:
		path_of(s, k, p, sizeof(p));
		len = file_size(s, k, s->ph == PH_OVERWRITE);
		fd = openat(dfd, p, O_WRONLY | O_CREAT | O_TRUNC, BENCH_FILE_MODE);
		if (fd < 0) {
			s->call = "openat(O_CREAT|O_TRUNC)";
			return -1;
		}
		if (sys_write_all(fd, s->buf, len)) {
			int e = errno ? errno : EIO;
			close(fd);
			errno = e;
			s->call = "write";
			return -1;
		}
		if (close(fd)) {
			s->call = "close";
			return -1;
		}
		return (int64_t)len;
	case PH_READ: {
		*rng = seed_mix(*rng + k);
		path_of(s, *rng % s->files, p, sizeof(p));
		fd = openat(dfd, p, O_RDONLY);
		if (fd < 0) {
			s->call = "openat(O_RDONLY)";
			return -1;
		}
		int64_t got = 0;
		for (;;) {
			ssize_t r = read(fd, rbuf, s->buflen);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				int e = errno;
				close(fd);
				errno = e;
				s->call = "read";
				return -1;
			}
			if (r == 0)
				break;
			got += r;
		}
		close(fd);
		return got;
	}
	default:
		path_of(s, k, p, sizeof(p));
		if (unlinkat(dfd, p, 0)) {
			s->call = "unlinkat";
			return -1;
		}
		return 0;
	}
}

/* Record one completion (under the lock). */
static void record(struct st *s, uint64_t now, uint64_t bytes)
{
	struct rec *r = &s->rec[s->ph];
	if (now - r->last >= s->stall_ns) {
		json_array_append_new(s->findings,
			json_pack("{s:s,s:s,s:f,s:f,s:s}", "finding", "stall", "phase",
				  phase_name[s->ph], "at_s", (double)(r->last - r->t0) / 1e9,
				  "length_s", (double)(now - r->last) / 1e9, "what",
				  "no file operation completed"));
	}
	r->last = now;
	r->files++;
	r->bytes += bytes;
	uint64_t i = (now - r->t0) / s->interval_ns;
	if (i < 1000000 && (int)i >= r->capint) {
		int nc = r->capint ? r->capint : 64;
		while (nc <= (int)i)
			nc *= 2;
		double *a = realloc(r->mib, (size_t)nc * sizeof(*a));
		if (!a)
			return;
		memset(a + r->capint, 0, (size_t)(nc - r->capint) * sizeof(*a));
		r->mib = a;
		r->capint = nc;
	}
	if ((int)i < r->capint) {
		r->mib[i] += (double)bytes;
		if ((int)i + 1 > r->nint)
			r->nint = (int)i + 1;
	}
}

static void *worker(void *arg)
{
	struct st *s = arg;
	bench_place(s->env, atomic_fetch_add(&s->wid, 1) + 1);
	char *rbuf = malloc(s->buflen);
	uint64_t rng = (uint64_t)(uintptr_t)&rbuf ^ s->seed;
	uint64_t total = s->ph == PH_READ ? s->reads : s->ph == PH_OVERWRITE ? s->overwrite : s->files;
	if (!rbuf) {
		pthread_mutex_lock(&s->lock);
		s->err = ENOMEM;
		s->call = "malloc";
		pthread_mutex_unlock(&s->lock);
		atomic_store(&s->stop, 1);
		return NULL;
	}
	while (!atomic_load(&s->stop)) {
		uint64_t k = atomic_fetch_add(&s->next, 1);
		if (k >= total || reg_stop_requested())
			break;
		uint64_t t = meter_now();
		int64_t b = file_op(s, k, rbuf, &rng);
		pthread_mutex_lock(&s->lock);
		if (b < 0) {
			if (!s->err)
				s->err = errno ? errno : EIO;
			atomic_store(&s->stop, 1);
		} else {
			meter_done(s->m, t, (uint64_t)b);
			record(s, meter_now(), (uint64_t)b);
		}
		pthread_mutex_unlock(&s->lock);
	}
	free(rbuf);
	return NULL;
}

static json_t *phase_json(struct st *s, enum phase ph, uint64_t end, json_t *durability)
{
	struct rec *r = &s->rec[ph];
	double secs = (double)(end - r->t0) / 1e9;
	double iv = (double)s->interval_ns / 1e9;
	json_t *series = json_array();
	double *sorted = malloc((size_t)(r->nint ? r->nint : 1) * sizeof(double));
	for (int i = 0; i < r->nint; i++) {
		r->mib[i] = r->mib[i] / (1 << 20) / iv;
		json_array_append_new(series, json_real(r->mib[i]));
		if (sorted)
			sorted[i] = r->mib[i];
	}
	/* dips: runs of whole intervals below 10% of the phase's median rate */
	if (sorted && r->nint >= 5) {
		for (int i = 1; i < r->nint; i++) /* insertion sort: few intervals */
			for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
				double t = sorted[j];
				sorted[j] = sorted[j - 1];
				sorted[j - 1] = t;
			}
		double med = sorted[r->nint / 2];
		for (int i = 0; i < r->nint - 1; i++) { /* the last interval is partial */
			if (!(r->mib[i] < 0.1 * med))
				continue;
			int j = i;
			double low = r->mib[i];
			while (j + 1 < r->nint - 1 && r->mib[j + 1] < 0.1 * med)
				low = r->mib[++j] < low ? r->mib[j] : low;
			json_array_append_new(s->findings,
				json_pack("{s:s,s:s,s:f,s:f,s:f,s:f}", "finding", "dip", "phase",
					  phase_name[ph], "at_s", i * iv, "length_s", (j - i + 1) * iv,
					  "lowest_mib_s", low, "median_mib_s", med));
			i = j;
		}
	}
	free(sorted);
	json_t *o = json_pack("{s:I,s:I,s:f,s:f,s:f,s:f,s:o}", "files", (json_int_t)r->files, "bytes",
			 (json_int_t)r->bytes, "seconds", secs, "mib_s",
			 secs > 0 ? (double)r->bytes / (1 << 20) / secs : 0.0, "files_s",
			 secs > 0 ? (double)r->files / secs : 0.0, "interval_s", iv, "mib_s_series",
			 series);
	if (o && durability)
		json_object_set_new(o, "durability", durability);
	else
		json_decref(durability);
	return o;
}

static int run_phase(struct st *s, enum phase ph, json_t *phases)
{
	pthread_t th[256];
	uint64_t n = s->nworkers < 256 ? s->nworkers : 256, started = 0;
	s->ph = ph;
	atomic_store(&s->next, 0);
	atomic_store(&s->wid, 0);
	struct rec *r = &s->rec[ph];
	struct durable dur;
	durable_begin(&dur);
	r->t0 = r->last = dur.t0;
	for (; started < n; started++)
		if (pthread_create(&th[started], NULL, worker, s)) {
			atomic_store(&s->stop, 1);
			s->err = EAGAIN;
			s->call = "pthread_create";
			break;
		}
	for (uint64_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	/* A phase that writes ends when its data is durable: the sync is part
	 * of its time (without it, a data set that fits in memory never
	 * meets writeback). */
	json_t *durability = NULL;
	uint64_t end = meter_now();
	if (ph != PH_READ && !s->err && !reg_stop_requested()) {
		if (durable_end(&dur, s->env->dirfd)) {
			s->err = errno;
			s->call = "syncfs";
		}
		end = dur.t_end;
		durability = durable_json(&dur, r->bytes);
		if (dur.t_end - dur.t_sync >= s->stall_ns)
			json_array_append_new(s->findings,
				json_pack("{s:s,s:s,s:f,s:f,s:s}", "finding", "sync", "phase",
					  phase_name[ph], "at_s", (double)(dur.t_sync - r->t0) / 1e9,
					  "length_s", (double)(dur.t_end - dur.t_sync) / 1e9, "what",
					  "making the phase's data durable (syncfs)"));
	}
	json_object_set_new(phases, phase_name[ph], phase_json(s, ph, end, durability));
	free(r->mib);
	memset(r, 0, sizeof(*r));
	if (s->err) {
		errno = s->err;
		return bench_fail(s->env, s->call);
	}
	return 0;
}

static int set_n(void *state, uint64_t n)
{
	((struct st *)state)->nworkers = n ? n : 1;
	return 0;
}

static int run(void *state, struct meter *m)
{
	struct st *s = state;
	s->m = m;
	s->err = 0;
	atomic_store(&s->stop, 0);
	s->findings = json_array();
	json_t *phases = json_object();
	char d[32];
	int rc = 0;
	for (uint64_t i = 0; i < s->dirs && rc == 0; i++) {
		snprintf(d, sizeof(d), "d%llu", (unsigned long long)i);
		if (mkdirat(s->env->dirfd, d, BENCH_DIR_MODE))
			rc = bench_fail(s->env, "mkdirat");
	}
	for (int ph = 0; ph < NPHASES && rc == 0 && !reg_stop_requested(); ph++)
		rc = run_phase(s, (enum phase)ph, phases);
	meter_extra(m, "phases", phases);
	meter_extra(m, "findings", s->findings);
	s->findings = NULL;
	if (rc == 0 && reg_stop_requested())
		meter_stop(m); /* records the interrupt */
	if (rc == 0) /* delete ran, or an interrupt left files for the core's removal */
		for (uint64_t i = 0; i < s->dirs; i++) {
			snprintf(d, sizeof(d), "d%llu", (unsigned long long)i);
			unlinkat(s->env->dirfd, d, AT_REMOVEDIR);
		}
	return rc;
}

static void teardown(void *state)
{
	struct st *s = state;
	pthread_mutex_destroy(&s->lock);
	free(s->buf);
	free(s);
}

const struct bench bench_fs_fileserver = {
	.params = params,
	.name = "fs.fileserver", .version = 3, .axis = "concurrent workers", .axis_kind = AXIS_CONCURRENCY,
	.summary = "file-server workload: populate, overwrite, random whole-file reads, delete; per phase",
	.op_desc = "one whole-file operation (create+write, overwrite, read or unlink) of the workload",
	.needs = NEED_DIR, .unit = "file", .series = SERIES_POW2, .flags = BENCH_FULL_BUDGET | BENCH_AXIS_TASKS | BENCH_WHOLE_RUN | BENCH_MAKES_INODES,
	.placement = "spread",
	.quick_max_n = 4, .default_max_n = 16, .full_max_n = 64, .space_mib = 128,
	.space_bytes = space_bytes, .setup = setup, .set_n = set_n, .run = run, .teardown = teardown,
};
