/* SPDX-License-Identifier: MIT */
/* The arithmetic of per-operation CPU (src/core/usage.c): differences
 * added up over regions, the read cost taken off, the user/system split,
 * peers' sides; and one real reading of this thread's counters. */
#include <math.h>
#include <string.h>
#include "t.h"
#include "core/usage.h"

static struct timeval tv(double s)
{
	struct timeval t = {(time_t)s, (suseconds_t)((s - (double)(time_t)s) * 1e6 + 0.5)};
	return t;
}

static void rd(struct usage_read *u, double cpu, double ut, double st, long vcsw, long minflt,
	       double kut, double kst)
{
	memset(u, 0, sizeof(*u));
	u->cpu_s = cpu;
	u->self.ru_utime = tv(ut);
	u->self.ru_stime = tv(st);
	u->self.ru_nvcsw = vcsw;
	u->self.ru_minflt = minflt;
	u->kids.ru_utime = tv(kut);
	u->kids.ru_stime = tv(kst);
}

static int near(double a, double b) { return fabs(a - b) <= 1e-9 + 1e-6 * fabs(b); }

int main(void)
{
	struct usage_acc acc;
	struct usage_read a, b;
	struct usage_per_op u;

	/* two regions: 3 ms + 1 ms of CPU, getrusage split 1:3, 2 csw, 4 faults */
	memset(&acc, 0, sizeof(acc));
	rd(&a, 1.000, 0.5, 1.0, 10, 100, 0, 0);
	rd(&b, 1.003, 0.501, 1.003, 11, 102, 0, 0);
	usage_acc_add(&acc, &a, &b, 0.0035);
	rd(&a, 2.000, 0.6, 1.2, 20, 200, 0, 0);
	rd(&b, 2.001, 0.6, 1.2, 21, 202, 0, 0);
	usage_acc_add(&acc, &a, &b, -1);
	CHECK(acc.regions == 2, "regions %llu", (unsigned long long)acc.regions);
	usage_acc_per_op(&acc, 1000, &u);
	CHECK(near(u.cpu_s, 4e-6), "cpu %g", u.cpu_s);
	CHECK(near(u.user_s, 1e-6) && near(u.sys_s, 3e-6), "split %g %g", u.user_s, u.sys_s);
	CHECK(near(u.user_s + u.sys_s, u.cpu_s), "user + sys = cpu");
	CHECK(near(u.vcsw, 2e-3) && near(u.minflt, 4e-3), "csw %g faults %g", u.vcsw, u.minflt);

	/* the read cost is taken off per region, never below 0; the CPU of a
	 * region is at most its timed wall time */
	memset(&acc, 0, sizeof(acc));
	acc.region_cost_s = 0.5e-3;
	rd(&a, 1.000, 0, 0, 0, 0, 0, 0);
	rd(&b, 1.003, 0, 0, 0, 0, 0, 0);
	usage_acc_add(&acc, &a, &b, -1);
	CHECK(near(acc.cpu_s, 2.5e-3), "3 ms less 0.5 ms: %g", acc.cpu_s);
	usage_acc_add(&acc, &a, &b, 1e-3);
	CHECK(near(acc.cpu_s, 3.5e-3), "capped at the 1 ms timed: %g", acc.cpu_s);
	acc.region_cost_s = 1;
	usage_acc_add(&acc, &a, &b, -1);
	CHECK(near(acc.cpu_s, 3.5e-3), "never below 0: %g", acc.cpu_s);
	CHECK(acc.regions == 3, "regions %llu", (unsigned long long)acc.regions);

	/* children apart: not in the caller's figures */
	memset(&acc, 0, sizeof(acc));
	rd(&a, 1.0, 0, 0, 0, 0, 0.1, 0.2);
	rd(&b, 1.002, 0, 0, 0, 0, 0.1005, 0.2015);
	usage_acc_add(&acc, &a, &b, -1);
	usage_acc_per_op(&acc, 2, &u);
	CHECK(near(u.cpu_s, 1e-3), "own only %g", u.cpu_s);
	CHECK(isnan(u.user_s) && isnan(u.sys_s), "no tick seen: split unknown");
	CHECK(near(acc.kid_user_s + acc.kid_sys_s, 2e-3), "children %g",
	      acc.kid_user_s + acc.kid_sys_s);

	usage_acc_per_op(&acc, 0, &u);
	CHECK(isnan(u.cpu_s) && isnan(u.vcsw), "no ops: NAN");

	/* sides */
	json_t *o = NULL;
	usage_side_add(&o, "server", 0, 1, 10); /* nothing spent: nothing made */
	CHECK(o == NULL, "no side for 0 CPU");
	usage_side_add(&o, "helpers", 2e-3, 1, 100);
	usage_side_add(&o, "helpers", 1e-3, 1, 100);
	usage_side_add(&o, "children", 5e-3, 0, 100);
	json_t *h = json_object_get(o, "helpers"), *c = json_object_get(o, "children");
	CHECK(near(json_real_value(json_object_get(h, "cpu_s")), 3e-5), "helpers per op");
	CHECK(json_integer_value(json_object_get(h, "processes")) == 2, "two helpers");
	CHECK(near(json_real_value(json_object_get(c, "cpu_s")), 5e-5), "children per op");
	CHECK(json_object_get(c, "processes") == NULL, "children not counted");
	json_decref(o);

	/* names both ways */
	CHECK(usage_counter_from_name(usage_counter_name(USAGE_THREAD)) == USAGE_THREAD, "thread");
	CHECK(usage_scope_from_name(usage_scope_name(USAGE_WINDOW)) == USAGE_WINDOW, "window");
	CHECK(usage_counter_from_name("x") == -1, "unknown counter");

	/* a real region: ~20 ms of spinning shows as CPU of this thread */
	struct usage_read r0, r1;
	usage_begin(&r0);
	volatile double x = 0;
	struct usage_read now;
	do {
		for (int i = 0; i < 100000; i++)
			x += i;
		usage_end(&now);
	} while (now.cpu_s - r0.cpu_s < 0.02);
	usage_end(&r1);
	memset(&acc, 0, sizeof(acc));
	usage_acc_add(&acc, &r0, &r1, -1);
	CHECK(acc.cpu_s >= 0.02 && acc.cpu_s < 10, "spin %g s", acc.cpu_s);
	double rc = usage_region_cost();
	CHECK(rc >= 0 && rc < 1e-3, "region cost %g s", rc);
	return t_done("usage");
}
