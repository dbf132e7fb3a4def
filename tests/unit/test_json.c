/* SPDX-License-Identifier: MIT */
/* Result JSON: written then read back equal; bad documents give an error
 * naming the field, never a crash. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/compare.h"
#include "core/hist.h"
#include "out/result_io.h"
#include "core/result.h"
#include "t.h"
#include "core/verdict.h"

static void make_result(struct run_result *r)
{
	memset(r, 0, sizeof(*r));
	r->schema_version = SB_SCHEMA_VERSION;
	r->tool_version = strdup("9.9.9");
	r->started = strdup("2026-12-03T08:00:00Z");
	r->finished = strdup("2026-12-03T08:01:00Z");
	r->duration_s = 60.5;
	r->host = strdup("host \"quoted\"\n\ttab");
	r->argc = 2;
	r->argv = calloc(2, sizeof(char *));
	r->argv[0] = strdup("scalebench");
	r->argv[1] = strdup("run");
	r->options = json_pack("{s:s}", "dir", "/tmp");
	r->snapshot = json_pack("{s:{s:s}}", "kernel", "release", "6.18");
	snprintf(r->clock.id, sizeof(r->clock.id), "CLOCK_MONOTONIC");
	snprintf(r->clock.source, sizeof(r->clock.source), "tsc");
	r->clock.resolution_ns = 1;
	r->clock.read_cost_ns = 15.75;
	struct bench_result *b = result_add_bench(r);
	b->name = strdup("fs.create");
	b->axis = strdup("entries in the directory");
	b->summary = strdup("create");
	b->op_desc = strdup("openat");
	b->version = 3;
	b->max_n = 100;
	bench_add_note(b, "note %d", 1);
	bench_add_note(b, "note %d", 1); /* kept once */
	struct hist *h = hist_new();
	/* compare --ab: one side of a paired run (docs/result-schema.md) */
	r->ab = json_pack("{s:s,s:s,s:s,s:s,s:i,s:s}", "id", "t-1", "side", "b", "label", "B", "spec",
			  "dir=/x", "pairs", 2, "order", "alternating");
	for (int rep = 0; rep < 2; rep++) {
		struct repetition *rp = bench_add_rep(b);
		rp->ab_pair = rep + 1;
		rp->ab_order = 2 - rep;
		for (int i = 0; i < 5; i++) {
			struct point *p = rep_add_point(rp);
			hist_reset(h);
			for (int k = 0; k < 100 + i; k++)
				hist_add(h, 1000.0 + 10 * i + k % 7 + rep);
			p->n = (uint64_t)(i + 1) * 10;
			p->batch = 1;
			p->samples = p->ops = h->count;
			p->stop = i == 4 ? STOP_BUDGET : STOP_CI;
			p->elapsed_s = 0.25;
			hist_summary(h, &p->st);
			p->user_s = 1e-7;
			p->sys_s = 2e-6;
			p->vcsw = 0.5;
			point_set_bins(p, h);
		}
		rep_fit(rp, 0);
	}
	b->reps[1].fail = calloc(1, sizeof(struct failure));
	struct failure *f = b->reps[1].fail;
	snprintf(f->phase, sizeof(f->phase), "grow");
	snprintf(f->call, sizeof(f->call), "socket");
	snprintf(f->kind, sizeof(f->kind), "limit");
	snprintf(f->msg, sizeof(f->msg), "socket: Too many open files");
	f->n = 41;
	f->err = 24;
	f->state = json_pack("{s:i}", "open_fds", 48);
	b->status = BS_FAILED;
	bench_fit(b);
	struct bench_result *s = result_add_bench(r);
	s->name = strdup("net.other");
	s->status = BS_SKIPPED;
	s->skip_reason = strdup("needs root");
	hist_free(h);
}

static int same_stats(const struct stats *a, const struct stats *b)
{
	return a->count == b->count && a->p50 == b->p50 && a->p99 == b->p99 && a->max == b->max &&
	       a->min == b->min && a->med_lo == b->med_lo && a->med_hi == b->med_hi &&
	       fabs(a->mean - b->mean) <= 1e-9 * a->mean;
}

static char path[256];

static int read_text(const char *text, char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	struct run_result r;
	int rc = result_read_file(path, &r, err, errlen);
	if (rc == 0)
		result_free(&r);
	return rc;
}

int main(void)
{
	struct run_result a, b;
	char err[512];
	snprintf(path, sizeof(path), "/tmp/sb-test-json.%d.json", (int)getpid());
	make_result(&a);
	CHECK(a.benches[0].nnotes == 1, "duplicate note kept once");
	CHECK(result_write_file(&a, path, err, sizeof(err)) == 0, "write: %s", err);
	int rc = result_read_file(path, &b, err, sizeof(err));
	CHECK(rc == 0, "read back: %s", err);
	if (rc == 0) {
		CHECK(!strcmp(a.host, b.host) && !strcmp(a.tool_version, b.tool_version), "host/version");
		CHECK(b.argc == 2 && !strcmp(b.argv[1], "run"), "argv");
		CHECK(b.clock.read_cost_ns == 15.75 && !strcmp(b.clock.source, "tsc"), "clock");
		CHECK(b.nbenches == 2, "bench count %d", b.nbenches);
		const struct bench_result *x = &a.benches[0], *y = &b.benches[0];
		CHECK(!strcmp(y->name, "fs.create") && y->version == 3 && y->status == BS_FAILED, "bench header");
		CHECK(y->nreps == 2 && y->reps[0].npts == 5, "repetitions and points");
		CHECK(y->nreps == 2 && y->reps[0].ab_pair == 1 && y->reps[0].ab_order == 2 &&
		      y->reps[1].ab_pair == 2 && y->reps[1].ab_order == 1,
		      "compare --ab: each repetition's pair and order read back");
		CHECK(json_equal(a.ab, b.ab) && compare_ab_paired(&a, &a) == 0,
		      "compare --ab: the run's ab object read back");
		int pts_ok = 1;
		for (int r = 0; r < 2 && y->nreps == 2; r++)
			for (int i = 0; i < 5; i++) {
				const struct point *p = &x->reps[r].pts[i], *q = &y->reps[r].pts[i];
				pts_ok &= p->n == q->n && p->stop == q->stop && p->samples == q->samples &&
					  same_stats(&p->st, &q->st) && p->nbins == q->nbins &&
					  p->sys_s == q->sys_s;
				for (int k = 0; k < p->nbins && p->nbins == q->nbins; k++)
					pts_ok &= p->bins[k].idx == q->bins[k].idx && p->bins[k].count == q->bins[k].count;
			}
		CHECK(pts_ok, "every point identical after the round trip");
		CHECK(y->v.cls == x->v.cls && y->v.exponent == x->v.exponent && !strcmp(y->v.reason, x->v.reason), "verdict");
		CHECK(y->reps[1].fail && y->reps[1].fail->err == 24 && y->reps[1].fail->n == 41 &&
		      json_integer_value(json_object_get(y->reps[1].fail->state, "open_fds")) == 48, "failure");
		CHECK(b.benches[1].status == BS_SKIPPED && !strcmp(b.benches[1].skip_reason, "needs root"), "skipped bench");
		CHECK(json_equal(a.snapshot, b.snapshot), "snapshot");
		result_free(&b);
	}
	result_free(&a);

	/* bad documents: each error names what is wrong */
	struct { const char *text, *expect; } bad[] = {
		{"", "expected near end of file"},
		{"{\"schema_version\": 1, \"tool\": {\"version\": \"1\"}, \"benches\": [", "expected near end of file"},
		{"[1,2,3]", "not a JSON object"},
		/* found by the fuzzer: a version beyond int was read as -1, which
		 * did not read again once written */
		{"{\"schema_version\": 1, \"tool\": {\"version\": \"1\"}, \"benches\": [{\"name\": \"x\", \"version\": 333333333333333331, \"status\": \"ok\", \"verdict\": {\"class\": \"O(1)\", \"reason\": \"\"}}]}", "version: out of range"},
		{"{}", "schema_version: missing"},
		{"{\"schema_version\": 99}", "schema_version 99 is not supported"},
		{"{\"schema_version\": 1, \"tool\": {\"version\": \"1\"}}", "benches: missing"},
		{"{\"schema_version\": 1, \"tool\": {\"version\": \"1\"}, \"benches\": [{\"name\": 5}]}", "name: not a string"},
		{"{\"schema_version\": 1, \"tool\": {\"version\": \"1\"}, \"benches\": [{\"name\": \"x\", \"version\": 1, \"status\": \"ok\", \"verdict\": {\"class\": \"O(zzz)\", \"reason\": \"\"}}]}", "unknown growth class"},
		{"{\"schema_version\": 1, \"tool\": {\"version\": \"1\"}, \"benches\": [{\"name\": \"x\", \"version\": 1, \"status\": \"ok\", \"verdict\": {\"class\": \"O(1)\", \"reason\": \"\"}, \"repetitions\": [{\"points\": [{\"n\": -4}], \"verdict\": {\"class\": \"O(1)\", \"reason\": \"\"}}]}]}", "n: not a non-negative integer"},
		{"{\"schema_version\": 1, \"tool\": {\"version\": \"1\"}, \"benches\": [{\"name\": \"x\", \"version\": 1, \"status\": \"ok\", \"verdict\": {\"class\": \"O(1)\", \"reason\": \"\"}, \"repetitions\": [{\"points\": [{\"n\": 1, \"batch\": 1, \"samples\": 1, \"ops\": 1, \"stop\": \"ci\", \"stats\": {\"count\": 1, \"p50_ns\": 1, \"p99_ns\": 1, \"median_ci95_ns\": [1, 1]}, \"histogram\": {\"sub_buckets\": 128, \"min_exponent\": -4, \"bins\": [[999999, 1]]}}], \"verdict\": {\"class\": \"O(1)\", \"reason\": \"\"}}]}]}", "malformed bin"},
		{"{\"schema_version\": 1, \"tool\": {\"version\": \"1\"}, \"benches\": [{\"name\": \"x\", \"version\": 1, \"status\": \"ok\", \"verdict\": {\"class\": \"O(1)\", \"reason\": \"\"}, \"repetitions\": [{\"points\": [{\"n\": 1, \"batch\": 1, \"samples\": 1, \"ops\": 1, \"stop\": \"ci\", \"stats\": {\"count\": 1, \"p50_ns\": 1, \"p99_ns\": 1, \"median_ci95_ns\": [1, 1]}, \"histogram\": {\"sub_buckets\": 64, \"min_exponent\": -4, \"bins\": []}}], \"verdict\": {\"class\": \"O(1)\", \"reason\": \"\"}}]}]}", "layout differs"},
		{"{\"schema_version\": 1, \"schema_version\": 1}", "duplicate"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		rc = read_text(bad[i].text, err, sizeof(err));
		CHECK(rc != 0 && strstr(err, path) && strstr(err, bad[i].expect),
		      "bad doc %zu: rc %d, error '%s' lacks '%s'", i, rc, err, bad[i].expect);
	}
	struct run_result r;
	CHECK(result_read_file("/nonexistent/x.json", &r, err, sizeof(err)) != 0 && strstr(err, "/nonexistent/x.json"), "missing file named: %s", err);
	CHECK(result_write_file(&a, "/nonexistent/x.json", err, sizeof(err)) != 0, "write into a missing directory fails");

	/* one bench alone (how a worker hands its bench back): to JSON, back, to
	 * JSON again gives the same document, failure and all */
	for (int i = 0; i < a.nbenches; i++) {
		json_t *j1 = bench_to_json(&a.benches[i]);
		struct bench_result one;
		int brc = bench_from_json(j1, &one, err, sizeof(err));
		CHECK(brc == 0, "bench %d reads back: %s", i, err);
		json_t *j2 = brc == 0 ? bench_to_json(&one) : NULL;
		CHECK(j1 && j2 && json_equal(j1, j2), "bench %d: the same document after a round trip", i);
		if (brc == 0)
			bench_result_clear(&one);
		json_decref(j1);
		json_decref(j2);
	}
	/* a bench read back with 3 notes takes more (a worker's repetitions
	 * merged): the array read must leave room to grow (ASan/valgrind see
	 * an overflow otherwise) */
	make_result(&a);
	{
		struct bench_result grow;
		json_t *jg = bench_to_json(&a.benches[0]);
		json_object_set_new(jg, "notes", json_pack("[s,s,s]", "one", "two", "three"));
		CHECK(bench_from_json(jg, &grow, err, sizeof(err)) == 0 && grow.nnotes == 3,
		      "3 notes read back: %s", err);
		for (int k = 0; k < 6; k++)
			bench_add_note(&grow, "more %d", k);
		CHECK(grow.nnotes == 9 && !strcmp(grow.notes[2], "three") &&
			      !strcmp(grow.notes[8], "more 5"),
		      "... and 6 added after them: %d notes", grow.nnotes);
		bench_result_clear(&grow);
		json_decref(jg);
	}
	result_free(&a);
	struct bench_result bad1;
	json_t *nb = json_pack("{s:s,s:i}", "name", "x", "version", 1);
	CHECK(bench_from_json(nb, &bad1, err, sizeof(err)) != 0 && strstr(err, "status"),
	      "a bench without its fields is refused, naming one: %s", err);
	json_decref(nb);
	unlink(path);
	return t_done("json");
}
