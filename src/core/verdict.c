/* SPDX-License-Identifier: MIT */
/* The verdict of a bench (verdict.h): a repetition's fit, the pooled fit,
 * the bimodal check, the control note, the status, and --decide's rounds. */
#include "core/verdict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/cmpstat.h"
#include "core/registry.h"
#include "sys/sys.h"

/* ---- fits ---- */

enum fit_what { FIT_VERDICT = 0, FIT_OP, FIT_CONTROL };

/* FIT_VERDICT: the op's median, or, for a point with a control, the op's
 * median less the control's (its CI from the two CIs' outer bounds; a
 * point where the op adds nothing over its control, difference <= 0, is
 * not fitted); FIT_OP: the op alone; FIT_CONTROL: the control alone. */
static void fit_points_scaled(struct point **pts, int n, struct verdict *v, enum fit_what what,
			      const double *scale)
{
	memset(v, 0, sizeof(*v));
	struct fit_point *fp = n ? calloc((size_t)n, sizeof(*fp)) : NULL;
	if (n && !fp) {
		v->cls = GROWTH_NONE;
		snprintf(v->reason, sizeof(v->reason), "out of memory");
		return;
	}
	int k = 0;
	for (int i = 0; i < n; i++) {
		const struct point *p = pts[i];
		if (p->n < 1 || (what == FIT_CONTROL && !p->has_ctl))
			continue;
		const struct stats *s = what == FIT_CONTROL ? &p->ctl : &p->st;
		double cost = s->p50, lo = s->med_lo, hi = s->med_hi;
		if (what == FIT_VERDICT && p->has_ctl) {
			cost = p->st.p50 - p->ctl.p50;
			lo = p->st.med_lo - p->ctl.med_hi;
			hi = p->st.med_hi - p->ctl.med_lo;
		}
		if (!(cost > 0))
			continue;
		double f = scale ? scale[i] : 1;
		fp[k].n = (double)p->n;
		fp[k].cost = cost * f;
		fp[k].lo = lo * f;
		fp[k].hi = hi * f;
		k++;
	}
	if (fit_verdict(fp, k, v) < 0) {
		v->cls = GROWTH_NONE;
		snprintf(v->reason, sizeof(v->reason), "no usable points");
	}
	free(fp);
}

static void fit_points_what(struct point **pts, int n, struct verdict *v, enum fit_what what)
{
	fit_points_scaled(pts, n, v, what, NULL);
}

static void fit_points(struct point **pts, int n, struct verdict *v)
{
	fit_points_what(pts, n, v, FIT_VERDICT);
}

static int drop_crowded(const struct repetition *reps, int nreps, int axis_kind);

/* ---- the shadow of recent deletions (result.h, INODE_SHADOW) ----
 * A load-axis growth fitted from points measured in it is unclear, as the
 * throughput word of a concurrency axis is (bench_usl): what each file
 * made cost then depends on how many usable inodes the sweep had used up
 * and how far the deletions had aged, in the order the sweep went, not on
 * N (fs.mkdir on /tmp just after another run: 490 us a directory at N = 1,
 * 12 us at 10,000, "O(1) x0.04"); a constant tens of times the op's own
 * cost hides any growth. */
static void shadow_unclear(struct verdict *v, const struct repetition *reps, int nreps,
			   int axis_kind)
{
	char why[sizeof(v->reason)];
	if (axis_kind != AXIS_LOAD || v->cls == GROWTH_NONE ||
	    !reps_shadow_reason(reps, nreps, why, sizeof(why)))
		return;
	v->cls = GROWTH_UNCLEAR;
	v->tie = GROWTH_UNCLEAR;
	snprintf(v->reason, sizeof(v->reason), "%s", why);
}

void rep_fit(struct repetition *rep, int axis_kind)
{
	struct point **pp = rep->npts ? malloc((size_t)rep->npts * sizeof(*pp)) : NULL;
	int k = 0, drop = drop_crowded(rep, 1, axis_kind); /* as bench_fit does */
	for (int i = 0; pp && i < rep->npts; i++)
		if (!drop || !point_crowded(&rep->pts[i]))
			pp[k++] = &rep->pts[i];
	fit_points(pp, k, &rep->v);
	free(pp);
	shadow_unclear(&rep->v, rep, 1, axis_kind);
}

/* ---- bimodal points: two levels, and whether placement explains them ----
 * An unclear verdict whose points sit on two levels (the largest gap in
 * their log medians is >= 20% and wider than either level's own spread,
 * each level has >= 2 points (or one, when the placement record sets it
 * apart), and the levels share N: not a step of growth) says so in its
 * reason instead of "noise": "bimodal: placement"
 * when a side moved during a point (point.placement.moved) or the two
 * levels ran on different CPUs (the sides' CPUs, or the harness's); else
 * "bimodal: other CPUs busy" when the probe's unmap time (probe.h,
 * PROBE_UNMAP) around the higher level's points was, in the median,
 * BIMODAL_UNMAP times the lower's or more (another vCPU running: on a
 * virtual machine fork, exit and munmap cost more then); else "bimodal"
 * with the placement found the same. */
#define BIMODAL_UNMAP 1.5

struct lvl { double l; const struct point *p; };

static int cmp_lvl(const void *a, const void *b)
{
	double x = ((const struct lvl *)a)->l, y = ((const struct lvl *)b)->l;
	return (x > y) - (x < y);
}

/* The CPUs a point's sides ran on, as text ("bench:0;server:1;"), or the
 * harness's start and end CPU where nothing more was recorded. */
static void place_sig(const struct point *p, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	json_t *sides = json_object_get(p->placement, "sides");
	const char *k;
	json_t *v;
	if (json_is_object(sides)) {
		json_object_foreach(sides, k, v) {
			size_t i;
			json_t *c;
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s:", k);
			json_array_foreach(json_object_get(v, "cpus"), i, c)
				o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%lld,",
						      (long long)json_integer_value(c));
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0, ";");
		}
	} else if (p->cpu_start >= 0) {
		snprintf(buf, len, "harness:%d,%d", p->cpu_start, p->cpu_end);
	}
}

/* The median over points v[from..to) of their probe unmap time (the mean
 * of ln ns before and after); NAN when none has it. */
static double level_unmap(const struct lvl *v, int from, int to)
{
	double *x = calloc((size_t)(to - from) + 1, sizeof(*x));
	int k = 0;
	for (int i = from; x && i < to; i++) {
		const struct point *p = v[i].p;
		if (p->has_probe && p->probe[0].ns[PROBE_UNMAP] > 0 && p->probe[1].ns[PROBE_UNMAP] > 0)
			x[k++] = (log(p->probe[0].ns[PROBE_UNMAP]) + log(p->probe[1].ns[PROBE_UNMAP])) / 2;
	}
	double m = k ? cmp_median(x, k) : NAN;
	free(x);
	return m;
}

int bench_bimodal(struct bench_result *b)
{
	if (b->v.cls != GROWTH_UNCLEAR)
		return 0;
	int n = 0;
	for (int r = 0; r < b->nreps; r++)
		n += b->reps[r].npts;
	struct lvl *v = n >= 4 ? calloc((size_t)n, sizeof(*v)) : NULL;
	if (!v)
		return 0;
	int k = 0;
	for (int r = 0; r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts; i++) {
			const struct point *p = &b->reps[r].pts[i];
			if (p->st.p50 > 0 && !p->has_ctl)
				v[k++] = (struct lvl){log(p->st.p50), p};
		}
	qsort(v, (size_t)k, sizeof(*v), cmp_lvl);
	int g = -1;
	double gap = 0;
	for (int i = 0; i + 1 < k; i++) /* a gap after v[i] */
		if (v[i + 1].l - v[i].l > gap) {
			gap = v[i + 1].l - v[i].l;
			g = i;
		}
	int found = 0;
	if (g >= 0 && gap >= log(1.2) && gap > v[g].l - v[0].l && gap > v[k - 1].l - v[g + 1].l) {
		uint64_t lo_min = UINT64_MAX, lo_max = 0, hi_min = UINT64_MAX, hi_max = 0;
		int moved = 0, differ = 1;
		for (int i = 0; i < k; i++) {
			uint64_t pn = v[i].p->n;
			if (i <= g) {
				lo_min = pn < lo_min ? pn : lo_min;
				lo_max = pn > lo_max ? pn : lo_max;
			} else {
				hi_min = pn < hi_min ? pn : hi_min;
				hi_max = pn > hi_max ? pn : hi_max;
			}
			moved += json_is_true(json_object_get(v[i].p->placement, "moved"));
		}
		/* the levels ran on different CPUs: no placement of one level is
		 * found in the other */
		char a[256], c[256];
		for (int i = 0; i <= g && differ; i++) {
			place_sig(v[i].p, a, sizeof(a));
			for (int j = g + 1; j < k && differ; j++) {
				place_sig(v[j].p, c, sizeof(c));
				if (!strcmp(a, c))
					differ = 0;
			}
		}
		/* a level of one point is an outlier unless the placement record
		 * sets it apart */
		int sizes_ok = (g >= 1 && k - g - 1 >= 2) || moved || differ;
		if (sizes_ok && hi_min < lo_max && lo_min < hi_max) {
			found = 1;
			char l1[16], l2[16];
			fmt_ns(exp(v[g / 2].l), l1, sizeof(l1));
			fmt_ns(exp(v[(g + 1 + k) / 2].l), l2, sizeof(l2));
			double ur = exp(level_unmap(v, g + 1, k) - level_unmap(v, 0, g + 1));
			if (moved || differ)
				snprintf(b->v.reason, sizeof(b->v.reason),
					 "bimodal: placement: two levels, ~%s (%d points) and ~%s (%d); %s", l1,
					 g + 1, l2, k - g - 1,
					 moved ? "a side moved during some points" : "the levels ran on other CPUs");
			else if (ur >= BIMODAL_UNMAP)
				snprintf(b->v.reason, sizeof(b->v.reason),
					 "bimodal: other CPUs busy: two levels, ~%s (%d points) and ~%s (%d), "
					 "the probe's unmap %.1fx as long around the higher (another vCPU "
					 "running; docs/method.md)", l1, g + 1, l2, k - g - 1, ur);
			else
				snprintf(b->v.reason, sizeof(b->v.reason),
					 "bimodal: two levels, ~%s (%d points) and ~%s (%d), with the same "
					 "placement and no side moved", l1, g + 1, l2, k - g - 1);
		}
	}
	free(v);
	return found;
}

/* Whether the points other processes crowded (probe.h, CPU_LOST_CROWDED:
 * still crowded after measuring again) are left out of the fit: on a load
 * axis, when there are some and the others still span CROWD_SPAN (a
 * decade) over at least 3 distinct N, up to the top decade of the axis
 * (else the fit would lose the growth the top shows). A crowded point
 * measures the other process as much as N: beside two CPU hogs,
 * net.request's points that
 * shared their CPU with one sat ~10 us above the others at every N, a
 * level over some points that bends the curve. When every point was
 * crowded (the hogs on every CPU) they share a level and stay. */
#define CROWD_SPAN 10
static int drop_crowded(const struct repetition *reps, int nreps, int axis_kind)
{
	if (axis_kind != AXIS_LOAD)
		return 0;
	double ns[64], lo = INFINITY, hi = 0, top = 0;
	int nd = 0, any = 0;
	for (int r = 0; r < nreps; r++)
		for (int i = 0; i < reps[r].npts; i++) {
			const struct point *p = &reps[r].pts[i];
			top = (double)p->n > top ? (double)p->n : top;
			if (point_crowded(p)) {
				any = 1;
				continue;
			}
			double n = (double)p->n;
			int seen = 0;
			for (int j = 0; j < nd; j++)
				seen |= ns[j] == n;
			if (!seen && nd < 64 && n > 0)
				ns[nd++] = n;
			lo = n > 0 && n < lo ? n : lo;
			hi = n > hi ? n : hi;
		}
	return any && nd >= 3 && hi >= CROWD_SPAN * lo && hi * CROWD_SPAN >= top;
}

/* Every repetition's points, pooled, the crowded left out as drop_crowded
 * says (*left: how many): an array of k pointers (NULL and k = 0 when
 * there are none or no memory), each with its repetition (rep[i], when
 * rep is not NULL; the caller frees it); *nctl: how many have a control. */
static struct point **pooled(const struct bench_result *b, int *k, int *nctl, int **rep, int *left)
{
	int n = 0, drop = drop_crowded(b->reps, b->nreps, b->axis_kind);
	for (int r = 0; r < b->nreps; r++)
		n += b->reps[r].npts;
	struct point **pp = n ? malloc((size_t)n * sizeof(*pp)) : NULL;
	int *ri = rep && n ? malloc((size_t)n * sizeof(*ri)) : NULL;
	*k = *nctl = 0;
	if (left)
		*left = 0;
	for (int r = 0; pp && r < b->nreps; r++)
		for (int i = 0; i < b->reps[r].npts; i++) {
			struct point *p = &b->reps[r].pts[i];
			if (drop && point_crowded(p)) {
				if (left)
					++*left;
				continue;
			}
			if (ri)
				ri[*k] = r;
			pp[(*k)++] = p;
			*nctl += p->has_ctl;
		}
	if (rep)
		*rep = ri;
	return pp;
}

/* A category axis (AXIS_CATEGORY): nothing grows along it, so no growth
 * is fitted; the verdict says so (the headline is the tail per category,
 * bench_category_headline). */
static void no_growth(struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->cls = GROWTH_NONE;
	v->model = -1; /* "?" */
	v->a = v->b = v->b_se = v->growth_share = v->exponent = v->exp_lo = v->exp_hi = NAN;
	v->local_slope = v->ratio = v->nmin = v->nmax = v->redchi2 = NAN;
	for (int i = 0; i < FIT_NMODELS; i++)
		v->aic[i] = NAN;
	snprintf(v->reason, sizeof(v->reason),
		 "a category axis: its N names kinds, not a quantity, so no growth is fitted "
		 "(the headline is the tail per category)");
}

/* A growing class on weak evidence (growth under WEAK_SHARE of the cost at
 * the largest N, or b under FIT_FIRM_Z standard errors) must hold over
 * --decide's shuffled repetitions: when the repetitions it added, fitted
 * alone over the same N (a round that left the largest or the smallest N
 * out sees less of the growth), say O(1), the growth was the sweep's (a slow stretch late in a
 * rising sweep: mem.mmap to 10,000 beside two CPU hogs once came out
 * O(log n)), and the pooled points, half drift, cannot say which; the
 * verdict is unclear, with both in the reason, and the rounds go on while
 * their budget lasts. */
#define WEAK_SHARE 0.5
static int weak_growth(const struct verdict *v)
{
	if (v->cls < GROWTH_LOGN || v->cls > GROWTH_WORSE)
		return 0;
	double t = v->b_se > 0 ? v->b / v->b_se : INFINITY;
	return v->growth_share < WEAK_SHARE || t < FIT_FIRM_Z;
}

static void confirm_growth(struct bench_result *b, struct point **pp)
{
	if (!weak_growth(&b->v))
		return;
	int na = 0, ns = 0;
	for (int r = 0; r < b->nreps; r++) {
		struct repetition *rp = &b->reps[r];
		for (int i = 0; i < rp->npts; i++)
			if (rp->added)
				pp[na++] = &rp->pts[i];
		ns += !rp->added;
	}
	if (!na || !ns)
		return;
	struct verdict va;
	fit_points(pp, na, &va);
	/* only over the same range: a partial round that left the top N out
	 * sees less of the growth */
	if (va.cls != GROWTH_O1 || va.nmax < b->v.nmax || va.nmin > b->v.nmin)
		return;
	char was[16];
	snprintf(was, sizeof(was), "%s", growth_name(b->v.cls));
	b->v.cls = GROWTH_UNCLEAR;
	b->v.tie = GROWTH_UNCLEAR;
	snprintf(b->v.reason, sizeof(b->v.reason),
		 "drift: all points pooled say %s on weak evidence (growth %.0f%% of cost at n=%g), "
		 "the shuffled repetitions alone O(1) (growth %.0f%%)",
		 was, 100 * b->v.growth_share, b->v.nmax, 100 * va.growth_share);
}

#define CROWD_NOTE "crowded: "
/* Says how many points the fit left out as crowded (one such note, from
 * the last fit). */
static void crowd_note(struct bench_result *b, int left)
{
	bench_drop_notes(b, CROWD_NOTE);
	if (left)
		bench_add_note(b, CROWD_NOTE "the verdict leaves out %d point%s that other processes "
				  "crowded (they took %.1f of a CPU or more from the point's tasks, after "
				  "measuring again; docs/method.md, \"Crowded points\"): the others span the "
				  "axis still", left, left == 1 ? "" : "s", CPU_LOST_CROWDED);
}

void bench_fit(struct bench_result *b)
{
	int k, nctl;
	if (b->axis_kind == AXIS_CATEGORY) {
		no_growth(&b->v);
		for (int r = 0; r < b->nreps; r++)
			no_growth(&b->reps[r].v);
		memset(&b->usl, 0, sizeof(b->usl));
		return;
	}
	int *rep = NULL, left = 0;
	struct point **pp = pooled(b, &k, &nctl, &rep, &left);
	double *lvl = b->nreps ? malloc((size_t)b->nreps * sizeof *lvl) : NULL;
	double *sc = k ? malloc((size_t)k * sizeof *sc) : NULL;
	if (lvl && sc && rep) {
		bench_rep_levels(b, lvl);
		for (int i = 0; i < k; i++)
			sc[i] = lvl[rep[i]];
	}
	fit_points_scaled(pp, k, &b->v, FIT_VERDICT, lvl && sc && rep ? sc : NULL);
	crowd_note(b, left);
	free(lvl);
	free(sc);
	free(rep);
	if (pp)
		confirm_growth(b, pp);
	free(pp);
	bench_bimodal(b);
	shadow_unclear(&b->v, b->reps, b->nreps, b->axis_kind);
	bench_usl(b);
}


#define CONTROL_NOTE "control: "

void bench_control_note(struct bench_result *b)
{
	int k, nctl;
	struct point **pp = pooled(b, &k, &nctl, NULL, NULL);
	/* one such note, from the last settle (repetitions pooled) */
	bench_drop_notes(b, CONTROL_NOTE);
	if (!nctl) {
		free(pp);
		return;
	}
	struct verdict vo, vc;
	fit_points_what(pp, k, &vo, FIT_OP);
	fit_points_what(pp, k, &vc, FIT_CONTROL);
	free(pp);
	int explains = vo.cls != GROWTH_O1 && vo.cls != GROWTH_NONE && vc.cls == vo.cls &&
		       b->v.cls == GROWTH_O1;
	bench_add_note(b,
		       CONTROL_NOTE "the verdict (%s) is on the op less its control; the op alone: %s "
		       "(n^%.2f), the control alone: %s (n^%.2f)%s",
		       growth_name(b->v.cls), growth_name(vo.cls), vo.exponent, growth_name(vc.cls),
		       vc.exponent,
		       explains ? ": the control's growth explains the op's (the preparation's doing, "
				  "not the operation's)"
				: "");
}

/* ---- settling a bench ---- */

void verdict_settle(struct bench_result *br, int wanted)
{
	if (br->status != BS_SKIPPED) {
		br->status = BS_OK;
		for (int r = 0; r < br->nreps; r++) {
			if (br->reps[r].fail)
				br->status = BS_FAILED;
			if (br->reps[r].interrupted && br->status == BS_OK)
				br->status = BS_INTERRUPTED;
		}
		if (reg_stop_requested() && br->status == BS_OK && br->nreps < wanted)
			br->status = BS_INTERRUPTED;
	}
	bench_fit(br);
	bench_control_note(br);
}

int verdict_decides(const struct bench *b, const struct sweep_opts *so)
{
	return so->decide || ((b->flags & BENCH_DECIDE) && !so->no_decide);
}

void verdict_point_opts(const struct sweep_opts *so, uint64_t n, struct sweep_opts *one)
{
	*one = *so;
	one->min_n = one->max_n = n;
	one->profile = 0; /* the profile is the sweeps' */
	one->repeat = 1;
	one->rep_first = 0;
	one->rep_count = 1;
}

int verdict_take_point(struct bench_result *got, struct point *pt)
{
	struct repetition *gr = got->nreps ? &got->reps[0] : NULL;
	if (!gr || gr->fail || gr->interrupted || got->status != BS_OK || gr->npts < 1)
		return 1;
	*pt = gr->pts[gr->npts - 1];
	memset(&gr->pts[gr->npts - 1], 0, sizeof(*pt));
	return 0;
}

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- sequential testing: more repetitions where the verdict is undecided ---- */

/* Does the pooled verdict want more data? Unclear; or a growing class
 * resting on one sweep whose evidence is weak (its growth term under
 * WEAK_SHARE of the cost at the largest N, or b under FIT_FIRM_Z standard
 * errors from zero): a slow stretch of the machine late in a rising sweep
 * looks like growth (mem.mmap to 10,000 beside two CPU hogs once came out
 * O(log n), a wrong class), so such a verdict must hold over a second
 * visit of its N in a shuffled order before it is given; so must a tie
 * (O(n) named, O(n log n) fitting as well: fit.c, near_tie), which more
 * points may break. 0: settled; 1: unclear; 2: weak; 3: a tie. */
static int undecided(const struct bench_result *br)
{
	const struct verdict *v = &br->v;
	if (v->cls == GROWTH_UNCLEAR)
		return 1;
	if (v->cls < GROWTH_LOGN || v->cls > GROWTH_WORSE || br->nreps > 1)
		return 0;
	if (v->tie != GROWTH_UNCLEAR)
		return 3;
	return weak_growth(v) ? 2 : 0;
}

/* Whether b's verdict can be extended: a load axis (not concurrency, not
 * size, not a list of levels such as rt.wakeup's load kinds) that grows
 * its load (a point can be built from zero at any N), not a tasks sweep. */
static int extendable(const struct bench *b, const struct sweep_opts *so,
		      const struct bench_result *br)
{
	return b->grow && b->axis_kind == AXIS_LOAD && b->series != SERIES_LINEAR &&
	       br->axis_kind == AXIS_LOAD && !so->tasks;
}

/* A sweep that ended on a limit the system set (ENOSPC, EMFILE, a
 * process limit: failure kind "limit") still measured every N below it,
 * and those points are its data, verdict included: its rounds stay below
 * the limit. Returns the largest N measured when the sweeps ended so (some
 * repetition failed, every failure a limit, none interrupted); else 0. */
static uint64_t limit_top(const struct bench_result *br)
{
	uint64_t top = 0;
	int limited = 0;
	if (br->status != BS_FAILED)
		return 0;
	for (int r = 0; r < br->nreps; r++) {
		const struct repetition *rp = &br->reps[r];
		if (rp->interrupted || (rp->fail && strcmp(rp->fail->kind, "limit")))
			return 0;
		limited |= rp->fail != NULL;
		for (int i = 0; i < rp->npts; i++)
			top = rp->pts[i].n > top ? rp->pts[i].n : top;
	}
	return limited ? top : 0;
}

/* Can the rounds run: the sweeps ended as they should, or on a limit. */
static int roundable(const struct bench_result *br)
{
	return br->status == BS_OK || limit_top(br) > 0;
}

/* The bench's N for the rounds: its series up to the sweeps' max_n (below
 * a limit the sweep found: up to the largest N measured), from --min-n,
 * without a baseline at N = 0 (not in the fit). */
static int round_ns(const struct bench *b, const struct sweep_opts *so,
		    const struct bench_result *br, uint64_t *ns, int cap)
{
	uint64_t lim = limit_top(br);
	int np = sweep_series_for(b, br->max_n, ns, cap), k = 0;
	for (int i = 0; i < np; i++)
		if (ns[i] > 0 && ns[i] >= so->min_n && (!lim || ns[i] <= lim))
			ns[k++] = ns[i];
	return k;
}

/* Can rounds over these N settle a growth class? At least 3 of them over
 * at least a decade (ROUND_SPAN): over less (--max-n 5: N = 1, 2, 5) no
 * number of repetitions tells O(1) from O(log n) or O(n), and a short
 * test run would only be made longer. */
#define ROUND_SPAN 10
static int rounds_can_settle(const uint64_t *ns, int np)
{
	return np >= 3 && ns[np - 1] >= ROUND_SPAN * ns[0];
}

int verdict_undecided(const struct bench *b, const struct sweep_opts *so,
		      const struct bench_result *br)
{
	uint64_t ns[64];
	int np = round_ns(b, so, br, ns, 64);
	return verdict_decides(b, so) && extendable(b, so, br) && roundable(br) &&
	       rounds_can_settle(ns, np) && undecided(br);
}

/* The budget: once the sweeps' time with --quick, twice by default, three
 * times with --full. */
static unsigned budget_mult(const struct sweep_opts *so)
{
	return so->full ? 3 : so->quick ? 1 : 2;
}

/* What a point at n measured afresh will cost (ns), to keep the budget:
 * before any is measured, from the sweeps (their time less their points'
 * sampling time is the load's growth and the harness, taken as growing
 * with N, plus the sampling time of the sweep's point at n); then that
 * estimate scaled by how the points measured so far compared with it. */
struct cost_model {
	double grow_ns;  /* the sweeps' time per repetition less its points' sampling, at nmax */
	double nmax;
	const struct bench_result *br; /* its first repetition's points: the sampling times */
	double seen_ns, est_ns; /* measured so far, and estimated for the same points */
};

static double cost_est(const struct cost_model *m, uint64_t n)
{
	double sample = 0;
	const struct repetition *r0 = &m->br->reps[0];
	for (int i = 0; i < r0->npts; i++)
		if (r0->pts[i].n == n)
			sample = r0->pts[i].elapsed_s * 1e9;
	return m->grow_ns * (double)n / m->nmax + sample;
}

static double cost_predict(const struct cost_model *m, uint64_t n)
{
	double e = cost_est(m, n);
	return m->est_ns > 0 ? e * m->seen_ns / m->est_ns : e;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median over the sweeps (the repetitions not added) of their points'
 * medians at n; 0 if none measured n. */
static double sweeps_p50(const struct bench_result *br, uint64_t n)
{
	double v[64];
	int k = 0;
	for (int r = 0; r < br->nreps && k < 64; r++)
		for (int i = 0; i < br->reps[r].npts && !br->reps[r].added && k < 64; i++)
			if (br->reps[r].pts[i].n == n && br->reps[r].pts[i].st.p50 > 0)
				v[k++] = br->reps[r].pts[i].st.p50;
	if (!k)
		return 0;
	qsort(v, (size_t)k, sizeof(v[0]), cmp_dbl);
	return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

/* A round's point is measured again, afresh (result.h, point_again_why):
 * when the probe read the machine slow, when it was crowded, or when its
 * median is more than POINT_JUMP_RATIO above the sweeps' at the same N.
 * Each point of a round is a process of its own, and on a virtual machine
 * whose CPUs the host slows one at a time, where it lands decides its
 * level: on this project's 2-vCPU guest, the rounds' workers alternate
 * between the CPUs, and the points of fs.open, fs.stat and fs.link on
 * tmpfs that ran on the slowed one took 30-45% longer (the probe's page
 * fault 14-15 us against 10-11), every other point, while the sweep, one
 * process, stayed on one CPU and level. At most POINT_AGAIN_MAX times
 * (a jump too: against the same N, still up once is not yet a step), within
 * the rounds' time (cap since t0); the measurement kept is
 * point_again_better's. *again counts the points measured again. 0; or
 * measure_point's 1 or -1 (no point: a failure, a stop; the harness
 * failed), the point as it was kept. */
static int round_again(const struct bench *b, const struct bench_result *br,
		       const struct verdict_ops *ops, struct cost_model *cm, uint64_t n,
		       struct point *pt, uint64_t t0, uint64_t cap, int *again)
{
	int load = b->axis_kind == AXIS_LOAD, why, was = pt->remeasured, rc = 0;
	double ref = sweeps_p50(br, n);
	while ((why = point_again_why(pt, load, ref)) && pt->remeasured - was < POINT_AGAIN_MAX &&
	       !reg_stop_requested() && pt->stop != STOP_INTERRUPT &&
	       (double)(clock_ns() - t0) + cost_predict(cm, n) <= (double)cap) {
		struct point q;
		memset(&q, 0, sizeof(q));
		uint64_t p0 = clock_ns();
		rc = ops->measure_point(ops->ctx, n, &q);
		if (rc)
			break;
		cm->seen_ns += (double)(clock_ns() - p0);
		cm->est_ns += cost_est(cm, n);
		point_again_take(pt, &q, point_again_better(pt, &q, load));
	}
	*again += pt->remeasured > was;
	return rc;
}

/* An undecided verdict after the sweeps (above): more repetitions, each
 * visiting the bench's N in a fresh shuffled order with every point
 * measured afresh (the load built from zero for it), so that drift over
 * time (a neighbour's load, a warming cache) cannot look like growth, and
 * the pooled verdict gets more points. Rounds go on until the verdict is
 * settled or the budget is spent; a point that would not fit in what is
 * left of it is not begun. A note says what was added and why; the added
 * repetitions are marked (repetition.added). */
static int decide(const struct bench *b, const struct sweep_opts *so, struct bench_result *br,
		  uint64_t spent_ns, const struct verdict_ops *ops)
{
	uint64_t ns[64];
	int np = round_ns(b, so, br, ns, 64);
	int why_kind = undecided(br);
	if (!extendable(b, so, br) || !rounds_can_settle(ns, np) || !roundable(br) || !why_kind)
		return 0;
	char why[300];
	if (why_kind == 1)
		snprintf(why, sizeof(why), "unclear after the sweep (%s)", br->v.reason);
	else if (why_kind == 3)
		snprintf(why, sizeof(why), "%s after the sweep, tied with %s", growth_name(br->v.cls),
			 growth_name(br->v.tie));
	else
		snprintf(why, sizeof(why), "%s after the sweep on weak evidence (growth %.0f%% of the "
			 "cost at n=%g, b/se %.1f)", growth_name(br->v.cls), 100 * br->v.growth_share,
			 br->v.nmax, br->v.b_se > 0 ? br->v.b / br->v.b_se : 0.0);
	/* A file system without a journal (ext2, ext4 -O ^has_journal) skips
	 * the inodes freed in the last minute when it makes a file (docs/method.md,
	 * "The scratch file system's memory"): a point measured afresh right
	 * after the sweep's teardown measures those deletions, not N (fs.create
	 * on ext2 without dir_index beside two hogs: the rounds' points at
	 * 1,000-50,000 entries 0.5-5.5x the sweep's, the tie the sweep had
	 * pooled into "unclear"). Unless the rounds have a file system of their
	 * own (matrix --fresh), none. */
	if (!so->fresh_rounds && so->scratch && bench_makes_files(b->name) &&
	    sys_fs_journal(so->scratch) == 0) {
		bench_add_note(br, "verdict %s: no repetitions added: the scratch file system has no "
				   "journal, so points measured afresh within a minute of the sweep's "
				   "deletions would measure those (docs/method.md, \"The scratch file "
				   "system's memory\"); matrix --fresh gives the rounds a file system of "
				   "their own", why);
		return 0;
	}
	unsigned mult = budget_mult(so);
	uint64_t own = mult * spent_ns, pool = ops->pool_ns ? *ops->pool_ns : UINT64_MAX;
	if (pool < (uint64_t)1e8) { /* none left (a tenth of a second is no round) */
		bench_add_note(br, "verdict %s: no repetitions added: the run's time for them (with "
				   "--quick a fifth of its sweeps') was spent on cheaper benches", why);
		return 0;
	}
	int sweeps = br->nreps;
	struct cost_model cm = {.nmax = (double)ns[np - 1], .br = br};
	double sampled = 0;
	for (int i = 0; i < br->reps[0].npts; i++)
		sampled += br->reps[0].pts[i].elapsed_s * 1e9;
	cm.grow_ns = fmax((double)spent_ns / (sweeps > 0 ? sweeps : 1) - sampled, 0);
	uint64_t t0 = clock_ns(), cap = own < pool ? own : pool, seed = (t0 ^ (uint64_t)getpid()) | 1;
	int rounds = 0, points = 0, skipped = 0, ret = 0, stop = 0, again = 0;
	while (!stop && !reg_stop_requested() && clock_ns() - t0 < cap && rounds < 20) {
		for (int i = np - 1; i > 0; i--) { /* Fisher-Yates */
			int j = (int)(next_rand(&seed) % (uint64_t)(i + 1));
			uint64_t t = ns[i];
			ns[i] = ns[j];
			ns[j] = t;
		}
		int fit = 0; /* points of this round that fit in what is left */
		for (int k = 0; k < np; k++)
			fit += (double)(clock_ns() - t0) + cost_predict(&cm, ns[k]) <= (double)cap;
		if (!fit)
			break;
		/* the round's first point in: some budget of the bench is spent */
		struct repetition *rep = NULL;
		int got = 0;
		for (int k = 0; k < np && !reg_stop_requested(); k++) {
			uint64_t now = clock_ns() - t0;
			if (now >= cap)
				break;
			if ((double)now + cost_predict(&cm, ns[k]) > (double)cap) {
				skipped++;
				continue;
			}
			if (!rep && !(rep = bench_add_rep(br))) {
				stop = 1;
				break;
			}
			rep->added = 1;
			struct point pt;
			memset(&pt, 0, sizeof(pt));
			uint64_t p0 = clock_ns();
			int rc = ops->measure_point(ops->ctx, ns[k], &pt);
			if (rc) {
				ret |= rc < 0;
				stop = 1;
				break;
			}
			cm.seen_ns += (double)(clock_ns() - p0);
			cm.est_ns += cost_est(&cm, ns[k]);
			rc = round_again(b, br, ops, &cm, ns[k], &pt, t0, cap, &again);
			struct point *slot = rep_add_point(rep);
			if (slot) {
				*slot = pt;
				points++;
				got++;
			} else {
				point_clear(&pt);
			}
			if (rc) { /* measuring it again failed, or met a stop: the point kept */
				ret |= rc < 0;
				stop = 1;
				break;
			}
		}
		if (!rep)
			break;
		rounds++;
		rep_fit(rep, (int)b->axis_kind);
		bench_fit(br);
		if (!undecided(br) || got < np)
			break; /* settled; or the budget did not hold a whole round */
	}
	static const char *const times[] = {"", "once", "twice", "three times"};
	char limtxt[80] = "";
	if (limit_top(br))
		snprintf(limtxt, sizeof(limtxt), ", up to N=%llu, below the limit the sweep met",
			 (unsigned long long)limit_top(br));
	char againtxt[120] = "";
	if (again)
		snprintf(againtxt, sizeof(againtxt),
			 ", %d measured again: slow, crowded or over %.1fx the sweeps' at that N", again,
			 POINT_JUMP_RATIO);
	uint64_t used = clock_ns() - t0;
	if (ops->pool_ns)
		*ops->pool_ns -= used < *ops->pool_ns ? used : *ops->pool_ns;
	if (rounds)
		bench_add_note(br, "verdict %s: %d more repetition%s, each N %s in shuffled order (%d "
				   "points%s%s%s, %.1f s of %.1f s: %s the sweeps%s): now %s%s%s",
			       why, rounds, rounds == 1 ? "" : "s", ops->how, points, againtxt, limtxt,
			       skipped ? ", some N left out: they would not fit in the time left" : "",
			       (double)used / 1e9, (double)cap / 1e9, times[mult],
			       cap < own ? ", cut to what the run had left for rounds" : "",
			       br->v.cls == GROWTH_UNCLEAR ? "still unclear" : growth_name(br->v.cls),
			       br->v.tie != GROWTH_UNCLEAR ? ", tied with " : "",
			       br->v.tie != GROWTH_UNCLEAR ? growth_name(br->v.tie) : "");
	return ret;
}

uint64_t verdict_run_pool(const struct sweep_opts *so, uint64_t sweeps_ns, uint64_t longest_ns)
{
	if (!so->quick)
		return UINT64_MAX;
	return sweeps_ns / 5 > longest_ns ? sweeps_ns / 5 : longest_ns;
}

int verdict_bench(const struct bench *b, const struct sweep_opts *so, struct bench_result *br,
		  uint64_t spent_ns, const struct verdict_ops *ops)
{
	int ret = 0;
	verdict_settle(br, so->repeat);
	if (ops && ops->measure_point && verdict_decides(b, so) && !reg_stop_requested()) {
		ret = decide(b, so, br, spent_ns, ops);
		verdict_settle(br, so->repeat);
	}
	return ret;
}
