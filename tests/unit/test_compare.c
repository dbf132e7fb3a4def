/* SPDX-License-Identifier: MIT */
/* Result against result on synthetic sweeps: the bench-level word that
 * decides the exit code. One point shifted (a noisy run) is not a
 * regression; every point shifted is; the top third shifted (growth at
 * large N) is; verdict changes and versions are handled. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/cmpstat.h"
#include "core/compare.h"
#include "core/noise.h"
#include "core/probe.h"
#include "t.h"
#include "core/verdict.h"

/* One synthetic point at load n: count samples spread +-10% around
 * f * 1000 ns, summarised and binned as a sweep's. */
static void synth_point(struct point *p, struct hist *h, uint64_t n, double f, int count)
{
	hist_reset(h);
	for (int k = 0; k < count; k++)
		hist_add(h, f * (900 + (k * 37) % 200));
	p->n = n;
	p->batch = 1;
	p->samples = p->ops = h->count;
	hist_summary(h, &p->st);
	point_set_bins(p, h);
}

/* A sweep of 9 points, n = 1..256, in nreps repetitions; point i's
 * latencies in repetition r are around 1000 ns times factor[i] (1 when
 * factor is NULL) times run[r] (1 when run is NULL: a run effect, the
 * shift of a whole repetition), 400 samples each. */
static void make_reps(struct run_result *r, const double *factor, int version, int nreps,
		      const double *run)
{
	memset(r, 0, sizeof(*r));
	r->schema_version = SB_SCHEMA_VERSION;
	r->snapshot = json_object();
	struct bench_result *b = result_add_bench(r);
	b->name = strdup("x.op");
	b->version = version;
	struct hist *h = hist_new();
	for (int q = 0; q < nreps; q++) {
		struct repetition *rep = bench_add_rep(b);
		for (int i = 0; i < 9; i++) {
			synth_point(rep_add_point(rep), h, (uint64_t)1 << i,
				    (factor ? factor[i] : 1) * (run ? run[q] : 1), 400);
		}
		rep_fit(rep, 0);
	}
	hist_free(h);
	bench_fit(b);
}

static void make(struct run_result *r, const double *factor, int version)
{
	make_reps(r, factor, version, 1, NULL);
}

static const char *bench_word_of(const json_t *c)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(c, "benches"), 0), "word"));
}

/* One run a side, judged on its samples (--strict). */
static void expect(const double *fb, int vb, const char *word, int regression, const char *what)
{
	struct run_result a, b;
	make(&a, NULL, 1);
	make(&b, fb, vb);
	struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01, .strict = 1};
	int reg = -1;
	json_t *c = compare_results(&a, "a", &b, "b", &o, &reg);
	CHECK(c != NULL, "%s: built", what);
	const char *w = c ? bench_word_of(c) : NULL;
	if (word)
		CHECK(w && !strcmp(w, word), "%s: bench word %s, want %s", what, w ? w : "(none)", word);
	CHECK(reg == regression, "%s: regression %d, want %d", what, reg, regression);
	json_decref(c);
	result_free(&a);
	result_free(&b);
}

static const char *rep_word_of(const double *fa, const double *runa, int ka, const double *fb,
			       const double *runb, int kb, int strict, int *reg)
{
	static char word[32];
	struct run_result a, b;
	make_reps(&a, fa, 1, ka, runa);
	make_reps(&b, fb, 1, kb, runb);
	struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01, .strict = strict};
	json_t *c = compare_results(&a, "a", &b, "b", &o, reg);
	snprintf(word, sizeof(word), "%s", c ? bench_word_of(c) : "(none)");
	json_decref(c);
	result_free(&a);
	result_free(&b);
	return word;
}

/* A uniform deviate in (0, 1) from a fixed-seed LCG (the test must not
 * depend on the C library's rand). */
static double uniform(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(uint64_t *s)
{
	double u = uniform(s), v = uniform(s);
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* The repetition is the unit of replication: run effects of 10% with
 * tight samples inside each run are not a change; a real one is. */
static void repetitions(void)
{
	double slow[9] = {1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2};
	double ten[9] = {1.1, 1.1, 1.1, 1.1, 1.1, 1.1, 1.1, 1.1, 1.1};
	double top[9] = {1, 1, 1, 1, 1, 1, 1.3, 1.3, 1.3};
	double ra[3] = {1.00, 1.10, 0.93}, rb[3] = {1.08, 0.95, 1.04};
	double tight[3] = {1.0, 1.01, 0.99}, tight2[3] = {0.995, 1.005, 1.0};
	int reg;
	const char *w = rep_word_of(NULL, ra, 3, NULL, rb, 3, 0, &reg);
	CHECK(strcmp(w, "slower") && strcmp(w, "faster") && reg == 0,
	      "run effects of 10%%, 3 repetitions a side: not a change (%s)", w);
	/* the same runs judged on the samples of one run each: a false alarm */
	w = rep_word_of(NULL, ra + 1, 1, NULL, ra + 2, 1, 1, &reg);
	CHECK(!strcmp(w, "faster") && reg == 0, "the samples of one run each see a change (%s)", w);
	w = rep_word_of(NULL, ra, 1, NULL, ra + 1, 1, 1, &reg);
	CHECK(!strcmp(w, "slower") && reg == 1, "... and call it a regression (%s)", w);
	w = rep_word_of(NULL, ra, 1, NULL, ra + 1, 1, 0, &reg);
	CHECK(!strcmp(w, "insufficient") && reg == 0, "without --strict: insufficient (%s)", w);
	w = rep_word_of(NULL, tight, 3, slow, tight2, 3, 0, &reg);
	CHECK(!strcmp(w, "slower") && reg == 1, "20%% slower, 3 repetitions a side: slower (%s)", w);
	w = rep_word_of(NULL, tight, 3, ten, tight2, 3, 0, &reg);
	CHECK(!strcmp(w, "slower") && reg == 1, "10%% slower, 3 repetitions a side: slower (%s)", w);
	w = rep_word_of(slow, tight, 3, NULL, tight2, 3, 0, &reg);
	CHECK(!strcmp(w, "faster") && reg == 0, "20%% faster: faster (%s)", w);
	w = rep_word_of(NULL, tight, 3, top, tight2, 3, 0, &reg);
	CHECK(!strcmp(w, "slower") && reg == 1, "top third 30%% slower: slower (%s)", w);
	w = rep_word_of(NULL, tight, 3, NULL, tight2, 3, 0, &reg);
	CHECK(!strcmp(w, "same") && reg == 0, "no change: same (%s)", w);
	w = rep_word_of(NULL, tight, 2, slow, tight2, 3, 0, &reg);
	CHECK(!strcmp(w, "insufficient") && reg == 0, "2 repetitions on a side: insufficient (%s)", w);

	/* false alarms under run effects of sd 10%: 200 A/A comparisons */
	uint64_t seed = 42;
	int alarms = 0, trials = 200;
	for (int i = 0; i < trials; i++) {
		double x[3], y[3];
		for (int k = 0; k < 3; k++) {
			x[k] = exp(0.10 * gauss(&seed));
			y[k] = exp(0.10 * gauss(&seed));
		}
		w = rep_word_of(NULL, x, 3, NULL, y, 3, 0, &reg);
		alarms += reg;
	}
	CHECK(alarms <= trials * 3 / 100, "run effects of sd 10%%: %d false alarms in %d A/A comparisons",
	      alarms, trials);
}

/* A run of nb benches (b00.op ...), each a sweep of 9 points in reps
 * repetitions; bench i's latencies in repetition q are around 1000 ns
 * times lvl[reps * i + q], 200 samples a point, +-10% (tight within-run
 * intervals). With id, side "a" or "b" of compare --ab run id, its
 * repetitions the pairs, the order alternating. */
static void make_family_probed(struct run_result *r, int nb, int reps, const double *lvl, const char *id,
			       const char *side, const double *fault);

static void make_family(struct run_result *r, int nb, int reps, const double *lvl, const char *id,
		      const char *side)
{
	make_family_probed(r, nb, reps, lvl, id, side, NULL);
}

/* The builder of make_family and its kin: bench i has nrep[i]
 * repetitions, its level in repetition q lvl[stride * i + q] (fault[] the
 * same way); with id, the side's "pairs" is the fewest repetitions of a
 * bench (the pairs every bench got). */
static void make_family_var(struct run_result *r, int nb, const int *nrep, int stride, const double *lvl,
			    const char *id, const char *side, const double *fault)
{
	memset(r, 0, sizeof(*r));
	r->schema_version = SB_SCHEMA_VERSION;
	r->snapshot = json_object();
	int fewest = nb > 0 ? nrep[0] : 0;
	for (int i = 1; i < nb; i++)
		fewest = nrep[i] < fewest ? nrep[i] : fewest;
	if (id)
		r->ab = json_pack("{s:s,s:s,s:s,s:s,s:i,s:s}", "id", id, "side", side, "label", side,
				  "spec", "-", "pairs", fewest, "order", "alternating");
	struct hist *h = hist_new();
	for (int i = 0; i < nb; i++) {
		struct bench_result *b = result_add_bench(r);
		char name[32];
		snprintf(name, sizeof(name), "b%02d.op", i);
		b->name = strdup(name);
		b->version = 1;
		for (int q = 0; q < nrep[i]; q++) {
			struct repetition *rep = bench_add_rep(b);
			for (int k = 0; k < 9; k++)
				synth_point(rep_add_point(rep), h, (uint64_t)1 << k, lvl[stride * i + q], 200);
			for (int k = 0; fault && k < rep->npts; k++) {
				struct point *p = &rep->pts[k];
				p->has_probe = 1;
				for (int s2 = 0; s2 < 2; s2++)
					for (int part = 0; part < PROBE_NPARTS; part++)
						p->probe[s2].ns[part] =
							part == PROBE_FAULT ? 10000 * fault[stride * i + q] : 1;
			}
			if (id) {
				rep->ab_pair = q + 1;
				rep->ab_order = (q % 2 == 0) == (side[0] == 'a') ? 1 : 2;
			}
			rep_fit(rep, 0);
		}
		bench_fit(b);
	}
	hist_free(h);
}

/* make_family, and with fault (nb x reps, NULL: none) every point of a
 * repetition carries the machine-speed probe, its page-fault time
 * 10 us x that repetition's fault[] before and after, the other parts 1 ns. */
static void make_family_probed(struct run_result *r, int nb, int reps, const double *lvl, const char *id,
			       const char *side, const double *fault)
{
	int *nrep = malloc((size_t)(nb > 0 ? nb : 1) * sizeof(int));
	if (!nrep)
		abort();
	for (int i = 0; i < nb; i++)
		nrep[i] = reps;
	make_family_var(r, nb, nrep, reps, lvl, id, side, fault);
	free(nrep);
}

/* A plain run of nb benches in 3 repetitions (make_family). */
static void make_many(struct run_result *r, int nb, const double *lvl)
{
	make_family(r, nb, 3, lvl, NULL, NULL);
}

#define NB 66

/* Compare two runs of NB benches made from their levels (make_many):
 * the comparison, its exit flag in *reg; the runs are freed. */
static json_t *compare_many_o(const double *la, const double *lb, const struct cmp_opts *o,
			      int *reg)
{
	struct run_result a, b;
	make_many(&a, NB, la);
	make_many(&b, NB, lb);
	json_t *c = compare_results(&a, "a", &b, "b", o, reg);
	result_free(&a);
	result_free(&b);
	return c;
}

/* The same with compare's defaults (no history). */
static json_t *compare_many(const double *la, const double *lb, int *reg)
{
	struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01};
	return compare_many_o(la, lb, &o, reg);
}

/* A compare of two runs of NB benches, every bench of B `factor` times
 * A's, the repetitions 1% apart (no run effect but the whole run's). */
static json_t *whole_run(uint64_t *seed, double factor, int *reg)
{
	static double la[3 * NB], lb[3 * NB];
	for (int i = 0; i < 3 * NB; i++) {
		la[i] = exp(0.01 * gauss(seed));
		lb[i] = factor * exp(0.01 * gauss(seed));
	}
	return compare_many(la, lb, reg);
}

/* Of compare c's benches: *slower how many are called slower, *hit
 * whether bench `shifted` (-1: none) is. */
static void count_slower(json_t *c, int shifted, int *slower, int *hit)
{
	*slower = 0;
	*hit = 0;
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(c, "benches"), i, v) {
		int s = !strcmp(json_string_value(json_object_get(v, "word")), "slower");
		*slower += s;
		if ((int)i == shifted)
			*hit = s;
	}
}

/* One compare of two runs of NB benches: every bench of a run shifted by
 * its own run effect (sd run_sd, shared by the run's 3 repetitions), the
 * repetitions rep_sd apart within the run; bench `shifted` (-1: none) of
 * B is `factor` times slower. Returns the regression flag; *slower the
 * benches called slower, *hit whether the shifted one is. */
static int many(uint64_t *seed, double run_sd, double rep_sd, int shifted, double factor,
		int *slower, int *hit)
{
	static double la[3 * NB], lb[3 * NB];
	for (int i = 0; i < NB; i++) {
		double ea = exp(run_sd * gauss(seed)), eb = exp(run_sd * gauss(seed));
		for (int q = 0; q < 3; q++) {
			la[3 * i + q] = ea * exp(rep_sd * gauss(seed));
			lb[3 * i + q] = eb * exp(rep_sd * gauss(seed)) * (i == shifted ? factor : 1);
		}
	}
	int reg = -1;
	json_t *c = compare_many(la, lb, &reg);
	count_slower(c, shifted, slower, hit);
	json_decref(c);
	return reg;
}

/* Many benches a compare: the family. A run effect of 10% per bench with
 * tight repetitions (what the A/A pairs of the quick suite show: the
 * repetitions of one run share it) must not make compare exit 3 more
 * than 5% of the time, nor a whole run 10% slower; a real 20% shift of
 * one bench among 66 with quiet runs is still slower. */
static void family_tests(void)
{
	uint64_t seed = 2112;
	/* under valgrind (tests/run.sh sets SB_TEST_QUICK) a tenth of the
	 * trials: the memory checks need the paths, not the rate */
	int quick = getenv("SB_TEST_QUICK") != NULL;
	int trials = quick ? 6 : 60, alarms = 0, slow = 0, total = 0, s, hit;
	/* the other loops below: a fifth of their trials under valgrind */
	int nnaive = quick ? 4 : 20, nten = quick ? 2 : 10;
	for (int k = 0; k < trials; k++) {
		alarms += many(&seed, 0.10, 0.01, -1, 1, &s, &hit) == 1;
		slow += s;
		total += NB;
	}
	CHECK(alarms * 20 <= trials, "66 benches, run effect 10%%, repetitions 1%%: exit 3 in %d of %d "
	      "compares (at most 5%%)", alarms, trials);
	CHECK(slow * 100 <= total, "... %d of %d bench comparisons slower (at most 1%%)", slow, total);
	/* the same with Welch over the repetitions alone (one bench a compare,
	 * no family, no scale): most compares would call something */
	int naive = 0;
	for (int k = 0; k < nnaive; k++) {
		int reg;
		double ra[3], rb[3];
		double ea = exp(0.10 * gauss(&seed)), eb = exp(0.10 * gauss(&seed));
		for (int q = 0; q < 3; q++) {
			ra[q] = ea * exp(0.01 * gauss(&seed));
			rb[q] = eb * exp(0.01 * gauss(&seed));
		}
		const char *w = rep_word_of(NULL, ra, 3, NULL, rb, 3, 0, &reg);
		naive += !strcmp(w, "slower") || !strcmp(w, "faster");
	}
	CHECK(naive * 2 >= nnaive, "one bench alone cannot tell its run effect: %d of %d called a change", naive,
	      nnaive);
	/* a whole run 10% slower (every bench), tight repetitions */
	int whole = 0;
	for (int k = 0; k < nten; k++) {
		int reg = -1;
		json_t *c = whole_run(&seed, 1.10, &reg);
		whole += reg == 1;
		if (k == 0) {
			const char *cv = json_string_value(json_array_get(json_object_get(c, "caveats"), 0));
			CHECK(cv && strstr(cv, "run shift: B's benches were 10.") &&
				      strstr(cv, "the machine's, so each bench is judged on its change beyond"),
			      "a whole run 10%% slower, no probe: named as the machine's run shift ('%s')",
			      cv ? cv : "");
		}
		json_decref(c);
	}
	CHECK(whole == 0, "a whole run 10%% slower: no exit 3 (%d of %d)", whole, nten);
	/* a whole run 12% slower (within CMP_SHIFT_TOLERANCE: the machine's,
	 * taken off) with one bench 30% slower beyond it and a run effect of
	 * 2% per bench: that bench is found every time, no other, while with
	 * --keep-shift the shift hides it (the run scale takes every bench's
	 * 12% for the runs' noise) */
	int fshift = 0, fkeep = 0, oshift = 0;
	for (int k = 0; k < nten; k++) {
		static double la[3 * NB], lb[3 * NB];
		for (int i = 0; i < NB; i++) {
			double ea = exp(0.02 * gauss(&seed)), eb = exp(0.02 * gauss(&seed));
			for (int q = 0; q < 3; q++) {
				la[3 * i + q] = ea * exp(0.01 * gauss(&seed));
				lb[3 * i + q] = 1.12 * eb * exp(0.01 * gauss(&seed)) * (i == 17 ? 1.3 : 1);
			}
		}
		for (int keep = 0; keep < 2; keep++) {
			struct run_result a, b;
			make_many(&a, NB, la);
			make_many(&b, NB, lb);
			struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01, .keep_shift = keep};
			int reg = -1;
			json_t *c = compare_results(&a, "a", &b, "b", &o, &reg);
			size_t i;
			json_t *v;
			json_array_foreach(json_object_get(c, "benches"), i, v) {
				int sl = !strcmp(json_string_value(json_object_get(v, "word")), "slower");
				if (i == 17)
					*(keep ? &fkeep : &fshift) += sl && reg == 1;
				else if (!keep)
					oshift += sl;
			}
			json_decref(c);
			result_free(&a);
			result_free(&b);
		}
	}
	CHECK(fshift == nten, "a run 12%% slower, one bench 30%% beyond: found in %d of %d", fshift, nten);
	CHECK(oshift == 0, "... and no other bench slower (%d)", oshift);
	CHECK(fkeep < fshift, "... with --keep-shift found in %d of %d only", fkeep, nten);
	/* a whole run 40% slower, no probe moved with it: the system's, a
	 * regression of its own (exit 3) */
	{
		int reg = -1;
		json_t *c = whole_run(&seed, 1.40, &reg);
		const char *rs = json_string_value(json_object_get(json_object_get(c, "family"), "run_shift"));
		CHECK(reg == 1 && rs && !strcmp(rs, "slower"),
		      "a whole run 40%% slower, no probe: the system's run shift, exit 3 (reg %d, %s)", reg,
		      rs ? rs : "none");
		json_decref(c);
	}
	/* sensitivity: one bench 20% slower among 66, quiet runs */
	int found = 0, others = 0;
	for (int k = 0; k < nten; k++) {
		int reg = many(&seed, 0.003, 0.01, 17, 1.2, &s, &hit);
		found += hit && reg == 1;
		others += s - hit;
	}
	CHECK(found == nten, "one bench 20%% slower among 66: slower and exit 3 in %d of %d", found, nten);
	CHECK(others == 0, "... and no other bench slower (%d)", others);
}

/* Bench 17's field `key` (sweep_pct, top_pct) of its repetition test's
 * detectable change, NAN when absent. */
static double detectable_of(json_t *c, int bench, const char *key)
{
	json_t *b = json_array_get(json_object_get(c, "benches"), (size_t)bench);
	json_t *d = json_object_get(json_object_get(json_object_get(b, "repetition_test"), "detectable"),
				    key);
	return json_is_number(d) ? json_number_value(d) : NAN;
}

/* The power compare states is the power it has. Each bench tested on its
 * repetitions says what change it would find 9 times in 10 ("finds +X%");
 * on runs shaped like this project's quiet VM (docs/compare.md, "Power":
 * 66 benches, three repetitions, each bench's repetitions 3-30% apart,
 * log-uniform, median near 10%), an A/A compare must exit 3 at most 1 time
 * in 20 (the goal of issue 35), and one bench made slower by exactly the
 * change its A/A compare said it would find must be found about 9 times
 * in 10 (at least 3 in 4 here), and by half that change clearly less
 * often: the figure is neither a boast nor idle caution. */
static void power_tests(void)
{
	uint64_t seed = 4242;
	int trials = getenv("SB_TEST_QUICK") ? 4 : 40, alarms = 0, hit = 0, half = 0, n = 0;
	static double la[3 * NB], lb[3 * NB], sd[NB];
	for (int k = 0; k < trials; k++) {
		for (int i = 0; i < NB; i++)
			sd[i] = exp(log(0.03) + (log(0.30) - log(0.03)) * uniform(&seed));
		for (int i = 0; i < NB; i++)
			for (int q = 0; q < 3; q++) {
				la[3 * i + q] = exp(sd[i] * gauss(&seed));
				lb[3 * i + q] = exp(sd[i] * gauss(&seed));
			}
		int reg = -1;
		json_t *c = compare_many(la, lb, &reg);
		alarms += reg == 1;
		double d = detectable_of(c, 17, "sweep_pct");
		json_decref(c);
		if (!isfinite(d))
			continue;
		n++;
		for (int h = 0; h < 2; h++) {
			double f = exp(log1p(d / 100) / (h ? 2 : 1));
			for (int q = 0; q < 3; q++)
				lb[3 * 17 + q] *= f;
			c = compare_many(la, lb, &reg);
			const char *w = json_string_value(json_object_get(
				json_array_get(json_object_get(c, "benches"), 17), "word"));
			*(h ? &half : &hit) += w && !strcmp(w, "slower") && reg == 1;
			json_decref(c);
			for (int q = 0; q < 3; q++)
				lb[3 * 17 + q] /= f;
		}
	}
	if (getenv("SB_TEST_VERBOSE"))
		fprintf(stderr, "power: A/A exit 3 in %d of %d; at the stated change found %d of %d, at half %d\n",
			alarms, trials, hit, n, half);
	CHECK(alarms * 20 <= trials, "66 benches, repetitions 3-30%% apart: A/A exit 3 in %d of %d "
	      "(at most 1 in 20)", alarms, trials);
	CHECK(n == trials, "every A/A compare states bench 17's detectable change (%d of %d)", n, trials);
	CHECK(hit * 4 >= n * 3, "one bench slower by the change compare said it finds with 90%% power: "
	      "found in %d of %d", hit, n);
	CHECK(half < hit || n < 8, "... by half that change: found less often (%d of %d)", half, n);
}

/* The history's test (compare.c, family_side): with a history of 8
 * earlier runs whose spread beyond their shifts is each bench's true
 * run-to-run spread (the repetitions' sd / sqrt 3 here), its variance
 * pools the history's (7 degrees of freedom) with the repetitions' own,
 * each by its degrees of freedom: the same synthetic runs as
 * power_tests, the false alarms still at most 1 in 20, the change it
 * states found 3 times in 4, and that change smaller than the one the
 * repetitions alone state (Welch's 3-4 degrees of freedom at Holm's
 * level over 66 benches: a t quantile of 15 or more). */
static void history_power_tests(void)
{
	uint64_t seed = 977;
	int trials = getenv("SB_TEST_QUICK") ? 4 : 40, alarms = 0, hit = 0, n = 0, smaller = 0;
	static double la[3 * NB], lb[3 * NB], sd[NB];
	static struct cmp_floor fl[NB];
	struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01, .floors = fl, .nfloors = NB};
	for (int k = 0; k < trials; k++) {
		for (int i = 0; i < NB; i++) {
			sd[i] = exp(log(0.03) + (log(0.30) - log(0.03)) * uniform(&seed));
			memset(&fl[i], 0, sizeof(fl[i]));
			snprintf(fl[i].key, sizeof(fl[i].key), "b%02d.op", i);
			fl[i].version = 1;
			fl[i].runs = 8;
			fl[i].points = 9;
			fl[i].spread = fl[i].spread_top = fl[i].spread_top2 = fl[i].spread_beyond =
				fl[i].spread_top_beyond = sd[i] / sqrt(3);
		}
		for (int i = 0; i < NB; i++)
			for (int q = 0; q < 3; q++) {
				la[3 * i + q] = exp(sd[i] * gauss(&seed));
				lb[3 * i + q] = exp(sd[i] * gauss(&seed));
			}
		int reg = -1;
		json_t *c0 = compare_many(la, lb, &reg);
		json_t *c = compare_many_o(la, lb, &o, &reg);
		alarms += reg == 1;
		double d = detectable_of(c, 17, "sweep_pct"), d0 = detectable_of(c0, 17, "sweep_pct");
		int hist = json_is_object(json_object_get(
			json_object_get(json_array_get(json_object_get(c, "benches"), 17), "repetition_test"),
			"history"));
		json_decref(c);
		json_decref(c0);
		if (!isfinite(d) || !hist)
			continue;
		n++;
		smaller += d < d0;
		double f = 1 + d / 100;
		for (int q = 0; q < 3; q++)
			lb[3 * 17 + q] *= f;
		c = compare_many_o(la, lb, &o, &reg);
		const char *w = json_string_value(json_object_get(
			json_array_get(json_object_get(c, "benches"), 17), "word"));
		hit += w && !strcmp(w, "slower") && reg == 1;
		json_decref(c);
	}
	if (getenv("SB_TEST_VERBOSE"))
		fprintf(stderr, "history power: A/A exit 3 in %d of %d; stated change smaller %d of %d, "
			"found %d of %d\n", alarms, trials, smaller, n, hit, n);
	CHECK(alarms * 20 <= trials, "with a history: A/A exit 3 in %d of %d (at most 1 in 20)",
	      alarms, trials);
	CHECK(n == trials, "every compare's bench 17 tested on the history (%d of %d)", n, trials);
	CHECK(smaller == n, "the history's test states a smaller change than the repetitions' alone "
	      "(%d of %d)", smaller, n);
	CHECK(hit * 4 >= n * 3, "with a history, the stated change found in %d of %d", hit, n);
}

/* A repetition added by --decide's rounds that stopped at its budget
 * (repetition.added, some N unmeasured) neither narrows the N compared
 * nor counts as a level: one sweep a side with the top 10x dearer in B is
 * still decisive when B also holds such a partial repetition. */
static void added_partial(void)
{
	double top10[9] = {1, 1, 1, 1, 1, 1, 1, 10, 10};
	struct run_result a, b;
	make(&a, NULL, 1);
	make(&b, top10, 1);
	struct hist *h = hist_new();
	struct repetition *rep = bench_add_rep(&b.benches[0]);
	rep->added = 1;
	for (int i = 0; i < 5; i++) /* N 1..16 only: stopped at its budget */
		synth_point(rep_add_point(rep), h, (uint64_t)1 << i, 1, 400);
	rep_fit(rep, 0);
	hist_free(h);
	struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01};
	int reg = -1;
	json_t *c = compare_results(&a, "a", &b, "b", &o, &reg);
	json_t *bj = json_array_get(json_object_get(c, "benches"), 0);
	const char *w = json_string_value(json_object_get(bj, "word"));
	const char *t = json_string_value(json_object_get(bj, "test"));
	CHECK(reg == 1 && w && !strcmp(w, "slower") && t && !strcmp(t, "decisive"),
	      "a partial added repetition: the top's 10x still decisive (reg %d, %s, %s)", reg,
	      w ? w : "-", t ? t : "-");
	json_decref(c);
	result_free(&a);
	result_free(&b);
}

/* compare --ab: nb benches, ABK repetition pairs; bench i's level in pair
 * q is lvl[ABK * i + q]; side "a" or "b" of ab run id (NULL: a plain run). */
#define ABK 5
static void make_ab(struct run_result *r, int nb, const double *lvl, const char *id, const char *side)
{
	make_family(r, nb, ABK, lvl, id, side);
}

static json_t *compare_ab(const double *la, const double *lb, const char *id, int unpaired, int *reg)
{
	struct run_result a, b;
	make_ab(&a, NB, la, id, "a");
	make_ab(&b, NB, lb, id, "b");
	struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01, .unpaired = unpaired};
	json_t *c = compare_results(&a, "a", &b, "b", &o, reg);
	result_free(&a);
	result_free(&b);
	return c;
}

static const char *word_at(const json_t *c, int i)
{
	const char *w = json_string_value(
		json_object_get(json_array_get(json_object_get(c, "benches"), (size_t)i), "word"));
	return w ? w : "(none)";
}

/* The paired test (compare --ab). The machine drifts by 10% (sd) from one
 * pair (block) to the next, alike for both sides of a pair, which are 1.5%
 * apart: A/A must not exit 3 (at most 1 in 20) nor call 1% of the benches
 * slower; a drift that grows over the run (+8% a pair) is no change
 * either; one bench 1.25x slower in B is found (at least 9 in 10) where
 * the unpaired test on the same data (--unpaired) finds it at most half as
 * often; a stored pair of results from different ab runs is not paired. */
static void paired_tests(void)
{
	uint64_t seed = 3535;
	int trials = getenv("SB_TEST_QUICK") ? 4 : 40;
	static double la[ABK * NB], lb[ABK * NB];
	int alarms = 0, slow = 0, hit = 0, hit_un = 0, alarms_un = 0;
	for (int t = 0; t < trials; t++) {
		for (int i = 0; i < ABK * NB; i++) {
			double drift = exp(0.10 * gauss(&seed));
			la[i] = drift * exp(0.015 * gauss(&seed));
			lb[i] = drift * exp(0.015 * gauss(&seed));
		}
		int reg = -1;
		json_t *c = compare_ab(la, lb, "t1", 0, &reg);
		alarms += reg == 1;
		for (int i = 0; i < NB; i++)
			slow += !strcmp(word_at(c, i), "slower");
		if (t == 0) {
			json_t *rt = json_object_get(json_array_get(json_object_get(c, "benches"), 3),
						     "repetition_test");
			const char *d = json_string_value(json_object_get(rt, "design"));
			CHECK(d && !strcmp(d, "paired") &&
			      json_integer_value(json_object_get(rt, "pairs")) == ABK &&
			      json_number_value(json_object_get(json_object_get(rt, "sweep"), "df")) == ABK - 1,
			      "the two sides of one ab run: each bench tested on its %d pairs, df %d (%s)",
			      ABK, ABK - 1, d ? d : "-");
			json_t *ab = json_object_get(c, "ab");
			CHECK(json_is_true(json_object_get(ab, "paired")) &&
			      json_integer_value(json_object_get(ab, "paired_tests")) == NB,
			      "the comparison says it was paired, %d tests", NB);
		}
		json_decref(c);
		c = compare_ab(la, lb, "t1", 1, &reg);
		alarms_un += reg == 1;
		json_decref(c);
		for (int q = 0; q < ABK; q++)
			lb[ABK * 17 + q] *= 1.25;
		c = compare_ab(la, lb, "t1", 0, &reg);
		hit += !strcmp(word_at(c, 17), "slower") && reg == 1;
		json_decref(c);
		c = compare_ab(la, lb, "t1", 1, &reg);
		hit_un += !strcmp(word_at(c, 17), "slower") && reg == 1;
		json_decref(c);
	}
	if (getenv("SB_TEST_VERBOSE"))
		fprintf(stderr, "paired: A/A exit 3 %d of %d (unpaired %d), %d of %d slower; 1.25x found "
			"%d (unpaired %d)\n", alarms, trials, alarms_un, slow, NB * trials, hit, hit_un);
	CHECK(alarms * 20 <= trials, "drift 10%% a pair shared by both sides: A/A exit 3 in %d of %d "
	      "(at most 1 in 20)", alarms, trials);
	CHECK(slow * 100 <= NB * trials, "... %d of %d bench comparisons slower (at most 1%%)", slow,
	      NB * trials);
	CHECK(hit * 10 >= trials * 9, "one bench 1.25x slower: found on its pairs in %d of %d", hit,
	      trials);
	CHECK(hit_un * 2 <= hit, "... the unpaired test on the same data (--unpaired) finds it in %d",
	      hit_un);
	/* a drift that grows over the run, the same for both sides of a pair */
	for (int i = 0; i < NB; i++)
		for (int q = 0; q < ABK; q++) {
			double drift = 1 + 0.08 * q;
			la[ABK * i + q] = drift * exp(0.015 * gauss(&seed));
			lb[ABK * i + q] = drift * exp(0.015 * gauss(&seed));
		}
	int reg = -1, any = 0;
	json_t *c = compare_ab(la, lb, "t1", 0, &reg);
	for (int i = 0; i < NB; i++)
		any += strcmp(word_at(c, i), "same") && strcmp(word_at(c, i), "noisy");
	CHECK(reg == 0 && any == 0, "a drift of +8%% a pair on both sides: no change (exit %d, %d "
	      "benches slower or faster)", reg, any);
	json_decref(c);
	/* two results of different ab runs (ids differ): not paired */
	struct run_result a, b;
	make_ab(&a, 2, la, "t1", "a");
	make_ab(&b, 2, lb, "t2", "b");
	CHECK(!compare_ab_paired(&a, &b), "different ab runs are not paired");
	result_free(&b);
	make_ab(&b, 2, lb, "t1", "a");
	CHECK(!compare_ab_paired(&a, &b), "the same side twice is not paired");
	result_free(&b);
	make_ab(&b, 2, lb, "t1", "b");
	CHECK(compare_ab_paired(&a, &b) && compare_ab_paired(&b, &a), "A and B of one run are, "
	      "either way round");
	struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01};
	c = compare_results(&a, "a", &b, "b", &o, &reg);
	const char *d = json_string_value(json_object_get(
		json_object_get(json_array_get(json_object_get(c, "benches"), 0), "repetition_test"),
		"design"));
	CHECK(d && !strcmp(d, "paired"), "two benches (no family): still paired (%s)", d ? d : "-");
	json_decref(c);
	result_free(&a);
	result_free(&b);
}

/* Probe-adjusted levels (docs/compare.md): runs whose repetitions each
 * ran on a machine slower by its own factor (sd mach_sd), which the
 * page-fault probe reads (as on this project's VM, where it explains most
 * of the fs benches' run-to-run spread), with 1% of other noise. A/A: no
 * exit 3 with the adjustment; bench 17 of B 1.25x slower: found by the
 * adjusted test, which the unadjusted one (--no-probe-adjust) misses. */
static json_t *probed_last; /* the last compare's caveats (probed_many) */
static int probed_many_on(uint64_t *seed, double mach_sd, double bmach, int shifted, double factor,
			  int no_adjust, int *hit, int *slower);

static int probed_many(uint64_t *seed, double mach_sd, int shifted, double factor, int no_adjust, int *hit,
		       int *slower)
{
	return probed_many_on(seed, mach_sd, 1, shifted, factor, no_adjust, hit, slower);
}

static int probed_many_on(uint64_t *seed, double mach_sd, double bmach, int shifted, double factor,
			  int no_adjust, int *hit, int *slower)
{
	static double la[3 * NB], lb[3 * NB], fa[3 * NB], fb[3 * NB];
	for (int i = 0; i < 3 * NB; i++) {
		fa[i] = exp(mach_sd * gauss(seed));
		fb[i] = bmach * exp(mach_sd * gauss(seed));
		la[i] = fa[i] * exp(0.01 * gauss(seed));
		lb[i] = fb[i] * exp(0.01 * gauss(seed)) * (i / 3 == shifted ? factor : 1);
	}
	struct run_result a, b;
	make_family_probed(&a, NB, 3, la, NULL, NULL, fa);
	make_family_probed(&b, NB, 3, lb, NULL, NULL, fb);
	struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01, .no_probe_adjust = no_adjust};
	int reg = -1;
	json_t *c = compare_results(&a, "a", &b, "b", &o, &reg);
	count_slower(c, shifted, slower, hit);
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(c, "benches"), i, v) {
		if (i == 0 && !no_adjust) {
			json_t *pa = json_object_get(json_object_get(v, "repetition_test"), "probe_adjust");
			CHECK(json_is_object(pa) && fabs(json_number_value(json_object_get(pa, "beta")) - 1) < 0.25,
			      "probe_adjust recorded, beta %.3f (1: the cost moves with the probe; the histograms quantize it)",
			      json_number_value(json_object_get(pa, "beta")));
		}
	}
	json_decref(probed_last);
	probed_last = json_incref(json_object_get(c, "caveats"));
	json_decref(c);
	result_free(&a);
	result_free(&b);
	return reg;
}

/* A caveat of the last probed compare that contains text. */
static int probed_caveat(const char *text)
{
	size_t i;
	json_t *v;
	json_array_foreach(probed_last, i, v)
		if (strstr(json_string_value(v), text))
			return 1;
	return 0;
}

static void probe_adjust_tests(void)
{
	uint64_t seed = 7;
	int trials = getenv("SB_TEST_QUICK") ? 2 : 10;
	int alarms = 0, slow = 0, hit_adj = 0, hit_raw = 0, hit, s;
	for (int k = 0; k < trials; k++) {
		alarms += probed_many(&seed, 0.15, -1, 1, 0, &hit, &s) == 1;
		slow += s;
	}
	CHECK(alarms == 0 && slow == 0, "A/A, machine 15%% apart repetition to repetition: adjusted, exit 3 in %d "
	      "of %d, %d benches slower", alarms, trials, slow);
	for (int k = 0; k < trials; k++) {
		probed_many(&seed, 0.15, 17, 1.25, 0, &hit, &s);
		hit_adj += hit;
		probed_many(&seed, 0.15, 17, 1.25, 1, &hit, &s);
		hit_raw += hit;
	}
	CHECK(hit_adj * 10 >= trials * 8, "x1.25 among machine drift: found by the adjusted test in %d of %d",
	      hit_adj, trials);
	CHECK(hit_raw < hit_adj, "... and by the unadjusted one (--no-probe-adjust) in %d of %d: fewer", hit_raw,
	      trials);
	CHECK(!probed_caveat("page-fault time"), "the sides' probes alike: no caveat on the adjustment");
	/* B's whole run on a machine 30% slower, as its probe says: adjusted
	 * away, and said */
	int reg = probed_many_on(&seed, 0.05, 1.3, -1, 1, 0, &hit, &s);
	CHECK(probed_caveat("page-fault time was +") && probed_caveat("on B's side against A's") && probed_caveat("--no-probe-adjust"),
	      "B's probe 30%% slower: the caveat names it and --no-probe-adjust");
	(void)reg;
	json_decref(probed_last);
	probed_last = NULL;
}

/* One run of NB benches on a machine whose speed moves from run to run
 * (sd 15% in log, the run's repetitions within 1% of it), read by the
 * probe's page-fault time: the six benches i % 11 == 6 cost that factor
 * to the power 1.4 (as net.udp and proc.fork did on this project's VM,
 * noise.c), the others do not move with it; every bench also 2% from run
 * to run of its own and 1% between repetitions. Bench `slowed` (-1: none)
 * costs `factor` times as much. */
static double hp_mach_sd = 0.15, hp_mach_at = 0; /* at > 0: the run's machine factor */
/* >= 0: the run's other vCPU busy (1) or idle (0), its probe unmap time
 * 4x or 1x 100 us (within 10%), and the six benches i % 11 == 3 cost
 * that factor to the power 0.5 (2x busy, as proc.fork on this project's
 * VM); -1: no unmap part, no such benches */
static int hp_busy = -1;
static void set_unmap(struct run_result *r, double ns);
static void hist_probed_run(uint64_t *seed, struct run_result *r, int slowed, double factor)
{
	static double lv[3 * NB], fv[3 * NB];
	double m = hp_mach_at > 0 ? hp_mach_at : exp(hp_mach_sd * gauss(seed));
	double um = hp_busy < 0 ? 1 : (hp_busy ? 4 : 1) * exp(0.1 * gauss(seed));
	for (int i = 0; i < NB; i++) {
		double own = exp(0.02 * gauss(seed)), sens = i % 11 == 6 ? 1.4 : 0;
		own *= hp_busy >= 0 && i % 11 == 3 ? sqrt(um) : 1;
		for (int q = 0; q < 3; q++) {
			fv[3 * i + q] = m * exp(0.01 * gauss(seed));
			lv[3 * i + q] = pow(fv[3 * i + q], sens) * own * exp(0.01 * gauss(seed)) *
					(i == slowed ? factor : 1);
		}
	}
	make_family_probed(r, NB, 3, lv, NULL, NULL, fv);
	if (hp_busy >= 0)
		set_unmap(r, 1e5 * um);
}

/* A history of nruns such runs into s (emptied first), finished. */
static void hist_probed_history(uint64_t *seed, struct noise_set *s, int nruns)
{
	noise_free(s);
	int busy = hp_busy;
	for (int r = 0; r < nruns; r++) {
		struct run_result rr;
		hp_busy = busy < 0 ? -1 : r % 2;
		hist_probed_run(seed, &rr, -1, 1);
		CHECK(noise_add_run(s, &rr) == 0, "history run %d added", r);
		result_free(&rr);
	}
	hp_busy = busy;
	noise_finish(s);
}

/* Histories of 10 such runs (noise.c: its probe slope and the spread
 * adjusted by it), each followed by compares of two more runs: A/A, and
 * bench 17 (one of the six) 1.25x slower in B; a new history every
 * HP_EACH trials, so the figures are not one history's luck. The three
 * repetitions a side barely move the fault time, so their own slope is
 * weak; the history's, from runs 15% apart, is ~1.4, and with it a 25%
 * change of a bench whose level moves 22% from run to run is found most
 * of the time without false alarms (27 of 40: the slope's error, times
 * the sides' fault difference, is in the test's variance); with
 * --no-probe-adjust and with no history (the sides' own slope, hardly
 * determined) it is found far less often. */
/* Every bench of compare c whose test had a history: its adjustments
 * (compare.c, rep_tests) state the change each finds, the one chosen is
 * the smallest, and its levels and spread are the chosen one's; *kinds
 * gets a bit per adjustment chosen. Returns the benches that break it. */
static int check_choice(json_t *c, int *kinds)
{
	static const char *const nm[4] = {"history_fault_slope", "history_unmap_slope", "sides_slope",
					  "none"};
	json_t *v;
	size_t i;
	int bad = 0;
	json_array_foreach(json_object_get(c, "benches"), i, v) {
		json_t *rt = json_object_get(v, "repetition_test");
		json_t *h = json_object_get(rt, "history"), *j = json_object_get(h, "adjustments");
		if (!json_is_object(j))
			continue;
		const char *ch = json_string_value(json_object_get(j, "chosen"));
		int at = -1, least = 1;
		for (int k = 0; k < 4; k++)
			if (ch && !strcmp(ch, nm[k]))
				at = k;
		double dat = at >= 0 && json_is_number(json_object_get(j, nm[at]))
				     ? json_number_value(json_object_get(j, nm[at]))
				     : INFINITY;
		for (int k = 0; k < 4; k++) {
			json_t *d = json_object_get(j, nm[k]);
			least &= !json_is_number(d) || json_number_value(d) >= dat;
		}
		json_t *pa = json_object_get(rt, "probe_adjust");
		const char *from = json_string_value(json_object_get(pa, "beta_from"));
		const char *probe = json_string_value(json_object_get(pa, "probe"));
		int hist = from && !strcmp(from, "history");
		int ok = at >= 0 && least && (at <= 1) == hist &&
			 (at <= 1) == json_is_true(json_object_get(h, "probe_adjusted")) &&
			 (!hist || (probe && !strcmp(probe, at ? "unmap" : "fault"))) &&
			 (at != 2 || (from && !strcmp(from, "sides"))) && (at != 3 || json_is_null(pa));
		bad += !ok;
		if (at >= 0)
			*kinds |= 1 << at;
	}
	return bad;
}

#define HP_EACH 5
static void history_probe_tests(void)
{
	uint64_t seed = 4242;
	int trials = getenv("SB_TEST_QUICK") ? HP_EACH : 8 * HP_EACH, alarms = 0, hit = 0, hit_raw = 0,
	    hit_none = 0, slow, bad_choice = 0, kinds = 0;
	struct noise_set s = {0};
	struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01};
	struct cmp_opts raw = o, none = o;
	raw.no_probe_adjust = 1;
	for (int k = 0; k < trials; k++) {
		if (k % HP_EACH == 0) {
			hist_probed_history(&seed, &s, 10);
			o.floors = raw.floors = s.floors;
			o.nfloors = raw.nfloors = s.n;
		}
		struct run_result a, b;
		int reg = -1, h;
		hist_probed_run(&seed, &a, -1, 1);
		hist_probed_run(&seed, &b, -1, 1);
		json_t *c = compare_results(&a, "a", &b, "b", &o, &reg);
		alarms += reg == 1;
		bad_choice += check_choice(c, &kinds);
		if (k == 0) {
			json_t *rt = json_object_get(json_array_get(json_object_get(c, "benches"), 17),
						     "repetition_test");
			json_t *pa = json_object_get(rt, "probe_adjust");
			const char *from = json_string_value(json_object_get(pa, "beta_from"));
			double beta = json_number_value(json_object_get(pa, "beta"));
			CHECK(from && !strcmp(from, "history") && fabs(beta - 1.4) < 0.3 &&
				      json_is_true(json_object_get(json_object_get(rt, "history"),
								   "probe_adjusted")),
			      "bench 17 adjusted with the history's slope: beta_from %s, beta %.3f",
			      from ? from : "(none)", beta);
		}
		json_decref(c);
		result_free(&b);
		hist_probed_run(&seed, &b, 17, 1.25);
		c = compare_results(&a, "a", &b, "b", &o, &reg);
		count_slower(c, 17, &slow, &h);
		hit += h && reg == 1;
		json_decref(c);
		c = compare_results(&a, "a", &b, "b", &raw, &reg);
		count_slower(c, 17, &slow, &h);
		hit_raw += h && reg == 1;
		json_decref(c);
		c = compare_results(&a, "a", &b, "b", &none, &reg);
		count_slower(c, 17, &slow, &h);
		hit_none += h && reg == 1;
		json_decref(c);
		result_free(&a);
		result_free(&b);
	}
	noise_free(&s);
	if (getenv("SB_TEST_VERBOSE"))
		fprintf(stderr, "history probe slope: A/A exit 3 in %d of %d; x1.25 found %d, "
			"--no-probe-adjust %d, no history %d\n", alarms, trials, hit, hit_raw, hit_none);
	CHECK(alarms * 20 <= trials, "history with a probe slope: A/A exit 3 in %d of %d (at most 1 in 20)",
	      alarms, trials);
	CHECK(!bad_choice && (kinds & 1) && (kinds & 0xc),
	      "each bench tested with the adjustment that finds the least (%d not; kinds chosen 0x%x: "
	      "the history's slope and another)", bad_choice, kinds);
	CHECK(hit * 5 >= trials * 3, "history with a probe slope: x1.25 found in %d of %d", hit, trials);
	CHECK(hit_raw < hit && hit_none < hit,
	      "... against %d with --no-probe-adjust and %d without the history: fewer", hit_raw, hit_none);
}

/* Every probe reading of run r: its unmap part ns. */
static void set_unmap(struct run_result *r, double ns)
{
	for (int i = 0; i < r->nbenches; i++)
		for (int q = 0; q < r->benches[i].nreps; q++)
			for (int k = 0; k < r->benches[i].reps[q].npts; k++)
				for (int s = 0; s < 2; s++)
					r->benches[i].reps[q].pts[k].probe[s].ns[PROBE_UNMAP] = ns;
}

/* The probe's unmap part (probe.h): B's 4x A's (another vCPU busy during
 * B's run, as on this project's VM) is named as a caveat; 1.2x (reading
 * to reading, idle) is not, nor is a side whose readings lack it (older
 * results). */
static void unmap_caveat(void)
{
	double lv[30], fv[30];
	for (int i = 0; i < 30; i++)
		lv[i] = fv[i] = 1;
	const double bu[3] = {4e5, 1.2e5, NAN};
	for (int k = 0; k < 3; k++) {
		struct run_result a, b;
		make_family_probed(&a, 10, 3, lv, NULL, NULL, fv);
		make_family_probed(&b, 10, 3, lv, NULL, NULL, fv);
		set_unmap(&a, 1e5);
		set_unmap(&b, bu[k]);
		struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01};
		int reg = -1, named = 0;
		json_t *c = compare_results(&a, "a", &b, "b", &o, &reg);
		size_t i;
		json_t *v;
		json_array_foreach(json_object_get(c, "caveats"), i, v)
			named |= strstr(json_string_value(v), "unmap time was +300% on B's side against A's") &&
				 strstr(json_string_value(v), "other CPUs were more busy");
		int any = 0;
		json_array_foreach(json_object_get(c, "caveats"), i, v)
			any |= !!strstr(json_string_value(v), "unmap time");
		if (k == 0)
			CHECK(named, "B's probe unmap 4x A's: named as a caveat");
		else
			CHECK(!any, "B's probe unmap %s: no caveat", k == 1 ? "1.2x A's" : "absent");
		json_decref(c);
		result_free(&a);
		result_free(&b);
	}
}

/* A history whose runs all ran at one fault time (the machine 1% apart
 * from run to run) hardly determines a bench's slope; two sides 30% apart
 * in fault time would then be adjusted by a slope that is mostly noise.
 * The slope's standard error enters the test (compare.h, beta_se): no
 * false alarm in 10 such A/A compares. */
static void history_slope_unsure(void)
{
	uint64_t seed = 99;
	int trials = getenv("SB_TEST_QUICK") ? 2 : 10, alarms = 0;
	for (int k = 0; k < trials; k++) {
		struct noise_set s = {0};
		hp_mach_sd = 0.01;
		hist_probed_history(&seed, &s, 6);
		struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01, .floors = s.floors, .nfloors = s.n};
		struct run_result a, b;
		int reg = -1;
		hp_mach_at = 1;
		hist_probed_run(&seed, &a, -1, 1);
		hp_mach_at = 1.3;
		hist_probed_run(&seed, &b, -1, 1);
		hp_mach_at = 0;
		hp_mach_sd = 0.15;
		json_t *c = compare_results(&a, "a", &b, "b", &o, &reg);
		alarms += reg == 1;
		json_decref(c);
		result_free(&a);
		result_free(&b);
		noise_free(&s);
	}
	CHECK(alarms == 0, "a history at one fault time, sides 30%% apart in it: A/A exit 3 in %d of %d",
	      alarms, trials);
}

/* Histories of 10 runs, every other one beside a busy vCPU (hp_busy: the
 * probe's unmap time 4x, six benches 2x; the machine's fault time steady),
 * each followed by compares: A idle against B idle with bench 14 (one of
 * the six) 1.25x slower, found with the history's slope on the unmap time
 * (its spread as measured is ~35%, so neither the fault slope nor none
 * can find it) and not with --no-probe-adjust; A idle against B busy,
 * nothing changed: the six benches 2x on B, taken off by the unmap slope,
 * no false alarm; and B busy with bench 14 1.25x: found. */
static void history_unmap_tests(void)
{
	uint64_t seed = 777;
	int trials = getenv("SB_TEST_QUICK") ? 2 : 12, alarms = 0, hit = 0, hit_busy = 0, hit_raw = 0,
	    unmap = 0, slow, h;
	struct noise_set s = {0};
	hp_mach_sd = 0.03;
	for (int k = 0; k < trials; k++) {
		if (k % 3 == 0) {
			hp_busy = 0;
			hist_probed_history(&seed, &s, 10);
		}
		struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01, .floors = s.floors, .nfloors = s.n};
		struct cmp_opts raw = o;
		raw.no_probe_adjust = 1;
		struct run_result a, b;
		int reg = -1;
		hp_busy = 0;
		hist_probed_run(&seed, &a, -1, 1);
		hist_probed_run(&seed, &b, 14, 1.25);
		json_t *c = compare_results(&a, "a", &b, "b", &o, &reg);
		count_slower(c, 14, &slow, &h);
		hit += h && reg == 1;
		const char *ch = json_string_value(json_object_get(
			json_object_get(json_object_get(json_object_get(json_array_get(json_object_get(c, "benches"), 14),
									"repetition_test"),
							"history"),
					"adjustments"),
			"chosen"));
		unmap += ch && !strcmp(ch, "history_unmap_slope");
		json_decref(c);
		c = compare_results(&a, "a", &b, "b", &raw, &reg);
		count_slower(c, 14, &slow, &h);
		hit_raw += h && reg == 1;
		json_decref(c);
		result_free(&b);
		hp_busy = 1;
		hist_probed_run(&seed, &b, -1, 1);
		c = compare_results(&a, "a", &b, "b", &o, &reg);
		alarms += reg == 1;
		json_decref(c);
		result_free(&b);
		hist_probed_run(&seed, &b, 14, 1.25);
		c = compare_results(&a, "a", &b, "b", &o, &reg);
		count_slower(c, 14, &slow, &h);
		hit_busy += h && reg == 1;
		json_decref(c);
		result_free(&a);
		result_free(&b);
	}
	hp_busy = -1;
	hp_mach_sd = 0.15;
	noise_free(&s);
	if (getenv("SB_TEST_VERBOSE"))
		fprintf(stderr, "history unmap slope: x1.25 found %d of %d (unmap slope chosen %d), "
			"--no-probe-adjust %d; B busy: A/A exit 3 %d, x1.25 found %d\n",
			hit, trials, unmap, hit_raw, alarms, hit_busy);
	CHECK(unmap == trials && hit * 4 >= trials * 3 && hit_raw * 4 <= trials,
	      "other vCPU busy in half the history: x1.25 found in %d of %d with the unmap slope (chosen "
	      "%d times), %d with --no-probe-adjust", hit, trials, unmap, hit_raw);
	CHECK(!alarms && hit_busy * 10 >= trials * 8,
	      "A idle, B busy: A/A exit 3 in %d of %d, x1.25 found in %d", alarms, trials, hit_busy);
}

/* compare --ab --detect (ab.c): the rule of how many pairs a bench gets,
 * and the whole procedure on synthetic pairs. DNB benches whose pairs'
 * levels scatter 1% to 8% (sd, log-spaced) under a drift of 10% from pair
 * to pair shared by both sides; DK pairs each, then topped up to find
 * DTARGET (the pairs of each bench drawn in advance, up to DMAX): A/A must
 * keep its false-alarm rate (exit 3 at most 1 in 20, since only the
 * benches' spreads decide the pairs), and one bench 1.1x slower is found
 * more often than on the first DK pairs alone. */
#define DNB 13
#define DK 5
#define DMAX 15
#define DTARGET 10.0
static void make_ab_var(struct run_result *r, const int *reps, const double *lvl, const char *side)
{
	make_family_var(r, DNB, reps, DMAX, lvl, "d1", side, NULL);
}

/* The comparison of the sides with reps[i] pairs of bench i; each
 * bench's detectable change (%, the smaller of its two tests; INFINITY
 * when it is insufficient) into det when not NULL. */
static json_t *compare_var(const int *reps, const double *la, const double *lb, double *det, int *reg)
{
	struct run_result a, b;
	make_ab_var(&a, reps, la, "a");
	make_ab_var(&b, reps, lb, "b");
	struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01};
	json_t *c = compare_results(&a, "a", &b, "b", &o, reg);
	result_free(&a);
	result_free(&b);
	for (int i = 0; det && i < DNB; i++) {
		json_t *e = json_array_get(json_object_get(c, "benches"), (size_t)i);
		json_t *d = json_object_get(json_object_get(e, "repetition_test"), "detectable");
		double sw = json_number_value(json_object_get(d, "sweep_pct"));
		double tp = json_number_value(json_object_get(d, "top_pct"));
		det[i] = d ? fmin(sw > 0 ? sw : INFINITY, tp > 0 ? tp : INFINITY) : INFINITY;
	}
	return c;
}

/* ab.c's top-up on the synthetic pairs: the comparison at the end. */
static json_t *detect_run(const double *la, const double *lb, int *reps, int *reg)
{
	double det[DNB];
	for (int i = 0; i < DNB; i++)
		reps[i] = DK;
	for (int round = 0; round < 16; round++) {
		json_decref(compare_var(reps, la, lb, det, reg));
		int more = 0;
		for (int i = 0; i < DNB; i++) {
			int w = cmp_pairs_wanted(reps[i], det[i], DTARGET, DMAX);
			more |= w > reps[i];
			reps[i] = w;
		}
		if (!more)
			break;
	}
	return compare_var(reps, la, lb, NULL, reg);
}

static void detect_tests(void)
{
	CHECK(cmp_pairs_wanted(5, 8, 10, 15) == 5 && cmp_pairs_wanted(5, NAN, 10, 15) == 5,
	      "a bench that finds the target, or has no test, gets no pair");
	CHECK(cmp_pairs_wanted(5, 12, 10, 15) == 8, "12%% found, 10%% wanted: 5 x 1.44 -> 8 pairs (%d)",
	      cmp_pairs_wanted(5, 12, 10, 15));
	CHECK(cmp_pairs_wanted(5, 40, 10, 15) == 10 && cmp_pairs_wanted(10, 40, 10, 15) == 15 &&
	      cmp_pairs_wanted(15, 40, 10, 15) == 15,
	      "at most twice the pairs at a time, and at most the cap");
	CHECK(cmp_pairs_wanted(2, INFINITY, 10, 6) == 4, "too few pairs to test: twice as many");
	uint64_t seed = 4242;
	int trials = getenv("SB_TEST_QUICK") ? 4 : 10;
	static double la[DMAX * DNB], lb[DMAX * DNB];
	int reps[DNB], first[DNB], alarms = 0, slow = 0, hit = 0, hit_first = 0, added = 0;
	for (int i = 0; i < DNB; i++)
		first[i] = DK;
	for (int t = 0; t < trials; t++) {
		for (int q = 0; q < DMAX; q++) {
			double drift = exp(0.10 * gauss(&seed));
			for (int i = 0; i < DNB; i++) {
				double sd = 0.01 * pow(8.0, (double)i / (DNB - 1));
				la[DMAX * i + q] = drift * exp(sd * gauss(&seed));
				lb[DMAX * i + q] = drift * exp(sd * gauss(&seed));
			}
		}
		int reg = -1;
		json_t *c = detect_run(la, lb, reps, &reg);
		alarms += reg == 1;
		for (int i = 0; i < DNB; i++) {
			slow += !strcmp(word_at(c, i), "slower");
			added += reps[i] - DK;
		}
		json_decref(c);
		int j = t % DNB; /* one bench 1.1x slower in every pair */
		for (int q = 0; q < DMAX; q++)
			lb[DMAX * j + q] *= 1.1;
		c = detect_run(la, lb, reps, &reg);
		hit += !strcmp(word_at(c, j), "slower") && reg == 1;
		json_decref(c);
		c = compare_var(first, la, lb, NULL, &reg);
		hit_first += !strcmp(word_at(c, j), "slower") && reg == 1;
		json_decref(c);
	}
	if (getenv("SB_TEST_VERBOSE"))
		fprintf(stderr, "detect: A/A exit 3 %d of %d, %d of %d slower, %d pairs added; 1.1x "
			"found %d (first %d pairs alone: %d)\n", alarms, trials, slow, DNB * trials, added,
			hit, DK, hit_first);
	CHECK(alarms * 20 <= trials, "--detect on A/A pairs: exit 3 in %d of %d (at most 1 in 20)",
	      alarms, trials);
	CHECK(slow * 100 <= DNB * trials, "... %d of %d bench comparisons slower (at most 1%%)", slow,
	      DNB * trials);
	CHECK(added > 0, "... pairs were added where the spread asked for them (%d)", added);
	CHECK(hit > hit_first && hit * 4 >= trials * 3,
	      "one bench 1.1x slower: found in %d of %d with the top-up, %d on the first %d pairs",
	      hit, trials, hit_first, DK);
}

int main(void)
{
	detect_tests();
	probe_adjust_tests();
	paired_tests();
	added_partial();
	power_tests();
	history_power_tests();
	history_probe_tests();
	unmap_caveat();
	history_slope_unsure();
	history_unmap_tests();
	double same[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
	double one[9] = {1, 1, 1, 1.4, 1, 1, 1, 1, 1};
	double all[9] = {1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2};
	double faster[9] = {0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8};
	double top[9] = {1, 1, 1, 1, 1, 1, 1.3, 1.3, 1.3};
	double top2[9] = {1, 1, 1, 1, 1, 1, 1, 1.3, 1.3};
	double tiny[9] = {1.02, 1.02, 1.02, 1.02, 1.02, 1.02, 1.02, 1.02, 1.02};
	double half[9] = {1.3, 1, 1.3, 1, 1.3, 1, 1.3, 1, 1.3};
	expect(same, 1, "same", 0, "identical");
	expect(one, 1, "same", 0, "one point 40% slower");
	expect(all, 1, "slower", 1, "every point 20% slower");
	expect(faster, 1, "faster", 0, "every point 20% faster");
	expect(top, 1, "slower", 1, "top third 30% slower");
	expect(top2, 1, NULL, 0, "top two of nine slower: not a third");
	expect(tiny, 1, "same", 0, "2% slower, under the 5% threshold");
	expect(half, 1, "noisy", 0, "every other point 30% slower");
	expect(all, 2, NULL, 0, "another version: refused, not compared");

	/* the refusal is listed, the bench not compared */
	struct run_result a, b;
	make(&a, NULL, 1);
	make(&b, all, 2);
	struct cmp_opts o = {.threshold = 0.05, .alpha = 0.01, .strict = 1};
	int reg;
	json_t *c = compare_results(&a, "a", &b, "b", &o, &reg);
	CHECK(json_array_size(json_object_get(c, "refused")) == 1 &&
	      json_array_size(json_object_get(c, "benches")) == 0, "refused listed");
	CHECK(json_array_size(json_object_get(c, "caveats")) == 0, "same isolation: no caveat");
	json_decref(c);
	result_free(&b);

	/* one run swept in workers, the other (an older one) inside scalebench */
	make(&b, NULL, 1);
	if (!b.options)
		b.options = json_object();
	json_object_set_new(b.options, "isolation", json_string("worker"));
	c = compare_results(&a, "a", &b, "b", &o, &reg);
	const char *cv = json_string_value(json_array_get(json_object_get(c, "caveats"), 0));
	CHECK(json_array_size(json_object_get(c, "caveats")) == 1 && cv &&
		      strstr(cv, "A swept its benches inside scalebench, B each in a worker process"),
	      "isolation differs: caveat '%s'", cv ? cv : "");
	json_decref(c);
	result_free(&b);

	/* a busy side is named: the load average against the CPUs online */
	make(&b, NULL, 1);
	json_object_set_new(a.snapshot, "loadavg", json_pack("[f,f,f]", 0.2, 0.3, 0.3));
	json_object_set_new(b.snapshot, "loadavg", json_pack("[f,f,f]", 7.5, 5.0, 3.0));
	json_object_set_new(a.snapshot, "cpu", json_pack("{s:i}", "count_online", 2));
	json_object_set_new(b.snapshot, "cpu", json_pack("{s:i}", "count_online", 2));
	c = compare_results(&a, "a", &b, "b", &o, &reg);
	cv = json_string_value(json_array_get(json_object_get(c, "caveats"), 0));
	CHECK(cv && strstr(cv, "other load: 1-minute load average A 0.20, B 7.50 on 2 CPUs"),
	      "a busy side: caveat '%s'", cv ? cv : "");
	json_decref(c);
	json_object_set_new(b.snapshot, "loadavg", json_pack("[f,f,f]", 0.4, 0.3, 0.3));
	c = compare_results(&a, "a", &b, "b", &o, &reg);
	CHECK(json_array_size(json_object_get(c, "caveats")) == 0, "both quiet: no caveat");
	json_decref(c);
	/* crowded points (probe.h) on one side are named; none on either: no caveat */
	for (int side = 0; side < 2; side++) {
		struct run_result *r = side ? &b : &a;
		for (int k = 0; k < r->nbenches; k++)
			for (int q = 0; q < r->benches[k].nreps; q++)
				for (int i = 0; i < r->benches[k].reps[q].npts; i++) {
					struct point *p = &r->benches[k].reps[q].pts[i];
					p->has_probe = 1;
					p->slowness = 1;
					p->cpu_lost = side && i % 2 ? 0.6 : 0.01;
				}
	}
	c = compare_results(&a, "a", &b, "b", &o, &reg);
	cv = json_string_value(json_array_get(json_object_get(c, "caveats"), 0));
	CHECK(cv && strstr(cv, "crowded: other processes took 0.2 of a CPU or more") &&
		      strstr(cv, "at 0 of A's") && strstr(cv, "(up to 0.60)"),
	      "a crowded side: caveat '%s'", cv ? cv : "");
	json_decref(c);
	for (int k = 0; k < b.nbenches; k++)
		for (int q = 0; q < b.benches[k].nreps; q++)
			for (int i = 0; i < b.benches[k].reps[q].npts; i++)
				b.benches[k].reps[q].pts[i].cpu_lost = 0.01;
	c = compare_results(&a, "a", &b, "b", &o, &reg);
	CHECK(json_array_size(json_object_get(c, "caveats")) == 0, "neither crowded: no caveat");
	json_decref(c);
	result_free(&b);

	/* a verdict that got significantly worse is a regression on its own */
	make(&b, NULL, 1);
	b.benches[0].v.cls = GROWTH_N;
	b.benches[0].v.exp_lo = 0.9;
	b.benches[0].v.exp_hi = 1.1;
	a.benches[0].v.cls = GROWTH_O1;
	a.benches[0].v.exp_lo = -0.05;
	a.benches[0].v.exp_hi = 0.05;
	c = compare_results(&a, "a", &b, "b", &o, &reg);
	const json_t *vc = json_array_get(json_object_get(c, "verdict_changes"), 0);
	CHECK(vc && json_is_true(json_object_get(vc, "significant")) &&
	      json_is_true(json_object_get(vc, "worse")) && reg == 1, "O(1) -> O(n) is a regression");
	json_decref(c);
	/* overlapping exponent intervals: listed, not significant */
	b.benches[0].v.exp_lo = 0.0;
	c = compare_results(&a, "a", &b, "b", &o, &reg);
	vc = json_array_get(json_object_get(c, "verdict_changes"), 0);
	CHECK(vc && json_is_false(json_object_get(vc, "significant")) && reg == 0,
	      "overlapping intervals: not a regression");
	json_decref(c);
	/* without --strict, one run a side calls nothing, not even a verdict */
	o.strict = 0;
	b.benches[0].v.exp_lo = 0.9;
	c = compare_results(&a, "a", &b, "b", &o, &reg);
	vc = json_array_get(json_object_get(c, "verdict_changes"), 0);
	CHECK(vc && json_is_false(json_object_get(vc, "judged")) && reg == 0 &&
		      !strcmp(bench_word_of(c), "insufficient"),
	      "one repetition a side: insufficient, the verdict change not judged");
	json_decref(c);
	result_free(&a);
	result_free(&b);

	/* with repetitions, a verdict change is significant only when the
	 * repetitions' own exponents differ (Welch): pooled intervals apart
	 * but repetitions scattered across both is a run effect, not a change */
	make_reps(&a, NULL, 1, 3, NULL);
	make_reps(&b, NULL, 1, 3, NULL);
	o.strict = 0;
	a.benches[0].v.cls = GROWTH_O1;
	a.benches[0].v.exp_lo = -0.05;
	a.benches[0].v.exp_hi = 0.05;
	b.benches[0].v.cls = GROWTH_N;
	b.benches[0].v.exp_lo = 0.9;
	b.benches[0].v.exp_hi = 1.1;
	const double scat_a[3] = {0.0, 0.6, 1.0}, scat_b[3] = {0.1, 0.5, 1.05};
	for (int r = 0; r < 3; r++) {
		a.benches[0].reps[r].v.cls = b.benches[0].reps[r].v.cls = GROWTH_O1;
		a.benches[0].reps[r].v.exponent = scat_a[r];
		b.benches[0].reps[r].v.exponent = scat_b[r];
	}
	c = compare_results(&a, "a", &b, "b", &o, &reg);
	vc = json_array_get(json_object_get(c, "verdict_changes"), 0);
	CHECK(vc && json_is_true(json_object_get(vc, "judged")) &&
		      json_is_false(json_object_get(vc, "significant")) && reg == 0,
	      "repetitions' exponents overlapping: the verdict change is not a regression");
	json_decref(c);
	const double tight_a[3] = {0.0, 0.01, -0.01}, tight_b[3] = {1.0, 1.02, 0.98};
	for (int r = 0; r < 3; r++) {
		a.benches[0].reps[r].v.exponent = tight_a[r];
		b.benches[0].reps[r].v.exponent = tight_b[r];
	}
	c = compare_results(&a, "a", &b, "b", &o, &reg);
	vc = json_array_get(json_object_get(c, "verdict_changes"), 0);
	CHECK(vc && json_is_true(json_object_get(vc, "significant")) && reg == 1 &&
		      json_number_value(json_object_get(vc, "repetitions_p")) < 0.05,
	      "repetitions' exponents apart: O(1) -> O(n) is a regression");
	json_decref(c);
	result_free(&a);
	result_free(&b);

	repetitions();
	family_tests();
	return t_done("test_compare");
}
