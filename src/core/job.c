/* SPDX-License-Identifier: MIT */
/* A job and its JSON (job.h): one list of fields, JOB_FIELDS, made into
 * the table below; the encoder and the decoder both walk that table. */
#include "core/job.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOB_REQ_REQ 1
#define JOB_REQ_OPT 0
#define JOB_DEF_STR(d) .def_str = (d)
#define JOB_DEF_OBJ(d) .def_str = (d)
#define JOB_DEF_INT(d) .def_num = (d)
#define JOB_DEF_BOOL(d) .def_num = (d)
#define JOB_DEF_U64(d) .def_num = (d)
#define JOB_DEF_DBL(d) .def_num = (d)
#define JOB_ROW_(n_, t_, r_, d_, h_)                                                            \
	{.name = #n_, .type = JOB_##t_, .off = offsetof(struct job, n_), .required = JOB_REQ_##r_, \
	 JOB_DEF_##t_(d_), .help = (h_)},

const struct job_field job_fields[] = {JOB_FIELDS(JOB_ROW_)};
const size_t job_nfields = sizeof(job_fields) / sizeof(job_fields[0]);

/* A field's member, by its table row (memcpy: no aliasing of the members'
 * types through another). */
#define AT(j, f) ((char *)(j) + (f)->off)
#define CAT(j, f) ((const char *)(j) + (f)->off)

static void get(const struct job *j, const struct job_field *f, void *v, size_t len)
{
	memcpy(v, CAT(j, f), len);
}

#define GETTER_(name, ctype)                                                                     \
	static ctype name(const struct job *j, const struct job_field *f)                        \
	{                                                                                        \
		ctype v;                                                                         \
		get(j, f, &v, sizeof(v));                                                        \
		return v;                                                                        \
	}
GETTER_(get_str, char *)
GETTER_(get_obj, json_t *)
GETTER_(get_int, int)
GETTER_(get_u64, uint64_t)
GETTER_(get_dbl, double)

static void put(struct job *j, const struct job_field *f, const void *v, size_t len)
{
	memcpy(AT(j, f), v, len);
}

void job_init(struct job *j)
{
	memset(j, 0, sizeof(*j));
	for (size_t i = 0; i < job_nfields; i++) {
		const struct job_field *f = &job_fields[i];
		if (f->required)
			continue;
		switch (f->type) {
		case JOB_INT:
		case JOB_BOOL: {
			int v = (int)f->def_num;
			put(j, f, &v, sizeof(v));
			break;
		}
		case JOB_U64: {
			uint64_t v = (uint64_t)f->def_num;
			put(j, f, &v, sizeof(v));
			break;
		}
		case JOB_DBL:
			put(j, f, &f->def_num, sizeof(f->def_num));
			break;
		case JOB_STR:
		case JOB_OBJ: /* the defaults are NULL (a default text would need copying) */
			break;
		}
	}
}

void job_clear(struct job *j)
{
	for (size_t i = 0; i < job_nfields; i++) {
		const struct job_field *f = &job_fields[i];
		if (f->type == JOB_STR)
			free(get_str(j, f));
		else if (f->type == JOB_OBJ)
			json_decref(get_obj(j, f));
	}
	job_init(j);
}

int job_set(char **field, const char *s)
{
	char *c = s ? strdup(s) : NULL;
	if (s && !c)
		return -ENOMEM;
	free(*field);
	*field = c;
	return 0;
}

static json_t *field_json(const struct job *j, const struct job_field *f)
{
	switch (f->type) {
	case JOB_STR: {
		const char *s = get_str(j, f);
		return s ? json_string(s) : json_null();
	}
	case JOB_OBJ: {
		json_t *o = get_obj(j, f);
		return o ? json_deep_copy(o) : json_null();
	}
	case JOB_INT:
		return json_integer(get_int(j, f));
	case JOB_BOOL:
		return json_boolean(get_int(j, f));
	case JOB_U64: {
		uint64_t v = get_u64(j, f);
		return v <= (uint64_t)INT64_MAX ? json_integer((json_int_t)v) : NULL;
	}
	case JOB_DBL:
		return json_real(get_dbl(j, f));
	}
	return NULL;
}

json_t *job_to_json(const struct job *j)
{
	json_t *o = json_object();
	for (size_t i = 0; o && i < job_nfields; i++) {
		json_t *v = field_json(j, &job_fields[i]);
		if (!v || json_object_set_new(o, job_fields[i].name, v)) {
			json_decref(o);
			o = NULL;
		}
	}
	return o;
}

static const struct job_field *field_find(const char *name)
{
	for (size_t i = 0; i < job_nfields; i++)
		if (!strcmp(job_fields[i].name, name))
			return &job_fields[i];
	return NULL;
}

static const char *type_name(enum job_type t)
{
	switch (t) {
	case JOB_STR: return "a string";
	case JOB_INT: return "an integer";
	case JOB_BOOL: return "true or false";
	case JOB_U64: return "an integer >= 0";
	case JOB_DBL: return "a finite number";
	case JOB_OBJ: return "an object of strings";
	}
	return "?";
}

static int all_strings(const json_t *o)
{
	const char *k;
	const json_t *v;
	json_object_foreach((json_t *)o, k, v)
		if (!json_is_string(v))
			return 0;
	return 1;
}

/* v into j's field f: 0, -1 (wrong type or range), -ENOMEM. */
static int field_read(struct job *j, const struct job_field *f, json_t *v)
{
	if (json_is_null(v) && (f->type == JOB_STR || f->type == JOB_OBJ) && !f->required)
		return 0; /* none: the default, NULL */
	switch (f->type) {
	case JOB_STR: {
		if (!json_is_string(v))
			return -1;
		char *s = strdup(json_string_value(v));
		if (!s)
			return -ENOMEM;
		put(j, f, &s, sizeof(s));
		return 0;
	}
	case JOB_OBJ: {
		if (!json_is_object(v) || !all_strings(v))
			return -1;
		json_t *o = json_incref(v);
		put(j, f, &o, sizeof(o));
		return 0;
	}
	case JOB_INT: {
		json_int_t x = json_integer_value(v);
		if (!json_is_integer(v) || x < INT_MIN || x > INT_MAX)
			return -1;
		int i = (int)x;
		put(j, f, &i, sizeof(i));
		return 0;
	}
	case JOB_BOOL: {
		if (!json_is_boolean(v))
			return -1;
		int i = json_is_true(v);
		put(j, f, &i, sizeof(i));
		return 0;
	}
	case JOB_U64: {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return -1;
		uint64_t u = (uint64_t)json_integer_value(v);
		put(j, f, &u, sizeof(u));
		return 0;
	}
	case JOB_DBL: {
		double d = json_number_value(v);
		if (!json_is_number(v) || !isfinite(d))
			return -1;
		put(j, f, &d, sizeof(d));
		return 0;
	}
	}
	return -1;
}

static int fail(struct job *j, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	job_clear(j);
	return -1;
}

int job_from_json(const json_t *o, struct job *j, char *err, size_t errlen)
{
	job_init(j);
	if (!json_is_object(o))
		return fail(j, err, errlen, "a job is a JSON object");
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)o, k, v) {
		const struct job_field *f = field_find(k);
		if (!f)
			return fail(j, err, errlen, "unknown field \"%s\"", k);
		int rc = field_read(j, f, v);
		if (rc == -ENOMEM)
			return fail(j, err, errlen, "%s: out of memory", k);
		if (rc)
			return fail(j, err, errlen, "field \"%s\" must be %s%s", k, type_name(f->type),
				    f->required || (f->type != JOB_STR && f->type != JOB_OBJ) ? "" : " or null");
	}
	for (size_t i = 0; i < job_nfields; i++) {
		const struct job_field *f = &job_fields[i];
		json_t *x = json_object_get(o, f->name);
		if (f->required && (!x || json_is_null(x)))
			return fail(j, err, errlen, "missing field \"%s\"", f->name);
	}
	return 0;
}

int job_equal(const struct job *a, const struct job *b)
{
	for (size_t i = 0; i < job_nfields; i++) {
		const struct job_field *f = &job_fields[i];
		switch (f->type) {
		case JOB_STR: {
			const char *x = get_str(a, f), *y = get_str(b, f);
			if ((!x || !y) ? x != y : strcmp(x, y) != 0)
				return 0;
			break;
		}
		case JOB_OBJ: {
			const json_t *x = get_obj(a, f), *y = get_obj(b, f);
			if ((!x || !y) ? x != y : !json_equal((json_t *)x, (json_t *)y))
				return 0;
			break;
		}
		case JOB_INT:
		case JOB_BOOL:
			if (get_int(a, f) != get_int(b, f))
				return 0;
			break;
		case JOB_U64:
			if (get_u64(a, f) != get_u64(b, f))
				return 0;
			break;
		case JOB_DBL:
			if (memcmp(CAT(a, f), CAT(b, f), sizeof(double)))
				return 0;
			break;
		}
	}
	return 1;
}

/* The numeric fields sweep_opts has under the same name: copied as they
 * are, each way. */
#define JOB_SWEEP_SAME(X)                                                                        \
	X(min_n) X(max_n) X(repeat) X(rep_first) X(rep_count) X(budget_s) X(run_budget_s)        \
	X(quick) X(full) X(ci_target) X(min_samples) X(op_timeout_s) X(max_latency_ns) X(tasks)  \
	X(decide) X(no_decide) X(no_remeasure) X(profile) X(profile_apart)
#define TO_JOB_(m) j->m = so->m;
#define TO_SWEEP_(m) so->m = j->m;

int job_from_sweep(struct job *j, const char *bench, const struct sweep_opts *so)
{
	const struct bench_net *n = sweep_net(so);
	const struct clock_info *c = so->clk;
	if (job_set(&j->bench, bench) || job_set(&j->scratch, so->scratch) ||
	    job_set(&j->net_peer, n->peer) || job_set(&j->net_key, n->key) ||
	    job_set(&j->clock_id, c ? c->id : NULL) || job_set(&j->clock_source, c ? c->source : NULL) ||
	    job_set(&j->profile_at, so->profile_at))
		return -ENOMEM;
	JOB_SWEEP_SAME(TO_JOB_)
	j->clock_resolution_ns = c ? c->resolution_ns : 0;
	j->clock_read_cost_ns = c ? c->read_cost_ns : 0;
	j->net_family = n->family;
	j->net_netns = !!n->netns;
	j->net_srv_nsfd = n->srv_nsfd;
	if (so->has_probe_ref) { /* a part the system lacks (NAN) is 0: none */
		const double *r = so->probe_ref.ns;
		j->probe_loop_ns = isnan(r[PROBE_LOOP]) ? 0 : r[PROBE_LOOP];
		j->probe_clock_ns = isnan(r[PROBE_CLOCK]) ? 0 : r[PROBE_CLOCK];
		j->probe_syscall_ns = isnan(r[PROBE_SYSCALL]) ? 0 : r[PROBE_SYSCALL];
		j->probe_fault_ns = isnan(r[PROBE_FAULT]) ? 0 : r[PROBE_FAULT];
		j->probe_unmap_ns = isnan(r[PROBE_UNMAP]) ? 0 : r[PROBE_UNMAP];
	}
	return 0;
}

void job_sweep_opts(const struct job *j, struct sweep_opts *so, struct bench_net *net,
		    struct clock_info *clk)
{
	memset(clk, 0, sizeof(*clk));
	snprintf(clk->id, sizeof(clk->id), "%s", j->clock_id ? j->clock_id : "");
	snprintf(clk->source, sizeof(clk->source), "%s", j->clock_source ? j->clock_source : "");
	clk->resolution_ns = j->clock_resolution_ns;
	clk->read_cost_ns = j->clock_read_cost_ns;
	*net = (struct bench_net){.family = j->net_family, .netns = j->net_netns,
				  .srv_nsfd = j->net_srv_nsfd, .peer = j->net_peer, .key = j->net_key};
	memset(so, 0, sizeof(*so));
	JOB_SWEEP_SAME(TO_SWEEP_)
	so->scratch = j->scratch;
	so->profile_at = j->profile_at;
	so->net = net;
	so->clk = clk;
	const double parts[PROBE_NPARTS] = {j->probe_loop_ns, j->probe_clock_ns, j->probe_syscall_ns,
					    j->probe_fault_ns, j->probe_unmap_ns};
	for (int i = 0; i < PROBE_NPARTS; i++) {
		so->probe_ref.ns[i] = parts[i] > 0 ? parts[i] : NAN;
		so->has_probe_ref |= parts[i] > 0;
	}
}
