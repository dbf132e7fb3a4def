/* SPDX-License-Identifier: MIT */
/* The fleet writers (src/out/fleet.c) over a result built here: names
 * with variant and file system, the median over repetitions at the largest
 * N, statuses from the bench and from a comparison, and text that cannot
 * break a KTAP or LAVA line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "out/report.h"
#include "t.h"
#include "core/verdict.h"

static void add_point(struct repetition *rep, uint64_t n, double p50, double p99)
{
	struct point *p = rep_add_point(rep);
	p->n = n;
	p->st.p50 = p50;
	p->st.p99 = p99;
	p->st.med_lo = p50 * 0.99;
	p->st.med_hi = p50 * 1.01;
}

static void build(struct run_result *r)
{
	memset(r, 0, sizeof(*r));
	r->host = strdup("host#1\nx");
	r->started = strdup("2026-12-04T06:00:00Z");
	r->snapshot = json_pack("{s:{s:s,s:s},s:{s:s}}", "kernel", "release", "6.1.0-test", "machine",
				"x86_64", "filesystem", "type", "tmpfs");
	struct bench_result *b = result_add_bench(r);
	b->name = strdup("fs.create");
	b->target = strdup("ext4");
	b->variant = strdup("sync=1");
	const double cost[3] = {100, 300, 200}; /* at N = 1000 in three repetitions: median 200 */
	for (int q = 0; q < 3; q++) {
		struct repetition *rep = bench_add_rep(b);
		add_point(rep, 10, 50, 60);
		add_point(rep, 100, 70, 90);
		add_point(rep, 1000, cost[q], cost[q] * 2);
	}
	bench_fit(b);
	b = result_add_bench(r);
	b->name = strdup("net.bind");
	b->status = BS_FAILED;
	struct repetition *rep = bench_add_rep(b);
	add_point(rep, 10, 5, 6);
	rep->fail = calloc(1, sizeof(*rep->fail));
	snprintf(rep->fail->msg, sizeof(rep->fail->msg), "EMFILE # too many");
	b = result_add_bench(r);
	b->name = strdup("io.seqread");
	b->status = BS_SKIPPED;
	b->skip_reason = strdup("needs root\n# really");
}

static char *write_fmt(const char *name, const struct run_result *r, const json_t *cmp)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(fleet_write(f, fleet_format_from_name(name), r, cmp) == 0, "%s written", name);
	fclose(f);
	return buf;
}

static void has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;
	int found = 0;
	while (!found && (p = strstr(p, line))) {
		found = (p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]);
		p++;
	}
	CHECK(found, "line '%s' in:\n%s", line, text);
}

int main(void)
{
	CHECK(fleet_format_from_name("kcidb") == 0 && fleet_format_from_name("ktap") == 3, "names");
	CHECK(fleet_format_from_name("tap") == -1 && fleet_format_from_name(NULL) == -1, "unknown");
	struct run_result r;
	build(&r);

	/* the first bench once more: numbered, judged by nothing but itself */
	struct bench_result *b = result_add_bench(&r);
	b->name = strdup("fs.create");
	b->target = strdup("ext4");
	b->variant = strdup("sync=1");
	b->status = BS_SKIPPED;
	b->skip_reason = strdup("again");

	char *k = write_fmt("ktap", &r, NULL);
	CHECK(!strncmp(k, "KTAP version 1\n", 15), "version line first");
	has_line(k, "# scalebench on host 1 x, Linux 6.1.0-test");
	has_line(k, "1..4");
	has_line(k, "ok 4 scalebench.fs.create[sync=1][ext4].2 # SKIP again");
	has_line(k, "ok 1 scalebench.fs.create[sync=1][ext4]");
	has_line(k, "not ok 2 scalebench.net.bind");
	has_line(k, "ok 3 scalebench.io.seqread[tmpfs] # SKIP needs root   really");
	CHECK(strstr(k, "cost 200 ns at N=1000, p99 400 ns"), "median of the repetitions at the largest N:\n%s", k);
	free(k);

	char *l = write_fmt("lava", &r, NULL);
	has_line(l, "lava-test-case scalebench.fs.create.sync_1.ext4 --result pass --measurement 200 --units ns");
	has_line(l, "lava-test-case scalebench.fs.create.sync_1.ext4.p99 --result pass --measurement 400 --units ns");
	has_line(l, "lava-test-case scalebench.net.bind --result fail --measurement 5 --units ns");
	has_line(l, "lava-test-case scalebench.io.seqread.tmpfs --result skip");
	free(l);

	char *p = write_fmt("lkp", &r, NULL);
	has_line(p, "scalebench.fs.create[sync=1][ext4].pass: 1");
	has_line(p, "scalebench.fs.create[sync=1][ext4].cost_ns: 200");
	has_line(p, "scalebench.fs.create[sync=1][ext4].n: 1000");
	has_line(p, "scalebench.net.bind.fail: 1");
	has_line(p, "scalebench.io.seqread[tmpfs].skip: 1");
	free(p);

	/* a comparison calling fs.create slower fails it; noisy is DONE */
	json_t *cmp = json_pack("{s:[{s:s,s:s},{s:s,s:s}]}", "benches", "name", "fs.create[sync=1]@ext4",
				"word", "slower", "name", "net.bind", "word", "same");
	char *j = write_fmt("kcidb", &r, cmp);
	json_error_t je;
	json_t *d = json_loads(j, 0, &je);
	CHECK(d != NULL, "kcidb is JSON: %s", je.text);
	json_t *tests = json_object_get(d, "tests");
	CHECK(json_integer_value(json_object_get(json_object_get(d, "version"), "major")) == 4, "v4");
	CHECK(!strcmp(json_string_value(json_object_get(json_object_get(json_array_get(json_object_get(d, "builds"), 0), "misc"), "kernel_release")), "6.1.0-test"), "kernel");
	CHECK(!strcmp(json_string_value(json_object_get(json_array_get(json_object_get(d, "builds"), 0), "architecture")), "x86_64"), "arch");
	int seen = 0;
	size_t i;
	json_t *t;
	json_array_foreach(tests, i, t) {
		const char *path = json_string_value(json_object_get(t, "path"));
		const char *st = json_string_value(json_object_get(t, "status"));
		CHECK(strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == strlen(path), "path %s", path);
		if (!strcmp(path, "scalebench.fs.create.sync_1.ext4")) {
			seen++;
			CHECK(!strcmp(st, "FAIL"), "slower fails: %s", st);
			json_t *num = json_object_get(t, "number");
			CHECK(json_real_value(json_object_get(num, "value")) == 200 &&
				      !strcmp(json_string_value(json_object_get(num, "unit")), "ns"), "number");
		}
		if (!strcmp(path, "scalebench.net.bind")) {
			seen++;
			CHECK(!strcmp(st, "FAIL"), "a failed bench stays FAIL whatever compare says");
		}
		if (!strcmp(path, "scalebench.io.seqread.tmpfs")) {
			seen++;
			CHECK(!strcmp(st, "SKIP") && !json_object_get(t, "number"), "skip has no number");
		}
	}
	CHECK(seen == 3, "three tests found: %d", seen);
	CHECK(strstr(j, "\"path\": \"scalebench.fs.create.sync_1.ext4.2\""), "the repeated bench numbered");
	json_decref(d);
	free(j);
	json_decref(cmp);

	cmp = json_pack("{s:[{s:s,s:s}]}", "benches", "name", "fs.create[sync=1]@ext4", "word", "noisy");
	j = write_fmt("kcidb", &r, cmp);
	CHECK(strstr(j, "\"status\": \"DONE\""), "noisy is DONE");
	free(j);
	json_decref(cmp);
	result_free(&r);
	return t_done("fleet");
}
