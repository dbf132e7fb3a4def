/* SPDX-License-Identifier: MIT */
/* The history database's front: backend choice, the default location,
 * the metadata every backend stores beside the document, and loading a
 * result named either by a file or by a history id. */
#include "out/db.h"
#include "out/result_io.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int db_default_path(char *buf, size_t len)
{
	const char *x = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	int n;
	if (x && *x == '/')
		n = snprintf(buf, len, "%s/scalebench/results.db", x);
	else if (home && *home)
		n = snprintf(buf, len, "%s/.local/share/scalebench/results.db", home);
	else
		return -1;
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* mkdir -p of the directory holding path. */
static int make_parent(const char *path, char *err, size_t errlen)
{
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", path);
	char *slash = strrchr(buf, '/');
	if (!slash || slash == buf)
		return 0;
	*slash = 0;
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = 0;
		if (mkdir(buf, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "cannot create %s: %s", buf, strerror(errno));
			return -1;
		}
		*p = c;
		if (!c)
			return 0;
	}
}

static int is_pg(const char *t)
{
	return !strncmp(t, "postgresql://", 13) || !strncmp(t, "postgres://", 11);
}

/* The URL without a password ("user:secret@" -> "user@"), for messages. */
static void redact(const char *t, char *out, size_t len)
{
	const char *at = strchr(t, '@'), *scheme = strstr(t, "://");
	const char *colon = scheme ? strchr(scheme + 3, ':') : NULL;
	size_t o = 0;
	for (const char *p = t; *p && o + 1 < len; p++) {
		if (at && colon && colon < at && p > colon && p < at)
			continue; /* the password */
		out[o++] = *p;
		if (at && colon && colon < at && p == colon)
			for (const char *m = "***"; *m && o + 1 < len; m++)
				out[o++] = *m;
	}
	out[o] = 0;
}

int db_open(const char *target, enum db_mode mode, struct db **out, char *err, size_t errlen)
{
	char path[4096];
	*out = NULL;
	if (!target) {
		if (db_default_path(path, sizeof(path))) {
			snprintf(err, errlen, "no database: neither XDG_DATA_HOME nor HOME is set "
					      "(use --db PATH or --no-db)");
			return -1;
		}
		if (mode == DB_WRITE && make_parent(path, err, errlen))
			return -1;
		target = path;
	}
	struct db *d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	d->ops = is_pg(target) ? &db_pg_ops : &db_sqlite_ops;
	redact(target, d->label, sizeof(d->label));
	char inner[512];
	if (d->ops->open(d, target, mode == DB_WRITE, inner, sizeof(inner))) {
		snprintf(err, errlen, "%s: %s", d->label, inner);
		free(d);
		return -1;
	}
	*out = d;
	return 0;
}

void db_close(struct db *d)
{
	if (!d)
		return;
	d->ops->close(d);
	free(d);
}

int db_store(struct db *d, const struct run_result *r, int64_t *id, char *err, size_t errlen)
{
	json_t *j = result_to_json(r);
	char *doc = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(j);
	if (!doc) {
		snprintf(err, errlen, "%s: could not build the JSON document", d->label);
		return -1;
	}
	char inner[512];
	int rc = d->ops->store(d, r, doc, id, inner, sizeof(inner));
	free(doc);
	if (rc)
		snprintf(err, errlen, "%s: %s", d->label, inner);
	return rc;
}

int db_list(struct db *d, const struct db_filter *f,
	    int (*fn)(void *ctx, const struct db_run *row), void *ctx, char *err, size_t errlen)
{
	char inner[512];
	int rc = d->ops->list(d, f, fn, ctx, inner, sizeof(inner));
	if (rc)
		snprintf(err, errlen, "%s: %s", d->label, inner);
	return rc;
}

int db_get_doc(struct db *d, int64_t id, char **doc, char *err, size_t errlen)
{
	char inner[512];
	int rc = d->ops->get(d, id, doc, inner, sizeof(inner));
	if (rc)
		snprintf(err, errlen, "%s: %s", d->label, inner);
	return rc;
}

int db_get_result(struct db *d, int64_t id, struct run_result *r, json_t **out, char *err,
		  size_t errlen)
{
	char *doc = NULL;
	if (out)
		*out = NULL;
	memset(r, 0, sizeof(*r));
	if (db_get_doc(d, id, &doc, err, errlen))
		return -1;
	json_error_t je;
	json_t *j = json_loads(doc, JSON_REJECT_DUPLICATES, &je);
	free(doc);
	if (!j) {
		snprintf(err, errlen, "%s: run %lld: stored document is not valid JSON "
				      "(line %d column %d: %s)",
			 d->label, (long long)id, je.line, je.column, je.text);
		return -1;
	}
	char inner[400];
	int rc = result_from_json(j, r, inner, sizeof(inner));
	if (rc)
		snprintf(err, errlen, "%s: run %lld: stored document: %s", d->label, (long long)id,
			 inner);
	if (out && !rc)
		*out = j;
	else
		json_decref(j);
	return rc;
}

static const char *jstr(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(json_object_get(o, a), b);
	return json_is_string(v) ? json_string_value(v) : "";
}

void db_run_meta(const struct run_result *r, struct db_run *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->started, sizeof(m->started), "%s", r->started ? r->started : "");
	snprintf(m->host, sizeof(m->host), "%s", r->host ? r->host : "");
	snprintf(m->kernel, sizeof(m->kernel), "%s", jstr(r->snapshot, "kernel", "release"));
	const char *name;
	const json_t *t;
	json_object_foreach((json_t *)r->targets, name, t) { /* matrix: per-target snapshots */
		if (*m->kernel)
			break;
		snprintf(m->kernel, sizeof(m->kernel), "%s",
			 jstr(json_object_get(t, "snapshot"), "kernel", "release"));
	}
	snprintf(m->fs_type, sizeof(m->fs_type), "%s", jstr(r->snapshot, "filesystem", "type"));
	snprintf(m->tool_version, sizeof(m->tool_version), "%s",
		 r->tool_version ? r->tool_version : "");
	m->nbenches = r->nbenches;
	m->interrupted = r->interrupted;
}

char *db_join_argv(const struct run_result *r)
{
	size_t len = 1;
	for (int i = 0; i < r->argc; i++)
		len += strlen(r->argv[i]) + 1;
	char *s = malloc(len);
	if (!s)
		return NULL;
	s[0] = 0;
	for (int i = 0, off = 0; i < r->argc; i++)
		off += sprintf(s + off, "%s%s", i ? " " : "", r->argv[i]);
	return s;
}

int64_t db_parse_id(const char *s)
{
	if (*s == '#')
		s++;
	if (!*s || strlen(s) > 15)
		return -1;
	int64_t v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v > 0 ? v : -1;
}

static int load_one(const char *spec, const char *dbspec, struct run_result *r, char *label,
		    size_t labellen, char *err, size_t errlen)
{
	struct stat st;
	memset(r, 0, sizeof(*r));
	int64_t id = db_parse_id(spec);
	if (stat(spec, &st) == 0 || id < 0) {
		const char *base = strrchr(spec, '/');
		snprintf(label, labellen, "%s", base && base[1] ? base + 1 : spec);
		return result_read_file(spec, r, err, errlen);
	}
	struct db *d;
	if (db_open(dbspec, DB_READ, &d, err, errlen))
		return -1;
	int rc = db_get_result(d, id, r, NULL, err, errlen);
	db_close(d);
	snprintf(label, labellen, "#%lld", (long long)id);
	return rc;
}

/* Keep only the benches of matrix target t, as a run with --dir on that
 * file system would have them: no target on the benches, its snapshot as
 * the run's. 0, or -1 naming the targets there are. */
static int pick_target(struct run_result *r, const char *spec, const char *t, char *err,
		       size_t errlen)
{
	json_t *tj = r->targets ? json_object_get(r->targets, t) : NULL;
	if (!tj) {
		char have[512] = "";
		const char *k;
		json_t *v;
		size_t n = 0;
		if (r->targets)
			json_object_foreach(r->targets, k, v) {
				if (n >= sizeof(have))
					break; /* truncated: snprintf wrote what fits */
				n += (size_t)snprintf(have + n, sizeof(have) - n, "%s%s", n ? ", " : "", k);
			}
		snprintf(err, errlen, "%s: no matrix target '%s' (%s%s)", spec, t,
			 r->targets ? "it has " : "not a matrix result", have);
		return -1;
	}
	int kept = 0;
	for (int i = 0; i < r->nbenches; i++) {
		struct bench_result *b = &r->benches[i];
		if (b->target && !strcmp(b->target, t)) {
			free(b->target);
			b->target = NULL;
			if (kept != i) {
				r->benches[kept] = *b;
				memset(b, 0, sizeof(*b));
			}
			kept++;
		} else {
			bench_result_clear(b);
		}
	}
	r->nbenches = kept;
	json_t *snap = json_object_get(tj, "snapshot");
	if (json_is_object(snap)) {
		json_decref(r->snapshot);
		r->snapshot = json_incref(snap);
	}
	json_decref(r->targets);
	r->targets = NULL;
	return 0;
}

int result_load_spec(const char *spec, const char *dbspec, struct run_result *r, char *label,
		     size_t labellen, char *err, size_t errlen)
{
	struct stat st;
	/* SPEC@TARGET: the first '@' whose left side is a file or an id (a
	 * target's own label may hold '@': ext4@noatime) */
	if (stat(spec, &st) != 0 && db_parse_id(spec) < 0)
		for (const char *at = strchr(spec, '@'); at; at = strchr(at + 1, '@')) {
			char base[4096];
			snprintf(base, sizeof(base), "%.*s", (int)(at - spec), spec);
			if (!base[0] || (stat(base, &st) != 0 && db_parse_id(base) < 0))
				continue;
			if (load_one(base, dbspec, r, label, labellen, err, errlen))
				return -1;
			if (pick_target(r, base, at + 1, err, errlen)) {
				result_free(r);
				return -1;
			}
			size_t l = strlen(label);
			snprintf(label + l, labellen - l, "@%s", at + 1);
			return 0;
		}
	return load_one(spec, dbspec, r, label, labellen, err, errlen);
}

int db_load_lib(void **handle, const char *soname, const char *what, const char *package,
		const struct db_sym *syms, int nsyms, char *err, size_t errlen)
{
	if (*handle)
		return 0;
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen, "%s: cannot load %s (Debian: %s): %s", what, soname, package,
			 dlerror());
		return -1;
	}
	for (int i = 0; i < nsyms; i++)
		if (!(*syms[i].slot = dlsym(h, syms[i].name))) {
			snprintf(err, errlen, "%s: %s lacks %s", what, soname, syms[i].name);
			dlclose(h);
			return -1;
		}
	*handle = h;
	return 0;
}
