/* SPDX-License-Identifier: MIT */
/* The axis kind in the result: a concurrency bench gets the throughput
 * verdict from its points' ops/s (bench_fit), written to JSON and read
 * back equal (refitted), oversubscribed points of a task axis left out
 * unless asked; a size bench its cost per KiB; an unknown kind is refused
 * by the reader, an absent one reads as load. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/result.h"
#include "out/result_io.h"
#include "t.h"
#include "core/verdict.h"

/* N = 1, 2, 4, 8, 16 with X(N) = 1e5 N / (1 + 0.1 (N - 1)), 2 repetitions
 * 1% apart; latency by Little's law (N / X) */
static void make_bench(struct bench_result *b, int kind)
{
	memset(b, 0, sizeof(*b));
	b->name = strdup("io.randread");
	b->axis = strdup("requests in flight");
	b->summary = strdup("s");
	b->op_desc = strdup("o");
	b->unit = strdup("request");
	b->version = 1;
	b->axis_kind = kind;
	for (int r = 0; r < 2; r++) {
		struct repetition *rep = bench_add_rep(b);
		for (uint64_t n = 1; n <= 16; n *= 2) {
			struct point *p = rep_add_point(rep);
			double x = 1e5 * (double)n / (1 + 0.1 * ((double)n - 1)) * (r ? 1.01 : 0.99);
			p->n = n;
			p->batch = 1;
			p->elapsed_s = 1;
			p->ops = p->samples = (uint64_t)x;
			p->ops_per_s = x;
			p->bytes = p->ops * 4096 * n;
			p->bytes_per_s = x * 4096 * (double)n;
			p->st.count = p->ops;
			p->st.p50 = p->st.mean = p->st.min = p->st.max = 1e9 * (double)n / x;
			p->st.med_lo = p->st.p50 * 0.99;
			p->st.med_hi = p->st.p50 * 1.01;
			p->cpu_start = p->cpu_end = -1;
		}
	}
	bench_fit(b);
}

static void test_concurrency(void)
{
	struct bench_result b, back;
	make_bench(&b, 1);
	CHECK(b.usl.cls == USL_SATURATES, "class %s (%s)", usl_class_name(b.usl.cls), b.usl.reason);
	CHECK(fabs(b.usl.sigma - 0.1) < 0.02, "sigma %g", b.usl.sigma);
	CHECK(b.usl.npoints == 10 && b.usl.nmax == 16, "points %d nmax %g", b.usl.npoints, b.usl.nmax);
	json_t *j = bench_to_json(&b);
	json_t *tv = json_object_get(j, "throughput_verdict");
	CHECK(!strcmp(json_string_value(json_object_get(j, "axis_kind")), "concurrency"), "axis_kind");
	CHECK(json_is_object(tv) &&
		      !strcmp(json_string_value(json_object_get(tv, "class")), "saturates"),
	      "throughput_verdict written");
	char err[256];
	memset(&back, 0, sizeof(back));
	CHECK(bench_from_json(j, &back, err, sizeof(err)) == 0, "read back: %s", err);
	CHECK(back.axis_kind == 1 && back.usl.cls == b.usl.cls && back.usl.sigma == b.usl.sigma &&
		      back.usl.kappa == b.usl.kappa && back.usl.sigma_hi == b.usl.sigma_hi,
	      "read back equal: %s sigma %g", usl_class_name(back.usl.cls), back.usl.sigma);
	json_t *j2 = bench_to_json(&back);
	CHECK(json_equal(j, j2), "written again equal");
	json_decref(j2);
	bench_result_clear(&back);

	/* an unknown kind is refused, naming the field */
	json_object_set_new(j, "axis_kind", json_string("tasks"));
	memset(&back, 0, sizeof(back));
	CHECK(bench_from_json(j, &back, err, sizeof(err)) != 0 && strstr(err, "axis_kind"),
	      "unknown kind: %s", err);
	bench_result_clear(&back);
	/* an absent one (older results) reads as load: no throughput verdict */
	json_object_del(j, "axis_kind");
	memset(&back, 0, sizeof(back));
	CHECK(bench_from_json(j, &back, err, sizeof(err)) == 0 && back.axis_kind == 0 &&
		      back.usl.cls == USL_NONE && back.usl.npoints == 0,
	      "absent kind: load");
	bench_result_clear(&back);
	json_decref(j);

	/* a task axis on 4 CPUs: 8 and 16 are oversubscribed, left out;
	 * asked, fitted */
	b.axis_tasks = 1;
	b.cpus_online = 4;
	bench_fit(&b);
	CHECK(b.usl.noversub == 4 && b.usl.npoints == 6 && b.usl.nmax == 4, "oversub: %d over, %d fitted",
	      b.usl.noversub, b.usl.npoints);
	b.fit_oversub = 1;
	bench_fit(&b);
	CHECK(b.usl.noversub == 4 && b.usl.npoints == 10 && b.usl.oversub_fitted, "fitted: %d",
	      b.usl.npoints);
	bench_result_clear(&b);
}

static void test_size(void)
{
	struct bench_result b;
	make_bench(&b, 2);
	double n0, c0, n1, c1;
	CHECK(bench_per_kib(&b, &n0, &c0, &n1, &c1) == 0, "per KiB");
	/* p50 = 1e9 n / x ns per request of 4 n KiB */
	double want0 = 1e9 / 1e5 / 4, want1 = 1e9 * 16 / (1e5 * 16 / 2.5) / 64;
	CHECK(n0 == 1 && n1 == 16, "range %g..%g", n0, n1);
	CHECK(fabs(c0 / want0 - 1) < 0.02 && fabs(c1 / want1 - 1) < 0.02, "per KiB %g %g want %g %g",
	      c0, c1, want0, want1);
	CHECK(b.usl.cls == USL_NONE && b.usl.npoints == 0, "no throughput verdict on a size axis");
	json_t *j = bench_to_json(&b);
	CHECK(json_is_object(json_object_get(j, "per_kib")) &&
		      !json_object_get(j, "throughput_verdict"),
	      "per_kib written, no throughput_verdict");
	json_decref(j);
	bench_result_clear(&b);
	CHECK(!strcmp(axis_kind_name(2), "size") && axis_kind_from_name("load") == 0 &&
		      axis_kind_from_name("x") == -1 && !strcmp(axis_kind_name(7), "load"),
	      "names");
}

int main(void)
{
	test_concurrency();
	test_size();
	return t_done("test_axis");
}
