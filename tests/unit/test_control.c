/* SPDX-License-Identifier: MIT */
/* A bench with a control: the verdict fitted on the op's median less the
 * control's, the note that says when the control's growth explains the
 * op's, and the new point fields (control, per_op counter and scope,
 * setup_per_sample, peer_per_op) written and read back. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/hist.h"
#include "out/result_io.h"
#include "core/result.h"
#include "t.h"
#include "core/verdict.h"
#include "core/usage.h"

/* stats of samples around med (+/- 1%) */
static void stats_at(struct hist *h, double med, struct stats *s)
{
	hist_reset(h);
	for (int k = 0; k < 2000; k++)
		hist_add(h, med * (0.99 + 0.02 * (k % 101) / 100.0));
	hist_summary(h, s);
}

static const char *ctl_note(const struct bench_result *b)
{
	for (int i = 0; i < b->nnotes; i++)
		if (!strncmp(b->notes[i], "control: ", 9))
			return b->notes[i];
	return NULL;
}

int main(void)
{
	struct hist *h = hist_new();
	struct bench_result b;
	memset(&b, 0, sizeof(b));
	b.name = strdup("fs.fsync");
	struct repetition *rp = bench_add_rep(&b);
	/* the control grows as n (1 us + 0.5 us n), the op adds 2 us */
	for (int i = 0; i < 6; i++) {
		struct point *p = rep_add_point(rp);
		p->n = 1u << (2 * i);
		double ctl = 1000 + 500.0 * (double)p->n;
		stats_at(h, ctl + 2000, &p->st);
		stats_at(h, ctl, &p->ctl);
		p->has_ctl = 1;
		p->batch = 1;
		p->samples = p->ops = p->st.count;
		p->cpu_s = 2e-6;
		p->user_s = NAN;
		p->sys_s = 2e-6;
		p->usage_counter = USAGE_THREAD;
		p->usage_scope = USAGE_TIMED;
		p->setup_cpu_s = 1e-3;
		p->setup_wall_s = 2e-3;
		p->peers = json_pack("{s:{s:f,s:i}}", "server", "cpu_s", 3e-6, "processes", 1);
		point_set_bins(p, h);
	}
	rep_fit(rp, 0);
	bench_fit(&b);
	bench_control_note(&b);
	CHECK(b.v.cls == GROWTH_O1, "difference constant: %s (%s)", growth_name(b.v.cls), b.v.reason);
	CHECK(fabs(b.v.a - 2000) < 100, "what the op adds: %g ns", b.v.a);
	const char *n = ctl_note(&b);
	CHECK(n && strstr(n, "the op alone: O(n)") && strstr(n, "the control alone: O(n)"), "note: %s",
	      n ? n : "(none)");
	CHECK(n && strstr(n, "explains"), "the control's growth explains the op's: %s", n ? n : "");
	bench_control_note(&b); /* settled again: still one */
	int k = 0;
	for (int i = 0; i < b.nnotes; i++)
		k += !strncmp(b.notes[i], "control: ", 9);
	CHECK(k == 1, "one control note, %d", k);

	/* written and read back */
	json_t *j = bench_to_json(&b);
	struct bench_result r;
	memset(&r, 0, sizeof(r));
	char err[256] = "";
	json_object_set_new(j, "name", json_string("fs.fsync"));
	int rc = j ? bench_from_json(j, &r, err, sizeof(err)) : -1;
	CHECK(rc == 0, "read back: %s", err);
	if (rc == 0 && r.nreps == 1 && r.reps[0].npts == 6) {
		const struct point *p = &r.reps[0].pts[5], *q = &b.reps[0].pts[5];
		CHECK(p->has_ctl && p->ctl.p50 == q->ctl.p50, "control stats");
		CHECK(p->cpu_s == q->cpu_s && isnan(p->user_s) && p->sys_s == q->sys_s, "per_op");
		CHECK(p->usage_counter == USAGE_THREAD && p->usage_scope == USAGE_TIMED, "counter, scope");
		CHECK(p->setup_cpu_s == 1e-3 && p->setup_wall_s == 2e-3, "setup_per_sample");
		CHECK(json_real_value(json_object_get(json_object_get(p->peers, "server"), "cpu_s")) == 3e-6,
		      "peer_per_op");
		CHECK(r.v.cls == GROWTH_O1, "verdict read back");
	} else {
		CHECK(0, "points read back");
	}
	/* a point of an older result: no scope, no cpu_s */
	json_t *pj = json_array_get(json_object_get(json_array_get(json_object_get(j, "repetitions"), 0), "points"), 0);
	json_t *po = json_object_get(pj, "per_op");
	json_object_del(po, "scope");
	json_object_del(po, "counter");
	json_object_del(po, "cpu_s");
	json_object_set_new(po, "user_s", json_real(1e-6));
	struct bench_result old;
	memset(&old, 0, sizeof(old));
	rc = bench_from_json(j, &old, err, sizeof(err));
	CHECK(rc == 0 && old.reps[0].pts[0].usage_scope == USAGE_WINDOW &&
	      old.reps[0].pts[0].usage_counter == USAGE_PROCESS &&
	      fabs(old.reps[0].pts[0].cpu_s - 3e-6) < 1e-12,
	      "an older point: the process around the point, cpu_s = user + sys (%s)", err);
	bench_result_clear(&old);
	bench_result_clear(&r);
	json_decref(j);
	bench_result_clear(&b);
	hist_free(h);
	return t_done("control");
}
