/* SPDX-License-Identifier: MIT */
/* The sweep driver with synthetic benches that run through the real core:
 * series, a linear-cost bench gets O(n), a constant one O(1), a tiny op
 * gets batch timing, a failing grow or op gives first-failure data at the
 * right N, an interrupt stops the sweep and is recorded. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/clock.h"
#include "core/registry.h"
#include "core/sweep.h"
#include "t.h"
#include "t_result.h"

struct st { uint64_t n; uint64_t calls; struct bench_env *env; };
static int fail_grow_errno = EMFILE;
static uint64_t fail_grow_at = UINT64_MAX, fail_op_at_n = UINT64_MAX, interrupt_after = UINT64_MAX;
static uint64_t slow_at_n = UINT64_MAX; /* from this N on, an op takes 200 ms */
static double per_n_ns, base_ns = 3000;

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	s->env = env;
	*state = s;
	return 0;
}
static int grow(void *state, uint64_t i)
{
	struct st *s = state;
	if (i == fail_grow_at) {
		errno = fail_grow_errno;
		return bench_fail(s->env, "synthetic grow");
	}
	s->n = i + 1;
	return 0;
}
static int spin_op(void *state, unsigned slot)
{
	struct st *s = state;
	(void)slot;
	if (++s->calls == interrupt_after)
		reg_interrupted = SIGINT;
	if (s->n >= fail_op_at_n) {
		errno = EIO;
		return bench_fail(s->env, "synthetic op");
	}
	uint64_t t0 = clock_ns(), want = (uint64_t)(base_ns + per_n_ns * (double)s->n);
	if (s->n >= slow_at_n)
		want = 200000000;
	while (clock_ns() - t0 < want)
		;
	return 0;
}
static volatile int sink;
static int tiny_op(void *state, unsigned slot)
{
	(void)state;
	sink += (int)slot;
	return 0;
}
static void teardown(void *state) { free(state); }

/* op_far: the bench reports k ops of (n + 1) us each, as a far process would */
static unsigned far_k_seen;
static int far_op(void *state, unsigned k, uint64_t *ns)
{
	struct st *s = state;
	far_k_seen = k;
	*ns = (uint64_t)k * (s->n + 1) * 1000;
	return 0;
}

/* run(): completions stamped "elsewhere" with known latencies (n us each),
 * and at n = 3 a failure with figures of its own */
static int lat_setn(void *state, uint64_t n)
{
	((struct st *)state)->n = n;
	return 0;
}
static int lat_run(void *state, struct meter *m)
{
	struct st *s = state;
	uint64_t t = meter_now();
	for (int i = 0; i < 100; i++)
		meter_done_at(m, t + 1000, t + 1000 + s->n * 1000, 0);
	if (s->n == 3) {
		s->env->fail_data = json_pack("{s:i}", "cpu", 7);
		errno = ETIME;
		return bench_fail(s->env, "bound");
	}
	return 0;
}

static struct bench synth = {
	.name = "test.synth", .version = 1, .axis = "units", .summary = "synthetic", .op_desc = "spin",
	.quick_max_n = 1000, .default_max_n = 1000, .full_max_n = 1000, .max_batch = 1,
	.setup = setup, .grow = grow, .op = spin_op, .teardown = teardown,
};

static void run(struct bench *b, struct sweep_opts *o, struct bench_result *out)
{
	memset(out, 0, sizeof(*out));
	CHECK(sweep_bench(b, o, out) == 0, "sweep_bench returns 0");
}

int main(void)
{
	uint64_t s[64];
	int n = sweep_series(1000, s, 64);
	CHECK(n == 10 && s[0] == 1 && s[1] == 2 && s[2] == 5 && s[9] == 1000, "series 1-2-5 to 1000 (%d)", n);
	n = sweep_series(300, s, 64);
	CHECK(n == 9 && s[7] == 200 && s[8] == 300, "series ends with max_n when off the grid");
	n = sweep_series(1, s, 64);
	CHECK(n == 1 && s[0] == 1, "series of 1");

	struct bench lin = {.series = SERIES_LINEAR};
	n = sweep_series_for(&lin, 8, s, 64);
	CHECK(n == 8 && s[0] == 1 && s[7] == 8, "linear series 1..8 (%d)", n);
	lin.min_n = 3;
	n = sweep_series_for(&lin, 5, s, 64);
	CHECK(n == 3 && s[0] == 3 && s[2] == 5, "linear series from min_n");

	struct bench zero = {.series = SERIES_POW2, .flags = BENCH_FROM_ZERO};
	n = sweep_series_for(&zero, 64, s, 64);
	CHECK(n == 8 && s[0] == 0 && s[1] == 1 && s[2] == 2 && s[7] == 64, "from zero: 0,1,2..64 (%d)", n);
	n = sweep_series_for(&zero, 1, s, 64);
	CHECK(n == 2 && s[0] == 0 && s[1] == 1, "from zero to 1: 0,1 (%d)", n);
	n = sweep_series_for(&zero, 64, s, 1);
	CHECK(n == 1 && s[0] == 0, "from zero within cap");

	reg_init();
	char scratch[512];
	CHECK(reg_mkscratch("/tmp", "sbtest-sweep", scratch, sizeof(scratch)) == 0, "scratch");
	struct clock_info clk;
	clock_calibrate(&clk);
	CHECK(clk.read_cost_ns > 0 && clk.read_cost_ns < 10000, "clock read cost %.1f ns", clk.read_cost_ns);
	struct sweep_opts o = {.scratch = scratch, .budget_s = 0.05, .repeat = 1, .ci_target = 0.02,
			       .min_samples = 30, .op_timeout_s = 10, .clk = &clk};
	struct bench_result br;

	per_n_ns = 40; /* 3 us + 40 ns * n: 43 us at n = 1000 */
	/* A timed cost on a machine this test does not control: under the
	 * load of a package build beside a full test run (make check's deb
	 * tests), one sweep in many read O(n) and O(n log n) as a tie
	 * (unclear, dAIC 1.3). So up to three sweeps: the first O(n) passes,
	 * and none may say anything but O(n) or that tie. */
	int lin_ok = 0, lin_wrong = 0;
	for (int tries = 0; tries < 3 && !lin_ok && !lin_wrong; tries++) {
		run(&synth, &o, &br);
		CHECK(br.status == BS_OK && br.nreps == 1 && br.reps[0].npts == 10, "linear: all points");
		CHECK(br.reps[0].pts[9].st.p50 > 30000, "p50 at n=1000 is %.0f ns", br.reps[0].pts[9].st.p50);
		lin_ok = br.v.cls == GROWTH_N;
		lin_wrong = !lin_ok && !(br.v.cls == GROWTH_UNCLEAR && strstr(br.v.reason, "O(n)") &&
					 strstr(br.v.reason, "O(n log n)"));
		if (!lin_ok)
			fprintf(stderr, "# linear, sweep %d: %s (%s)\n", tries + 1, growth_name(br.v.cls),
				br.v.reason);
		free_br(&br);
	}
	CHECK(lin_ok && !lin_wrong, "linear cost gets O(n) within three sweeps, never another class");

	per_n_ns = 0;
	o.repeat = 2;
	run(&synth, &o, &br);
	CHECK(br.nreps == 2 && br.reps[1].npts == 10, "repeat keeps both repetitions");
	CHECK(br.v.cls == GROWTH_O1, "constant cost gets O(1), got %s (%s)", growth_name(br.v.cls), br.v.reason);
	int crowded = 0; /* a busy machine's crowded points may be left out (verdict.c) */
	for (int r = 0; r < br.nreps; r++)
		for (int i = 0; i < br.reps[r].npts; i++)
			crowded += br.reps[r].pts[i].has_probe && br.reps[r].pts[i].cpu_lost >= CPU_LOST_CROWDED;
	CHECK(br.v.npoints == 20 || br.v.npoints == 20 - crowded,
	      "pooled verdict over both repetitions (%d points, %d crowded)", br.v.npoints, crowded);
	free_br(&br);
	o.repeat = 1;

	struct bench tiny = synth;
	tiny.op = tiny_op;
	tiny.max_batch = 64;
	run(&tiny, &o, &br);
	CHECK(br.reps[0].npts > 0 && br.reps[0].pts[0].batch > 1, "tiny op is batch-timed (batch %u)",
	      br.reps[0].npts ? br.reps[0].pts[0].batch : 0);
	int same = 1;
	for (int i = 1; i < br.reps[0].npts; i++)
		same &= br.reps[0].pts[i].batch == br.reps[0].pts[0].batch;
	CHECK(same, "one batch size for the whole sweep");
	free_br(&br);

	fail_grow_at = 37;
	run(&synth, &o, &br);
	struct failure *f = br.reps[0].fail;
	CHECK(br.status == BS_FAILED && f, "grow failure recorded");
	if (f) {
		CHECK(f->n == 37 && f->err == EMFILE && !strcmp(f->kind, "limit") && !strcmp(f->phase, "grow") &&
		      !strcmp(f->call, "synthetic grow"), "failure: n=%llu err=%d kind=%s phase=%s call=%s",
		      (unsigned long long)f->n, f->err, f->kind, f->phase, f->call);
		CHECK(f->state && json_object_get(f->state, "open_fds"), "first-failure state captured");
	}
	CHECK(br.reps[0].npts == 5, "points before the failure kept (%d)", br.reps[0].npts);
	free_br(&br);
	fail_grow_errno = ENOMEM; /* the bench's ENOMEM is data, not a harness failure */
	run(&synth, &o, &br);
	CHECK(br.status == BS_FAILED && br.reps[0].fail && br.reps[0].fail->err == ENOMEM, "ENOMEM from a bench recorded");
	free_br(&br);
	fail_grow_at = UINT64_MAX;

	fail_op_at_n = 100;
	run(&synth, &o, &br);
	f = br.reps[0].fail;
	CHECK(f && f->n == 100 && !strcmp(f->phase, "op") && !strcmp(f->kind, "error"), "op failure at n=100");
	free_br(&br);
	fail_op_at_n = UINT64_MAX;

	slow_at_n = 50; /* an op over the timeout, inside a block of samples */
	o.op_timeout_s = 0.05; /* far above a 3 us op preempted on a loaded machine (1 ms flaked) */
	run(&synth, &o, &br);
	f = br.reps[0].fail;
	CHECK(br.status == BS_FAILED && f && f->n == 50 && f->err == ETIMEDOUT && !strcmp(f->kind, "timeout") &&
	      !strcmp(f->phase, "op"), "an op over the timeout is a timeout failure at n=50");
	CHECK(br.reps[0].npts == 5, "points before the timeout kept, 1..20 (%d)", br.reps[0].npts);
	free_br(&br);
	slow_at_n = UINT64_MAX;
	o.op_timeout_s = 10;

	interrupt_after = 200;
	run(&synth, &o, &br);
	CHECK(br.status == BS_INTERRUPTED && br.reps[0].interrupted, "interrupt recorded");
	CHECK(br.reps[0].npts >= 1 && br.reps[0].pts[br.reps[0].npts - 1].stop == STOP_INTERRUPT,
	      "last point stopped by the interrupt");
	free_br(&br);
	reg_interrupted = 0;

	struct bench lat = synth;
	lat.op = NULL;
	lat.grow = NULL;
	lat.set_n = lat_setn;
	lat.run = lat_run;
	lat.series = SERIES_LINEAR;
	lat.default_max_n = 4;
	lat.flags = BENCH_FULL_BUDGET;
	run(&lat, &o, &br);
	CHECK(br.reps[0].npts == 2, "run(): points before the failure (%d)", br.reps[0].npts);
	if (br.reps[0].npts == 2) {
		const struct point *p = &br.reps[0].pts[1];
		CHECK(p->samples == 100 && p->st.p50 > 1990 && p->st.p50 < 2010 && p->st.max < 2010,
		      "meter_done_at: 100 samples of 2 us (p50 %.0f)", p->st.p50);
	}
	f = br.reps[0].fail;
	CHECK(f && f->n == 3 && f->err == ETIME && !strcmp(f->kind, "bound"), "ETIME is a bound failure");
	CHECK(f && json_integer_value(json_object_get(json_object_get(f->state, "bench"), "cpu")) == 7,
	      "the bench's failure figures are in the state");
	free_br(&br);

	struct bench far = synth;
	far.op = NULL;
	far.op_far = far_op;
	far.flags = BENCH_FROM_ZERO;
	far.series = SERIES_POW2;
	far.default_max_n = 4;
	run(&far, &o, &br);
	CHECK(br.status == BS_OK && br.reps[0].npts == 4 && br.reps[0].pts[0].n == 0,
	      "op_far, from zero: points 0,1,2,4 (%d)", br.reps[0].npts);
	if (br.reps[0].npts == 4)
		CHECK(br.reps[0].pts[0].st.p50 > 990 && br.reps[0].pts[0].st.p50 < 1010 &&
		      br.reps[0].pts[3].st.p50 > 4950 && br.reps[0].pts[3].st.p50 < 5050 &&
		      far_k_seen == br.reps[0].pts[3].batch,
		      "op_far: its elapsed time is the sample (p50 %.0f, %.0f ns)",
		      br.reps[0].pts[0].st.p50, br.reps[0].pts[3].st.p50);
	CHECK(br.v.npoints == 3, "the point at 0 is left out of the fit (%d points)", br.v.npoints);
	free_br(&br);

	char sub[600];
	snprintf(sub, sizeof(sub), "%s/test.synth.1", scratch);
	CHECK(access(sub, F_OK) != 0, "per-repetition directory removed");
	reg_cleanup();
	CHECK(access(scratch, F_OK) != 0, "scratch removed by cleanup");
	return t_done("sweep");
}
