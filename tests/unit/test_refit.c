/* SPDX-License-Identifier: MIT */
/* Verdicts recomputed from stored results, so that a change of the verdict
 * rules is judged on the same data before and after (docs/method.md,
 * "Ties": test_refit).
 *
 *   build/native/tests/test_refit RESULT.json...
 *       per file, every load-axis bench whose verdict the current rules
 *       give differently from the one stored (old -> new, with both
 *       reasons), then the unclear count before and after and the unclear
 *       reasons by kind. Exit 0.
 *   build/native/tests/test_refit        (as a unit test, no arguments)
 *       a result written and read back refits to the verdict (class,
 *       reason, tie) it stored. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/hist.h"
#include "core/result.h"
#include "core/verdict.h"
#include "out/result_io.h"
#include "t.h"

/* The kind of an unclear verdict's reason, to count what a rule removes. */
static const char *reason_kind(const struct verdict *v)
{
	const char *r = v->reason;
	if (strstr(r, "fit equally well"))
		return strstr(r, "O(n) and O(n log n)") || strstr(r, "O(n log n) and O(n)")
			       ? "tie n/n log n"
			       : "tie other";
	if (!strncmp(r, "bimodal", 7))
		return "bimodal";
	if (strstr(r, "b/se"))
		return "noise (b/se)";
	if (strstr(r, "includes 0"))
		return "noise (slope CI)";
	if (strstr(r, "scatter"))
		return "noise (scatter)";
	return "other";
}

static const char *kinds[] = {"tie n/n log n", "tie other", "bimodal", "noise (b/se)",
			      "noise (slope CI)", "noise (scatter)", "other"};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))

static int kind_index(const char *k)
{
	for (int i = 0; i < NKINDS; i++)
		if (!strcmp(kinds[i], k))
			return i;
	return NKINDS - 1;
}

static void label(const struct bench_result *b, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", b->name, b->variant ? " " : "", b->variant ? b->variant : "",
		 b->target ? " @" : "", b->target ? b->target : "");
}

static int refit_file(const char *path, int *tot_before, int *tot_after, int *kb, int *ka)
{
	struct run_result r;
	char err[256];
	memset(&r, 0, sizeof(r));
	if (result_read_file(path, &r, err, sizeof(err))) {
		fprintf(stderr, "test_refit: %s: %s\n", path, err);
		return -1;
	}
	int before = 0, after = 0, changed = 0;
	printf("== %s\n", path);
	for (int i = 0; i < r.nbenches; i++) {
		struct bench_result *b = &r.benches[i];
		if (b->status == BS_SKIPPED || b->axis_kind != 0)
			continue;
		struct verdict old = b->v;
		bench_fit(b);
		char lb[200];
		label(b, lb, sizeof(lb));
		if (old.cls == GROWTH_UNCLEAR) {
			before++;
			kb[kind_index(reason_kind(&old))]++;
		}
		if (b->v.cls == GROWTH_UNCLEAR) {
			after++;
			ka[kind_index(reason_kind(&b->v))]++;
		}
		if (getenv("REFIT_ALL") ? b->v.cls == GROWTH_UNCLEAR : old.cls != b->v.cls || strcmp(old.reason, b->v.reason)) {
			changed++;
			printf("  %-40s %s -> %s%s%s\n      was: %s\n      now: %s\n", lb,
			       growth_name(old.cls), growth_name(b->v.cls), b->v.tie ? ", tie " : "",
			       b->v.tie ? growth_name(b->v.tie) : "", old.reason, b->v.reason);
		}
	}
	printf("  load-axis unclear: %d before, %d after (%d verdicts or reasons changed)\n", before,
	       after, changed);
	*tot_before += before;
	*tot_after += after;
	result_free(&r);
	return 0;
}

/* ---- the unit test: a stored verdict is what a refit gives ---- */

static void stats_at(struct hist *h, double med, struct stats *s)
{
	hist_reset(h);
	for (int k = 0; k < 2000; k++)
		hist_add(h, med * (0.99 + 0.02 * (k % 101) / 100.0));
	hist_summary(h, s);
}

static void self_test(void)
{
	struct hist *h = hist_new();
	struct run_result r;
	memset(&r, 0, sizeof(r));
	r.schema_version = 1;
	static const double grow[3] = {0, 1.0, 0.002};
	for (int k = 0; k < 3; k++) {
		struct bench_result *b = result_add_bench(&r);
		b->name = strdup(k == 0 ? "flat" : k == 1 ? "linear" : "small");
		struct repetition *rp = bench_add_rep(b);
		static const uint64_t ns[8] = {1, 3, 10, 30, 100, 300, 1000, 3000};
		for (int i = 0; i < 8; i++) {
			struct point *p = rep_add_point(rp);
			p->n = ns[i];
			stats_at(h, 1000 + grow[k] * (double)ns[i] * 10, &p->st);
			p->batch = 1;
			p->samples = p->ops = p->st.count;
			p->cpu_start = p->cpu_end = -1;
			point_set_bins(p, h);
		}
		rep_fit(rp, 0);
		bench_fit(b);
	}
	/* a tie is written and read back (the verdict of a fourth bench, set
	 * by hand: the rule itself is test_fit's) */
	struct bench_result *tb = result_add_bench(&r);
	tb->name = strdup("tied");
	tb->v = r.benches[1].v;
	tb->v.tie = GROWTH_NLOGN;
	char path[] = "/tmp/sb-test-refit-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	if (fd >= 0)
		close(fd);
	char err[256];
	CHECK(result_write_file(&r, path, err, sizeof(err)) == 0, "write: %s", err);
	struct run_result back;
	memset(&back, 0, sizeof(back));
	CHECK(result_read_file(path, &back, err, sizeof(err)) == 0, "read: %s", err);
	unlink(path);
	CHECK(back.nbenches == 4, "%d benches", back.nbenches);
	CHECK(back.nbenches == 4 && back.benches[3].v.tie == GROWTH_NLOGN &&
		      back.benches[1].v.tie == GROWTH_UNCLEAR,
	      "tie not read back");
	for (int i = 0; i < back.nbenches && i < 3; i++) {
		struct bench_result *b = &back.benches[i];
		struct verdict old = b->v;
		bench_fit(b);
		CHECK(b->v.cls == old.cls && b->v.cls == r.benches[i].v.cls, "%s: %s stored, %s refitted",
		      b->name, growth_name(old.cls), growth_name(b->v.cls));
		CHECK(!strcmp(b->v.reason, old.reason), "%s: reason '%s' vs '%s'", b->name, b->v.reason,
		      old.reason);
		CHECK(b->v.tie == old.tie, "%s: tie %d vs %d", b->name, b->v.tie, old.tie);
	}
	CHECK(r.benches[0].v.cls == GROWTH_O1, "flat: %s", growth_name(r.benches[0].v.cls));
	CHECK(r.benches[1].v.cls == GROWTH_N, "linear: %s", growth_name(r.benches[1].v.cls));
	result_free(&back);
	result_free(&r);
	hist_free(h);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		self_test();
		return t_done("test_refit");
	}
	int before = 0, after = 0, kb[NKINDS] = {0}, ka[NKINDS] = {0}, bad = 0;
	for (int i = 1; i < argc; i++)
		bad |= refit_file(argv[i], &before, &after, kb, ka) < 0;
	printf("== all %d files: load-axis unclear %d before, %d after\n", argc - 1, before, after);
	for (int i = 0; i < NKINDS; i++)
		if (kb[i] || ka[i])
			printf("  %-18s %3d -> %3d\n", kinds[i], kb[i], ka[i]);
	return bad ? 2 : 0;
}
