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

/* A category axis (rt.wakeup's load kinds): no growth fitted whatever the
 * points do, the headline the p99 per category and the worst against the
 * first, written to JSON and read back, and the summary saying so without
 * counting it unclear. */
static void test_category(void)
{
	struct bench_result b, back;
	static const double p99[2][3] = {{100e3, 190e3, 900e3}, {100e3, 210e3, 700e3}};
	memset(&b, 0, sizeof(b));
	b.name = strdup("rt.wakeup");
	b.axis = strdup("load level");
	b.summary = strdup("s");
	b.op_desc = strdup("o");
	b.unit = strdup("wake-up");
	b.version = 1;
	b.axis_kind = 3;
	b.ncategories = 3;
	b.categories = calloc(3, sizeof(char *));
	b.categories[0] = strdup("none");
	b.categories[1] = strdup("cpu");
	b.categories[2] = strdup("io");
	for (int r = 0; r < 2; r++) {
		struct repetition *rep = bench_add_rep(&b);
		for (uint64_t n = 1; n <= 3; n++) {
			struct point *p = rep_add_point(rep);
			p->n = n;
			p->batch = 1;
			p->elapsed_s = 1;
			p->ops = p->samples = p->st.count = 1000;
			/* a cost that would fit as growth (n^2) on a load axis */
			p->st.p50 = p->st.mean = p->st.min = 1e3 * (double)(n * n);
			p->st.med_lo = p->st.p50 * 0.99;
			p->st.med_hi = p->st.p50 * 1.01;
			p->st.p99 = p->st.max = p99[r][n - 1];
			p->cpu_start = p->cpu_end = -1;
		}
	}
	bench_fit(&b);
	CHECK(b.v.cls == GROWTH_NONE && strstr(b.v.reason, "category axis") && isnan(b.v.exponent),
	      "no growth fitted: %s (%s)", growth_name(b.v.cls), b.v.reason);
	CHECK(b.reps[0].v.cls == GROWTH_NONE && b.reps[1].v.cls == GROWTH_NONE,
	      "no growth per repetition either");
	char hl[512];
	bench_category_headline(&b, hl, sizeof(hl));
	CHECK(!strcmp(hl, "p99 none 100 us, cpu 200 us, io 800 us; worst io (8x none)"), "headline: %s",
	      hl);
	char nm[32];
	double w, ratio;
	CHECK(bench_category_worst(&b, nm, sizeof(nm), &w, &ratio) == 0 && !strcmp(nm, "io") &&
		      w == 800e3 && ratio == 8,
	      "worst %s %g x%g", nm, w, ratio);
	/* the first category the worst: named, no ratio */
	double keep[2] = {b.reps[0].pts[0].st.p99, b.reps[1].pts[0].st.p99};
	b.reps[0].pts[0].st.p99 = b.reps[1].pts[0].st.p99 = 2e6;
	bench_category_headline(&b, hl, sizeof(hl));
	CHECK(!strcmp(hl, "p99 none 2 ms, cpu 200 us, io 800 us; worst none"), "first worst: %s", hl);
	CHECK(bench_category_worst(&b, nm, sizeof(nm), &w, &ratio) == 0 && !strcmp(nm, "none") &&
		      isnan(ratio),
	      "first worst: %s x%g", nm, ratio);
	b.reps[0].pts[0].st.p99 = keep[0];
	b.reps[1].pts[0].st.p99 = keep[1];
	CHECK(!strcmp(axis_kind_name(3), "category") && axis_kind_from_name("category") == 3,
	      "the kind's name");

	json_t *j = bench_to_json(&b);
	json_t *ct = json_object_get(j, "category_tail");
	CHECK(!strcmp(json_string_value(json_object_get(j, "axis_kind")), "category") &&
		      json_array_size(json_object_get(j, "categories")) == 3 &&
		      json_integer_value(json_object_get(ct, "worst_n")) == 3 &&
		      json_real_value(json_object_get(ct, "worst_ratio")) == 8 &&
		      !strcmp(json_string_value(json_object_get(json_object_get(j, "verdict"), "class")),
			      "none"),
	      "written: kind, names, tail, no verdict");
	char err[256];
	memset(&back, 0, sizeof(back));
	CHECK(bench_from_json(j, &back, err, sizeof(err)) == 0, "read back: %s", err);
	CHECK(back.axis_kind == 3 && back.ncategories == 3 && !strcmp(back.categories[2], "io") &&
		      back.v.cls == GROWTH_NONE,
	      "read back equal");
	json_t *j2 = bench_to_json(&back);
	CHECK(json_equal(j, j2), "written again equal");
	json_decref(j2);
	json_decref(j);

	/* the summary: the per-category headline, the worst in the findings,
	 * not among the unclear */
	struct run_result r;
	memset(&r, 0, sizeof(r));
	r.benches = &back;
	r.nbenches = 1;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	result_print_text(&r, f);
	fclose(f);
	CHECK(text && strstr(text, "  tail     rt.wakeup: worst io, p99 800 us (8x none)\n"),
	      "findings: the worst category");
	CHECK(text && strstr(text, "p99 none 100 us, cpu 200 us, io 800 us; worst io (8x none)"),
	      "the bench's line: the tail per category");
	CHECK(text && !strstr(text, "unclear") && !strstr(text, "why  "), "not unclear");
	free(text);
	bench_result_clear(&back);
	bench_result_clear(&b);
}

int main(void)
{
	test_concurrency();
	test_size();
	test_category();
	return t_done("test_axis");
}
