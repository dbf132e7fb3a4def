/* SPDX-License-Identifier: MIT */
/* Sweep driver.
 *
 * For each repetition: a fresh scratch subdirectory, setup, then for each
 * point of the series the load is grown from where it is to N (never
 * rebuilt from zero), and the point is measured:
 *   1. warm-up: operations for at least 20 ms (or a tenth of the budget)
 *      that are not kept, the first of which estimate the cost of one;
 *   2. on the first point only, the batch size is chosen, and kept for the
 *      whole sweep so that no sweep mixes single and batch timing: an
 *      operation costing less than BATCH_BELOW clock reads is timed in
 *      batches of k so that one sample spans >= BATCH_SPAN clock reads;
 *   3. samples go into a log-linear histogram until the median's 95% CI is
 *      within +/- ci_target, or the point's budget is spent; they are
 *      taken in blocks of up to BLOCK (and BLOCK_NS timed) with nothing
 *      but the bench's prep between two, so that the timed loop is as
 *      bare as a reference loop, and the histogram, the stop conditions
 *      and the clock for the deadline are looked at between blocks;
 *   4. the thread's own counters read around each timed region (a block
 *      of samples, its CPU capped at its timed time; the op loop of each
 *      sample where the untimed prep/undo outweighs the op) give CPU time, context switches and
 *      page faults per operation (src/core/usage.h); the CPU of the
 *      sampling outside them is the setup per sample, and the CPU of the
 *      bench's peer processes (server, helpers) over the sampling is
 *      reported per operation under their side's name. In run() mode
 *      the process's counters around the meter window are used.
 *   5. a bench with a control (bench.h) has a control sample taken after
 *      each sample, after the same prep; the verdict is on the difference.
 * A failing callback stops the repetition with first-failure data.
 * The sweep's other parts (series, failures, meter, peers, placement)
 * are files of their own, listed in sweep_int.h. */
#include "core/sweep_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/cmpstat.h"
#include "core/probe.h"
#include "core/profile.h"
#include "core/registry.h"
#include "sys/sys.h"
#include "core/tasks.h"
#include "core/usage.h"
#include "core/verdict.h"

#define BATCH_BELOW 10.0 /* clock reads */
#define BATCH_SPAN 100.0 /* clock reads */
#define WARMUP_OPS 16
#define WARMUP_S 0.02
#define BLOCK 64          /* samples per block at most */
#define BLOCK_NS 1000000u /* timed ns after which a block ends */
#define SETUP_NOTE_RATIO 10.0 /* setup per sample over the sample's CPU worth a note */
/* A point measured in a slow stretch (probe.h) is measured again
 * (result.h, point_again_why) after waiting for the machine to come back
 * (a probe every STEADY_TICK_MS, up to STEADY_WAIT_MS; half of it with
 * quick). */
#define STEADY_TICK_MS 10
#define STEADY_WAIT_MS 300

/* run --profile: the profile whose point is being measured (profile_at),
 * its events enabled around the timed region only; NULL otherwise. */
static struct profile *prof_live;
static int prof_armed; /* after the point's warm-up (whose ops are not counted) */
/* the point sampled is a timed one (a whole workload): its samples never end it */
static int prof_inline;

struct ctx {
	const struct bench *b;
	const struct sweep_opts *o;
	struct bench_env env;
	void *st;
	unsigned batch;  /* 0 until chosen on the first point */
	struct hist *h;
	struct hist *hc; /* the control's samples, for a bench with control() */
	struct usage_acc *acc; /* while sampling a bench with prep/undo: per-sample counters */
	int short_warm; /* a profiled point right after the timed point of its N: WARMUP_OPS only */
	/* the point's CPU (pick_begin): the CPUs it is picked from, none when
	 * it is not; the harness thread's CPUs before, restored at the end */
	int npick;
	int pick_cpu[POINT_PICK_MAX];
	unsigned char pick_saved[SYS_MAX_CPUS];
	/* the shadow of recent deletions (inode_probe): the directory its
	 * files are moved into, -1 when not probed, and the next name's number */
	int inofd, inoseq;
};

/* One sample of k operations; returns elapsed ns or a negative errno. */
static int sample(struct ctx *c, unsigned k, uint64_t *elapsed, const char **phase, int ctl)
{
	const struct bench *b = c->b;
	int (*fn)(void *, unsigned) = ctl ? b->control : b->op;
	struct usage_acc *acc = ctl ? NULL : c->acc;
	int rc = 0;
	if (b->prep)
		for (unsigned s = 0; s < k; s++)
			if ((rc = b->prep(c->st, s)) < 0) {
				*phase = "prep";
				return rc;
			}
	struct usage_read r0, r1;
	if (acc)
		usage_begin(&r0);
	profile_on(prof_armed && !ctl ? prof_live : NULL);
	uint64_t t0 = clock_ns(), t1;
	if (!ctl && b->op_far) { /* timed in the bench's other process (bench.h) */
		uint64_t far = 0;
		rc = b->op_far(c->st, k, &far);
		t1 = t0 + far;
	} else {
		for (unsigned s = 0; s < k && rc == 0; s++)
			rc = fn(c->st, s);
		t1 = clock_ns();
	}
	profile_off(prof_armed && !ctl ? prof_live : NULL);
	if (acc) {
		usage_end(&r1);
		usage_acc_add(acc, &r0, &r1, (double)(t1 - t0) / 1e9);
	}
	if (rc < 0) {
		*phase = "op";
		return rc;
	}
	if (b->undo)
		for (unsigned s = 0; s < k; s++)
			if ((rc = b->undo(c->st, s)) < 0) {
				*phase = "undo";
				return rc;
			}
	*elapsed = t1 - t0;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void point_throughput(struct point *p, double busy_s)
{
	if (busy_s > 0) {
		p->ops_per_s = (double)p->ops / busy_s;
		p->bytes_per_s = (double)p->bytes / busy_s;
	}
}

static int measure_run(struct ctx *c, uint64_t n, struct point *p, struct failure **fail)
{
	const struct sweep_opts *o = c->o;
	struct meter m;
	memset(&m, 0, sizeof(m));
	hist_reset(c->h);
	m.h = c->h;
	m.o = o;
	m.no_ci = (c->b->flags & BENCH_FULL_BUDGET) != 0;
	m.next_check = o->min_samples;
	double budget = (c->b->flags & BENCH_FULL_BUDGET) && o->run_budget_s > 0 ? o->run_budget_s
										 : o->budget_s;
	double iv = c->env.interval_s > 0 ? c->env.interval_s : budget / 100;
	m.interval_ns = iv < 1e-3 ? 1000000u : (uint64_t)(iv * 1e9);
	struct usage_read u0, u1;
	peers_open(&c->env);
	usage_take_as(&u0, USAGE_PROCESS, 0);
	m.start = clock_ns();
	m.deadline = m.start + (uint64_t)(budget * 1e9);
	/* A point needs one completed request to say anything: with a budget
	 * shorter than a bench's first request (net.udp's warm-up, rt.wakeup's
	 * first period under load) the point runs on, up to ten budgets and at
	 * least a second, rather than end with no sample. */
	m.hard_deadline = m.start + (uint64_t)((budget * 10 > 1.0 ? budget * 10 : 1.0) * 1e9);
	m.stop = STOP_BUDGET;
	m.prof = prof_inline ? NULL : prof_live;
	profile_on(prof_live);
	int rc = c->b->run(c->st, &m);
	uint64_t end = clock_ns();
	profile_off(prof_live);
	usage_take_as(&u1, USAGE_PROCESS, 1);
	json_t *peers = peers_close(&c->env, (double)m.ops);
	json_t *placed = place_take();
	if (rc < 0) {
		json_decref(peers);
		json_decref(placed);
		free(m.s_ops);
		free(m.s_bytes);
		json_decref(m.extra);
		*fail = sweep_failure_errno("run", c->env.failed_call ? c->env.failed_call : c->b->op_desc,
					    n, -rc);
		if (c->env.fail_data && *fail && json_is_object((*fail)->state))
			json_object_set((*fail)->state, "bench", c->env.fail_data);
		json_decref(c->env.fail_data);
		c->env.fail_data = NULL;
		return rc;
	}
	json_decref(c->env.fail_data); /* figures of a failure that did not happen */
	c->env.fail_data = NULL;
	if (!m.stopped)
		meter_stop(&m); /* the bench returned early: record why */
	p->n = n;
	p->batch = 1;
	p->samples = c->h->count;
	p->ops = m.ops;
	p->bytes = m.bytes;
	p->stop = m.stop;
	p->elapsed_s = (double)(end - m.start) / 1e9;
	point_throughput(p, p->elapsed_s);
	p->interval_s = (double)m.interval_ns / 1e9;
	p->series_ops = m.s_ops;
	p->series_bytes = m.s_bytes;
	p->nseries = m.nseries;
	p->extra = m.extra;
	hist_summary(c->h, &p->st);
	/* run(): the bench's load runs in the window (threads, its own
	 * processes), so the window is what is honest to count, process-wide */
	struct usage_acc acc;
	memset(&acc, 0, sizeof(acc));
	usage_acc_add(&acc, &u0, &u1, -1); /* threads: may exceed the wall time */
	point_usage(p, &acc, (double)p->ops, USAGE_PROCESS, USAGE_WINDOW);
	p->setup_cpu_s = p->setup_wall_s = NAN;
	p->peers = peers;
	p->placement = placed;
	point_set_bins(p, c->h);
	return 0;
}

/* A bench whose timed loop runs in another process (op_far, bench.h:
 * proc.syscall's caller): the point's CPU per op is that process's, its
 * "caller" side over the sampling window (the process's clock: its
 * untimed round trips are in it, its split, switches and faults are not
 * known: null), and the harness's own, waiting for it, becomes a side,
 * "harness". */
static void op_far_usage(struct point *p, double ops)
{
	json_t *cs = json_object_get(p->peers, "caller");
	double far = json_number_value(json_object_get(cs, "cpu_s"));
	if (!cs || !(ops > 0))
		return;
	usage_side_add(&p->peers, "harness", p->cpu_s * ops, 1, ops);
	json_object_del(p->peers, "caller");
	p->cpu_s = far;
	p->user_s = p->sys_s = p->vcsw = p->ivcsw = p->minflt = p->majflt = NAN;
	p->usage_counter = USAGE_PROCESS;
	p->usage_scope = USAGE_WINDOW;
}

/* Step 1 of measure_point, the warm-up: at least WARMUP_OPS operations
 * and WARMUP_S seconds (caches, branch predictors and CPU frequency
 * settle; a short loop reads ~10% slow on a virtual machine), at most a
 * quarter of the budget; the first WARMUP_OPS estimate the cost of one
 * (*est, ns). *w_timed, *w_all: the warm-up's timed and whole-sample time.
 * 0, or a negative errno (*phase says where). */
static int warm_up(struct ctx *c, double *est, uint64_t *w_timed, uint64_t *w_all,
		   const char **phase)
{
	const struct sweep_opts *o = c->o;
	uint64_t warm[WARMUP_OPS], el, now;
	int nw = 0, rc;
	uint64_t wstart = clock_ns();
	double wmin_s = c->short_warm ? 0 : o->budget_s * 0.1 < WARMUP_S ? o->budget_s * 0.1 : WARMUP_S;
	uint64_t wmin = (uint64_t)(wmin_s * 1e9), wcap = (uint64_t)(o->budget_s * 0.25e9);
	*w_timed = *w_all = 0;
	for (;;) {
		uint64_t s0 = clock_ns();
		if ((rc = sample(c, 1, &el, phase, 0)) < 0)
			return rc;
		if (nw < WARMUP_OPS)
			warm[nw++] = el;
		now = clock_ns();
		*w_timed += el;
		*w_all += now - s0;
		if ((nw >= WARMUP_OPS && now - wstart >= wmin) || (nw >= 2 && now - wstart >= wcap) ||
		    reg_stop_requested())
			break;
	}
	qsort(warm, (size_t)nw, sizeof(warm[0]), cmp_u64);
	*est = (double)warm[nw / 2];
	return 0;
}

/* Step 2: the batch size, once per sweep (on the first point) from the
 * warm-up's estimate of one operation (est, ns). */
static void choose_batch(struct ctx *c, double est)
{
	if (c->batch)
		return;
	double rc_ns = c->o->clk->read_cost_ns > 0 ? c->o->clk->read_cost_ns : 1;
	c->batch = 1;
	if (c->b->max_batch > 1 && est < BATCH_BELOW * rc_ns) {
		double k = ceil(BATCH_SPAN * rc_ns / (est > 1 ? est : 1));
		c->batch = k > c->b->max_batch ? c->b->max_batch : (unsigned)k;
	}
}

/* What a point's sampling used: acc, the timed regions' counters; w0, w1
 * the whole sampling's; start, its clock; timed_ns, its timed time. */
struct sampling {
	struct usage_acc acc;
	struct usage_read w0, w1;
	uint64_t start, timed_ns;
};

/* One block of up to BLOCK samples of k operations (and BLOCK_NS timed),
 * with nothing but the bench's prep between two, so that the loop is what
 * a bare reference loop is (prepare, time, store); the control's sample
 * after each, after the same prep. Ends at once on a signal, a failure,
 * or a sample over the operation timeout (*slow). *got samples, *spent
 * ns timed. 0, or a negative errno. */
static int sample_block(struct ctx *c, unsigned k, uint64_t *blk, uint64_t *ctl, unsigned *got,
			uint64_t *spent, int *slow, const char **phase)
{
	uint64_t timeout = (uint64_t)(c->o->op_timeout_s * 1e9);
	int rc = 0;
	*got = 0;
	*spent = 0;
	*slow = 0;
	while (*got < BLOCK && *spent < BLOCK_NS && !reg_stop_requested()) {
		if ((rc = sample(c, k, &blk[*got], phase, 0)) < 0)
			break;
		if (blk[*got] > timeout) {
			*slow = 1;
			break;
		}
		if (c->hc) { /* the control, after the same prep */
			if ((rc = sample(c, k, &ctl[*got], phase, 1)) < 0)
				break;
			if (ctl[*got] > timeout) {
				*slow = 1;
				break;
			}
		}
		*spent += blk[(*got)++];
	}
	return rc;
}

/* Step 3: samples, in blocks (sample_block); the histogram, the stop
 * conditions (the median's CI, the budget, a signal: p->stop) and the
 * deadline are looked at between blocks. The counters are read around
 * each sample's op loop where a sample's untimed work (prep, undo)
 * outweighs the op (per_sample: fs.fsync's re-write, net.accept's
 * connect), so that none of it counts; else around the block (reads
 * beside every op would cost it ~10%: fs.stat), its CPU capped at the
 * block's timed wall time, the untimed part being smaller. The peers'
 * window is opened here and left open. 0, or a negative errno. */
static int take_samples(struct ctx *c, unsigned k, int per_sample, struct point *p,
			struct sampling *sm, const char **phase)
{
	const struct sweep_opts *o = c->o;
	uint64_t blk_buf[BLOCK], ctl_buf[BLOCK];
	double units = (double)k * (double)(c->env.per_op_units ? c->env.per_op_units : 1);
	hist_reset(c->h);
	if (c->hc)
		hist_reset(c->hc);
	memset(&sm->acc, 0, sizeof(sm->acc));
	sm->acc.region_cost_s = usage_region_cost();
	c->acc = per_sample ? &sm->acc : NULL;
	sm->timed_ns = 0;
	struct usage_read b0, b1;
	peers_open(&c->env);
	usage_begin(&sm->w0);
	sm->start = clock_ns();
	uint64_t deadline = sm->start + (uint64_t)(o->budget_s * 1e9);
	uint64_t next_check = o->min_samples;
	p->stop = STOP_BUDGET;
	for (;;) {
		unsigned got;
		uint64_t spent;
		int slow;
		if (!per_sample)
			usage_begin(&b0);
		int rc = sample_block(c, k, blk_buf, ctl_buf, &got, &spent, &slow, phase);
		if (!per_sample) {
			usage_end(&b1);
			usage_acc_add(&sm->acc, &b0, &b1, (double)spent / 1e9);
		}
		sm->timed_ns += spent;
		for (unsigned i = 0; i < got; i++)
			hist_add(c->h, (double)blk_buf[i] / units);
		for (unsigned i = 0; c->hc && i < got; i++)
			hist_add(c->hc, (double)ctl_buf[i] / units);
		if (rc < 0)
			return rc;
		if (slow) {
			c->env.failed_call = c->b->op_desc;
			return -ETIMEDOUT;
		}
		if (reg_stop_requested()) {
			p->stop = STOP_INTERRUPT;
			break;
		}
		uint64_t now = clock_ns();
		if (c->h->count >= next_check) {
			if (hist_median_ci_rel(c->h) <= o->ci_target) {
				p->stop = STOP_CI;
				break;
			}
			next_check = c->h->count + c->h->count / 4 + 1;
		}
		if (now >= deadline || (prof_armed && !prof_inline && profile_enough(prof_live))) {
			p->stop = STOP_BUDGET;
			break;
		}
	}
	usage_end(&sm->w1);
	c->acc = NULL;
	return 0;
}

/* Step 4: the point's figures from its samples (k operations each):
 * summary, throughput over the timed time, CPU and faults per op, the
 * untimed setup per sample, the peers' and the children's share, the
 * placement record; closes the peers' window. */
static void fill_point(struct ctx *c, uint64_t n, unsigned k, struct point *p,
		       const struct sampling *sm)
{
	p->n = n;
	p->batch = k;
	p->samples = c->h->count;
	p->ops = c->h->count * k;
	p->elapsed_s = (double)(clock_ns() - sm->start) / 1e9;
	hist_summary(c->h, &p->st);
	if (c->hc) {
		hist_summary(c->hc, &p->ctl);
		p->has_ctl = 1;
	}
	p->bytes = c->env.bytes_per_op * p->ops;
	point_throughput(p, c->h->mean * (double)c->h->count * k / 1e9); /* timed time only */
	double per_unit = (double)(c->env.per_op_units ? c->env.per_op_units : 1);
	point_usage(p, &sm->acc, (double)p->ops * per_unit, usage_counter(), USAGE_TIMED);
	if (p->samples) {
		double untimed = (sm->w1.cpu_s - sm->w0.cpu_s) - sm->acc.cpu_s;
		p->setup_cpu_s = (untimed > 0 ? untimed : 0) / (double)p->samples;
		double uw = p->elapsed_s - (double)sm->timed_ns / 1e9;
		p->setup_wall_s = (uw > 0 ? uw : 0) / (double)p->samples;
	} else {
		p->setup_cpu_s = p->setup_wall_s = NAN;
	}
	p->peers = peers_close(&c->env, (double)p->ops * per_unit);
	p->placement = place_take();
	/* children reaped in the timed region (proc.fork's) are a side too */
	usage_side_add(&p->peers, "children", sm->acc.kid_user_s + sm->acc.kid_sys_s, 0,
		       (double)p->ops * per_unit);
	if (c->b->op_far)
		op_far_usage(p, (double)p->ops * per_unit);
	point_set_bins(p, c->h);
}

/* One point at the load N = n (already built): set_n, then a run() bench
 * measured by its meter (measure_run), any other in the steps above:
 * warm-up, batch, samples, figures. A failure is first-failure data in
 * *fail, the window closed. */
static int measure_point(struct ctx *c, uint64_t n, struct point *p, struct failure **fail)
{
	const char *phase = "op";
	int rc;

	p->cpu_start = sys_current_cpu();
	if (c->b->set_n && (rc = c->b->set_n(c->st, n)) < 0) {
		*fail = sweep_failure_errno("set_n", c->env.failed_call, n, -rc);
		return rc;
	}
	if (c->b->run) {
		rc = measure_run(c, n, p, fail);
		p->cpu_end = sys_current_cpu();
		return rc;
	}
	double est;
	uint64_t w_timed, w_all;
	if ((rc = warm_up(c, &est, &w_timed, &w_all, &phase)) < 0)
		goto failed;
	prof_armed = prof_live != NULL; /* a profiled point samples from here on */
	choose_batch(c, est);
	struct sampling sm;
	int per_sample = (c->b->prep || c->b->undo) && w_all - w_timed > w_timed;
	if ((rc = take_samples(c, c->batch, per_sample, p, &sm, &phase)) < 0)
		goto failed;
	fill_point(c, n, c->batch, p, &sm);
	p->cpu_end = sys_current_cpu();
	return 0;

failed:
	c->acc = NULL;
	peers_abandon(&c->env);
	*fail = sweep_failure_errno(phase, c->env.failed_call ? c->env.failed_call : c->b->op_desc, n,
				    -rc);
	return rc;
}

/* ---- the machine-speed probe around a point (probe.h) ---- */

/* A reading's slowness against ref, which a faster reading lowers (the
 * reference is the fastest the run has seen). */
static double probe_read(struct probe *p, struct probe *ref)
{
	probe_take(p);
	double s = probe_slowness(p, ref);
	probe_min(ref, ref, p);
	return s;
}

/* ---- the point's CPU ----
 * A virtual machine's host may slow one vCPU at a time: on this project's
 * 2-vCPU guest, for stretches of 1-12 s (17% of two minutes, either CPU),
 * one of them took a page fault 1.3-1.46x as long as the other and a
 * system call 1.1x, its loop no slower (docs/method.md, "Slowed CPUs").
 * A bench whose operation runs in the harness's thread alone
 * (BENCH_ONE_THREAD), whose thread may run on 2 to POINT_PICK_MAX CPUs,
 * not under run --tasks, runs each point on the CPU whose probe reading
 * just before it is the fastest: the harness thread is pinned there for
 * the point (and for the load built after it, until the next point's
 * pick), and its CPUs are restored at the repetition's end. */
static void pick_begin(struct ctx *c)
{
	c->npick = 0;
	if (!(c->b->flags & BENCH_ONE_THREAD) || c->o->tasks)
		return;
	int k = sys_get_pinned(c->pick_saved, SYS_MAX_CPUS);
	if (k < 2 || k > POINT_PICK_MAX)
		return;
	for (int i = 0; i < SYS_MAX_CPUS; i++)
		if (c->pick_saved[i])
			c->pick_cpu[c->npick++] = i;
}

static void pick_end(struct ctx *c)
{
	if (c->npick)
		sys_pin_set(c->pick_saved, SYS_MAX_CPUS);
	c->npick = 0;
}

/* The shadow of recent deletions (result.h, INODE_SHADOW): on an ext2/3/4
 * without a journal, before each point of a bench whose op makes inodes,
 * the median time of INODE_PROBE_K file creations and as many hard links
 * in the bench's own directory, where its files are made: an inode comes
 * from its directory's (flex) group, and a directory beside it may sit in
 * another. A link makes a directory entry as a create does, without an
 * inode: their ratio is the inode allocation's share, 1.3-1.7 here without
 * recent deletions. Before each point, not once before the sweep: the scan
 * for a free inode passes the recently deleted ones before the first
 * usable one, so its cost rises as the sweep's own files use up the usable
 * ones among them (on /tmp a probe before the sweep read a create at 2.7
 * links, at 11 us, and fs.create's first points then cost 130-180 us,
 * 10 us from N = 2,000 on, where its files had moved to another group).
 * The files and links are then moved (renamed: no deletion, which would
 * cast the shadow measured) into c->inofd, a directory beside the bench's
 * kept with its trees, which also holds the file linked ("src"). */
#define INODE_PROBE_K 16

static void inode_probe(struct ctx *c, struct point *p)
{
	double cr[INODE_PROBE_K], ln[INODE_PROBE_K];
	char name[48];
	int made = 0, first = c->inoseq; /* names made in the bench's directory: f l f l ... */
	for (int k = 0; k < INODE_PROBE_K; k++, made += 2) {
		snprintf(name, sizeof(name), ".sb-inode-f%d", first + k);
		uint64_t t0 = clock_ns();
		int fd = openat(c->env.dirfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
		uint64_t t1 = clock_ns();
		if (fd < 0)
			break;
		close(fd);
		snprintf(name, sizeof(name), ".sb-inode-l%d", first + k);
		uint64_t t2 = clock_ns();
		int rc = linkat(c->inofd, "src", c->env.dirfd, name, 0);
		uint64_t t3 = clock_ns();
		if (rc) {
			made++;
			break;
		}
		cr[k] = (double)(t1 - t0);
		ln[k] = (double)(t3 - t2);
	}
	for (int m = 0; m < made; m++) { /* out of the bench's way, untimed */
		snprintf(name, sizeof(name), ".sb-inode-%c%d", m % 2 ? 'l' : 'f', first + m / 2);
		renameat(c->env.dirfd, name, c->inofd, name + 1);
	}
	c->inoseq += INODE_PROBE_K;
	if (made < 2 * INODE_PROBE_K)
		return;
	p->inode_create_ns = cmp_median(cr, INODE_PROBE_K);
	p->inode_link_ns = cmp_median(ln, INODE_PROBE_K);
}

/* The reading before a point: on each CPU of the pick, the thread pinned
 * to it, then pinned to the fastest (into p's pick_*), else where it
 * runs; its slowness. A CPU the thread cannot be pinned to ends the pick
 * (the thread's CPUs restored). */
static double probe_before(struct ctx *c, struct probe *out, struct probe *ref, struct point *p)
{
	if (!c->npick)
		return probe_read(out, ref);
	struct probe r[POINT_PICK_MAX];
	if (probe_on_cpus(c->pick_cpu, c->npick, 1, r)) {
		pick_end(c);
		p->npick = 0;
		return probe_read(out, ref);
	}
	int best = probe_fastest(r, c->npick, ref, p->pick_slow);
	for (int i = 0; i < c->npick; i++) {
		p->pick_cpu[i] = c->pick_cpu[i];
		probe_min(ref, ref, &r[i]);
	}
	p->npick = c->npick;
	sys_pin_thread(c->pick_cpu[best]);
	*out = r[best];
	return p->pick_slow[best];
}

/* measure_point between two probe readings; the point's slowness is the
 * smaller of the two. */
static int measure_probed(struct ctx *c, uint64_t n, struct point *p, struct failure **fail,
			  struct probe *ref)
{
	struct probe before, after;
	struct waitmark wm;
	if (c->inofd >= 0)
		inode_probe(c, p);
	double s0 = probe_before(c, &before, ref, p); /* measure_point leaves p's pick as it is */
	wait_mark(&c->env, &wm);
	int rc = measure_point(c, n, p, fail);
	if (rc < 0)
		return rc;
	wait_since(&c->env, &wm, &p->tasks_run, &p->tasks_wait, &p->cpu_lost);
	p->lost_between = (c->b->flags & BENCH_ONE_THREAD) && !c->o->tasks && point_samples_unswitched(p);
	double s1 = probe_read(&after, ref);
	p->has_probe = 1;
	p->probe[0] = before;
	p->probe[1] = after;
	/* slow only if slow on both sides: one reading is one instant */
	p->slowness = isnan(s0) ? s1 : isnan(s1) ? s0 : (s0 < s1 ? s0 : s1);
	p->slowness_first = p->p50_first = p->cpu_lost_first = NAN;
	return 0;
}

/* Whether another process shares this thread's CPU now: spinning for
 * STEADY_TICK_MS, the thread waited CPU_LOST_CROWDED of it or more for
 * the CPU (0 where the system keeps no account). */
static int crowded_now(void)
{
	int pid = (int)getpid(), tid = sys_thread_id();
	double r0, w0, r1, w1;
	if (tid < 0 || sys_task_sched(pid, tid, &r0, &w0))
		return 0;
	uint64_t t0 = clock_ns(), t1;
	while ((t1 = clock_ns()) - t0 < STEADY_TICK_MS * 1000000u)
		;
	if (sys_task_sched(pid, tid, &r1, &w1))
		return 0;
	return w1 - w0 >= CPU_LOST_CROWDED * (double)(t1 - t0) / 1e9;
}

/* A point whose probe read the machine slow, that was crowded, or that
 * jumped above the point before it (result.h, point_again_why) is measured
 * again (the load is still N: an op leaves it unchanged), after waiting
 * for a steady probe reading or a CPU of its own, at most POINT_AGAIN_MAX
 * times and while the time spent so in the repetition (*again_ns) stays
 * within its share of the repetition's time; the measurement kept is
 * point_again_better's, and the point says how many times it was measured
 * again and the first measurement's slowness, median and CPU lost
 * (point_again_take). A jump measured again and still up is a real step,
 * not a stretch. A failure while measuring again is the repetition's (in
 * *fail); p is kept. */
static void remeasure(struct ctx *c, uint64_t n, struct point *p, const struct point *prev,
		      struct failure **fail, struct probe *ref, uint64_t rep_t0, uint64_t *again_ns)
{
	const struct sweep_opts *o = c->o;
	double frac = o->remeasure_frac > 0 ? o->remeasure_frac : o->quick ? 0.25 : 0.5;
	uint64_t wait_ns = (uint64_t)STEADY_WAIT_MS * 1000000u / (o->quick ? 2 : 1);
	int load = c->b->axis_kind == AXIS_LOAD;
	double ref_p50 = prev ? prev->st.p50 : 0;
	int why;
	while (!o->no_remeasure && (why = point_again_why(p, load, ref_p50)) &&
	       p->remeasured < POINT_AGAIN_MAX && !reg_stop_requested() &&
	       p->stop != STOP_INTERRUPT) {
		uint64_t t0 = clock_ns(), cost = (uint64_t)(p->elapsed_s * 1e9);
		if ((double)(*again_ns + cost) > frac * (double)(t0 - rep_t0))
			break;
		/* wait for the machine to come back, a while at most (with a
		 * pick, the next measurement's own reading picks the fastest CPU) */
		for (; why == POINT_AGAIN_SLOW && !c->npick;) {
			struct probe q;
			if (probe_read(&q, ref) < PROBE_SLOW || clock_ns() - t0 >= wait_ns ||
			    reg_stop_requested())
				break;
			struct timespec ts = {0, STEADY_TICK_MS * 1000000L};
			nanosleep(&ts, NULL);
		}
		while (why == POINT_AGAIN_CROWDED && crowded_now() && clock_ns() - t0 < wait_ns &&
		       !reg_stop_requested())
			; /* another process shares this CPU: until it goes, a while at most */
		struct point q;
		memset(&q, 0, sizeof(q));
		int rc = measure_probed(c, n, &q, fail, ref);
		*again_ns += clock_ns() - t0;
		if (rc < 0)
			break;
		point_again_take(p, &q, q.stop == STOP_INTERRUPT || point_again_better(p, &q, load));
		if (p->stop == STOP_INTERRUPT)
			break;
		if (why == POINT_AGAIN_JUMP && p->st.p50 > POINT_JUMP_RATIO * ref_p50)
			break; /* measured again and still up: a real step, not a stretch */
	}
}

static void report(const struct sweep_opts *o, struct sweep_progress *pr)
{
	if (o->progress)
		o->progress(o->progress_ctx, pr);
}

/* Say when the untimed work of a sample (prep, undo) dwarfs the op, at
 * the largest N measured: it is in setup_per_sample, not in per_op. */
/* A bench of the families that make and delete files by the thousand
 * (fs, work) on an ext2/3/4 file system without a journal, where the cost
 * of each file made depends on how many were deleted in the minutes
 * before (sys.h: sys_fs_journal): said, since no figure of the run shows
 * it. */
static void journal_note(struct bench_result *out, const struct bench *b, const char *dir, int keep)
{
	if (!bench_makes_files(b->name) || sys_fs_journal(dir) != 0)
		return;
	char type[32];
	sys_fs_type(dir, type, sizeof(type));
	bench_add_note(out,
		       "the scratch file system (%s) has no journal: it does not reuse an inode within "
		       "60 s of its deletion (5 min while the inode's table block is unwritten), and "
		       "every file made meanwhile scans past them (the kernel's recently_deleted); so "
		       "that its files do not pay for deletions of its own, what a directory bench removes "
		       "between samples is moved aside and its trees stay until the run's end%s, but "
		       "deletions in the minutes before the run (an earlier run's, anything else on "
		       "this file system) still cost; for steady figures use a file system with a "
		       "journal, tmpfs, or matrix --fresh (docs/method.md)",
		       type, keep ? "" : " (not this time: under a quarter of its inodes or blocks "
				       "free, so each tree went at once)");
}

/* Whether a repetition's directory (and its spent directory, bench.h)
 * stays until the run's end instead of being removed after it: for the
 * benches of journal_note, so that no bench's figures pay for an earlier
 * one's deletions, while the file system keeps a quarter of its inodes
 * and blocks free (else the tree goes at once, as elsewhere). */
static int keep_trees(const struct bench *b, const struct sweep_opts *o)
{
	struct statvfs v;
	if (!o->scratch || !bench_makes_files(b->name) || sys_fs_journal(o->scratch) != 0 ||
	    statvfs(o->scratch, &v))
		return 0;
	return v.f_files > 0 && v.f_favail >= v.f_files / 4 && v.f_bavail >= v.f_blocks / 4;
}

static void setup_note(struct bench_result *out, const struct repetition *rep, uint64_t units)
{
	if (!rep->npts)
		return;
	const struct point *p = &rep->pts[rep->npts - 1];
	double per_sample = p->cpu_s * (double)p->batch * (double)(units ? units : 1);
	if (!(p->setup_cpu_s > SETUP_NOTE_RATIO * per_sample) || !(per_sample > 0))
		return;
	char a[32], b[32];
	bench_add_note(out,
		       "untimed work before/after each sample (prep, undo) takes %s of CPU at N=%llu, "
		       "%.0fx the timed operations' %s: reported apart (setup_per_sample), not per op",
		       fmt_ns(p->setup_cpu_s * 1e9, a, sizeof(a)), (unsigned long long)p->n,
		       p->setup_cpu_s / per_sample, fmt_ns(per_sample * 1e9, b, sizeof(b)));
}

/* The sampling period of a profiled point after the timed point timed:
 * the base period, but for a point that ran well past its budget (a whole
 * workload, which cannot end early) a longer one, about `samples` over
 * the CPU the timed point took (its own process's and its peers'). */
static uint64_t profile_period(const struct point *timed, double budget_s, double samples)
{
	if (!timed || !(timed->elapsed_s > 2 * budget_s) || !(timed->ops > 0))
		return PROFILE_PERIOD_NS;
	double cpu = timed->cpu_s > 0 ? timed->cpu_s : 0;
	const char *k;
	json_t *v;
	json_object_foreach(timed->peers, k, v)
		cpu += json_number_value(json_object_get(v, "cpu_s"));
	cpu *= (double)timed->ops * 1e9; /* ns of CPU over the point */
	double per = cpu / samples;
	return isfinite(per) && per > PROFILE_PERIOD_NS ? (uint64_t)per : PROFILE_PERIOD_NS;
}

/* run --profile: a profiled point at N = n right after the timed point
 * (timed) of the same N, measured as it was (its warm-up down to
 * WARMUP_OPS: the timed point warmed the same N) until PROFILE_TARGET_SAMPLES
 * samples fell in its timed regions or for as long as the timed point's
 * sampling (at least a quarter of the budget, from PROFILE_MIN_QUICK_S to
 * PROFILE_MIN_S; at most the budget), whichever ends
 * first, with the sampling events on around the timed regions; kept apart
 * from the repetition, so the verdict's figures are those of a run
 * without it. Adds its wall time to *wall_s. */
static void profile_at(struct ctx *c, uint64_t n, struct profile *pf, const struct point *timed,
		       double *wall_s)
{
	uint64_t t0 = clock_ns();
	struct sweep_opts po = *c->o;
	double span = timed ? timed->elapsed_s : po.budget_s; /* NULL: an N of --profile-at alone */
	double floor_s = po.budget_s / 4;
	floor_s = floor_s < PROFILE_MIN_QUICK_S ? PROFILE_MIN_QUICK_S
		  : floor_s > PROFILE_MIN_S	  ? PROFILE_MIN_S
						  : floor_s;
	double want = span > floor_s ? span : floor_s;
	double budget = c->b->run && (c->b->flags & BENCH_FULL_BUDGET) && po.run_budget_s > 0
				? po.run_budget_s
				: po.budget_s;
	uint64_t period = profile_period(timed, budget, PROFILE_WORKLOAD_SAMPLES);
	if (want < po.budget_s || (c->b->run && want < po.run_budget_s))
		po.budget_s = po.run_budget_s = want;
	po.ci_target = -1; /* no early stop on the median: the samples need the time */
	const struct sweep_opts *saved = c->o;
	c->o = &po;
	c->short_warm = timed != NULL;
	if (profile_point_begin(pf, &c->env, n, period) == 0) {
		struct point pt;
		struct failure *f = NULL;
		memset(&pt, 0, sizeof(pt));
		prof_live = pf;
		int rc = measure_point(c, n, &pt, &f);
		prof_live = NULL;
		prof_armed = 0;
		if (rc < 0) {
			profile_point_fail(pf, f ? f->msg : strerror(-rc));
		} else {
			profile_point_end(pf, &pt, timed);
		}
		if (f) {
			json_decref(f->state);
			free(f);
		}
		point_clear(&pt);
	}
	c->short_warm = 0;
	c->o = saved;
	*wall_s += (double)(clock_ns() - t0) / 1e9;
}

/* run --profile on a bench whose points each run a whole workload
 * (BENCH_WHOLE_RUN): the timed point at a profiled N is itself sampled,
 * rather than followed by a profiled point that would run the whole
 * workload again, at a long period (PROFILE_WHOLE_PERIOD_NS, or about
 * PROFILE_TARGET_SAMPLES over the CPU of the point before: what sampling
 * adds to the timed point's CPU stays within 2%). Only its first
 * measurement is sampled (one measured again is not). Before the point: 1
 * when sampling is on. */
static int profile_inline_begin(struct ctx *c, uint64_t n, struct profile *pf,
				const struct point *prev, double *wall_s)
{
	uint64_t t0 = clock_ns();
	double budget = c->o->run_budget_s > 0 ? c->o->run_budget_s : c->o->budget_s;
	uint64_t period = prev ? profile_period(prev, budget, PROFILE_TARGET_SAMPLES)
			       : PROFILE_WHOLE_PERIOD_NS;
	if (period < PROFILE_WHOLE_PERIOD_NS)
		period = PROFILE_WHOLE_PERIOD_NS;
	int on = profile_point_begin(pf, &c->env, n, period) == 0;
	if (on) {
		prof_live = pf;
		prof_inline = 1;
	}
	*wall_s += (double)(clock_ns() - t0) / 1e9;
	return on;
}

/* After it (rc: the measurement's; pt: the point measured, before any
 * measurement again). */
static void profile_inline_end(struct profile *pf, int rc, const struct point *pt,
			       const struct failure *f, double *wall_s)
{
	uint64_t t0 = clock_ns();
	prof_live = NULL;
	prof_armed = prof_inline = 0;
	if (rc < 0)
		profile_point_fail(pf, f ? f->msg : strerror(-rc));
	else
		profile_point_end(pf, pt, pt);
	*wall_s += (double)(clock_ns() - t0) / 1e9;
}

/* The N of a repetition's sweep: the bench's series to max_n, with
 * --min-n the points from min_n on (at least the last). */
static int rep_series(const struct bench *b, const struct sweep_opts *o, uint64_t max_n,
		      uint64_t *series)
{
	int np = sweep_series_for(b, max_n, series, SWEEP_MAX_POINTS);
	if (o->min_n) {
		int k = 0;
		for (int i = 0; i < np; i++)
			if (series[i] >= o->min_n || (i == np - 1 && k == 0))
				series[k++] = series[i];
		np = k;
	}
	return np;
}

/* Grows the load from *have to target (reporting every 1024 steps, a
 * stop request ends it early: the caller looks); < 0 when the bench's
 * grow failed (rep->fail says where). */
static int grow_to(struct ctx *c, struct repetition *rep, uint64_t *have, uint64_t target,
		   struct sweep_progress *pr)
{
	int rc;
	for (; c->b->grow && *have < target; (*have)++) {
		if ((*have & 1023) == 0) {
			if (reg_stop_requested())
				break;
			pr->n = *have;
			report(c->o, pr);
		}
		if ((rc = c->b->grow(c->st, *have)) < 0) {
			rep->fail = sweep_failure_errno("grow", c->env.failed_call, *have, -rc);
			return rc;
		}
	}
	return 0;
}

/* --profile-at N outside the sweep: a note each, not profiled. */
static void profile_outside(struct profile *pf, const uint64_t *at, int nat, const uint64_t *series,
			    int np)
{
	for (int k = 0; k < nat && np > 0; k++)
		if (at[k] < series[0] || at[k] > series[np - 1]) {
			char m[160];
			snprintf(m, sizeof(m), "--profile-at %llu: outside this sweep (N=%llu to %llu): not "
					       "profiled",
				 (unsigned long long)at[k], (unsigned long long)series[0],
				 (unsigned long long)series[np - 1]);
			profile_note(pf, m);
		}
}

/* The profile of the repetition into the bench result (a note when the
 * sweep stopped before its largest N, which then has no profiled point). */
static void profile_end(struct profile *pf, const struct repetition *rep, const uint64_t *series,
			int np, struct bench_result *out, double prof_wall)
{
	if (rep->npts && rep->pts[rep->npts - 1].n != series[np - 1]) {
		char m[160];
		snprintf(m, sizeof(m), "the sweep stopped at N=%llu before its largest N (%llu): no "
				       "profiled point there",
			 (unsigned long long)rep->pts[rep->npts - 1].n, (unsigned long long)series[np - 1]);
		profile_note(pf, m);
	}
	json_decref(out->profile);
	out->profile = profile_finish(pf, prof_wall);
}

static int run_rep(const struct bench *b, const struct sweep_opts *o, int repi,
		   struct bench_result *out, struct hist *h, struct hist *hc)
{
	struct repetition *rep = bench_add_rep(out);
	if (!rep)
		return -ENOMEM;
	uint64_t series[SWEEP_MAX_POINTS];
	uint64_t max_n = out->max_n;
	int np = rep_series(b, o, max_n, series);

	/* <bench>.<repetition>; -2, -3... when an earlier variant's or
	 * round's tree of that name is kept till the run's end (keep_trees) */
	char name[64], dir[4096];
	for (int k = 1;; k++) {
		if (k == 1)
			snprintf(name, sizeof(name), "%s.%d", b->name, repi + 1);
		else
			snprintf(name, sizeof(name), "%s.%d-%d", b->name, repi + 1, k);
		int n = snprintf(dir, sizeof(dir), "%s/%s", o->scratch, name);
		if (n < 0 || (size_t)n >= sizeof(dir))
			return -ENAMETOOLONG;
		if (!mkdir(dir, BENCH_DIR_MODE))
			break;
		if (errno != EEXIST || k >= 10000)
			return -errno;
	}

	struct ctx c;
	memset(&c, 0, sizeof(c));
	c.b = b;
	c.o = o;
	c.h = h;
	c.hc = hc;
	c.env.dir = dir;
	c.env.max_n = max_n;
	c.env.quick = o->quick;
	c.env.params = out->params;
	c.env.bench = b;
	c.env.max_latency_ns = o->max_latency_ns;
	c.env.net = sweep_net(o);
	c.env.dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (c.env.dirfd < 0)
		return -errno;
	char spent[4200];
	int keep = keep_trees(b, o);
	snprintf(spent, sizeof(spent), "%s.spent", dir);
	if (keep && !mkdir(spent, BENCH_DIR_MODE)) {
		c.env.spent_fd = open(spent, O_RDONLY | O_DIRECTORY);
		c.env.has_spent = c.env.spent_fd >= 0;
	}

	/* the shadow of recent deletions, before each point (inode_probe) */
	char inodes[4200];
	c.inofd = -1;
	snprintf(inodes, sizeof(inodes), "%s.inodes", dir);
	if ((b->flags & BENCH_MAKES_INODES) && o->scratch && sys_fs_journal(o->scratch) == 0 &&
	    !mkdir(inodes, BENCH_DIR_MODE)) {
		c.inofd = open(inodes, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		int fd = c.inofd < 0 ? -1
				     : openat(c.inofd, "src", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
					      0600);
		if (fd >= 0) {
			close(fd);
		} else { /* not probed */
			if (c.inofd >= 0)
				close(c.inofd);
			c.inofd = -1;
			reg_remove_tree(inodes);
		}
	}

	struct sweep_progress pr = {.bench = b->name, .rep = repi + 1, .nreps = o->repeat,
				    .npoints = np};
	int harness_rc = 0, nsaved;
	unsigned char saved[SYS_MAX_CPUS]; /* the CPUs allowed before placement */
	place_bench(b, &c.env, out, saved, &nsaved);
	int rc = b->setup ? b->setup(&c.env, &c.st) : 0;
	if (rc == BENCH_SKIP) {
		if (c.st && b->teardown)
			b->teardown(c.st);
		out->status = BS_SKIPPED;
		free(out->skip_reason);
		out->skip_reason = strdup(c.env.skip[0] ? c.env.skip : "skipped by the bench");
		rc = 0;
		goto out;
	}
	if (rc < 0) {
		rep->fail = sweep_failure_errno("setup", c.env.failed_call, 0, -rc);
		if (c.st && b->teardown) /* a setup that failed half-way undoes here */
			b->teardown(c.st);
		goto out;
	}
	pick_begin(&c);
	uint64_t rep_t0 = clock_ns(), again_ns = 0;
	struct probe ref; /* the fastest reading seen: the run's, lowered by ours */
	if (o->has_probe_ref)
		ref = o->probe_ref;
	else
		probe_reference(&ref, 3);
	/* run --profile: in the last repetition, at its first and last N */
	struct profile *pf = o->profile && repi == o->repeat - 1
				     ? profile_new(b, b->op_far ? "caller" : "bench", o->scratch)
				     : NULL;
	double prof_wall = 0;
	uint64_t have = 0, at[PROFILE_AT_MAX];
	char at_err[160];
	int nat = pf ? profile_at_parse(o->profile_at, at, at_err, sizeof(at_err)) : 0, iat = 0;
	for (int i = 0; i < np; i++) {
		uint64_t target = series[i];
		while (iat < nat && at[iat] < series[0])
			iat++; /* below the sweep: said at its end */
		/* --profile-at N between two points: grown to on the way, profiled alone */
		int alone = iat < nat && at[iat] < target;
		if (alone)
			target = at[iat];
		pr.point = i + 1;
		pr.growing = 1;
		if ((rc = grow_to(&c, rep, &have, target, &pr)) < 0)
			goto done;
		if (reg_stop_requested()) {
			rep->interrupted = 1;
			break;
		}
		if (alone) {
			profile_at(&c, target, pf, NULL, &prof_wall);
			iat++;
			i--; /* then on to the series' point */
			continue;
		}
		pr.growing = 0;
		pr.n = target;
		report(o, &pr);
		struct point pt;
		memset(&pt, 0, sizeof(pt));
		int asked = iat < nat && at[iat] == target;
		int profiled = pf && (i == 0 || i == np - 1 || asked) && !reg_stop_requested();
		int inl = profiled && (b->flags & BENCH_WHOLE_RUN) && !o->profile_apart &&
			  profile_inline_begin(&c, target, pf, rep->npts ? &rep->pts[rep->npts - 1] : NULL,
					       &prof_wall);
		rc = measure_probed(&c, target, &pt, &rep->fail, &ref);
		if (inl)
			profile_inline_end(pf, rc, &pt, rep->fail, &prof_wall);
		if (rc < 0)
			break;
		remeasure(&c, target, &pt, rep->npts ? &rep->pts[rep->npts - 1] : NULL, &rep->fail,
			  &ref, rep_t0, &again_ns);
		if ((harness_rc = rep_keep_point(rep, &pt)) < 0 || rep->interrupted || rep->fail)
			break;
		iat += asked;
		/* a workload's point that took at most two budgets of another
		 * bench's point (work.round2 at its smallest N, 0.1-0.3 s in the
		 * quick suite) is short enough to run again: profiled as the other
		 * benches' points are, at their period, its samples taken in the
		 * timed point dropped */
		const struct point *kept = &rep->pts[rep->npts - 1];
		int again = inl && !(kept->elapsed_s > 2 * o->budget_s);
		if (again)
			profile_point_drop(pf);
		if (profiled && (!inl || again) && !reg_stop_requested())
			profile_at(&c, target, pf, kept, &prof_wall);
	}
	if (pf)
		profile_outside(pf, at, nat, series, np);
done:
	pick_end(&c);
	if (b->teardown)
		b->teardown(c.st);
	if (pf)
		profile_end(pf, rep, series, np, out, prof_wall);
out:
	if (nsaved)
		sys_pin_set(saved, SYS_MAX_CPUS);
	if (c.env.note[0])
		bench_add_note(out, "%s", c.env.note); /* identical notes are kept once */
	if (c.inofd >= 0)
		close(c.inofd);
	close(c.env.dirfd);
	if (c.env.has_spent)
		close(c.env.spent_fd);
	/* kept: removed with the run's scratch directory at its end */
	keep = keep && keep_trees(b, o);
	const char *gone = dir;
	int rr = keep ? 0 : reg_remove_tree(dir);
	if (!rr && !keep)
		rr = reg_remove_tree(gone = spent);
	if (!rr && !keep && c.inofd >= 0) /* closed above; it was made */
		rr = reg_remove_tree(gone = inodes);
	if (rr)
		bench_add_note(out, "could not remove %s: %s", gone, strerror(-rr));
	if (repi == 0) { /* once per bench, from the first repetition */
		setup_note(out, rep, c.env.per_op_units);
		journal_note(out, b, o->scratch, keep);
	}
	rep_fit(rep, (int)b->axis_kind);
	return harness_rc; /* a bench's own failure (even ENOMEM) is data, in rep->fail */
}

int sweep_bench(const struct bench *b, const struct sweep_opts *o, struct bench_result *out)
{
	if (o->tasks) { /* K tasks at the base load instead of one over N (tasks.c) */
		if (o->profile && !out->profile)
			out->profile = json_pack("{s:s}", "unavailable", "not with run --tasks");
		return tasks_sweep(b, o, out);
	}
	out->max_n = sweep_max_n(b, o);
	struct hist *h = hist_new(), *hc = b->control && !b->run ? hist_new() : NULL;
	if (!h || (b->control && !b->run && !hc)) {
		hist_free(h);
		hist_free(hc);
		return -ENOMEM;
	}
	int rc = 0;
	out->status = BS_OK;
	mode_t um = umask(022); /* the modes of bench.h, whatever the user's umask */
	int first = o->rep_first, count = o->rep_count ? o->rep_count : o->repeat - o->rep_first;
	for (int r = first; r < first + count && !reg_stop_requested(); r++) {
		if ((rc = run_rep(b, o, r, out, h, hc)) < 0 || out->status == BS_SKIPPED)
			break;
	}
	umask(um);
	hist_free(h);
	hist_free(hc);
	verdict_settle(out, count);
	return rc;
}

int sweep_measure_point(void *ctx, uint64_t n, struct point *pt)
{
	const struct sweep_here *h = ctx;
	struct sweep_opts one;
	verdict_point_opts(h->so, n, &one);
	struct bench_result got;
	memset(&got, 0, sizeof(got));
	got.params = h->br->params ? json_deep_copy(h->br->params) : NULL;
	if (h->br->params && !got.params) {
		fprintf(stderr, "scalebench: %s: out of memory\n", h->b->name);
		return -1;
	}
	int rc = sweep_bench(h->b, &one, &got);
	if (rc < 0)
		fprintf(stderr, "scalebench: %s: harness failure: %s\n", h->b->name, strerror(-rc));
	rc = rc < 0 ? -1 : verdict_take_point(&got, pt);
	bench_result_clear(&got);
	return rc;
}
