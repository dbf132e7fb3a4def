/* SPDX-License-Identifier: MIT */
/* The result in the formats kernel-testing systems read (docs/fleet.md):
 * KCIDB v4.4 JSON, LAVA lava-test-case lines, lkp-tests `key: value`
 * lines and KTAP. One test per bench, variant and file system; its status
 * from the bench's status or, given a comparison, from compare's word. */
#include "out/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const fmt_names[] = {"kcidb", "lava", "lkp", "ktap"};

int fleet_format_from_name(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (s && !strcmp(s, fmt_names[i]))
			return i;
	return -1;
}

/* KCIDB's status words; LAVA, LKP and KTAP map them down. */
enum fstatus { FS_PASS, FS_FAIL, FS_ERROR, FS_SKIP, FS_DONE };
static const char *const kcidb_status[] = {"PASS", "FAIL", "ERROR", "SKIP", "DONE"};

struct ftest {
	char path[256];     /* scalebench.fs.create[ext4] */
	char flat[256];     /* scalebench.fs.create.ext4: [.A-Za-z0-9_-] only */
	char key[256];      /* compare's key: fs.create[variant]@target */
	enum fstatus st;
	const char *word;   /* compare's word, or NULL */
	const char *why;    /* skip reason, failure message, or NULL */
	double cost, p99;   /* ns at the largest N (median over repetitions); NAN none */
	double exponent;    /* NAN none */
	uint64_t n;         /* the largest N */
	const char *verdict;
	const char *unit;
};

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median over the repetitions of p50 (or p99) at n; NAN if none. */
static double at_n(const struct bench_result *b, uint64_t n, int p99)
{
	double *v = malloc((size_t)b->nreps * sizeof(*v) + 1), m = NAN;
	int k = 0;
	for (int r = 0; v && r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts; i++) {
			const struct point *p = &b->reps[r].pts[i];
			double x = p99 ? p->st.p99 : p->st.p50;
			if (p->n == n && x > 0 && isfinite(x)) {
				v[k++] = x;
				break; /* one per repetition */
			}
		}
	if (k) {
		qsort(v, (size_t)k, sizeof(v[0]), cmp_dbl);
		m = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	}
	free(v);
	return m;
}

static void flatten(char *dst, size_t len, const char *src)
{
	size_t j = 0;
	for (const char *s = src; *s && j + 1 < len; s++) {
		char c = *s;
		if (c == ']')
			continue;
		if (c == '[')
			c = '.';
		else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			c = '_';
		dst[j++] = c;
	}
	dst[j] = 0;
}

static const char *snap_str(const struct run_result *r, const char *a, const char *b)
{
	const char *s = json_string_value(json_object_get(json_object_get(r->snapshot, a), b));
	return s ? s : "";
}

/* The kernel's field key: from the run's snapshot, or in a matrix result
 * (whose snapshots are per file system) from the first target's. */
static const char *kernel_str(const struct run_result *r, const char *key)
{
	const char *s = snap_str(r, "kernel", key);
	const char *name;
	const json_t *t;
	json_object_foreach((json_t *)r->targets, name, t) {
		if (*s)
			break;
		s = json_string_value(json_object_get(
			json_object_get(json_object_get(t, "snapshot"), "kernel"), key));
		s = s ? s : "";
	}
	return s;
}

static const json_t *find_cmp(const json_t *cmp, const char *key)
{
	size_t i;
	const json_t *b;
	json_array_foreach(json_object_get(cmp, "benches"), i, b) {
		const char *n = json_string_value(json_object_get(b, "name"));
		if (n && !strcmp(n, key))
			return b;
	}
	return NULL;
}

static void describe(const struct run_result *r, const struct bench_result *b, const json_t *cmp,
		     struct ftest *t)
{
	char lb[200];
	memset(t, 0, sizeof(*t));
	bench_label(b, lb, sizeof(lb));
	const char *fs = b->target && *b->target ? b->target : NULL;
	if (!fs && b->name && (!strncmp(b->name, "fs.", 3) || !strncmp(b->name, "io.", 3)) &&
	    *snap_str(r, "filesystem", "type"))
		fs = snap_str(r, "filesystem", "type");
	snprintf(t->path, sizeof(t->path), "scalebench.%s%s%s%s", lb, fs ? "[" : "", fs ? fs : "",
		 fs ? "]" : "");
	flatten(t->flat, sizeof(t->flat), t->path);
	if (b->target && *b->target)
		snprintf(t->key, sizeof(t->key), "%s@%s", lb, b->target);
	else
		snprintf(t->key, sizeof(t->key), "%s", lb);
	switch (b->status) {
	case BS_OK: t->st = FS_PASS; break;
	case BS_FAILED: t->st = FS_FAIL; break;
	case BS_SKIPPED: t->st = FS_SKIP; break;
	default: t->st = FS_ERROR; break;
	}
	if (b->status == BS_SKIPPED)
		t->why = b->skip_reason;
	for (int i = 0; !t->why && b->status == BS_FAILED && i < b->nreps; i++)
		if (b->reps[i].fail)
			t->why = b->reps[i].fail->msg;
	const json_t *c = cmp ? find_cmp(cmp, t->key) : NULL;
	t->word = c ? json_string_value(json_object_get(c, "word")) : NULL;
	if (t->word && t->st == FS_PASS) {
		if (!strcmp(t->word, "slower"))
			t->st = FS_FAIL;
		else if (!strcmp(t->word, "noisy") || !strcmp(t->word, "insufficient"))
			t->st = FS_DONE; /* ran, but compare could not call it */
	}
	for (int q = 0; q < b->nreps; q++)
		for (int i = 0; i < b->reps[q].npts; i++)
			if (b->reps[q].pts[i].n > t->n && b->reps[q].pts[i].st.p50 > 0)
				t->n = b->reps[q].pts[i].n;
	t->cost = t->n ? at_n(b, t->n, 0) : NAN;
	t->p99 = t->n ? at_n(b, t->n, 1) : NAN;
	t->exponent = b->v.cls != GROWTH_NONE ? b->v.exponent : NAN;
	/* the headline: a concurrency axis is judged by throughput (usl.c) */
	t->verdict = b->axis_kind == 1 ? usl_word(b->usl.cls) : growth_name(b->v.cls);
	t->unit = b->unit ? b->unit : "op";
}

static json_t *number(double v, const char *unit)
{
	json_t *o = json_pack("{s:f}", "value", v);
	if (o && unit)
		json_object_set_new(o, "unit", json_string(unit));
	return o;
}

static json_t *kcidb_test(const struct run_result *r, const struct ftest *t, const char *build,
			  const char *suffix, double v, const char *unit)
{
	char path[300], id[700];
	snprintf(path, sizeof(path), "%s%s", t->flat, suffix);
	snprintf(id, sizeof(id), "%s:%s", build, path);
	json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s}", "build_id", build, "id", id, "origin",
			      "scalebench", "path", path, "status", kcidb_status[t->st]);
	if (!o)
		return NULL;
	if (r->started && *r->started)
		json_object_set_new(o, "start_time", json_string(r->started));
	if (isfinite(v))
		json_object_set_new(o, "number", number(v, unit));
	json_object_set_new(o, "environment",
			    json_pack("{s:s,s:{s:s}}", "comment", r->host ? r->host : "", "misc",
				      "host", r->host ? r->host : ""));
	if (!*suffix) {
		char c[600];
		snprintf(c, sizeof(c), "%s: %s%s%s%s%s", t->path, t->verdict,
			 t->word ? ", " : "", t->word ? t->word : "", t->why ? ": " : "",
			 t->why ? t->why : "");
		json_object_set_new(o, "comment", json_string(c));
		json_t *m = json_pack("{s:s,s:s,s:s}", "name", t->path, "verdict", t->verdict,
				      "op", t->unit);
		if (t->n)
			json_object_set_new(m, "n", json_integer((json_int_t)t->n));
		if (isfinite(t->p99))
			json_object_set_new(m, "p99_ns", json_real(t->p99));
		if (isfinite(t->exponent))
			json_object_set_new(m, "exponent", json_real(t->exponent));
		if (t->word)
			json_object_set_new(m, "compare", json_string(t->word));
		if (t->why)
			json_object_set_new(m, "reason", json_string(t->why));
		json_object_set_new(o, "misc", m);
	}
	return o;
}

static int write_kcidb(FILE *f, const struct run_result *r, const struct ftest *ts, int n)
{
	const char *rel = kernel_str(r, "release"), *arch = kernel_str(r, "machine");
	char run[300], checkout[400], build[500], archf[64];
	/* one id per run: host and start time (no ':' after the origin's) */
	flatten(run, sizeof(run), r->host ? r->host : "");
	size_t l = strlen(run);
	snprintf(run + l, sizeof(run) - l, "-%s", r->started ? r->started : "");
	for (char *s = run; *s; s++)
		if (*s == ':')
			*s = '-';
	snprintf(checkout, sizeof(checkout), "scalebench:%s", run);
	snprintf(build, sizeof(build), "scalebench:%s-%s", run, *rel ? rel : "kernel");
	size_t j = 0;
	for (const char *s = arch; *s && j + 1 < sizeof(archf); s++)
		if ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')
			archf[j++] = *s;
	archf[j] = 0;
	char comment[300];
	snprintf(comment, sizeof(comment), "Linux %s", *rel ? rel : "(kernel release unknown)");
	json_t *co = json_pack("{s:s,s:s,s:s,s:b,s:{s:s,s:s}}", "id", checkout, "origin", "scalebench",
			       "comment", comment, "valid", 1, "misc", "kernel_release", rel,
			       "kernel_version", kernel_str(r, "version"));
	json_t *bu = json_pack("{s:s,s:s,s:s,s:s,s:b,s:{s:s,s:s}}", "id", build, "checkout_id", checkout,
			       "origin", "scalebench", "comment", comment, "valid", 1, "misc",
			       "kernel_release", rel, "host", r->host ? r->host : "");
	if (co && r->started && *r->started)
		json_object_set_new(co, "start_time", json_string(r->started));
	if (bu && *archf)
		json_object_set_new(bu, "architecture", json_string(archf));
	json_t *tests = json_array();
	for (int i = 0; i < n; i++) {
		json_array_append_new(tests, kcidb_test(r, &ts[i], build, "", ts[i].cost, "ns"));
		if (isfinite(ts[i].p99))
			json_array_append_new(tests, kcidb_test(r, &ts[i], build, ".p99", ts[i].p99, "ns"));
		if (isfinite(ts[i].exponent))
			json_array_append_new(tests, kcidb_test(r, &ts[i], build, ".exponent",
								ts[i].exponent, NULL));
	}
	json_t *doc = json_pack("{s:{s:i,s:i},s:[o],s:[o],s:o}", "version", "major", 4, "minor", 4,
				"checkouts", co, "builds", bu, "tests", tests);
	int rc = !doc || json_dumpf(doc, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) ? -1 : 0;
	fputc('\n', f);
	json_decref(doc);
	return rc;
}

static void lava_case(FILE *f, const char *name, const char *suffix, const char *res, double v,
		      const char *unit)
{
	fprintf(f, "lava-test-case %s%s --result %s", name, suffix, res);
	if (isfinite(v))
		fprintf(f, " --measurement %.9g --units %s", v, unit);
	fputc('\n', f);
}

static void write_lava(FILE *f, const struct ftest *ts, int n)
{
	static const char *const res[] = {"pass", "fail", "fail", "skip", "pass"};
	for (int i = 0; i < n; i++) {
		const struct ftest *t = &ts[i];
		fprintf(f, "# %s: verdict %s", t->path, t->verdict);
		if (t->word)
			fprintf(f, ", compare %s", t->word);
		fputc('\n', f);
		lava_case(f, t->flat, "", res[t->st], t->cost, "ns");
		if (isfinite(t->p99))
			lava_case(f, t->flat, ".p99", res[t->st], t->p99, "ns");
		if (isfinite(t->exponent))
			lava_case(f, t->flat, ".exponent", res[t->st], t->exponent, "exponent");
	}
}

static void write_lkp(FILE *f, const struct ftest *ts, int n)
{
	static const char *const res[] = {"pass", "fail", "fail", "skip", "pass"};
	for (int i = 0; i < n; i++) {
		const struct ftest *t = &ts[i];
		fprintf(f, "%s.%s: 1\n", t->path, res[t->st]);
		if (isfinite(t->cost))
			fprintf(f, "%s.cost_ns: %.9g\n", t->path, t->cost);
		if (isfinite(t->p99))
			fprintf(f, "%s.p99_ns: %.9g\n", t->path, t->p99);
		if (isfinite(t->exponent))
			fprintf(f, "%s.exponent: %.6g\n", t->path, t->exponent);
		if (t->n)
			fprintf(f, "%s.n: %llu\n", t->path, (unsigned long long)t->n);
		fprintf(f, "%s.verdict: %s\n", t->path, t->verdict);
		if (t->word)
			fprintf(f, "%s.compare: %s\n", t->path, t->word);
	}
}

/* KTAP: a description and a diagnostic must not hold a newline or a '#'. */
static void ktap_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\n' || *s == '\r' || *s == '#' ? ' ' : *s, f);
}

static void write_ktap(FILE *f, const struct run_result *r, const struct ftest *ts, int n)
{
	fprintf(f, "KTAP version 1\n# scalebench on ");
	ktap_text(f, r->host ? r->host : "");
	fprintf(f, ", Linux ");
	ktap_text(f, kernel_str(r, "release"));
	fprintf(f, "\n1..%d\n", n);
	for (int i = 0; i < n; i++) {
		const struct ftest *t = &ts[i];
		fprintf(f, "# %s: verdict %s", t->path, t->verdict);
		if (isfinite(t->cost))
			fprintf(f, ", cost %.9g ns at N=%llu", t->cost, (unsigned long long)t->n);
		if (isfinite(t->p99))
			fprintf(f, ", p99 %.9g ns", t->p99);
		if (isfinite(t->exponent))
			fprintf(f, ", exponent %.4g", t->exponent);
		if (t->word)
			fprintf(f, ", compare %s", t->word);
		fputc('\n', f);
		fprintf(f, "%s %d ", t->st == FS_FAIL || t->st == FS_ERROR ? "not ok" : "ok", i + 1);
		ktap_text(f, t->path);
		if (t->st == FS_SKIP) {
			fprintf(f, " # SKIP ");
			ktap_text(f, t->why ? t->why : "");
		}
		fputc('\n', f);
	}
}

int fleet_write(FILE *f, int format, const struct run_result *r, const json_t *cmp)
{
	struct ftest *ts = r->nbenches ? calloc((size_t)r->nbenches, sizeof(*ts)) : NULL;
	if (r->nbenches && !ts)
		return -1;
	int n = 0;
	for (int i = 0; i < r->nbenches; i++) {
		if (!r->benches[i].name)
			continue;
		describe(r, &r->benches[i], cmp, &ts[n]);
		/* a key the result holds twice: compare judged the first one
		 * only; the later ones keep their own status and are numbered,
		 * so that every test has a name and an id of its own */
		int same = 0;
		for (int k = 0; k < n; k++)
			same += !strcmp(ts[k].key, ts[n].key);
		if (same) {
			if (cmp)
				describe(r, &r->benches[i], NULL, &ts[n]);
			size_t lp = strlen(ts[n].path), lf = strlen(ts[n].flat);
			snprintf(ts[n].path + lp, sizeof(ts[n].path) - lp, ".%d", same + 1);
			snprintf(ts[n].flat + lf, sizeof(ts[n].flat) - lf, ".%d", same + 1);
		}
		n++;
	}
	int rc = 0;
	switch (format) {
	case 0: rc = write_kcidb(f, r, ts, n); break;
	case 1: write_lava(f, ts, n); break;
	case 2: write_lkp(f, ts, n); break;
	case 3: write_ktap(f, r, ts, n); break;
	default: rc = -1;
	}
	free(ts);
	return rc || ferror(f) ? -1 : 0;
}
