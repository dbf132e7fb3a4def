/* SPDX-License-Identifier: MIT */
/* Counters of the timed region (see usage.h). */
#include "core/usage.h"
#include "sys/sys.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double tv_s(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

static double clock_s(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts))
		return NAN;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

enum usage_counter usage_counter(void)
{
	return sys_thread_counters() ? USAGE_THREAD : USAGE_PROCESS;
}

const char *usage_counter_name(enum usage_counter c)
{
	return c == USAGE_THREAD ? "thread" : "process";
}

const char *usage_scope_name(enum usage_scope s)
{
	return s == USAGE_TIMED ? "timed" : "window";
}

int usage_counter_from_name(const char *s)
{
	return !strcmp(s, "thread") ? USAGE_THREAD : !strcmp(s, "process") ? USAGE_PROCESS : -1;
}

int usage_scope_from_name(const char *s)
{
	return !strcmp(s, "timed") ? USAGE_TIMED : !strcmp(s, "window") ? USAGE_WINDOW : -1;
}

/* the thread's own counters where the system keeps them (sys.h) */
static double own_clock(enum usage_counter c)
{
	if (c == USAGE_THREAD && sys_thread_counters())
		return sys_thread_cpu_s();
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static void own_rusage(enum usage_counter c, struct rusage *ru)
{
	if (c == USAGE_THREAD && sys_thread_rusage(ru) == 0)
		return;
	getrusage(RUSAGE_SELF, ru);
}

void usage_take_as(struct usage_read *u, enum usage_counter c, int end)
{
	/* the exact clock nearest the region: last before it, first after */
	if (end)
		u->cpu_s = own_clock(c);
	own_rusage(c, &u->self);
	getrusage(RUSAGE_CHILDREN, &u->kids);
	if (!end)
		u->cpu_s = own_clock(c);
	if (isnan(u->cpu_s)) /* no CPU clock: getrusage's sum */
		u->cpu_s = tv_s(u->self.ru_utime) + tv_s(u->self.ru_stime);
}

void usage_acc_add(struct usage_acc *acc, const struct usage_read *a, const struct usage_read *b,
		   double wall_s)
{
#define D(w, f) ((double)(b->w.f - a->w.f))
	double d = b->cpu_s - a->cpu_s - acc->region_cost_s;
	if (wall_s >= 0 && d > wall_s)
		d = wall_s; /* the excess ran outside the timed wall time */
	acc->cpu_s += d > 0 ? d : 0;
	acc->ru_user_s += tv_s(b->self.ru_utime) - tv_s(a->self.ru_utime);
	acc->ru_sys_s += tv_s(b->self.ru_stime) - tv_s(a->self.ru_stime);
	acc->kid_user_s += tv_s(b->kids.ru_utime) - tv_s(a->kids.ru_utime);
	acc->kid_sys_s += tv_s(b->kids.ru_stime) - tv_s(a->kids.ru_stime);
	acc->vcsw += D(self, ru_nvcsw);
	acc->ivcsw += D(self, ru_nivcsw);
	acc->minflt += D(self, ru_minflt);
	acc->majflt += D(self, ru_majflt);
	acc->regions++;
#undef D
}

void usage_acc_per_op(const struct usage_acc *acc, double ops, struct usage_per_op *out)
{
	if (!(ops > 0)) {
		out->cpu_s = out->user_s = out->sys_s = out->vcsw = out->ivcsw = out->minflt =
			out->majflt = NAN;
		return;
	}
	double own = acc->cpu_s > 0 ? acc->cpu_s : 0;
	double ru = acc->ru_user_s + acc->ru_sys_s;
	double ufrac = ru > 0 ? acc->ru_user_s / ru : NAN;
	out->cpu_s = own / ops;
	out->user_s = ru > 0 ? own * ufrac / ops : NAN;
	out->sys_s = ru > 0 ? own * (1 - ufrac) / ops : NAN;
	out->vcsw = acc->vcsw / ops;
	out->ivcsw = acc->ivcsw / ops;
	out->minflt = acc->minflt / ops;
	out->majflt = acc->majflt / ops;
}

void usage_side_add(json_t **o, const char *side, double cpu_s, int nproc, double ops)
{
	if (!(ops > 0) || !(cpu_s > 0) || !side)
		return;
	if (!*o && !(*o = json_object()))
		return;
	json_t *sd = json_object_get(*o, side);
	if (!sd) {
		sd = json_pack("{s:f}", "cpu_s", 0.0);
		if (!sd || json_object_set_new(*o, side, sd))
			return;
	}
	json_t *c = json_object_get(sd, "cpu_s");
	json_real_set(c, json_real_value(c) + cpu_s / ops);
	if (nproc > 0) {
		json_t *np = json_object_get(sd, "processes");
		json_object_set_new(sd, "processes",
				    json_integer((np ? json_integer_value(np) : 0) + nproc));
	}
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double usage_region_cost(void)
{
	static double cost = -1;
	if (cost >= 0)
		return cost;
	enum { K = 63 };
	double d[K];
	for (int i = 0; i < K; i++) {
		struct usage_read a, b;
		usage_take_as(&a, usage_counter(), 0);
		usage_take_as(&b, usage_counter(), 1);
		d[i] = b.cpu_s - a.cpu_s;
	}
	qsort(d, K, sizeof(d[0]), cmp_d);
	cost = d[K / 2] > 0 ? d[K / 2] : 0;
	return cost;
}
