/* SPDX-License-Identifier: MIT */
/* The pooled verdict of a bench with --decide's added repetitions
 * (verdict.c, confirm_growth): a growing class on weak evidence that the
 * shuffled repetitions, fitted alone over the same N, call O(1) is drift
 * of the sweep, and the verdict is unclear; a growth the repetitions show
 * too stays; a round that left the largest N out confirms nothing and
 * refutes nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/hist.h"
#include "core/result.h"
#include "core/sweep.h"
#include "core/verdict.h"
#include "bench/table.h"
#include "out/result_io.h"
#include "t.h"

static const uint64_t ns[13] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000};

/* stats of samples around med (+/- 1%) */
static void stats_at(struct hist *h, double med, struct stats *s)
{
	hist_reset(h);
	for (int k = 0; k < 2000; k++)
		hist_add(h, med * (0.99 + 0.02 * (k % 101) / 100.0));
	hist_summary(h, s);
}

/* A point at n whose samples sit around cost (+/- 1%). */
static void fill_point(struct point *p, struct hist *h, uint64_t n, double cost)
{
	p->n = n;
	stats_at(h, cost, &p->st);
	p->batch = 1;
	p->samples = p->ops = p->st.count;
	p->cpu_start = p->cpu_end = -1;
	point_set_bins(p, h);
}

/* A repetition over the first npts of ns, cost(n) = base * (1 + g ln n),
 * times up at the last `slow` points (a slow stretch late in a rising
 * sweep), with a small deterministic wobble so the fit has scatter. */
static void rep(struct bench_result *b, struct hist *h, int npts, double g, int slow, double up,
		int added)
{
	struct repetition *rp = bench_add_rep(b);
	rp->added = added;
	for (int i = 0; i < npts; i++) {
		double c = 3700 * (1 + g * log((double)ns[i])) * (1 + 0.01 * ((i * 7 + added) % 3 - 1));
		if (slow && i >= npts - slow) /* rising through the stretch to up */
			c *= 1 + (up - 1) * (i - (npts - slow) + 1) / slow;
		fill_point(rep_add_point(rp), h, ns[i], c);
	}
	rep_fit(rp, 0);
}

/* A repetition at a level: cost(n) = level * 3700 * (1 + slope * n) over
 * ns[first .. first + npts - 1], with the same small wobble. */
static void rep_lvl(struct bench_result *b, struct hist *h, int first, int npts, double slope,
		    double level, int added)
{
	struct repetition *rp = bench_add_rep(b);
	rp->added = added;
	for (int i = first; i < first + npts; i++) {
		fill_point(rep_add_point(rp), h, ns[i],
			   level * 3700 * (1 + slope * (double)ns[i]) * (1 + 0.01 * ((i * 7) % 3 - 1)));
	}
	rep_fit(rp, 0);
}

/* --decide's rounds, faked: each point at n costs 3700 ns flat; the
 * largest n asked for is kept. */
static uint64_t asked_max;

/* The sweeps' time the rounds below are given (their budget twice it):
 * 1000 s, so that no round is cut short by the time the faked points
 * take. The budget is kept in real time, and a cost model scales its
 * estimate by what the points measured so far took: under valgrind, a
 * faked point at N=1 taking 1 ms against the 20 us its share of a 1 s
 * budget allows made the largest N look 50x over it (CI: the limited
 * sweep's round never asked N=50,000). */
#define ROUNDS_SPENT_NS 1000000000000ull
static struct hist *fake_h;
static int fake_point(void *ctx, uint64_t n, struct point *pt)
{
	(void)ctx;
	asked_max = n > asked_max ? n : asked_max;
	fill_point(pt, fake_h, n, 3700);
	return 0;
}

/* --decide's rounds whose workers land on a CPU the host slows every
 * other time (this VM: 1.3-1.45x at the kernel's paths): cost
 * 3700 * (1 + 0.01 ln n), times slow_up at every other call (slow_every
 * 2), or at every call (slow_every 1); the calls counted. */
static int slow_calls, slow_every;
static double slow_up;
static int slow_point(void *ctx, uint64_t n, struct point *pt)
{
	(void)ctx;
	double c = 3700 * (1 + 0.01 * log((double)n));
	if (slow_calls++ % slow_every == 0)
		c *= slow_up;
	fill_point(pt, fake_h, n, c);
	return 0;
}

/* The median of the sweep's (repetition 0's) point at n. */
static double sweep_at(const struct bench_result *b, uint64_t n)
{
	for (int i = 0; i < b->reps[0].npts; i++)
		if (b->reps[0].pts[i].n == n)
			return b->reps[0].pts[i].st.p50;
	return 0;
}

/* fs.create's sweep to 100,000 that met ENOSPC at 65,523 (a 256 MiB
 * ext4): points to 50,000 on two levels (unclear), the failure of `kind`. */
static void limited_sweep(struct bench_result *b, struct hist *h, const char *kind)
{
	static const uint64_t lns[15] = {1,   2,    5,    10,   20,    50,    100,  200,
					 500, 1000, 2000, 5000, 10000, 20000, 50000};
	memset(b, 0, sizeof(*b));
	b->name = strdup("fs.create");
	b->axis_kind = AXIS_LOAD;
	b->max_n = 100000;
	struct repetition *rp = bench_add_rep(b);
	for (int i = 0; i < 15; i++)
		fill_point(rep_add_point(rp), h, lns[i], i % 2 ? 3700 : 5500);
	rp->fail = calloc(1, sizeof(*rp->fail));
	snprintf(rp->fail->kind, sizeof(rp->fail->kind), "%s", kind);
	snprintf(rp->fail->call, sizeof(rp->fail->call), "openat(O_CREAT|O_EXCL)");
	rp->fail->n = 65523;
	rp->fail->err = 28;
	rep_fit(rp, 0);
}

static void bench(struct bench_result *b)
{
	memset(b, 0, sizeof(*b));
	b->name = strdup("mem.mmap");
}

int main(void)
{
	struct hist *h = hist_new();
	struct bench_result b;

	/* the sweep alone: a slow stretch rising over its last eight points looks like
	 * a weak growth */
	bench(&b);
	rep(&b, h, 13, 0.01, 8, 1.6, 0);
	bench_fit(&b);
	enum growth sweep = b.v.cls;
	CHECK(sweep >= GROWTH_LOGN && sweep <= GROWTH_WORSE && b.v.growth_share < 0.5,
	      "sweep alone: %s share %.2f (%s)", growth_name(sweep), b.v.growth_share, b.v.reason);

	/* a flat shuffled repetition over the same N: drift, unclear */
	rep(&b, h, 13, 0.01, 0, 1, 1);
	bench_fit(&b);
	CHECK(b.v.cls == GROWTH_UNCLEAR && strstr(b.v.reason, "drift") &&
		      strstr(b.v.reason, "shuffled repetitions alone O(1)"),
	      "flat round: %s (%s)", growth_name(b.v.cls), b.v.reason);
	CHECK(b.v.tie == GROWTH_UNCLEAR, "flat round: a tie");
	bench_result_clear(&b);

	/* the same sweep, a round that left the largest N out: not judged */
	bench(&b);
	rep(&b, h, 13, 0.01, 8, 1.6, 0);
	rep(&b, h, 9, 0.01, 0, 1, 1);
	bench_fit(&b);
	CHECK(!strstr(b.v.reason, "drift"), "partial round: %s (%s)", growth_name(b.v.cls),
	      b.v.reason);
	bench_result_clear(&b);

	/* a real growth, shown by the round too: stays */
	bench(&b);
	rep(&b, h, 13, 0.05, 0, 1, 0);
	rep(&b, h, 13, 0.05, 0, 1, 1);
	bench_fit(&b);
	CHECK(b.v.cls == GROWTH_LOGN, "real log n: %s (%s)", growth_name(b.v.cls), b.v.reason);
	bench_result_clear(&b);

	/* no added repetitions (-r 2): the rule does not apply */
	bench(&b);
	rep(&b, h, 13, 0.01, 8, 1.6, 0);
	rep(&b, h, 13, 0.01, 0, 1, 0);
	bench_fit(&b);
	CHECK(!strstr(b.v.reason, "drift"), "-r 2: %s (%s)", growth_name(b.v.cls), b.v.reason);
	bench_result_clear(&b);

	/* Repetitions as blocks: a linear growth measured by the sweep at one
	 * level and by a round 15% dearer over the seven cheapest N only (what
	 * a round that ran out of time measures): the round's level is taken
	 * off, the pooled verdict is the sweep's O(n) */
	double lv[4];
	bench(&b);
	rep_lvl(&b, h, 0, 13, 0.001, 1.0, 0);
	rep_lvl(&b, h, 0, 7, 0.001, 1.15, 1);
	double worst = bench_rep_levels(&b, lv);
	CHECK(fabs(lv[1] / lv[0] * 1.15 - 1) < 0.01 && fabs(worst - (sqrt(1.15) - 1)) < 0.01,
	      "levels: round/sweep %.4f (1/1.15 = %.4f), largest %.4f", lv[1] / lv[0], 1 / 1.15,
	      worst);
	bench_fit(&b);
	CHECK(b.v.cls == GROWTH_N, "levelled round, linear: %s (%s)", growth_name(b.v.cls),
	      b.v.reason);
	bench_result_clear(&b);

	/* a constant, three repetitions at levels 1, 1.2 and 0.9 (three runs
	 * of a VM's speed states): O(1), not noise */
	bench(&b);
	rep_lvl(&b, h, 0, 13, 0, 1.0, 0);
	rep_lvl(&b, h, 0, 13, 0, 1.2, 0);
	rep_lvl(&b, h, 0, 13, 0, 0.9, 0);
	bench_rep_levels(&b, lv);
	CHECK(fabs(lv[0] - 1) < 0.01 && fabs(lv[1] * 1.2 - 1) < 0.01 && fabs(lv[2] * 0.9 - 1) < 0.01,
	      "three levels: %.4f %.4f %.4f (1, 1/1.2, 1/0.9)", lv[0], lv[1], lv[2]);
	bench_fit(&b);
	CHECK(b.v.cls == GROWTH_O1, "three levels, constant: %s (%s)", growth_name(b.v.cls),
	      b.v.reason);
	bench_result_clear(&b);

	/* a constant, and two rounds at a faster moment (30% cheaper: this
	 * VM's speed states differ by up to 1.4x) that measured only the seven
	 * cheapest N: pooled as measured, two levels (unclear, "bimodal");
	 * levelled, O(1) */
	bench(&b);
	rep_lvl(&b, h, 0, 13, 0, 1.0, 0);
	rep_lvl(&b, h, 0, 7, 0, 0.7, 1);
	rep_lvl(&b, h, 0, 7, 0, 0.7, 1);
	bench_fit(&b);
	CHECK(b.v.cls == GROWTH_O1, "faster partial rounds, constant: %s (%s)",
	      growth_name(b.v.cls), b.v.reason);
	bench_result_clear(&b);

	/* a repetition sharing one N with the sweep keeps its level */
	bench(&b);
	rep_lvl(&b, h, 0, 13, 0, 1.0, 0);
	rep_lvl(&b, h, 12, 1, 0, 1.3, 1);
	CHECK(bench_rep_levels(&b, lv) == 0 && lv[0] == 1 && lv[1] == 1,
	      "one shared N: levels %.4f %.4f", lv[0], lv[1]);
	bench_result_clear(&b);

	/* one repetition: nothing to level */
	bench(&b);
	rep_lvl(&b, h, 0, 13, 0, 1.0, 0);
	CHECK(bench_rep_levels(&b, lv) == 0 && lv[0] == 1, "one repetition: level %.4f", lv[0]);
	bench_result_clear(&b);

	/* a sweep that met a limit (ENOSPC) is undecided like any other: its
	 * rounds stay at or below the largest N it measured (50,000, not the
	 * 100,000 of its series), and the note says so; a sweep that failed
	 * otherwise gets none */
	const struct bench *fc = bench_find("fs.create");
	struct sweep_opts so;
	memset(&so, 0, sizeof(so));
	so.decide = 1;
	fake_h = h;
	CHECK(fc != NULL, "fs.create registered");
	if (fc) {
		limited_sweep(&b, h, "limit");
		verdict_settle(&b, 1);
		CHECK(b.status == BS_FAILED && b.v.cls == GROWTH_UNCLEAR && verdict_undecided(fc, &so, &b),
		      "limit: failed, unclear (%s), undecided", b.v.reason);
		struct verdict_ops ops = {NULL, fake_point, "faked", NULL};
		asked_max = 0;
		verdict_bench(fc, &so, &b, ROUNDS_SPENT_NS, &ops);
		int notes = 0;
		for (int i = 0; i < b.nnotes; i++)
			notes += strstr(b.notes[i], "up to N=50000, below the limit the sweep met") != NULL;
		CHECK(b.nreps > 1 && asked_max == 50000 && notes == 1,
		      "limit: %d repetitions, largest N asked %llu, note %d", b.nreps,
		      (unsigned long long)asked_max, notes);
		bench_result_clear(&b);

		limited_sweep(&b, h, "error");
		verdict_settle(&b, 1);
		asked_max = 0;
		verdict_bench(fc, &so, &b, ROUNDS_SPENT_NS, &ops);
		CHECK(!verdict_undecided(fc, &so, &b) && b.nreps == 1 && asked_max == 0,
		      "an error, not a limit: no rounds (%d repetitions)", b.nreps);
		bench_result_clear(&b);
	}

	/* A round's point more than POINT_JUMP_RATIO above the sweep's at its N
	 * (a worker on the slowed CPU) is measured again, and the faster kept;
	 * a round slower throughout keeps what it measured, each point measured
	 * again at most POINT_AGAIN_MAX times. The sweep: a weak growth
	 * (undecided), so rounds follow. */
	const struct bench *mm = bench_find("mem.mmap");
	CHECK(mm != NULL, "mem.mmap registered");
	for (int every = 2; mm && every >= 1; every--) {
		bench(&b);
		b.axis_kind = mm->axis_kind;
		b.max_n = 10000;
		rep(&b, h, 13, 0.01, 8, 1.6, 0);
		verdict_settle(&b, 1);
		CHECK(verdict_undecided(mm, &so, &b), "slowed CPU %d: the sweep is undecided (%s)",
		      every, b.v.reason);
		struct verdict_ops ops = {NULL, slow_point, "faked", NULL};
		slow_calls = 0;
		slow_every = every;
		slow_up = 1.4;
		verdict_bench(mm, &so, &b, ROUNDS_SPENT_NS, &ops);
		int pts = 0, again = 0, high = 0, bad = 0, note = 0, calls = 0, low = 0, full = 0;
		for (int r = 1; r < b.nreps; r++)
			for (int i = 0; i < b.reps[r].npts; i++) {
				const struct point *p = &b.reps[r].pts[i];
				double ref = sweep_at(&b, p->n), own = 3700 * (1 + 0.01 * log((double)p->n));
				/* where the sweep was not in its stretch */
				int lowref = ref < 1.15 * own;
				pts++;
				calls += 1 + p->remeasured;
				again += p->remeasured > 0;
				low += lowref;
				high += lowref && p->st.p50 > 1.3 * own;
				full += lowref && p->remeasured == POINT_AGAIN_MAX;
				/* measured again when above the sweep's, and the first
				 * measurement recorded; never beyond the limit */
				bad += (p->remeasured == 0 && p->st.p50 > POINT_JUMP_RATIO * ref) ||
				       (p->remeasured > 0 && !(p->p50_first > POINT_JUMP_RATIO * ref)) ||
				       p->remeasured > POINT_AGAIN_MAX;
			}
		for (int i = 0; i < b.nnotes; i++)
			note += strstr(b.notes[i], "measured again: slow, crowded or over 1.2x") != NULL;
		CHECK(b.nreps > 1 && pts > 0 && low > 0 && bad == 0 && again > 0 && note == 1 &&
			      calls == slow_calls,
		      "slowed CPU %d: %d repetitions, %d round points, %d measured again, %d wrongly, "
		      "note %d, calls %d of %d",
		      every, b.nreps, pts, again, bad, note, calls, slow_calls);
		if (every == 2) /* where the sweep was fast, none kept slow */
			CHECK(high == 0, "every other worker slowed: %d of %d round points kept slow",
			      high, low);
		else /* each measured again as often as allowed, and kept as it is */
			CHECK(high == low && full == low,
			      "every worker slowed: %d of %d kept slow, %d measured again %d times", high,
			      low, full, POINT_AGAIN_MAX);
		bench_result_clear(&b);
	}

	/* The shadow of recent deletions (result.h, INODE_SHADOW): a linear
	 * sweep with a create costing 30 links before two of its points is
	 * unclear, the repetition's own verdict too, and says how deep and how
	 * many; at 1.5 links it keeps its class; a concurrency axis's
	 * throughput word is unclear too, for the same reason; at 3.5 links
	 * whose excess is under a tenth of the points' cost (the op's own cost
	 * dwarfs the scan) the class stays. The readings survive the result's
	 * JSON. */
	for (int k = 0; k < 4; k++) {
		bench(&b);
		b.axis_kind = k == 2 ? AXIS_CONCURRENCY : AXIS_LOAD;
		rep_lvl(&b, h, 0, 13, 0.001, 1.0, 0);
		struct repetition *rp = &b.reps[0];
		double ratio = k == 0 ? 1.5 : k == 3 ? 3.5 : 30, link = k == 3 ? 100 : 5000;
		for (int i = 0; i < rp->npts; i++) {
			rp->pts[i].inode_link_ns = link;
			rp->pts[i].inode_create_ns = link * (i == 3 || i == 7 ? ratio : 1.4);
			/* a concurrency axis: throughput linear in N, a little short */
			rp->pts[i].ops_per_s = 1e5 * (double)ns[i] / (1 + 0.0001 * (double)ns[i]);
		}
		rep_fit(rp, b.axis_kind);
		bench_fit(&b);
		int shadowed = strstr(b.v.reason, "recent deletions shadowed") != NULL;
		if (k == 1)
			CHECK(b.v.cls == GROWTH_UNCLEAR && shadowed &&
				      strstr(b.v.reason, "30x a hard link before 2 of 13 points") &&
				      rp->v.cls == GROWTH_UNCLEAR &&
				      strstr(rp->v.reason, "recent deletions shadowed"),
			      "shadowed: %s (%s), repetition %s", growth_name(b.v.cls), b.v.reason,
			      growth_name(rp->v.cls));
		else if (k == 2)
			CHECK(!shadowed && b.usl.cls == USL_UNCLEAR &&
				      strstr(b.usl.reason, "recent deletions shadowed"),
			      "concurrency: growth %s (%s), throughput %s (%s)",
			      growth_name(b.v.cls), b.v.reason, usl_class_name(b.usl.cls),
			      b.usl.reason);
		else
			CHECK(!shadowed && b.v.cls == GROWTH_N && b.usl.cls == USL_NONE,
			      "create/link %.1f: %s (%s)", ratio, growth_name(b.v.cls), b.v.reason);
		CHECK(fabs(point_inode_shadow(&rp->pts[3]) - ratio) < 1e-9, "create/link %.2f",
		      point_inode_shadow(&rp->pts[3]));
		json_t *j = bench_to_json(&b);
		struct bench_result back;
		memset(&back, 0, sizeof(back));
		char err[256] = "";
		int rc = bench_from_json(j, &back, err, sizeof(err));
		CHECK(rc == 0 && back.nreps == 1 && back.reps[0].npts == 13 &&
			      back.reps[0].pts[3].inode_create_ns == link * ratio &&
			      back.reps[0].pts[3].inode_link_ns == link &&
			      back.reps[0].pts[0].inode_create_ns == link * 1.4,
		      "inode_probe through JSON: rc %d %s", rc, err);
		json_decref(j);
		bench_result_clear(&back);
		bench_result_clear(&b);
	}
	/* a point without the probe reads NAN and has no key */
	bench(&b);
	rep_lvl(&b, h, 0, 13, 0.001, 1.0, 0);
	json_t *j = bench_to_json(&b);
	json_t *jp = json_array_get(
		json_object_get(json_array_get(json_object_get(j, "repetitions"), 0), "points"), 0);
	CHECK(isnan(point_inode_shadow(&b.reps[0].pts[0])) && jp &&
		      !json_object_get(jp, "inode_probe"),
	      "no probe: no inode_probe key");
	json_decref(j);
	bench_result_clear(&b);

	hist_free(h);
	return t_done("test_verdict");
}
