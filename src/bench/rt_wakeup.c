/* SPDX-License-Identifier: MIT */
/* rt.wakeup: timer wake-up latency, cyclictest's method, under loads that
 * scalebench makes itself.
 *
 * One measuring thread per chosen CPU (-p cpus=..., default every CPU the
 * run may use), pinned there, at SCHED_FIFO priority -p priority (80), sleeps to
 * absolute times on CLOCK_MONOTONIC (clock_nanosleep TIMER_ABSTIME) every
 * -p interval_us (1000); the latency is the time read on waking minus the
 * time it was meant to wake. Memory is locked (mlockall) and
 * /dev/cpu_dma_latency is held at 0 while measuring, as cyclictest -m does.
 * Without the privilege for SCHED_FIFO the threads measure as SCHED_OTHER,
 * and the result's note, the point's extra and the summary say so.
 *
 * The measuring threads only read the clock and store (wanted, woke,
 * cycle) into their own single-producer ring; run()'s thread, at
 * SCHED_OTHER and moved off the measured CPUs when there are others (its
 * wake-ups would keep a measured CPU out of idle, which lowers the
 * latency measured there), drains the rings every 10 ms into the core's histogram
 * (meter_done_at: merged over the CPUs, with the core's bounded error) and
 * into one histogram per CPU of the same kind (the point's extra). So the
 * wake-up path has no lock and no allocation.
 *
 * The axis: N indexes the load level, one point each (SERIES_LINEAR):
 * 1 none, 2 cpu (K hogs), 3 fs (create+unlink storm), 4 io (O_DIRECT
 * streams), 5 net (loopback TCP streams), 6 fork (fork storm),
 * 7 pagecache (write, drop, re-read), 8 all of them (rtload.h). The levels
 * are categories, not a growing quantity (AXIS_CATEGORY, named by
 * rtload_names): the core fits no growth to them, and the headline is the
 * p99 per load kind and the worst kind against none. Each level runs for -p duration seconds, or without it for the
 * point's budget (as every run() bench: 0.5 s, --quick 0.05 s, --full 1 s,
 * or --budget), after 200 ms for its load to get going.
 *
 * Safety: RLIMIT_RTTIME (200 ms soft, 1 s hard) ends a SCHED_FIFO thread
 * that would run without sleeping; the drain loop stops the threads at
 * their duration plus 2 s whatever happens; a signal stops them at their
 * next wake-up; the policy dies with the threads, the cpu_dma_latency
 * descriptor and the load processes are released by teardown (and by the
 * registry on any exit). --max-latency US: the first wake-up over the
 * bound stops the point with a failure (kind "bound", exit 3) carrying the
 * load level, CPU, cycle, latency, and the tail of a private trace
 * instance frozen by the measuring thread itself at that moment (root). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "core/bench.h"
#include "core/hist.h"
#include "core/registry.h"
#include "bench/rtload.h"
#include "sys/sys.h"

#define RING (1u << 14)          /* samples a thread may have undrained */
#define DRAIN_NS 10000000u       /* drain period: 10 ms (the ring holds 0.8 s at 50 us) */
#define WARM_NS 200000000u       /* a load's start before measuring */
#define GRACE_NS 2000000000u     /* watchdog: duration + this ends the point */
#define TRACE_LINES 60

struct samp { uint64_t want, got, cycle; };

struct st;
struct thr {
	struct st *s;
	int cpu;
	pthread_t th;
	int started;
	int fifo, fifo_err, pin_err;
	_Atomic uint64_t head, tail;   /* head written by the thread, tail by the drainer */
	_Atomic int done;
	_Atomic uint64_t dropped, overruns;
	struct samp *ring;
	struct hist *h;
	uint64_t first_want; /* the first wake-up wanted (its phase is the result's) */
	double max_ns;
	uint64_t max_cycle, max_at;
};

struct st {
	struct bench_env *env;
	uint64_t interval_ns, end_ns, t0;
	int64_t phase_ns; /* -p phase_us in ns; -1: free */
	uint64_t start_ns; /* with a phase: the full second + phase the wake-ups count from */
	int prio;
	double duration_s;
	unsigned char cpus[SYS_MAX_CPUS], load_cpus[SYS_MAX_CPUS];
	int ncpu, nload_cpus;
	const char *load_cpus_s, *cpus_s;
	struct thr *t;
	struct rtload load;
	int load_ok, level;
	int locked, lock_err;
	_Atomic int stop, tripped;
	struct sys_trace trace;
	int trace_ok;
	double bound_ns;
};

static const char *pget(const json_t *p, const char *k, const char *def)
{
	json_t *v = p ? json_object_get(p, k) : NULL;
	return json_is_string(v) ? json_string_value(v) : def;
}

static int num_in(const char *v, double lo, double hi, double *out)
{
	char *end;
	double x = strtod(v, &end);
	if (!*v || *end || !(x >= lo && x <= hi))
		return -1;
	*out = x;
	return 0;
}

/* A CPU list whose CPUs are all online; count, or -1 with err. */
static int online_list(const char *key, const char *v, unsigned char *set, char *err, size_t len)
{
	unsigned char on[SYS_MAX_CPUS];
	int n = sys_cpulist_parse(v, set, SYS_MAX_CPUS);
	if (n < 0) {
		snprintf(err, len, "%s=%s: not a CPU list such as 0, 0-1 or 0+2", key, v);
		return -1;
	}
	int non = sys_cpus_online(on, SYS_MAX_CPUS);
	for (int c = 0; non > 0 && c < SYS_MAX_CPUS; c++)
		if (set[c] && !on[c]) {
			snprintf(err, len, "%s=%s: CPU %d is not online", key, v, c);
			return -1;
		}
	return n;
}

static int check(const json_t *p, char *err, size_t len)
{
	double x;
	const char *v;
	unsigned char set[SYS_MAX_CPUS];
	if ((v = pget(p, "interval_us", NULL)) && num_in(v, 50, 1e6, &x)) {
		snprintf(err, len, "interval_us=%s: must be 50..1000000 (below 50 us the wake-ups "
			 "themselves load the CPU)", v);
		return -1;
	}
	if ((v = pget(p, "phase_us", NULL)) && strcmp(v, "free")) {
		const char *iv = pget(p, "interval_us", "1000");
		double ivx;
		if (num_in(iv, 50, 1e6, &ivx) || num_in(v, 0, ivx - 1, &x) || x != (double)(int64_t)x) {
			snprintf(err, len, "phase_us=%s: must be free or a whole number of us below "
				 "interval_us (%s)", v, iv);
			return -1;
		}
		if (!pget(p, "duration", NULL)) {
			snprintf(err, len, "phase_us=%s: needs duration= (with a phase the measuring "
				 "starts at the next full second, as cyclictest --secaligned, which "
				 "the point's budget would spend waiting)", v);
			return -1;
		}
	}
	if ((v = pget(p, "priority", NULL)) && num_in(v, 1, 99, &x)) {
		snprintf(err, len, "priority=%s: SCHED_FIFO priorities are 1..99", v);
		return -1;
	}
	if ((v = pget(p, "duration", NULL)) && num_in(v, 0.01, 86400, &x)) {
		snprintf(err, len, "duration=%s: seconds per load level, 0.01..86400", v);
		return -1;
	}
	if ((v = pget(p, "load_procs", NULL)) && num_in(v, 1, 16, &x)) {
		snprintf(err, len, "load_procs=%s: processes per load kind, 1..16", v);
		return -1;
	}
	if ((v = pget(p, "cpus", NULL)) && online_list("cpus", v, set, err, len) < 0)
		return -1;
	if ((v = pget(p, "load_cpus", NULL)) && online_list("load_cpus", v, set, err, len) < 0)
		return -1;
	return 0;
}

static uint64_t ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_nsec;
}

static void ts_add(struct timespec *t, uint64_t ns)
{
	uint64_t v = ts_ns(t) + ns;
	t->tv_sec = (time_t)(v / 1000000000u);
	t->tv_nsec = (long)(v % 1000000000u);
}

static void *measure(void *arg)
{
	struct thr *t = arg;
	struct st *s = t->s;
	t->pin_err = sys_pin_thread(t->cpu);
	struct sched_param sp = {.sched_priority = s->prio};
	t->fifo_err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	t->fifo = t->fifo_err == 0;
	struct timespec next = {0, 0}, now;
	if (s->phase_ns < 0)
		clock_gettime(CLOCK_MONOTONIC, &next);
	ts_add(&next, s->phase_ns < 0 ? s->interval_ns : s->start_ns + s->interval_ns);
	t->first_want = ts_ns(&next);
	for (uint64_t cyc = 0; !atomic_load_explicit(&s->stop, memory_order_relaxed); cyc++) {
		int r;
		while ((r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL)) == EINTR &&
		       !atomic_load_explicit(&s->stop, memory_order_relaxed))
			;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (r && r != EINTR)
			break;
		uint64_t want = ts_ns(&next), got = ts_ns(&now);
		if (s->bound_ns > 0 && (double)(got - want) > s->bound_ns &&
		    !atomic_exchange(&s->tripped, 1))
			sys_trace_stop(&s->trace); /* freeze the trace at once, as --breaktrace */
		uint64_t h = atomic_load_explicit(&t->head, memory_order_relaxed);
		if (h - atomic_load_explicit(&t->tail, memory_order_acquire) < RING) {
			t->ring[h % RING] = (struct samp){want, got, cyc};
			atomic_store_explicit(&t->head, h + 1, memory_order_release);
		} else {
			atomic_fetch_add(&t->dropped, 1);
		}
		if (got >= s->end_ns)
			break;
		ts_add(&next, s->interval_ns);
		while (ts_ns(&next) <= got) { /* missed wake-ups: skip them, counted */
			ts_add(&next, s->interval_ns);
			atomic_fetch_add(&t->overruns, 1);
		}
	}
	sp.sched_priority = 0;
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	atomic_store(&t->done, 1);
	return NULL;
}

static void teardown(void *state);

static int setup(struct bench_env *env, void **state)
{
	struct st *s = calloc(1, sizeof(*s));
	if (!s)
		return bench_fail(env, "calloc");
	*state = s;
	s->env = env;
	s->trace.on_fd = -1;
	s->interval_ns = bench_param_u64(env, "interval_us") * 1000u;
	s->prio = (int)bench_param_u64(env, "priority");
	const char *ph = bench_param(env, "phase_us");
	s->phase_ns = ph && strcmp(ph, "free") ? (int64_t)strtod(ph, NULL) * 1000 : -1;
	const char *dur = bench_param(env, "duration");
	s->duration_s = dur ? strtod(dur, NULL) : 0; /* 0: the point's budget (meter_stop) */
	s->bound_ns = env->max_latency_ns;
	s->cpus_s = bench_param(env, "cpus");
	/* default: every CPU this process may run on (run --cpus), else every online one */
	s->ncpu = s->cpus_s ? sys_cpulist_parse(s->cpus_s, s->cpus, SYS_MAX_CPUS)
			    : sys_get_pinned(s->cpus, SYS_MAX_CPUS);
	if (!s->cpus_s && s->ncpu <= 0)
		s->ncpu = sys_cpus_online(s->cpus, SYS_MAX_CPUS);
	if (s->ncpu <= 0) {
		errno = s->ncpu < 0 ? -s->ncpu : EINVAL;
		return bench_fail(env, "online CPUs");
	}
	s->load_cpus_s = bench_param(env, "load_cpus");
	if (s->load_cpus_s)
		s->nload_cpus = sys_cpulist_parse(s->load_cpus_s, s->load_cpus, SYS_MAX_CPUS);
	unsigned char on[SYS_MAX_CPUS];
	int non = sys_cpus_online(on, SYS_MAX_CPUS);
	uint64_t procs = bench_param(env, "load_procs") ? bench_param_u64(env, "load_procs")
							  : non > 0 ? (uint64_t)non : 2;
	s->t = calloc((size_t)s->ncpu, sizeof(*s->t));
	if (!s->t)
		return bench_fail(env, "calloc");
	for (int c = 0, k = 0; c < SYS_MAX_CPUS; c++) {
		if (!s->cpus[c])
			continue;
		struct thr *t = &s->t[k++];
		t->s = s;
		t->cpu = c;
		t->ring = calloc(RING, sizeof(*t->ring));
		t->h = hist_new();
		if (!t->ring || !t->h)
			return bench_fail(env, "calloc");
	}
	const char *call = NULL;
	int rc = rtload_init(&s->load, env->dirfd, (int)procs,
			     s->load_cpus_s ? s->load_cpus : NULL, s->nload_cpus, &call);
	if (rc) {
		errno = -rc;
		return bench_fail(env, call);
	}
	s->load_ok = 1;
	if (s->bound_ns > 0) /* a trace to freeze at the first wake-up over the bound */
		s->trace_ok = sys_trace_open(&s->trace, env->dir) == 0;
	/* lock memory now and for what comes (cyclictest -m); not inherited by
	 * the load processes */
	s->locked = mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
	s->lock_err = s->locked ? 0 : errno;
	return 0;
}

static int set_n(void *state, uint64_t n)
{
	struct st *s = state;
	rtload_stop(&s->load);
	if (n < 1 || n > RL_NLEVELS) {
		errno = EINVAL;
		return bench_fail(s->env, "load level (N is 1..8)");
	}
	s->level = (int)n - 1;
	const char *call = NULL;
	int rc = rtload_start(&s->load, s->level, &call);
	if (rc) {
		errno = -rc;
		return bench_fail(s->env, call);
	}
	if (s->load.note[0])
		snprintf(s->env->note, sizeof(s->env->note), "%s", s->load.note);
	if (s->level != RL_NONE) { /* let the load get going */
		struct timespec w = {0, WARM_NS};
		while (nanosleep(&w, &w) && errno == EINTR && !reg_stop_requested())
			;
	}
	return 0;
}

static json_t *bins_json(const struct hist *h)
{
	json_t *a = json_array();
	for (int i = h->lo; i <= h->hi && i >= 0 && i < HIST_NBUCKETS; i++)
		if (h->bins[i])
			json_array_append_new(a, json_pack("[iI]", i, (json_int_t)h->bins[i]));
	return a;
}

static json_t *num(double v) { return v == v ? json_real(v) : json_null(); }

struct first_fail {
	int hit;
	int cpu;
	uint64_t cycle;
	double lat_ns, at_s;
};

static void drain(struct st *s, struct meter *m, struct first_fail *ff)
{
	for (int k = 0; k < s->ncpu; k++) {
		struct thr *t = &s->t[k];
		uint64_t tail = atomic_load_explicit(&t->tail, memory_order_relaxed);
		uint64_t head = atomic_load_explicit(&t->head, memory_order_acquire);
		for (; tail != head; tail++) {
			struct samp x = t->ring[tail % RING];
			double lat = x.got > x.want ? (double)(x.got - x.want) : 0.0;
			meter_done_at(m, x.want, x.got, 0);
			hist_add(t->h, lat);
			if (lat > t->max_ns || t->h->count == 1) {
				t->max_ns = lat;
				t->max_cycle = x.cycle;
				t->max_at = x.got - s->t0;
			}
			if (s->bound_ns > 0 && lat > s->bound_ns && !ff->hit) {
				*ff = (struct first_fail){1, t->cpu, x.cycle, lat,
							  (double)(x.got - s->t0) / 1e9};
				atomic_store(&s->stop, 1);
			}
		}
		atomic_store_explicit(&t->tail, tail, memory_order_release);
	}
}

/* Every measuring thread's figures back to zero for a new point. */
static void reset_threads(struct st *s)
{
	for (int k = 0; k < s->ncpu; k++) {
		struct thr *t = &s->t[k];
		hist_reset(t->h);
		t->max_ns = 0;
		t->head = t->tail = 0;
		t->done = 0;
		t->dropped = t->overruns = 0;
	}
	atomic_store(&s->stop, 0);
	atomic_store(&s->tripped, 0);
}

/* The collecting thread away from the measured CPUs, if there are others: 1 if moved (mine to restore). */
static int pin_away(const struct st *s, unsigned char *mine)
{
	unsigned char away[SYS_MAX_CPUS];
	int nmine = sys_get_pinned(mine, SYS_MAX_CPUS), naway = 0;
	for (int c = 0; c < SYS_MAX_CPUS; c++) {
		away[c] = nmine > 0 && mine[c] && !s->cpus[c];
		naway += away[c];
	}
	return naway > 0 ? sys_pin_set(away, SYS_MAX_CPUS) == 0 : 0;
}

/* One measuring thread a CPU; *started of them started, the bench failed if one could not be. */
static int start_threads(struct st *s, struct bench_env *env, int *started)
{
	int rc = 0;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 256 << 10);
	for (int k = 0; k < s->ncpu; k++) {
		int e = pthread_create(&s->t[k].th, &at, measure, &s->t[k]);
		if (e) {
			errno = e;
			rc = bench_fail(env, "pthread_create");
			atomic_store(&s->stop, 1);
			break;
		}
		s->t[k].started = 1;
		(*started)++;
	}
	pthread_attr_destroy(&at);
	return rc;
}

/* Drain the threads' samples until all are done (stopped by duration, budget, Ctrl-C, a failure or the watchdog wd), then join them; 1 if the watchdog fired. */
static int collect(struct st *s, struct meter *m, struct first_fail *ff, uint64_t wd, int started)
{
	int watchdog = 0;
	for (;;) {
		struct timespec w = {0, DRAIN_NS};
		nanosleep(&w, NULL);
		drain(s, m, ff);
		if (reg_stop_requested())
			atomic_store(&s->stop, 1);
		uint64_t now = meter_now();
		if (s->duration_s <= 0 && !atomic_load(&s->stop) && meter_stop(m)) {
			atomic_store(&s->stop, 1); /* the point's budget is spent */
			wd = now + GRACE_NS;
		}
		if (now > wd && !watchdog) {
			watchdog = 1;
			atomic_store(&s->stop, 1);
		}
		int done = 0;
		for (int k = 0; k < s->ncpu; k++)
			done += s->t[k].started && atomic_load(&s->t[k].done);
		if (done == started)
			break;
	}
	for (int k = 0; k < s->ncpu; k++)
		if (s->t[k].started) {
			pthread_join(s->t[k].th, NULL);
			s->t[k].started = 0;
		}
	drain(s, m, ff);
	return watchdog;
}

/* The point's per-CPU figures, its max (dated in UTC from wall0), overruns and dropped samples into x. */
static void per_cpu_json(const struct st *s, const struct timespec *wall0, json_t *x)
{
	json_t *pc = json_array();
	int maxk = -1;
	uint64_t dropped = 0, overruns = 0;
	for (int k = 0; k < s->ncpu; k++) {
		const struct thr *t = &s->t[k];
		struct stats st;
		hist_summary(t->h, &st);
		dropped += t->dropped;
		overruns += t->overruns;
		if (t->h->count && (maxk < 0 || t->max_ns > s->t[maxk].max_ns))
			maxk = k;
		json_t *o = json_pack("{s:i,s:s,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:f,s:I,s:I,s:I}",
				      "cpu", t->cpu, "policy", t->fifo ? "SCHED_FIFO" : "SCHED_OTHER",
				      "samples", (json_int_t)st.count, "min_ns", num(st.min),
				      "mean_ns", num(st.mean), "p50_ns", num(st.p50), "p99_ns", num(st.p99),
				      "p999_ns", num(st.p999), "p9999_ns", num(st.p9999),
				      "max_ns", num(st.max), "bins", bins_json(t->h),
				      "max_at_s", (double)t->max_at / 1e9, "max_cycle", (json_int_t)t->max_cycle,
				      "overruns", (json_int_t)t->overruns, "dropped", (json_int_t)t->dropped);
		/* where its wake-ups fell in the interval (CLOCK_MONOTONIC) */
		json_object_set_new(o, "phase_us",
				    json_real((double)(t->first_want % s->interval_ns) / 1e3));
		if (t->pin_err)
			json_object_set_new(o, "pinned", json_string(strerror(-t->pin_err)));
		json_array_append_new(pc, o);
	}
	json_object_set_new(x, "per_cpu", pc);
	if (maxk >= 0) {
		uint64_t w = ts_ns(wall0) + s->t[maxk].max_at;
		struct timespec when = {.tv_sec = (time_t)(w / 1000000000u), .tv_nsec = (long)(w % 1000000000u)};
		char utc[48];
		sys_iso_utc(&when, 6, utc, sizeof(utc));
		json_object_set_new(x, "max", json_pack("{s:f,s:i,s:f,s:s,s:I}", "ns", s->t[maxk].max_ns,
							 "cpu", s->t[maxk].cpu, "at_s",
							 (double)s->t[maxk].max_at / 1e9, "utc", utc,
							 "cycle", (json_int_t)s->t[maxk].max_cycle));
	}
	json_object_set_new(x, "overruns", json_integer((json_int_t)overruns));
	json_object_set_new(x, "dropped", json_integer((json_int_t)dropped));
}

/* What held during the point (load, policy, locks, limits) and its figures, as the result's rt object. */
static json_t *point_json(const struct st *s, int fifo, int dma, int rt_lim, int watchdog,
			  const uint64_t *c0, const uint64_t *c1, double secs, const struct timespec *wall0)
{
	const struct thr *t0 = &s->t[0];
	json_t *x = json_object();
	json_object_set_new(x, "load", json_string(rtload_names[s->level]));
	json_object_set_new(x, "load_procs", json_integer(s->load.procs));
	json_object_set_new(x, "load_cpus", json_string(s->load_cpus_s ? s->load_cpus_s : "any"));
	json_object_set_new(x, "load_processes", json_integer(s->load.n));
	json_object_set_new(x, "load_throughput", rtload_rates(&s->load, c0, c1, secs));
	json_object_set_new(x, "policy", json_string(fifo ? "SCHED_FIFO" : "SCHED_OTHER"));
	if (!fifo)
		json_object_set_new(x, "policy_reason", json_string(strerror(t0->fifo_err ? t0->fifo_err : EPERM)));
	json_object_set_new(x, "priority", json_integer(fifo ? s->prio : 0));
	json_object_set_new(x, "interval_us", json_real((double)s->interval_ns / 1e3));
	json_object_set_new(x, "phase_us", s->phase_ns >= 0 ? json_real((double)s->phase_ns / 1e3)
							    : json_string("free"));
	/* with a phase, from the full second the wake-ups counted from */
	double waited = s->phase_ns >= 0 ? (double)(s->start_ns - s->t0) / 1e9 : 0;
	json_object_set_new(x, "duration_s", json_real(secs - waited));
	json_object_set_new(x, "mlockall", s->locked ? json_true() : json_string(strerror(s->lock_err)));
	json_object_set_new(x, "cpu_dma_latency", dma >= 0 ? json_string("held at 0 us")
							   : json_string(strerror(-dma)));
	json_object_set_new(x, "rttime_limit", rt_lim == 0 ? json_string("200 ms soft, 1 s hard")
							    : json_string(strerror(-rt_lim)));
	if (watchdog)
		json_object_set_new(x, "watchdog", json_string("threads still running 2 s past their end"));
	per_cpu_json(s, wall0, x);
	if (s->bound_ns > 0)
		json_object_set_new(x, "tracing", s->trace.info ? json_incref(s->trace.info) : json_null());
	return x;
}

/* The bench's note: what was not as asked (no SCHED_FIFO, memory not locked, cpu_dma_latency not held). */
static void set_note(const struct st *s, struct bench_env *env, int fifo, int dma)
{
	const struct thr *t0 = &s->t[0];
	char note[256] = "";
	if (!fifo)
		snprintf(note, sizeof(note), "measured as SCHED_OTHER: no privilege for SCHED_FIFO (%s)",
			 strerror(t0->fifo_err ? t0->fifo_err : EPERM));
	if (!s->locked)
		snprintf(note + strlen(note), sizeof(note) - strlen(note), "%smemory not locked (%s)",
			 note[0] ? "; " : "", strerror(s->lock_err));
	if (dma < 0)
		snprintf(note + strlen(note), sizeof(note) - strlen(note),
			 "%scpu_dma_latency not held (%s)", note[0] ? "; " : "", strerror(-dma));
	if (note[0])
		snprintf(env->note, sizeof(env->note), "%s", note);
}

/* The first sample over --max-latency: the bench fails with it (and the trace) as its failure data. */
static int fail_max_latency(struct st *s, struct bench_env *env, const struct first_fail *ff, int fifo)
{
	char why[160];
	snprintf(why, sizeof(why), "%.1f us on CPU %d at cycle %llu under load %s", ff->lat_ns / 1e3,
		 ff->cpu, (unsigned long long)ff->cycle, rtload_names[s->level]);
	json_t *fd = json_pack("{s:s,s:i,s:I,s:f,s:f,s:f,s:s,s:s}", "load", rtload_names[s->level],
			       "cpu", ff->cpu, "cycle", (json_int_t)ff->cycle, "latency_us",
			       ff->lat_ns / 1e3, "bound_us", s->bound_ns / 1e3, "at_s", ff->at_s,
			       "policy", fifo ? "SCHED_FIFO" : "SCHED_OTHER", "why", why);
	json_object_set_new(fd, "trace", s->trace_ok ? sys_trace_tail(&s->trace, TRACE_LINES)
						    : (s->trace.info ? json_incref(s->trace.info)
								     : json_null()));
	if (s->trace_ok)
		json_object_set_new(fd, "trace_info", json_incref(s->trace.info));
	env->fail_data = fd;
	snprintf(env->note, sizeof(env->note),
		 "max-latency %.1f us exceeded: %.1f us on CPU %d at cycle %llu under load %s",
		 s->bound_ns / 1e3, ff->lat_ns / 1e3, ff->cpu, (unsigned long long)ff->cycle,
		 rtload_names[s->level]);
	errno = ETIME;
	return bench_fail(env, "max-latency");
}

static int run(void *state, struct meter *m)
{
	struct st *s = state;
	struct bench_env *env = s->env;
	uint64_t old_rt[2] = {0, 0};
	int rt_lim = sys_rttime_limit(200000, 1000000, old_rt);
	int dma = sys_dma_latency_hold();
	if (dma >= 0 && reg_add_fd(dma)) /* it closed dma: not held, said in the note */
		dma = -ENOMEM;
	reset_threads(s);
	uint64_t c0[RL_NLEVELS], c1[RL_NLEVELS];
	rtload_read(&s->load, c0);
	s->t0 = meter_now();
	struct timespec wall0;
	clock_gettime(CLOCK_REALTIME, &wall0); /* to date the max in UTC */
	if (s->phase_ns >= 0) {
		/* cyclictest --secaligned: from the next full second (the one
		 * after if that is under 0.1 s away) plus the phase, for every
		 * thread, the duration counted from there */
		uint64_t sec = s->t0 / 1000000000u, frac = s->t0 % 1000000000u;
		s->start_ns = (sec + (frac > 900000000u ? 2 : 1)) * 1000000000u + (uint64_t)s->phase_ns;
	}
	uint64_t from = s->phase_ns >= 0 ? s->start_ns : s->t0;
	s->end_ns = s->duration_s > 0 ? from + (uint64_t)(s->duration_s * 1e9) : UINT64_MAX;
	uint64_t wd = s->duration_s > 0 ? s->end_ns + GRACE_NS : UINT64_MAX; /* watchdog */
	unsigned char mine[SYS_MAX_CPUS];
	int moved = pin_away(s, mine), started = 0;
	int rc = start_threads(s, env, &started);
	struct first_fail ff = {0};
	int watchdog = collect(s, m, &ff, wd, started);
	uint64_t t1 = meter_now();
	if (moved)
		sys_pin_set(mine, SYS_MAX_CPUS);
	if (dma >= 0)
		reg_close_fd(dma);
	if (rt_lim == 0)
		sys_rttime_restore(old_rt);
	rtload_read(&s->load, c1);
	double secs = (double)(t1 - s->t0) / 1e9;

	/* the point's own figures */
	int fifo = 1;
	for (int k = 0; k < s->ncpu; k++)
		fifo &= s->t[k].fifo;
	meter_extra(m, "rt", point_json(s, fifo, dma, rt_lim, watchdog, c0, c1, secs, &wall0));
	set_note(s, env, fifo, dma);
	if (rc == 0 && ff.hit)
		return fail_max_latency(s, env, &ff, fifo);
	return rc;
}

static void teardown(void *state)
{
	struct st *s = state;
	atomic_store(&s->stop, 1);
	for (int k = 0; s->t && k < s->ncpu; k++) {
		if (s->t[k].started)
			pthread_join(s->t[k].th, NULL);
		free(s->t[k].ring);
		hist_free(s->t[k].h);
	}
	free(s->t);
	if (s->load_ok)
		rtload_fini(&s->load);
	sys_trace_close(&s->trace);
	if (s->locked)
		munlockall();
	free(s);
}

static const struct bench_param_spec params[] = {
	BP_U64("interval_us", "1000", 50, 1000000, "wake-up period of each measuring thread (us; at least 50)"),
	BP_U64("priority", "80", 1, 99, "SCHED_FIFO priority of the measuring threads"),
	BP_STR("phase_us", "free", "where in the interval the wake-ups fall: us past a multiple of interval_us on CLOCK_MONOTONIC (cyclictest --secaligned US when interval_us divides a second), or free: one interval after each thread starts"),
	BP_STR_DERIVED("duration", "the point's budget", "seconds each load level measures (0.01..86400)"),
	BP_STR_DERIVED("cpus", "every CPU the run may use", "CPU list of the measuring threads, such as 0-1 or 0+2 (online CPUs only)"),
	BP_STR_DERIVED("load_cpus", "anywhere", "CPU list the load processes run on, such as 0-1 or 0+2 (online CPUs only)"),
	BP_U64_DERIVED("load_procs", "the CPUs online", 1, 16, "processes per load kind"),
	{0},
};

const struct bench bench_rt_wakeup = {
	.name = "rt.wakeup", .version = 1, .axis = "load level (1 none, 2 cpu, 3 fs, 4 io, 5 net, 6 fork, 7 pagecache, 8 all)", .axis_kind = AXIS_CATEGORY,
	.categories = rtload_names, .ncategories = RL_NLEVELS,
	.summary = "timer wake-up latency (cyclictest's method: SCHED_FIFO, absolute clock_nanosleep, mlockall, cpu_dma_latency 0) under loads scalebench makes",
	.op_desc = "wake-up from clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME): woke minus wanted",
	.quick_max_n = 8, .default_max_n = 8, .full_max_n = 8, .series = SERIES_LINEAR,
	.flags = BENCH_FULL_BUDGET, .unit = "wake-up", .space_mib = 400,
	.params = params, .check = check, .setup = setup, .set_n = set_n, .run = run, .teardown = teardown,
};
