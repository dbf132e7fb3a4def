/* SPDX-License-Identifier: MIT */
/* The result as JSON (schema: docs/result-schema.md), written and read
 * with jansson so that every string is escaped by one tested serializer.
 * The reader checks every field it uses and names the first that is
 * missing or of the wrong type; it never trusts sizes from the file. */
#include "core/result.h"
#include "out/result_io.h"
#include "core/usage.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- writing ---- */

/* JSON has no inf/nan: such values are written as null. */
static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *stats_json(const struct stats *s)
{
	return json_pack("{s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:[oo]}",
			 "count", (json_int_t)s->count, "min_ns", num(s->min), "mean_ns", num(s->mean),
			 "stddev_ns", num(s->stddev), "cv", num(s->cv), "p50_ns", num(s->p50),
			 "p90_ns", num(s->p90), "p99_ns", num(s->p99), "p999_ns", num(s->p999),
			 "p9999_ns", num(s->p9999),
			 "max_ns", num(s->max), "median_ci95_ns", num(s->med_lo), num(s->med_hi));
}

static json_t *doubles_json(const double *v, int n)
{
	json_t *a = json_array();
	for (int i = 0; v && i < n; i++)
		json_array_append_new(a, num(v[i]));
	return a;
}

static json_t *probe_json(const struct probe *p)
{
	json_t *o = json_object();
	for (int i = 0; i < PROBE_NPARTS; i++)
		json_object_set_new(o, probe_part_name(i), num(p->ns[i]));
	return o;
}

static json_t *point_json(const struct point *p)
{
	json_t *bins = json_array();
	for (int i = 0; i < p->nbins; i++)
		json_array_append_new(bins, json_pack("[iI]", p->bins[i].idx,
						      (json_int_t)p->bins[i].count));
	json_t *o = json_pack(
		"{s:I,s:i,s:I,s:I,s:s,s:o,s:o,s:{s:o,s:o,s:o,s:o,s:o,s:o},"
		"s:{s:s,s:i,s:i,s:i,s:o}}",
		"n", (json_int_t)p->n, "batch", (int)p->batch, "samples", (json_int_t)p->samples,
		"ops", (json_int_t)p->ops, "stop", point_stop_name(p->stop), "elapsed_s",
		num(p->elapsed_s), "stats", stats_json(&p->st), "per_op", "user_s", num(p->user_s),
		"sys_s", num(p->sys_s), "voluntary_csw", num(p->vcsw), "involuntary_csw",
		num(p->ivcsw), "minor_faults", num(p->minflt), "major_faults", num(p->majflt),
		"histogram", "scheme", "log-linear", "sub_buckets", HIST_SUB, "min_exponent",
		HIST_EMIN, "buckets", HIST_NBUCKETS, "bins", bins);
	if (!o)
		return NULL;
	if (p->bytes || p->ops_per_s > 0)
		json_object_set_new(o, "throughput",
				    json_pack("{s:I,s:o,s:o}", "bytes", (json_int_t)p->bytes,
					      "ops_per_s", num(p->ops_per_s), "bytes_per_s",
					      num(p->bytes_per_s)));
	if (p->nseries)
		json_object_set_new(o, "over_time",
				    json_pack("{s:o,s:o,s:o}", "interval_s", num(p->interval_s), "ops",
					      doubles_json(p->series_ops, p->nseries), "bytes",
					      doubles_json(p->series_bytes, p->nseries)));
	json_t *po = json_object_get(o, "per_op");
	json_object_set_new(po, "cpu_s", num(p->cpu_s));
	json_object_set_new(po, "counter", json_string(usage_counter_name(p->usage_counter)));
	json_object_set_new(po, "scope", json_string(usage_scope_name(p->usage_scope)));
	if (!isnan(p->setup_cpu_s) || !isnan(p->setup_wall_s))
		json_object_set_new(o, "setup_per_sample",
				    json_pack("{s:o,s:o}", "cpu_s", num(p->setup_cpu_s), "wall_s",
					      num(p->setup_wall_s)));
	if (p->peers)
		json_object_set(o, "peer_per_op", p->peers);
	if (p->has_ctl)
		json_object_set_new(o, "control", json_pack("{s:o}", "stats", stats_json(&p->ctl)));
	if (p->extra)
		json_object_set(o, "extra", p->extra);
	if (p->placement)
		json_object_set(o, "placement", p->placement);
	if (p->inode_create_ns > 0 && p->inode_link_ns > 0) /* result.h: the shadow of deletions */
		json_object_set_new(o, "inode_probe", json_pack("{s:f,s:f}", "create_ns",
								 p->inode_create_ns, "link_ns",
								 p->inode_link_ns));
	if (p->has_probe) {
		json_t *pr = json_pack("{s:o,s:o,s:o}", "before", probe_json(&p->probe[0]), "after",
				       probe_json(&p->probe[1]), "slowness", num(p->slowness));
		if (pr && p->remeasured) {
			json_object_set_new(pr, "remeasured", json_integer(p->remeasured));
			json_object_set_new(pr, "slowness_first", num(p->slowness_first));
			json_object_set_new(pr, "p50_first_ns", num(p->p50_first));
		}
		if (pr && !isnan(p->tasks_wait)) {
			json_object_set_new(pr, "tasks_run", num(p->tasks_run));
			json_object_set_new(pr, "tasks_wait", num(p->tasks_wait));
			json_object_set_new(pr, "cpu_lost", num(p->cpu_lost));
			if (p->remeasured)
				json_object_set_new(pr, "cpu_lost_first", num(p->cpu_lost_first));
			if (p->lost_between && p->cpu_lost >= CPU_LOST_CROWDED)
				json_object_set_new(pr, "lost_between_samples", json_true());
		}
		if (pr && p->npick > 0) {
			json_t *a = json_array();
			for (int i = 0; i < p->npick && i < POINT_PICK_MAX; i++)
				json_array_append_new(a, json_pack("{s:i,s:o}", "cpu", p->pick_cpu[i],
								   "slowness", num(p->pick_slow[i])));
			json_object_set_new(pr, "cpus", a);
		}
		json_object_set_new(o, "probe", pr);
	}
	json_object_set_new(o, "cpu", json_pack("[oo]", p->cpu_start >= 0 ? json_integer(p->cpu_start) : json_null(),
						 p->cpu_end >= 0 ? json_integer(p->cpu_end) : json_null()));
	return o;
}

static json_t *verdict_core_json(const struct verdict *v)
{
	json_t *aic = json_array();
	for (int i = 0; i < FIT_NMODELS; i++)
		json_array_append_new(aic, num(v->aic[i]));
	return json_pack("{s:s,s:s,s:i,s:s,s:o,s:o,s:o,s:o,s:o,s:[oo],s:o,s:o,s:o,s:o,s:o,s:o}",
			 "class", growth_name(v->cls), "reason", v->reason, "points", v->npoints,
			 "model", fit_model_name(v->model), "a_ns", num(v->a), "b_ns", num(v->b),
			 "b_se_ns", num(v->b_se), "growth_share", num(v->growth_share), "exponent",
			 num(v->exponent), "exponent_ci95", num(v->exp_lo), num(v->exp_hi),
			 "local_slope", num(v->local_slope), "ratio", num(v->ratio), "n_min",
			 num(v->nmin), "n_max", num(v->nmax), "reduced_chi2", num(v->redchi2), "aic",
			 aic);
}

/* The verdict, with "tie" (the near class that fits as well) when it has one. */
static json_t *verdict_json(const struct verdict *v)
{
	json_t *o = verdict_core_json(v);
	if (o && v->tie != GROWTH_UNCLEAR)
		json_object_set_new(o, "tie", json_string(growth_name(v->tie)));
	return o;
}

/* The throughput verdict of a concurrency axis (usl.c). */
static json_t *usl_json(const struct usl *u)
{
	json_t *o = json_pack("{s:s,s:s,s:s,s:i,s:i,s:b}", "class", usl_class_name(u->cls), "word",
			      usl_word(u->cls), "reason", u->reason, "points", u->npoints,
			      "oversubscribed_points", u->noversub, "oversubscribed_fitted",
			      u->oversub_fitted);
	if (u->cpus > 0)
		json_object_set_new(o, "cpus", json_integer(u->cpus));
	if (u->cls == USL_NONE && !(u->lambda > 0))
		return o;
	json_t *f = json_pack("{s:o,s:o,s:[oo],s:o,s:[oo],s:o,s:[oo],s:o,s:o,s:o,s:o}",
			      "lambda_ops_per_s", num(u->lambda), "sigma", num(u->sigma),
			      "sigma_ci95", num(u->sigma_lo), num(u->sigma_hi), "kappa", num(u->kappa),
			      "kappa_ci95", num(u->kappa_lo), num(u->kappa_hi), "efficiency",
			      num(u->efficiency), "efficiency_fit_ci95", num(u->eff_lo), num(u->eff_hi),
			      "ops_per_s_at_n_max", num(u->x_nmax), "n_min", num(u->nmin), "n_max",
			      num(u->nmax), "reduced_chi2", num(u->redchi2));
	json_object_update(o, f);
	json_decref(f);
	if (u->peak_n > 0)
		json_object_set_new(o, "peak_n", num(u->peak_n));
	if (u->kappa_fixed)
		json_object_set_new(o, "kappa_fixed", json_true());
	return o;
}

static json_t *failure_json(const struct failure *f)
{
	if (!f)
		return json_null();
	return json_pack("{s:s,s:s,s:s,s:I,s:i,s:s,s:s,s:O}", "phase", f->phase, "call", f->call,
			 "kind", f->kind, "n", (json_int_t)f->n, "errno", f->err, "errno_name",
			 f->err ? strerror(f->err) : "", "message", f->msg, "state",
			 f->state ? f->state : json_null());
}

static json_t *strs_json(char *const *s, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_string(s[i]));
	return a;
}

json_t *bench_to_json(const struct bench_result *b)
{
	json_t *reps = json_array();
	for (int r = 0; r < b->nreps; r++) {
		const struct repetition *rep = &b->reps[r];
		json_t *pts = json_array();
		for (int i = 0; i < rep->npts; i++)
			json_array_append_new(pts, point_json(&rep->pts[i]));
		json_t *jr = json_pack("{s:o,s:o,s:o,s:b}", "points", pts, "verdict",
				       verdict_json(&rep->v), "failure", failure_json(rep->fail),
				       "interrupted", rep->interrupted);
		if (jr && rep->started_s >= 0)
			json_object_set_new(jr, "started_s", json_real(rep->started_s));
		if (jr && rep->added)
			json_object_set_new(jr, "added", json_true());
		if (jr && rep->ab_pair > 0) /* compare --ab: the pair and the order in it */
			json_object_set_new(jr, "ab", json_pack("{s:i,s:i}", "pair", rep->ab_pair,
								 "order", rep->ab_order));
		json_array_append_new(reps, jr);
	}
	json_t *o = json_pack("{s:s,s:i,s:s,s:s,s:s,s:s,s:I,s:o,s:o,s:o}", "name", b->name,
			      "version", b->version, "axis", b->axis ? b->axis : "", "summary",
			      b->summary ? b->summary : "", "op", b->op_desc ? b->op_desc : "",
			      "status", bench_status_name(b->status), "max_n", (json_int_t)b->max_n,
			      "notes", strs_json(b->notes, b->nnotes), "verdict", verdict_json(&b->v),
			      "repetitions", reps);
	if (b->skip_reason)
		json_object_set_new(o, "skip_reason", json_string(b->skip_reason));
	if (b->variant)
		json_object_set_new(o, "variant", json_string(b->variant));
	if (b->target)
		json_object_set_new(o, "target", json_string(b->target));
	if (b->job)
		json_object_set_new(o, "job", json_string(b->job));
	if (b->unit)
		json_object_set_new(o, "unit", json_string(b->unit));
	if (b->params)
		json_object_set(o, "params", b->params);
	json_object_set_new(o, "axis_kind", json_string(axis_kind_name(b->axis_kind)));
	if (b->axis_tasks)
		json_object_set_new(o, "axis_tasks", json_true());
	if (b->cpus_online > 0)
		json_object_set_new(o, "cpus_online", json_integer(b->cpus_online));
	if (b->fit_oversub)
		json_object_set_new(o, "fit_oversubscribed", json_true());
	int added = bench_added_reps(b);
	if (added)
		json_object_set_new(o, "added_repetitions", json_integer(added));
	double *lvl = b->nreps >= 2 && b->axis_kind != 3 ? malloc((size_t)b->nreps * sizeof *lvl) : NULL;
	if (lvl) { /* the level bench_fit took off each repetition before pooling */
		bench_rep_levels(b, lvl);
		json_t *a = json_array();
		for (int r = 0; r < b->nreps; r++)
			json_array_append_new(a, num(lvl[r]));
		json_object_set_new(o, "rep_levels", a);
		free(lvl);
	}
	struct unsteady u;
	bench_unsteady(b, &u);
	if (u.probed) {
		json_t *m = json_pack("{s:i,s:i,s:i,s:i,s:o}", "probed_points", u.probed,
				      "slow_points_first", u.slow_first, "slow_points", u.slow,
				      "remeasured_points", u.remeasured, "max_slowness",
				      num(u.max_slowness));
		if (m && !isnan(u.max_lost)) {
			json_object_set_new(m, "crowded_points_first", json_integer(u.crowded_first));
			json_object_set_new(m, "crowded_points", json_integer(u.crowded));
			json_object_set_new(m, "crowded_between_points", json_integer(u.crowded_between));
			json_object_set_new(m, "max_cpu_lost", num(u.max_lost));
		}
		json_object_set_new(o, "machine", m);
	}
	if (b->profile)
		json_object_set(o, "profile", b->profile);
	if (b->axis_kind == 1) /* AXIS_CONCURRENCY: the headline verdict */
		json_object_set_new(o, "throughput_verdict", usl_json(&b->usl));
	if (b->axis_kind == 3) { /* AXIS_CATEGORY: the names, and the tail per category */
		json_t *names = json_array(), *tails = json_array();
		for (int i = 0; i < b->ncategories; i++)
			json_array_append_new(names, json_string(b->categories[i]));
		json_object_set_new(o, "categories", names);
		struct cat_tail c[64];
		int w, k = bench_category_tails(b, c, 64, &w);
		for (int i = 0; i < k; i++)
			json_array_append_new(tails, json_pack("{s:I,s:o,s:o}", "n", (json_int_t)c[i].n,
							       "name", c[i].name ? json_string(c[i].name)
										 : json_null(),
							       "p99_ns", num(c[i].p99_ns)));
		json_t *ct = json_pack("{s:o}", "categories", tails);
		if (k) {
			json_object_set_new(ct, "worst_n", json_integer((json_int_t)c[w].n));
			json_object_set_new(ct, "worst_ratio",
					    num(k > 1 && c[0].p99_ns > 0 ? c[w].p99_ns / c[0].p99_ns : NAN));
		}
		json_object_set_new(o, "category_tail", ct);
	}
	double n0, c0, n1, c1;
	if (b->axis_kind == 2 && bench_per_kib(b, &n0, &c0, &n1, &c1) == 0) /* AXIS_SIZE */
		json_object_set_new(o, "per_kib", json_pack("{s:o,s:o,s:o,s:o}", "n_min", num(n0),
							    "ns_at_n_min", num(c0), "n_max", num(n1),
							    "ns_at_n_max", num(c1)));
	return o;
}

json_t *result_to_json(const struct run_result *r)
{
	json_t *benches = json_array();
	for (int i = 0; i < r->nbenches; i++)
		json_array_append_new(benches, bench_to_json(&r->benches[i]));
	/* owned references, so that an absent member leaks no empty object */
	json_t *opts = r->options ? json_incref(r->options) : json_object();
	json_t *snap = r->snapshot ? json_incref(r->snapshot) : json_object();
	json_t *o = json_pack(
		"{s:i,s:{s:s,s:s},s:s,s:s,s:o,s:s,s:o,s:o,s:b,s:{s:s,s:s,s:o,s:o},s:o,s:o}",
		"schema_version", r->schema_version, "tool", "name", "scalebench", "version",
		r->tool_version ? r->tool_version : "", "started", r->started ? r->started : "",
		"finished", r->finished ? r->finished : "", "duration_s", num(r->duration_s), "host",
		r->host ? r->host : "", "command_line", strs_json(r->argv, r->argc), "options",
		opts, "interrupted", r->interrupted, "clock",
		"id", r->clock.id, "source", r->clock.source, "resolution_ns",
		num(r->clock.resolution_ns), "read_cost_ns", num(r->clock.read_cost_ns), "snapshot",
		snap, "benches", benches);
	if (o && r->targets)
		json_object_set(o, "targets", r->targets);
	if (o && r->job)
		json_object_set(o, "job", r->job);
	if (o && r->ab)
		json_object_set(o, "ab", r->ab);
	if (o && r->has_probe_ref)
		json_object_set_new(o, "probe_reference", probe_json(&r->probe_ref));
	return o;
}

int result_write_file(const struct run_result *r, const char *path, char *err, size_t errlen)
{
	char tmp[4096];
	int n = snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	json_t *j = result_to_json(r);
	if (!j) {
		snprintf(err, errlen, "%s: could not build the JSON document", path);
		return -ENOMEM;
	}
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		json_decref(j);
		return -e;
	}
	mode_t um = umask(0); /* mkstemp makes 0600; a result is as readable as any file */
	umask(um);
	fchmod(fd, 0666 & ~um);
	FILE *f = fdopen(fd, "w");
	int rc = f ? json_dumpf(j, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : -1;
	if (f) {
		if (fputc('\n', f) == EOF)
			rc = -1;
		if (fflush(f) || fsync(fileno(f)))
			rc = -1;
	}
	int e = errno;
	if (f ? fclose(f) : close(fd))
		rc = -1;
	json_decref(j);
	if (rc == 0 && rename(tmp, path) == 0)
		return 0;
	e = errno ? errno : e;
	unlink(tmp);
	snprintf(err, errlen, "%s: %s", path, strerror(e ? e : EIO));
	return -(e ? e : EIO);
}

/* ---- reading ---- */

struct rd {
	char *err;
	size_t errlen;
	char where[160];
};

static int bad(struct rd *rd, const char *field, const char *what)
{
	snprintf(rd->err, rd->errlen, "%s%s%s: %s", rd->where, *rd->where ? "." : "", field, what);
	return -1;
}

static int get_num(struct rd *rd, const json_t *o, const char *k, double *out, int required)
{
	json_t *v = json_object_get(o, k);
	if (!v || json_is_null(v)) {
		*out = NAN;
		return required ? bad(rd, k, "missing") : 0;
	}
	if (!json_is_number(v))
		return bad(rd, k, "not a number");
	*out = json_number_value(v);
	return 0;
}

static int get_u64(struct rd *rd, const json_t *o, const char *k, uint64_t *out)
{
	json_t *v = json_object_get(o, k);
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return bad(rd, k, v ? "not a non-negative integer" : "missing");
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int get_str(struct rd *rd, const json_t *o, const char *k, char **out, int required)
{
	json_t *v = json_object_get(o, k);
	if (!v) {
		*out = NULL;
		return required ? bad(rd, k, "missing") : 0;
	}
	if (!json_is_string(v))
		return bad(rd, k, "not a string");
	*out = strdup(json_string_value(v));
	return *out ? 0 : bad(rd, k, "out of memory");
}

static int get_sbuf(struct rd *rd, const json_t *o, const char *k, char *buf, size_t len)
{
	json_t *v = json_object_get(o, k);
	if (!json_is_string(v))
		return bad(rd, k, v ? "not a string" : "missing");
	snprintf(buf, len, "%s", json_string_value(v));
	return 0;
}

static int read_stats(struct rd *rd, const json_t *o, struct stats *s)
{
	if (!json_is_object(o))
		return bad(rd, "stats", "not an object");
	json_t *ci = json_object_get(o, "median_ci95_ns");
	if (get_u64(rd, o, "count", &s->count) || get_num(rd, o, "min_ns", &s->min, 0) ||
	    get_num(rd, o, "mean_ns", &s->mean, 0) || get_num(rd, o, "stddev_ns", &s->stddev, 0) ||
	    get_num(rd, o, "cv", &s->cv, 0) || get_num(rd, o, "p50_ns", &s->p50, 1) ||
	    get_num(rd, o, "p90_ns", &s->p90, 0) || get_num(rd, o, "p99_ns", &s->p99, 1) ||
	    get_num(rd, o, "p999_ns", &s->p999, 0) ||
	    get_num(rd, o, "p9999_ns", &s->p9999, 0) || get_num(rd, o, "max_ns", &s->max, 0))
		return -1;
	if (!json_is_array(ci) || json_array_size(ci) != 2)
		return bad(rd, "median_ci95_ns", "not a pair");
	json_t *lo = json_array_get(ci, 0), *hi = json_array_get(ci, 1);
	s->med_lo = json_is_number(lo) ? json_number_value(lo) : NAN;
	s->med_hi = json_is_number(hi) ? json_number_value(hi) : NAN;
	return 0;
}

static void read_probe(const json_t *o, struct probe *p)
{
	for (int i = 0; i < PROBE_NPARTS; i++) {
		json_t *v = json_object_get(o, probe_part_name(i));
		p->ns[i] = json_is_number(v) ? json_number_value(v) : NAN;
	}
}

static int read_point(struct rd *rd, const json_t *o, struct point *p)
{
	if (!json_is_object(o))
		return bad(rd, "point", "not an object");
	uint64_t batch;
	char stop[32];
	if (get_u64(rd, o, "n", &p->n) || get_u64(rd, o, "batch", &batch) ||
	    get_u64(rd, o, "samples", &p->samples) || get_u64(rd, o, "ops", &p->ops) ||
	    get_sbuf(rd, o, "stop", stop, sizeof(stop)) ||
	    get_num(rd, o, "elapsed_s", &p->elapsed_s, 0) ||
	    read_stats(rd, json_object_get(o, "stats"), &p->st))
		return -1;
	if (batch < 1 || batch > 1u << 20)
		return bad(rd, "batch", "out of range");
	p->batch = (unsigned)batch;
	int st = point_stop_from_name(stop);
	if (st < 0)
		return bad(rd, "stop", "unknown value");
	p->stop = (enum point_stop)st;
	json_t *po = json_object_get(o, "per_op");
	if (json_is_object(po)) {
		get_num(rd, po, "user_s", &p->user_s, 0);
		get_num(rd, po, "sys_s", &p->sys_s, 0);
		get_num(rd, po, "voluntary_csw", &p->vcsw, 0);
		get_num(rd, po, "involuntary_csw", &p->ivcsw, 0);
		get_num(rd, po, "minor_faults", &p->minflt, 0);
		get_num(rd, po, "major_faults", &p->majflt, 0);
		get_num(rd, po, "cpu_s", &p->cpu_s, 0);
		/* results before these fields: getrusage of the process around the point */
		json_t *cn = json_object_get(po, "counter"), *sc = json_object_get(po, "scope");
		int c = json_is_string(cn) ? usage_counter_from_name(json_string_value(cn)) : -1;
		int w = json_is_string(sc) ? usage_scope_from_name(json_string_value(sc)) : -1;
		p->usage_counter = c >= 0 ? c : USAGE_PROCESS;
		p->usage_scope = w >= 0 ? w : USAGE_WINDOW;
		if (isnan(p->cpu_s) && !isnan(p->user_s) && !isnan(p->sys_s))
			p->cpu_s = p->user_s + p->sys_s;
	}
	p->setup_cpu_s = p->setup_wall_s = NAN;
	json_t *sps = json_object_get(o, "setup_per_sample");
	if (json_is_object(sps)) {
		get_num(rd, sps, "cpu_s", &p->setup_cpu_s, 0);
		get_num(rd, sps, "wall_s", &p->setup_wall_s, 0);
	}
	json_t *ctl = json_object_get(o, "control");
	if (json_is_object(ctl)) {
		if (read_stats(rd, json_object_get(ctl, "stats"), &p->ctl))
			return -1;
		p->has_ctl = 1;
	}
	json_t *pp = json_object_get(o, "peer_per_op");
	if (json_is_object(pp))
		p->peers = json_incref(pp);
	json_t *tp = json_object_get(o, "throughput");
	if (json_is_object(tp)) {
		json_t *by = json_object_get(tp, "bytes");
		p->bytes = json_is_integer(by) && json_integer_value(by) > 0 ? (uint64_t)json_integer_value(by) : 0;
		get_num(rd, tp, "ops_per_s", &p->ops_per_s, 0);
		get_num(rd, tp, "bytes_per_s", &p->bytes_per_s, 0);
	}
	json_t *ot = json_object_get(o, "over_time");
	if (json_is_object(ot)) {
		json_t *so = json_object_get(ot, "ops"), *sb = json_object_get(ot, "bytes");
		size_t ns = json_array_size(so);
		if (!json_is_array(so) || !json_is_array(sb) || json_array_size(sb) != ns || ns > 1000000)
			return bad(rd, "over_time", "ops and bytes must be arrays of one length");
		get_num(rd, ot, "interval_s", &p->interval_s, 1);
		if (ns) {
			p->series_ops = calloc(ns, sizeof(double));
			p->series_bytes = calloc(ns, sizeof(double));
			if (!p->series_ops || !p->series_bytes)
				return bad(rd, "over_time", "out of memory");
			p->nseries = (int)ns;
			for (size_t i = 0; i < ns; i++) {
				json_t *a = json_array_get(so, i), *b = json_array_get(sb, i);
				p->series_ops[i] = json_is_number(a) ? json_number_value(a) : NAN;
				p->series_bytes[i] = json_is_number(b) ? json_number_value(b) : NAN;
			}
		}
	}
	json_t *jino = json_object_get(o, "inode_probe"); /* a bad one: not measured */
	json_t *ipc = json_object_get(jino, "create_ns"), *ipl = json_object_get(jino, "link_ns");
	if (json_is_number(ipc) && json_is_number(ipl) && json_number_value(ipc) > 0 &&
	    json_number_value(ipl) > 0) {
		p->inode_create_ns = json_number_value(ipc);
		p->inode_link_ns = json_number_value(ipl);
	}
	json_t *pb = json_object_get(o, "probe");
	if (json_is_object(pb)) {
		p->has_probe = 1;
		for (int k = 0; k < 2; k++)
			read_probe(json_object_get(pb, k ? "after" : "before"), &p->probe[k]);
		json_t *sl = json_object_get(pb, "slowness"), *sf = json_object_get(pb, "slowness_first");
		json_t *rm = json_object_get(pb, "remeasured");
		p->slowness = json_is_number(sl) ? json_number_value(sl) : NAN;
		p->slowness_first = json_is_number(sf) ? json_number_value(sf) : NAN;
		json_t *tr = json_object_get(pb, "tasks_run"), *tw = json_object_get(pb, "tasks_wait");
		p->tasks_run = json_is_number(tr) ? json_number_value(tr) : NAN;
		p->tasks_wait = json_is_number(tw) ? json_number_value(tw) : NAN;
		json_t *cl = json_object_get(pb, "cpu_lost");
		p->cpu_lost = json_is_number(cl) ? json_number_value(cl) : NAN;
		json_t *clf = json_object_get(pb, "cpu_lost_first");
		p->cpu_lost_first = json_is_number(clf) ? json_number_value(clf) : NAN;
		p->lost_between = json_is_true(json_object_get(pb, "lost_between_samples"));
		json_t *pc = json_object_get(pb, "cpus"), *pe;
		size_t ip;
		p->npick = 0;
		json_array_foreach(pc, ip, pe) {
			json_t *cc = json_object_get(pe, "cpu"), *cs = json_object_get(pe, "slowness");
			if (p->npick >= POINT_PICK_MAX || !json_is_integer(cc))
				continue;
			p->pick_cpu[p->npick] = (int)json_integer_value(cc);
			p->pick_slow[p->npick++] = json_is_number(cs) ? json_number_value(cs) : NAN;
		}
		json_t *pf = json_object_get(pb, "p50_first_ns");
		p->p50_first = json_is_number(pf) ? json_number_value(pf) : NAN;
		p->remeasured = json_is_integer(rm) && json_integer_value(rm) > 0 &&
					json_integer_value(rm) < 1000
				    ? (int)json_integer_value(rm)
				    : 0;
	}
	json_t *cpu = json_object_get(o, "cpu");
	json_t *c0 = json_array_get(cpu, 0), *c1 = json_array_get(cpu, 1);
	p->cpu_start = json_is_integer(c0) ? (int)json_integer_value(c0) : -1;
	p->cpu_end = json_is_integer(c1) ? (int)json_integer_value(c1) : -1;
	json_t *ex = json_object_get(o, "extra");
	if (ex)
		p->extra = json_incref(ex);
	json_t *pl = json_object_get(o, "placement");
	if (json_is_object(pl))
		p->placement = json_incref(pl);
	json_t *h = json_object_get(o, "histogram"), *bins = json_object_get(h, "bins");
	if (!json_is_object(h) || !json_is_array(bins))
		return bad(rd, "histogram", "missing or without bins");
	json_t *sub = json_object_get(h, "sub_buckets"), *emin = json_object_get(h, "min_exponent");
	if (!json_is_integer(sub) || json_integer_value(sub) != HIST_SUB || !json_is_integer(emin) ||
	    json_integer_value(emin) != HIST_EMIN)
		return bad(rd, "histogram", "layout differs from this version's");
	size_t nb = json_array_size(bins);
	if (nb > HIST_NBUCKETS)
		return bad(rd, "histogram.bins", "more bins than buckets");
	p->bins = nb ? calloc(nb, sizeof(*p->bins)) : NULL;
	if (nb && !p->bins)
		return bad(rd, "histogram.bins", "out of memory");
	for (size_t i = 0; i < nb; i++) {
		json_t *e = json_array_get(bins, i);
		json_t *ix = json_array_get(e, 0), *ct = json_array_get(e, 1);
		if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_integer(ix) ||
		    !json_is_integer(ct) || json_integer_value(ix) < 0 ||
		    json_integer_value(ix) >= HIST_NBUCKETS || json_integer_value(ct) < 0)
			return bad(rd, "histogram.bins", "malformed bin");
		p->bins[i].idx = (int32_t)json_integer_value(ix);
		p->bins[i].count = (uint64_t)json_integer_value(ct);
		p->nbins = (int)i + 1;
	}
	return 0;
}

static int read_verdict(struct rd *rd, const json_t *o, struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (!json_is_object(o))
		return bad(rd, "verdict", "not an object");
	char cls[32], model[32];
	if (get_sbuf(rd, o, "class", cls, sizeof(cls)) ||
	    get_sbuf(rd, o, "reason", v->reason, sizeof(v->reason)))
		return -1;
	int g = growth_from_name(cls);
	if (g < 0)
		return bad(rd, "verdict.class", "unknown growth class");
	v->cls = (enum growth)g;
	v->model = 0;
	if (!get_sbuf(rd, o, "model", model, sizeof(model))) {
		if (!strcmp(model, "?"))
			v->model = -1; /* none chosen (a category axis) */
		for (int i = 0; i < FIT_NMODELS; i++)
			if (!strcmp(model, fit_model_name(i)))
				v->model = i;
	}
	json_t *pts = json_object_get(o, "points");
	v->npoints = json_is_integer(pts) ? (int)json_integer_value(pts) : 0;
	get_num(rd, o, "a_ns", &v->a, 0);
	get_num(rd, o, "b_ns", &v->b, 0);
	get_num(rd, o, "b_se_ns", &v->b_se, 0);
	get_num(rd, o, "growth_share", &v->growth_share, 0);
	get_num(rd, o, "exponent", &v->exponent, 0);
	get_num(rd, o, "local_slope", &v->local_slope, 0);
	get_num(rd, o, "ratio", &v->ratio, 0);
	get_num(rd, o, "n_min", &v->nmin, 0);
	get_num(rd, o, "n_max", &v->nmax, 0);
	get_num(rd, o, "reduced_chi2", &v->redchi2, 0);
	json_t *tie = json_object_get(o, "tie");
	if (tie) {
		int t = growth_from_name(json_string_value(tie));
		if (t <= GROWTH_O1 || t >= GROWTH_NONE)
			return bad(rd, "verdict.tie", "not a growing class");
		v->tie = (enum growth)t;
	}
	json_t *ci = json_object_get(o, "exponent_ci95");
	v->exp_lo = json_is_number(json_array_get(ci, 0)) ? json_number_value(json_array_get(ci, 0)) : NAN;
	v->exp_hi = json_is_number(json_array_get(ci, 1)) ? json_number_value(json_array_get(ci, 1)) : NAN;
	json_t *aic = json_object_get(o, "aic");
	for (int i = 0; i < FIT_NMODELS; i++) {
		json_t *a = json_array_get(aic, (size_t)i);
		v->aic[i] = json_is_number(a) ? json_number_value(a) : NAN;
	}
	return 0;
}

static int read_failure(struct rd *rd, const json_t *o, struct failure **out)
{
	*out = NULL;
	if (!o || json_is_null(o))
		return 0;
	if (!json_is_object(o))
		return bad(rd, "failure", "not an object");
	struct failure *f = calloc(1, sizeof(*f));
	if (!f)
		return bad(rd, "failure", "out of memory");
	*out = f;
	json_t *e = json_object_get(o, "errno");
	if (get_sbuf(rd, o, "phase", f->phase, sizeof(f->phase)) ||
	    get_sbuf(rd, o, "call", f->call, sizeof(f->call)) ||
	    get_sbuf(rd, o, "kind", f->kind, sizeof(f->kind)) || get_u64(rd, o, "n", &f->n) ||
	    get_sbuf(rd, o, "message", f->msg, sizeof(f->msg)))
		return -1;
	if (!json_is_integer(e))
		return bad(rd, "failure.errno", "not an integer");
	f->err = (int)json_integer_value(e);
	json_t *st = json_object_get(o, "state");
	f->state = st ? json_incref(st) : NULL;
	return 0;
}

static int read_strs(struct rd *rd, const json_t *a, const char *k, char ***out, int *n)
{
	*out = NULL;
	*n = 0;
	if (!a)
		return 0;
	if (!json_is_array(a))
		return bad(rd, k, "not an array");
	size_t sz = json_array_size(a);
	if (!sz)
		return 0;
	/* capacity: the next power of two, as result.c's append() assumes of
	 * every array it grows (a bench's notes gain more when repetitions
	 * from workers are merged) */
	size_t cap = 1;
	while (cap < sz)
		cap *= 2;
	*out = calloc(cap, sizeof(**out));
	if (!*out)
		return bad(rd, k, "out of memory");
	for (size_t i = 0; i < sz; i++) {
		json_t *s = json_array_get(a, i);
		if (!json_is_string(s))
			return bad(rd, k, "holds a non-string");
		(*out)[i] = strdup(json_string_value(s));
		*n = (int)i + 1;
	}
	return 0;
}

static int read_bench(struct rd *rd, const json_t *o, struct bench_result *b)
{
	if (!json_is_object(o))
		return bad(rd, "bench", "not an object");
	char status[32];
	uint64_t ver;
	if (get_str(rd, o, "name", &b->name, 1))
		return -1;
	snprintf(rd->where, sizeof(rd->where), "benches[%s]", b->name);
	if (get_u64(rd, o, "version", &ver) || get_str(rd, o, "axis", &b->axis, 0) ||
	    get_str(rd, o, "summary", &b->summary, 0) || get_str(rd, o, "op", &b->op_desc, 0) ||
	    get_sbuf(rd, o, "status", status, sizeof(status)) ||
	    get_str(rd, o, "skip_reason", &b->skip_reason, 0) ||
	    get_str(rd, o, "variant", &b->variant, 0) || get_str(rd, o, "unit", &b->unit, 0) ||
	    get_str(rd, o, "target", &b->target, 0) || get_str(rd, o, "job", &b->job, 0) ||
	    read_strs(rd, json_object_get(o, "notes"), "notes", &b->notes, &b->nnotes) ||
	    read_verdict(rd, json_object_get(o, "verdict"), &b->v))
		return -1;
	json_t *pr = json_object_get(o, "params");
	if (json_is_object(pr))
		b->params = json_incref(pr);
	json_t *pf = json_object_get(o, "profile"); /* run --profile (docs/result-schema.md) */
	if (pf && !json_is_object(pf))
		return bad(rd, "profile", "not an object");
	if (pf)
		b->profile = json_incref(pf);
	json_t *ak = json_object_get(o, "axis_kind");
	if (ak) { /* added within schema_version 1: older results lack it (load) */
		int k = axis_kind_from_name(json_string_value(ak));
		if (k < 0)
			return bad(rd, "axis_kind", "not load, concurrency, size or category");
		b->axis_kind = k;
	}
	if (read_strs(rd, json_object_get(o, "categories"), "categories", &b->categories,
		      &b->ncategories))
		return -1;
	b->axis_tasks = json_is_true(json_object_get(o, "axis_tasks"));
	json_t *nc = json_object_get(o, "cpus_online");
	b->cpus_online = json_is_integer(nc) && json_integer_value(nc) > 0 &&
				 json_integer_value(nc) < 1000000
			 ? (int)json_integer_value(nc)
			 : 0;
	b->fit_oversub = json_is_true(json_object_get(o, "fit_oversubscribed"));
	json_t *mx = json_object_get(o, "max_n");
	b->max_n = json_is_integer(mx) && json_integer_value(mx) > 0 ? (uint64_t)json_integer_value(mx) : 0;
	if (ver > 1000000) /* written back as -1 it would not read again */
		return bad(rd, "version", "out of range (0..1000000)");
	b->version = (int)ver;
	int st = bench_status_from_name(status);
	if (st < 0)
		return bad(rd, "status", "unknown value");
	b->status = (enum bench_status)st;
	json_t *reps = json_object_get(o, "repetitions");
	if (!json_is_array(reps))
		return bad(rd, "repetitions", "missing or not an array");
	for (size_t r = 0; r < json_array_size(reps); r++) {
		json_t *jr = json_array_get(reps, r);
		struct repetition *rep = bench_add_rep(b);
		if (!rep)
			return bad(rd, "repetitions", "out of memory");
		snprintf(rd->where, sizeof(rd->where), "benches[%s].repetitions[%zu]", b->name, r);
		json_t *pts = json_object_get(jr, "points");
		if (!json_is_object(jr) || !json_is_array(pts))
			return bad(rd, "points", "missing or not an array");
		json_t *intr = json_object_get(jr, "interrupted");
		rep->interrupted = json_is_true(intr);
		json_t *jst = json_object_get(jr, "started_s");
		rep->started_s = json_is_number(jst) ? json_number_value(jst) : -1;
		rep->added = json_is_true(json_object_get(jr, "added"));
		json_t *jab = json_object_get(jr, "ab");
		json_int_t abp = json_integer_value(json_object_get(jab, "pair"));
		json_int_t abo = json_integer_value(json_object_get(jab, "order"));
		if (json_is_object(jab) && abp > 0 && abp <= 1000000 && (abo == 1 || abo == 2)) {
			rep->ab_pair = (int)abp;
			rep->ab_order = (int)abo;
		}
		if (read_verdict(rd, json_object_get(jr, "verdict"), &rep->v) ||
		    read_failure(rd, json_object_get(jr, "failure"), &rep->fail))
			return -1;
		for (size_t i = 0; i < json_array_size(pts); i++) {
			struct point *p = rep_add_point(rep);
			if (!p)
				return bad(rd, "points", "out of memory");
			snprintf(rd->where, sizeof(rd->where), "benches[%s].repetitions[%zu].points[%zu]",
				 b->name, r, i);
			if (read_point(rd, json_array_get(pts, i), p))
				return -1;
		}
	}
	bench_usl(b); /* refitted from the points: the same as written */
	return 0;
}

int result_from_json(const json_t *j, struct run_result *r, char *err, size_t errlen)
{
	struct rd rd = {.err = err, .errlen = errlen};
	memset(r, 0, sizeof(*r));
	if (!json_is_object(j))
		return bad(&rd, "document", "not a JSON object");
	json_t *sv = json_object_get(j, "schema_version");
	if (!json_is_integer(sv))
		return bad(&rd, "schema_version", "missing: not a scalebench result");
	if (json_integer_value(sv) != SB_SCHEMA_VERSION) {
		snprintf(err, errlen, "schema_version %lld is not supported (this version reads %d)",
			 (long long)json_integer_value(sv), SB_SCHEMA_VERSION);
		return -1;
	}
	r->schema_version = SB_SCHEMA_VERSION;
	json_t *tool = json_object_get(j, "tool"), *clk = json_object_get(j, "clock");
	if (!json_is_object(tool))
		return bad(&rd, "tool", "missing");
	int rc = 0;
	if (get_str(&rd, tool, "version", &r->tool_version, 1) ||
	    get_str(&rd, j, "started", &r->started, 0) ||
	    get_str(&rd, j, "finished", &r->finished, 0) || get_str(&rd, j, "host", &r->host, 0) ||
	    get_num(&rd, j, "duration_s", &r->duration_s, 0) ||
	    read_strs(&rd, json_object_get(j, "command_line"), "command_line", &r->argv, &r->argc))
		rc = -1;
	if (!rc && json_is_object(clk)) {
		json_t *id = json_object_get(clk, "id"), *src = json_object_get(clk, "source");
		snprintf(r->clock.id, sizeof(r->clock.id), "%s", json_is_string(id) ? json_string_value(id) : "");
		snprintf(r->clock.source, sizeof(r->clock.source), "%s",
			 json_is_string(src) ? json_string_value(src) : "");
		get_num(&rd, clk, "resolution_ns", &r->clock.resolution_ns, 0);
		get_num(&rd, clk, "read_cost_ns", &r->clock.read_cost_ns, 0);
	}
	json_t *pref = json_object_get(j, "probe_reference");
	if (json_is_object(pref)) {
		read_probe(pref, &r->probe_ref);
		r->has_probe_ref = 1;
	}
	r->interrupted = json_is_true(json_object_get(j, "interrupted"));
	json_t *opts = json_object_get(j, "options"), *snap = json_object_get(j, "snapshot");
	r->options = json_is_object(opts) ? json_incref(opts) : json_object();
	r->snapshot = json_is_object(snap) ? json_incref(snap) : json_object();
	json_t *tg = json_object_get(j, "targets");
	r->targets = json_is_object(tg) ? json_incref(tg) : NULL;
	json_t *jb = json_object_get(j, "job");
	r->job = json_is_object(jb) ? json_incref(jb) : NULL;
	json_t *jab = json_object_get(j, "ab");
	r->ab = json_is_object(jab) ? json_incref(jab) : NULL;
	json_t *benches = json_object_get(j, "benches");
	if (!rc && !json_is_array(benches))
		rc = bad(&rd, "benches", "missing or not an array");
	for (size_t i = 0; !rc && i < json_array_size(benches); i++) {
		struct bench_result *b = result_add_bench(r);
		snprintf(rd.where, sizeof(rd.where), "benches[%zu]", i);
		if (!b)
			rc = bad(&rd, "bench", "out of memory");
		else if (read_bench(&rd, json_array_get(benches, i), b))
			rc = -1;
	}
	if (rc)
		result_free(r);
	return rc;
}

int bench_from_json(const json_t *o, struct bench_result *b, char *err, size_t errlen)
{
	struct rd rd = {.err = err, .errlen = errlen};
	memset(b, 0, sizeof(*b));
	if (read_bench(&rd, o, b)) {
		bench_result_clear(b);
		return -1;
	}
	return 0;
}

int result_read_file(const char *path, struct run_result *r, char *err, size_t errlen)
{
	json_error_t je;
	memset(r, 0, sizeof(*r));
	json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!j) {
		if (je.line > 0)
			snprintf(err, errlen, "%s:%d:%d: %s", path, je.line, je.column, je.text);
		else
			snprintf(err, errlen, "%s: %s", path, je.text);
		return -1;
	}
	char inner[400];
	int rc = result_from_json(j, r, inner, sizeof(inner));
	json_decref(j);
	if (rc)
		snprintf(err, errlen, "%s: %s", path, inner);
	return rc;
}
