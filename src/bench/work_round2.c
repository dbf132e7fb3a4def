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
 * libarchive is loaded with dlopen when the bench starts (not linked:
 * proc.fork forks this process, and libarchive brings ten libraries). */
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
#include "bench.h"
#include "registry.h"
#include "sys.h"

#if defined(HAVE_LIBARCHIVE) && !defined(SB_POSIX_ONLY)
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <time.h>
#include <arpa/inet.h>
#include "ev.h"
#include "hist.h"
#include "webload.h"

/* ---- libarchive, loaded at setup (names kept via the macros below) ---- */
#define LA_FUNCS(X)                                                                            \
	X(archive_write_new) X(archive_write_set_format_pax_restricted) X(archive_write_open_filename) \
	X(archive_write_header) X(archive_write_data) X(archive_write_close) X(archive_write_free)   \
	X(archive_entry_new) X(archive_entry_clear) X(archive_entry_free)                          \
	X(archive_entry_set_pathname) X(archive_entry_set_size) X(archive_entry_set_filetype)       \
	X(archive_entry_set_perm) X(archive_entry_set_mtime)                                       \
	X(archive_read_new) X(archive_read_support_format_tar)                \
	X(archive_read_open_filename) X(archive_read_next_header) X(archive_read_data_block)        \
	X(archive_read_free) X(archive_write_disk_new) X(archive_write_disk_set_options)            \
	X(archive_write_finish_entry) X(archive_write_data_block) X(archive_error_string)
static struct {
	void *h;
#define X(f) __typeof__(f) *f;
	LA_FUNCS(X)
#undef X
} la;
#define X(f) {#f, (void **)&la.f},
static const struct { const char *name; void **slot; } la_syms[] = {LA_FUNCS(X)};
#undef X

static int la_load(char *why, size_t len)
{
	if (la.h)
		return 0;
	void *h = dlopen("libarchive.so.13", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, len, "cannot load libarchive.so.13 (Debian: libarchive13): %s", dlerror());
		return -1;
	}
	for (size_t i = 0; i < sizeof(la_syms) / sizeof(la_syms[0]); i++)
		if (!(*la_syms[i].slot = dlsym(h, la_syms[i].name))) {
			snprintf(why, len, "libarchive.so.13 lacks %s", la_syms[i].name);
			dlclose(h);
			return -1;
		}
	la.h = h;
	return 0;
}
#define archive_write_new la.archive_write_new
#define archive_write_set_format_pax_restricted la.archive_write_set_format_pax_restricted
#define archive_write_open_filename la.archive_write_open_filename
#define archive_write_header la.archive_write_header
#define archive_write_data la.archive_write_data
#define archive_write_close la.archive_write_close
#define archive_write_free la.archive_write_free
#define archive_entry_new la.archive_entry_new
#define archive_entry_clear la.archive_entry_clear
#define archive_entry_free la.archive_entry_free
#define archive_entry_set_pathname la.archive_entry_set_pathname
#define archive_entry_set_size la.archive_entry_set_size
#define archive_entry_set_filetype la.archive_entry_set_filetype
#define archive_entry_set_perm la.archive_entry_set_perm
#define archive_entry_set_mtime la.archive_entry_set_mtime
#define archive_read_new la.archive_read_new
#define archive_read_support_format_tar la.archive_read_support_format_tar
#define archive_read_open_filename la.archive_read_open_filename
#define archive_read_next_header la.archive_read_next_header
#define archive_read_data_block la.archive_read_data_block
#define archive_read_free la.archive_read_free
#define archive_write_disk_new la.archive_write_disk_new
#define archive_write_disk_set_options la.archive_write_disk_set_options
#define archive_write_finish_entry la.archive_write_finish_entry
#define archive_write_data_block la.archive_write_data_block
#define archive_error_string la.archive_error_string

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


static size_t file_size(const struct st *s, uint64_t i, uint64_t v)
{
	return seed_file_size(s->seed, i, v, s->min_b, s->max_b);
}

static void name_of(const struct st *s, uint64_t i, char *b, size_t len)
{
	if (s->per_dir)
		snprintf(b, len, "d%05llu/f%07llu", (unsigned long long)(i / s->per_dir),
			 (unsigned long long)i);
	else
		snprintf(b, len, "f%07llu", (unsigned long long)i);
}

/* ---- what the kernel was doing: dirty and writeback pages, the journal
 * (sys_dirty_kib, sys_jbd2_find, sys_jbd2_info) ---- */
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
static void record(struct st *s, struct rec *r, uint64_t issued, uint64_t now, uint64_t bytes)
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

static void phase_begin(struct rec *r, const char *name, int http)
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

static json_t *phase_end(struct st *s, struct rec *r, json_t *jbd0)
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
	json_t *jbd1 = sys_jbd2_info(s->jbd2);
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

/* ---- make: the two tars ---- */
static int make_tar(struct st *s, const char *path, int over)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	char name[64], dname[64];
	int rc = 0;
	if (!a || !e) {
		errno = ENOMEM;
		rc = bench_fail(s->env, "archive_write_new");
		goto out;
	}
	if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    archive_write_open_filename(a, path) != ARCHIVE_OK) {
		errno = EIO;
		rc = bench_fail(s->env, "archive_write_open_filename");
		goto out;
	}
	uint64_t step = over ? 100 : 1, nf = s->n;
	for (uint64_t i = 0; i < nf && rc == 0 && !reg_stop_requested(); i++) {
		/* over: over_pct of every 100 names, spread through the tree */
		if (over && (seed_mix(s->seed + i * 31) % step) >= s->over_pct)
			continue;
		if (s->per_dir && i % s->per_dir == 0 && !over) {
			snprintf(dname, sizeof(dname), "d%05llu", (unsigned long long)(i / s->per_dir));
			archive_entry_clear(e);
			archive_entry_set_pathname(e, dname);
			archive_entry_set_filetype(e, AE_IFDIR);
			archive_entry_set_perm(e, BENCH_DIR_MODE);
			archive_entry_set_mtime(e, 1136073600, 0);
			if (archive_write_header(a, e) != ARCHIVE_OK) {
				errno = EIO;
				rc = bench_fail(s->env, "archive_write_header");
			}
		}
		name_of(s, i, name, sizeof(name));
		size_t len = file_size(s, i, (uint64_t)over);
		archive_entry_clear(e);
		archive_entry_set_pathname(e, name);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, BENCH_FILE_MODE);
		archive_entry_set_size(e, (la_int64_t)len);
		archive_entry_set_mtime(e, 1136073600 + (time_t)over * 86400, 0);
		if (rc == 0 && (archive_write_header(a, e) != ARCHIVE_OK ||
				archive_write_data(a, s->buf + seed_mix(i + (uint64_t)over) % 4096, len) != (la_ssize_t)len)) {
			if (!errno)
				errno = EIO;
			rc = bench_fail(s->env, "archive_write_data");
		}
	}
	if (archive_write_close(a) != ARCHIVE_OK && rc == 0) {
		if (!errno)
			errno = EIO;
		rc = bench_fail(s->env, "archive_write_close");
	}
out:
	if (e)
		archive_entry_free(e);
	if (a)
		archive_write_free(a);
	return rc;
}

/* ---- unpack: libarchive's disk writer, one entry timed at a time ---- */
static int unpack(struct st *s, const char *tar)
{
	struct archive *r = archive_read_new(), *w = archive_write_disk_new();
	struct archive_entry *e;
	int rc = 0, here = -1, td = -1;
	if (!r || !w) {
		errno = ENOMEM;
		rc = bench_fail(s->env, "archive_read_new");
		goto out;
	}
	archive_read_support_format_tar(r);
	archive_write_disk_set_options(w, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM |
					  ARCHIVE_EXTRACT_SECURE_SYMLINKS |
					  ARCHIVE_EXTRACT_SECURE_NODOTDOT |
					  ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS);
	if (archive_read_open_filename(r, tar, 1 << 16) != ARCHIVE_OK) {
		errno = EIO;
		rc = bench_fail(s->env, "archive_read_open_filename");
		goto out;
	}
	/* Extract relative to the tree, as `tar -C tree` does: with absolute
	 * names the disk writer lstat()s every component of the scratch path
	 * for each entry (its symlink check), which GNU tar does not. The
	 * worker is single-threaded here (the server is not running), and the
	 * old directory is restored before returning. */
	here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	td = openat(s->env->dirfd, "tree", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (here < 0 || td < 0 || fchdir(td)) {
		rc = bench_fail(s->env, "fchdir(tree)");
		goto out;
	}
	for (;;) {
		if (reg_stop_requested())
			break;
		uint64_t t = meter_now(), bytes = 0;
		int h = archive_read_next_header(r, &e);
		if (h == ARCHIVE_EOF)
			break;
		const char *why = "archive_read_next_header";
		if (h == ARCHIVE_OK) {
			why = "archive_write_header";
			h = archive_write_header(w, e);
		}
		const void *blk;
		size_t sz;
		la_int64_t off;
		while (h == ARCHIVE_OK && (h = archive_read_data_block(r, &blk, &sz, &off)) == ARCHIVE_OK) {
			why = "archive_write_data_block";
			if (archive_write_data_block(w, blk, sz, off) < 0)
				h = ARCHIVE_FATAL;
			bytes += sz;
		}
		if (h == ARCHIVE_EOF)
			h = archive_write_finish_entry(w), why = "archive_write_finish_entry";
		if (h != ARCHIVE_OK) {
			fprintf(stderr, "work.round2: %s: %s\n", why,
				archive_error_string(w) ? archive_error_string(w) : "?");
			if (!errno)
				errno = EIO;
			rc = bench_fail(s->env, why);
			break;
		}
		pthread_mutex_lock(&s->lock);
		record(s, &s->r, t, meter_now(), bytes);
		pthread_mutex_unlock(&s->lock);
	}
out:
	if (w) {
		if (archive_write_close(w) != ARCHIVE_OK && rc == 0) { /* sets deferred directory times */
			errno = EIO;
			rc = bench_fail(s->env, "archive_write_close");
		}
		archive_write_free(w);
	}
	if (r)
		archive_read_free(r);
	if (here >= 0 && fchdir(here) && rc == 0)
		rc = bench_fail(s->env, "fchdir(back)");
	if (here >= 0)
		close(here);
	if (td >= 0)
		close(td);
	return rc;
}

/* ---- delete: as rm -rf, entries first, each directory after them ---- */
static int remove_tree(struct st *s, int dfd, int depth)
{
	int rc = 0;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return bench_fail(s->env, "fdopendir");
	}
	for (int again = 1; again && rc == 0 && !reg_stop_requested();) {
		struct dirent *de;
		again = 0;
		errno = 0;
		while (rc == 0 && (de = readdir(d)) && !reg_stop_requested()) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			again = 1;
			int isdir = de->d_type == DT_DIR;
			if (de->d_type == DT_UNKNOWN) {
				struct stat sb;
				isdir = !fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) &&
					S_ISDIR(sb.st_mode);
			}
			if (isdir && depth < 8) {
				int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (sub < 0) {
					rc = bench_fail(s->env, "openat(O_DIRECTORY)");
					break;
				}
				rc = remove_tree(s, sub, depth + 1);
				if (rc)
					break;
			}
			uint64_t t = meter_now();
			if (unlinkat(dirfd(d), de->d_name, isdir ? AT_REMOVEDIR : 0)) {
				rc = bench_fail(s->env, "unlinkat");
				break;
			}
			pthread_mutex_lock(&s->lock);
			record(s, &s->r, t, meter_now(), 0);
			pthread_mutex_unlock(&s->lock);
		}
		if (again)
			rewinddir(d); /* names read while deleting may be missed: read again */
	}
	closedir(d);
	return rc;
}

/* ---- the HTTP server ---- */
struct conn { char *buf; size_t have; uint64_t last; };

/* Open rel inside treefd, one component at a time, never following a
 * symbolic link; the descriptor of a regular file, or -errno. */
static int open_beneath(int treefd, const char *rel)
{
	char comp[HTTP_PATH_MAX];
	int d = treefd;
	const char *p = rel;
	for (;;) {
		const char *sl = strchr(p, '/');
		size_t l = sl ? (size_t)(sl - p) : strlen(p);
		memcpy(comp, p, l);
		comp[l] = 0;
		int fd = openat(d, comp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (sl ? O_DIRECTORY : 0));
		int e = errno;
		if (d != treefd)
			close(d);
		if (fd < 0)
			return -e;
		if (!sl) {
			struct stat sb;
			if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
				close(fd);
				return -EISDIR;
			}
			return fd;
		}
		d = fd;
		p = sl + 1;
	}
}

static int send_status(int fd, int code)
{
	char b[160];
	const char *t = code == 404 ? "Not Found" : code == 403 ? "Forbidden" : code == 405 ? "Method Not Allowed"
		: code == 414 ? "URI Too Long" : code == 431 ? "Request Header Fields Too Large"
		: code == 505 ? "HTTP Version Not Supported" : code == 503 ? "Service Unavailable" : "Bad Request";
	int n = snprintf(b, sizeof(b), "HTTP/1.1 %d %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", code, t);
	return send(fd, b, (size_t)n, MSG_NOSIGNAL) == n ? 0 : -1;
}

/* Serve one parsed request; 0 keep the connection, -1 close it. */
static int serve_one(struct st *s, int fd, const struct http_req *q)
{
	int f = open_beneath(s->treefd, q->path);
	if (f < 0) {
		atomic_fetch_add(&s->srv_refused, 1);
		send_status(fd, f == -ENOENT ? 404 : 403);
		return -1;
	}
	struct stat sb;
	fstat(f, &sb);
	char h[160];
	int n = snprintf(h, sizeof(h), "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
			 "Content-Length: %lld\r\n%s\r\n", (long long)sb.st_size,
			 q->keep_alive ? "" : "Connection: close\r\n");
	if (send(fd, h, (size_t)n, MSG_NOSIGNAL | MSG_MORE) != n) {
		close(f);
		return -1;
	}
	off_t off = 0;
	while (off < sb.st_size) {
		ssize_t w = sendfile(fd, f, &off, (size_t)(sb.st_size - off));
		if (w <= 0 && !(w < 0 && errno == EINTR)) { /* error, send timeout or the file shrank */
			close(f);
			return -1;
		}
	}
	close(f);
	atomic_fetch_add(&s->srv_requests, 1);
	return q->keep_alive ? 0 : -1;
}

static void conn_close(struct ev *ev, struct conn *c, int fd, int *count)
{
	ev_del(ev, fd);
	close(fd);
	free(c->buf);
	memset(c, 0, sizeof(*c));
	(*count)--;
}

static void *server(void *arg)
{
	struct st *s = arg;
	struct ev *ev = NULL;
	int cap = ev_fd_limit(s->mech), count = 0, fds[256];
	if (cap > 65536)
		cap = 65536;
	struct conn *c = calloc((size_t)cap, sizeof(*c));
	if (!c || ev_open(s->mech, &ev, s->srv_why, sizeof(s->srv_why)) || ev_add(ev, s->lfd)) {
		snprintf(s->srv_why, sizeof(s->srv_why), "server: no event mechanism or memory");
		atomic_store(&s->srv_stop, 1);
	}
	uint64_t sweep = meter_now();
	while (!atomic_load(&s->srv_stop) && !reg_stop_requested()) {
		int n = ev_wait(ev, fds, 256, 50);
		uint64_t now = meter_now();
		for (int i = 0; i < n; i++) {
			int fd = fds[i];
			if (fd == s->lfd) {
				int a;
				while ((a = accept(s->lfd, NULL, NULL)) >= 0) {
					struct timeval tv = {(time_t)(s->idle_ns / 1000000000ull), 0};
					if ((uint64_t)count >= s->max_conns || a >= cap) {
						send_status(a, 503);
						close(a);
						atomic_fetch_add(&s->srv_refused, 1);
						continue;
					}
					int one = 1; /* else Nagle holds a reply's tail for the peer's delayed ACK (40 ms) */
					setsockopt(a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
					setsockopt(a, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
					c[a].buf = malloc(s->max_head + 1);
					if (!c[a].buf || ev_add(ev, a)) {
						free(c[a].buf);
						c[a].buf = NULL;
						close(a);
						continue;
					}
					c[a].have = 0;
					c[a].last = now;
					count++;
				}
				continue;
			}
			if (fd < 0 || fd >= cap || !c[fd].buf)
				continue;
			struct conn *k = &c[fd];
			int close_it = 0;
			for (;;) { /* drain */
				ssize_t r = recv(fd, k->buf + k->have, s->max_head - k->have, MSG_DONTWAIT);
				if (r > 0) {
					k->have += (size_t)r;
					k->last = now;
				} else if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
					close_it = 1;
				}
				struct http_req q;
				int p;
				while (!close_it && (p = http_parse_request(k->buf, k->have, s->max_head, &q)) != 0) {
					if (p < 0) {
						atomic_fetch_add(&s->srv_refused, 1);
						send_status(fd, -p);
						close_it = 1;
						break;
					}
					if (serve_one(s, fd, &q))
						close_it = 1;
					memmove(k->buf, k->buf + p, k->have - (size_t)p);
					k->have -= (size_t)p;
				}
				if (close_it || r <= 0)
					break;
			}
			if (close_it)
				conn_close(ev, k, fd, &count);
		}
		if (now - sweep > 100000000ull) { /* idle connections */
			sweep = now;
			for (int fd = 0; fd < cap; fd++)
				if (c[fd].buf && now - c[fd].last > s->idle_ns)
					conn_close(ev, &c[fd], fd, &count);
		}
	}
	for (int fd = 0; c && fd < cap; fd++)
		if (c[fd].buf)
			conn_close(ev, &c[fd], fd, &count);
	free(c);
	ev_close(ev);
	return NULL;
}

static int server_start(struct st *s, pthread_t *th)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->lfd < 0)
		return bench_fail(s->env, "socket");
	if (bind(s->lfd, (struct sockaddr *)&a, sizeof(a)) || listen(s->lfd, 4096) ||
	    getsockname(s->lfd, (struct sockaddr *)&a, &al)) {
		int rc = bench_fail(s->env, "bind/listen 127.0.0.1:0");
		close(s->lfd);
		s->lfd = -1;
		return rc;
	}
	s->port = ntohs(a.sin_port);
	s->treefd = open(s->tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	atomic_store(&s->srv_stop, 0);
	if (s->treefd < 0 || pthread_create(th, NULL, server, s)) {
		int rc = bench_fail(s->env, s->treefd < 0 ? "open(tree)" : "pthread_create");
		if (s->treefd >= 0)
			close(s->treefd);
		close(s->lfd);
		s->lfd = -1;
		return rc;
	}
	return 0;
}

static void server_stop(struct st *s, pthread_t th)
{
	atomic_store(&s->srv_stop, 1);
	pthread_join(th, NULL);
	close(s->lfd);
	close(s->treefd);
	s->lfd = -1;
}

/* ---- the clients: K keep-alive connections, closed or open loop ---- */
struct cconn { int fd; int busy; uint64_t issued; size_t have; long long need; char hb[1024]; };

static int cconnect(struct st *s)
{
	struct sockaddr_in a;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)s->port);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

static int csend(struct st *s, struct cconn *c, uint64_t issued)
{
	char req[160], name[64];
	uint64_t k = atomic_fetch_add(&s->next_req, 1);
	name_of(s, s->log[k % LOGLEN], name, sizeof(name));
	int n = snprintf(req, sizeof(req), "GET /%s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", name);
	if (send(c->fd, req, (size_t)n, MSG_NOSIGNAL) != n)
		return -1;
	c->busy = 1;
	c->issued = issued;
	c->have = 0;
	c->need = -1;
	return 0;
}

/* Read what is there; 1 when the response is complete, 0 more, -1 error. */
static int crecv(struct cconn *c, char *sink, size_t sinklen, uint64_t *bytes)
{
	for (;;) {
		if (c->need < 0) {
			ssize_t r = recv(c->fd, c->hb + c->have, sizeof(c->hb) - 1 - c->have, 0);
			if (r == 0)
				return -1;
			if (r < 0)
				return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
			c->have += (size_t)r;
			c->hb[c->have] = 0;
			char *e = strstr(c->hb, "\r\n\r\n"), *cl;
			if (!e)
				if (c->have >= sizeof(c->hb) - 1)
					return -1;
			if (!e)
				continue;
			if (strncmp(c->hb, "HTTP/1.1 200", 12) || !(cl = strcasestr(c->hb, "content-length:")))
				return -1;
			long long len = atoll(cl + 15);
			size_t body = c->have - (size_t)(e + 4 - c->hb);
			*bytes = (uint64_t)len;
			c->need = len - (long long)body;
			if (c->need <= 0)
				return c->need == 0 ? 1 : -1;
		}
		ssize_t r = recv(c->fd, sink, sinklen < (size_t)c->need ? sinklen : (size_t)c->need, 0);
		if (r == 0)
			return -1;
		if (r < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
		c->need -= r;
		if (c->need == 0)
			return 1;
	}
}

struct cthread { struct st *s; int idx, k; pthread_t th; };

static void *client(void *arg)
{
	struct cthread *ct = arg;
	struct st *s = ct->s;
	struct cconn *c = calloc((size_t)ct->k, sizeof(*c));
	struct pollfd *pf = calloc((size_t)ct->k, sizeof(*pf));
	char *sink = malloc(1 << 16);
	uint64_t t0 = meter_now(), nsent = 0;
	double per = s->cl_rate ? 1e9 * s->cl_threads / (double)s->cl_rate : 0; /* ns between requests */
	for (int i = 0; c && i < ct->k; i++)
		c[i].fd = -1;
	while (c && pf && sink && !reg_stop_requested()) {
		uint64_t now = meter_now();
		int busy = 0;
		for (int i = 0; i < ct->k; i++)
			busy += c[i].busy;
		if (now >= atomic_load(&s->cl_end) || (!busy && atomic_load(&s->next_req) >= s->cl_reqs))
			break;
		for (int i = 0; i < ct->k; i++) { /* (re)connect and issue */
			if (c[i].fd < 0 && (c[i].fd = cconnect(s)) < 0) {
				pthread_mutex_lock(&s->lock);
				s->crec->errors++;
				pthread_mutex_unlock(&s->lock);
				continue;
			}
			if (c[i].busy)
				continue;
			if (atomic_load(&s->next_req) >= s->cl_reqs)
				break;
			uint64_t intended = per > 0 ? t0 + (uint64_t)(nsent * per) : now;
			if (intended > now)
				break;
			if (csend(s, &c[i], intended)) {
				close(c[i].fd);
				c[i].fd = -1;
				continue;
			}
			nsent++;
		}
		int np = 0;
		for (int i = 0; i < ct->k; i++) {
			pf[i].fd = c[i].busy ? c[i].fd : -1;
			pf[i].events = POLLIN;
			np += c[i].busy;
		}
		/* Sleep until a response or the next intended start, never spin:
		 * a spinning client takes a CPU from the server (two here). With
		 * every connection busy, only a response can let a request go. */
		uint64_t wait_ns = 10000000;
		if (per > 0 && np < ct->k) {
			uint64_t nx = t0 + (uint64_t)(nsent * per);
			wait_ns = nx > now ? nx - now : 0;
			wait_ns = wait_ns > 10000000 ? 10000000 : wait_ns;
		}
		struct timespec to = {0, (long)wait_ns};
		if (ppoll(pf, (nfds_t)ct->k, &to, NULL) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < ct->k; i++) {
			if (!c[i].busy || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			uint64_t bytes = 0;
			int r = crecv(&c[i], sink, 1 << 16, &bytes);
			if (r == 0)
				continue;
			pthread_mutex_lock(&s->lock);
			if (r > 0)
				record(s, s->crec, c[i].issued, meter_now(), bytes);
			else
				s->crec->errors++;
			pthread_mutex_unlock(&s->lock);
			c[i].busy = 0;
			if (r < 0) {
				close(c[i].fd);
				c[i].fd = -1;
			}
		}
	}
	for (int i = 0; c && i < ct->k; i++)
		if (c[i].fd >= 0)
			close(c[i].fd);
	free(c);
	free(pf);
	free(sink);
	return NULL;
}

/* Start the client threads (K connections over two) at rate (0: closed
 * loop) until cl_end or cl_reqs; the number started. */
static int clients_start(struct st *s, struct cthread *ct, uint64_t k, uint64_t rate, uint64_t end,
			 uint64_t reqs)
{
	int nt = k >= 2 ? 2 : 1, started = 0;
	s->cl_rate = rate;
	s->cl_threads = nt;
	s->cl_reqs = reqs;
	atomic_store(&s->cl_end, end);
	atomic_store(&s->next_req, 0);
	for (int t = 0; t < nt; t++) {
		ct[t].s = s;
		ct[t].idx = t;
		ct[t].k = (int)(k / (uint64_t)nt + ((uint64_t)t < k % (uint64_t)nt));
		if (pthread_create(&ct[t].th, NULL, client, &ct[t]))
			break;
		started++;
	}
	return started;
}

static json_t *http_fields(json_t *o, uint64_t k, uint64_t rate)
{
	json_object_set_new(o, "conns", json_integer((json_int_t)k));
	json_object_set_new(o, "mode", json_string(rate ? "open" : "closed"));
	if (rate)
		json_object_set_new(o, "rate", json_integer((json_int_t)rate));
	return o;
}

static json_t *serve_phase(struct st *s, const char *name, uint64_t k, uint64_t rate)
{
	struct cthread ct[2];
	phase_begin(&s->r, name, 1);
	s->crec = &s->r;
	json_t *jbd0 = sys_jbd2_info(s->jbd2);
	int started = clients_start(s, ct, k, rate, meter_now() + s->serve_ns, s->n * s->reqs_per_file);
	for (int t = 0; t < started; t++)
		pthread_join(ct[t].th, NULL);
	return http_fields(phase_end(s, &s->r, jbd0), k, rate);
}

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
	if (la_load(env->skip, sizeof(env->skip)))
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
	sys_jbd2_find(s->env->dirfd, s->jbd2, sizeof(s->jbd2));
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
	rc = make_tar(s, s->tar, 0);
	if (rc == 0)
		rc = make_tar(s, s->tar_over, 1);
	json_object_set_new(phases, "make", json_pack("{s:I,s:f}", "files", (json_int_t)s->n, "seconds",
						      (double)(meter_now() - t) / 1e9));
	if (rc == 0 && mkdir(s->tree, BENCH_DIR_MODE))
		rc = bench_fail(s->env, "mkdir(tree)");
	if (rc == 0 && !reg_stop_requested()) {
		phase_begin(&s->r, "unpack", 0);
		json_t *j = sys_jbd2_info(s->jbd2);
		rc = unpack(s, s->tar);
		json_object_set_new(phases, "unpack", phase_end(s, &s->r, j));
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
		rc = server_start(s, &srv);
		srv_up = rc == 0;
	}
	for (int i = 0; i < s->nconns && rc == 0 && !reg_stop_requested(); i++) {
		char nm[32];
		snprintf(nm, sizeof(nm), "serve_c%llu", (unsigned long long)s->conns[i]);
		o = serve_phase(s, nm, s->conns[i], 0);
		double rps = json_number_value(json_object_get(o, "requests_s"));
		json_object_set_new(phases, nm, o);
		snprintf(nm, sizeof(nm), "serve_o%llu", (unsigned long long)s->conns[i]);
		uint64_t rate = s->rate ? s->rate : (uint64_t)(rps / 2);
		if (i == 0)
			over_rate = rate;
		if (rate)
			json_object_set_new(phases, nm, serve_phase(s, nm, s->conns[i], rate));
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
		phase_begin(&s->r, "unpack_over", 0);
		json_t *j = sys_jbd2_info(s->jbd2);
		if (srv_up && over_rate) {
			phase_begin(&s->r2, "serve_during_over", 1);
			s->crec = &s->r2;
			started = clients_start(s, ct, s->conns[0], over_rate, UINT64_MAX, UINT64_MAX);
		}
		rc = unpack(s, s->tar_over);
		atomic_store(&s->cl_end, 0);
		for (int w = 0; w < started; w++)
			pthread_join(ct[w].th, NULL);
		json_object_set_new(phases, "unpack_over", phase_end(s, &s->r, j));
		if (srv_up && over_rate) {
			/* "beside": it ran during unpack_over, not after it (the
			 * report places findings by summing the phases before) */
			json_t *so = http_fields(phase_end(s, &s->r2, NULL), s->conns[0], over_rate);
			json_object_set_new(so, "beside", json_string("unpack_over"));
			json_object_set_new(phases, "serve_during_over", so);
		}
	}
	if (srv_up) {
		server_stop(s, srv);
		json_object_set_new(phases, "server",
				    json_pack("{s:I,s:I,s:s}", "requests", (json_int_t)atomic_load(&s->srv_requests),
					      "refused", (json_int_t)atomic_load(&s->srv_refused), "problem", s->srv_why));
	}
	unlink(s->tar);
	unlink(s->tar_over);
	if (rc == 0 && !reg_stop_requested()) {
		phase_begin(&s->r, "delete", 0);
		json_t *j = sys_jbd2_info(s->jbd2);
		int d = open(s->tree, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		rc = d < 0 ? bench_fail(s->env, "open(tree)") : remove_tree(s, d, 0);
		if (rc == 0 && !reg_stop_requested()) {
			uint64_t t1 = meter_now();
			if (rmdir(s->tree))
				rc = bench_fail(s->env, "rmdir(tree)");
			else {
				pthread_mutex_lock(&s->lock);
				record(s, &s->r, t1, meter_now(), 0);
				pthread_mutex_unlock(&s->lock);
			}
		}
		json_object_set_new(phases, "delete", phase_end(s, &s->r, j));
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
	.needs = NEED_DIR | NEED_LINUX, .unit = "file", .series = SERIES_125, .flags = BENCH_FULL_BUDGET,
	.quick_max_n = 2000, .default_max_n = 20000, .full_max_n = 1000000,
	.space_mib = 2200, .max_batch = 1,
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
