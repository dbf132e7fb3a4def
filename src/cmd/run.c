/* SPDX-License-Identifier: MIT */
/* scalebench run: sweep the selected benches in a scratch directory made
 * in --dir and write the result. Everything it creates is registered
 * (registry.h) and removed at the end, on error, and on SIGINT/SIGTERM,
 * after which the partial result is still written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/jobrun.h"
#include "cmd/netopt.h"
#include "bench/netsrv.h"
#include "cmd/runner.h"

static void usage(FILE *f, const struct opt *opts)
{
	fprintf(f,
		"usage: scalebench run [BENCH|FAMILY ...] [options]\n"
		"       scalebench run FILE.job [options]\n\n"
		"Sweep each selected bench (default: all) over a geometric series of N and\n"
		"say how its cost grows. BENCH is a name from `scalebench list`, FAMILY a\n"
		"prefix such as fs or net (at most 64 words; a bench named twice runs once).\n\n"
		"FILE.job (a name ending in .job, or a path) describes the run instead: a\n"
		"[global] section and one section per job (bench = NAME, the options below\n"
		"without their dashes, parameters as KEY = VALUE), include FILE, $ncpus and\n"
		"environment variables; all checked before any work (exit 2 naming file and\n"
		"line). Options given here override the file's; --quick drops its sizes (max-n,\n"
		"min-n, repeat). The result records the job; show --job prints it back\n"
		"(docs/studies.md; studies/*.job, installed in share/scalebench/studies).\n\n"
		"-p KEY=VALUE sets a parameter of the benches that take it: `scalebench list\n"
		"BENCH` shows them, with their values, range and default. A KEY that no\n"
		"selected bench takes, or a VALUE out of its range, is exit 2 before any work.\n\n"
		"net.* benches run over loopback by default; --netns puts the server and the\n"
		"client in two network namespaces joined by a veth pair; --peer drives a\n"
		"`scalebench serve` on another host (see docs/net.md).\n\n");
	opt_help(f, opts);
	fprintf(f, "\nrt.wakeup measures timer wake-up latency (SCHED_FIFO, absolute\n"
		   "clock_nanosleep) at eight load levels scalebench makes: -p interval_us=,\n"
		   "priority=, duration=, cpus=, load_cpus=, load_procs= (docs/benches.md).\n"
		   "The levels are kinds, not a quantity: no growth verdict; the summary gives\n"
		   "the p99 per load kind and the worst kind.\n");
	fprintf(f, "\nBenches with a server, helpers or threads run under -p placement=same|spread|\n"
		   "free (each bench's default: scalebench list BENCH); each point records where\n"
		   "each side ran and whether one moved, and an unclear verdict on two levels\n"
		   "says \"bimodal: placement\" when that record explains it (docs/method.md).\n");
	fprintf(f, "\nexit: 0 done (failures met by a bench are recorded in the result), 1 the\n"
		   "harness failed, 2 bad arguments, target or --peer (unusable, busy), 3 a\n"
		   "sample exceeded --max-latency, 128+signal interrupted (the partial result is\n"
		   "still written).\n");
}

int cmd_run(int argc, char **argv, int full_argc, char **full_argv)
{
	struct runner rn;
	struct net_args na = {0};
	int fio = 0;
	runner_defaults(&rn, "run");
	const struct opt opts[] = {
		{"dir", 'd', OPT_STR, "PATH", "target directory; a scratch directory is made in it (default $TMPDIR or /tmp); on ext2/ext4 without a journal, a bench making files whose creates cost 3 hard links or more (recent deletions) is unclear", 0, 0, NULL, &rn.a.dir, NULL},
		{"fio", 0, OPT_FLAG, NULL, "run nothing: print fio's command line for the same job, per variant and point (io.seqread, io.seqwrite, io.randread, io.randwrite, io.streams; docs/benches.md)", 0, 0, NULL, &fio, NULL},
		RUNNER_OPTS(rn.a),
		NET_OPTS(na),
		{0},
	};
	char err[1536], *pos[MAX_SELECT];
	int npos;
	int orc = opt_command("run", opts, argc, argv, pos, MAX_SELECT, &npos, &rn.a.help, usage);
	if (orc != OPT_GO)
		return orc;
	struct jobplan plan = {0};
	for (int i = 0; i < npos; i++)
		if (jobrun_is_file(pos[i]) && npos > 1) {
			fprintf(stderr, "scalebench run: %s: a job file names its own benches; give it alone "
				"(options may follow)\n", pos[i]);
			return EXIT_USAGE;
		}
	if (npos == 1 && jobrun_is_file(pos[0])) {
		const char *path = pos[0];
		if (jobrun_load(&plan, path, "run", opts, &rn, argc, argv, err, sizeof(err))) {
			fprintf(stderr, "scalebench run: %s\n", err);
			jobrun_free(&plan);
			return EXIT_USAGE;
		}
		npos = plan.nwords;
		memcpy(pos, plan.words, (size_t)npos * sizeof(*pos));
		if (rn.a.help) { /* a job file's [global] cannot ask for help */
			usage(stdout, opts);
			jobrun_free(&plan);
			return EXIT_OK;
		}
	}
	if (runner_prepare(&rn, pos, npos, err, sizeof(err)) ||
	    runner_check_dir(rn.a.dir, err, sizeof(err)) || netopt_check(&na, &rn.net, err, sizeof(err))) {
		fprintf(stderr, "scalebench run: %s\n", err);
		json_decref(rn.over);
		jobrun_free(&plan);
		return EXIT_USAGE;
	}
	if (fio) {
		if (!rn.a.dir) { /* where fio would make its file, as the run would */
			const char *t = getenv("TMPDIR");
			rn.a.dir = t && *t ? t : "/tmp";
		}
		int rc = runner_fio(&rn, stdout, err, sizeof(err));
		if (rc)
			fprintf(stderr, "scalebench run: %s\n", err);
		json_decref(rn.over);
		jobrun_free(&plan);
		return rc ? EXIT_USAGE : EXIT_OK;
	}
	if (na.peer && netsrv_peer_probe(&rn.net, err, sizeof(err))) { /* an unusable peer: bad target */
		fprintf(stderr, "scalebench run: %s\n", err);
		json_decref(rn.over);
		jobrun_free(&plan);
		return EXIT_USAGE;
	}
	int rc;
	if (runner_start(&rn, full_argc, full_argv)) {
		fprintf(stderr, "scalebench run: cannot start: out of memory or signals\n");
		rc = runner_finish(&rn, EXIT_RUNTIME);
	} else {
		json_object_set_new(rn.r.options, "net", netopt_json(&na));
		rn.r.job = plan.doc ? json_incref(plan.doc) : NULL;
		if (netopt_start(&na, &rn.net, err, sizeof(err))) {
			fprintf(stderr, "scalebench run: --netns: %s\n", err);
			rc = runner_finish(&rn, EXIT_RUNTIME);
		} else {
			rc = runner_finish(&rn, plan.nsec ? jobrun_sweep(&rn, &plan, rn.a.dir, NULL)
							  : runner_sweep(&rn, rn.a.dir, NULL));
		}
	}
	jobrun_free(&plan);
	return rc;
}
