/* SPDX-License-Identifier: MIT */
/* work.round2: the tars (round2.h): libarchive loaded at setup, the two
 * tars made, one unpacked entry by entry, the tree deleted. */
#if defined(HAVE_LIBARCHIVE) && !defined(SB_POSIX_ONLY)
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "core/registry.h"
#include "bench/webload.h"
#include "bench/round2.h"

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

int r2_la_load(char *why, size_t len)
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


size_t r2_file_size(const struct st *s, uint64_t i, uint64_t v)
{
	return seed_file_size(s->seed, i, v, s->min_b, s->max_b);
}

void r2_name_of(const struct st *s, uint64_t i, char *b, size_t len)
{
	if (s->per_dir)
		snprintf(b, len, "d%05llu/f%07llu", (unsigned long long)(i / s->per_dir),
			 (unsigned long long)i);
	else
		snprintf(b, len, "f%07llu", (unsigned long long)i);
}

/* ---- make: the two tars ---- */
int r2_make_tar(struct st *s, const char *path, int over)
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
		r2_name_of(s, i, name, sizeof(name));
		size_t len = r2_file_size(s, i, (uint64_t)over);
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
int r2_unpack(struct st *s, const char *tar)
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
		r2_record(s, &s->r, t, meter_now(), bytes);
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
int r2_remove_tree(struct st *s, int dfd, int depth)
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
				rc = r2_remove_tree(s, sub, depth + 1);
				if (rc)
					break;
			}
			uint64_t t = meter_now();
			if (unlinkat(dirfd(d), de->d_name, isdir ? AT_REMOVEDIR : 0)) {
				rc = bench_fail(s->env, "unlinkat");
				break;
			}
			pthread_mutex_lock(&s->lock);
			r2_record(s, &s->r, t, meter_now(), 0);
			pthread_mutex_unlock(&s->lock);
		}
		if (again)
			rewinddir(d); /* names read while deleting may be missed: read again */
	}
	closedir(d);
	return rc;
}
#endif
