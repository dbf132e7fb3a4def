/* SPDX-License-Identifier: MIT */
/* The tasks axis (src/core/tasks.c): its series of K, the parameters it
 * adds to a bench, and a real sweep of fs.create (threads, one shared
 * directory) and mem.fault (processes) in a scratch directory: the points,
 * the per-task figures and the merged counts agree, and nothing is left. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "core/clock.h"
#include "core/param.h"
#include "core/registry.h"
#include "core/sweep.h"
#include "bench/table.h"
#include "t.h"
#include "t_result.h"
#include "core/tasks.h"

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* The sweep's structure: K = 1, 2, the per-task figures adding up. */
static void check_sweep(const char *name, const struct bench_result *br, const char *as)
{
	CHECK(br->status == BS_OK && br->nreps == 1, "%s: ok, one repetition (%d)", name, br->status);
	if (br->nreps != 1)
		return;
	const struct repetition *rep = &br->reps[0];
	CHECK(rep->npts == 2 && !rep->fail, "%s: two points, no failure (%d)", name, rep->npts);
	CHECK(br->axis_kind == AXIS_CONCURRENCY && br->axis_tasks && br->cpus_online >= 1,
	      "%s: a concurrency axis of tasks", name);
	for (int i = 0; i < rep->npts; i++) {
		const struct point *p = &rep->pts[i];
		json_t *t = json_object_get(p->extra, "tasks");
		json_t *per = json_object_get(t, "per_task");
		CHECK(p->n == (uint64_t)(i + 1) && json_array_size(per) == p->n, "%s: K=%llu tasks",
		      name, (unsigned long long)p->n);
		uint64_t sum = 0;
		for (size_t k = 0; k < json_array_size(per); k++)
			sum += (uint64_t)json_integer_value(json_object_get(json_array_get(per, k), "ops"));
		CHECK(sum == p->ops && p->st.count == p->ops, "%s: merged ops %llu = sum %llu", name,
		      (unsigned long long)p->ops, (unsigned long long)sum);
		uint64_t binned = 0; /* no count left from the point before */
		for (int j = 0; j < p->nbins; j++)
			binned += p->bins[j].count;
		CHECK(binned == p->ops, "%s: K=%llu: the histogram holds %llu of %llu ops", name,
		      (unsigned long long)p->n, (unsigned long long)binned, (unsigned long long)p->ops);
		double f = json_number_value(json_object_get(t, "fairness"));
		CHECK(p->ops == 0 || (f >= 1.0 / (double)p->n - 1e-9 && f <= 1 + 1e-9),
		      "%s: fairness %g within [1/K, 1]", name, f);
		CHECK(!strcmp(json_string_value(json_object_get(t, "as")), as), "%s: as=%s", name, as);
		CHECK(p->nseries == 20 && fabs(p->ops_per_s * p->elapsed_s - (double)p->ops) < 1,
		      "%s: ops_per_s over the window", name);
	}
}

int main(void)
{
	uint64_t s[16];
	int n = tasks_series(4, s, 16);
	CHECK(n == 3 && s[0] == 1 && s[1] == 2 && s[2] == 4, "K = 1, 2, 4 (%d)", n);
	n = tasks_series(6, s, 16);
	CHECK(n == 4 && s[2] == 4 && s[3] == 6, "K ends with the largest off the powers of 2");
	n = tasks_series(1, s, 16);
	CHECK(n == 1 && s[0] == 1, "K = 1 alone");
	CHECK(tasks_default_max(1) >= 1 && tasks_default_max(0) == 2 * tasks_default_max(1),
	      "default: twice the CPUs, --quick the CPUs");

	const struct bench *create = bench_find("fs.create"), *fault = bench_find("mem.fault");
	const struct bench *readdir_b = bench_find("fs.readdir");
	CHECK(create && fault && readdir_b, "benches found");
	if (!create || !fault || !readdir_b)
		return t_done("test_tasks");
	CHECK(param_find(create, "as") && param_find(create, "shared"), "fs.create takes as, shared");
	CHECK(param_find(fault, "as") && !param_find(fault, "shared"), "mem.fault takes as, not shared");
	CHECK(!param_find(readdir_b, "as"), "fs.readdir is not a tasks bench");

	reg_init();
	char scratch[512];
	CHECK(reg_mkscratch("/tmp", "sbtest-tasks", scratch, sizeof(scratch)) == 0, "scratch");
	struct clock_info clk;
	clock_calibrate(&clk);
	struct sweep_opts o = {.scratch = scratch, .budget_s = 0.03, .repeat = 1, .ci_target = 0.02,
			       .min_samples = 30, .op_timeout_s = 10, .clk = &clk, .tasks = 2};
	struct bench_result br;
	memset(&br, 0, sizeof(br));
	br.params = json_pack("{s:s,s:s}", "as", "thread", "shared", "1");
	CHECK(sweep_bench(create, &o, &br) == 0, "fs.create threads shared: sweep returns 0");
	check_sweep("fs.create thread shared", &br, "thread");
	free_br(&br);

	memset(&br, 0, sizeof(br));
	br.params = json_object();
#ifdef MAP_ANONYMOUS
	CHECK(sweep_bench(fault, &o, &br) == 0, "mem.fault processes: sweep returns 0");
	check_sweep("mem.fault proc", &br, "proc");
	CHECK(!strcmp(json_string_value(json_object_get(br.params, "as")), "proc"),
	      "the default as=proc recorded");
#else /* no shared anonymous memory: processes cannot hand their figures back */
	CHECK(sweep_bench(bench_find("mem.mmap"), &o, &br) == 0 && br.status == BS_SKIPPED &&
		      strstr(br.skip_reason, "as=thread"),
	      "POSIX build: as=proc skipped, saying why");
#endif
	free_br(&br);

	CHECK(entries(scratch) == 0, "nothing left in the scratch directory (%d)", entries(scratch));
	reg_cleanup();
	return t_done("test_tasks");
}
