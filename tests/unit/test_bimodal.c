/* SPDX-License-Identifier: MIT */
/* "bimodal: placement": an unclear verdict whose points sit on two levels
 * names placement when a side moved or the levels ran on other CPUs, says
 * "bimodal" alone when the placement was the same, and leaves a clean or
 * growing sweep alone; the point's placement record is written and read
 * back. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/hist.h"
#include "core/probe.h"
#include "out/result_io.h"
#include "core/result.h"
#include "t.h"
#include "core/verdict.h"

/* stats of samples around med (+/- 1%) */
static void stats_at(struct hist *h, double med, struct stats *s)
{
	hist_reset(h);
	for (int k = 0; k < 2000; k++)
		hist_add(h, med * (0.99 + 0.02 * (k % 101) / 100.0));
	hist_summary(h, s);
}

static json_t *where(int server_cpu, int moved)
{
	return json_pack("{s:s,s:b,s:{s:{s:[i],s:i,s:i,s:b},s:{s:[i],s:i,s:i,s:b}}}", "mode", "free",
			 "moved", moved, "sides", "bench", "cpus", 0, "tasks", 1, "migrations", 0,
			 "moved", 0, "server", "cpus", server_cpu, "tasks", 1, "migrations", moved,
			 "moved", moved);
}

/* With unmap_high > 0, each point carries the probe, its unmap part
 * unmap_high ns around the high level's points and 100 us around the
 * others (the other parts 1 ns). */
static double unmap_high;

/* A sweep of 8 points at 17 us or 30 us (high[i]); server on CPU cpu[i]. */
static void sweep(struct bench_result *b, struct hist *h, const int *high, const int *cpu,
		  const int *moved, double grow)
{
	memset(b, 0, sizeof(*b));
	b->name = strdup("net.request");
	struct repetition *rp = bench_add_rep(b);
	static const uint64_t ns[8] = {1, 2, 5, 10, 20, 50, 100, 200};
	for (int i = 0; i < 8; i++) {
		struct point *p = rep_add_point(rp);
		p->n = ns[i];
		stats_at(h, (high[i] ? 30000 : 17000) + grow * (double)ns[i], &p->st);
		p->batch = 1;
		p->samples = p->ops = p->st.count;
		p->cpu_start = p->cpu_end = 0;
		p->placement = where(cpu[i], moved[i]);
		for (int s = 0; unmap_high > 0 && s < 2; s++) {
			p->has_probe = 1;
			for (int part = 0; part < PROBE_NPARTS; part++)
				p->probe[s].ns[part] = part == PROBE_UNMAP ? (high[i] ? unmap_high : 1e5) : 1;
		}
		point_set_bins(p, h);
	}
	rep_fit(rp, 0);
	bench_fit(b);
}

int main(void)
{
	struct hist *h = hist_new();
	struct bench_result b;
	const int alt[8] = {0, 1, 0, 1, 1, 0, 1, 0}, none[8] = {0};
	const int cpu_alt[8] = {0, 1, 0, 1, 1, 0, 1, 0}, cpu0[8] = {0};
	const int moved_some[8] = {0, 1, 0, 0, 0, 0, 0, 0};

	/* levels that follow the server's CPU */
	sweep(&b, h, alt, cpu_alt, none, 0);
	CHECK(b.v.cls == GROWTH_UNCLEAR, "two levels: unclear, %s", growth_name(b.v.cls));
	CHECK(!strncmp(b.v.reason, "bimodal: placement", 18) && strstr(b.v.reason, "other CPUs"),
	      "levels on other CPUs: %s", b.v.reason);
	CHECK(strstr(b.v.reason, "(4 points)") != NULL, "the levels' sizes: %s", b.v.reason);
	/* written and read back: the placement record and the reason */
	json_t *j = bench_to_json(&b);
	struct bench_result r;
	memset(&r, 0, sizeof(r));
	char err[256] = "";
	int rc = j ? bench_from_json(j, &r, err, sizeof(err)) : -1;
	CHECK(rc == 0, "read back: %s", err);
	CHECK(rc == 0 && r.nreps == 1 && r.reps[0].npts == 8 &&
		      json_equal(r.reps[0].pts[1].placement, b.reps[0].pts[1].placement),
	      "placement record read back");
	CHECK(rc == 0 && !strcmp(r.v.reason, b.v.reason), "reason read back: %s", r.v.reason);
	json_decref(j);
	bench_result_clear(&r);
	bench_result_clear(&b);

	/* same CPUs, but a side moved during a point */
	sweep(&b, h, alt, cpu0, moved_some, 0);
	CHECK(!strncmp(b.v.reason, "bimodal: placement", 18) && strstr(b.v.reason, "moved"),
	      "a side moved: %s", b.v.reason);
	bench_result_clear(&b);

	/* same placement, nothing moved: bimodal, not placement */
	sweep(&b, h, alt, cpu0, none, 0);
	CHECK(!strncmp(b.v.reason, "bimodal: two levels", 19) && strstr(b.v.reason, "same placement"),
	      "not placement: %s", b.v.reason);
	bench_result_clear(&b);

	/* same placement, the probe's unmap 4x around the higher level: other
	 * CPUs busy (probe.h, PROBE_UNMAP); 1.2x: not said */
	unmap_high = 4e5;
	sweep(&b, h, alt, cpu0, none, 0);
	CHECK(!strncmp(b.v.reason, "bimodal: other CPUs busy", 24) && strstr(b.v.reason, "unmap 4.0x"),
	      "unmap 4x around the higher level: %s", b.v.reason);
	bench_result_clear(&b);
	unmap_high = 1.2e5;
	sweep(&b, h, alt, cpu0, none, 0);
	CHECK(!strncmp(b.v.reason, "bimodal: two levels", 19), "unmap 1.2x: not said: %s", b.v.reason);
	bench_result_clear(&b);
	unmap_high = 0;

	/* one level: no bimodal reason */
	sweep(&b, h, none, cpu0, none, 0);
	CHECK(strncmp(b.v.reason, "bimodal", 7) != 0, "one level: %s", b.v.reason);
	bench_result_clear(&b);

	/* one point off level, on other CPUs (the server on CPU 1 once): placement */
	const int one[8] = {0, 0, 0, 0, 0, 1, 0, 0};
	sweep(&b, h, one, one, none, 0);
	CHECK(!strncmp(b.v.reason, "bimodal: placement", 18) && strstr(b.v.reason, "(1)"),
	      "one point on other CPUs: %s", b.v.reason);
	bench_result_clear(&b);
	/* the same point with the same placement: an outlier, not two levels */
	sweep(&b, h, one, cpu0, none, 0);
	CHECK(strncmp(b.v.reason, "bimodal", 7) != 0, "one outlier, same placement: %s (%s)", b.v.reason,
	      growth_name(b.v.cls));
	bench_result_clear(&b);

	/* a step of growth (the high points all at the largest N) is no bimodality */
	const int step[8] = {0, 0, 0, 0, 1, 1, 1, 1};
	sweep(&b, h, step, cpu_alt, moved_some, 0);
	CHECK(strncmp(b.v.reason, "bimodal", 7) != 0, "a step: %s (%s)", b.v.reason,
	      growth_name(b.v.cls));
	bench_result_clear(&b);
	hist_free(h);
	return t_done("test_bimodal");
}
