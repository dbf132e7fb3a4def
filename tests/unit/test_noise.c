/* SPDX-License-Identifier: MIT */
/* The noise floor from earlier runs (src/core/noise.c) and the threshold
 * decision compare makes with it (compare_threshold, compare_results): the
 * spread is the standard deviation of the runs' levels over their common
 * N; a change within k times it is "same", a change far beyond it is
 * still called; with too few runs the floor is not used. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/cmpstat.h"
#include "core/compare.h"
#include "core/noise.h"
#include "core/probe.h"
#include "out/report.h"
#include "t.h"
#include "core/verdict.h"

/* A bench of npts points, n = 1, 2, 4 ..., in nreps repetitions; the
 * latencies of repetition r are around 1000 ns times f times rep[r]
 * (rep NULL: 1), 400 samples each. */
static void add(struct run_result *r, const char *name, const char *variant, int version,
		int npts, int nreps, double f, const double *rep)
{
	struct bench_result *b = result_add_bench(r);
	b->name = strdup(name);
	b->variant = variant ? strdup(variant) : NULL;
	b->version = version;
	struct hist *h = hist_new();
	for (int q = 0; q < nreps; q++) {
		struct repetition *rp = bench_add_rep(b);
		for (int i = 0; i < npts; i++) {
			struct point *p = rep_add_point(rp);
			hist_reset(h);
			double x = f * (rep ? rep[q] : 1);
			for (int k = 0; k < 400; k++)
				hist_add(h, x * (900 + (k * 37) % 200));
			p->n = (uint64_t)1 << i;
			p->batch = 1;
			p->samples = p->ops = h->count;
			hist_summary(h, &p->st);
			point_set_bins(p, h);
		}
		rep_fit(rp, 0);
	}
	hist_free(h);
	bench_fit(b);
}

/* An empty run of the current schema. */
static void new_run(struct run_result *r)
{
	memset(r, 0, sizeof(*r));
	r->schema_version = SB_SCHEMA_VERSION;
	r->snapshot = json_object();
}

static void make(struct run_result *r, const char *name, const char *variant, int version,
		 int npts, int nreps, double f, const double *rep)
{
	new_run(r);
	add(r, name, variant, version, npts, nreps, f, rep);
}

/* Five earlier runs of ten benches, each run as a whole 0.90-1.20x (the
 * machine's speed in that run: every bench alike), each bench within 1%
 * of its own level beyond that: the spread is the runs' (~11%), the
 * spread beyond the run shift ~1%, the one compare's history test takes;
 * with three benches no shift is estimated and there is none. */
static void spread_beyond_shift(void)
{
	const double shift[5] = {1.00, 1.20, 0.90, 1.10, 0.95};
	const double wob[5] = {1.000, 1.010, 0.990, 1.005, 0.995};
	for (int nb = 10; nb >= 3; nb -= 7) {
		struct noise_set s = {0};
		for (int r = 0; r < 5; r++) {
			struct run_result rr;
			new_run(&rr);
			for (int j = 0; j < nb; j++) {
				char name[16];
				snprintf(name, sizeof(name), "b%d.op", j);
				add(&rr, name, NULL, 1, 6, 2, shift[r] * wob[(r + j) % 5], NULL);
			}
			CHECK(noise_add_run(&s, &rr) == 0, "%d benches: run %d added", nb, r);
			result_free(&rr);
		}
		noise_finish(&s);
		double lw[5], ls[5];
		for (int r = 0; r < 5; r++) {
			lw[r] = log(wob[r]);
			ls[r] = log(shift[r] * wob[r]);
		}
		const struct cmp_floor *f = noise_find(&s, "b0.op", 1);
		CHECK(f && fabs(f->spread - noise_spread(ls, 5)) < 0.004,
		      "%d benches: the whole spread %.4f (%.4f)", nb, f ? f->spread : NAN,
		      noise_spread(ls, 5));
		if (nb >= CMP_SCALE_MIN_TESTS)
			CHECK(f && f->spread_beyond < 1.5 * noise_spread(lw, 5) + 0.002 &&
				      f->spread_beyond < f->spread / 5 && isfinite(f->spread_top_beyond),
			      "%d benches: beyond the run shifts %.4f (own wobble %.4f), top third %.4f",
			      nb, f ? f->spread_beyond : NAN, noise_spread(lw, 5),
			      f ? f->spread_top_beyond : NAN);
		else
			CHECK(f && isnan(f->spread_beyond) && isnan(f->spread_top_beyond),
			      "%d benches: no run shift, no spread beyond it", nb);
		noise_free(&s);
	}
}

/* Every point of bench b (the last added) carries the probe, its
 * page-fault time fault_ns and its unmap time unmap_ns before and after,
 * the other parts 1 ns. */
static void set_probe(struct run_result *r, double fault_ns, double unmap_ns)
{
	struct bench_result *b = &r->benches[r->nbenches - 1];
	for (int q = 0; q < b->nreps; q++)
		for (int i = 0; i < b->reps[q].npts; i++) {
			struct point *p = &b->reps[q].pts[i];
			p->has_probe = 1;
			for (int s = 0; s < 2; s++)
				for (int part = 0; part < PROBE_NPARTS; part++)
					p->probe[s].ns[part] = part == PROBE_FAULT   ? fault_ns
							       : part == PROBE_UNMAP ? unmap_ns
										     : 1;
		}
}


/* Each run's own wobble of the benches below (within 1%), and its spread. */
static const double wob[8] = {1.000, 1.010, 0.990, 1.005, 0.995, 1.008, 0.992, 1.000};
static double wob_spread(void)
{
	double lw[8];
	for (int r = 0; r < 8; r++)
		lw[r] = log(wob[r]);
	return noise_spread(lw, 8);
}

/* A history of nruns runs of nb benches b0.op ... into s, finished: b0
 * costs b0[r] in run r, every bench times its wobble; the probe reads
 * fault[r] and unmap[r] ns in run r (none in run noprobe; -1: every run). */
static void probed_history(struct noise_set *s, int nruns, int nb, const double *b0, const double *fault,
			   const double *unmap, int noprobe)
{
	for (int r = 0; r < nruns; r++) {
		struct run_result rr;
		new_run(&rr);
		for (int j = 0; j < nb; j++) {
			char name[16];
			snprintf(name, sizeof(name), "b%d.op", j);
			double w = wob[(r + j) % 8];
			add(&rr, name, NULL, 1, 6, 2, j ? w : b0[r] * w, NULL);
			if (r != noprobe)
				set_probe(&rr, fault[r], unmap[r]);
		}
		CHECK(noise_add_run(s, &rr) == 0, "probed history: run %d added", r);
		result_free(&rr);
	}
	noise_finish(s);
}

/* Runs on a machine whose page-fault time moves 0.9-1.4x from run to run
 * (this project's VM in stretches: docs/compare.md, "Probe-adjusted
 * levels"), read by the probe: bench b0.op costs that factor to the power
 * 1.4, within 1% beyond it (as net.udp and proc.fork did), the other nine
 * do not move with it. The history's slope is b0's 1.4 and its adjusted
 * spread is the 1% wobble, not the whole run-to-run spread; the others'
 * slope is ~0 and their adjusted spread their own; with fewer runs than
 * a slope needs, or a run without the probe, no slope and no adjusted
 * spread. */
static void probe_slope(void)
{
	const double mach[8] = {1.00, 1.35, 0.92, 1.10, 1.40, 0.95, 1.20, 1.05};
	double b0[8], fault[8], unmap[8];
	for (int r = 0; r < 8; r++) {
		b0[r] = pow(mach[r], 1.4);
		fault[r] = 10000 * mach[r];
		unmap[r] = 1;
	}
	for (int nruns = 8; nruns >= 4; nruns -= 4)
		for (int noprobe = 0; noprobe < 2; noprobe++) {
			if (nruns == 4 && noprobe)
				continue;
			struct noise_set s = {0};
			probed_history(&s, nruns, 10, b0, fault, unmap, noprobe ? 3 : -1);
			const struct cmp_floor *f0 = noise_find(&s, "b0.op", 1), *f1 = noise_find(&s, "b1.op", 1);
			if (!f0 || !f1) {
				CHECK(0, "probe slope: floors found");
			} else if (nruns == 8 && !noprobe) {
				CHECK(fabs(f0->slope[0].beta - 1.4) < 0.1 && f0->spread > 0.12,
				      "probe slope: b0's slope %.3f (1.4), its whole spread %.3f", f0->slope[0].beta,
				      f0->spread);
				CHECK(f0->slope[0].spread < 2 * wob_spread() + 0.003 &&
					      f0->slope[0].spread_beyond < 2 * wob_spread() + 0.003 &&
					      isfinite(f0->slope[0].spread_top) && isfinite(f0->slope[0].spread_top_beyond),
				      "probe slope: b0's adjusted spread %.4f, beyond the shift %.4f (its own "
				      "wobble %.4f), top third %.4f",
				      f0->slope[0].spread, f0->slope[0].spread_beyond, wob_spread(),
				      f0->slope[0].spread_top);
				CHECK(f1->slope[0].beta < 0.05 && f1->slope[0].spread < 1.3 * f1->spread + 0.002,
				      "probe slope: b1 does not move with the probe: slope %.3f, adjusted spread "
				      "%.4f (%.4f as measured)",
				      f1->slope[0].beta, f1->slope[0].spread, f1->spread);
			} else {
				CHECK(isnan(f0->slope[0].beta) && isnan(f0->slope[0].spread) && isnan(f0->slope[0].spread_beyond) &&
					      isfinite(f0->spread),
				      "probe slope: %d runs%s: no slope, no adjusted spread (the whole one %.3f)",
				      nruns, noprobe ? ", one without the probe" : "", f0->spread);
			}
			noise_free(&s);
		}
}

/* Runs beside another vCPU busy every other run (the probe's unmap time
 * 4x, within 10%; the page-fault time steady): bench b0.op costs that
 * factor to the power 0.5 (2x busy, as proc.fork on this project's VM),
 * within 1%; b1.op does not move. The unmap slope is b0's 0.5 and its
 * adjusted spread the 1% wobble; the fault slope has no fault time that
 * varies to stand on (NAN); b1's unmap slope ~0. */
static void unmap_slope(void)
{
	const double busy[8] = {1.00, 4.2, 0.95, 3.8, 1.05, 4.0, 0.9, 4.1};
	double b0[8], fault[8], unmap[8];
	for (int r = 0; r < 8; r++) {
		b0[r] = sqrt(busy[r]);
		fault[r] = 10000;
		unmap[r] = 1e5 * busy[r];
	}
	struct noise_set s = {0};
	probed_history(&s, 8, 2, b0, fault, unmap, -1);
	const struct cmp_floor *f0 = noise_find(&s, "b0.op", 1), *f1 = noise_find(&s, "b1.op", 1);
	if (!f0 || !f1) {
		CHECK(0, "unmap slope: floors found");
	} else {
		const struct cmp_slope *u0 = &f0->slope[CMP_SLOPE_UNMAP], *u1 = &f1->slope[CMP_SLOPE_UNMAP];
		CHECK(fabs(u0->beta - 0.5) < 0.05 && f0->spread > 0.3 && u0->spread < 2 * wob_spread() + 0.003 &&
			      isfinite(u0->se) && u0->se < 0.05,
		      "unmap slope: b0's %.3f (0.5), se %.3f; spread %.3f as measured, %.4f adjusted (its own "
		      "wobble %.4f)", u0->beta, u0->se, f0->spread, u0->spread, wob_spread());
		CHECK(isnan(f0->slope[CMP_SLOPE_FAULT].beta) && isnan(f0->slope[CMP_SLOPE_FAULT].spread),
		      "unmap slope: the fault time never moved: no fault slope (%g)",
		      f0->slope[CMP_SLOPE_FAULT].beta);
		CHECK(u1->beta < 0.03 && u1->spread < 1.3 * f1->spread + 0.002,
		      "unmap slope: b1 does not move with it: slope %.3f, adjusted spread %.4f (%.4f as "
		      "measured)", u1->beta, u1->spread, f1->spread);
	}
	noise_free(&s);
}

static void spread_math(void)
{
	double x[3] = {0, 0.1, -0.1};
	CHECK(fabs(noise_spread(x, 3) - 0.1) < 1e-12, "sd of {0, .1, -.1} is .1 (%g)", noise_spread(x, 3));
	CHECK(isnan(noise_spread(x, 1)), "one value: no spread");
	double same[4] = {2, 2, 2, 2};
	CHECK(noise_spread(same, 4) == 0, "equal values: 0");
}

/* Four earlier runs 1.00, 1.04, 0.96, 1.02 apart (3 tight repetitions
 * each): the spread is the sd of their logs, within the histogram's
 * resolution; a run that swept fewer N limits the common N. */
static void spread_of_runs(void)
{
	double runs[4] = {1.00, 1.04, 0.96, 1.02}, tight[3] = {1.0, 1.005, 0.995};
	double lg[4];
	struct noise_set s = {0};
	for (int i = 0; i < 4; i++) {
		struct run_result r;
		make(&r, "x.op", "k=1", 2, i == 3 ? 5 : 8, 3, runs[i], tight);
		CHECK(noise_add_run(&s, &r) == 0, "run %d added", i);
		result_free(&r);
		lg[i] = log(runs[i]);
	}
	struct run_result other; /* another bench, 2 runs: a spread but few runs */
	make(&other, "y.op", NULL, 1, 4, 1, 1.0, NULL);
	noise_add_run(&s, &other);
	result_free(&other);
	make(&other, "y.op", NULL, 1, 4, 1, 1.1, NULL);
	noise_add_run(&s, &other);
	result_free(&other);
	noise_finish(&s);
	const struct cmp_floor *f = noise_find(&s, "x.op[k=1]", 2);
	double want = noise_spread(lg, 4);
	CHECK(f != NULL, "x.op[k=1] v2 has a floor");
	CHECK(f && f->runs == 4 && f->points == 5, "4 runs, 5 common N (runs %d, points %d)",
	      f ? f->runs : -1, f ? f->points : -1);
	CHECK(f && fabs(f->spread - want) < 0.004, "spread %.4f, want %.4f", f ? f->spread : NAN, want);
	CHECK(noise_find(&s, "x.op[k=1]", 1) == NULL, "another version has no floor");
	CHECK(noise_find(&s, "x.op", 2) == NULL, "another variant has no floor");
	const struct cmp_floor *g = noise_find(&s, "y.op", 1);
	CHECK(g && g->runs == 2 && fabs(g->spread - log(1.1) / sqrt(2)) < 0.004,
	      "y.op: 2 runs 10%% apart, spread %.4f", g ? g->spread : NAN);
	noise_free(&s);
}

static void threshold_rule(void)
{
	struct cmp_floor f = {.key = "x.op", .version = 1, .runs = 5, .points = 9, .spread = 0.05};
	struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01, .floor_k = 3};
	int used;
	double fl, t = compare_threshold(&o, &f, &used, &fl);
	CHECK(used && fabs(t - expm1(0.15)) < 1e-12, "spread 5%%, k 3: threshold %.4f (floor)", t);
	f.spread = 0.001;
	t = compare_threshold(&o, &f, &used, &fl);
	CHECK(!used && t == 0.05 && fabs(fl - expm1(0.003)) < 1e-12,
	      "a floor under the threshold: the threshold stays (%g)", t);
	f.spread = 0.05;
	f.runs = 2;
	t = compare_threshold(&o, &f, &used, &fl);
	CHECK(!used && t == 0.05 && isnan(fl), "2 runs: no floor (%g)", t);
	o.floor_min_runs = 2;
	t = compare_threshold(&o, &f, &used, &fl);
	CHECK(used, "--floor-runs 2: 2 runs are enough");
	o.floor_k = 0;
	f.runs = 9;
	t = compare_threshold(&o, &f, &used, &fl);
	CHECK(!used && t == 0.05, "no --noise-floor: the threshold");
	t = compare_threshold(&(struct cmp_opts){.threshold = 0.05, .floor_k = 3}, NULL, &used, &fl);
	CHECK(!used && t == 0.05, "a bench without history: the threshold");
}

/* B with 3 tight repetitions f times A's, compared with a floor of
 * `spread` over `runs` runs; the bench's word and noise_floor. */
static const char *judge(double fb, double spread, int runs, int *reg, char *note, size_t len)
{
	static char word[32];
	double ta[3] = {1.0, 1.01, 0.99}, tb[3] = {0.995, 1.005, 1.0};
	struct run_result a, b;
	make(&a, "x.op", NULL, 1, 9, 3, 1.0, ta);
	make(&b, "x.op", NULL, 1, 9, 3, fb, tb);
	struct cmp_floor f = {.key = "x.op", .version = 1, .runs = runs, .points = 9, .spread = spread};
	struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01, .floor_k = 3, .floors = &f,
			     .nfloors = 1};
	json_t *c = compare_results(&a, "a", &b, "b", &o, reg);
	const json_t *jb = json_array_get(json_object_get(c, "benches"), 0);
	snprintf(word, sizeof(word), "%s", json_string_value(json_object_get(jb, "word")));
	const json_t *nf = json_object_get(jb, "noise_floor");
	snprintf(note, len, "%s", json_is_string(json_object_get(nf, "note"))
					  ? json_string_value(json_object_get(nf, "note"))
				  : json_is_true(json_object_get(nf, "used")) ? "used"
									      : "not used");
	json_decref(c);
	result_free(&a);
	result_free(&b);
	return word;
}

static void decision(void)
{
	int reg;
	char note[80];
	const char *w = judge(1.10, 0.05, 5, &reg, note, sizeof(note));
	CHECK(!strcmp(w, "same") && reg == 0 && !strcmp(note, "used"),
	      "10%% slower within a floor of 16%%: same (%s, %s)", w, note);
	w = judge(1.50, 0.05, 5, &reg, note, sizeof(note));
	CHECK(!strcmp(w, "slower") && reg == 1, "50%% slower beyond a floor of 16%%: slower (%s)", w);
	w = judge(0.70, 0.05, 5, &reg, note, sizeof(note));
	CHECK(!strcmp(w, "faster") && reg == 0, "30%% faster beyond the floor: faster (%s)", w);
	w = judge(1.10, 0.05, 2, &reg, note, sizeof(note));
	CHECK(!strcmp(w, "slower") && reg == 1 && !strcmp(note, "no floor: 2 runs"),
	      "2 earlier runs: no floor, 10%% slower is slower (%s, %s)", w, note);
	w = judge(1.10, 0.005, 5, &reg, note, sizeof(note));
	CHECK(!strcmp(w, "slower") && reg == 1 && !strcmp(note, "not used"),
	      "a floor of 1.5%% under the 5%% threshold: slower (%s, %s)", w, note);
	w = judge(1.10, NAN, 5, &reg, note, sizeof(note));
	CHECK(!strcmp(w, "slower") && !strncmp(note, "no floor", 8), "no common N: no floor (%s)", note);
}

/* The report draws the baseline's floor as a band (svg class "floor")
 * only when asked and when the bench has enough runs. */
static int band_in(const struct report_floors *fl)
{
	struct run_result a;
	make(&a, "x.op", NULL, 1, 6, 3, 1.0, NULL);
	const struct run_result *rs[] = {&a};
	const char *labels[] = {"a"};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = f ? report_write_html_floors(rs, labels, 1, fl, f) : -1;
	if (f)
		fclose(f);
	int has = rc == 0 && buf && strstr(buf, "class=\"floor\"") && strstr(buf, "noise floor +-16.2%");
	free(buf);
	result_free(&a);
	return rc ? -1 : has;
}

static void report_band(void)
{
	struct cmp_floor f = {.key = "x.op", .version = 1, .runs = 4, .points = 6, .spread = 0.05};
	struct report_floors fl = {.f = &f, .n = 1, .k = 3};
	CHECK(band_in(&fl) == 1, "a floor of 16.2%%: the band and its legend");
	CHECK(band_in(NULL) == 0, "no floors: no band");
	f.runs = 2;
	CHECK(band_in(&fl) == 0, "2 runs: no band");
	f.runs = 4;
	f.version = 2;
	CHECK(band_in(&fl) == 0, "another version: no band");
}

int main(void)
{
	report_band();
	spread_math();
	spread_of_runs();
	spread_beyond_shift();
	probe_slope();
	unmap_slope();
	threshold_rule();
	decision();
	return t_done("test_noise");
}
